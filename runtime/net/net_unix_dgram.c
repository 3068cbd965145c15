/* Unix datagram sockets (AF_UNIX SOCK_DGRAM) within a node.
 *
 * A datagram goes whole into the receiving socket's queue at once (no
 * latency: the kernel copies it), and the receiving side is the UDP one
 * (net_udp.c).  Unlike UDP nothing is lost: a sender waits while the
 * receiver's queue is full, more than DETSIM_NET_UNIX_DGRAM_QLEN datagrams
 * (Linux's net.unix.max_dgram_qlen; a socket sending to its own peer is
 * held by bytes only, as Linux holds it by its send buffer) or
 * net_buffer_bytes; a non-blocking one gets EAGAIN.  As in Linux:
 *  - a destination is a bound path; none there is ENOENT (ECONNREFUSED
 *    where a closed socket left its file: net_sock.c), a stream
 *    socket's path EPROTOTYPE, a receiver connected to someone else EPERM;
 *  - a connected socket whose peer is gone (closed, or its path unbound)
 *    gets ECONNREFUSED; an unconnected one sending without an address,
 *    ENOTCONN;
 *  - a sender without a name is reported with none (address length 0);
 *  - socketpair's two ends are each other's peer, unnamed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "sched/sched.h"

void net_unix_dgram_pair(struct net_sock *a, struct net_sock *b) {
  struct net_upair *p = detsim__net_calloc(1, sizeof *p);
  CHECK(p != NULL);
  p->end[0] = a;
  p->end[1] = b;
  a->upair = b->upair = p;
  a->side = 0;
  b->side = 1;
  a->state = b->state = SS_CONNECTED;
}

void net_unix_dgram_release(struct net_sock *s) {
  struct net_upair *p = s->upair;
  if (p == NULL) return;
  p->end[s->side] = NULL;
  s->upair = NULL;
  if (p->end[1 - s->side] == NULL) detsim__net_free(p);
}

/* The socket a datagram from s goes to: its argument address, else its
 * peer; NULL with *err set when there is none. */
static struct net_sock *destination(struct net_sock *s, const struct msghdr *msg, int *err) {
  struct net_sock *r;
  if (msg->msg_name != NULL && msg->msg_namelen > 0) {
    struct net_addr to;
    *err = net_addr_from(AF_UNIX, msg->msg_name, msg->msg_namelen, &to);
    if (*err) return NULL;
    r = net__unix_bound(&to);
    if (r == NULL) *err = net__unix_unbound_errno(&to);
  } else if (s->upair != NULL) {
    r = s->upair->end[1 - s->side];
    if (r == NULL) *err = ECONNREFUSED;
  } else if (s->state == SS_CONNECTED) {
    r = net__unix_bound(&s->peer);
    if (r == NULL) *err = ECONNREFUSED;
  } else {
    *err = ENOTCONN;
    return NULL;
  }
  if (r == NULL) return NULL;
  if (r->type != SOCK_DGRAM) {
    *err = EPROTOTYPE;
    return NULL;
  }
  return r;
}

/* Whether r's peer is s (then s may send whatever r's connection). */
static bool peer_of(const struct net_sock *r, const struct net_sock *s) {
  if (r->upair != NULL) return r->upair->end[1 - r->side] == s;
  return s->bound && r->peer.path_len == s->local.path_len && memcmp(r->peer.path, s->local.path, s->local.path_len) == 0;
}

static bool full_for(const struct net_sock *r, const struct net_sock *s, uint64_t len) {
  if (r->dq_bytes + len > detsim__opt.net_buffer_bytes) return true;
  return !peer_of(r, s) && r->dq_pushed - r->dq_taken > DETSIM_NET_UNIX_DGRAM_QLEN;
}

struct send_wait {
  struct net_sock *s;
  const struct msghdr *msg;
  uint64_t len;
};

/* Ready to look again: room in the destination, or the destination is
 * another (or gone): the send resolves it again. */
static bool room_ready(void *arg) {
  struct send_wait *w = arg;
  int err = 0;
  struct net_sock *r = destination(w->s, w->msg, &err);
  return r == NULL || !full_for(r, w->s, w->len);
}

static ssize_t dgram_send(struct net_file *f, const struct msghdr *msg, int flags, struct net_scm **scm) {
  struct net_sock *s = net_sock_of(f);
  /* MSG_OOB and control messages are refused by net_sendmsg. */
  if (s->shut_wr) {
    if (!(flags & MSG_NOSIGNAL)) net_sigpipe();
    errno = EPIPE;
    return -1;
  }
  uint64_t len = net_iov_total(msg->msg_iov, (int)msg->msg_iovlen);
  if (len > detsim__opt.net_buffer_bytes) {
    errno = EMSGSIZE;
    return -1;
  }
  bool nonblock = f->nonblock || (flags & MSG_DONTWAIT) || detsim__self() == NULL;
  uint64_t deadline = s->sndtimeo_ns ? detsim__deadline_after_ns(s->sndtimeo_ns) : DETSIM_NO_DEADLINE;
  for (;;) {
    int err = 0;
    struct net_sock *r = destination(s, msg, &err);
    if (r == NULL) {
      errno = err;
      return -1;
    }
    /* A receiver connected to another socket takes nothing from this one. */
    if (r->state == SS_CONNECTED && !peer_of(r, s)) {
      errno = EPERM;
      return -1;
    }
    if (*scm != NULL && r->scm_queued >= DETSIM_NET_SCM_QUEUED_MAX) {
      net_limit("net_scm_queued_max", DETSIM_NET_SCM_QUEUED_MAX,
                "too many datagrams carrying descriptors wait in one socket (ETOOMANYREFS)");
      errno = ETOOMANYREFS;
      return -1;
    }
    if (!full_for(r, s, len)) {
      net__dgram_enqueue(r, msg, len, &s->local, detsim__now_ns());
      if (*scm != NULL) {
        r->dq_tail->scm = *scm;
        r->scm_queued++;
        *scm = NULL;
      }
      return (ssize_t)len;
    }
    if (nonblock) {
      errno = EAGAIN;
      return -1;
    }
    struct send_wait w = { s, msg, len };
    int wr = net_wait(DETSIM_EV_net_send, f, room_ready, NULL, &w, deadline);
    if (wr != 0) {
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

int net_unix_dgram_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len) {
  struct net_sock *s = net_sock_of(f);
  if (sa != NULL && len >= (socklen_t)sizeof(sa_family_t) && sa->sa_family == AF_UNSPEC) {
    if (s->upair == NULL) s->state = SS_NEW; /* dissolve the association */
    memset(&s->peer, 0, sizeof s->peer);
    s->peer.family = AF_UNIX;
    f->changes++;
    return 0;
  }
  struct net_addr to;
  int e = net_addr_from(AF_UNIX, sa, len, &to);
  if (e) return e;
  struct net_sock *r = net__unix_bound(&to);
  if (r == NULL) return net__unix_unbound_errno(&to);
  if (r->type != SOCK_DGRAM) return EPROTOTYPE;
  s->peer = to;
  s->state = SS_CONNECTED;
  f->changes++;
  return 0;
}

uint32_t net_unix_dgram_poll(struct net_sock *s, uint64_t now) {
  uint32_t m = net_udp_poll(s, now) & ~(uint32_t)(EPOLLOUT | EPOLLWRNORM);
  /* Writable unless its peer's queue is full (an unconnected socket's
   * destination is not known before it sends). */
  if (s->state == SS_CONNECTED) {
    int err = 0;
    struct msghdr none;
    memset(&none, 0, sizeof none);
    struct net_sock *r = destination(s, &none, &err);
    if (r == NULL || !full_for(r, s, 1)) m |= EPOLLOUT | EPOLLWRNORM;
  } else {
    m |= EPOLLOUT | EPOLLWRNORM;
  }
  return m;
}

ssize_t net_unix_dgram_sendmsg(struct net_file *f, const struct msghdr *msg, int flags, struct net_scm *scm) {
  ssize_t r = dgram_send(f, msg, flags, &scm);
  if (scm != NULL) {
    int e = errno;
    net_scm_release(scm); /* not sent: its references go back */
    errno = e;
  }
  return r;
}
