/* Rule: pseudo-terminals as Linux's: posix_openpt, grantpt, unlockpt
 * (a locked slave opens with EIO), ptsname(_r), openpty; isatty; the
 * slave's termios (the master's tcgetattr/tcsetattr act on it) and its
 * defaults; the line discipline's basics: canonical mode (a read waits
 * for a whole line; erase; EOF), echo (off with ~ECHO), ICRNL on input,
 * ONLCR on output, raw mode (cfmakeraw); TIOCGWINSZ/TIOCSWINSZ; poll
 * readiness; a blocking canonical read waiting for a line typed in
 * pieces; a closed slave makes the master's read EIO, a closed master
 * the slave's read 0 and its write EIO. */
#include <fcntl.h>
#include <pty.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "conf.h"

static void show_bytes(const char *label, int fd) {
  char buf[128];
  errno = 0;
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) {
    printf("%s=-1 %s\n", label, ename(errno));
    return;
  }
  printf("%s=%zd \"", label, n);
  for (ssize_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)buf[i];
    if (c == '\n') printf("\\n");
    else if (c == '\r') printf("\\r");
    else if (c == '\b') printf("\\b");
    else if (c < 32 || c >= 127) printf("\\x%02x", c);
    else putchar(c);
  }
  printf("\"\n");
}

static void nonblock(int fd, bool on) {
  int fl = fcntl(fd, F_GETFL);
  MUST(fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) == 0);
}

static void put(int fd, const char *s) { MUST(write(fd, s, strlen(s)) == (ssize_t)strlen(s)); }

static void show_poll(const char *label, int fd) {
  struct pollfd p = { fd, POLLIN | POLLOUT, 0 };
  MUST(poll(&p, 1, 0) >= 0);
  show_revents(label, p.revents);
}

static void *typist(void *arg) {
  int m = *(int *)arg;
  settle();
  put(m, "slow ");
  settle();
  put(m, "line\n");
  return NULL;
}

static int open_pair(int *s) {
  int m = posix_openpt(O_RDWR | O_NOCTTY);
  MUST(m >= 0);
  MUST(grantpt(m) == 0);
  char name[64];
  MUST(ptsname_r(m, name, sizeof name) == 0);
  SHOW("open_locked", open(name, O_RDWR | O_NOCTTY));
  MUST(unlockpt(m) == 0);
  *s = open(name, O_RDWR | O_NOCTTY);
  MUST(*s >= 0);
  printf("ptsname_form=%d same=%d\n", strncmp(name, "/dev/pts/", 9) == 0, strcmp(name, ptsname(m)) == 0);
  return m;
}

int main(void) {
  int s;
  int m = open_pair(&s);
  printf("isatty master=%d slave=%d\n", isatty(m), isatty(s));
  char tn[64];
  MUST(ttyname_r(s, tn, sizeof tn) == 0);
  printf("ttyname_is_ptsname=%d master_ttyname=%s\n", strcmp(tn, ptsname(m)) == 0, ttyname(m));
  struct termios t;
  MUST(tcgetattr(s, &t) == 0);
  printf("slave termios iflag=%#x oflag=%#x lflag=%#x cflag=%#x veof=%d verase=%d vmin=%d vtime=%d speed=%d\n",
         (unsigned)t.c_iflag, (unsigned)t.c_oflag, (unsigned)t.c_lflag, (unsigned)t.c_cflag, t.c_cc[VEOF],
         t.c_cc[VERASE], t.c_cc[VMIN], t.c_cc[VTIME], (int)cfgetospeed(&t));
  struct termios tm;
  MUST(tcgetattr(m, &tm) == 0);
  printf("master_sees_slave=%d\n", tm.c_lflag == t.c_lflag && tm.c_iflag == t.c_iflag);

  nonblock(m, true);
  nonblock(s, true);
  show_poll("fresh_master", m);
  show_poll("fresh_slave", s);
  put(m, "hello\n");
  settle();
  show_poll("line_slave", s);
  show_bytes("slave_line", s);
  show_bytes("master_echo", m);
  put(m, "ab");
  settle();
  show_bytes("slave_partial", s);
  show_poll("partial_slave", s);
  put(m, "\n");
  settle();
  show_bytes("slave_completed", s);
  show_bytes("master_echo2", m);
  put(m, "abc\x7f" "d\r");
  settle();
  show_bytes("slave_erased", s);
  show_bytes("master_erase_echo", m);
  put(m, "xy\x04");
  settle();
  show_bytes("slave_eof_line", s);
  put(m, "\x04");
  settle();
  show_bytes("slave_eof", s);
  show_bytes("master_eof_echo", m);

  put(s, "out\n");
  settle();
  show_poll("output_master", m);
  show_bytes("master_onlcr", m);

  t.c_lflag &= ~(tcflag_t)ECHO;
  MUST(tcsetattr(s, TCSANOW, &t) == 0);
  put(m, "pw\n");
  settle();
  show_bytes("slave_noecho", s);
  show_bytes("master_noecho", m);

  struct termios raw = t;
  cfmakeraw(&raw);
  MUST(tcsetattr(m, TCSANOW, &raw) == 0);
  MUST(tcgetattr(s, &t) == 0);
  printf("raw_via_master lflag=%#x iflag=%#x oflag=%#x\n", (unsigned)t.c_lflag, (unsigned)t.c_iflag,
         (unsigned)t.c_oflag);
  put(m, "a\r\x7f");
  settle();
  show_bytes("slave_raw", s);
  put(s, "x\n");
  settle();
  show_bytes("master_raw", m);

  struct winsize ws = { 0 };
  MUST(ioctl(s, TIOCGWINSZ, &ws) == 0);
  printf("winsize_default=%dx%d\n", ws.ws_row, ws.ws_col);
  struct winsize set = { .ws_row = 24, .ws_col = 80 };
  MUST(ioctl(m, TIOCSWINSZ, &set) == 0);
  MUST(ioctl(s, TIOCGWINSZ, &ws) == 0);
  printf("winsize_set=%dx%d\n", ws.ws_row, ws.ws_col);

  close(s);
  settle();
  show_poll("master_after_slave_close", m);
  show_bytes("master_read_after_slave_close", m);
  close(m);

  int m2, s2;
  struct termios ot;
  memset(&ot, 0, sizeof ot);
  ot.c_cflag = CS8 | CREAD;
  ot.c_cc[VMIN] = 1;
  struct winsize ows = { .ws_row = 10, .ws_col = 40 };
  char name[64];
  MUST(openpty(&m2, &s2, name, &ot, &ows) == 0);
  printf("openpty name_form=%d isatty=%d\n", strncmp(name, "/dev/pts/", 9) == 0, isatty(s2));
  MUST(tcgetattr(s2, &t) == 0);
  MUST(ioctl(m2, TIOCGWINSZ, &ws) == 0);
  printf("openpty lflag=%#x winsize=%dx%d\n", (unsigned)t.c_lflag, ws.ws_row, ws.ws_col);
  /* A blocking canonical read waits for the whole line, typed in pieces. */
  t.c_lflag = ICANON;
  MUST(tcsetattr(s2, TCSANOW, &t) == 0);
  pthread_t typist_thread;
  MUST(pthread_create(&typist_thread, NULL, typist, &m2) == 0);
  show_bytes("slave_blocking_line", s2);
  MUST(pthread_join(typist_thread, NULL) == 0);
  nonblock(s2, true);
  close(m2);
  settle();
  show_poll("slave_after_master_close", s2);
  show_bytes("slave_read_after_master_close", s2);
  errno = 0;
  printf("slave_write_after_master_close=%zd %s\n", write(s2, "z", 1), ename(errno));
  close(s2);
  return 0;
}
