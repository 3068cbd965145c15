/* A full listen backlog, as Linux's: the SYN is dropped and the client
 * sends it again.
 *
 * tcp_conn_request drops a SYN while the accept queue holds more than the
 * backlog (sk_acceptq_is_full: backlog + 1 connections fit); the client's
 * SYN timer sends it again 1, 2, 4 ... s later (at most 120 s apart),
 * TCP_SYNCNT times (6: 127 s in all), then connect fails with ETIMEDOUT.
 * A SYN sent again when accept has made room completes the handshake.
 *
 * The retries happen in virtual time without anybody acting, so they are
 * settled lazily, as arrivals are: a listener keeps its waiting clients in
 * the order they came, and replaying their retries in time order against
 * the room in the backlog (which only accept and connect change, and both
 * settle first) is a pure function of the state and the clock.  Readiness
 * uses it without acting (poll, a blocked accept or connect); operations
 * apply it (net__syn_settle).  The connection (its latencies drawn from
 * the seed) is made at the first SYN, so the pure view and the settled
 * state agree on the handshake's time.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>

#include "core/core.h"
#include "net/net.h"
#include "world/world.h"

/* When the client's SYN number k + 1 goes (k sent again so far), or, for
 * k == retries, when it gives up: Linux's backoff from the first SYN. */
static uint64_t event_time(const struct net_sock *c, unsigned k) {
  uint64_t t = c->syn_first_at, rto = DETSIM_NET_SYN_RTO_INIT_NS;
  for (unsigned i = 0; i <= k; i++) {
    t += rto;
    rto = rto * 2 > DETSIM_NET_SYN_RTO_MAX_NS ? DETSIM_NET_SYN_RTO_MAX_NS : rto * 2;
  }
  return t;
}

enum fate_kind { WAITING, ADMITTED, TIMED_OUT };

struct fate {
  enum fate_kind kind;
  uint64_t at;      /* ADMITTED: the SYN that got in; TIMED_OUT: when; WAITING: the next SYN */
  unsigned tries;
};

/* The waiting clients' fates at `now`, replaying their SYNs in time order
 * (ties in arrival order) against the room in l's backlog. */
static unsigned replay(const struct net_sock *l, uint64_t now, struct net_sock **who, struct fate *fate) {
  unsigned n = 0;
  for (struct net_sock *c = l->syn_waiting; c != NULL; c = c->syn_next) {
    CHECK_LT(n, DETSIM_NET_SYN_WAITING_MAX);
    who[n] = c;
    fate[n] = (struct fate){ WAITING, event_time(c, c->syn_tries), c->syn_tries };
    n++;
  }
  long room = (long)l->backlog + 1 - (long)l->qlen;
  for (;;) {
    unsigned best = n;
    for (unsigned i = 0; i < n; i++)
      if (fate[i].kind == WAITING && fate[i].at <= now && (best == n || fate[i].at < fate[best].at)) best = i;
    if (best == n) break;
    struct fate *f = &fate[best];
    if (f->tries >= who[best]->syn_retries) {
      f->kind = TIMED_OUT;
    } else if (room > 0) {
      room--;
      f->kind = ADMITTED;
    } else {
      f->tries++;
      f->at = event_time(who[best], f->tries);
    }
  }
  return n;
}

/* The handshake of a client admitted by the SYN it sent at `at`. */
static uint64_t done_at(const struct net_sock *c, uint64_t at) {
  return net__handshake_done(c->node, c->syn_listener->node, c->syn_conn, at);
}

static void unlink_client(struct net_sock *l, struct net_sock *c) {
  for (struct net_sock **p = &l->syn_waiting; *p != NULL; p = &(*p)->syn_next) {
    if (*p == c) {
      *p = c->syn_next;
      break;
    }
  }
  CHECK_GE(l->syn_waiting_n, 1);
  l->syn_waiting_n--;
  c->syn_next = NULL;
  c->syn_listener = NULL;
}

int net__syn_drop(struct net_sock *l, struct net_sock *s, struct net_conn *c, uint64_t now) {
  if (l->syn_waiting_n >= DETSIM_NET_SYN_WAITING_MAX) {
    net_limit("net_syn_waiting_max", DETSIM_NET_SYN_WAITING_MAX,
              "too many clients wait on one listener's full backlog; the connection is refused");
    net__conn_free(c);
    return ECONNREFUSED;
  }
  s->state = SS_CONNECTING;
  s->conn = NULL;
  s->refused_at = DETSIM_NO_DEADLINE;
  s->syn_conn = c;
  s->syn_listener = l;
  s->syn_first_at = now;
  s->syn_tries = 0;
  s->syn_retries = net__sock_syncnt(s);
  s->syn_next = NULL;
  struct net_sock **p = &l->syn_waiting;
  while (*p != NULL) p = &(*p)->syn_next;
  *p = s;
  l->syn_waiting_n++;
  net_wake_node(s->node, event_time(s, 0));
  net_wake_node(l->node, event_time(s, 0));
  return 0;
}

void net__syn_settle(struct net_sock *s, uint64_t now) {
  struct net_sock *l = s->syn_listener != NULL ? s->syn_listener : s;
  if (l->syn_waiting == NULL) return;
  struct net_sock *who[DETSIM_NET_SYN_WAITING_MAX];
  struct fate fate[DETSIM_NET_SYN_WAITING_MAX];
  unsigned n = replay(l, now, who, fate);
  /* Admissions in the order they happened, so the backlog's order is. */
  for (;;) {
    unsigned best = n;
    for (unsigned i = 0; i < n; i++)
      if (fate[i].kind == ADMITTED && (best == n || fate[i].at < fate[best].at)) best = i;
    if (best == n) break;
    struct net_sock *c = who[best];
    struct net_conn *conn = c->syn_conn;
    unlink_client(l, c);
    c->syn_conn = NULL;
    net__enqueue_child(l, c, conn, fate[best].at);
    if (c->file != NULL) net_wake_file(c->file);
    fate[best].kind = WAITING; /* done with */
    fate[best].at = DETSIM_NO_DEADLINE;
    who[best] = NULL;
  }
  for (unsigned i = 0; i < n; i++) {
    struct net_sock *c = who[i];
    if (c == NULL) continue;
    if (fate[i].kind == TIMED_OUT) {
      /* Given up: as a refusal with ETIMEDOUT, at that time. */
      unlink_client(l, c);
      net__conn_free(c->syn_conn);
      c->syn_conn = NULL;
      c->refused_at = fate[i].at;
      c->refuse_err = ETIMEDOUT;
      if (c->file != NULL) net_wake_file(c->file);
    } else {
      c->syn_tries = fate[i].tries;
    }
  }
}

/* One client's fate (it waits on a listener). */
static struct fate fate_of(const struct net_sock *s, uint64_t now) {
  struct net_sock *who[DETSIM_NET_SYN_WAITING_MAX];
  struct fate fate[DETSIM_NET_SYN_WAITING_MAX];
  unsigned n = replay(s->syn_listener, now, who, fate);
  for (unsigned i = 0; i < n; i++)
    if (who[i] == s) return fate[i];
  CHECK(false);
  return (struct fate){ WAITING, DETSIM_NO_DEADLINE, 0 };
}

uint32_t net__syn_client_poll(const struct net_sock *s, uint64_t now) {
  if (s->syn_listener == NULL) return 0;
  struct fate f = fate_of(s, now);
  if (f.kind == ADMITTED && done_at(s, f.at) <= now) return EPOLLOUT | EPOLLWRNORM;
  /* Given up: as a refused connect (tcp_done in SYN_SENT). */
  if (f.kind == TIMED_OUT) return EPOLLOUT | EPOLLWRNORM | EPOLLERR | EPOLLHUP;
  return 0;
}

uint64_t net__syn_client_next(const struct net_sock *s, uint64_t now) {
  if (s->syn_listener == NULL) return DETSIM_NO_DEADLINE;
  struct fate f = fate_of(s, now);
  if (f.kind == ADMITTED) {
    uint64_t t = done_at(s, f.at);
    return t > now ? t : DETSIM_NO_DEADLINE;
  }
  return f.kind == WAITING ? f.at : DETSIM_NO_DEADLINE;
}

uint64_t net__syn_client_gen(const struct net_sock *s, uint64_t now) {
  return net__syn_client_poll(s, now) != 0;
}

unsigned net__syn_ready(const struct net_sock *l, uint64_t now) {
  if (l->syn_waiting == NULL) return 0;
  struct net_sock *who[DETSIM_NET_SYN_WAITING_MAX];
  struct fate fate[DETSIM_NET_SYN_WAITING_MAX];
  unsigned n = replay(l, now, who, fate), ready = 0;
  for (unsigned i = 0; i < n; i++) ready += fate[i].kind == ADMITTED && done_at(who[i], fate[i].at) <= now;
  return ready;
}

uint64_t net__syn_listener_next(const struct net_sock *l, uint64_t now) {
  if (l->syn_waiting == NULL) return DETSIM_NO_DEADLINE;
  struct net_sock *who[DETSIM_NET_SYN_WAITING_MAX];
  struct fate fate[DETSIM_NET_SYN_WAITING_MAX];
  unsigned n = replay(l, now, who, fate);
  uint64_t t = DETSIM_NO_DEADLINE;
  for (unsigned i = 0; i < n; i++) {
    uint64_t at = fate[i].kind == WAITING ? fate[i].at
                : fate[i].kind == ADMITTED ? done_at(who[i], fate[i].at) : DETSIM_NO_DEADLINE;
    if (at > now && at < t) t = at;
  }
  return t;
}

void net__syn_listener_gone(struct net_sock *l, uint64_t now) {
  net__syn_settle(l, now);
  while (l->syn_waiting != NULL) {
    struct net_sock *c = l->syn_waiting;
    /* The next SYN finds no listener: RST after the round trip. */
    uint64_t next = event_time(c, c->syn_tries);
    struct net_conn *conn = c->syn_conn;
    c->refused_at = net__handshake_done(c->node, l->node, conn, next);
    c->refuse_err = ECONNREFUSED;
    unlink_client(l, c);
    net__conn_free(conn);
    c->syn_conn = NULL;
    net_wake_node(c->node, c->refused_at);
    if (c->file != NULL) net_wake_file(c->file);
  }
}

void net__syn_client_gone(struct net_sock *s, uint64_t now) {
  if (s->syn_listener == NULL) return;
  net__syn_settle(s, now);
  if (s->syn_listener == NULL) return; /* it got in, or gave up */
  unlink_client(s->syn_listener, s);
  net__conn_free(s->syn_conn);
  s->syn_conn = NULL;
}
