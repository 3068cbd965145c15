/* The simulated host's interfaces as getifaddrs, if_nameindex,
 * if_nametoindex and SO_BINDTODEVICE see them: lo and eth0 (its address
 * on the simulated net), and nothing of the real host's.  Prints one line
 * per getifaddrs entry and per if_nameindex entry, their counts, then
 * lookups.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *text(const struct sockaddr *a, char *buf, size_t n) {
  if (a == NULL) return "-";
  if (a->sa_family == AF_INET) return inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buf, (socklen_t)n);
  if (a->sa_family == AF_INET6)
    return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, buf, (socklen_t)n);
  if (a->sa_family == AF_PACKET) {
    const struct sockaddr_ll *l = (const struct sockaddr_ll *)a;
    snprintf(buf, n, "ll:%d:%02x:%02x:%02x:%02x:%02x:%02x", l->sll_ifindex, l->sll_addr[0], l->sll_addr[1],
             l->sll_addr[2], l->sll_addr[3], l->sll_addr[4], l->sll_addr[5]);
    return buf;
  }
  return "?";
}

int main(void) {
  struct ifaddrs *list;
  if (getifaddrs(&list) != 0) {
    printf("getifaddrs=-1 %s\n", strerrorname_np(errno));
    return 1;
  }
  int entries = 0;
  for (struct ifaddrs *p = list; p; p = p->ifa_next) {
    char a[64], m[64], b[64];
    entries++;
    printf("ifaddr %s flags=%#x addr=%s mask=%s brd=%s data=%d\n", p->ifa_name, p->ifa_flags,
           text(p->ifa_addr, a, sizeof a), text(p->ifa_netmask, m, sizeof m), text(p->ifa_broadaddr, b, sizeof b),
           p->ifa_data != NULL);
  }
  freeifaddrs(list);
  struct if_nameindex *ni = if_nameindex();
  int names = 0;
  for (struct if_nameindex *q = ni; q && q->if_index; q++, names++) printf("nameindex %u %s\n", q->if_index, q->if_name);
  printf("ifaddrs=%d nameindex=%d\n", entries, names);
  if_freenameindex(ni);
  printf("nametoindex lo=%u eth0=%u wlan0=%u\n", if_nametoindex("lo"), if_nametoindex("eth0"), if_nametoindex("wlan0"));
  char name[IF_NAMESIZE];
  printf("indextoname 2=%s 3=%s\n", if_indextoname(2, name) ? name : "NULL",
         if_indextoname(3, name) ? name : strerrorname_np(errno));
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  printf("bindtodevice eth0=%d lo=%d\n", setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "eth0", 5),
         setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3));
  int r = setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "wlan0", 6);
  printf("bindtodevice wlan0=%d %s\n", r, r < 0 ? strerrorname_np(errno) : "");
  close(s);
  return 0;
}
