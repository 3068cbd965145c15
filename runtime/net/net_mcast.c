/* Multicast memberships: the options that join and leave groups, and
 * which datagrams they let in, as Linux's igmp.c and mcast.c keep them.
 *
 * A socket's membership is a group on one interface with a source filter
 * (any source but those blocked, or only those included), for IPv4
 * (IP_ADD_MEMBERSHIP, IP_ADD_SOURCE_MEMBERSHIP, IP_BLOCK_SOURCE,
 * MCAST_JOIN_GROUP ... at IPPROTO_IP) and for IPv6 (IPV6_JOIN_GROUP and
 * the MCAST_* forms at IPPROTO_IPV6), with Linux's errors in Linux's
 * order (testsuite/net/conformance/multicast_options.c compares them with
 * the kernel's).  An IPv4 join names its interface by index, by address,
 * or not at all (the multicast route: eth0); an IPv6 join by index, and
 * without one finds no route (the simulated net carries no IPv6).
 * Limits are Linux's defaults: 20 IPv4 groups a socket
 * (igmp_max_memberships) and 10 sources a group (igmp_max_msf), 64 IPv6
 * sources (mld_max_msf), ENOBUFS past them; IPv6 groups are bounded by
 * DETSIM_NET_MCAST6_GROUPS_MAX (Linux by the socket's option memory).
 *
 * Delivery (net_udp.c) asks two things: does the receiving host listen to
 * the group on the interface it arrives by (some socket of the host joined
 * it there and its filter lets the source in: the kernel's per-interface
 * filter is the union of its sockets'), and does this socket take it (its
 * own filter if it joined the group there, else IP_MULTICAST_ALL).
 * Sockets with memberships are on one list (the world's in a world), so a
 * host's memberships are found whether or not their sockets are bound.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "core/core.h"
#include "net/net.h"

struct net_sock *net__mc_socks_local;

#define MCAST_GROUPS4_MAX 20  /* Linux's net.ipv4.igmp_max_memberships */
#define MCAST_SOURCES4_MAX 10 /* Linux's net.ipv4.igmp_max_msf */
#define MCAST_SOURCES6_MAX 64 /* Linux's net.ipv6.mld_max_msf */
_Static_assert(MCAST_SOURCES4_MAX <= DETSIM_NET_MCAST_SOURCES_MAX && MCAST_SOURCES6_MAX <= DETSIM_NET_MCAST_SOURCES_MAX,
               "a membership holds Linux's sources");

bool net_addr_is_multicast(const struct net_addr *a) {
  return net_addr_is_v4(a) ? (a->ip[12] & 0xf0) == 0xe0 : a->ip[0] == 0xff;
}

static void mapped4(uint8_t out[16], const void *in_addr) {
  memset(out, 0, 16);
  out[10] = out[11] = 0xff;
  memcpy(out + 12, in_addr, 4);
}

static bool is_multicast16(const uint8_t ip[16], bool v6) {
  struct net_addr a;
  memset(&a, 0, sizeof a);
  memcpy(a.ip, ip, 16);
  return v6 ? ip[0] == 0xff : net_addr_is_v4(&a) && net_addr_is_multicast(&a);
}

/* ---- the list of sockets with memberships ---- */

static void list_add(struct net_sock *s) {
  if (s->mc_listed) return;
  s->mc_next = net__mc_socks;
  net__mc_socks = s;
  s->mc_listed = true;
}

static void list_remove(struct net_sock *s) {
  if (!s->mc_listed) return;
  for (struct net_sock **p = &net__mc_socks; *p; p = &(*p)->mc_next) {
    if (*p == s) {
      *p = s->mc_next;
      break;
    }
  }
  s->mc_next = NULL;
  s->mc_listed = false;
}

/* ---- a socket's memberships ---- */

static unsigned count(const struct net_sock *s, bool v6) {
  unsigned n = 0;
  for (const struct net_mc_group *m = s->mc_groups; m; m = m->next) n += m->v6 == v6;
  return n;
}

/* The membership of `group` on `ifindex` (0: on any interface). */
static struct net_mc_group *find(const struct net_sock *s, bool v6, const uint8_t group[16], unsigned ifindex) {
  for (struct net_mc_group *m = s->mc_groups; m; m = m->next)
    if (m->v6 == v6 && memcmp(m->group, group, 16) == 0 && (ifindex == 0 || m->ifindex == ifindex)) return m;
  return NULL;
}

static int add(struct net_sock *s, bool v6, const uint8_t group[16], unsigned ifindex, const uint8_t ifaddr[4],
               bool include) {
  if (!v6 && count(s, false) >= MCAST_GROUPS4_MAX) return ENOBUFS;
  if (v6 && count(s, true) >= DETSIM_NET_MCAST6_GROUPS_MAX) {
    net_limit("net_mcast6_groups_max", DETSIM_NET_MCAST6_GROUPS_MAX, "more IPv6 multicast groups joined by one socket");
    return ENOMEM;
  }
  struct net_mc_group *m = detsim__net_calloc(1, sizeof *m);
  if (m == NULL) return ENOMEM;
  m->v6 = v6;
  memcpy(m->group, group, 16);
  m->ifindex = ifindex;
  if (ifaddr != NULL) memcpy(m->ifaddr, ifaddr, 4);
  m->include = include;
  /* Joins keep their order: the list's tail. */
  struct net_mc_group **p = &s->mc_groups;
  while (*p) p = &(*p)->next;
  *p = m;
  list_add(s);
  return 0;
}

static void drop(struct net_sock *s, struct net_mc_group *m) {
  for (struct net_mc_group **p = &s->mc_groups; *p; p = &(*p)->next) {
    if (*p == m) {
      *p = m->next;
      break;
    }
  }
  detsim__net_free(m);
  if (s->mc_groups == NULL) list_remove(s);
}

void net_mcast_release(struct net_sock *s) {
  while (s->mc_groups) drop(s, s->mc_groups);
  list_remove(s);
}

/* ---- IPv4 ---- */

/* ip_mc_find_dev: the interface a join names (by index, by address, or by
 * the multicast route), 0 for none. */
static unsigned find_dev4(unsigned ifindex, const uint8_t ifaddr[4]) {
  if (ifindex) return net_iface_name(ifindex) ? ifindex : 0;
  static const uint8_t zero[4];
  if (memcmp(ifaddr, zero, 4) != 0) {
    struct net_addr a;
    memset(&a, 0, sizeof a);
    mapped4(a.ip, ifaddr);
    return net_iface_of_addr(&a);
  }
  return NET_IFINDEX_NET;
}

/* ip_mc_join_group (any source) and ip_mc_join_group_ssm's join. */
static int join4(struct net_sock *s, const uint8_t group[16], unsigned ifindex, const uint8_t ifaddr[4],
                 bool include) {
  if (!is_multicast16(group, false)) return EINVAL;
  unsigned dev = find_dev4(ifindex, ifaddr);
  if (dev == 0) return ENODEV;
  if (find(s, false, group, dev)) return EADDRINUSE;
  return add(s, false, group, dev, ifaddr, include);
}

/* ip_mc_leave_group: by the interface found, else by the address named. */
static int leave4(struct net_sock *s, const uint8_t group[16], unsigned ifindex, const uint8_t ifaddr[4]) {
  unsigned dev = find_dev4(ifindex, ifaddr);
  static const uint8_t zero[4];
  for (struct net_mc_group *m = s->mc_groups; m; m = m->next) {
    if (m->v6 || memcmp(m->group, group, 16) != 0) continue;
    if (dev ? m->ifindex != dev : (ifindex != 0 || memcmp(ifaddr, zero, 4) == 0 || memcmp(m->ifaddr, ifaddr, 4) != 0))
      continue;
    drop(s, m);
    return 0;
  }
  return EADDRNOTAVAIL;
}

/* ip_mc_source / ip6_mc_source: adds or removes `src` in the filter of
 * the membership `m` (NULL: none, EINVAL) in mode include/exclude. */
static int source(struct net_sock *s, struct net_mc_group *m, const uint8_t src[16], bool include, bool add_it,
                  unsigned max) {
  if (m == NULL) return EINVAL; /* a source needs a prior join */
  /* Only a filter that never had a source may switch mode (Linux keeps
   * the emptied list, and its mode with it). */
  if (m->had_sources && m->include != include) return EINVAL;
  m->include = include;
  unsigned i = 0;
  while (i < m->nsrc && memcmp(m->src[i], src, 16) != 0) i++;
  if (!add_it) {
    if (i == m->nsrc) return EADDRNOTAVAIL;
    if (m->nsrc == 1 && include) {
      drop(s, m); /* (INCLUDE, {}) is leaving the group */
      return 0;
    }
    memmove(m->src[i], m->src[i + 1], (size_t)(m->nsrc - i - 1) * 16);
    m->nsrc--;
    return 0;
  }
  if (m->nsrc >= max) return ENOBUFS;
  if (i < m->nsrc) return EADDRNOTAVAIL; /* already there */
  memcpy(m->src[m->nsrc++], src, 16);
  m->had_sources = true;
  return 0;
}

/* IP_ADD_SOURCE_MEMBERSHIP and friends, MCAST_*_SOURCE_GROUP at
 * IPPROTO_IP: `ifaddr` or `ifindex` names the interface. */
static int source4(struct net_sock *s, int op, const uint8_t group[16], const uint8_t src[16], unsigned ifindex,
                   const uint8_t ifaddr[4]) {
  bool include = op == MCAST_JOIN_SOURCE_GROUP || op == MCAST_LEAVE_SOURCE_GROUP;
  bool add_it = op == MCAST_JOIN_SOURCE_GROUP || op == MCAST_BLOCK_SOURCE;
  if (op == MCAST_JOIN_SOURCE_GROUP) {
    int e = join4(s, group, ifindex, ifaddr, true);
    if (e && e != EADDRINUSE) return e;
  }
  if (!is_multicast16(group, false)) return EINVAL;
  unsigned dev = find_dev4(ifindex, ifaddr);
  if (dev == 0) return ENODEV;
  return source(s, find(s, false, group, dev), src, include, add_it, MCAST_SOURCES4_MAX);
}

/* The IP_* source options as the MCAST_* operation they are. */
static int source_op4(int name) {
  switch (name) {
  case IP_ADD_SOURCE_MEMBERSHIP: return MCAST_JOIN_SOURCE_GROUP;
  case IP_DROP_SOURCE_MEMBERSHIP: return MCAST_LEAVE_SOURCE_GROUP;
  case IP_BLOCK_SOURCE: return MCAST_BLOCK_SOURCE;
  default: return MCAST_UNBLOCK_SOURCE;
  }
}

static int set4(struct net_sock *s, int name, const void *val, socklen_t len) {
  static const uint8_t zero[4];
  switch (name) {
  case IP_ADD_MEMBERSHIP:
  case IP_DROP_MEMBERSHIP: {
    if (s->type == SOCK_STREAM) return EPROTO;
    if (len < (socklen_t)sizeof(struct ip_mreq)) return EINVAL;
    struct ip_mreqn m;
    memset(&m, 0, sizeof m);
    memcpy(&m, val, len >= (socklen_t)sizeof m ? sizeof m : sizeof(struct ip_mreq));
    uint8_t group[16];
    mapped4(group, &m.imr_multiaddr);
    unsigned ifindex = m.imr_ifindex > 0 ? (unsigned)m.imr_ifindex : 0;
    if (name == IP_ADD_MEMBERSHIP) return join4(s, group, ifindex, (const uint8_t *)&m.imr_address, false);
    return leave4(s, group, ifindex, (const uint8_t *)&m.imr_address);
  }
  case IP_ADD_SOURCE_MEMBERSHIP:
  case IP_DROP_SOURCE_MEMBERSHIP:
  case IP_BLOCK_SOURCE:
  case IP_UNBLOCK_SOURCE: {
    if (len != (socklen_t)sizeof(struct ip_mreq_source)) return EINVAL;
    struct ip_mreq_source m;
    memcpy(&m, val, sizeof m);
    uint8_t group[16], src[16];
    mapped4(group, &m.imr_multiaddr);
    mapped4(src, &m.imr_sourceaddr);
    return source4(s, source_op4(name), group, src, 0, (const uint8_t *)&m.imr_interface);
  }
  case MCAST_JOIN_GROUP:
  case MCAST_LEAVE_GROUP: {
    if (len < (socklen_t)sizeof(struct group_req)) return EINVAL;
    struct group_req g;
    memcpy(&g, val, sizeof g);
    const struct sockaddr_in *in = (const struct sockaddr_in *)&g.gr_group;
    if (in->sin_family != AF_INET) return EINVAL;
    uint8_t group[16];
    mapped4(group, &in->sin_addr);
    if (name == MCAST_JOIN_GROUP) return join4(s, group, g.gr_interface, zero, false);
    return leave4(s, group, g.gr_interface, zero);
  }
  default: {
    if (len < (socklen_t)sizeof(struct group_source_req)) return EINVAL;
    struct group_source_req g;
    memcpy(&g, val, sizeof g);
    const struct sockaddr_in *gi = (const struct sockaddr_in *)&g.gsr_group, *si = (const struct sockaddr_in *)&g.gsr_source;
    if (gi->sin_family != AF_INET || si->sin_family != AF_INET) return EADDRNOTAVAIL;
    uint8_t group[16], src[16];
    mapped4(group, &gi->sin_addr);
    mapped4(src, &si->sin_addr);
    return source4(s, name, group, src, g.gsr_interface, zero);
  }
  }
}

/* ---- IPv6 ---- */

/* The interface of an IPv6 join: by index; without one the route, which
 * the simulated host has none of (its eth0 has no IPv6). */
static unsigned find_dev6(unsigned ifindex) { return ifindex && net_iface_name(ifindex) ? ifindex : 0; }

static int join6(struct net_sock *s, const uint8_t group[16], unsigned ifindex, bool include) {
  if (!is_multicast16(group, true)) return EINVAL;
  if (find(s, true, group, ifindex)) return EADDRINUSE;
  unsigned dev = find_dev6(ifindex);
  if (dev == 0) return ENODEV;
  return add(s, true, group, dev, NULL, include);
}

static int leave6(struct net_sock *s, const uint8_t group[16], unsigned ifindex) {
  if (!is_multicast16(group, true)) return EINVAL;
  struct net_mc_group *m = find(s, true, group, ifindex);
  if (m == NULL) return EADDRNOTAVAIL;
  drop(s, m);
  return 0;
}

static int set6(struct net_sock *s, int name, const void *val, socklen_t len) {
  switch (name) {
  case IPV6_ADD_MEMBERSHIP:
  case IPV6_DROP_MEMBERSHIP: {
    if (len < (socklen_t)sizeof(struct ipv6_mreq)) return EINVAL;
    if (s->type == SOCK_STREAM) return EPROTO;
    struct ipv6_mreq m;
    memcpy(&m, val, sizeof m);
    const uint8_t *group = (const uint8_t *)&m.ipv6mr_multiaddr;
    if (name == IPV6_ADD_MEMBERSHIP) return join6(s, group, m.ipv6mr_interface, false);
    return leave6(s, group, m.ipv6mr_interface);
  }
  case MCAST_JOIN_GROUP:
  case MCAST_LEAVE_GROUP: {
    if (len < (socklen_t)sizeof(struct group_req)) return EINVAL;
    struct group_req g;
    memcpy(&g, val, sizeof g);
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&g.gr_group;
    if (in6->sin6_family != AF_INET6) return EADDRNOTAVAIL;
    const uint8_t *group = (const uint8_t *)&in6->sin6_addr;
    if (name == MCAST_JOIN_GROUP) return join6(s, group, g.gr_interface, false);
    return leave6(s, group, g.gr_interface);
  }
  default: {
    if (len < (socklen_t)sizeof(struct group_source_req)) return EINVAL;
    struct group_source_req g;
    memcpy(&g, val, sizeof g);
    const struct sockaddr_in6 *gi = (const struct sockaddr_in6 *)&g.gsr_group;
    const struct sockaddr_in6 *si = (const struct sockaddr_in6 *)&g.gsr_source;
    if (gi->sin6_family != AF_INET6 || si->sin6_family != AF_INET6) return EADDRNOTAVAIL;
    const uint8_t *group = (const uint8_t *)&gi->sin6_addr, *src = (const uint8_t *)&si->sin6_addr;
    bool include = name == MCAST_JOIN_SOURCE_GROUP || name == MCAST_LEAVE_SOURCE_GROUP;
    bool add_it = name == MCAST_JOIN_SOURCE_GROUP || name == MCAST_BLOCK_SOURCE;
    if (name == MCAST_JOIN_SOURCE_GROUP) {
      int e = join6(s, group, g.gsr_interface, true);
      if (e && e != EADDRINUSE) return e; /* a prior join is fine */
    }
    if (!is_multicast16(group, true)) return EINVAL;
    if (find_dev6(g.gsr_interface) == 0) return ENODEV;
    return source(s, find(s, true, group, g.gsr_interface), src, include, add_it, MCAST_SOURCES6_MAX);
  }
  }
}

/* ---- the options ---- */

bool net_mcast_is_membership_option(int level, int name) {
  if (level == IPPROTO_IP) {
    switch (name) {
    case IP_ADD_MEMBERSHIP: case IP_DROP_MEMBERSHIP: case IP_ADD_SOURCE_MEMBERSHIP: case IP_DROP_SOURCE_MEMBERSHIP:
    case IP_BLOCK_SOURCE: case IP_UNBLOCK_SOURCE:
      return true;
    default: break;
    }
  }
  if (level == IPPROTO_IPV6 && (name == IPV6_ADD_MEMBERSHIP || name == IPV6_DROP_MEMBERSHIP)) return true;
  if (level != IPPROTO_IP && level != IPPROTO_IPV6) return false;
  switch (name) {
  case MCAST_JOIN_GROUP: case MCAST_LEAVE_GROUP: case MCAST_JOIN_SOURCE_GROUP: case MCAST_LEAVE_SOURCE_GROUP:
  case MCAST_BLOCK_SOURCE: case MCAST_UNBLOCK_SOURCE:
    return true;
  default: return false;
  }
}

int net_mcast_membership(struct net_sock *s, int level, int name, const void *val, socklen_t len) {
  if (val == NULL && len > 0) return EFAULT;
  return level == IPPROTO_IP ? set4(s, name, val, len) : set6(s, name, val, len);
}

/* ---- delivery ---- */

static bool filter_allows(const struct net_mc_group *m, const uint8_t src[16]) {
  bool listed = false;
  for (unsigned i = 0; i < m->nsrc && !listed; i++) listed = memcmp(m->src[i], src, 16) == 0;
  return m->include ? listed : !listed;
}

bool net_mcast_host_listens(unsigned node, const struct net_addr *group, const struct net_addr *src,
                            unsigned ifindex) {
  static const uint8_t all_hosts[4] = { 224, 0, 0, 1 };
  if (net_addr_is_v4(group) && memcmp(group->ip + 12, all_hosts, 4) == 0) return true;
  bool v6 = !net_addr_is_v4(group);
  for (const struct net_sock *s = net__mc_socks; s; s = s->mc_next) {
    if (s->node != node || s->dead_host) continue;
    const struct net_mc_group *m = find(s, v6, group->ip, ifindex);
    if (m != NULL && filter_allows(m, src->ip)) return true;
  }
  return false;
}

bool net_mcast_sock_takes(const struct net_sock *s, const struct net_addr *group, const struct net_addr *src,
                          unsigned ifindex) {
  bool v6 = !net_addr_is_v4(group);
  const struct net_mc_group *m = find(s, v6, group->ip, ifindex);
  if (m == NULL) return v6 ? s->mc6_all : s->mc_all;
  return filter_allows(m, src->ip);
}
