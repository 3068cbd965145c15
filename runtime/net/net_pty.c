/* Pseudo-terminals, simulated within the node: a master and its slave
 * with the basics of Linux's line discipline (n_tty) between them.
 *
 * A pty is made by posix_openpt (getpt, open of /dev/ptmx, openpty) and
 * numbered as devpts numbers them (the lowest free index); its slave,
 * /dev/pts/N, opens once unlockpt unlocked it (EIO before).  One termios,
 * the slave's, governs both directions (the master's tcgetattr and
 * tcsetattr act on it, as Linux's tty_mode_ioctl does), with Linux's
 * defaults for a new slave.  What the master writes is input: ICRNL,
 * INLCR, IGNCR; in canonical mode (ICANON) it is edited into lines (VERASE
 * with ECHOE's "\b \b", VKILL, VEOF ending a line without a byte, VEOL,
 * VEOL2, '\n'), and the slave's read returns at most one line, waiting for
 * a whole one; otherwise a read takes what is there (VMIN bytes at least
 * when blocking, VTIME's timeout when VMIN is 0).  ECHO echoes input (and
 * ECHONL newlines, ECHOCTL control bytes as ^X) to the master.  What the
 * slave writes is output: OPOST with ONLCR and OCRNL.  Closing the last
 * slave makes the master's reads EIO once the output is read (POLLHUP);
 * closing the master hangs the slave up: its reads return 0, its writes
 * EIO, poll says IN|OUT|ERR|HUP.
 *
 * Not modeled: ISIG's signals (VINTR, VQUIT, VSUSP are ordinary bytes),
 * IXON flow control, controlling terminals and job control (TIOCSCTTY is
 * accepted, tcgetpgrp and the like are not simulated), VTIME as an
 * inter-byte timer, packet mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"

struct net_pty {
  unsigned index;
  bool locked;                       /* until unlockpt */
  struct termios tio;                /* the slave's */
  struct winsize ws;
  struct net_file *master;           /* NULL once closed */
  unsigned slaves;                   /* open slave files */
  bool slave_was_open;
  uint64_t gen;                      /* bumped by whatever may make a waiter ready */
  /* input (master to slave): what the slave may read; in canonical mode
   * whole lines, each ending at line_end[i] (an EOF line has no byte for
   * its end) */
  uint8_t rd[DETSIM_NET_PTY_BYTES];
  unsigned rd_len, lines;
  unsigned line_end[DETSIM_NET_PTY_BYTES];
  uint8_t edit[DETSIM_NET_PTY_BYTES]; /* canonical: the line being edited */
  unsigned edit_len;
  /* output (slave to master), echoes included */
  uint8_t out[DETSIM_NET_PTY_BYTES];
  unsigned out_len;
};

static struct net_pty *ptys[DETSIM_NET_PTYS_MAX];

static struct net_pty *pty_of(const struct net_file *f) { return (struct net_pty *)f->obj; }

bool net_pty_is(const struct net_file *f) { return f->kind == NET_PTY_MASTER || f->kind == NET_PTY_SLAVE; }

/* Linux's tty_std_termios as the pts driver sets it. */
static void default_termios(struct termios *t) {
  memset(t, 0, sizeof *t);
  t->c_iflag = ICRNL | IXON;
  t->c_oflag = OPOST | ONLCR;
  t->c_cflag = B38400 | CS8 | CREAD;
  t->c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN;
  static const cc_t cc[] = { [VINTR] = 3, [VQUIT] = 28, [VERASE] = 127, [VKILL] = 21, [VEOF] = 4, [VTIME] = 0,
                             [VMIN] = 1, [VSWTC] = 0, [VSTART] = 17, [VSTOP] = 19, [VSUSP] = 26, [VEOL] = 0,
                             [VREPRINT] = 18, [VDISCARD] = 15, [VWERASE] = 23, [VLNEXT] = 22, [VEOL2] = 0 };
  memcpy(t->c_cc, cc, sizeof cc);
  t->c_ispeed = t->c_ospeed = B38400;
}

static void changed(struct net_pty *p) {
  p->gen++;
  net_wake_node(detsim__host_index, detsim__now_ns());
}

/* ---- output processing (to the master) ---- */

static unsigned out_room(const struct net_pty *p) { return DETSIM_NET_PTY_BYTES - p->out_len; }

/* One byte of output through OPOST; false when there is no room. */
static bool output_byte(struct net_pty *p, uint8_t c) {
  const struct termios *t = &p->tio;
  if ((t->c_oflag & OPOST) && c == '\n' && (t->c_oflag & ONLCR)) {
    if (out_room(p) < 2) return false;
    p->out[p->out_len++] = '\r';
    p->out[p->out_len++] = '\n';
    return true;
  }
  if ((t->c_oflag & OPOST) && c == '\r' && (t->c_oflag & OCRNL)) c = '\n';
  if (out_room(p) < 1) return false;
  p->out[p->out_len++] = c;
  return true;
}

static void echo_byte(struct net_pty *p, uint8_t c) {
  const struct termios *t = &p->tio;
  if ((t->c_lflag & ECHOCTL) && (c < 32 || c == 127) && c != '\n' && c != '\t') {
    output_byte(p, '^');
    output_byte(p, c == 127 ? '?' : (uint8_t)(c ^ 0x40));
    return;
  }
  output_byte(p, c);
}

static void echo_erase(struct net_pty *p) {
  if (p->tio.c_lflag & ECHOE) {
    output_byte(p, '\b');
    output_byte(p, ' ');
    output_byte(p, '\b');
  } else {
    echo_byte(p, p->tio.c_cc[VERASE]);
  }
}

/* ---- input processing (from the master) ---- */

static bool is_char(const struct termios *t, uint8_t c, int which) {
  return t->c_cc[which] != _POSIX_VDISABLE && c == t->c_cc[which];
}

static unsigned in_room(const struct net_pty *p) { return DETSIM_NET_PTY_BYTES - p->rd_len - p->edit_len; }

static void end_line(struct net_pty *p) {
  memcpy(p->rd + p->rd_len, p->edit, p->edit_len);
  p->rd_len += p->edit_len;
  p->edit_len = 0;
  p->line_end[p->lines++] = p->rd_len;
}

/* One byte the master wrote; false when there is no room for it. */
static bool input_byte(struct net_pty *p, uint8_t c) {
  const struct termios *t = &p->tio;
  if (t->c_iflag & ISTRIP) c &= 0x7f;
  if (c == '\r') {
    if (t->c_iflag & IGNCR) return true;
    if (t->c_iflag & ICRNL) c = '\n';
  } else if (c == '\n' && (t->c_iflag & INLCR)) {
    c = '\r';
  }
  bool echo = (t->c_lflag & ECHO) != 0;
  if (!(t->c_lflag & ICANON)) {
    if (in_room(p) < 1) return false;
    p->rd[p->rd_len++] = c;
    if (echo) echo_byte(p, c);
    return true;
  }
  if (is_char(t, c, VERASE)) {
    if (p->edit_len > 0) {
      p->edit_len--;
      if (echo) echo_erase(p);
    }
    return true;
  }
  if (is_char(t, c, VKILL)) {
    while (p->edit_len > 0) {
      p->edit_len--;
      if (echo && (t->c_lflag & ECHOKE)) echo_erase(p);
    }
    if (echo && !(t->c_lflag & ECHOKE)) {
      echo_byte(p, c);
      if (t->c_lflag & ECHOK) output_byte(p, '\n');
    }
    return true;
  }
  if (p->lines == DETSIM_NET_PTY_BYTES) return false;
  if (is_char(t, c, VEOF)) {
    end_line(p); /* not echoed, no byte */
    return true;
  }
  bool newline = c == '\n' || is_char(t, c, VEOL) || is_char(t, c, VEOL2);
  /* A line holds 4095 bytes and its end (n_tty's N_TTY_BUF_SIZE - 1). */
  if (in_room(p) < 1 || (!newline && p->edit_len >= DETSIM_NET_PTY_BYTES - 1)) return !newline;
  p->edit[p->edit_len++] = c;
  if (echo || (c == '\n' && (t->c_lflag & ECHONL))) echo_byte(p, c);
  if (newline) end_line(p);
  return true;
}

/* ---- making and opening ---- */

static struct net_file *pty_file(struct net_pty *p, enum net_kind kind, int flags, int *fd) {
  struct net_file *f = net_file_new(kind, p);
  if (f == NULL) return NULL;
  f->nonblock = (flags & O_NONBLOCK) != 0;
  *fd = net_fd_alloc(f, (flags & O_CLOEXEC) != 0, 0);
  if (*fd < 0) {
    int e = errno;
    net_file_discard(f);
    errno = e;
    return NULL;
  }
  return f;
}

int net_pty_open_master(int flags) {
  unsigned i = 0;
  while (i < DETSIM_NET_PTYS_MAX && ptys[i] != NULL) i++;
  if (i == DETSIM_NET_PTYS_MAX) {
    net_limit("net_ptys_max", DETSIM_NET_PTYS_MAX, "more pseudo-terminals open at once (ENOSPC)");
    errno = ENOSPC;
    return -1;
  }
  struct net_pty *p = detsim__net_calloc(1, sizeof *p);
  CHECK(p != NULL);
  p->index = i;
  p->locked = true;
  default_termios(&p->tio);
  int fd;
  struct net_file *f = pty_file(p, NET_PTY_MASTER, flags, &fd);
  if (f == NULL) {
    int e = errno;
    detsim__net_free(p);
    errno = e;
    return -1;
  }
  p->master = f;
  ptys[i] = p;
  return fd;
}

bool net_pty_slave_path(const char *path, unsigned *index) {
  if (strncmp(path, "/dev/pts/", 9) != 0 || path[9] < '0' || path[9] > '9') return false;
  char *end;
  unsigned long n = strtoul(path + 9, &end, 10);
  if (*end != '\0' || n >= DETSIM_NET_PTYS_MAX || ptys[n] == NULL) return false;
  *index = (unsigned)n;
  return true;
}

int net_pty_open_slave(unsigned index, int flags) {
  struct net_pty *p = ptys[index];
  CHECK(p != NULL);
  if (p->locked || p->master == NULL) {
    errno = EIO; /* pts_unix98_lookup / tty_reopen of a locked or dying pty */
    return -1;
  }
  int fd;
  if (pty_file(p, NET_PTY_SLAVE, flags, &fd) == NULL) return -1;
  p->slaves++;
  p->slave_was_open = true;
  changed(p);
  return fd;
}

void net_pty_release(struct net_file *f) {
  struct net_pty *p = pty_of(f);
  if (f->kind == NET_PTY_MASTER) {
    p->master = NULL;
    ptys[p->index] = NULL; /* the index is free again, as devpts frees it */
  } else {
    CHECK_GE(p->slaves, 1);
    p->slaves--;
  }
  changed(p);
  if (p->master == NULL && p->slaves == 0) detsim__net_free(p);
}

/* ---- readiness ---- */

static bool slave_readable(const struct net_pty *p, size_t want) {
  if (p->tio.c_lflag & ICANON) return p->lines > 0;
  unsigned vmin = p->tio.c_cc[VMIN];
  size_t need = vmin == 0 ? 1 : vmin < want ? vmin : want;
  return p->rd_len >= need;
}

static bool hung_up(const struct net_pty *p) { return p->master == NULL; }
static bool slave_gone(const struct net_pty *p) { return p->slave_was_open && p->slaves == 0; }

uint32_t net_pty_poll(struct net_file *f) {
  struct net_pty *p = pty_of(f);
  uint32_t m = 0;
  if (f->kind == NET_PTY_MASTER) {
    if (p->out_len > 0) m |= EPOLLIN | EPOLLRDNORM;
    if (in_room(p) > 0) m |= EPOLLOUT | EPOLLWRNORM;
    if (slave_gone(p)) m |= EPOLLHUP;
    return m;
  }
  if (hung_up(p)) return EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM | EPOLLERR | EPOLLHUP;
  if (slave_readable(p, 1)) m |= EPOLLIN | EPOLLRDNORM;
  if (out_room(p) > 0) m |= EPOLLOUT | EPOLLWRNORM;
  return m;
}

uint64_t net_pty_gen(struct net_file *f) { return pty_of(f)->gen; }

struct pty_wait { struct net_file *f; struct net_pty *p; size_t want; bool reading; };

static bool pty_ready(void *arg) {
  struct pty_wait *w = arg;
  struct net_pty *p = w->p;
  if (w->f->kind == NET_PTY_MASTER) {
    if (w->reading) return p->out_len > 0 || slave_gone(p);
    return in_room(p) > 0;
  }
  if (hung_up(p)) return true;
  return w->reading ? slave_readable(p, w->want) : out_room(p) > 0;
}

static int pty_block(struct pty_wait *w, enum detsim_event_kind kind, uint64_t deadline) {
  return net_wait(kind, w->f, pty_ready, NULL, w, deadline);
}

/* ---- reading and writing ---- */

static size_t copy_to_iov(const struct iovec *iov, int iovcnt, const uint8_t *src, size_t n) {
  size_t done = 0;
  for (int i = 0; i < iovcnt && done < n; i++) {
    size_t take = iov[i].iov_len < n - done ? iov[i].iov_len : n - done;
    memcpy(iov[i].iov_base, src + done, take);
    done += take;
  }
  return done;
}

/* Takes n bytes from the front of the slave's input; `whole`: they end
 * the first line, which goes. */
static void take_input(struct net_pty *p, unsigned n, bool whole) {
  memmove(p->rd, p->rd + n, p->rd_len - n);
  p->rd_len -= n;
  unsigned k = 0;
  for (unsigned i = whole ? 1 : 0; i < p->lines; i++) p->line_end[k++] = p->line_end[i] - n;
  p->lines = k;
}

ssize_t net_pty_readv(struct net_file *f, const struct iovec *iov, int iovcnt) {
  struct net_pty *p = pty_of(f);
  size_t total = net_iov_total(iov, iovcnt);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (f->kind == NET_PTY_SLAVE && !(p->tio.c_lflag & ICANON) && p->tio.c_cc[VMIN] == 0 && p->tio.c_cc[VTIME] > 0)
    deadline = detsim__deadline_after_ns((uint64_t)p->tio.c_cc[VTIME] * 100000000ull);
  for (;;) {
    if (f->kind == NET_PTY_MASTER) {
      if (p->out_len > 0) {
        size_t n = copy_to_iov(iov, iovcnt, p->out, p->out_len < total ? p->out_len : total);
        memmove(p->out, p->out + n, p->out_len - n);
        p->out_len -= (unsigned)n;
        changed(p);
        return (ssize_t)n;
      }
      if (slave_gone(p)) {
        errno = EIO;
        return -1;
      }
    } else {
      if (hung_up(p)) return 0;
      if (total == 0) return 0;
      if (p->tio.c_lflag & ICANON) {
        if (p->lines > 0) {
          unsigned line = p->line_end[0];
          size_t n = copy_to_iov(iov, iovcnt, p->rd, line < total ? line : total);
          /* A line ended by VEOF has no byte for its end: an empty one is
           * end-of-file (0). */
          take_input(p, (unsigned)n, n == line);
          changed(p);
          return (ssize_t)n;
        }
      } else if (p->rd_len > 0 && (slave_readable(p, total) || f->nonblock)) {
        size_t n = copy_to_iov(iov, iovcnt, p->rd, p->rd_len < total ? p->rd_len : total);
        take_input(p, (unsigned)n, false);
        changed(p);
        return (ssize_t)n;
      } else if (p->tio.c_cc[VMIN] == 0 && p->tio.c_cc[VTIME] == 0) {
        return 0;
      }
    }
    if (f->nonblock) {
      errno = EAGAIN;
      return -1;
    }
    struct pty_wait w = { f, p, total, true };
    int r = pty_block(&w, DETSIM_EV_net_recv, deadline);
    if (r == ETIMEDOUT) return 0; /* VTIME ran out */
    if (r != 0) {
      errno = r == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

struct pty_write_room { struct net_pty *p; };

ssize_t net_pty_writev(struct net_file *f, const struct iovec *iov, int iovcnt) {
  struct net_pty *p = pty_of(f);
  size_t total = net_iov_total(iov, iovcnt), done = 0;
  int i = 0;
  size_t at = 0;
  for (;;) {
    if (f->kind == NET_PTY_SLAVE && hung_up(p)) {
      if (done > 0) return (ssize_t)done;
      errno = EIO;
      return -1;
    }
    if (f->kind == NET_PTY_MASTER && slave_gone(p)) return (ssize_t)total; /* nobody reads: dropped */
    bool stuck = false;
    while (done < total) {
      while (at == iov[i].iov_len) {
        i++;
        at = 0;
      }
      uint8_t c = ((const uint8_t *)iov[i].iov_base)[at];
      bool ok = f->kind == NET_PTY_MASTER ? input_byte(p, c) : output_byte(p, c);
      if (!ok) {
        stuck = true;
        break;
      }
      at++;
      done++;
    }
    if (done > 0) changed(p);
    if (!stuck || done == total) return (ssize_t)done;
    if (f->nonblock) {
      if (done > 0) return (ssize_t)done;
      errno = EAGAIN;
      return -1;
    }
    struct pty_wait w = { f, p, 0, false };
    int r = pty_block(&w, DETSIM_EV_net_send, DETSIM_NO_DEADLINE);
    if (r != 0) {
      if (done > 0) return (ssize_t)done;
      errno = r == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

/* ---- termios, window size, the master's own ioctls ---- */

int net_pty_tcgetattr(struct net_file *f, struct termios *t) {
  if (t == NULL) return EFAULT;
  *t = pty_of(f)->tio;
  return 0;
}

int net_pty_tcsetattr(struct net_file *f, int action, const struct termios *t) {
  struct net_pty *p = pty_of(f);
  if (t == NULL) return EFAULT;
  if (action != TCSANOW && action != TCSADRAIN && action != TCSAFLUSH) return EINVAL;
  bool was_canon = (p->tio.c_lflag & ICANON) != 0;
  p->tio = *t;
  if (action == TCSAFLUSH) { /* the input not yet read goes */
    p->rd_len = p->lines = p->edit_len = 0;
  }
  if (was_canon && !(p->tio.c_lflag & ICANON)) {
    /* Leaving canonical mode: the line being edited is input as it is. */
    memcpy(p->rd + p->rd_len, p->edit, p->edit_len);
    p->rd_len += p->edit_len;
    p->edit_len = 0;
    p->lines = 0;
  }
  changed(p);
  return 0;
}

unsigned net_pty_number(struct net_file *f) { return pty_of(f)->index; }

int net_pty_index(struct net_file *f, unsigned *index) {
  if (f->kind != NET_PTY_MASTER) return ENOTTY;
  *index = pty_of(f)->index;
  return 0;
}

int net_pty_unlock(struct net_file *f, bool lock) {
  if (f->kind != NET_PTY_MASTER) return ENOTTY;
  pty_of(f)->locked = lock;
  return 0;
}

/* struct termios as the kernel's TCGETS/TCSETS take it (asm/termbits.h):
 * glibc's without its speeds and with 19 control characters. */
struct kernel_termios {
  tcflag_t c_iflag, c_oflag, c_cflag, c_lflag;
  cc_t c_line;
  cc_t c_cc[19];
};

int net_pty_ioctl(struct net_file *f, unsigned long req, void *arg) {
  struct net_pty *p = pty_of(f);
  if (arg == NULL && req != TIOCSCTTY && req != TIOCNOTTY && req != TCFLSH) return EFAULT;
  switch (req) {
  case TCGETS: {
    struct kernel_termios k = { p->tio.c_iflag, p->tio.c_oflag, p->tio.c_cflag, p->tio.c_lflag, p->tio.c_line, { 0 } };
    memcpy(k.c_cc, p->tio.c_cc, sizeof k.c_cc);
    memcpy(arg, &k, sizeof k);
    return 0;
  }
  case TCSETS:
  case TCSETSW:
  case TCSETSF: {
    struct kernel_termios k;
    memcpy(&k, arg, sizeof k);
    struct termios t = p->tio;
    t.c_iflag = k.c_iflag;
    t.c_oflag = k.c_oflag;
    t.c_cflag = k.c_cflag;
    t.c_lflag = k.c_lflag;
    t.c_line = k.c_line;
    memcpy(t.c_cc, k.c_cc, sizeof k.c_cc);
    return net_pty_tcsetattr(f, req == TCSETS ? TCSANOW : req == TCSETSW ? TCSADRAIN : TCSAFLUSH, &t);
  }
  case TIOCGWINSZ: memcpy(arg, &p->ws, sizeof p->ws); return 0;
  case TIOCSWINSZ: memcpy(&p->ws, arg, sizeof p->ws); return 0; /* (no SIGWINCH: no job control) */
  case TIOCGPTN: {
    unsigned n;
    int e = net_pty_index(f, &n);
    if (e == 0) memcpy(arg, &n, sizeof n);
    return e;
  }
  case TIOCSPTLCK: {
    int lock;
    memcpy(&lock, arg, sizeof lock);
    return net_pty_unlock(f, lock != 0);
  }
  case FIONREAD: {
    int n = f->kind == NET_PTY_MASTER ? (int)p->out_len
          : (p->tio.c_lflag & ICANON) ? (int)(p->lines ? p->line_end[p->lines - 1] : 0) : (int)p->rd_len;
    memcpy(arg, &n, sizeof n);
    return 0;
  }
  case TCFLSH: {
    int q = (int)(intptr_t)arg;
    if (q == TCIFLUSH || q == TCIOFLUSH) p->rd_len = p->lines = p->edit_len = 0;
    if (q == TCOFLUSH || q == TCIOFLUSH) p->out_len = 0;
    changed(p);
    return 0;
  }
  case TIOCSCTTY:
  case TIOCNOTTY: return 0; /* no controlling terminals: nothing to do */
  default:
    net_unsupported("this ioctl on a pseudo-terminal",
                    "only TCGETS, TCSETS(W/F), TIOCGWINSZ, TIOCSWINSZ, TIOCGPTN, TIOCSPTLCK, FIONREAD, TCFLSH and "
                    "TIOCSCTTY are simulated");
    return ENOTTY;
  }
}
