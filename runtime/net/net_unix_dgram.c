/* Unix datagram sockets (AF_UNIX SOCK_DGRAM) within a node.
 *
 * A datagram goes whole into the receiving socket's queue at once (no
 * latency: the kernel copies it), and the receiving side is the UDP one
 * (net_udp.c).  Unlike UDP nothing is lost; as Linux's unix_dgram_sendmsg
 * a sender waits (a non-blocking one gets EAGAIN):
 *  - while its own charge, the truesize of its datagrams not yet read
 *    (net_truesize.c), is at its SO_SNDBUF or more (one datagram may run
 *    past it: sock_alloc_send_pskb);
 *  - while the receiver holds more than DETSIM_NET_UNIX_DGRAM_QLEN unread
 *    datagrams (net.unix.max_dgram_qlen), unless the receiver is the sender
 *    or its peer (a socketpair, or both connected to each other).
 * A datagram longer than SO_SNDBUF less 32 is EMSGSIZE; SO_RCVBUF plays no
 * part.  It is writable (poll) once its charge is down to a quarter of its
 * SO_SNDBUF and the peer's queue has room.  As in Linux:
 *  - a destination is a bound path; none there is ENOENT (ECONNREFUSED
 *    where a closed socket left its file: net_sock.c), a stream
 *    socket's path EPROTOTYPE, a receiver connected to someone else EPERM;
 *  - a connected socket sends to the socket it connected to, whatever
 *    becomes of its path (unlinked, another socket bound there); once
 *    that socket has closed, the next send gets ECONNREFUSED and leaves it
 *    unconnected; an unconnected one sending without an address, ENOTCONN;
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

static void forget_owner_in(struct net_sock *r, const struct net_sock *s) {
  if (r == NULL || r->domain != AF_UNIX || r->type != SOCK_DGRAM) return;
  for (struct net_dgram *d = r->dq_head; d; d = d->next)
    if (d->owner == s) d->owner = NULL;
}

/* A closing sender's datagrams still in queues are charged to nobody
 * (Linux's skb holds the closed socket until read; the charge is gone with
 * it for every purpose a live socket can see).  They wait in bound unix
 * datagram sockets or in a socketpair's other end; in a world, in any
 * socket of the world's list (a dead host's have left the port table but
 * keep their queues until the restart). */
static void forget_owner(struct net_sock *s) {
  if (s->wmem == 0) return;
  if (detsim__world_hosts()) {
    for (struct net_sock *r = net__all_socks; r; r = r->all_next) forget_owner_in(r, s);
  } else {
    for (struct net_sock *r = net__bound_list; r; r = r->bound_next) forget_owner_in(r, s);
    forget_owner_in(s->upair != NULL ? s->upair->end[1 - s->side] : NULL, s);
  }
  s->wmem = 0;
}

/* s stops being connected to its peer (unix_peer). */
static void dpeer_unlink(struct net_sock *s) {
  if (s->dpeer == NULL) return;
  for (struct net_sock **p = &s->dpeer->dpeer_in; *p != NULL; p = &(*p)->dpeer_next)
    if (*p == s) {
      *p = s->dpeer_next;
      break;
    }
  s->dpeer = s->dpeer_next = NULL;
}

static void dpeer_link(struct net_sock *s, struct net_sock *r) {
  dpeer_unlink(s);
  s->dpeer = r;
  s->dpeer_next = r->dpeer_in;
  r->dpeer_in = s;
  s->dpeer_gone = false;
}

/* s closes: the sockets connected to it find it dead at their next send. */
static void dpeer_release(struct net_sock *s) {
  dpeer_unlink(s);
  while (s->dpeer_in != NULL) {
    struct net_sock *x = s->dpeer_in;
    s->dpeer_in = x->dpeer_next;
    x->dpeer = x->dpeer_next = NULL;
    x->dpeer_gone = true;
  }
}

void net_unix_dgram_release(struct net_sock *s) {
  forget_owner(s);
  dpeer_release(s);
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
    r = s->dpeer;
    if (r == NULL) *err = ECONNREFUSED; /* it closed (dpeer_gone) */
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
  return r->state == SS_CONNECTED && r->dpeer == s;
}

/* The peer closed: a send learns it once (ECONNREFUSED), and the socket
 * is unconnected after (unix_dgram_sendmsg clears unix_peer). */
static void dissolve_dead_peer(struct net_sock *s) {
  if (!s->dpeer_gone) return;
  s->dpeer_gone = false;
  s->state = SS_NEW;
  memset(&s->peer, 0, sizeof s->peer);
  s->peer.family = AF_UNIX;
}

/* unix_recvq_full, for a sender that is neither r nor r's peer. */
static bool full_for(const struct net_sock *r, const struct net_sock *s) {
  return r != s && !peer_of(r, s) && r->dq_pushed - r->dq_taken > DETSIM_NET_UNIX_DGRAM_QLEN;
}

/* sock_alloc_send_pskb: a buffer while the charge is under SO_SNDBUF. */
static bool send_buffer_full(const struct net_sock *s) { return s->wmem >= (uint64_t)s->sndbuf; }

struct send_wait {
  struct net_sock *s;
  const struct msghdr *msg;
};

/* Ready to look again: room in the destination, or the destination is
 * another (or gone): the send resolves it again. */
static bool room_ready(void *arg) {
  struct send_wait *w = arg;
  int err = 0;
  struct net_sock *r = destination(w->s, w->msg, &err);
  return r == NULL || !full_for(r, w->s);
}

/* A sender waiting for its buffer is woken once it is writable again
 * (unix_write_space: its charge down to a quarter of SO_SNDBUF). */
static bool buffer_ready(void *arg) {
  const struct net_sock *s = ((struct send_wait *)arg)->s;
  return s->wmem * 4 <= (uint64_t)s->sndbuf;
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
  if (len + 32 > (uint64_t)s->sndbuf) {
    errno = EMSGSIZE;
    return -1;
  }
  bool nonblock = f->nonblock || (flags & MSG_DONTWAIT) || detsim__self() == NULL;
  uint64_t deadline = s->sndtimeo_ns ? detsim__deadline_after_ns(s->sndtimeo_ns) : DETSIM_NO_DEADLINE;
  struct send_wait w = { s, msg };
  for (;;) {
    /* The buffer first, as Linux allocates it before it looks up the
     * destination. */
    if (send_buffer_full(s)) {
      if (nonblock) {
        errno = EAGAIN;
        return -1;
      }
      int wr = net_wait(DETSIM_EV_net_send, f, buffer_ready, NULL, &w, deadline);
      if (wr != 0) {
        errno = wr == EINTR ? EINTR : EAGAIN;
        return -1;
      }
      continue;
    }
    int err = 0;
    struct net_sock *r = destination(s, msg, &err);
    if (r == NULL) {
      if (msg->msg_name == NULL || msg->msg_namelen == 0) dissolve_dead_peer(s);
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
    if (!full_for(r, s)) {
      net__dgram_enqueue(r, msg, len, &s->local, detsim__now_ns(), net_truesize_unix_dgram(len), s);
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
    dpeer_unlink(s);
    s->dpeer_gone = false;
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
  if (s->upair == NULL) dpeer_link(s, r);
  f->changes++;
  return 0;
}

uint32_t net_unix_dgram_poll(struct net_sock *s, uint64_t now) {
  uint32_t m = net_udp_poll(s, now) & ~(uint32_t)(EPOLLOUT | EPOLLWRNORM);
  /* unix_dgram_poll: writable with its charge at a quarter of SO_SNDBUF
   * at most, unless its peer's queue is full (an unconnected socket's
   * destination is not known before it sends). */
  if (s->wmem * 4 > (uint64_t)s->sndbuf) {
    /* not writable */
  } else if (s->state == SS_CONNECTED) {
    int err = 0;
    struct msghdr none;
    memset(&none, 0, sizeof none);
    struct net_sock *r = destination(s, &none, &err);
    if (r == NULL || !full_for(r, s)) m |= EPOLLOUT | EPOLLWRNORM;
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
