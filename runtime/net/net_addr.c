/* Socket addresses: parsing what programs pass, writing back what they read.
 *
 * Inside the runtime every address has one form (struct net_addr): IPv4 is
 * kept v4-mapped, so one comparison serves both families, as a dual-stack
 * kernel does.  The node's own addresses are the loopback ones (127.0.0.0/8
 * and ::1) and the wildcards; anything else names a host that does not exist
 * in this world.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "core/core.h"
#include "net/net.h"
#include "world/world.h"

static const uint8_t v4_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

bool net_addr_is_v4(const struct net_addr *a) {
  return memcmp(a->ip, v4_prefix, 12) == 0;
}

bool net_addr_is_any(const struct net_addr *a) {
  static const uint8_t zero[16];
  if (memcmp(a->ip, zero, 16) == 0) return true;
  return net_addr_is_v4(a) && a->ip[12] == 0 && a->ip[13] == 0 && a->ip[14] == 0 && a->ip[15] == 0;
}

int net_addr_node(const struct net_addr *a) {
  static const uint8_t loop6[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
  int me = (int)detsim__host_index;
  if (net_addr_is_any(a)) return me;
  if (net_addr_is_v4(a)) {
    if (a->ip[12] != 127) return -1;
    /* In a world, 127.0.1.(k+1) is node k; the rest of 127/8 is each
     * node's own loopback. */
    if (detsim__world_hosts() && a->ip[13] == 0 && a->ip[14] == DETSIM_WORLD_NET_B2)
      return a->ip[15] >= 1 && a->ip[15] <= detsim__ws->n_hosts ? a->ip[15] - 1 : -1;
    return me;
  }
  return memcmp(a->ip, loop6, 16) == 0 ? me : -1;
}

bool net_addr_needs_scope(const struct net_addr *a) {
  if (net_addr_is_v4(a)) return false;
  if (a->ip[0] == 0xfe && (a->ip[1] & 0xc0) == 0x80) return true; /* fe80::/10 */
  /* multicast of interface-local or link-local scope */
  return a->ip[0] == 0xff && ((a->ip[1] & 0x0f) == 1 || (a->ip[1] & 0x0f) == 2);
}

bool net_addr_is_local(const struct net_addr *a) { return net_addr_node(a) == (int)detsim__host_index; }

bool net_addr_is_node_address(const struct net_addr *a) {
  return detsim__world_hosts() && net_addr_is_v4(a) && a->ip[12] == 127 && a->ip[13] == 0 &&
         a->ip[14] == DETSIM_WORLD_NET_B2;
}

int net_addr_from(int sock_family, const struct sockaddr *sa, socklen_t len, struct net_addr *out) {
  memset(out, 0, sizeof *out);
  if (sa == NULL) return EFAULT;
  if (len < (socklen_t)sizeof(sa_family_t)) return EINVAL;
  int fam = sa->sa_family;
  if (sock_family == AF_UNIX) {
    if (fam != AF_UNIX) return EINVAL;
    if (len > (socklen_t)sizeof(struct sockaddr_un)) return EINVAL;
    const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
    unsigned n = (unsigned)(len - offsetof(struct sockaddr_un, sun_path));
    out->family = AF_UNIX;
    if (n > 0 && un->sun_path[0] != '\0') {
      /* A filesystem path: up to its NUL, as the kernel reads it. */
      unsigned k = 0;
      while (k < n && un->sun_path[k] != '\0') k++;
      n = k;
    }
    memcpy(out->path, un->sun_path, n);
    out->path_len = n;
    return 0;
  }
  if (sock_family == AF_INET6 && len < NET_SIN6_LEN_RFC2133) return EINVAL; /* inet6_bind's first check */
  if (fam == AF_INET) {
    if (sock_family != AF_INET && sock_family != AF_INET6) return EAFNOSUPPORT;
    if (sock_family == AF_INET6) return EAFNOSUPPORT; /* v6 sockets take v4-mapped v6 addresses */
    if (len < (socklen_t)sizeof(struct sockaddr_in)) return EINVAL;
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    out->family = AF_INET;
    memcpy(out->ip, v4_prefix, 12);
    memcpy(out->ip + 12, &in->sin_addr, 4);
    out->port = ntohs(in->sin_port);
    return 0;
  }
  if (fam == AF_INET6) {
    if (sock_family != AF_INET6) return EAFNOSUPPORT;
    /* RFC 2133's sockaddr_in6 had no scope id: Linux takes its 24 bytes. */
    if (len < NET_SIN6_LEN_RFC2133) return EINVAL;
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    out->family = AF_INET6;
    memcpy(out->ip, &in6->sin6_addr, 16);
    out->port = ntohs(in6->sin6_port);
    /* The scope id counts only where the address needs one (link-local),
     * as Linux binds the socket to that device and reports it back. */
    if (len >= (socklen_t)sizeof(struct sockaddr_in6) && net_addr_needs_scope(out)) out->scope_id = in6->sin6_scope_id;
    return 0;
  }
  if (fam == AF_UNSPEC) return EAFNOSUPPORT;
  return EAFNOSUPPORT;
}

static void copy_out(const void *src, socklen_t full, struct sockaddr *sa, socklen_t *len) {
  if (len == NULL) return;
  socklen_t n = *len < full ? *len : full;
  if (sa != NULL && n > 0) memcpy(sa, src, n);
  *len = full;
}

void net_addr_to(int sock_family, const struct net_addr *a, struct sockaddr *sa, socklen_t *len) {
  if (sock_family == AF_UNIX) {
    struct sockaddr_un un;
    memset(&un, 0, sizeof un);
    un.sun_family = AF_UNIX;
    socklen_t full = (socklen_t)offsetof(struct sockaddr_un, sun_path);
    if (a->family == AF_UNIX && a->path_len > 0) {
      memcpy(un.sun_path, a->path, a->path_len);
      full += (socklen_t)a->path_len;
      /* a path name is reported with its terminating NUL, as Linux does */
      if (a->path[0] != '\0' && a->path_len < sizeof un.sun_path) full++;
    }
    copy_out(&un, full, sa, len);
    return;
  }
  if (sock_family == AF_INET) {
    struct sockaddr_in in;
    memset(&in, 0, sizeof in);
    in.sin_family = AF_INET;
    if (a->family != 0) memcpy(&in.sin_addr, a->ip + 12, 4);
    in.sin_port = htons(a->port);
    copy_out(&in, sizeof in, sa, len);
    return;
  }
  struct sockaddr_in6 in6;
  memset(&in6, 0, sizeof in6);
  in6.sin6_family = AF_INET6;
  if (a->family != 0) memcpy(&in6.sin6_addr, a->ip, 16);
  in6.sin6_port = htons(a->port);
  in6.sin6_scope_id = a->scope_id;
  copy_out(&in6, sizeof in6, sa, len);
}

void net_addr_text(const struct net_addr *a, char *buf, size_t len) {
  if (a->family == AF_UNIX) {
    if (a->path_len == 0) snprintf(buf, len, "unix:(unnamed)");
    else if (a->path[0] == '\0') snprintf(buf, len, "unix:@%.*s", (int)a->path_len - 1, a->path + 1);
    else snprintf(buf, len, "unix:%.*s", (int)a->path_len, a->path);
    return;
  }
  char ip[INET6_ADDRSTRLEN];
  if (net_addr_is_v4(a)) {
    inet_ntop(AF_INET, a->ip + 12, ip, sizeof ip);
    snprintf(buf, len, "%s:%u", ip, a->port);
  } else {
    inet_ntop(AF_INET6, a->ip, ip, sizeof ip);
    snprintf(buf, len, "[%s]:%u", ip, a->port);
  }
}
