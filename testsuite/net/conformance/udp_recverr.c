/* Rule: IP_RECVERR and IPV6_RECVERR on UDP: a datagram to a port nobody
 * is bound to comes back as an ICMP port unreachable, which an
 * unconnected socket hears only with the option: POLLERR, the next
 * receive fails with ECONNREFUSED, and recvmsg(MSG_ERRQUEUE) returns the
 * datagram (its payload, cut to what an ICMP error quotes), its
 * destination as the name, and a sock_extended_err (origin ICMP,
 * type/code port unreachable, the offender's address) as a control
 * message; an empty error queue is EAGAIN.  Without the option an
 * unconnected socket hears nothing. */
#include "conf.h"

#include <time.h>
#include <linux/errqueue.h>

static in_port_t dest_port;

static void show_err(const char *label, int s, int v6) {
  char payload[2048];
  char control[512];
  struct sockaddr_storage name;
  struct iovec iov = { payload, sizeof payload };
  struct msghdr m = { .msg_name = &name, .msg_namelen = sizeof name, .msg_iov = &iov, .msg_iovlen = 1,
                      .msg_control = control, .msg_controllen = sizeof control };
  errno = 0;
  ssize_t n = recvmsg(s, &m, MSG_ERRQUEUE);
  if (n < 0) {
    printf("%s=-1 %s\n", label, ename(errno));
    return;
  }
  printf("%s=%zd errqueue=%d trunc=%d ctrunc=%d namelen=%u", label, n, (m.msg_flags & MSG_ERRQUEUE) != 0,
         (m.msg_flags & MSG_TRUNC) != 0, (m.msg_flags & MSG_CTRUNC) != 0, (unsigned)m.msg_namelen);
  char text[INET6_ADDRSTRLEN];
  if (name.ss_family == AF_INET)
    printf(" name=%s name_port_is_dest=%d", inet_ntop(AF_INET, &((struct sockaddr_in *)&name)->sin_addr, text, sizeof text),
           ((struct sockaddr_in *)&name)->sin_port == dest_port);
  else
    printf(" name=%s name_port_is_dest=%d",
           inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&name)->sin6_addr, text, sizeof text),
           ((struct sockaddr_in6 *)&name)->sin6_port == dest_port);
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    printf(" cmsg=%d/%d len=%zu", c->cmsg_level, c->cmsg_type, (size_t)c->cmsg_len);
    if (!((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
          (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)))
      continue;
    struct sock_extended_err *e = (struct sock_extended_err *)CMSG_DATA(c);
    printf(" ee_errno=%s origin=%u type=%u code=%u info=%u data=%u", ename((int)e->ee_errno), e->ee_origin,
           e->ee_type, e->ee_code, e->ee_info, e->ee_data);
    struct sockaddr *off = SO_EE_OFFENDER(e);
    if (off->sa_family == AF_INET)
      printf(" offender=%s:%u", inet_ntop(AF_INET, &((struct sockaddr_in *)off)->sin_addr, text, sizeof text),
             ntohs(((struct sockaddr_in *)off)->sin_port));
    else
      printf(" offender=%s:%u", inet_ntop(AF_INET6, &((struct sockaddr_in6 *)off)->sin6_addr, text, sizeof text),
             ntohs(((struct sockaddr_in6 *)off)->sin6_port));
  }
  if (n >= 4) printf(" data=%.4s", payload);
  printf("\n");
  fflush(stdout);
  (void)v6;
}

static void show_poll(const char *label, int s) {
  settle();
  struct pollfd p = { s, POLLIN | POLLOUT, 0 };
  poll(&p, 1, 0);
  show_revents(label, p.revents);
}

static uint16_t free_port4(void) {
  /* A port nobody is bound to: bind one, read it, close it. */
  int t = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  MUST(bind(t, (struct sockaddr *)&a, sizeof a) == 0);
  socklen_t len = sizeof a;
  getsockname(t, (struct sockaddr *)&a, &len);
  close(t);
  return a.sin_port;
}

int main(void) {
  struct sockaddr_in nobody = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  nobody.sin_port = free_port4();
  dest_port = nobody.sin_port;

  /* Without IP_RECVERR an unconnected socket hears nothing. */
  int quiet = socket(AF_INET, SOCK_DGRAM, 0);
  SHOW("quiet_send", sendto(quiet, "PING", 4, 0, (struct sockaddr *)&nobody, sizeof nobody));
  show_poll("quiet_poll", quiet);
  char buf[64];
  SHOW("quiet_recv", recv(quiet, buf, sizeof buf, MSG_DONTWAIT));
  show_err("quiet_errqueue", quiet, 0);

  int s = socket(AF_INET, SOCK_DGRAM, 0);
  int one = 1, v = 0;
  SHOW("recverr_on", setsockopt(s, IPPROTO_IP, IP_RECVERR, &one, sizeof one));
  socklen_t len = sizeof v;
  getsockopt(s, IPPROTO_IP, IP_RECVERR, &v, &len);
  printf("recverr=%d\n", v);
  show_err("empty_errqueue", s, 0);
  SHOW("send", sendto(s, "PING", 4, 0, (struct sockaddr *)&nobody, sizeof nobody));
  show_poll("poll_after", s);
  SHOW("recv_error", recv(s, buf, sizeof buf, MSG_DONTWAIT));
  show_poll("poll_after_recv", s);
  show_err("errqueue", s, 0);
  show_poll("poll_after_errqueue", s);
  show_err("errqueue_again", s, 0);
  /* Two errors: SO_ERROR reads the first, the queue holds both. */
  SHOW("send2", sendto(s, "ABCD", 4, 0, (struct sockaddr *)&nobody, sizeof nobody));
  SHOW("send3", sendto(s, "EFGH", 4, 0, (struct sockaddr *)&nobody, sizeof nobody));
  settle();
  int err = -1;
  len = sizeof err;
  getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
  printf("so_error=%s\n", err ? ename(err) : "0");
  show_poll("poll_queue_only", s);
  show_err("errqueue_first", s, 0);
  len = sizeof err;
  getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
  printf("so_error_after_first=%d\n", err);
  show_err("errqueue_second", s, 0);
  show_poll("poll_drained", s);
  /* A long datagram: the error quotes only its beginning. */
  char big[1500];
  memset(big, 'x', sizeof big);
  memcpy(big, "LONG", 4);
  SHOW("send_long", sendto(s, big, sizeof big, 0, (struct sockaddr *)&nobody, sizeof nobody));
  settle();
  recv(s, buf, sizeof buf, MSG_DONTWAIT);
  show_err("errqueue_long", s, 0);
  /* A short control buffer: MSG_CTRUNC. */
  SHOW("send4", sendto(s, "CTRL", 4, 0, (struct sockaddr *)&nobody, sizeof nobody));
  settle();
  recv(s, buf, sizeof buf, MSG_DONTWAIT);
  {
    char payload[16], control[8];
    struct iovec iov = { payload, sizeof payload };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control };
    ssize_t n = recvmsg(s, &m, MSG_ERRQUEUE);
    printf("short_control=%zd ctrunc=%d controllen=%zu\n", n, (m.msg_flags & MSG_CTRUNC) != 0,
           (size_t)m.msg_controllen);
  }
  close(s);

  /* IPv6 on ::1. */
  int t = socket(AF_INET6, SOCK_DGRAM, 0);
  struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
  MUST(bind(t, (struct sockaddr *)&a6, sizeof a6) == 0);
  len = sizeof a6;
  getsockname(t, (struct sockaddr *)&a6, &len);
  close(t);
  dest_port = a6.sin6_port;
  int s6 = socket(AF_INET6, SOCK_DGRAM, 0);
  SHOW("recverr6_on", setsockopt(s6, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof one));
  SHOW("send6", sendto(s6, "SIX!", 4, 0, (struct sockaddr *)&a6, sizeof a6));
  show_poll("poll6", s6);
  SHOW("recv6_error", recv(s6, buf, sizeof buf, MSG_DONTWAIT));
  show_err("errqueue6", s6, 1);
  close(s6);
  return 0;
}
