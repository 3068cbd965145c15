/* Datagram sockets (UDP over AF_INET and AF_INET6) within the node.
 *
 * A datagram is delivered whole into the receiving socket's queue with an
 * arrival time: the send time plus the sender's latency (drawn from the
 * seed once per sending socket; datagrams of one sender arrive in the
 * order sent).  A receiver reads arrived datagrams in arrival order.  As in
 * Linux: a datagram for a port nobody is bound to is dropped, and a
 * connected sender learns it from the next call (ECONNREFUSED, the ICMP
 * port-unreachable); a datagram that does not fit the receiver's buffer is
 * dropped.  Between nodes of a world, level 2's faults lose datagrams (a
 * partition, the `udp` fault), duplicate them and reorder them (the `udp`
 * fault: world_io_faults.c), and a clog holds them back.  Unix datagram
 * sockets share the queue and the receiving side (net_unix_dgram.c).
 *
 * Multicast and broadcast (IPv4) go out of one interface of the sending
 * host (net_iface.c): lo, which delivers to its own host only, or eth0,
 * the simulated net, which reaches every node of a world.  The route is
 * Linux's: IP_MULTICAST_IF, else the device of the address the socket is
 * bound to, else eth0 (127.255.255.255 is lo's broadcast, 127.0.1.255 and
 * 255.255.255.255 eth0's).  A copy goes to every socket of every host
 * reached that is bound to the port (the wildcard or that very address;
 * a connected one only from its peer), a group's only where the host
 * listens to it on that interface and the socket takes it
 * (net_mcast.c).  Through eth0 the sender's own host hears its multicast
 * only with IP_MULTICAST_LOOP (its broadcast always), other hosts only
 * with an IP_MULTICAST_TTL above 0; lo loops whatever IP_MULTICAST_LOOP
 * says, as Linux's loopback device does.  A broadcast needs SO_BROADCAST
 * (else EACCES); IPv6 multicast has no route (ENETUNREACH).  Each copy
 * meets the faults of the path between the two hosts.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sanitize/sanitize.h"
#include "core/core.h"
#include "time/time.h"
#include "net/net.h"

/* The largest UDP payload over IPv4 (65535 - IP and UDP headers). */
#define UDP_PAYLOAD_MAX 65507u

static bool addr_equal(const struct net_addr *a, const struct net_addr *b) {
  return memcmp(a->ip, b->ip, 16) == 0 && a->port == b->port;
}

/* How well socket b matches a datagram to `to` from `from` (Linux's
 * compute_score: a specific local address and a connected peer weigh
 * more), -1 for not at all. */
static int score(const struct net_sock *b, int node, const struct net_addr *to, const struct net_addr *from) {
  if (b->type != SOCK_DGRAM || (int)b->node != node || b->local.port != to->port) return -1;
  int sc = b->domain == AF_INET ? 2 : 1;
  if (memcmp(b->local.ip, to->ip, 16) == 0) sc += 4;
  else if (b->domain == AF_INET6 && net_addr_is_any(&b->local) && !net_addr_is_v4(&b->local)) {
    if (net_addr_is_v4(to) && b->v6only) return -1;
  } else if (!(net_addr_is_v4(&b->local) && net_addr_is_any(&b->local) && net_addr_is_v4(to))) {
    return -1;
  }
  if (b->state == SS_CONNECTED) {
    if (!addr_equal(&b->peer, from)) return -1;
    sc += 8;
  }
  return sc;
}

/* SO_REUSEPORT: a datagram goes to one socket of the group bound to the
 * same address and port, picked by net__reuseport_hash of its source: one
 * sender's datagrams go to one socket, different senders spread. */
static struct net_sock *reuseport_pick(struct net_sock *best, int node, const struct net_addr *to,
                                       const struct net_addr *from, int best_score) {
  unsigned n = 0;
  for (struct net_sock *b = net__bound_list; b; b = b->bound_next)
    n += b->reuseport && score(b, node, to, from) == best_score && memcmp(b->local.ip, best->local.ip, 16) == 0;
  if (n < 2) return best;
  unsigned k = (unsigned)(net__reuseport_hash(from) % n);
  for (struct net_sock *b = net__bound_list; b; b = b->bound_next)
    if (b->reuseport && score(b, node, to, from) == best_score && memcmp(b->local.ip, best->local.ip, 16) == 0 &&
        k-- == 0)
      return b;
  return best;
}

/* The socket a datagram to `to` from `from` is delivered to, NULL for none:
 * the best match, the first of equals in the port table. */
static struct net_sock *receiver(const struct net_addr *to, const struct net_addr *from) {
  struct net_sock *best = NULL;
  int best_score = -1, node = net_addr_node(to);
  for (struct net_sock *b = net__bound_list; b; b = b->bound_next) {
    int sc = score(b, node, to, from);
    if (sc > best_score) {
      best = b;
      best_score = sc;
    }
  }
  if (best != NULL && best->reuseport && best->state != SS_CONNECTED)
    best = reuseport_pick(best, node, to, from, best_score);
  return best;
}

/* Binds an unbound socket to the wildcard address and an ephemeral port. */
static int autobind(struct net_sock *s) {
  if (s->bound) return 0;
  memset(&s->local, 0, sizeof s->local);
  s->local.family = s->domain;
  if (s->domain == AF_INET) s->local.ip[10] = s->local.ip[11] = 0xff;
  uint16_t p;
  if (net__ephemeral_port(s->type, &p) != 0) return EAGAIN;
  s->local.port = p;
  net__bind_add(s);
  return 0;
}

static bool is_group(const struct net_addr *a) { return net_addr_is_v4(a) && net_addr_is_multicast(a); }

/* Bound to one of the host's unicast addresses (its source, whatever the
 * route), not a wildcard, group or broadcast address. */
static bool bound_unicast(const struct net_sock *s) {
  return s->bound && !net_addr_is_any(&s->local) && !net_addr_is_multicast(&s->local) && !net_iface_of_broadcast(&s->local);
}

/* The interface a multicast or broadcast datagram from s to `to` leaves by,
 * and its source address (port included). */
static unsigned route_many(const struct net_sock *s, const struct net_addr *to, struct net_addr *src) {
  unsigned out = net_iface_of_broadcast(to);
  static const uint8_t limited[4] = { 255, 255, 255, 255 };
  bool limited_bcast = memcmp(to->ip + 12, limited, 4) == 0;
  if (is_group(to) && s->mc_index) out = s->mc_index;
  else if ((is_group(to) || limited_bcast) && bound_unicast(s)) out = net_iface_of_addr(&s->local);
  else if (is_group(to)) out = NET_IFINDEX_NET;
  static const uint8_t zero[4];
  if (bound_unicast(s)) {
    *src = s->local;
  } else if (is_group(to) && memcmp(s->mc_addr, zero, 4) != 0) {
    net_iface_addr4(out, src);
    memcpy(src->ip + 12, s->mc_addr, 4);
  } else {
    net_iface_addr4(out, src);
  }
  src->family = s->domain;
  src->port = s->local.port;
  return out;
}

/* The destination of a send or a connect as the kernel resolves it: 0,
 * or an errno (reported for an address no node has).  An IPv6 socket
 * takes a sockaddr_in as IPv4's (udpv6_sendmsg, ip6_datagram_connect),
 * and an IPv4 destination, v4-mapped or not, only if it is not v6-only. */
static int resolve(struct net_sock *s, const struct sockaddr *sa, socklen_t len, struct net_addr *to,
                   bool connecting) {
  int e;
  bool six = s->domain == AF_INET6;
  if (six && sa != NULL && len >= (socklen_t)sizeof(sa_family_t) && sa->sa_family == AF_INET) {
    if (s->v6only) return connecting ? EAFNOSUPPORT : ENETUNREACH;
    e = net_addr_from(AF_INET, sa, len, to);
  } else {
    e = net_addr_from(s->domain, sa, len, to);
  }
  if (e) return e;
  if (six && net_addr_is_any(to) && !net_addr_is_v4(to) && s->bound && net_addr_is_v4(&s->local)) {
    memset(to->ip, 0, 16); /* a wildcard is the loopback of the socket's own family */
    to->ip[10] = to->ip[11] = 0xff;
  }
  if (six && net_addr_is_v4(to) && s->v6only) return ENETUNREACH;
  /* A link-local destination names its interface (a group may take
   * IPV6_MULTICAST_IF's). */
  if (connecting && net_addr_needs_scope(to) && to->scope_id == 0 && !(net_addr_is_multicast(to) && s->mc6_oif))
    return EINVAL;
  if (!net_addr_is_v4(to) && net_addr_is_multicast(to)) return ENETUNREACH; /* no IPv6 multicast route */
  if (net_iface_of_broadcast(to)) return s->broadcast ? 0 : EACCES;
  if (is_group(to)) return 0;
  if (net_addr_node(to) < 0) {
    char text[160], what[200];
    net_addr_text(to, text, sizeof text);
    snprintf(what, sizeof what, "sendto/connect to %s", text);
    net_unsupported(what, "no host in the simulated world has that address; only this node's loopback addresses exist");
    return ENETUNREACH;
  }
  if (net_addr_is_any(to)) {
    bool v4 = net_addr_is_v4(to);
    memset(to->ip, 0, 16);
    if (v4) {
      to->ip[10] = to->ip[11] = 0xff;
      to->ip[12] = 127;
    }
    to->ip[15] = 1;
  }
  return 0;
}

int net_udp_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len) {
  struct net_sock *s = net_sock_of(f);
  if (sa != NULL && len >= (socklen_t)sizeof(sa_family_t) && sa->sa_family == AF_UNSPEC) {
    s->state = SS_NEW; /* dissolve the association */
    memset(&s->peer, 0, sizeof s->peer);
    f->changes++;
    return 0;
  }
  struct net_addr to;
  int e = resolve(s, sa, len, &to, true);
  if (e) return e;
  e = autobind(s);
  if (e) return e;
  if (net_addr_is_any(&s->local)) {
    /* the local address becomes the source the route gives */
    uint16_t port = s->local.port;
    if (is_group(&to) || net_iface_of_broadcast(&to)) route_many(s, &to, &s->local);
    else net__source_for(s, &to, &s->local);
    s->local.port = port;
  }
  s->peer = to;
  s->state = SS_CONNECTED;
  f->changes++;
  return 0;
}

void net__dgram_enqueue(struct net_sock *r, const struct msghdr *msg, uint64_t len, const struct net_addr *from,
                        uint64_t at, uint64_t truesize, struct net_sock *owner) {
  detsim__hb_release(r); /* what the sender did before, for the receiver (TSan) */
  struct net_dgram *d = detsim__net_malloc(sizeof *d + (size_t)len);
  CHECK(d != NULL);
  d->next = NULL;
  d->at = at;
  d->from = *from;
  d->len = (size_t)len;
  d->scm = NULL;
  d->truesize = truesize;
  d->owner = owner;
  d->dropcount = r->rxq_ovfl ? r->drops : 0; /* sock_skb_set_dropcount */
  if (owner != NULL) owner->wmem += truesize;
  else r->dq_rmem += truesize;
  uint64_t off = 0;
  for (size_t i = 0; i < msg->msg_iovlen; i++) {
    if (msg->msg_iov[i].iov_len) memcpy(d->data + off, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
    off += msg->msg_iov[i].iov_len;
  }
  if (r->dq_tail) r->dq_tail->next = d;
  else r->dq_head = d;
  r->dq_tail = d;
  r->dq_bytes += len;
  r->dq_pushed++;
  net_wake_node(r->node, at);
}

static void deliver(struct net_sock *s, struct net_sock *r, const struct msghdr *msg, uint64_t len,
                    const struct net_addr *from);
static void send_many(struct net_sock *s, const struct msghdr *msg, uint64_t len, const struct net_addr *to);

ssize_t net_udp_sendmsg(struct net_file *f, const struct msghdr *msg, int flags) {
  struct net_sock *s = net_sock_of(f);
  /* MSG_OOB and control messages are refused by net_sendmsg. */
  if (s->so_error) {
    errno = net__sock_take_error(s);
    return -1;
  }
  if (s->shut_wr) {
    if (!(flags & MSG_NOSIGNAL)) net_sigpipe();
    errno = EPIPE;
    return -1;
  }
  struct net_addr to;
  if (msg->msg_name != NULL && msg->msg_namelen > 0) {
    int e = resolve(s, msg->msg_name, msg->msg_namelen, &to, false);
    if (e) {
      errno = e;
      return -1;
    }
  } else if (s->state == SS_CONNECTED) {
    to = s->peer;
  } else {
    errno = EDESTADDRREQ;
    return -1;
  }
  uint64_t len = net_iov_total(msg->msg_iov, (int)msg->msg_iovlen);
  if (len > UDP_PAYLOAD_MAX) {
    errno = EMSGSIZE;
    return -1;
  }
  int e = autobind(s);
  if (e) {
    errno = e;
    return -1;
  }
  if (is_group(&to) || net_iface_of_broadcast(&to)) {
    /* (A connected socket keeps the route its connect checked, whatever
     * SO_BROADCAST says now, as Linux's cached route does.) */
    send_many(s, msg, len, &to);
    return (ssize_t)len;
  }
  struct net_addr from = s->local;
  if (net_addr_is_any(&from)) {
    net__source_for(s, &to, &from);
    from.port = s->local.port;
  }
  struct net_sock *r = receiver(&to, &from);
  if (r == NULL) {
    net_udp_port_unreachable(s, msg, len, &to);
    return (ssize_t)len;
  }
  deliver(s, r, msg, len, &from);
  return (ssize_t)len;
}

/* __udp_enqueue_schedule_skb: a datagram is taken while the queue's
 * charge plus its own stays within SO_RCVBUF, or into an empty queue. */
static bool rcv_room(const struct net_sock *r, uint64_t truesize) {
  return r->dq_rmem == 0 || r->dq_rmem + truesize <= (uint64_t)r->rcvbuf;
}

/* One copy of a datagram from s to r, through the faults of the path
 * between their hosts. */
static void deliver(struct net_sock *s, struct net_sock *r, const struct msghdr *msg, uint64_t len,
                    const struct net_addr *from) {
  /* The charge is the sender's skb's (loopback hands the receiver that
   * very skb), by the family on the wire: a v4-mapped one is IPv4. */
  uint64_t truesize = net_truesize_udp(len, !net_addr_is_v4(from));
  uint64_t now = detsim__now_ns();
  if (!rcv_room(r, truesize)) {
    /* The receiver's buffer is full: dropped, and counted (sk_drops)
     * unless a partition would have lost it before it got there. */
    if (!detsim__world_link_drops(s->node, r->node, now)) r->drops++;
    return;
  }
  if (detsim__world_link_drops(s->node, r->node, now)) return; /* a partition: datagrams are lost, as UDP's are */
  uint64_t extra_ns;
  unsigned fate = detsim__world_udp_fate(s->node, r->node, &extra_ns);
  if (fate & DETSIM_UDP_LOST) return;
  if (!s->dgram_latency_drawn) {
    s->dgram_latency_ns = net_latency_draw();
    s->dgram_latency_drawn = true;
  }
  uint64_t at = now + s->dgram_latency_ns;
  if (at < s->dgram_last_at) at = s->dgram_last_at;
  s->dgram_last_at = at;
  /* A clog holds this path's datagrams until it ends (after the ordering
   * above, so it delays nothing this socket sends to other nodes). */
  uint64_t open_at = detsim__world_link_open(s->node, r->node, now) + s->dgram_latency_ns;
  if (at < open_at) at = open_at;
  /* Reordered: it takes a longer way, so later datagrams may pass it. */
  at += extra_ns;
  net__dgram_enqueue(r, msg, len, from, at, truesize, NULL);
  if (fate & DETSIM_UDP_DUPLICATED) {
    if (rcv_room(r, truesize)) net__dgram_enqueue(r, msg, len, from, at, truesize, NULL);
    else r->drops++;
  }
}

/* Whether r is a socket a multicast or broadcast datagram to `to` from
 * `from` may reach (Linux's __udp_is_mcast_sock, before the filters). */
static bool bound_for_many(const struct net_sock *r, const struct net_addr *to, const struct net_addr *from) {
  if (r->type != SOCK_DGRAM || r->domain == AF_UNIX || r->dead_host || r->local.port != to->port) return false;
  if (r->domain == AF_INET6 && r->v6only) return false; /* IPv4 datagrams only */
  bool any = net_addr_is_any(&r->local) && (r->domain == AF_INET6 || net_addr_is_v4(&r->local));
  if (!any && memcmp(r->local.ip, to->ip, 16) != 0) return false;
  return !(r->state == SS_CONNECTED && !addr_equal(&r->peer, from));
}

/* A multicast or broadcast datagram: a copy to every socket it reaches,
 * host by host in the order of the port table. */
static void send_many(struct net_sock *s, const struct msghdr *msg, uint64_t len, const struct net_addr *to) {
  struct net_addr from;
  unsigned out = route_many(s, to, &from);
  bool group = is_group(to);
  for (struct net_sock *r = net__bound_list; r; r = r->bound_next) {
    if (!bound_for_many(r, to, &from)) continue;
    bool own_host = r->node == s->node;
    if (out == NET_IFINDEX_LO && !own_host) continue;
    if (out == NET_IFINDEX_NET && group && (own_host ? !s->mc_loop : s->mc_ttl == 0)) continue;
    if (group && !(net_mcast_host_listens(r->node, to, &from, out) && net_mcast_sock_takes(r, to, &from, out)))
      continue;
    deliver(s, r, msg, len, &from);
  }
}

/* The arrived datagram to read next (earliest arrival, then queue order). */
static struct net_dgram *first_arrived(struct net_sock *s, uint64_t now, struct net_dgram ***link) {
  struct net_dgram *best = NULL, **best_link = NULL;
  for (struct net_dgram **p = &s->dq_head; *p; p = &(*p)->next) {
    if ((*p)->at <= now && (best == NULL || (*p)->at < best->at)) {
      best = *p;
      best_link = p;
    }
  }
  if (link) *link = best_link;
  return best;
}

static unsigned arrived_count(const struct net_sock *s, uint64_t now) {
  unsigned n = 0;
  for (const struct net_dgram *d = s->dq_head; d; d = d->next) n += d->at <= now;
  return n;
}

/* Linux's UDP reads from a reader queue, refilled with everything arrived
 * (the receive queue spliced in) when a read finds it empty. */
static void reader_refill(struct net_sock *s, uint64_t now) {
  if (s->domain != AF_UNIX && s->dq_reader_n == 0) s->dq_reader_n = arrived_count(s, now);
}

/* A UDP datagram was read (udp_rmem_release, partial): its charge is
 * given back with the others read before it once they reach a quarter
 * of SO_RCVBUF (forward_threshold) or the reader queue is empty, and
 * the receive queue is spliced in; until then a queue refilled holds
 * fewer. */
static void udp_read_release(struct net_sock *s, const struct net_dgram *d, uint64_t now) {
  if (s->dq_reader_n > 0) s->dq_reader_n--;
  s->dq_deficit += d->truesize;
  if (s->dq_deficit < (uint64_t)s->rcvbuf / 4 && s->dq_reader_n > 0) return;
  CHECK_GE(s->dq_rmem, s->dq_deficit);
  s->dq_rmem -= s->dq_deficit;
  s->dq_deficit = 0;
  s->dq_reader_n = arrived_count(s, now);
}

uint64_t net_udp_first_len(struct net_sock *s, uint64_t now) {
  reader_refill(s, now); /* first_packet_length refills it too */
  struct net_dgram *d = first_arrived(s, now, NULL);
  return d ? d->len : 0;
}

uint32_t net_udp_poll(struct net_sock *s, uint64_t now) {
  uint32_t m = EPOLLOUT | EPOLLWRNORM;
  if (first_arrived(s, now, NULL) != NULL) m |= EPOLLIN | EPOLLRDNORM;
  if (s->so_error || s->errq_head != NULL) m |= EPOLLERR;
  if (s->shut_rd) m |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
  if (s->shut_rd && s->shut_wr) m |= EPOLLHUP;
  return m;
}

uint64_t net_udp_next_change(struct net_sock *s, uint64_t now) {
  uint64_t t = DETSIM_NO_DEADLINE;
  for (struct net_dgram *d = s->dq_head; d; d = d->next)
    if (d->at > now && d->at < t) t = d->at;
  return t;
}

uint64_t net_udp_gen(struct net_sock *s, uint64_t now) {
  uint64_t pending = 0;
  for (struct net_dgram *d = s->dq_head; d; d = d->next) pending += d->at > now;
  return s->dq_pushed - pending;
}

/* SO_RXQ_OVFL's control message (sock_recv_drops through put_cmsg): whole
 * when the buffer has CMSG_SPACE for it, cut (MSG_CTRUNC) when shorter,
 * nothing but MSG_CTRUNC when not even a header fits. */
static void put_dropcount(struct msghdr *msg, size_t cap, uint32_t dropcount) {
  if (cap < sizeof(struct cmsghdr) || msg->msg_control == NULL) {
    msg->msg_flags |= MSG_CTRUNC;
    return;
  }
  size_t len = CMSG_LEN(sizeof dropcount);
  if (cap < len) {
    msg->msg_flags |= MSG_CTRUNC;
    len = cap;
  }
  struct cmsghdr h = { .cmsg_len = len, .cmsg_level = SOL_SOCKET, .cmsg_type = SO_RXQ_OVFL };
  memcpy(msg->msg_control, &h, sizeof h);
  memcpy((char *)msg->msg_control + sizeof h, &dropcount, len - sizeof h);
  size_t space = CMSG_SPACE(sizeof dropcount);
  msg->msg_controllen = space < cap ? space : cap;
}

struct udp_wait { struct net_sock *s; };
static bool udp_ready(void *arg) {
  struct net_sock *s = ((struct udp_wait *)arg)->s;
  /* a datagram, a pending error, a shutdown (not the error queue: a
   * receive without MSG_ERRQUEUE waits past it) */
  return first_arrived(s, detsim__now_ns(), NULL) != NULL || s->so_error || s->shut_rd;
}
static uint64_t udp_next(void *arg) {
  return net_udp_next_change(((struct udp_wait *)arg)->s, detsim__now_ns());
}

ssize_t net_udp_recvmsg(struct net_file *f, struct msghdr *msg, int flags) {
  struct net_sock *s = net_sock_of(f);
  if (flags & MSG_OOB) {
    errno = EOPNOTSUPP;
    return -1;
  }
  bool nonblock = f->nonblock || (flags & MSG_DONTWAIT) || detsim__self() == NULL;
  size_t control_cap = msg->msg_controllen;
  msg->msg_flags = 0;
  msg->msg_controllen = 0;
  if (flags & MSG_ERRQUEUE) return net_udp_errq_recv(s, msg, control_cap); /* never blocks */
  for (;;) {
    uint64_t now = detsim__now_ns();
    /* A pending error comes before any datagram (Linux's __skb_recv_udp). */
    if (s->so_error && s->domain != AF_UNIX) {
      errno = net__sock_take_error(s);
      return -1;
    }
    if (!(flags & MSG_PEEK)) reader_refill(s, now);
    struct net_dgram **link;
    struct net_dgram *d = first_arrived(s, now, &link);
    if (d != NULL) {
      detsim__hb_acquire(s);
      uint64_t want = net_iov_total(msg->msg_iov, (int)msg->msg_iovlen);
      uint64_t n = d->len < want ? d->len : want, off = 0;
      for (size_t i = 0; i < msg->msg_iovlen && off < n; i++) {
        uint64_t k = msg->msg_iov[i].iov_len < n - off ? msg->msg_iov[i].iov_len : n - off;
        memcpy(msg->msg_iov[i].iov_base, d->data + off, k);
        off += k;
      }
      if (d->len > want) msg->msg_flags |= MSG_TRUNC;
      if (s->rxq_ovfl && d->dropcount != 0) put_dropcount(msg, control_cap, d->dropcount);
      /* A unix sender without a name has none to report (length 0). */
      if (msg->msg_name != NULL && !(s->domain == AF_UNIX && d->from.path_len == 0))
        net_addr_to(s->domain, &d->from, msg->msg_name, &msg->msg_namelen);
      else msg->msg_namelen = 0;
      ssize_t r = (ssize_t)((flags & MSG_TRUNC) ? d->len : n);
      /* Its descriptors come with it (a peek installs copies). */
      if (d->scm != NULL) {
        net_scm_deliver(d->scm, msg, control_cap, flags);
        if (!(flags & MSG_PEEK)) {
          d->scm = NULL;
          s->scm_queued--;
        }
      }
      if (!(flags & MSG_PEEK)) {
        *link = d->next;
        if (s->dq_tail == d) {
          s->dq_tail = NULL;
          for (struct net_dgram *x = s->dq_head; x; x = x->next) s->dq_tail = x;
        }
        s->dq_bytes -= d->len;
        s->dq_taken++;
        if (s->domain == AF_UNIX) net__dgram_uncharge(s, d);
        else udp_read_release(s, d, now);
        detsim__net_free(d);
      }
      return r;
    }
    if (s->so_error) {
      errno = net__sock_take_error(s);
      return -1;
    }
    if (s->shut_rd) return 0;
    if (nonblock) {
      errno = EAGAIN;
      return -1;
    }
    struct udp_wait w = { s };
    uint64_t deadline = s->rcvtimeo_ns ? detsim__deadline_after_ns(s->rcvtimeo_ns) : DETSIM_NO_DEADLINE;
    int wr = net_wait(DETSIM_EV_net_recv, f, udp_ready, udp_next, &w, deadline);
    if (wr != 0) {
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

void net__dgram_uncharge(struct net_sock *r, struct net_dgram *d) {
  if (d->owner != NULL) {
    /* sock_wfree: the unix sender's charge goes back, and a send waiting
     * for it (maybe in another process of the host) looks again. */
    CHECK_GE(d->owner->wmem, d->truesize);
    d->owner->wmem -= d->truesize;
    if (d->owner->file != NULL) net_wake_file(d->owner->file);
    d->owner = NULL;
  } else if (r->domain != AF_UNIX) {
    CHECK_GE(r->dq_rmem, d->truesize);
    r->dq_rmem -= d->truesize;
  }
}

void net_udp_release(struct net_sock *s) {
  struct net_dgram *d = s->dq_head;
  while (d) {
    struct net_dgram *next = d->next;
    net_scm_release(d->scm); /* never received: its references go back */
    net__dgram_uncharge(s, d);
    detsim__net_free(d);
    d = next;
  }
  s->dq_head = s->dq_tail = NULL;
  s->dq_bytes = 0;
  s->dq_rmem = s->dq_deficit = 0;
  s->dq_reader_n = 0;
  s->scm_queued = 0;
  net_udp_errq_purge(s);
}
