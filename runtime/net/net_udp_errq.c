/* ICMP port unreachable for UDP, and the socket error queue
 * (IP_RECVERR, IPV6_RECVERR, recvmsg(MSG_ERRQUEUE)) as Linux keeps them.
 *
 * A datagram to a port of a live host that nobody is bound to is answered
 * by an ICMP port unreachable, at once (as loopback answers within the
 * send).  The socket hears it if it is connected or has the RECVERR
 * option of the datagram's family: its pending error becomes
 * ECONNREFUSED (the next send or receive fails with it, poll says
 * POLLERR).  With the option the error is also queued: recvmsg with
 * MSG_ERRQUEUE returns the datagram's payload (what an ICMP error quotes:
 * 520 bytes of an IPv4 datagram, 1184 of an IPv6 one), its destination as
 * the name, MSG_ERRQUEUE in the flags, and a control message
 * (IP_RECVERR or, on an IPv6 socket, IPV6_RECVERR) holding the
 * sock_extended_err with the offender's address; an empty queue is
 * EAGAIN.  Taking an error sets the pending error as Linux's
 * sock_dequeue_err_skb does: 0 when the queue empties, else the next
 * error's origin (a quirk of the kernel's, kept).  Queued errors count
 * against the receive buffer; turning the option off empties the queue.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>

#include "core/core.h"
#include "net/net.h"

/* What an ICMP error quotes of the datagram's payload: the error fits in
 * 576 bytes over IPv4 (less the IP and ICMP headers and the quoted IP and
 * UDP headers), in IPv6's minimum MTU of 1280 over IPv6. */
#define QUOTED_V4 (576 - 20 - 8 - 20 - 8)
#define QUOTED_V6 (1280 - 40 - 8 - 40 - 8)

struct net_errq {
  struct net_errq *next;
  struct net_addr dest;         /* the datagram's destination, the offender */
  bool icmp6;                   /* an ICMPv6 error (the datagram was IPv6) */
  size_t len;
  uint8_t data[];
};

static void push(struct net_sock *s, const struct msghdr *msg, uint64_t len, const struct net_addr *to) {
  bool v6 = !net_addr_is_v4(to);
  size_t quoted = (size_t)(len < (v6 ? QUOTED_V6 : QUOTED_V4) ? len : (v6 ? QUOTED_V6 : QUOTED_V4));
  /* sock_queue_err_skb: charged to the receive buffer, dropped past it */
  if (s->dq_bytes + s->errq_bytes + quoted > detsim__opt.net_buffer_bytes) return;
  struct net_errq *e = detsim__net_malloc(sizeof *e + quoted);
  CHECK(e != NULL);
  e->next = NULL;
  e->dest = *to;
  e->icmp6 = v6;
  e->len = quoted;
  size_t off = 0;
  for (size_t i = 0; i < msg->msg_iovlen && off < quoted; i++) {
    size_t k = msg->msg_iov[i].iov_len < quoted - off ? msg->msg_iov[i].iov_len : quoted - off;
    memcpy(e->data + off, msg->msg_iov[i].iov_base, k);
    off += k;
  }
  if (s->errq_tail) s->errq_tail->next = e;
  else s->errq_head = e;
  s->errq_tail = e;
  s->errq_bytes += quoted;
}

void net_udp_port_unreachable(struct net_sock *s, const struct msghdr *msg, uint64_t len, const struct net_addr *to) {
  bool recverr = net_addr_is_v4(to) ? s->recverr : s->recverr6;
  if (s->state != SS_CONNECTED && !recverr) return; /* an unconnected socket hears it only so */
  s->so_error = ECONNREFUSED;
  if (recverr) push(s, msg, len, to);
  if (s->file != NULL) net_wake_file(s->file);
}

void net_udp_errq_purge(struct net_sock *s) {
  struct net_errq *e = s->errq_head;
  while (e) {
    struct net_errq *next = e->next;
    detsim__net_free(e);
    e = next;
  }
  s->errq_head = s->errq_tail = NULL;
  s->errq_bytes = 0;
}

/* Linux's put_cmsg: the header and what fits, MSG_CTRUNC for the rest. */
static void put_cmsg(struct msghdr *msg, size_t cap, int level, int type, const void *data, size_t len) {
  if (msg->msg_control == NULL || cap < sizeof(struct cmsghdr)) {
    msg->msg_flags |= MSG_CTRUNC;
    return;
  }
  size_t cmlen = CMSG_LEN(len);
  if (cap < cmlen) {
    msg->msg_flags |= MSG_CTRUNC;
    cmlen = cap;
  }
  struct cmsghdr h = { .cmsg_len = cmlen, .cmsg_level = level, .cmsg_type = type };
  memcpy(msg->msg_control, &h, sizeof h);
  memcpy(CMSG_DATA((struct cmsghdr *)msg->msg_control), data, cmlen - CMSG_LEN(0));
  msg->msg_controllen = CMSG_SPACE(len) < cap ? CMSG_SPACE(len) : cap;
}

ssize_t net_udp_errq_recv(struct net_sock *s, struct msghdr *msg, size_t control_cap) {
  struct net_errq *e = s->errq_head;
  if (e == NULL) {
    errno = EAGAIN;
    return -1;
  }
  uint64_t want = net_iov_total(msg->msg_iov, (int)msg->msg_iovlen);
  size_t n = e->len < want ? e->len : (size_t)want, off = 0;
  for (size_t i = 0; i < msg->msg_iovlen && off < n; i++) {
    size_t k = msg->msg_iov[i].iov_len < n - off ? msg->msg_iov[i].iov_len : n - off;
    memcpy(msg->msg_iov[i].iov_base, e->data + off, k);
    off += k;
  }
  if (e->len > want) msg->msg_flags |= MSG_TRUNC;
  msg->msg_flags |= MSG_ERRQUEUE;
  if (msg->msg_name != NULL) net_addr_to(s->domain, &e->dest, msg->msg_name, &msg->msg_namelen);
  /* The extended error, then the offender (the host that answered). */
  struct {
    struct sock_extended_err ee;
    struct sockaddr_in6 offender; /* or a sockaddr_in */
  } err;
  memset(&err, 0, sizeof err);
  err.ee.ee_errno = ECONNREFUSED;
  err.ee.ee_origin = e->icmp6 ? SO_EE_ORIGIN_ICMP6 : SO_EE_ORIGIN_ICMP;
  err.ee.ee_type = e->icmp6 ? ICMPV6_DEST_UNREACH : ICMP_DEST_UNREACH;
  err.ee.ee_code = e->icmp6 ? ICMPV6_PORT_UNREACH : ICMP_PORT_UNREACH;
  struct net_addr offender = e->dest;
  offender.port = 0;
  socklen_t olen = s->domain == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
  net_addr_to(s->domain, &offender, (struct sockaddr *)&err.offender, &olen);
  if (s->domain == AF_INET6) put_cmsg(msg, control_cap, SOL_IPV6, IPV6_RECVERR, &err, sizeof err.ee + olen);
  else put_cmsg(msg, control_cap, SOL_IP, IP_RECVERR, &err, sizeof err.ee + olen);
  s->errq_head = e->next;
  if (s->errq_tail == e) s->errq_tail = NULL;
  s->errq_bytes -= e->len;
  s->so_error = s->errq_head == NULL ? 0 : (s->errq_head->icmp6 ? SO_EE_ORIGIN_ICMP6 : SO_EE_ORIGIN_ICMP);
  detsim__net_free(e);
  return (ssize_t)n;
}
