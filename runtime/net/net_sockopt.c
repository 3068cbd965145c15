/* Socket options: the ones the model acts on (SO_REUSEADDR/PORT, SO_LINGER,
 * SO_RCVTIMEO/SNDTIMEO, IPV6_V6ONLY, SO_ERROR, SO_RXQ_OVFL here; multicast memberships in
 * net_mcast.c; TTLs, multicast sending and SO_BROADCAST in net_ipopt.c),
 * the ones it accepts and reads back as Linux would (TCP_NODELAY,
 * SO_KEEPALIVE, buffer sizes and the like), and the rest, which fail with
 * Linux's errno and a report naming the option.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "net/net.h"
#include "core/core.h"
#include "proc/proc.h"

static bool is_unix(const struct net_sock *s) { return s->domain == AF_UNIX; }

static int *stored(struct net_sock *s, int level, int name, bool create) {
  for (unsigned i = 0; i < s->nopts; i++)
    if (s->opts[i].level == level && s->opts[i].name == name) return &s->opts[i].value;
  if (!create) return NULL;
  if (s->nopts == DETSIM_NET_SOCKOPTS_MAX) {
    net_limit("net_sockopts_max", DETSIM_NET_SOCKOPTS_MAX, "more distinct socket options set on one socket");
    return NULL;
  }
  s->opts[s->nopts].level = level;
  s->opts[s->nopts].name = name;
  return &s->opts[s->nopts++].value;
}

/* Options the model accepts and remembers (it does not act on them): the
 * value read back is the value set, or Linux's default. */
static bool plain_option(int level, int name, int *def) {
  *def = 0;
  if (level == SOL_SOCKET) {
    switch (name) {
    case SO_KEEPALIVE: case SO_DONTROUTE: case SO_PRIORITY:
    case SO_PASSCRED: case SO_TIMESTAMP: case SO_TIMESTAMPNS: case SO_MARK: case SO_BUSY_POLL:
    case SO_ZEROCOPY: case SO_INCOMING_CPU: case SO_SNDLOWAT: case SO_PASSSEC:
      return true;
    case SO_RCVLOWAT: *def = 1; return true;
    default: return false;
    }
  }
  if (level == IPPROTO_TCP) {
    switch (name) {
    case TCP_NODELAY: case TCP_CORK: case TCP_QUICKACK: case TCP_DEFER_ACCEPT: case TCP_WINDOW_CLAMP:
    case TCP_USER_TIMEOUT: case TCP_NOTSENT_LOWAT: case TCP_FASTOPEN: case TCP_FASTOPEN_CONNECT:
    case TCP_THIN_LINEAR_TIMEOUTS: case TCP_LINGER2:
      return true;
    case TCP_MAXSEG: *def = 536; return true;
    case TCP_KEEPIDLE: *def = 7200; return true;
    case TCP_KEEPINTVL: *def = 75; return true;
    case TCP_KEEPCNT: *def = 9; return true;
    case TCP_SYNCNT: *def = 6; return true;
    default: return false;
    }
  }
  if (level == IPPROTO_IP) {
    switch (name) {
    case IP_TOS: case IP_FREEBIND: case IP_BIND_ADDRESS_NO_PORT: case IP_RECVTOS:
      return true;
    case IP_MTU_DISCOVER: *def = IP_PMTUDISC_WANT; return true;
    default: return false;
    }
  }
  if (level == IPPROTO_IPV6) {
    switch (name) {
    case IPV6_TCLASS: case IPV6_RECVTCLASS:
      return true;
    default: return false;
    }
  }
  return false;
}

static const char *level_name(int level) {
  switch (level) {
  case SOL_SOCKET: return "SOL_SOCKET";
  case IPPROTO_TCP: return "IPPROTO_TCP";
  case IPPROTO_IP: return "IPPROTO_IP";
  case IPPROTO_IPV6: return "IPPROTO_IPV6";
  default: return "an unknown level";
  }
}

static int unknown_option(int level, int name, const char *call) {
  char what[96];
  snprintf(what, sizeof what, "%s(%s, %d)", call, level_name(level), name);
  if (level == SOL_SOCKET || level == IPPROTO_TCP || level == IPPROTO_IP || level == IPPROTO_IPV6)
    net_unsupported(what, "this socket option");
  else
    net_unsupported(what, "this socket option level");
  return ENOPROTOOPT;
}

/* IPPROTO_IPV6 on an IPv4 socket: Linux's ip_setsockopt knows no such
 * level (ENOPROTOOPT; getsockopt says EOPNOTSUPP), a modeled answer. */
static bool ipv6_on_ipv4(const struct net_sock *s, int level) {
  return level == IPPROTO_IPV6 && s->domain == AF_INET;
}

static bool level_fits(const struct net_sock *s, int level) {
  if (level == SOL_SOCKET) return true;
  if (is_unix(s)) return false;
  if (level == IPPROTO_TCP || level == IPPROTO_IP) return true;
  return level == IPPROTO_IPV6 && s->domain == AF_INET6;
}

static uint64_t timeval_ns(const struct timeval *tv) {
  return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

/* sock_setsockopt's SO_RCVBUF/SO_SNDBUF: the value (as unsigned, so a
 * negative one is huge) capped at rmem_max/wmem_max, doubled for the
 * kernel's bookkeeping, floored; the FORCE forms need CAP_NET_ADMIN and
 * skip the cap (a negative value is 0).  The buffers of a connection
 * follow at once. */
static int set_buffer(struct net_sock *s, int name, int x) {
  bool force = name == SO_RCVBUFFORCE || name == SO_SNDBUFFORCE;
  bool rcv = name == SO_RCVBUF || name == SO_RCVBUFFORCE;
  if (force && geteuid() != 0) return EPERM;
  uint64_t v;
  if (force) {
    v = x < 0 ? 0 : (uint64_t)x;
    if (v > DETSIM_NET_BUFFER_BYTES_MAX) v = DETSIM_NET_BUFFER_BYTES_MAX;
  } else {
    uint64_t max = rcv ? DETSIM_NET_RMEM_MAX : DETSIM_NET_WMEM_MAX;
    v = (uint32_t)x;
    if (v > max) v = max;
  }
  v *= 2;
  uint64_t floor = rcv ? DETSIM_NET_RCVBUF_MIN : DETSIM_NET_SNDBUF_MIN;
  if (v < floor) v = floor;
  if (rcv) {
    s->rcvbuf = (int)v;
    s->rcvbuf_set = true;
  } else {
    s->sndbuf = (int)v;
    s->sndbuf_set = true;
  }
  if (s->conn != NULL) {
    net__conn_caps(s->conn);
    if (s->file != NULL) net_wake_file(s->file); /* a writer blocked on the old size looks again */
  }
  return 0;
}

int net_setsockopt(struct net_file *f, int level, int name, const void *val, socklen_t len) {
  struct net_sock *s = net_sock_of(f);
  if (!level_fits(s, level)) {
    if (is_unix(s)) return EOPNOTSUPP;
    if (ipv6_on_ipv4(s, level)) return ENOPROTOOPT;
    return unknown_option(level, name, "setsockopt");
  }
  if (val == NULL && len > 0) return EFAULT;
  if (net_mcast_is_membership_option(level, name)) return net_mcast_membership(s, level, name, val, len);
  int err;
  if (net_ipopt_set(s, level, name, val, len, &err)) return err;
  if (level == SOL_SOCKET && (name == SO_RCVTIMEO_OLD || name == SO_SNDTIMEO_OLD ||
                             name == SO_RCVTIMEO_NEW || name == SO_SNDTIMEO_NEW)) {
    if (len < (socklen_t)sizeof(struct timeval)) return EINVAL;
    struct timeval tv;
    memcpy(&tv, val, sizeof tv);
    if (tv.tv_usec < 0 || tv.tv_usec >= 1000000) return EDOM;
    uint64_t ns = tv.tv_sec < 0 ? 0 : timeval_ns(&tv);
    if (name == SO_RCVTIMEO_OLD || name == SO_RCVTIMEO_NEW) s->rcvtimeo_ns = ns;
    else s->sndtimeo_ns = ns;
    return 0;
  }
  if (level == SOL_SOCKET && name == SO_LINGER) {
    if (len < (socklen_t)sizeof(struct linger)) return EINVAL;
    struct linger lg;
    memcpy(&lg, val, sizeof lg);
    s->linger_on = lg.l_onoff != 0;
    s->linger_s = lg.l_linger;
    return 0;
  }
  if (level == SOL_SOCKET && name == SO_BINDTODEVICE) {
    char dev[IFNAMSIZ] = "";
    memcpy(dev, val, len < sizeof dev - 1 ? len : sizeof dev - 1);
    if (dev[0] == '\0' || net_iface_index(dev) != 0) return 0; /* every datagram uses the route's device */
    return ENODEV;
  }
  if (level == IPPROTO_TCP && name == TCP_CONGESTION) return 0; /* any algorithm: no congestion is modeled */
  int x;
  if (level == IPPROTO_IP) {
    /* ip_setsockopt reads an int, or a char when given less */
    if (!net_ipopt_ip_int(val, len, &x)) return EINVAL;
  } else {
    if (len < (socklen_t)sizeof(int)) return EINVAL;
    memcpy(&x, val, sizeof x);
  }
  if (level == SOL_SOCKET) {
    switch (name) {
    case SO_REUSEADDR: s->reuseaddr = x != 0; return 0;
    case SO_REUSEPORT: s->reuseport = x != 0; return 0;
    case SO_OOBINLINE: s->oobinline = x != 0; return 0;
    case SO_RXQ_OVFL: s->rxq_ovfl = x != 0; return 0;
    case SO_RCVBUF: case SO_RCVBUFFORCE: case SO_SNDBUF: case SO_SNDBUFFORCE:
      return set_buffer(s, name, x);
    case SO_ERROR: case SO_TYPE: case SO_DOMAIN: case SO_PROTOCOL: case SO_ACCEPTCONN: case SO_PEERCRED:
      return ENOPROTOOPT;
    default: break;
    }
  }
  if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) {
    if (s->bound) return EINVAL;
    s->v6only = x != 0;
    return 0;
  }
  if (level == IPPROTO_TCP && name == TCP_SYNCNT && (x < 1 || x > DETSIM_NET_SYNCNT_MAX)) return EINVAL;
  int def;
  if (!plain_option(level, name, &def)) return unknown_option(level, name, "setsockopt");
  int *slot = stored(s, level, name, true);
  if (slot == NULL) return ENOMEM;
  *slot = x;
  return 0;
}

int net_sockopt_put_int(void *val, socklen_t *len, int x) {
  if (len == NULL || val == NULL) return EFAULT;
  if ((int)*len < 0) return EINVAL;
  socklen_t n = *len < (socklen_t)sizeof x ? *len : (socklen_t)sizeof x;
  memcpy(val, &x, n);
  *len = n;
  return 0;
}

int net_getsockopt(struct net_file *f, int level, int name, void *val, socklen_t *len) {
  struct net_sock *s = net_sock_of(f);
  if (!level_fits(s, level)) {
    if (is_unix(s)) return EOPNOTSUPP;
    if (!ipv6_on_ipv4(s, level)) unknown_option(level, name, "getsockopt");
    return EOPNOTSUPP; /* ip_getsockopt's answer to a level it does not know */
  }
  if (len == NULL) return EFAULT;
  int err;
  if (net_ipopt_get(s, level, name, val, len, &err)) return err;
  if (level == SOL_SOCKET) {
    switch (name) {
    case SO_ERROR: return net_sockopt_put_int(val, len, net__sock_take_error(s));
    case SO_TYPE: return net_sockopt_put_int(val, len, s->type);
    case SO_DOMAIN: return net_sockopt_put_int(val, len, s->domain);
    case SO_PROTOCOL: return net_sockopt_put_int(val, len, s->protocol);
    case SO_ACCEPTCONN: return net_sockopt_put_int(val, len, s->state == SS_LISTEN);
    case SO_REUSEADDR: return net_sockopt_put_int(val, len, s->reuseaddr);
    case SO_REUSEPORT: return net_sockopt_put_int(val, len, s->reuseport);
    case SO_OOBINLINE: return net_sockopt_put_int(val, len, s->oobinline);
    case SO_RXQ_OVFL: return net_sockopt_put_int(val, len, s->rxq_ovfl);
    case SO_RCVBUF: return net_sockopt_put_int(val, len, s->rcvbuf);
    case SO_SNDBUF: return net_sockopt_put_int(val, len, s->sndbuf);
    case SO_LINGER: {
      struct linger lg = { s->linger_on, s->linger_s };
      socklen_t n = *len < (socklen_t)sizeof lg ? *len : (socklen_t)sizeof lg;
      if (val == NULL) return EFAULT;
      memcpy(val, &lg, n);
      *len = n;
      return 0;
    }
    case SO_RCVTIMEO_OLD:
    case SO_SNDTIMEO_OLD:
    case SO_RCVTIMEO_NEW:
    case SO_SNDTIMEO_NEW: {
      uint64_t ns = name == SO_RCVTIMEO_OLD || name == SO_RCVTIMEO_NEW ? s->rcvtimeo_ns : s->sndtimeo_ns;
      struct timeval tv = { (time_t)(ns / 1000000000ull), (suseconds_t)(ns % 1000000000ull / 1000) };
      socklen_t n = *len < (socklen_t)sizeof tv ? *len : (socklen_t)sizeof tv;
      if (val == NULL) return EFAULT;
      memcpy(val, &tv, n);
      *len = n;
      return 0;
    }
    case SO_PEERCRED: {
      if (!is_unix(s)) return ENOPROTOOPT;
      struct ucred cr = { detsim__proc_pid(), getuid(), getgid() };
      socklen_t n = *len < (socklen_t)sizeof cr ? *len : (socklen_t)sizeof cr;
      if (val == NULL) return EFAULT;
      memcpy(val, &cr, n);
      *len = n;
      return 0;
    }
    default: break;
    }
  }
  if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) return net_sockopt_put_int(val, len, s->v6only);
  if (level == IPPROTO_TCP && name == TCP_CONGESTION) {
    static const char algo[16] = "cubic";
    socklen_t n = *len < 16 ? *len : 16;
    if (val == NULL) return EFAULT;
    memcpy(val, algo, n);
    *len = n;
    return 0;
  }
  int def;
  if (!plain_option(level, name, &def)) return unknown_option(level, name, "getsockopt");
  int *slot = stored(s, level, name, false);
  if (level == IPPROTO_IP) return net_ipopt_put_ip_int(val, len, slot ? *slot : def);
  return net_sockopt_put_int(val, len, slot ? *slot : def);
}


unsigned net__sock_syncnt(struct net_sock *s) {
  int *slot = stored(s, IPPROTO_TCP, TCP_SYNCNT, false);
  return slot ? (unsigned)*slot : NET_SYN_RETRIES;
}
