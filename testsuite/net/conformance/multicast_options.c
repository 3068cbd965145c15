/* Rule: the multicast socket options as Linux answers them, on the
 * loopback interface only (lo is index 1 in every network namespace; an
 * interface chosen by the route, INADDR_ANY, would depend on the host):
 * IP_ADD/DROP_MEMBERSHIP with ip_mreq and ip_mreqn (EINVAL for a group
 * that is not multicast or a short option, EADDRINUSE for a double join,
 * EADDRNOTAVAIL for a drop of a group not joined, ENODEV for an interface
 * that does not exist, EPROTO on TCP), the source-specific forms and
 * their mode rules, MCAST_JOIN/LEAVE_GROUP, IP_MULTICAST_TTL/LOOP/IF/ALL
 * with their defaults, char-sized values and ranges, IP_TTL's -1, and the
 * IPv6 forms (IPV6_JOIN/LEAVE_GROUP, IPV6_MULTICAST_HOPS/LOOP/IF,
 * MCAST_JOIN_SOURCE_GROUP), ENOPROTOOPT for the wrong level. */
#include <net/if.h>

#include "conf.h"

static void get_int(const char *label, int fd, int level, int name, socklen_t cap) {
  unsigned char buf[8];
  memset(buf, 0xee, sizeof buf);
  socklen_t len = cap;
  errno = 0;
  if (getsockopt(fd, level, name, buf, &len) < 0) {
    printf("%s=-1 %s\n", label, ename(errno));
    return;
  }
  int v = 0;
  if (len >= 4) memcpy(&v, buf, 4);
  else if (len >= 1) v = buf[0];
  printf("%s=%d len=%u\n", label, v, (unsigned)len);
}

static void set_int(const char *label, int fd, int level, int name, int v, socklen_t len) {
  unsigned char c = (unsigned char)v;
  SHOW(label, setsockopt(fd, level, name, len == 1 ? (void *)&c : (void *)&v, len));
}

static struct ip_mreq mreq(const char *group, const char *iface) {
  struct ip_mreq m;
  memset(&m, 0, sizeof m);
  inet_pton(AF_INET, group, &m.imr_multiaddr);
  inet_pton(AF_INET, iface, &m.imr_interface);
  return m;
}

static struct ip_mreqn mreqn(const char *group, const char *addr, int ifindex) {
  struct ip_mreqn m;
  memset(&m, 0, sizeof m);
  inet_pton(AF_INET, group, &m.imr_multiaddr);
  inet_pton(AF_INET, addr, &m.imr_address);
  m.imr_ifindex = ifindex;
  return m;
}

static struct ip_mreq_source msource(const char *group, const char *iface, const char *source) {
  struct ip_mreq_source m;
  memset(&m, 0, sizeof m);
  inet_pton(AF_INET, group, &m.imr_multiaddr);
  inet_pton(AF_INET, iface, &m.imr_interface);
  inet_pton(AF_INET, source, &m.imr_sourceaddr);
  return m;
}

static struct group_req greq4(const char *group, unsigned ifindex) {
  struct group_req g;
  memset(&g, 0, sizeof g);
  g.gr_interface = ifindex;
  struct sockaddr_in *a = (struct sockaddr_in *)&g.gr_group;
  a->sin_family = AF_INET;
  inet_pton(AF_INET, group, &a->sin_addr);
  return g;
}

static struct group_source_req gsreq(int family, const char *group, const char *source, unsigned ifindex) {
  struct group_source_req g;
  memset(&g, 0, sizeof g);
  g.gsr_interface = ifindex;
  if (family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&g.gsr_group, *b = (struct sockaddr_in *)&g.gsr_source;
    a->sin_family = b->sin_family = AF_INET;
    inet_pton(AF_INET, group, &a->sin_addr);
    inet_pton(AF_INET, source, &b->sin_addr);
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&g.gsr_group, *b = (struct sockaddr_in6 *)&g.gsr_source;
    a->sin6_family = b->sin6_family = AF_INET6;
    inet_pton(AF_INET6, group, &a->sin6_addr);
    inet_pton(AF_INET6, source, &b->sin6_addr);
  }
  return g;
}

static struct ipv6_mreq mreq6(const char *group, unsigned ifindex) {
  struct ipv6_mreq m;
  memset(&m, 0, sizeof m);
  inet_pton(AF_INET6, group, &m.ipv6mr_multiaddr);
  m.ipv6mr_interface = ifindex;
  return m;
}

#define SET(label, fd, level, name, value) SHOW(label, setsockopt(fd, level, name, &(value), sizeof(value)))

static void ipv4(void) {
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  get_int("v4_mc_ttl_default", u, IPPROTO_IP, IP_MULTICAST_TTL, 4);
  get_int("v4_mc_loop_default", u, IPPROTO_IP, IP_MULTICAST_LOOP, 4);
  get_int("v4_mc_all_default", u, IPPROTO_IP, IP_MULTICAST_ALL, 4);
  get_int("v4_ttl_default", u, IPPROTO_IP, IP_TTL, 4);
  get_int("v4_ttl_char", u, IPPROTO_IP, IP_TTL, 1);
  get_int("v4_broadcast_default", u, SOL_SOCKET, SO_BROADCAST, 4);
  struct in_addr ifaddr;
  socklen_t len = sizeof ifaddr;
  SHOW("v4_mc_if_default", getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, &len));
  printf("v4_mc_if_default_addr=%s len=%u\n", inet_ntoa(ifaddr), (unsigned)len);

  /* TTLs and loop: ints or chars, Linux's ranges. */
  set_int("v4_mc_ttl_0", u, IPPROTO_IP, IP_MULTICAST_TTL, 0, 4);
  set_int("v4_mc_ttl_255", u, IPPROTO_IP, IP_MULTICAST_TTL, 255, 4);
  set_int("v4_mc_ttl_256", u, IPPROTO_IP, IP_MULTICAST_TTL, 256, 4);
  set_int("v4_mc_ttl_minus2", u, IPPROTO_IP, IP_MULTICAST_TTL, -2, 4);
  set_int("v4_mc_ttl_minus1", u, IPPROTO_IP, IP_MULTICAST_TTL, -1, 4);
  get_int("v4_mc_ttl_after_minus1", u, IPPROTO_IP, IP_MULTICAST_TTL, 4);
  set_int("v4_mc_ttl_char", u, IPPROTO_IP, IP_MULTICAST_TTL, 7, 1);
  get_int("v4_mc_ttl_char_read", u, IPPROTO_IP, IP_MULTICAST_TTL, 4);
  get_int("v4_mc_ttl_read_1byte", u, IPPROTO_IP, IP_MULTICAST_TTL, 1);
  set_int("v4_mc_ttl_len0", u, IPPROTO_IP, IP_MULTICAST_TTL, 9, 0);
  set_int("v4_mc_loop_0", u, IPPROTO_IP, IP_MULTICAST_LOOP, 0, 4);
  get_int("v4_mc_loop_read", u, IPPROTO_IP, IP_MULTICAST_LOOP, 4);
  set_int("v4_mc_loop_5", u, IPPROTO_IP, IP_MULTICAST_LOOP, 5, 4);
  get_int("v4_mc_loop_read5", u, IPPROTO_IP, IP_MULTICAST_LOOP, 4);
  set_int("v4_mc_loop_char0", u, IPPROTO_IP, IP_MULTICAST_LOOP, 0, 1);
  get_int("v4_mc_loop_read_char0", u, IPPROTO_IP, IP_MULTICAST_LOOP, 4);
  set_int("v4_mc_all_2", u, IPPROTO_IP, IP_MULTICAST_ALL, 2, 4);
  set_int("v4_mc_all_len0", u, IPPROTO_IP, IP_MULTICAST_ALL, 0, 0);
  set_int("v4_mc_loop_len0", u, IPPROTO_IP, IP_MULTICAST_LOOP, 0, 0);
  set_int("v4_ttl_len0", u, IPPROTO_IP, IP_TTL, 0, 0);
  set_int("v4_tos_char", u, IPPROTO_IP, IP_TOS, 0x10, 1);
  get_int("v4_tos_read_char", u, IPPROTO_IP, IP_TOS, 1);
  set_int("v4_mc_all_0", u, IPPROTO_IP, IP_MULTICAST_ALL, 0, 4);
  get_int("v4_mc_all_read", u, IPPROTO_IP, IP_MULTICAST_ALL, 4);
  set_int("v4_ttl_0", u, IPPROTO_IP, IP_TTL, 0, 4);
  set_int("v4_ttl_256", u, IPPROTO_IP, IP_TTL, 256, 4);
  set_int("v4_ttl_9", u, IPPROTO_IP, IP_TTL, 9, 4);
  get_int("v4_ttl_read", u, IPPROTO_IP, IP_TTL, 4);
  set_int("v4_ttl_minus1", u, IPPROTO_IP, IP_TTL, -1, 4);
  get_int("v4_ttl_read_default", u, IPPROTO_IP, IP_TTL, 4);
  set_int("v4_ttl_char", u, IPPROTO_IP, IP_TTL, 33, 1);
  get_int("v4_ttl_read_char", u, IPPROTO_IP, IP_TTL, 4);
  set_int("so_broadcast_on", u, SOL_SOCKET, SO_BROADCAST, 1, 4);
  get_int("so_broadcast_read", u, SOL_SOCKET, SO_BROADCAST, 4);

  /* IP_MULTICAST_IF: an address, an ip_mreq, an ip_mreqn. */
  struct in_addr lo = { htonl(INADDR_LOOPBACK) }, other, any = { htonl(INADDR_ANY) };
  inet_pton(AF_INET, "192.0.2.77", &other);
  SET("v4_mc_if_lo", u, IPPROTO_IP, IP_MULTICAST_IF, lo);
  len = sizeof ifaddr;
  getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, &len);
  printf("v4_mc_if_read=%s len=%u\n", inet_ntoa(ifaddr), (unsigned)len);
  struct ip_mreqn big;
  len = sizeof big;
  memset(&big, 0xee, sizeof big);
  getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &big, &len);
  printf("v4_mc_if_read_mreqn_len=%u\n", (unsigned)len);
  SET("v4_mc_if_not_local", u, IPPROTO_IP, IP_MULTICAST_IF, other);
  SHOW("v4_mc_if_short", setsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &lo, 3));
  struct ip_mreqn byindex = mreqn("0.0.0.0", "0.0.0.0", 1);
  SET("v4_mc_if_mreqn_index", u, IPPROTO_IP, IP_MULTICAST_IF, byindex);
  len = sizeof ifaddr;
  getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, &len);
  printf("v4_mc_if_read_index=%s\n", inet_ntoa(ifaddr));
  struct ip_mreqn badindex = mreqn("0.0.0.0", "0.0.0.0", 9999);
  SET("v4_mc_if_mreqn_bad_index", u, IPPROTO_IP, IP_MULTICAST_IF, badindex);
  struct ip_mreq asmreq = mreq("0.0.0.0", "127.0.0.1");
  SET("v4_mc_if_mreq", u, IPPROTO_IP, IP_MULTICAST_IF, asmreq);
  SET("v4_mc_if_any", u, IPPROTO_IP, IP_MULTICAST_IF, any);
  len = sizeof ifaddr;
  getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, &len);
  printf("v4_mc_if_read_any=%s\n", inet_ntoa(ifaddr));

  /* Memberships. */
  struct ip_mreq m = mreq("239.7.7.7", "127.0.0.1");
  SET("join", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, m);
  SET("join_again", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, m);
  struct ip_mreqn mn = mreqn("239.7.7.7", "0.0.0.0", 1);
  SET("join_again_by_index", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, mn);
  struct ip_mreqn mn_other = mreqn("239.7.7.7", "127.0.0.1", 1);
  SET("join_again_mreqn_addr", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, mn_other);
  struct ip_mreq notmc = mreq("10.1.2.3", "127.0.0.1");
  SET("join_not_multicast", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, notmc);
  struct ip_mreq bcast = mreq("255.255.255.255", "127.0.0.1");
  SET("join_broadcast", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, bcast);
  struct ip_mreq remote = mreq("239.7.7.8", "192.0.2.77");
  SET("join_not_local_iface", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, remote);
  struct ip_mreqn noindex = mreqn("239.7.7.8", "0.0.0.0", 9999);
  SET("join_bad_index", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, noindex);
  SHOW("join_short", setsockopt(u, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, 7));
  struct ip_mreq loaddr = mreq("239.7.7.9", "127.0.0.5");
  SET("join_other_loopback_address", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, loaddr);
  struct ip_mreqn loindex = mreqn("239.7.7.9", "0.0.0.0", 1);
  SET("join_same_by_index", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, loindex);
  struct ip_mreq allhosts = mreq("224.0.0.1", "127.0.0.1");
  SET("join_all_hosts", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, allhosts);
  SET("drop", u, IPPROTO_IP, IP_DROP_MEMBERSHIP, m);
  SET("drop_again", u, IPPROTO_IP, IP_DROP_MEMBERSHIP, m);
  SET("drop_not_multicast", u, IPPROTO_IP, IP_DROP_MEMBERSHIP, notmc);
  SET("drop_by_index", u, IPPROTO_IP, IP_DROP_MEMBERSHIP, loindex);
  SET("drop_bad_index", u, IPPROTO_IP, IP_DROP_MEMBERSHIP, noindex);
  SET("drop_not_local_iface", u, IPPROTO_IP, IP_DROP_MEMBERSHIP, remote);
  SHOW("drop_short", setsockopt(u, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, 4));
  len = sizeof m;
  SHOW("get_add_membership", getsockopt(u, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, &len));

  /* Linux's igmp_max_memberships: 20 groups a socket (one is joined). */
  int groups = 0, last_err = 0;
  for (int i = 0; i < 30; i++) {
    char g[32];
    snprintf(g, sizeof g, "239.8.0.%d", i + 1);
    struct ip_mreq x = mreq(g, "127.0.0.1");
    if (setsockopt(u, IPPROTO_IP, IP_ADD_MEMBERSHIP, &x, sizeof x) == 0) groups++;
    else last_err = errno;
  }
  printf("joined_more=%d then=%s\n", groups, ename(last_err));
  close(u);

  /* Source-specific: IP_ADD_SOURCE_MEMBERSHIP and friends. */
  int v = socket(AF_INET, SOCK_DGRAM, 0);
  struct ip_mreq_source ms = msource("232.1.1.1", "127.0.0.1", "127.0.0.2");
  struct ip_mreq_source ms2 = msource("232.1.1.1", "127.0.0.1", "127.0.0.3");
  SET("drop_source_not_joined", v, IPPROTO_IP, IP_DROP_SOURCE_MEMBERSHIP, ms);
  SET("block_source_not_joined", v, IPPROTO_IP, IP_BLOCK_SOURCE, ms);
  SET("join_source", v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, ms);
  SET("join_source_again", v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, ms);
  SET("join_source_second", v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, ms2);
  SHOW("join_source_short", setsockopt(v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, &ms, 8));
  SHOW("join_source_long", setsockopt(v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, &big, 16));
  struct ip_mreq_source msnot = msource("10.0.0.1", "127.0.0.1", "127.0.0.2");
  SET("join_source_not_multicast", v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, msnot);
  struct ip_mreq_source msremote = msource("232.1.1.2", "192.0.2.77", "127.0.0.2");
  SET("join_source_not_local_iface", v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, msremote);
  SET("block_in_include_mode", v, IPPROTO_IP, IP_BLOCK_SOURCE, ms);
  struct ip_mreq msasm = mreq("232.1.1.1", "127.0.0.1");
  SET("asm_join_over_ssm", v, IPPROTO_IP, IP_ADD_MEMBERSHIP, msasm);
  SET("drop_source", v, IPPROTO_IP, IP_DROP_SOURCE_MEMBERSHIP, ms);
  SET("drop_source_again", v, IPPROTO_IP, IP_DROP_SOURCE_MEMBERSHIP, ms);
  SET("drop_last_source", v, IPPROTO_IP, IP_DROP_SOURCE_MEMBERSHIP, ms2);
  SET("drop_group_after_last_source", v, IPPROTO_IP, IP_DROP_MEMBERSHIP, msasm);
  /* An any-source join, then a source join: the empty filter switches mode. */
  SET("asm_join", v, IPPROTO_IP, IP_ADD_MEMBERSHIP, msasm);
  SET("source_join_after_asm", v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, ms);
  SET("block_after_mode_switch", v, IPPROTO_IP, IP_BLOCK_SOURCE, ms2);
  SET("drop_group", v, IPPROTO_IP, IP_DROP_MEMBERSHIP, msasm);
  /* Blocking: an any-source join excludes sources. */
  SET("asm_join2", v, IPPROTO_IP, IP_ADD_MEMBERSHIP, msasm);
  SET("block", v, IPPROTO_IP, IP_BLOCK_SOURCE, ms);
  SET("block_again", v, IPPROTO_IP, IP_BLOCK_SOURCE, ms);
  SET("source_join_over_blocked", v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, ms2);
  SET("unblock", v, IPPROTO_IP, IP_UNBLOCK_SOURCE, ms);
  SET("unblock_again", v, IPPROTO_IP, IP_UNBLOCK_SOURCE, ms);
  SET("drop_group2", v, IPPROTO_IP, IP_DROP_MEMBERSHIP, msasm);
  /* Linux's igmp_max_msf: 10 sources a group. */
  int sources = 0;
  last_err = 0;
  for (int i = 0; i < 15; i++) {
    char s[32];
    snprintf(s, sizeof s, "127.0.9.%d", i + 1);
    struct ip_mreq_source x = msource("232.1.1.3", "127.0.0.1", s);
    if (setsockopt(v, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, &x, sizeof x) == 0) sources++;
    else last_err = errno;
  }
  printf("sources=%d then=%s\n", sources, ename(last_err));

  /* The protocol-independent forms at IPPROTO_IP. */
  struct group_req g = greq4("239.9.9.9", 1);
  SET("mcast_join", v, IPPROTO_IP, MCAST_JOIN_GROUP, g);
  SET("mcast_join_again", v, IPPROTO_IP, MCAST_JOIN_GROUP, g);
  struct ip_mreq gm = mreq("239.9.9.9", "127.0.0.1");
  SET("ip_join_after_mcast_join", v, IPPROTO_IP, IP_ADD_MEMBERSHIP, gm);
  SET("mcast_leave", v, IPPROTO_IP, MCAST_LEAVE_GROUP, g);
  SET("mcast_leave_again", v, IPPROTO_IP, MCAST_LEAVE_GROUP, g);
  SHOW("mcast_join_short", setsockopt(v, IPPROTO_IP, MCAST_JOIN_GROUP, &g, sizeof g - 1));
  struct group_req g6 = greq4("239.9.9.9", 1);
  g6.gr_group.ss_family = AF_INET6;
  SET("mcast_join_v6_group_at_ip", v, IPPROTO_IP, MCAST_JOIN_GROUP, g6);
  struct group_source_req gs = gsreq(AF_INET, "232.2.2.2", "127.0.0.2", 1);
  SET("mcast_join_source", v, IPPROTO_IP, MCAST_JOIN_SOURCE_GROUP, gs);
  SET("mcast_join_source_again", v, IPPROTO_IP, MCAST_JOIN_SOURCE_GROUP, gs);
  SET("mcast_leave_source", v, IPPROTO_IP, MCAST_LEAVE_SOURCE_GROUP, gs);
  SET("mcast_leave_source_again", v, IPPROTO_IP, MCAST_LEAVE_SOURCE_GROUP, gs);
  struct group_source_req gs_noif = gsreq(AF_INET, "232.2.2.2", "127.0.0.2", 9999);
  SET("mcast_join_source_bad_index", v, IPPROTO_IP, MCAST_JOIN_SOURCE_GROUP, gs_noif);
  struct group_source_req gs_fam = gs;
  gs_fam.gsr_source.ss_family = AF_INET6;
  SET("mcast_join_source_bad_family", v, IPPROTO_IP, MCAST_JOIN_SOURCE_GROUP, gs_fam);

  /* The wrong level and the wrong socket. */
  struct ipv6_mreq m6 = mreq6("ff0e::7", 1);
  SET("ipv6_join_on_v4", v, IPPROTO_IPV6, IPV6_JOIN_GROUP, m6);
  get_int("ipv6_hops_on_v4", v, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 4);
  close(v);
  int t = socket(AF_INET, SOCK_STREAM, 0);
  struct ip_mreq tm = mreq("239.7.7.7", "127.0.0.1");
  SET("tcp_join", t, IPPROTO_IP, IP_ADD_MEMBERSHIP, tm);
  SHOW("tcp_join_short", setsockopt(t, IPPROTO_IP, IP_ADD_MEMBERSHIP, &tm, 4));
  set_int("tcp_mc_ttl", t, IPPROTO_IP, IP_MULTICAST_TTL, 3, 4);
  set_int("tcp_mc_loop", t, IPPROTO_IP, IP_MULTICAST_LOOP, 0, 4);
  SET("tcp_mc_if", t, IPPROTO_IP, IP_MULTICAST_IF, lo);
  struct group_req tg = greq4("239.7.7.7", 1);
  SET("tcp_mcast_join", t, IPPROTO_IP, MCAST_JOIN_GROUP, tg);
  struct ip_mreq_source tms = msource("232.1.1.1", "127.0.0.1", "127.0.0.2");
  SET("tcp_join_source", t, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, tms);
  get_int("tcp_mc_ttl_read", t, IPPROTO_IP, IP_MULTICAST_TTL, 4);
  get_int("tcp_mc_loop_read", t, IPPROTO_IP, IP_MULTICAST_LOOP, 4);
  close(t);
}

static void ipv6(void) {
  int u = socket(AF_INET6, SOCK_DGRAM, 0);
  get_int("v6_mc_hops_default", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 4);
  get_int("v6_mc_loop_default", u, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 4);
  get_int("v6_mc_if_default", u, IPPROTO_IPV6, IPV6_MULTICAST_IF, 4);
  get_int("v6_unicast_hops_default", u, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 4);
  get_int("v6_mc_all_default", u, IPPROTO_IPV6, IPV6_MULTICAST_ALL, 4);
  get_int("v6_ip_mc_all_default", u, IPPROTO_IP, IP_MULTICAST_ALL, 4);
  get_int("v6_ip_mc_loop_default", u, IPPROTO_IP, IP_MULTICAST_LOOP, 4);
  get_int("v6_ip_ttl_default", u, IPPROTO_IP, IP_TTL, 4);
  set_int("v6_mc_hops_255", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 255, 4);
  set_int("v6_mc_hops_256", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 256, 4);
  set_int("v6_mc_hops_minus2", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, -2, 4);
  get_int("v6_mc_hops_read", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 4);
  set_int("v6_mc_hops_minus1", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, -1, 4);
  get_int("v6_mc_hops_read_default", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 4);
  set_int("v6_mc_hops_char", u, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 3, 1);
  set_int("v6_mc_loop_0", u, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0, 4);
  get_int("v6_mc_loop_read", u, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 4);
  set_int("v6_mc_loop_2", u, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 2, 4);
  set_int("v6_mc_loop_char", u, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 1, 1);
  set_int("v6_mc_all_0", u, IPPROTO_IPV6, IPV6_MULTICAST_ALL, 0, 4);
  get_int("v6_mc_all_read", u, IPPROTO_IPV6, IPV6_MULTICAST_ALL, 4);
  set_int("v6_mc_all_char", u, IPPROTO_IPV6, IPV6_MULTICAST_ALL, 1, 1);
  set_int("v6_mc_if_lo", u, IPPROTO_IPV6, IPV6_MULTICAST_IF, 1, 4);
  get_int("v6_mc_if_read", u, IPPROTO_IPV6, IPV6_MULTICAST_IF, 4);
  set_int("v6_mc_if_bad", u, IPPROTO_IPV6, IPV6_MULTICAST_IF, 9999, 4);
  set_int("v6_mc_if_0", u, IPPROTO_IPV6, IPV6_MULTICAST_IF, 0, 4);
  set_int("v6_unicast_hops_minus2", u, IPPROTO_IPV6, IPV6_UNICAST_HOPS, -2, 4);
  set_int("v6_unicast_hops_9", u, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 9, 4);
  get_int("v6_unicast_hops_read", u, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 4);
  set_int("v6_unicast_hops_minus1", u, IPPROTO_IPV6, IPV6_UNICAST_HOPS, -1, 4);
  get_int("v6_unicast_hops_read_default", u, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 4);

  struct ipv6_mreq m = mreq6("ff0e::1:7", 1);
  SET("v6_join", u, IPPROTO_IPV6, IPV6_JOIN_GROUP, m);
  SET("v6_join_again", u, IPPROTO_IPV6, IPV6_JOIN_GROUP, m);
  struct ipv6_mreq any_if = mreq6("ff0e::1:7", 0);
  SET("v6_join_again_any_iface", u, IPPROTO_IPV6, IPV6_JOIN_GROUP, any_if);
  struct ipv6_mreq bad_if = mreq6("ff0e::1:8", 9999);
  SET("v6_join_bad_index", u, IPPROTO_IPV6, IPV6_JOIN_GROUP, bad_if);
  struct ipv6_mreq notmc = mreq6("fe80::1", 1);
  SET("v6_join_not_multicast", u, IPPROTO_IPV6, IPV6_JOIN_GROUP, notmc);
  struct ipv6_mreq mapped = mreq6("::ffff:239.1.1.1", 1);
  SET("v6_join_v4_mapped", u, IPPROTO_IPV6, IPV6_JOIN_GROUP, mapped);
  SHOW("v6_join_short", setsockopt(u, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, 19));
  SET("v6_leave_any_iface", u, IPPROTO_IPV6, IPV6_LEAVE_GROUP, any_if);
  SET("v6_leave_again", u, IPPROTO_IPV6, IPV6_LEAVE_GROUP, m);
  SET("v6_leave_not_multicast", u, IPPROTO_IPV6, IPV6_LEAVE_GROUP, notmc);
  SET("v6_join2", u, IPPROTO_IPV6, IPV6_JOIN_GROUP, m);
  SET("v6_leave_bad_index", u, IPPROTO_IPV6, IPV6_LEAVE_GROUP, bad_if);
  SET("v6_leave", u, IPPROTO_IPV6, IPV6_LEAVE_GROUP, m);
  socklen_t len = sizeof m;
  SHOW("v6_get_join", getsockopt(u, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, &len));

  /* IPv4 memberships and options on a dual-stack socket. */
  struct ip_mreq m4 = mreq("239.7.7.7", "127.0.0.1");
  SET("v4_join_on_v6", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, m4);
  SET("v4_join_on_v6_again", u, IPPROTO_IP, IP_ADD_MEMBERSHIP, m4);
  set_int("v4_mc_ttl_on_v6", u, IPPROTO_IP, IP_MULTICAST_TTL, 4, 4);
  get_int("v4_mc_ttl_on_v6_read", u, IPPROTO_IP, IP_MULTICAST_TTL, 4);
  SET("v4_drop_on_v6", u, IPPROTO_IP, IP_DROP_MEMBERSHIP, m4);

  /* Source-specific at IPPROTO_IPV6 (what libuv uses). */
  struct group_source_req gs = gsreq(AF_INET6, "ff3e::8000:1", "::1", 1);
  SET("v6_join_source", u, IPPROTO_IPV6, MCAST_JOIN_SOURCE_GROUP, gs);
  SET("v6_join_source_again", u, IPPROTO_IPV6, MCAST_JOIN_SOURCE_GROUP, gs);
  SET("v6_leave_source", u, IPPROTO_IPV6, MCAST_LEAVE_SOURCE_GROUP, gs);
  SET("v6_leave_source_again", u, IPPROTO_IPV6, MCAST_LEAVE_SOURCE_GROUP, gs);
  struct group_source_req gs4 = gsreq(AF_INET, "232.2.2.2", "127.0.0.2", 1);
  SET("v6_join_source_v4_family", u, IPPROTO_IPV6, MCAST_JOIN_SOURCE_GROUP, gs4);
  SHOW("v6_join_source_short", setsockopt(u, IPPROTO_IPV6, MCAST_JOIN_SOURCE_GROUP, &gs, sizeof gs - 1));
  close(u);

  int t = socket(AF_INET6, SOCK_STREAM, 0);
  struct ipv6_mreq tm = mreq6("ff0e::1:7", 1);
  SET("tcp6_join", t, IPPROTO_IPV6, IPV6_JOIN_GROUP, tm);
  SHOW("tcp6_join_short", setsockopt(t, IPPROTO_IPV6, IPV6_JOIN_GROUP, &tm, 4));
  set_int("tcp6_mc_hops", t, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 3, 4);
  set_int("tcp6_mc_loop", t, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0, 4);
  set_int("tcp6_mc_if", t, IPPROTO_IPV6, IPV6_MULTICAST_IF, 1, 4);
  struct group_req tg;
  memset(&tg, 0, sizeof tg);
  tg.gr_interface = 1;
  ((struct sockaddr_in6 *)&tg.gr_group)->sin6_family = AF_INET6;
  inet_pton(AF_INET6, "ff0e::1:7", &((struct sockaddr_in6 *)&tg.gr_group)->sin6_addr);
  SET("tcp6_mcast_join", t, IPPROTO_IPV6, MCAST_JOIN_GROUP, tg);
  close(t);
}

int main(void) {
  printf("lo_index=%u\n", if_nametoindex("lo"));
  ipv4();
  ipv6();
  return 0;
}
