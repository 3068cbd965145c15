/* The IP options the model acts on: hop limits (IP_TTL,
 * IPV6_UNICAST_HOPS), how multicast is sent (IP_MULTICAST_TTL, _LOOP,
 * _IF, _ALL and their IPV6_MULTICAST_* forms) and SO_BROADCAST, with
 * Linux's defaults, ranges, value sizes and errors: at IPPROTO_IP a value
 * may be an int or a char and is read back as a char when asked for less
 * than an int; at IPPROTO_IPV6 it is an int.  On a TCP socket the
 * multicast sending options are EINVAL (IPv4) or ENOPROTOOPT (IPv6), as
 * Linux answers.  What they do is in net_udp.c (routes and delivery).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "net/net.h"

#define DEFAULT_HOPS 64 /* Linux's net.ipv4.ip_default_ttl and IPv6 hop_limit */

void net__sock_ip_defaults(struct net_sock *s) {
  s->uc_ttl = s->uc_hops = -1;
  s->mc_ttl = 1;
  s->mc_loop = true;
  s->mc_all = s->domain != AF_INET6; /* inet6_create leaves IPv4's off */
  s->mc6_hops = 1;
  s->mc6_loop = s->mc6_all = true;
}

bool net_ipopt_ip_int(const void *val, socklen_t len, int *out) {
  if (len >= (socklen_t)sizeof(int)) {
    memcpy(out, val, sizeof(int));
    return true;
  }
  *out = len >= 1 ? *(const unsigned char *)val : 0;
  return len >= 1;
}

int net_ipopt_put_ip_int(void *val, socklen_t *len, int x) {
  if (len == NULL || val == NULL) return EFAULT;
  if ((int)*len < 0) return EINVAL;
  if (*len > 0 && *len < (socklen_t)sizeof(int) && x >= 0 && x <= 255) {
    *(unsigned char *)val = (unsigned char)x;
    *len = 1;
    return 0;
  }
  socklen_t n = *len < (socklen_t)sizeof x ? *len : (socklen_t)sizeof x;
  memcpy(val, &x, n);
  *len = n;
  return 0;
}


/* IP_MULTICAST_IF: an in_addr, an ip_mreq or an ip_mreqn. */
static int set_mc_if(struct net_sock *s, const void *val, socklen_t len) {
  if (s->type == SOCK_STREAM) return EINVAL;
  if (len < (socklen_t)sizeof(struct in_addr)) return EINVAL;
  struct ip_mreqn m;
  memset(&m, 0, sizeof m);
  if (len >= (socklen_t)sizeof(struct ip_mreqn)) memcpy(&m, val, sizeof m);
  else if (len >= (socklen_t)sizeof(struct ip_mreq)) memcpy(&m, val, sizeof(struct ip_mreq));
  else memcpy(&m.imr_address, val, sizeof m.imr_address);
  unsigned index = 0;
  if (m.imr_ifindex == 0) {
    if (m.imr_address.s_addr == htonl(INADDR_ANY)) {
      s->mc_index = 0;
      memset(s->mc_addr, 0, 4);
      return 0;
    }
    struct net_addr a;
    memset(&a, 0, sizeof a);
    a.ip[10] = a.ip[11] = 0xff;
    memcpy(a.ip + 12, &m.imr_address, 4);
    index = net_iface_of_addr(&a);
  } else if (m.imr_ifindex > 0 && net_iface_name((unsigned)m.imr_ifindex) != NULL) {
    index = (unsigned)m.imr_ifindex;
  }
  if (index == 0) return EADDRNOTAVAIL;
  s->mc_index = index;
  memcpy(s->mc_addr, &m.imr_address, 4);
  return 0;
}

/* Each setter answers Linux's errno (0 once the value is stored). */
static int set_ip(struct net_sock *s, int name, const void *val, socklen_t len) {
  int x = 0;
  bool have = net_ipopt_ip_int(val, len, &x);
  switch (name) {
  case IP_TTL:
    if (!have || (x != -1 && (x < 1 || x > 255))) return EINVAL;
    s->uc_ttl = x;
    return 0;
  case IP_MULTICAST_TTL:
    if (s->type == SOCK_STREAM || !have) return EINVAL;
    if (x == -1) x = 1;
    if (x < 0 || x > 255) return EINVAL;
    s->mc_ttl = x;
    return 0;
  case IP_MULTICAST_LOOP:
    if (!have) return EINVAL;
    s->mc_loop = x != 0;
    return 0;
  case IP_MULTICAST_ALL:
    if (!have || (x != 0 && x != 1)) return EINVAL;
    s->mc_all = x != 0;
    return 0;
  case IP_RECVERR:
    s->recverr = x != 0;
    if (!s->recverr) net_udp_errq_purge(s);
    return 0;
  default:
    return set_mc_if(s, val, len);
  }
}

static int set_ipv6(struct net_sock *s, int name, const void *val, socklen_t len) {
  int x = 0;
  bool have = len >= (socklen_t)sizeof(int);
  if (have) memcpy(&x, val, sizeof x);
  switch (name) {
  case IPV6_UNICAST_HOPS:
    if (!have || x > 255 || x < -1) return EINVAL;
    s->uc_hops = x;
    return 0;
  case IPV6_MULTICAST_HOPS:
    if (s->type == SOCK_STREAM) return ENOPROTOOPT;
    if (!have || x > 255 || x < -1) return EINVAL;
    s->mc6_hops = x == -1 ? 1 : x;
    return 0;
  case IPV6_MULTICAST_LOOP:
    if (!have || (x != 0 && x != 1)) return EINVAL;
    s->mc6_loop = x != 0;
    return 0;
  case IPV6_MULTICAST_ALL:
    if (!have) return EINVAL;
    s->mc6_all = x != 0;
    return 0;
  case IPV6_RECVERR:
    if (!have) return EINVAL;
    s->recverr6 = x != 0;
    if (!s->recverr6) net_udp_errq_purge(s);
    return 0;
  default: /* IPV6_MULTICAST_IF */
    if (s->type == SOCK_STREAM) return ENOPROTOOPT;
    if (!have) return EINVAL;
    if (x != 0 && (x < 0 || net_iface_name((unsigned)x) == NULL)) return ENODEV;
    s->mc6_oif = (unsigned)x;
    return 0;
  }
}

static bool is_ip_option(int name) {
  return name == IP_TTL || name == IP_MULTICAST_TTL || name == IP_MULTICAST_LOOP || name == IP_MULTICAST_ALL ||
         name == IP_MULTICAST_IF || name == IP_RECVERR;
}

static bool is_ipv6_option(int name) {
  return name == IPV6_UNICAST_HOPS || name == IPV6_MULTICAST_HOPS || name == IPV6_MULTICAST_LOOP ||
         name == IPV6_MULTICAST_ALL || name == IPV6_MULTICAST_IF || name == IPV6_RECVERR;
}

bool net_ipopt_set(struct net_sock *s, int level, int name, const void *val, socklen_t len, int *err) {
  if (level == SOL_SOCKET && name == SO_BROADCAST) {
    if (len < (socklen_t)sizeof(int)) {
      *err = EINVAL;
      return true;
    }
    int x;
    memcpy(&x, val, sizeof x);
    s->broadcast = x != 0;
    *err = 0;
    return true;
  }
  if (level == IPPROTO_IP && is_ip_option(name)) {
    *err = set_ip(s, name, val, len);
    return true;
  }
  if (level == IPPROTO_IPV6 && is_ipv6_option(name)) {
    *err = set_ipv6(s, name, val, len);
    return true;
  }
  return false;
}

bool net_ipopt_get(struct net_sock *s, int level, int name, void *val, socklen_t *len, int *err) {
  if (level == SOL_SOCKET && name == SO_BROADCAST) {
    *err = net_sockopt_put_int(val, len, s->broadcast);
    return true;
  }
  if (level == IPPROTO_IP) {
    switch (name) {
    case IP_TTL: *err = net_ipopt_put_ip_int(val, len, s->uc_ttl < 0 ? DEFAULT_HOPS : s->uc_ttl); return true;
    case IP_MULTICAST_TTL: *err = net_ipopt_put_ip_int(val, len, s->mc_ttl); return true;
    case IP_MULTICAST_LOOP: *err = net_ipopt_put_ip_int(val, len, s->mc_loop); return true;
    case IP_MULTICAST_ALL: *err = net_ipopt_put_ip_int(val, len, s->mc_all); return true;
    case IP_RECVERR: *err = net_ipopt_put_ip_int(val, len, s->recverr); return true;
    case IP_MULTICAST_IF: {
      if (val == NULL || len == NULL) {
        *err = EFAULT;
        return true;
      }
      if ((int)*len < 0) {
        *err = EINVAL;
        return true;
      }
      socklen_t n = *len < 4 ? *len : 4;
      memcpy(val, s->mc_addr, n);
      *len = n;
      *err = 0;
      return true;
    }
    default: break;
    }
    if (net_mcast_is_membership_option(level, name)) {
      *err = ENOPROTOOPT; /* set-only */
      return true;
    }
    return false;
  }
  if (level == IPPROTO_IPV6) {
    switch (name) {
    case IPV6_UNICAST_HOPS: *err = net_sockopt_put_int(val, len, s->uc_hops < 0 ? DEFAULT_HOPS : s->uc_hops); return true;
    case IPV6_MULTICAST_HOPS: *err = net_sockopt_put_int(val, len, s->mc6_hops); return true;
    case IPV6_MULTICAST_LOOP: *err = net_sockopt_put_int(val, len, s->mc6_loop); return true;
    case IPV6_MULTICAST_ALL: *err = net_sockopt_put_int(val, len, s->mc6_all); return true;
    case IPV6_RECVERR: *err = net_sockopt_put_int(val, len, s->recverr6); return true;
    case IPV6_MULTICAST_IF: *err = net_sockopt_put_int(val, len, (int)s->mc6_oif); return true;
    default: break;
    }
    if (net_mcast_is_membership_option(level, name)) {
      *err = ENOPROTOOPT;
      return true;
    }
  }
  return false;
}
