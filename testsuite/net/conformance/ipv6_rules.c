/* Rule: IPv6 as Linux answers it on the loopback: bind and connect with
 * every kind of address (::1, ::, v4-mapped, link-local and multicast
 * with and without a scope id, addresses the host does not have, short
 * and wrong-family sockaddrs), IPV6_V6ONLY on and off for UDP and TCP
 * (who binds the same port, who receives, v4-mapped destinations),
 * getsockname/getpeername/recvfrom names (v4-mapped, scope ids, flow
 * info), and getaddrinfo of "::1", "::ffff:127.0.0.1", scoped addresses
 * and the wildcard with AI_PASSIVE and AI_V4MAPPED (not "localhost":
 * the host's /etc/hosts decides whether it has an IPv6 address). */
#include <net/if.h>
#include <netdb.h>

#include "conf.h"

static struct sockaddr_in6 a6(const char *addr, uint16_t port, uint32_t scope) {
  struct sockaddr_in6 a;
  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_port = port;
  a.sin6_scope_id = scope;
  inet_pton(AF_INET6, addr, &a.sin6_addr);
  return a;
}

static struct sockaddr_in a4(const char *addr, uint16_t port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = port;
  inet_pton(AF_INET, addr, &a.sin_addr);
  return a;
}

static void show_name(const char *label, const struct sockaddr_storage *ss, socklen_t len) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    printf("%s=[%s] len=%u scope=%u flow=%u port_set=%d\n", label, text, (unsigned)len, a->sin6_scope_id,
           a->sin6_flowinfo, a->sin6_port != 0);
  } else if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    printf("%s=%s len=%u port_set=%d\n", label, text, (unsigned)len, a->sin_port != 0);
  } else {
    printf("%s=family%d len=%u\n", label, ss->ss_family, (unsigned)len);
  }
  fflush(stdout);
}

static void name_of(const char *label, int s, int peer) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t len = sizeof ss;
  int r = peer ? getpeername(s, (struct sockaddr *)&ss, &len) : getsockname(s, (struct sockaddr *)&ss, &len);
  if (r < 0) {
    printf("%s=-1 %s\n", label, ename(errno));
    return;
  }
  show_name(label, &ss, len);
}

static int sock6(int type, int v6only) {
  int s = socket(AF_INET6, type, 0);
  if (v6only >= 0) MUST(setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) == 0);
  return s;
}

static uint16_t port_of(int s) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  getsockname(s, (struct sockaddr *)&ss, &len);
  return ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port;
}

#define BIND6(label, s, addr, port, scope) \
  do { \
    struct sockaddr_in6 x_ = a6(addr, port, scope); \
    SHOW(label, bind(s, (struct sockaddr *)&x_, sizeof x_)); \
  } while (0)

static void binds(void) {
  int s;
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_loopback", s, "::1", 0, 0);
  name_of("bound_loopback", s, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_loopback_with_scope", s, "::1", 0, 1);
  name_of("bound_loopback_with_scope", s, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_mapped_loopback", s, "::ffff:127.0.0.1", 0, 0);
  name_of("bound_mapped_loopback", s, 0);
  close(s);
  s = sock6(SOCK_DGRAM, 1);
  BIND6("bind_mapped_v6only", s, "::ffff:127.0.0.1", 0, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_mapped_any", s, "::ffff:0.0.0.0", 0, 0);
  name_of("bound_mapped_any", s, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_mapped_remote", s, "::ffff:192.0.2.77", 0, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_not_ours", s, "2001:db8::1", 0, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_link_local_no_scope", s, "fe80::1", 0, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_link_local_lo", s, "fe80::1", 0, 1);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_link_local_bad_scope", s, "fe80::1", 0, 9999);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_multicast_global", s, "ff0e::1", 0, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_multicast_link_no_scope", s, "ff02::1", 0, 0);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_multicast_link_lo", s, "ff02::1", 0, 1);
  close(s);
  s = sock6(SOCK_DGRAM, -1);
  BIND6("bind_v4_compat", s, "::127.0.0.1", 0, 0);
  close(s);
  s = sock6(SOCK_STREAM, -1);
  struct sockaddr_in v4 = a4("127.0.0.1", 0);
  SHOW("bind_sockaddr_in_on_v6", bind(s, (struct sockaddr *)&v4, sizeof v4));
  struct sockaddr_in6 short6 = a6("::1", 0, 0);
  SHOW("bind_short_sockaddr_in6", bind(s, (struct sockaddr *)&short6, 23));
  SHOW("bind_rfc2133_length", bind(s, (struct sockaddr *)&short6, 24));
  close(s);
  s = sock6(SOCK_STREAM, -1);
  struct sockaddr_in6 fam = a6("::1", 0, 0);
  fam.sin6_family = AF_INET;
  SHOW("bind_family_inet_len_in6", bind(s, (struct sockaddr *)&fam, sizeof fam));
  close(s);
  s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in6 six = a6("::1", 0, 0);
  SHOW("bind_in6_on_v4", bind(s, (struct sockaddr *)&six, sizeof six));
  close(s);
}

/* Who shares a port: a v6-only wildcard and a v4 wildcard may; a dual
 * one and a v4 one may not. */
static void port_sharing(void) {
  int d = sock6(SOCK_DGRAM, 0);
  BIND6("dual_bind", d, "::", 0, 0);
  uint16_t port = port_of(d);
  int v4 = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in any4 = a4("0.0.0.0", port), lo4 = a4("127.0.0.1", port);
  SHOW("v4_any_on_dual_port", bind(v4, (struct sockaddr *)&any4, sizeof any4));
  SHOW("v4_lo_on_dual_port", bind(v4, (struct sockaddr *)&lo4, sizeof lo4));
  close(v4);
  int o = sock6(SOCK_DGRAM, 0);
  BIND6("dual_again", o, "::", port, 0);
  close(o);
  o = sock6(SOCK_DGRAM, 1);
  BIND6("v6only_on_dual_port", o, "::", port, 0);
  close(o);
  close(d);

  int v = sock6(SOCK_DGRAM, 1);
  BIND6("v6only_bind", v, "::", 0, 0);
  port = port_of(v);
  v4 = socket(AF_INET, SOCK_DGRAM, 0);
  any4 = a4("0.0.0.0", port);
  SHOW("v4_any_on_v6only_port", bind(v4, (struct sockaddr *)&any4, sizeof any4));
  o = sock6(SOCK_DGRAM, 0);
  BIND6("dual_on_shared_port", o, "::", port, 0);
  close(o);
  o = sock6(SOCK_DGRAM, 0);
  BIND6("mapped_on_shared_port", o, "::ffff:127.0.0.1", port, 0);
  close(o);
  o = sock6(SOCK_DGRAM, -1);
  BIND6("loopback6_on_shared_port", o, "::1", port, 0);
  close(o);

  /* Datagrams: v4 to the port reaches the v4 socket, v6 the v6-only one. */
  int c4 = socket(AF_INET, SOCK_DGRAM, 0), c6 = sock6(SOCK_DGRAM, -1);
  struct sockaddr_in to4 = a4("127.0.0.1", port);
  struct sockaddr_in6 to6 = a6("::1", port, 0), tomapped = a6("::ffff:127.0.0.1", port, 0);
  SHOW("send_v4", sendto(c4, "four", 4, 0, (struct sockaddr *)&to4, sizeof to4));
  SHOW("send_v6", sendto(c6, "six", 3, 0, (struct sockaddr *)&to6, sizeof to6));
  SHOW("send_mapped_from_dual", sendto(c6, "map", 3, 0, (struct sockaddr *)&tomapped, sizeof tomapped));
  int c6only = sock6(SOCK_DGRAM, 1);
  SHOW("send_mapped_from_v6only", sendto(c6only, "no", 2, 0, (struct sockaddr *)&tomapped, sizeof tomapped));
  SHOW("send_sockaddr_in_from_dual", sendto(c6, "in4", 3, 0, (struct sockaddr *)&to4, sizeof to4));
  SHOW("send_sockaddr_in_from_v6only", sendto(c6only, "in4", 3, 0, (struct sockaddr *)&to4, sizeof to4));
  SHOW("send_in6_from_v4", sendto(c4, "x", 1, 0, (struct sockaddr *)&to6, sizeof to6));
  settle();
  char buf[16];
  struct sockaddr_storage from;
  socklen_t len;
  for (int round = 0; round < 3; round++) {
    memset(buf, 0, sizeof buf);
    len = sizeof from;
    ssize_t n = recvfrom(v4, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &len);
    if (n < 0) break;
    printf("v4_got=%s ", buf);
    show_name("from", &from, len);
  }
  for (int round = 0; round < 3; round++) {
    memset(buf, 0, sizeof buf);
    len = sizeof from;
    ssize_t n = recvfrom(v, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &len);
    if (n < 0) break;
    printf("v6only_got=%s ", buf);
    show_name("from", &from, len);
  }
  name_of("dual_sender_name", c6, 0);
  close(c4);
  close(c6);
  close(c6only);
  close(v4);
  close(v);

  /* A dual socket hears IPv4 as v4-mapped, with a short name buffer too. */
  d = sock6(SOCK_DGRAM, 0);
  BIND6("dual_bind2", d, "::", 0, 0);
  port = port_of(d);
  c4 = socket(AF_INET, SOCK_DGRAM, 0);
  to4 = a4("127.0.0.1", port);
  sendto(c4, "m1", 2, 0, (struct sockaddr *)&to4, sizeof to4);
  sendto(c4, "m2", 2, 0, (struct sockaddr *)&to4, sizeof to4);
  settle();
  len = sizeof from;
  memset(&from, 0, sizeof from);
  recvfrom(d, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
  show_name("dual_from_v4", &from, len);
  struct sockaddr_in small;
  len = sizeof small;
  recvfrom(d, buf, sizeof buf, 0, (struct sockaddr *)&small, &len);
  printf("dual_from_short_buffer_len=%u\n", (unsigned)len);
  close(c4);
  close(d);
}

static void connects(void) {
  /* TCP to ::1, v4-mapped, and a v6-only socket to a v4-mapped address. */
  int l = sock6(SOCK_STREAM, 0);
  BIND6("tcp_dual_bind", l, "::", 0, 0);
  SHOW("tcp_listen", listen(l, 8));
  uint16_t port = port_of(l);
  int c = sock6(SOCK_STREAM, -1);
  struct sockaddr_in6 to = a6("::ffff:127.0.0.1", port, 0);
  SHOW("tcp_connect_mapped", connect(c, (struct sockaddr *)&to, sizeof to));
  name_of("tcp_mapped_local", c, 0);
  name_of("tcp_mapped_peer", c, 1);
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int a = accept(l, (struct sockaddr *)&ss, &len);
  show_name("tcp_accepted_peer", &ss, len);
  close(a);
  close(c);
  c = sock6(SOCK_STREAM, 1);
  SHOW("tcp_v6only_connect_mapped", connect(c, (struct sockaddr *)&to, sizeof to));
  close(c);
  c = sock6(SOCK_STREAM, -1);
  struct sockaddr_in to4 = a4("127.0.0.1", port);
  SHOW("tcp_connect_sockaddr_in", connect(c, (struct sockaddr *)&to4, sizeof to4));
  close(c);
  c = sock6(SOCK_STREAM, -1);
  struct sockaddr_in6 scoped = a6("::1", port, 1);
  SHOW("tcp_connect_loopback_scope", connect(c, (struct sockaddr *)&scoped, sizeof scoped));
  name_of("tcp_scoped_peer", c, 1);
  close(c);
  c = sock6(SOCK_STREAM, -1);
  struct sockaddr_in6 any = a6("::", port, 0);
  SHOW("tcp_connect_any", connect(c, (struct sockaddr *)&any, sizeof any));
  name_of("tcp_any_peer", c, 1);
  name_of("tcp_any_local", c, 0);
  close(c);
  c = sock6(SOCK_STREAM, -1);
  struct sockaddr_in6 ll = a6("fe80::1", port, 0);
  SHOW("tcp_connect_link_local_no_scope", connect(c, (struct sockaddr *)&ll, sizeof ll));
  close(c);
  close(l);

  /* UDP connect: v4-mapped, AF_INET on a dual socket, the wildcard. */
  int u = sock6(SOCK_DGRAM, 0);
  BIND6("udp_bind", u, "::", 0, 0);
  port = port_of(u);
  int k = sock6(SOCK_DGRAM, -1);
  to = a6("::ffff:127.0.0.1", port, 0);
  SHOW("udp_connect_mapped", connect(k, (struct sockaddr *)&to, sizeof to));
  name_of("udp_connect_mapped_local", k, 0);
  close(k);
  k = sock6(SOCK_DGRAM, -1);
  to4 = a4("127.0.0.1", port);
  SHOW("udp_connect_sockaddr_in", connect(k, (struct sockaddr *)&to4, sizeof to4));
  name_of("udp_connect_sockaddr_in_local", k, 0);
  name_of("udp_connect_sockaddr_in_peer", k, 1);
  close(k);
  k = sock6(SOCK_DGRAM, 1);
  SHOW("udp_v6only_connect_sockaddr_in", connect(k, (struct sockaddr *)&to4, sizeof to4));
  SHOW("udp_v6only_connect_mapped", connect(k, (struct sockaddr *)&to, sizeof to));
  close(k);
  k = sock6(SOCK_DGRAM, -1);
  struct sockaddr_in6 any6 = a6("::", port, 0);
  SHOW("udp_connect_any", connect(k, (struct sockaddr *)&any6, sizeof any6));
  name_of("udp_connect_any_peer", k, 1);
  close(k);
  close(u);
}

static void lookups(void) {
  struct {
    const char *node;
    int family, flags;
  } q[] = {
    { "::1", AF_UNSPEC, 0 },
    { "::1", AF_INET, 0 },
    { "::1", AF_INET6, AI_NUMERICHOST },
    { "::ffff:127.0.0.1", AF_UNSPEC, 0 },
    { "127.0.0.1", AF_INET6, 0 },
    { "127.0.0.1", AF_INET6, AI_V4MAPPED },
    { "fe80::1%lo", AF_INET6, AI_NUMERICHOST },
    { "fe80::1%1", AF_INET6, AI_NUMERICHOST },
    { "fe80::1%nosuchif", AF_INET6, AI_NUMERICHOST },
    { NULL, AF_INET6, AI_PASSIVE },
    { NULL, AF_INET6, 0 },
    { "::", AF_INET6, 0 },
    { "[::1]", AF_INET6, AI_NUMERICHOST },
  };
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
    struct addrinfo hints, *res;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = q[i].family;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = q[i].flags;
    int e = getaddrinfo(q[i].node, "80", &hints, &res);
    printf("gai %s family=%d flags=%d:", q[i].node ? q[i].node : "NULL", q[i].family, q[i].flags);
    if (e != 0) {
      printf(" error=%d\n", e);
      continue;
    }
    for (struct addrinfo *r = res; r; r = r->ai_next) {
      char text[INET6_ADDRSTRLEN];
      if (r->ai_family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)r->ai_addr;
        printf(" [%s]:%u%%%u/len%u", inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text), ntohs(a->sin6_port),
               a->sin6_scope_id, (unsigned)r->ai_addrlen);
      } else {
        struct sockaddr_in *a = (struct sockaddr_in *)r->ai_addr;
        printf(" %s:%u/len%u", inet_ntop(AF_INET, &a->sin_addr, text, sizeof text), ntohs(a->sin_port),
               (unsigned)r->ai_addrlen);
      }
    }
    printf("\n");
    freeaddrinfo(res);
  }
  /* getnameinfo back, numeric and named. */
  struct sockaddr_in6 one = a6("::1", htons(80), 0);
  char host[64], serv[16];
  int e = getnameinfo((struct sockaddr *)&one, sizeof one, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV);
  printf("gni_numeric=%d %s %s\n", e, e ? "" : host, e ? "" : serv);
  struct sockaddr_in6 scoped = a6("fe80::1", htons(80), 1);
  e = getnameinfo((struct sockaddr *)&scoped, sizeof scoped, host, sizeof host, NULL, 0, NI_NUMERICHOST);
  printf("gni_scoped=%d %s\n", e, e ? "" : host);
}

int main(void) {
  binds();
  port_sharing();
  connects();
  lookups();
  return 0;
}
