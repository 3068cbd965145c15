/* What a node's crash, its restart and a reset fault do to the network
 * (world_faults.c decides when; world_abi.h has the kinds).
 *
 * Whichever node holds the world applies a fault, so these reach a node's
 * sockets through the world's list of every socket, not through that
 * node's descriptors (which live in its own, perhaps dead, process).
 *  - A dead process: the kernel closes its sockets as close() would, so
 *    peers get FIN, or RST where data was unread; its listeners vanish and
 *    dials are refused.
 *  - A dead host: nothing is said.  Peers' bytes queue and are never read,
 *    their reads wait, dials time out.  The ports are freed for the next
 *    incarnation.  When the host comes back, its old connections answer
 *    RST (a simplification: Linux's rebooted host answers RST to the next
 *    segment a peer sends, so an idle peer would learn it later).  A dial
 *    still retransmitting its SYN is refused at its next retransmission
 *    (Linux would connect if the new process listened by then).
 *  - A reset: one connection between two nodes is torn down from the
 *    middle; both ends get RST.
 * A crashed process's other objects (pipes, epolls, descriptors) stay in
 * the arena unreferenced: no other node can reach them.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"

/* The sockets of `node` with a descriptor (a backlog's children go with
 * their listener), marked dead_host or not as `dead`, in list order. */
static unsigned collect(unsigned node, bool dead, struct net_sock ***out) {
  unsigned n = 0, cap = 0;
  struct net_sock **v = NULL;
  for (struct net_sock *s = net__all_socks; s; s = s->all_next) {
    if (s->node != node || s->file == NULL || s->dead_host != dead) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      v = realloc(v, cap * sizeof *v);
      CHECK(v != NULL);
    }
    v[n++] = s;
  }
  *out = v;
  return n;
}

void net_node_crash(unsigned node, bool silent) {
  struct net_sock **v;
  unsigned n = collect(node, false, &v);
  for (unsigned i = 0; i < n; i++) {
    if (!silent) {
      net_sock_release(v[i]);
      continue;
    }
    if (v[i]->bound) net__bind_remove(v[i]);
    net_mcast_release(v[i]); /* the host's group memberships die with it */
    v[i]->dead_host = true;
    /* Its kernel is gone with whatever it had not sent yet. */
    if (v[i]->conn != NULL) net_stream_abort(&v[i]->conn->dir[v[i]->side], detsim__now_ns());
  }
  free(v);
}

/* Dials into the dead host, still retransmitting their SYN: the next
 * retransmission reaches the host that is back, whose fresh process has
 * not listened yet, so it answers RST (the caller may dial again). */
static void answer_pending_dials(unsigned node, uint64_t now) {
  for (struct net_sock *s = net__all_socks; s; s = s->all_next) {
    if (s->state != SS_CONNECTING || s->conn != NULL || s->refuse_err != ETIMEDOUT || s->refused_at <= now) continue;
    if (net_addr_node(&s->peer) != (int)node) continue;
    uint64_t first = s->refused_at - NET_SYN_RETRIES_NS;
    for (unsigned k = 1; k <= NET_SYN_RETRIES; k++) {
      uint64_t retry = first + ((1ull << k) - 1) * 1000000000ull;
      if (retry < now) continue;
      s->refused_at = retry;
      s->refuse_err = ECONNREFUSED;
      if (s->file) s->file->changes++;
      /* Its dialer's wait must look again then, wherever it runs (this
       * very node included: a world-wide post skips the poster). */
      net_wake_node(s->node, retry);
      break;
    }
  }
}

void net_node_restart(unsigned node) {
  answer_pending_dials(node, detsim__now_ns());
  struct net_sock **v;
  unsigned n = collect(node, true, &v);
  for (unsigned i = 0; i < n; i++) {
    /* SO_LINGER 0: close says RST, whatever was unread. */
    v[i]->linger_on = true;
    v[i]->linger_s = 0;
    net_sock_release(v[i]);
  }
  free(v);
}

/* An established TCP connection between two nodes, both ends alive and no
 * RST sent either way: counted once, from its connecting end. */
static bool resettable(const struct net_sock *s, uint64_t now) {
  const struct net_conn *c = s->conn;
  if (s->type != SOCK_STREAM || c == NULL || c->unix_rules || s->side != 0) return false;
  if (c->end[1] == NULL || c->dir[0].src == c->dir[0].dst || s->established_at > now) return false;
  if (s->dead_host || c->end[1]->dead_host) return false;
  return c->dir[0].rst_at == DETSIM_NO_DEADLINE && c->dir[1].rst_at == DETSIM_NO_DEADLINE;
}

bool net_reset_connection(uint64_t pick) {
  uint64_t now = detsim__now_ns();
  uint64_t n = 0;
  for (struct net_sock *s = net__all_socks; s; s = s->all_next) n += resettable(s, now);
  if (n == 0) return false;
  pick %= n;
  for (struct net_sock *s = net__all_socks; s; s = s->all_next) {
    if (!resettable(s, now) || pick-- != 0) continue;
    struct net_conn *c = s->conn;
    for (int d = 0; d < 2; d++) {
      net_stream_abort(&c->dir[d], now);
      net_stream_rst_at(&c->dir[d], net_stream_send_time(&c->dir[d], now));
      if (c->end[d]->file) c->end[d]->file->changes++;
    }
    return true;
  }
  CHECK(false);
  return false;
}
