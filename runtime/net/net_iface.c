/* The simulated host's network interfaces, as a Linux host with one
 * network card shows them:
 *
 *   1 lo    UP LOOPBACK RUNNING             127.0.0.1/8, ::1/128
 *   2 eth0  UP BROADCAST RUNNING MULTICAST  127.0.1.(k+1)/24, broadcast
 *           127.0.1.255 (k: the node's index in a world, 0 alone)
 *
 * eth0 is the host's card on the simulated net: the address other nodes
 * of a world reach it by, the default route for multicast and for the
 * limited broadcast (255.255.255.255).  It carries no IPv6 (as a card with
 * IPv6 disabled: IPv6 is the loopback ::1 only), so IPv6 multicast has no
 * route.  lo is the rest of 127.0.0.0/8.  Nothing here asks the real
 * kernel: getifaddrs and if_nameindex build these lists, which glibc's
 * freeifaddrs and if_freenameindex (one free) release.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "world/world.h"

/* <linux/if.h>'s, which clashes with <net/if.h>: the carrier is up. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

struct iface {
  const char *name;
  unsigned flags;
  unsigned short hatype;
};

static const struct iface ifaces[NET_IFACES] = {
  { "lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP, ARPHRD_LOOPBACK },
  { "eth0", IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP, ARPHRD_ETHER },
};

/* This host's index on the simulated net (0 outside a world). */
static unsigned host(void) { return detsim__world_hosts() ? detsim__host_index : 0; }

const char *net_iface_name(unsigned index) {
  return index >= 1 && index <= NET_IFACES ? ifaces[index - 1].name : NULL;
}

unsigned net_iface_index(const char *name) {
  for (unsigned i = 0; name != NULL && i < NET_IFACES; i++)
    if (strcmp(name, ifaces[i].name) == 0) return i + 1;
  return 0;
}

static void v4(struct net_addr *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3) {
  memset(a, 0, sizeof *a);
  a->family = AF_INET;
  a->ip[10] = a->ip[11] = 0xff;
  a->ip[12] = b0;
  a->ip[13] = b1;
  a->ip[14] = b2;
  a->ip[15] = b3;
}

void net_iface_addr4(unsigned index, struct net_addr *out) {
  if (index == NET_IFINDEX_NET) v4(out, 127, 0, DETSIM_WORLD_NET_B2, (uint8_t)(host() + 1));
  else v4(out, 127, 0, 0, 1);
}

void net_iface_broadcast4(unsigned index, struct net_addr *out) {
  if (index == NET_IFINDEX_NET) v4(out, 127, 0, DETSIM_WORLD_NET_B2, 255);
  else v4(out, 127, 255, 255, 255);
}

unsigned net_iface_of_broadcast(const struct net_addr *a) {
  if (!net_addr_is_v4(a)) return 0;
  static const uint8_t limited[4] = { 255, 255, 255, 255 };
  if (memcmp(a->ip + 12, limited, 4) == 0) return NET_IFINDEX_NET;
  for (unsigned i = 1; i <= NET_IFACES; i++) {
    struct net_addr b;
    net_iface_broadcast4(i, &b);
    if (memcmp(b.ip, a->ip, 16) == 0) return i;
  }
  return 0;
}

unsigned net_iface_of_addr(const struct net_addr *a) {
  if (!net_addr_is_v4(a) || net_addr_is_any(a) || !net_addr_is_local(a)) return 0;
  struct net_addr mine;
  net_iface_addr4(NET_IFINDEX_NET, &mine);
  return memcmp(a->ip, mine.ip, 16) == 0 ? NET_IFINDEX_NET : NET_IFINDEX_LO;
}

/* ---- getifaddrs: one block, the list first (freeifaddrs frees it) ---- */

/* Entries: a packet one per interface, then lo's and eth0's IPv4, then
 * lo's IPv6 (glibc's order: links, then addresses by family). */
#define ENTRIES (NET_IFACES + NET_IFACES + 1)

struct ifaddrs_block {
  struct ifaddrs list[ENTRIES];
  struct sockaddr_ll ll[NET_IFACES], ll_brd[NET_IFACES];
  struct rtnl_link_stats stats[NET_IFACES];
  struct sockaddr_in in[NET_IFACES], in_mask[NET_IFACES], in_brd[NET_IFACES];
  struct sockaddr_in6 in6, in6_mask;
  char names[NET_IFACES][IFNAMSIZ];
};

static void to_sin(const struct net_addr *a, struct sockaddr_in *out) {
  memset(out, 0, sizeof *out);
  out->sin_family = AF_INET;
  memcpy(&out->sin_addr, a->ip + 12, 4);
}

int net_getifaddrs(struct ifaddrs **out) {
  struct ifaddrs_block *b = calloc(1, sizeof *b);
  if (b == NULL) return ENOMEM;
  unsigned n = 0;
  for (unsigned i = 0; i < NET_IFACES; i++) {
    strcpy(b->names[i], ifaces[i].name);
    struct sockaddr_ll *ll = &b->ll[i];
    ll->sll_family = AF_PACKET;
    ll->sll_ifindex = (int)i + 1;
    ll->sll_hatype = ifaces[i].hatype;
    ll->sll_halen = 6;
    if (i + 1 == NET_IFINDEX_NET) {
      /* A locally administered MAC naming the host's address. */
      static const uint8_t prefix[4] = { 0x02, 0x00, 127, 0 };
      memcpy(ll->sll_addr, prefix, 4);
      ll->sll_addr[4] = DETSIM_WORLD_NET_B2;
      ll->sll_addr[5] = (uint8_t)(host() + 1);
      b->ll_brd[i] = *ll;
      memset(b->ll_brd[i].sll_addr, 0xff, 6);
    } else {
      b->ll_brd[i] = *ll;
    }
    struct ifaddrs *e = &b->list[n++];
    e->ifa_name = b->names[i];
    e->ifa_flags = ifaces[i].flags;
    e->ifa_addr = (struct sockaddr *)ll;
    e->ifa_broadaddr = (struct sockaddr *)&b->ll_brd[i];
    e->ifa_data = &b->stats[i];
  }
  for (unsigned i = 0; i < NET_IFACES; i++) {
    struct net_addr a, brd;
    net_iface_addr4(i + 1, &a);
    net_iface_broadcast4(i + 1, &brd);
    to_sin(&a, &b->in[i]);
    b->in_mask[i].sin_family = AF_INET;
    b->in_mask[i].sin_addr.s_addr = htonl(i + 1 == NET_IFINDEX_NET ? 0xffffff00u : 0xff000000u);
    /* lo has no broadcast: glibc reports its own address there. */
    if (i + 1 == NET_IFINDEX_NET) to_sin(&brd, &b->in_brd[i]);
    else b->in_brd[i] = b->in[i];
    struct ifaddrs *e = &b->list[n++];
    e->ifa_name = b->names[i];
    e->ifa_flags = ifaces[i].flags;
    e->ifa_addr = (struct sockaddr *)&b->in[i];
    e->ifa_netmask = (struct sockaddr *)&b->in_mask[i];
    e->ifa_broadaddr = (struct sockaddr *)&b->in_brd[i];
  }
  b->in6.sin6_family = AF_INET6;
  b->in6.sin6_addr = in6addr_loopback;
  b->in6_mask.sin6_family = AF_INET6;
  memset(&b->in6_mask.sin6_addr, 0xff, 16);
  struct ifaddrs *e = &b->list[n++];
  e->ifa_name = b->names[NET_IFINDEX_LO - 1];
  e->ifa_flags = ifaces[NET_IFINDEX_LO - 1].flags;
  e->ifa_addr = (struct sockaddr *)&b->in6;
  e->ifa_netmask = (struct sockaddr *)&b->in6_mask;
  for (unsigned i = 0; i + 1 < n; i++) b->list[i].ifa_next = &b->list[i + 1];
  *out = b->list;
  return 0;
}

/* ---- if_nameindex: one block, the array first (if_freenameindex frees it) ---- */

struct nameindex_block {
  struct if_nameindex list[NET_IFACES + 1];
  char names[NET_IFACES][IFNAMSIZ];
};

struct if_nameindex *net_if_nameindex(void) {
  struct nameindex_block *b = calloc(1, sizeof *b);
  if (b == NULL) return NULL;
  for (unsigned i = 0; i < NET_IFACES; i++) {
    strcpy(b->names[i], ifaces[i].name);
    b->list[i].if_index = i + 1;
    b->list[i].if_name = b->names[i];
  }
  return b->list;
}
