/* Stream sockets (AF_INET and AF_INET6 over TCP, AF_UNIX SOCK_STREAM) with
 * the rules Linux shows on loopback.
 *
 * A connection is two streams (net_stream.c), one per direction, and two
 * ends.  Each direction has a latency drawn from the seed ("network"
 * stream); unix connections have none, as local IPC has none.  The rules
 * mirror the kernel's fields: an end's pending error (sk_err), its receive
 * and send shutdown bits, and the TCP state, except that what arrives by time
 * (SYN-ACK, data, FIN, RST) is computed from the clock when asked (the
 * "view") instead of being applied by an interrupt.  The rules, each with its
 * conformance test under testsuite/net/conformance/:
 *  - connect completes into the listener's backlog before any accept;
 *  - connect without a listener: ECONNREFUSED (after a round trip);
 *  - after the peer's close a read returns 0; the first write after it
 *    succeeds (the peer's kernel answers it with RST), the next fails with
 *    EPIPE and SIGPIPE unless MSG_NOSIGNAL; bytes sent to a closed peer
 *    are never acknowledged, so they hold the send buffer until the RST
 *    arrives (a streaming writer is held, then fails);
 *  - close with unread data (or SO_LINGER 0) sends RST instead of FIN: the
 *    peer reads what had arrived, then ECONNRESET, then 0;
 *  - shutdown(SHUT_WR) sends FIN and keeps reading;
 *  - non-blocking: EINPROGRESS, then writable with SO_ERROR 0 or the error;
 *    EAGAIN on empty reads and full buffers.
 * Unix sockets differ where Linux's differ: connect is immediate, a peer's
 * close makes the next write fail with EPIPE at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "world/world.h"
#include "intercept/intercept.h"


/* Every bound socket (listeners, clients with a port, unix paths). */
struct net_sock *net__bound_list_local;
/* Where the next ephemeral port and unix autobind name are drawn from.
 * They are the host's, as Linux's are its network namespace's: in a world
 * its slot's (world_abi.h), shared by its processes, so a parent and its
 * children never draw the same; before a run's first fork, this process's
 * own, which the host's slot takes over then (net_host_ports_take). */
struct port_draws {
  uint32_t ready, ephemeral_next, unix_autobind_next;
};
static struct port_draws own_draws;

static struct port_draws *port_draws(void) {
  if (!detsim__in_world) return &own_draws;
  /* The fields are laid out as struct port_draws. */
  _Static_assert(offsetof(struct detsim_world_node, ephemeral_next) ==
                     offsetof(struct detsim_world_node, ports_ready) + sizeof(uint32_t) &&
                 offsetof(struct detsim_world_node, unix_autobind_next) ==
                     offsetof(struct detsim_world_node, ports_ready) + 2 * sizeof(uint32_t),
                 "a host's port draws are one struct port_draws");
  return (struct port_draws *)&detsim__ws->nodes[detsim__host_index].ports_ready;
}

void net_host_ports_take(void) { *port_draws() = own_draws; }

struct net_sock *net_sock_of(struct net_file *f) {
  return f != NULL && f->kind == NET_SOCK ? f->obj : NULL;
}

static bool is_unix(const struct net_sock *s) { return s->domain == AF_UNIX; }

/* ---- the view: what has arrived by `now` ---- */

struct view {
  bool connecting, refused, connected;
  bool fin_in, rst_in, closed;   /* closed: TCP_CLOSE (never connected, reset, refused) */
  bool rcv_shut, snd_shut;
  uint64_t avail;
  int err;
};

static struct net_sock *peer_of(const struct net_sock *s) {
  return s->conn ? s->conn->end[1 - s->side] : NULL;
}

static void view(const struct net_sock *s, uint64_t now, struct view *v) {
  memset(v, 0, sizeof *v);
  v->err = s->so_error;
  if (s->state == SS_NEW || s->state == SS_LISTEN) {
    v->closed = s->state == SS_NEW;
    return;
  }
  if (s->state == SS_CONNECTING && s->conn == NULL) {
    /* No listener: the refusal arrives at refused_at. */
    if (s->refused_at <= now) {
      /* tcp_reset in SYN_SENT: Linux polls this as OUT|ERR|HUP, no IN. */
      v->refused = v->closed = v->snd_shut = true;
      if (!v->err && !s->refused_consumed) v->err = s->refuse_err;
    } else {
      v->connecting = true;
    }
    return;
  }
  CHECK(s->conn != NULL);
  if (s->state == SS_CONNECTING && s->established_at > now) {
    v->connecting = true;
    return;
  }
  const struct net_conn *c = s->conn;
  const struct net_stream *in = &c->dir[1 - s->side];
  v->connected = true;
  v->avail = net_stream_avail(in, now);
  v->fin_in = net_stream_fin_arrived(in, now);
  v->rst_in = net_stream_rst_arrived(in, now);
  const struct net_sock *p = peer_of(s);
  bool unix_peer_gone = c->unix_rules && p == NULL;
  bool unix_peer_shut_rd = c->unix_rules && p != NULL && p->shut_rd;
  v->rcv_shut = s->shut_rd || v->fin_in || v->rst_in || unix_peer_gone;
  v->snd_shut = s->shut_wr || v->rst_in || unix_peer_gone || unix_peer_shut_rd;
  v->closed = v->rst_in && !c->unix_rules;
  if (!v->err && v->rst_in && !s->rst_consumed) {
    /* tcp_reset(): a reset in CLOSE_WAIT (FIN received, none sent) is EPIPE. */
    bool close_wait = !c->unix_rules && in->fin_at <= in->rst_at && !s->shut_wr;
    v->err = close_wait ? EPIPE : ECONNRESET;
  }
}

static void consume_error(struct net_sock *s, const struct view *v) {
  if (s->so_error) s->so_error = 0;
  else if (v->refused) s->refused_consumed = true;
  else if (v->rst_in) s->rst_consumed = true;
}

/* The urgent marks that have arrived take effect (net_oob.c), before an
 * operation looks at the stream; SIGURG for the new ones. */
static void oob_settle(struct net_sock *s, uint64_t now) {
  if (s->conn == NULL || s->conn->unix_rules) return;
  if (s->state == SS_CONNECTING && s->established_at > now) return;
  unsigned n = net_oob_settle(&s->conn->dir[1 - s->side], s->oobinline, now);
  if (n > 0 && s->file != NULL) net_sigurg(s->file);
}

static bool acceptable(const struct net_sock *s, uint64_t now) {
  for (unsigned i = 0; i < s->qlen; i++)
    if (s->queue[i]->ready_at <= now) return true;
  return net__syn_ready(s, now) > 0; /* a SYN sent again got in */
}

uint32_t net_sock_poll(struct net_sock *s, uint64_t now) {
  if (s->type == SOCK_DGRAM) return is_unix(s) ? net_unix_dgram_poll(s, now) : net_udp_poll(s, now);
  if (s->state == SS_LISTEN) return acceptable(s, now) ? (EPOLLIN | EPOLLRDNORM) : 0;
  if (net__syn_waits(s)) return net__syn_client_poll(s, now);
  struct view v;
  view(s, now, &v);
  uint32_t m = 0;
  if ((v.rcv_shut && v.snd_shut) || v.closed) m |= EPOLLHUP;
  if (v.rcv_shut) m |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
  if (!v.connecting) {
    uint64_t need = 1;
    if (v.connected && !s->conn->unix_rules) {
      /* Urgent data: POLLPRI while a byte is there to take; the byte at
       * the mark alone is nothing to read (tcp_poll's target + 1). */
      struct net_urg_view u;
      net_oob_view(&s->conn->dir[1 - s->side], s->oobinline, now, &u);
      if (u.state == NET_URG_VALID) m |= EPOLLPRI;
      v.avail -= u.skipped;
      if (u.at_mark && !s->oobinline) need = 2;
    }
    if (v.avail >= need) m |= EPOLLIN | EPOLLRDNORM;
    bool space = true;
    if (v.connected && !v.snd_shut) { /* an orphan's bytes wait for the RST (send) */
      const struct net_stream *out = &s->conn->dir[s->side];
      /* unix_writable: a unix sender is writable again once its charge is
       * down to a quarter of its send buffer. */
      space = out->whole_writes ? out->wmem * 4 <= out->cap : net_stream_space(out) > 0;
      if (!space) net_stream_watch_space(&s->conn->dir[s->side]);
    }
    if (space) m |= EPOLLOUT | EPOLLWRNORM;
  }
  if (v.err) m |= EPOLLERR;
  return m;
}

uint64_t net_sock_next_change(struct net_sock *s, uint64_t now) {
  if (s->type == SOCK_DGRAM) return net_udp_next_change(s, now);
  uint64_t t = DETSIM_NO_DEADLINE;
  if (s->state == SS_LISTEN) {
    for (unsigned i = 0; i < s->qlen; i++)
      if (s->queue[i]->ready_at > now && s->queue[i]->ready_at < t) t = s->queue[i]->ready_at;
    uint64_t w = net__syn_listener_next(s, now);
    return w < t ? w : t;
  }
  if (net__syn_waits(s)) return net__syn_client_next(s, now);
  if (s->state == SS_CONNECTING) {
    if (s->conn == NULL) return s->refused_at > now ? s->refused_at : t;
    if (s->established_at > now) return s->established_at;
  }
  if (s->conn != NULL) t = net_stream_next_arrival(&s->conn->dir[1 - s->side], now);
  return t;
}

uint64_t net_sock_gen(struct net_sock *s, uint64_t now, uint32_t events) {
  if (s->type == SOCK_DGRAM) return (events & (EPOLLIN | EPOLLRDNORM)) ? net_udp_gen(s, now) : 0;
  uint64_t g = 0;
  if (s->state == SS_LISTEN) {
    g = s->accepted;
    for (unsigned i = 0; i < s->qlen; i++) g += s->queue[i]->ready_at <= now;
    return g + net__syn_ready(s, now);
  }
  if (net__syn_waits(s)) return net__syn_client_gen(s, now);
  if (s->state == SS_CONNECTING) {
    g += s->conn == NULL ? (s->refused_at <= now) : (s->established_at <= now);
  }
  if (s->conn != NULL) {
    if (events & (EPOLLIN | EPOLLRDNORM | EPOLLRDHUP | EPOLLPRI))
      g += net_stream_arrived_segments(&s->conn->dir[1 - s->side], now);
    if (events & (EPOLLOUT | EPOLLWRNORM)) {
      g += s->conn->dir[s->side].reads;
      net_stream_watch_space(&s->conn->dir[s->side]);
    }
  }
  return g;
}

/* ---- waiting on one socket ---- */

struct sock_wait {
  struct net_sock *s;
  uint32_t want;     /* EPOLL* bits that end the wait */
};

static bool sock_wait_ready(void *arg) {
  struct sock_wait *w = arg;
  return (net_sock_poll(w->s, detsim__now_ns()) & w->want) != 0;
}

static uint64_t sock_wait_next(void *arg) {
  struct sock_wait *w = arg;
  return net_sock_next_change(w->s, detsim__now_ns());
}

/* 0 when ready, EAGAIN at the deadline (SO_RCVTIMEO / SO_SNDTIMEO), EINTR
 * when a signal's handler ran. */
static int sock_wait(struct net_sock *s, enum detsim_event_kind kind, uint32_t want, uint64_t timeo_ns) {
  struct sock_wait w = { s, want | EPOLLERR | EPOLLHUP };
  uint64_t deadline = timeo_ns ? detsim__deadline_after_ns(timeo_ns) : DETSIM_NO_DEADLINE;
  int r = net_wait(kind, s->file, sock_wait_ready, sock_wait_next, &w, deadline);
  return r == 0 ? 0 : r == EINTR ? EINTR : EAGAIN;
}

/* ---- creation ---- */

static struct net_sock *sock_alloc(int domain, int type, int protocol) {
  struct net_sock *s = detsim__net_calloc(1, sizeof *s);
  CHECK(s != NULL);
  s->domain = domain;
  s->type = type;
  s->protocol = protocol;
  s->node = detsim__host_index;
  bool tcp = domain != AF_UNIX && type == SOCK_STREAM;
  s->rcvbuf = tcp ? DETSIM_NET_TCP_RCVBUF_DEFAULT : DETSIM_NET_SOCK_BUF_DEFAULT;
  s->sndbuf = tcp ? DETSIM_NET_TCP_SNDBUF_DEFAULT : DETSIM_NET_SOCK_BUF_DEFAULT;
  net__sock_ip_defaults(s);
  if (detsim__world_hosts()) {
    s->all_next = net__all_socks;
    if (s->all_next) s->all_next->all_prev = s;
    net__all_socks = s;
  }
  return s;
}

void net__sock_free(struct net_sock *s) {
  if (detsim__world_hosts()) {
    if (s->all_prev) s->all_prev->all_next = s->all_next;
    else net__all_socks = s->all_next;
    if (s->all_next) s->all_next->all_prev = s->all_prev;
  }
  detsim__net_free(s);
}

/* A file and a descriptor for `s`; -1 with errno (then `s` is freed). */
static int sock_install(struct net_sock *s, int flags) {
  struct net_file *f = net_file_new(NET_SOCK, s);
  if (f == NULL) {
    net__sock_free(s);
    return -1;
  }
  s->file = f;
  f->nonblock = (flags & SOCK_NONBLOCK) != 0;
  int fd = net_fd_alloc(f, (flags & SOCK_CLOEXEC) != 0, 0);
  if (fd < 0) {
    int e = errno;
    f->refs = 0;
    net_file_release(f);
    errno = e;
  }
  return fd;
}

static const char *family_name(int domain) {
  switch (domain) {
  case AF_INET: return "AF_INET";
  case AF_INET6: return "AF_INET6";
  case AF_UNIX: return "AF_UNIX";
  case AF_NETLINK: return "AF_NETLINK";
  case AF_PACKET: return "AF_PACKET";
  default: return "this address family";
  }
}

/* 0, or an errno (reported) for what the simulation does not model. */
static int check_kind(int domain, int base, int protocol) {
  if (domain != AF_INET && domain != AF_INET6 && domain != AF_UNIX) {
    net_unsupported(family_name(domain), "only AF_INET, AF_INET6 and AF_UNIX sockets are simulated");
    return EAFNOSUPPORT;
  }
  if (base == SOCK_RAW) {
    net_unsupported("SOCK_RAW", "raw sockets");
    return EPROTONOSUPPORT;
  }
  if (base == SOCK_DGRAM) {
    if (domain == AF_UNIX) return protocol == 0 ? 0 : EPROTONOSUPPORT;
    return protocol == 0 || protocol == IPPROTO_UDP ? 0 : EPROTONOSUPPORT;
  }
  if (base == SOCK_SEQPACKET) {
    net_unsupported("SOCK_SEQPACKET", "sequenced-packet sockets are not simulated yet");
    return EPROTONOSUPPORT;
  }
  if (base != SOCK_STREAM) return EINVAL;
  if (domain == AF_UNIX && protocol != 0) return EPROTONOSUPPORT;
  if (domain != AF_UNIX && protocol != 0 && protocol != IPPROTO_TCP) {
    if (protocol == IPPROTO_MPTCP) net_unsupported("IPPROTO_MPTCP", "multipath TCP");
    return EPROTONOSUPPORT;
  }
  return 0;
}

int net_socket(int domain, int type, int protocol) {
  int flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);
  int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  int e = check_kind(domain, base, protocol);
  if (e) {
    errno = e;
    return -1;
  }
  int proto = domain == AF_UNIX ? 0 : base == SOCK_DGRAM ? IPPROTO_UDP : IPPROTO_TCP;
  struct net_sock *s = sock_alloc(domain, base, proto);
  return sock_install(s, flags);
}

/* A new connection; `unix_rules` gives it no latency. */
static struct net_conn *conn_new(bool unix_rules, uint64_t cap0, uint64_t cap1) {
  struct net_conn *c = detsim__net_calloc(1, sizeof *c);
  CHECK(c != NULL);
  c->unix_rules = unix_rules;
  uint64_t l0 = unix_rules ? 0 : net_latency_draw();
  uint64_t l1 = unix_rules ? 0 : net_latency_draw();
  net_stream_init(&c->dir[0], cap0, l0);
  net_stream_init(&c->dir[1], cap1, l1);
  c->dir[0].whole_writes = c->dir[1].whole_writes = unix_rules;
  for (int d = 0; d < 2; d++)
    if (c->dir[d].latency_ns) net_stream_link(&c->dir[d], net_jitter_draw(), net_bandwidth_draw());
  return c;
}

void net__conn_caps(struct net_conn *c) {
  if (c->unix_rules) {
    /* A unix sender's pieces are charged to it against its SO_SNDBUF;
     * the receiver's SO_RCVBUF plays no part (unix_stream_sendmsg). */
    for (int d = 0; d < 2; d++)
      if (c->end[d] != NULL) c->dir[d].cap = (uint64_t)c->end[d]->sndbuf;
    return;
  }
  uint64_t half = detsim__opt.net_buffer_bytes / 2;
  for (int d = 0; d < 2; d++) {
    const struct net_sock *snd = c->end[d], *rcv = c->end[1 - d];
    if (snd == NULL || rcv == NULL) continue; /* a closed end keeps what it had */
    uint64_t window = rcv->rcvbuf_set ? (uint64_t)rcv->rcvbuf / 2 : half;
    uint64_t queue = snd->sndbuf_set ? (uint64_t)snd->sndbuf : half;
    c->dir[d].cap = window + queue;
  }
}

void net__conn_free(struct net_conn *c) {
  net_stream_free(&c->dir[0]);
  net_stream_free(&c->dir[1]);
  detsim__net_free(c);
}

/* The descriptors in flight in direction dir go back (nobody will read
 * them: their receiver closed). */
static void conn_drop_scm(struct net_conn *c, int dir) {
  net_scm_release_all(c->scm_head[dir]);
  c->scm_head[dir] = c->scm_tail[dir] = NULL;
  c->scm_queued[dir] = 0;
}

static void conn_detach(struct net_conn *c, int side) {
  c->end[side] = NULL;
  conn_drop_scm(c, 1 - side);
  if (c->end[1 - side] != NULL) return;
  conn_drop_scm(c, side);
  net_stream_free(&c->dir[0]);
  net_stream_free(&c->dir[1]);
  detsim__net_free(c);
}

int net_socketpair(int domain, int type, int protocol, int sv[2]) {
  int flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);
  int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (domain == AF_INET || domain == AF_INET6) {
    errno = EOPNOTSUPP; /* as Linux: socketpair is for AF_UNIX */
    return -1;
  }
  int e = check_kind(domain, base, protocol);
  if (e) {
    errno = e;
    return -1;
  }
  struct net_sock *a = sock_alloc(domain, base, 0);
  struct net_sock *b = sock_alloc(domain, base, 0);
  int fa = sock_install(a, flags);
  if (fa < 0) {
    net__sock_free(b);
    return -1;
  }
  int fb = sock_install(b, flags);
  if (fb < 0) {
    int err = errno;
    net_fd_close(fa);
    errno = err;
    return -1;
  }
  a->local.family = a->peer.family = b->local.family = b->peer.family = AF_UNIX;
  if (base == SOCK_DGRAM) {
    net_unix_dgram_pair(a, b);
    sv[0] = fa;
    sv[1] = fb;
    return 0;
  }
  struct net_conn *c = conn_new(true, 0, 0); /* bounded by the send buffers: net__conn_caps */
  a->conn = b->conn = c;
  a->side = 0;
  b->side = 1;
  c->end[0] = a;
  c->end[1] = b;
  net__conn_caps(c);
  a->state = b->state = SS_CONNECTED;
  sv[0] = fa;
  sv[1] = fb;
  return 0;
}

/* ---- the port table ---- */

/* Could a and b both receive a connection for the same address? */
bool net__addr_overlap(const struct net_sock *a, const struct net_sock *b) {
  const struct net_addr *x = &a->local, *y = &b->local;
  if (memcmp(x->ip, y->ip, 16) == 0) return true;
  bool x_any6 = a->domain == AF_INET6 && net_addr_is_any(x) && !net_addr_is_v4(x);
  bool y_any6 = b->domain == AF_INET6 && net_addr_is_any(y) && !net_addr_is_v4(y);
  bool x_v4 = net_addr_is_v4(x), y_v4 = net_addr_is_v4(y);
  if (x_any6 && (!y_v4 || !a->v6only)) return true;
  if (y_any6 && (!x_v4 || !b->v6only)) return true;
  if (x_v4 && y_v4 && (net_addr_is_any(x) || net_addr_is_any(y))) return true;
  return false;
}

bool net__port_conflict(const struct net_sock *s, uint16_t port) {
  for (const struct net_sock *b = net__bound_list; b; b = b->bound_next) {
    if (b == s || b->node != s->node || b->domain == AF_UNIX || b->type != s->type || b->local.port != port) continue;
    struct net_sock probe = *s;
    probe.local.port = port;
    if (!net__addr_overlap(&probe, b)) continue;
    if (s->reuseport && b->reuseport) continue;
    if (s->reuseaddr && b->reuseaddr && b->state != SS_LISTEN) continue;
    return true;
  }
  return false;
}

static bool port_used(int type, uint16_t port) {
  for (const struct net_sock *b = net__bound_list; b; b = b->bound_next)
    if (b->node == detsim__host_index && b->domain != AF_UNIX && b->type == type && b->local.port == port) return true;
  return false;
}

/* A free ephemeral port: from a seeded start, in order (deterministic). */
int net__ephemeral_port(int type, uint16_t *out) {
  const uint32_t lo = DETSIM_NET_EPHEMERAL_PORT_LOW, n = DETSIM_NET_EPHEMERAL_PORT_HIGH - lo + 1;
  struct port_draws *d = port_draws();
  if (!d->ready) {
    d->ephemeral_next = (uint32_t)(net_draw() % n);
    d->ready = 1;
  }
  for (uint32_t i = 0; i < n; i++) {
    uint16_t p = (uint16_t)(lo + (d->ephemeral_next + i) % n);
    if (!port_used(type, p)) {
      d->ephemeral_next = (d->ephemeral_next + i + 1) % n;
      *out = p;
      return 0;
    }
  }
  return EADDRNOTAVAIL;
}

void net__bind_add(struct net_sock *s) {
  s->bound = true;
  s->bound_next = net__bound_list;
  net__bound_list = s;
}

void net__bind_remove(struct net_sock *s) {
  for (struct net_sock **p = &net__bound_list; *p; p = &(*p)->bound_next) {
    if (*p == s) {
      *p = s->bound_next;
      break;
    }
  }
  s->bound = false;
}

static bool same_path(const struct net_addr *a, const struct net_addr *b) {
  return a->path_len == b->path_len && memcmp(a->path, b->path, a->path_len) == 0;
}

struct net_sock *net__unix_bound(const struct net_addr *a) {
  for (struct net_sock *b = net__bound_list; b; b = b->bound_next)
    if (b->node == detsim__host_index && b->domain == AF_UNIX && !b->path_unlinked && same_path(&b->local, a)) return b;
  return NULL;
}

/* ---- unix socket files ----
 * A socket bound to a filesystem path (not an abstract name) leaves its
 * file when it closes, until unlink: the simulation keeps the names. */

static struct net_addr stale_paths[DETSIM_NET_UNIX_STALE_PATHS];
static unsigned stale_count;

static bool is_file_path(const struct net_addr *a) { return a->path_len > 0 && a->path[0] != '\0'; }

static int stale_index(const struct net_addr *a) {
  for (unsigned i = 0; i < stale_count; i++)
    if (same_path(&stale_paths[i], a)) return (int)i;
  return -1;
}

bool net__unix_path_stale(const struct net_addr *a) { return is_file_path(a) && stale_index(a) >= 0; }

/* Socket files on the real filesystem: a bind makes one, as Linux does (a
 * real socket bound there and closed at once, so the kernel decides
 * EADDRINUSE, ENOENT, EACCES, ENOTDIR and the umask's mode, and stat,
 * chmod and unlink see a socket file).  Only where one filesystem is the
 * hosts' (a one-program run, forked processes included): a scenario's
 * hosts are machines of their own, whose paths must not meet in the real
 * /tmp, and keep names only. */
static bool socket_files_real(void) { return !detsim__in_world || detsim__ws == NULL || detsim__ws->n_hosts <= 1; }

static void path_of(const struct net_addr *a, char *out) {
  memcpy(out, a->path, a->path_len);
  out[a->path_len] = '\0';
}

/* 0, or the errno the kernel's bind of a at that path gives. */
static int real_socket_file(const struct net_addr *a) {
  if (!is_file_path(a) || !socket_files_real()) return 0;
  int fd = REAL(socket)(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0; /* no descriptor to ask with: the names alone decide */
  struct sockaddr_un un;
  memset(&un, 0, sizeof un);
  un.sun_family = AF_UNIX;
  memcpy(un.sun_path, a->path, a->path_len);
  int r = REAL(bind)(fd, (struct sockaddr *)&un, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + a->path_len));
  int e = r < 0 ? errno : 0;
  REAL(close)(fd);
  return e;
}

int net__unix_unbound_errno(const struct net_addr *a) {
  if (net__unix_path_stale(a)) return ECONNREFUSED;
  if (!is_file_path(a) || !socket_files_real()) return ENOENT;
  char path[sizeof a->path + 1];
  path_of(a, path);
  struct stat st;
  /* A socket file no one listens on, or a file of another kind: refused,
   * as Linux's unix_find_bsd finds the inode and no socket behind it. */
  if (stat(path, &st) == 0) return ECONNREFUSED;
  return errno;
}

static void stale_remove(int i) {
  memmove(&stale_paths[i], &stale_paths[i + 1], (stale_count - (unsigned)i - 1) * sizeof stale_paths[0]);
  stale_count--;
}

static void stale_add(const struct net_addr *a) {
  if (stale_index(a) >= 0) return;
  if (stale_count == DETSIM_NET_UNIX_STALE_PATHS) stale_remove(0); /* the oldest is forgotten */
  stale_paths[stale_count++] = *a;
}

bool net_unix_unlink(const char *path) {
  struct net_addr a;
  memset(&a, 0, sizeof a);
  a.family = AF_UNIX;
  size_t n = strlen(path);
  if (n == 0 || n > sizeof a.path) return false;
  memcpy(a.path, path, n);
  a.path_len = (unsigned)n;
  bool found = false;
  int i = stale_index(&a);
  if (i >= 0) {
    stale_remove(i);
    found = true;
  }
  struct net_sock *live = net__unix_bound(&a);
  if (live != NULL) {
    live->path_unlinked = true;
    found = true;
  }
  return found;
}

/* Whether listener b takes a connection to `to`. */
static bool listens_for(const struct net_sock *b, int node, const struct net_addr *to) {
  if (b->state != SS_LISTEN || (int)b->node != node || b->domain == AF_UNIX || b->local.port != to->port) return false;
  if (memcmp(b->local.ip, to->ip, 16) == 0) return true;
  if (b->domain == AF_INET6 && net_addr_is_any(&b->local) && !net_addr_is_v4(&b->local))
    return !(net_addr_is_v4(to) && b->v6only);
  return net_addr_is_v4(&b->local) && net_addr_is_any(&b->local) && net_addr_is_v4(to);
}

uint64_t net__reuseport_hash(const struct net_addr *from) {
  static uint64_t secret;
  static bool drawn;
  if (!drawn) {
    secret = net_draw();
    drawn = true;
  }
  uint64_t h = secret ^ 0xcbf29ce484222325ull;
  for (unsigned i = 0; i < 16; i++) h = (h ^ from->ip[i]) * 0x100000001b3ull;
  h = (h ^ from->port) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

struct net_sock *net_port_listener(int type, const struct net_addr *to, const struct net_addr *from) {
  (void)type;
  int node = net_addr_node(to);
  struct net_sock *best = NULL;
  for (struct net_sock *b = net__bound_list; b; b = b->bound_next) {
    /* An exact address beats a wildcard, as in the kernel's lookup. */
    if (listens_for(b, node, to) && (best == NULL || memcmp(b->local.ip, to->ip, 16) == 0)) best = b;
  }
  if (best == NULL || !best->reuseport) return best;
  /* SO_REUSEPORT: one listener of the group, by the dialer's address. */
  unsigned n = 0;
  for (struct net_sock *b = net__bound_list; b; b = b->bound_next)
    n += b->reuseport && listens_for(b, node, to) && memcmp(b->local.ip, best->local.ip, 16) == 0;
  if (n < 2) return best;
  unsigned k = (unsigned)(net__reuseport_hash(from) % n);
  for (struct net_sock *b = net__bound_list; b; b = b->bound_next)
    if (b->reuseport && listens_for(b, node, to) && memcmp(b->local.ip, best->local.ip, 16) == 0 && k-- == 0) return b;
  return best;
}

/* The source address a connection from this node to `to` gets. */
void net__source_for(const struct net_sock *s, const struct net_addr *to, struct net_addr *out) {
  *out = s->local;
  out->family = s->domain;
  if (!s->bound || net_addr_is_any(&s->local)) {
    memset(out->ip, 0, 16);
    if (net_addr_is_v4(to)) {
      out->ip[10] = out->ip[11] = 0xff;
      out->ip[12] = 127;
      out->ip[15] = 1;
      if (net_addr_is_node_address(to)) {
        /* To a node's address, the route's source is this node's own. */
        out->ip[14] = DETSIM_WORLD_NET_B2;
        out->ip[15] = (uint8_t)(detsim__host_index + 1);
      }
    } else {
      out->ip[15] = 1;
    }
  }
}

/* inet6_bind's rules, in its order: a group is no TCP address; a
 * v4-mapped address is IPv4's (EINVAL on a v6-only socket); a link-local
 * one needs its interface (EINVAL without, ENODEV for one that does not
 * exist); the rest must be the host's (::1; a group is anyone's).  A
 * socket bound to an IPv6 address of its own becomes v6-only. */
static int v6_bind_check(const struct net_sock *s, const struct net_addr *a, bool *v6only_after) {
  bool v4 = net_addr_is_v4(a), group = net_addr_is_multicast(a);
  if (group && s->type == SOCK_STREAM) return EINVAL;
  if (v4) {
    if (s->v6only) return EINVAL;
    if (!net_addr_is_local(a) && !group && !net_iface_of_broadcast(a)) return EADDRNOTAVAIL;
    return 0;
  }
  if (net_addr_is_any(a)) return 0;
  if (net_addr_needs_scope(a)) {
    if (a->scope_id == 0) return EINVAL;
    if (net_iface_name(a->scope_id) == NULL) return ENODEV;
  }
  if (!group && !net_addr_is_local(a)) return EADDRNOTAVAIL;
  *v6only_after = true;
  return 0;
}

int net_bind(struct net_file *f, const struct sockaddr *sa, socklen_t len) {
  struct net_sock *s = net_sock_of(f);
  struct net_addr a;
  int e = net_addr_from(s->domain, sa, len, &a);
  if (e) return e;
  if (s->bound || s->state != SS_NEW) return EINVAL;
  if (is_unix(s)) {
    if (a.path_len == 0) {
      /* autobind: an abstract name of five hex digits, as Linux makes */
      a.path[0] = '\0';
      static const char hex[] = "0123456789abcdef";
      uint32_t k = port_draws()->unix_autobind_next++;
      for (int i = 5; i >= 1; i--, k >>= 4) a.path[i] = hex[k & 15];
      a.path_len = 6;
    }
    if (net__unix_bound(&a) != NULL || net__unix_path_stale(&a)) return EADDRINUSE;
    e = real_socket_file(&a);
    if (e) return e;
    s->local = a;
    net__bind_add(s);
    return 0;
  }
  /* An address of this node, or a group or (IPv4) a broadcast address,
   * which Linux's inet_bind and inet6_bind take too (datagrams to it
   * arrive). */
  bool v4 = net_addr_is_v4(&a);
  bool many = net_addr_is_multicast(&a) || (v4 && net_iface_of_broadcast(&a));
  bool v6only_after = s->v6only;
  if (s->domain == AF_INET6) {
    e = v6_bind_check(s, &a, &v6only_after);
    if (e) return e;
  } else if (!net_addr_is_local(&a) && !many) {
    return EADDRNOTAVAIL;
  }
  s->local = a;
  if (a.port == 0) {
    uint16_t p;
    if (net__ephemeral_port(s->type, &p) != 0) return EADDRINUSE;
    s->local.port = p;
  } else if (net__port_conflict(s, a.port)) {
    return EADDRINUSE;
  }
  s->v6only = v6only_after;
  net__bind_add(s);
  return 0;
}

int net_listen(struct net_file *f, int backlog) {
  struct net_sock *s = net_sock_of(f);
  if (s->type == SOCK_DGRAM) return EOPNOTSUPP;
  if (s->state != SS_NEW && s->state != SS_LISTEN) return EINVAL;
  if (!s->bound) {
    if (is_unix(s)) return EINVAL;
    /* autobind, as Linux does on listen */
    memset(&s->local, 0, sizeof s->local);
    s->local.family = s->domain;
    if (s->domain == AF_INET) s->local.ip[10] = s->local.ip[11] = 0xff;
    uint16_t p;
    if (net__ephemeral_port(s->type, &p) != 0) return EADDRINUSE;
    s->local.port = p;
    net__bind_add(s);
  } else if (!is_unix(s) && s->state == SS_NEW) {
    /* Two listeners on one port need SO_REUSEPORT on both. */
    for (const struct net_sock *b = net__bound_list; b; b = b->bound_next)
      if (b != s && b->node == s->node && b->state == SS_LISTEN && b->domain != AF_UNIX && b->local.port == s->local.port &&
          net__addr_overlap(s, b) && !(s->reuseport && b->reuseport))
        return EADDRINUSE;
  }
  if (backlog < 0 || backlog > DETSIM_NET_BACKLOG_MAX) backlog = DETSIM_NET_BACKLOG_MAX;
  s->backlog = backlog;
  s->state = SS_LISTEN;
  f->changes++;
  if (detsim__in_world) detsim__world_listened();
  return 0;
}

/* ---- connect and accept ---- */

/* The handshake of a connection whose SYN leaves node `from` for `to` at
 * `at`: SYN (the connection's dir[0] latency), SYN-ACK (dir[1]), each
 * waiting out a partition like any segment. */
uint64_t net__handshake_done(unsigned from, unsigned to, const struct net_conn *c, uint64_t at) {
  uint64_t syn_at = detsim__world_link_open(from, to, at) + c->dir[0].latency_ns;
  return detsim__world_link_open(to, from, syn_at) + c->dir[1].latency_ns;
}

void net__enqueue_child(struct net_sock *l, struct net_sock *s, struct net_conn *c, uint64_t now) {
  struct net_sock *child = sock_alloc(l->domain, l->type, l->protocol);
  child->node = l->node;
  child->state = SS_CONNECTED;
  child->local = l->local;
  if (!is_unix(s)) {
    child->local.ip[0] = 0; /* the address actually connected to */
    memcpy(child->local.ip, s->peer.ip, 16);
    child->local.family = l->domain;
  }
  child->peer = s->local;
  child->reuseaddr = l->reuseaddr;
  if (!is_unix(s)) {
    /* A TCP child is a clone of its listener; a unix one is a new socket
     * with the defaults (unix_stream_connect's unix_create1). */
    child->rcvbuf = l->rcvbuf;
    child->sndbuf = l->sndbuf;
    child->rcvbuf_set = l->rcvbuf_set;
    child->sndbuf_set = l->sndbuf_set;
  }
  child->linger_on = l->linger_on;
  child->oobinline = l->oobinline;
  child->linger_s = l->linger_s;
  c->dir[0].src = c->dir[1].dst = s->node;
  c->dir[0].dst = c->dir[1].src = l->node;
  s->conn = child->conn = c;
  s->side = 0;
  child->side = 1;
  c->end[0] = s;
  c->end[1] = child;
  net__conn_caps(c);
  /* SYN (cs), SYN-ACK (sc): the client is established and the child is
   * in the backlog (the final ACK's trip is not modeled: the child is
   * acceptable when the client can first send, before its data arrives,
   * and connections made one after another are accepted in order). */
  /* SYN and SYN-ACK wait out a partition like any segment. */
  s->established_at = net__handshake_done(s->node, l->node, c, now);
  child->ready_at = s->established_at;
  net_wake_node(s->node, s->established_at);
  net_wake_node(l->node, child->ready_at); /* a blocked accept there */
  s->state = SS_CONNECTING;
  if (l->qlen == l->qcap) {
    l->qcap = l->qcap ? l->qcap * 2 : 8;
    l->queue = detsim__net_realloc(l->queue, l->qcap * sizeof *l->queue);
    CHECK(l->queue != NULL);
  }
  l->queue[l->qlen++] = child;
}


/* A connect that failed in the call: the socket is as new again (Linux's
 * tcp_disconnect), an autobound port released. */
static void disconnect(struct net_sock *s) {
  s->state = SS_NEW;
  s->so_error = 0;
  if (s->autobound) {
    net__bind_remove(s);
    s->autobound = false;
  }
}

static int connect_wait(struct net_sock *s) {
  uint64_t timeo = s->sndtimeo_ns;
  int w = sock_wait(s, DETSIM_EV_net_connect, EPOLLOUT, timeo);
  if (w != 0) return w == EINTR ? EINTR : EINPROGRESS;
  net__syn_settle(s, detsim__now_ns());
  struct view v;
  view(s, detsim__now_ns(), &v);
  if (v.err) {
    consume_error(s, &v);
    if (v.refused) disconnect(s);
    return v.err;
  }
  s->state = SS_CONNECTED;
  return 0;
}

struct backlog_wait { const struct net_addr *to; };

/* Room in the backlog of the listener at the path, or no listener there
 * any more: the connect looks again (by the path: the one it waited on
 * may be gone). */
static bool backlog_room(void *arg) {
  const struct net_sock *b = net__unix_bound(((struct backlog_wait *)arg)->to);
  return b == NULL || b->state != SS_LISTEN || b->qlen <= (unsigned)b->backlog;
}

/* unix_stream_connect to a listener whose queue is full (unix_recvq_full:
 * it holds more than its backlog): EAGAIN at once for a non-blocking
 * socket, else wait for room, SO_SNDTIMEO bounding the wait (then EAGAIN);
 * 0 to look again. */
static int unix_backlog_wait(struct net_file *f, struct net_sock *s, const struct net_addr *to) {
  if (f->nonblock || detsim__self() == NULL) return EAGAIN;
  uint64_t deadline = s->sndtimeo_ns ? detsim__deadline_after_ns(s->sndtimeo_ns) : DETSIM_NO_DEADLINE;
  struct backlog_wait w = { to };
  int r = net_wait(DETSIM_EV_net_connect, f, backlog_room, NULL, &w, deadline);
  return r == 0 ? 0 : r == EINTR ? EINTR : EAGAIN;
}

int net_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len) {
  struct net_sock *s = net_sock_of(f);
  if (s->type == SOCK_DGRAM) return is_unix(s) ? net_unix_dgram_connect(f, sa, len) : net_udp_connect(f, sa, len);
  uint64_t now = detsim__now_ns();
  net__syn_settle(s, now);
  struct view v;
  view(s, now, &v);
  if (s->state == SS_LISTEN) return EINVAL;
  if (s->state == SS_CONNECTING) {
    if (v.refused) {
      if (!s->refused_consumed) {
        s->refused_consumed = true;
        return s->refuse_err;
      }
      s->state = SS_NEW; /* a failed connect may be retried */
    } else if (v.connecting) {
      if (f->nonblock || detsim__self() == NULL) return EALREADY;
      return connect_wait(s);
    } else {
      /* The first connect after a non-blocking one completed says 0. */
      s->state = SS_CONNECTED;
      return 0;
    }
  }
  if (s->state == SS_CONNECTED) return EISCONN;
  struct net_addr to;
  int e = net_addr_from(s->domain, sa, len, &to);
  if (e) return e;
  if (s->domain == AF_INET6) {
    /* tcp_v6_connect's rules, in its order */
    if (net_addr_is_any(&to) && !net_addr_is_v4(&to) && s->bound && net_addr_is_v4(&s->local)) {
      memset(to.ip, 0, 16); /* a wildcard is the loopback of the socket's family */
      to.ip[10] = to.ip[11] = 0xff;
    }
    if (net_addr_is_multicast(&to) && !net_addr_is_v4(&to)) return ENETUNREACH;
    if (net_addr_needs_scope(&to) && to.scope_id == 0) return EINVAL;
    if (net_addr_is_v4(&to) && s->v6only) return ENETUNREACH;
  }
  uint64_t cap = detsim__opt.net_buffer_bytes;
  struct net_sock *l;
  if (is_unix(s)) {
    for (;;) {
      struct net_sock *b = net__unix_bound(&to);
      if (b == NULL) return net__unix_unbound_errno(&to);
      if (b->state != SS_LISTEN) return ECONNREFUSED;
      if (b->qlen <= (unsigned)b->backlog) {
        l = b;
        break;
      }
      int w = unix_backlog_wait(f, s, &to);
      if (w) return w;
    }
    now = detsim__now_ns();
  } else {
    if (net_addr_node(&to) < 0) {
      char text[160], what[200];
      net_addr_text(&to, text, sizeof text);
      snprintf(what, sizeof what, "connect to %s", text);
      net_unsupported(what, detsim__world_hosts() ? "no node of the simulated world has that address (nodes are 127.0.1.1 and up, by name through getaddrinfo)"
                                             : "no host in the simulated world has that address; only this node's loopback addresses exist");
      return ENETUNREACH;
    }
    if (net_addr_is_any(&to)) {
      /* Linux connects a wildcard destination to the loopback address. */
      bool v4 = net_addr_is_v4(&to);
      memset(to.ip, 0, 16);
      if (v4) {
        to.ip[10] = to.ip[11] = 0xff;
        to.ip[12] = 127;
      }
      to.ip[15] = 1;
    }
    if (!s->bound || s->local.port == 0) {
      struct net_addr src;
      net__source_for(s, &to, &src);
      if (!s->bound) {
        uint16_t p;
        if (net__ephemeral_port(s->type, &p) != 0) return EADDRNOTAVAIL;
        src.port = p;
        s->local = src;
        net__bind_add(s);
        s->autobound = true;
      }
    } else if (net_addr_is_any(&s->local)) {
      struct net_addr src;
      net__source_for(s, &to, &src);
      s->local = src;
    }
    l = to.port != 0 ? net_port_listener(s->type, &to, &s->local) : NULL;
  }
  s->peer = to;
  s->rst_consumed = s->refused_consumed = false;
  if (l == NULL) {
    /* SYN, then RST back: the refusal arrives after a round trip. */
    s->state = SS_CONNECTING;
    s->conn = NULL;
    int target = net_addr_node(&to);
    unsigned t = target < 0 ? s->node : (unsigned)target;
    uint64_t syn_at = detsim__world_link_open(s->node, t, now) + net_latency_draw();
    s->refused_at = detsim__world_link_open(t, s->node, syn_at) + net_latency_draw();
    s->refuse_err = ECONNREFUSED;
    if (detsim__world_node_silent(t)) {
      /* A dead host answers no SYN: Linux gives up after its retries. */
      s->refused_at = now + NET_SYN_RETRIES_NS;
      s->refuse_err = ETIMEDOUT;
    }
    net_wake_node(s->node, s->refused_at);
    f->changes++;
  } else {
    if (l->qlen >= DETSIM_NET_BACKLOG_MAX) {
      net_limit("net_backlog_max", DETSIM_NET_BACKLOG_MAX, "a listener's backlog is full; the connection is refused");
      return ECONNREFUSED;
    }
    net__syn_settle(l, now);
    struct net_conn *c = conn_new(is_unix(s), cap, cap);
    if (!is_unix(s) && l->qlen > (unsigned)l->backlog) {
      /* A full backlog drops the SYN (tcp_conn_request's
       * sk_acceptq_is_full): the client sends it again (net_backlog.c). */
      int e = net__syn_drop(l, s, c, now);
      if (e) return e;
      f->changes++;
      if (f->nonblock || detsim__self() == NULL) return EINPROGRESS;
      return connect_wait(s);
    }
    net__enqueue_child(l, s, c, now);
    f->changes++;
    if (s->established_at <= now && is_unix(s)) {
      s->state = SS_CONNECTED; /* unix connects at once */
      return 0;
    }
  }
  /* A non-blocking TCP connect says EINPROGRESS even when the handshake
   * takes no time, as Linux's does on loopback. */
  if (f->nonblock || detsim__self() == NULL) return EINPROGRESS;
  return connect_wait(s);
}

struct accept_wait { struct net_sock *s; };
static bool accept_ready(void *arg) {
  struct net_sock *s = ((struct accept_wait *)arg)->s;
  return s->state != SS_LISTEN || acceptable(s, detsim__now_ns());
}
static uint64_t accept_next(void *arg) {
  return net_sock_next_change(((struct accept_wait *)arg)->s, detsim__now_ns());
}

int net_accept(struct net_file *f, struct sockaddr *sa, socklen_t *len, int flags) {
  struct net_sock *s = net_sock_of(f);
  if (s->type == SOCK_DGRAM) {
    errno = EOPNOTSUPP;
    return -1;
  }
  if (s->state != SS_LISTEN) {
    errno = EINVAL;
    return -1;
  }
  if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) {
    errno = EINVAL;
    return -1;
  }
  net__syn_settle(s, detsim__now_ns());
  if (!acceptable(s, detsim__now_ns())) {
    if (f->nonblock || detsim__self() == NULL) {
      errno = EAGAIN;
      return -1;
    }
    struct accept_wait w = { s };
    uint64_t deadline = s->rcvtimeo_ns ? detsim__deadline_after_ns(s->rcvtimeo_ns) : DETSIM_NO_DEADLINE;
    int r = net_wait(DETSIM_EV_net_accept, f, accept_ready, accept_next, &w, deadline);
    if (r != 0 || s->state != SS_LISTEN) {
      errno = s->state != SS_LISTEN ? EINVAL : r == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
  uint64_t now = detsim__now_ns();
  net__syn_settle(s, now);
  unsigned pick = s->qlen;
  for (unsigned i = 0; i < s->qlen; i++)
    if (s->queue[i]->ready_at <= now && (pick == s->qlen || s->queue[i]->ready_at < s->queue[pick]->ready_at))
      pick = i;
  CHECK_LT(pick, s->qlen);
  struct net_sock *child = s->queue[pick];
  struct net_file *cf = net_file_new(NET_SOCK, child);
  if (cf == NULL) return -1;
  cf->nonblock = (flags & SOCK_NONBLOCK) != 0;
  int fd = net_fd_alloc(cf, (flags & SOCK_CLOEXEC) != 0, 0);
  if (fd < 0) {
    net_file_discard(cf); /* the child stays in the backlog */
    return -1;
  }
  child->file = cf;
  memmove(&s->queue[pick], &s->queue[pick + 1], (s->qlen - pick - 1) * sizeof *s->queue);
  s->qlen--;
  s->accepted++;
  if (is_unix(s)) net_wake_node(s->node, now); /* a connect waiting for room, maybe in another process */
  if (sa != NULL || len != NULL) {
    if (len == NULL) {
      errno = EFAULT;
      return fd;
    }
    net_addr_to(child->domain, &child->peer, sa, len);
  }
  return fd;
}

/* ---- data ---- */

static bool is_orphan_peer(const struct net_sock *s) {
  return s->conn != NULL && s->conn->end[1 - s->side] == NULL;
}

/* A unix stream's message with descriptors travels with the first piece
 * of its bytes, [end - n, end) (Linux attaches them to the first skb). */
static void attach_scm(struct net_sock *s, struct net_scm **scm, uint64_t n) {
  if (*scm == NULL) return;
  struct net_conn *c = s->conn;
  struct net_scm *m = *scm;
  m->end = c->dir[s->side].tail;
  m->start = m->end - n;
  m->next = NULL;
  if (c->scm_tail[s->side]) c->scm_tail[s->side]->next = m;
  else c->scm_head[s->side] = m;
  c->scm_tail[s->side] = m;
  c->scm_queued[s->side]++;
  *scm = NULL;
}

static ssize_t stream_send(struct net_file *f, const struct msghdr *msg, int flags, struct net_scm **scm);

ssize_t net_sendmsg(struct net_file *f, const struct msghdr *msg, int flags) {
  struct net_sock *s = net_sock_of(f);
  /* What no socket kind models. */
  if (flags & MSG_OOB) {
    if (is_unix(s) && s->type == SOCK_STREAM) {
      net_unsupported("MSG_OOB on a unix stream socket", "out-of-band data is simulated on TCP only");
      errno = EOPNOTSUPP;
      return -1;
    }
    if (s->type != SOCK_STREAM) {
      errno = EOPNOTSUPP; /* udp_sendmsg's and unix_dgram_sendmsg's answer */
      return -1;
    }
  }
  struct net_scm *scm = NULL;
  if (msg->msg_controllen > 0 && !is_unix(s)) {
    net_unsupported("ancillary data on an IP socket (sendmsg msg_control)", "IP_PKTINFO and other control messages");
    errno = EOPNOTSUPP;
    return -1;
  }
  if (msg->msg_controllen > 0) {
    int e = net_scm_from_msg(msg, &scm);
    if (e) {
      errno = e;
      return -1;
    }
  }
  if (s->type == SOCK_DGRAM) return is_unix(s) ? net_unix_dgram_sendmsg(f, msg, flags, scm) : net_udp_sendmsg(f, msg, flags);
  if (scm != NULL && s->conn != NULL && s->conn->scm_queued[s->side] >= DETSIM_NET_SCM_QUEUED_MAX) {
    net_limit("net_scm_queued_max", DETSIM_NET_SCM_QUEUED_MAX,
              "too many messages carrying descriptors wait in one direction of a connection (ETOOMANYREFS)");
    net_scm_release(scm);
    errno = ETOOMANYREFS;
    return -1;
  }
  ssize_t r = stream_send(f, msg, flags, &scm);
  if (scm != NULL) {
    /* Not one byte left: the descriptors stay with the sender. */
    int e = errno;
    net_scm_release(scm);
    errno = e;
  }
  return r;
}

static ssize_t stream_send(struct net_file *f, const struct msghdr *msg, int flags, struct net_scm **scm) {
  struct net_sock *s = net_sock_of(f);
  bool nosignal = (flags & MSG_NOSIGNAL) != 0;
  bool nonblock = f->nonblock || (flags & MSG_DONTWAIT) || detsim__self() == NULL;
  uint64_t total = net_iov_total(msg->msg_iov, (int)msg->msg_iovlen);
  uint64_t sent = 0;
  uint64_t deadline = s->sndtimeo_ns ? detsim__deadline_after_ns(s->sndtimeo_ns) : DETSIM_NO_DEADLINE;
  for (;;) {
    uint64_t now = detsim__now_ns();
    net__syn_settle(s, now);
    struct view v;
    view(s, now, &v);
    int err = 0;
    if (s->state == SS_NEW || s->state == SS_LISTEN) {
      err = is_unix(s) ? ENOTCONN : EPIPE;
      if (!is_unix(s) && v.err) {
        consume_error(s, &v);
        err = v.err;
      }
    } else if (v.connecting) {
      if (nonblock) {
        errno = EAGAIN;
        return -1;
      }
      if (sock_wait(s, DETSIM_EV_net_send, EPOLLOUT, 0) == EINTR) {
        if (sent > 0) return (ssize_t)sent;
        errno = EINTR;
        return -1;
      }
      continue;
    } else if (v.err || v.snd_shut) {
      if (sent > 0) return (ssize_t)sent;
      err = EPIPE;
      if (!is_unix(s) && v.err) {
        consume_error(s, &v);
        err = v.err;
      }
    }
    if (err) {
      if (err == EPIPE && !nosignal) net_sigpipe();
      errno = err;
      return -1;
    }
    if (s->state == SS_CONNECTING) s->state = SS_CONNECTED;
    if (total == sent) return (ssize_t)sent;
    struct net_stream *out = &s->conn->dir[s->side];
    if (is_orphan_peer(s)) {
      /* The peer's socket is gone: its kernel answers the bytes with RST
       * and acknowledges none, so they hold the send buffer until the RST
       * arrives: past the buffer a writer blocks (EAGAIN), then fails, as
       * Linux's does (a client streaming a large body to a server that
       * answered and closed sees EPIPE, not a completed write). */
      struct net_stream *in = &s->conn->dir[1 - s->side];
      if (in->rst_at == DETSIM_NO_DEADLINE) {
        net_stream_rst_at(in, net_stream_send_time(out, now) + in->latency_ns);
        f->changes++;
      }
    }
    uint64_t space = net_stream_space(out);
    if (space > 0 && out->whole_writes) {
      /* Linux's unix stream send queues skbs of up to half the send buffer
       * (net_unix_stream_piece_max), each whole while the sender's charge
       * is under its SO_SNDBUF (it may run past it) and charged its
       * truesize until read: a reader never sees part of one. */
      uint64_t piece = net_unix_stream_piece_max(out->cap);
      uint64_t n = total - sent < piece ? total - sent : piece;
      net_stream_write(out, msg->msg_iov, (int)msg->msg_iovlen, sent, n, now);
      net_stream_charge(out, net_truesize_unix_stream(n));
      attach_scm(s, scm, n);
      sent += n;
      if (sent == total) return (ssize_t)sent;
      continue;
    }
    if (space > 0) {
      uint64_t n = total - sent < space ? total - sent : space;
      /* A non-blocking write may take less than there is room for (level
       * 2's `short` fault): Linux's does when memory is tight. */
      if (nonblock) n = detsim__world_short_io(out->src, out->dst, n, true);
      net_stream_write(out, msg->msg_iov, (int)msg->msg_iovlen, sent, n, now);
      if (n > 0) attach_scm(s, scm, n);
      /* MSG_OOB: each push marks the last byte written (tcp_mark_urg). */
      if (n > 0 && (flags & MSG_OOB)) {
        struct net_sock *p = peer_of(s);
        net_oob_mark(out, p != NULL ? p->file : NULL);
      }
      sent += n;
      if (sent == total) return (ssize_t)sent;
    }
    if (nonblock) {
      if (sent > 0) return (ssize_t)sent;
      errno = EAGAIN;
      return -1;
    }
    struct sock_wait w = { s, EPOLLOUT | EPOLLERR | EPOLLHUP };
    int r = net_wait(DETSIM_EV_net_send, f, sock_wait_ready, sock_wait_next, &w, deadline);
    if (r != 0) {
      if (sent > 0) return (ssize_t)sent;
      errno = r == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

/* recv(MSG_OOB): tcp_recv_urg.  It never blocks. */
static ssize_t recv_urgent(struct net_sock *s, struct msghdr *msg, int flags) {
  msg->msg_flags = 0;
  msg->msg_controllen = 0;
  if (s->state == SS_LISTEN && !is_unix(s)) {
    errno = ENOTCONN;
    return -1;
  }
  uint64_t now = detsim__now_ns();
  oob_settle(s, now);
  struct net_stream *in = s->conn != NULL && !s->conn->unix_rules ? &s->conn->dir[1 - s->side] : NULL;
  if (in == NULL || s->oobinline || in->urg_state != NET_URG_VALID) {
    errno = EINVAL; /* "Yes this is right !" */
    return -1;
  }
  if (!(flags & MSG_PEEK)) in->urg_state = NET_URG_READ;
  msg->msg_flags |= MSG_OOB;
  uint64_t total = net_iov_total(msg->msg_iov, (int)msg->msg_iovlen);
  if (total == 0) {
    msg->msg_flags |= MSG_TRUNC;
    return 0;
  }
  if (!(flags & MSG_TRUNC)) {
    for (size_t i = 0; i < msg->msg_iovlen; i++) {
      if (msg->msg_iov[i].iov_len == 0) continue;
      *(uint8_t *)msg->msg_iov[i].iov_base = in->urg_byte;
      break;
    }
  }
  return 1;
}

ssize_t net_recvmsg(struct net_file *f, struct msghdr *msg, int flags) {
  struct net_sock *s = net_sock_of(f);
  if (s->type == SOCK_DGRAM) return net_udp_recvmsg(f, msg, flags);
  if (flags & MSG_OOB) return recv_urgent(s, msg, flags);
  if (flags & MSG_ERRQUEUE) {
    errno = EAGAIN;
    return -1;
  }
  bool peek = (flags & MSG_PEEK) != 0;
  bool waitall = (flags & MSG_WAITALL) != 0 && !peek;
  bool nonblock = f->nonblock || (flags & MSG_DONTWAIT) || detsim__self() == NULL;
  uint64_t total = net_iov_total(msg->msg_iov, (int)msg->msg_iovlen);
  uint64_t got = 0;
  uint64_t deadline = s->rcvtimeo_ns ? detsim__deadline_after_ns(s->rcvtimeo_ns) : DETSIM_NO_DEADLINE;
  size_t control_cap = msg->msg_controllen;
  msg->msg_flags = 0;
  msg->msg_controllen = 0;
  msg->msg_namelen = 0; /* a stream reports no source address */
  for (;;) {
    uint64_t now = detsim__now_ns();
    if (s->state == SS_NEW || s->state == SS_LISTEN) {
      errno = s->state == SS_LISTEN && is_unix(s) ? EINVAL : ENOTCONN;
      return -1;
    }
    net__syn_settle(s, now);
    oob_settle(s, now);
    struct view v;
    view(s, now, &v);
    if (!v.connecting && !v.refused) {
      if (s->state == SS_CONNECTING) s->state = SS_CONNECTED;
      if (total == 0) return 0;
      struct net_stream *in = v.avail > 0 ? &s->conn->dir[1 - s->side] : NULL;
      uint64_t want = total - got, off = 0;
      if (in != NULL && in->urg_state != NET_URG_NONE && in->urg_seq >= in->head) {
        /* A read stops before the mark; at the mark it takes the urgent
         * byte in the stream with SO_OOBINLINE, else steps over it. */
        uint64_t to_mark = in->urg_seq - in->head;
        if (to_mark == 0 && got > 0) return (ssize_t)got;
        if (to_mark == 0 && !s->oobinline) {
          if (peek) {
            off = 1;
          } else {
            net_stream_discard(in, 1, now);
            net_oob_consumed(in);
            v.avail--;
          }
        } else if (to_mark > 0 && to_mark < want) {
          want = to_mark;
        }
      }
      if (in != NULL && v.avail > off) {
        uint64_t avail = v.avail - off;
        /* A read may return part of what has arrived (level 2's `short`
         * fault): TCP promises bytes in order, not the writes' pieces. */
        if (!waitall) want = detsim__world_short_io(in->src, in->dst, want < avail ? want : avail, false);
        /* Descriptors come with the first byte of their piece, and the
         * read ends with that piece (Linux's unix_stream_read_generic). */
        int dir = 1 - s->side;
        struct net_scm *m = s->conn->scm_head[dir];
        uint64_t from = in->head;
        if (m != NULL && m->start < from + want && m->end - from < want) want = m->end - from;
        uint64_t n = off ? net_stream_peek_from(in, off, msg->msg_iov, (int)msg->msg_iovlen, got, want, now)
                         : net_stream_read(in, msg->msg_iov, (int)msg->msg_iovlen, got, want, now, peek);
        got += n;
        if (!peek && !s->conn->unix_rules) net_oob_consumed(in);
        if (m != NULL && m->start < from + n) {
          if (!peek) {
            s->conn->scm_head[dir] = m->next;
            if (s->conn->scm_tail[dir] == m) s->conn->scm_tail[dir] = NULL;
            s->conn->scm_queued[dir]--;
          }
          net_scm_deliver(m, msg, control_cap, flags);
          return (ssize_t)got;
        }
        if (!waitall || got == total) return (ssize_t)got;
        continue;
      }
    }
    if (got > 0 && (v.err || v.rcv_shut || v.closed)) return (ssize_t)got;
    if (v.fin_in) return (ssize_t)got;
    if (v.err) {
      consume_error(s, &v);
      errno = v.err;
      return -1;
    }
    if (v.rcv_shut) return (ssize_t)got;
    if (v.closed) {
      errno = ENOTCONN;
      return -1;
    }
    if (nonblock) {
      if (got > 0) return (ssize_t)got;
      errno = EAGAIN;
      return -1;
    }
    struct sock_wait w = { s, EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP };
    int r = net_wait(DETSIM_EV_net_recv, f, sock_wait_ready, sock_wait_next, &w, deadline);
    if (r != 0) {
      if (got > 0) return (ssize_t)got;
      errno = r == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

/* A child in a backlog that is never accepted: RST to the client. */
static void abort_child(struct net_sock *child, uint64_t now) {
  struct net_conn *c = child->conn;
  struct net_stream *out = &c->dir[child->side];
  net_stream_rst_at(out, net_stream_send_time(out, now > child->ready_at ? now : child->ready_at));
  struct net_sock *client = c->end[1 - child->side];
  if (client && client->file) net_wake_file(client->file);
  conn_detach(c, child->side);
  net__sock_free(child);
}

int net_shutdown(struct net_file *f, int how) {
  struct net_sock *s = net_sock_of(f);
  if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) return EINVAL;
  if (s->type == SOCK_DGRAM) {
    if (s->state != SS_CONNECTED) return ENOTCONN;
    if (how != SHUT_WR) s->shut_rd = true;
    if (how != SHUT_RD) s->shut_wr = true;
    f->changes++;
    return 0;
  }
  uint64_t now = detsim__now_ns();
  net__syn_settle(s, now);
  struct view v;
  view(s, now, &v);
  if (s->state == SS_LISTEN) {
    if (how == SHUT_WR) return 0;
    net__syn_listener_gone(s, now);
    /* Linux disconnects a listener shut for reading: pending connections
     * are reset and a blocked accept returns EINVAL (a server's way to stop
     * its accept loop). */
    for (unsigned i = 0; i < s->qlen; i++) abort_child(s->queue[i], now);
    s->qlen = 0;
    s->state = SS_NEW;
    f->changes++;
    return 0;
  }
  if (s->state == SS_NEW || v.closed || v.connecting) {
    if (how != SHUT_WR) s->shut_rd = true;
    if (how != SHUT_RD) s->shut_wr = true;
    return ENOTCONN;
  }
  if (s->state == SS_CONNECTING) s->state = SS_CONNECTED;
  if (how != SHUT_WR) s->shut_rd = true;
  if (how != SHUT_RD && !s->shut_wr) {
    s->shut_wr = true;
    net_stream_fin(&s->conn->dir[s->side], now);
  }
  f->changes++;
  struct net_sock *p = peer_of(s);
  if (p != NULL && p->file != NULL) net_wake_file(p->file);
  return 0;
}

void net_sock_release(struct net_sock *s) {
  uint64_t now = detsim__now_ns();
  if (s->type == SOCK_DGRAM) net_udp_release(s);
  if (s->type == SOCK_DGRAM && is_unix(s)) net_unix_dgram_release(s);
  net_mcast_release(s);
  net__syn_client_gone(s, now);
  if (s->state == SS_LISTEN) net__syn_listener_gone(s, now);
  if (s->state == SS_LISTEN) {
    for (unsigned i = 0; i < s->qlen; i++) abort_child(s->queue[i], now);
    detsim__net_free(s->queue);
    s->queue = NULL;
    s->qlen = 0;
    if (is_unix(s)) net_wake_node(s->node, now); /* connects waiting for room: refused now */
  }
  struct net_conn *c = s->conn;
  if (c != NULL) {
    struct net_stream *in = &c->dir[1 - s->side], *out = &c->dir[s->side];
    struct net_sock *p = c->end[1 - s->side];
    if (p != NULL) {
      bool unread = net_stream_avail(in, now) > 0;
      if (c->unix_rules) {
        if (in->tail > in->head) net_stream_rst_at(out, now);
        else net_stream_fin(out, now);
        net_stream_uncharge_all(in); /* the unread pieces are freed: the writer's charge goes */
      } else if (unread || (s->linger_on && s->linger_s == 0)) {
        net_stream_abort(out, now);
        net_stream_rst_at(out, net_stream_send_time(out, now));
      } else {
        net_stream_fin(out, now);
        uint64_t next = net_stream_next_arrival(in, now);
        if (in->tail > in->head && next != DETSIM_NO_DEADLINE && in->rst_at == DETSIM_NO_DEADLINE &&
            in->fin_at > next) {
          /* Data still in flight reaches a closed socket: RST back. */
          net_stream_rst_at(out, next + out->latency_ns);
        }
      }
      if (p->file != NULL) net_wake_file(p->file);
    }
    conn_detach(c, s->side);
    s->conn = NULL;
  }
  if (s->bound && is_unix(s) && is_file_path(&s->local) && !s->path_unlinked && s->node == detsim__host_index)
    stale_add(&s->local);
  if (s->bound) net__bind_remove(s);
  net__sock_free(s);
}

/* ---- names ---- */

int net_getsockname(struct net_file *f, struct sockaddr *sa, socklen_t *len, bool peer) {
  struct net_sock *s = net_sock_of(f);
  if (len == NULL) return EFAULT;
  if ((int)*len < 0) return EINVAL;
  if (peer && s->type == SOCK_DGRAM) {
    if (s->state != SS_CONNECTED) return ENOTCONN;
    net_addr_to(s->domain, &s->peer, sa, len);
    return 0;
  }
  if (peer) {
    net__syn_settle(s, detsim__now_ns());
    struct view v;
    view(s, detsim__now_ns(), &v);
    if (!v.connected || v.closed) {
      /* unix keeps its peer's name after the peer closed */
      if (!(is_unix(s) && v.connected)) return ENOTCONN;
    }
    net_addr_to(s->domain, &s->peer, sa, len);
    return 0;
  }
  struct net_addr a = s->local;
  if (!s->bound && s->state != SS_CONNECTED) {
    memset(&a, 0, sizeof a);
    a.family = s->domain;
    if (s->domain == AF_INET) a.ip[10] = a.ip[11] = 0xff;
  }
  net_addr_to(s->domain, &a, sa, len);
  return 0;
}

int net__sock_take_error(struct net_sock *s) {
  if (s->type == SOCK_DGRAM) {
    int e = s->so_error;
    s->so_error = 0;
    return e;
  }
  net__syn_settle(s, detsim__now_ns());
  struct view v;
  view(s, detsim__now_ns(), &v);
  if (v.err) consume_error(s, &v);
  return v.err;
}

int net_ioctl_sock(struct net_file *f, unsigned long req, void *arg) {
  struct net_sock *s = net_sock_of(f);
  uint64_t now = detsim__now_ns();
  net__syn_settle(s, now);
  if (req == FIONREAD && s->type == SOCK_DGRAM) {
    uint64_t n = net_udp_first_len(s, now);
    if (arg == NULL) return EFAULT;
    int x = (int)n;
    memcpy(arg, &x, sizeof x);
    return 0;
  }
  if (req == FIONREAD || req == SIOCATMARK) oob_settle(s, now);
  if (req == SIOCATMARK) {
    if (s->state == SS_LISTEN) return EINVAL;
    int at = 0;
    if (s->conn != NULL && !s->conn->unix_rules) {
      const struct net_stream *in = &s->conn->dir[1 - s->side];
      at = in->urg_state != NET_URG_NONE && in->urg_seq == in->head;
    }
    if (arg == NULL) return EFAULT;
    memcpy(arg, &at, sizeof at);
    return 0;
  }
  if (req == FIONREAD) {
    if (s->state == SS_LISTEN) return EINVAL;
    struct view v;
    view(s, now, &v);
    if (arg == NULL) return EFAULT;
    uint64_t q = v.avail;
    if (s->conn != NULL && !s->conn->unix_rules && !s->oobinline) {
      /* tcp_ioctl: with an urgent mark ahead, the bytes before it. */
      const struct net_stream *in = &s->conn->dir[1 - s->side];
      if (in->urg_state != NET_URG_NONE && in->urg_seq >= in->head && in->urg_seq < in->head + q)
        q = in->urg_seq - in->head;
    }
    int n = (int)(q > INT32_MAX ? INT32_MAX : q);
    memcpy(arg, &n, sizeof n);
    return 0;
  }
  if (req == SIOCOUTQ) {
    if (s->state == SS_LISTEN) return EINVAL;
    int n = 0;
    if (is_unix(s)) {
      /* unix_outq_len: the sender's charge (truesize), not bytes. */
      uint64_t q = s->type == SOCK_DGRAM ? s->wmem : s->conn != NULL ? s->conn->dir[s->side].wmem : 0;
      n = (int)(q > INT32_MAX ? INT32_MAX : q);
    } else if (s->type == SOCK_STREAM && s->conn != NULL && !is_orphan_peer(s)) {
      const struct net_stream *out = &s->conn->dir[s->side];
      uint64_t q = out->tail - out->head - net_stream_avail(out, now);
      n = (int)(q > INT32_MAX ? INT32_MAX : q);
    }
    if (arg == NULL) return EFAULT;
    memcpy(arg, &n, sizeof n);
    return 0;
  }
  net_unsupported("this ioctl on a socket", "only FIONBIO, FIONREAD, SIOCOUTQ, SIOCATMARK, FIOCLEX and FIONCLEX are simulated");
  return ENOTTY;
}
