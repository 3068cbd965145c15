/* Interceptors: libc functions that open real sockets inside libc, where no
 * interposition sees them (syslog's /dev/log, the resolver's DNS and nscd,
 * netlink for interfaces).  Each is replaced whole: simulated where the
 * simulation knows the answer (host names through the simulated
 * getaddrinfo, the host's interfaces), else a named error (one warning,
 * then the call fails as it would without the service) and never a real
 * socket.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>

#include "limits.h"
#include "net/net.h"
#include "intercept/intercept.h"

/* ---- syslog: the message would go to a real unix socket ---- */

static void syslog_dropped(void) {
  net_unsupported("syslog", "a real unix socket to /dev/log: the message is dropped");
}

DETSIM_EXPORT void __detsim_openlog(const char *ident, int option, int facility) {
  (void)ident;
  (void)option;
  (void)facility;
}
DETSIM_INTERCEPT_ALIAS(openlog)

DETSIM_EXPORT void __detsim_closelog(void) {}
DETSIM_INTERCEPT_ALIAS(closelog)

DETSIM_EXPORT void __detsim_vsyslog(int priority, const char *fmt, va_list ap) {
  (void)priority;
  (void)fmt;
  (void)ap;
  syslog_dropped();
}
DETSIM_INTERCEPT_ALIAS(vsyslog)

DETSIM_EXPORT void __detsim_syslog(int priority, const char *fmt, ...) {
  (void)priority;
  (void)fmt;
  syslog_dropped();
}
DETSIM_INTERCEPT_ALIAS(syslog)

/* ---- host names: the simulated getaddrinfo answers ---- */

int __detsim_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
void __detsim_freeaddrinfo(struct addrinfo *res);

static struct hostent host;
static char host_name[256];
static char host_addrs[DETSIM_HOSTENT_ADDRS_MAX][16];
static char *host_addr_list[DETSIM_HOSTENT_ADDRS_MAX + 1];
static char *host_aliases[1];

static struct hostent *host_by_name(const char *name, int family) {
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  int e = name == NULL ? EAI_NONAME : __detsim_getaddrinfo(name, NULL, &hints, &res);
  if (e != 0) {
    h_errno = e == EAI_SYSTEM ? NETDB_INTERNAL : HOST_NOT_FOUND; /* glibc's for EMFILE */
    return NULL;
  }
  int n = 0;
  for (struct addrinfo *a = res; a != NULL && n < DETSIM_HOSTENT_ADDRS_MAX; a = a->ai_next) {
    if (a->ai_family == AF_INET) memcpy(host_addrs[n++], &((struct sockaddr_in *)a->ai_addr)->sin_addr, 4);
    else if (a->ai_family == AF_INET6) memcpy(host_addrs[n++], &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr, 16);
  }
  __detsim_freeaddrinfo(res);
  if (n == 0) {
    h_errno = NO_ADDRESS;
    return NULL;
  }
  for (int i = 0; i < n; i++) host_addr_list[i] = host_addrs[i];
  host_addr_list[n] = NULL;
  host_aliases[0] = NULL;
  snprintf(host_name, sizeof host_name, "%s", name);
  host.h_name = host_name;
  host.h_aliases = host_aliases;
  host.h_addrtype = family;
  host.h_length = family == AF_INET ? 4 : 16;
  host.h_addr_list = host_addr_list;
  return &host;
}

DETSIM_EXPORT struct hostent *__detsim_gethostbyname(const char *name) { return host_by_name(name, AF_INET); }
DETSIM_INTERCEPT_ALIAS(gethostbyname)

DETSIM_EXPORT struct hostent *__detsim_gethostbyname2(const char *name, int af) {
  if (af != AF_INET && af != AF_INET6) {
    errno = EAFNOSUPPORT;
    h_errno = NETDB_INTERNAL;
    return NULL;
  }
  return host_by_name(name, af);
}
DETSIM_INTERCEPT_ALIAS(gethostbyname2)

DETSIM_EXPORT struct hostent *__detsim_gethostbyaddr(const void *addr, socklen_t len, int type) {
  (void)addr;
  (void)len;
  (void)type;
  net_unsupported("gethostbyaddr", "reverse lookups ask DNS and nscd over real sockets; use getnameinfo");
  h_errno = HOST_NOT_FOUND;
  return NULL;
}
DETSIM_INTERCEPT_ALIAS(gethostbyaddr)

DETSIM_EXPORT int __detsim_gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t len,
                                           struct hostent **result, int *err) {
  (void)name;
  (void)ret;
  (void)buf;
  (void)len;
  net_unsupported("gethostbyname_r", "the resolver asks DNS and nscd over real sockets; use getaddrinfo");
  *result = NULL;
  *err = HOST_NOT_FOUND;
  return ENOENT;
}
DETSIM_INTERCEPT_ALIAS(gethostbyname_r)

/* ---- services: /etc/services itself (NSS might ask nscd first) ---- */

static struct detsim_service serv_line;
static struct servent serv;
static char *serv_aliases[DETSIM_SERVICE_ALIASES_MAX + 1];

static struct servent *servent_of(const struct detsim_service *line) {
  serv_line = *line;
  for (unsigned i = 0; i < serv_line.naliases; i++) serv_aliases[i] = serv_line.aliases[i];
  serv_aliases[serv_line.naliases] = NULL;
  serv.s_name = serv_line.name;
  serv.s_aliases = serv_aliases;
  serv.s_port = (int)htons((uint16_t)serv_line.port);
  serv.s_proto = serv_line.proto;
  return &serv;
}

DETSIM_EXPORT struct servent *__detsim_getservbyname(const char *name, const char *proto) {
  struct detsim_service line;
  if (name == NULL || !detsim__service_find(name, 0, proto, &line)) return NULL;
  return servent_of(&line);
}
DETSIM_INTERCEPT_ALIAS(getservbyname)

DETSIM_EXPORT struct servent *__detsim_getservbyport(int port, const char *proto) {
  struct detsim_service line;
  if (!detsim__service_find(NULL, ntohs((uint16_t)port), proto, &line)) return NULL;
  return servent_of(&line);
}
DETSIM_INTERCEPT_ALIAS(getservbyport)

/* ---- interfaces: the simulated host's lo and eth0 (net_iface.c) ---- */

DETSIM_EXPORT int __detsim_getifaddrs(struct ifaddrs **ifap) {
  int e = net_getifaddrs(ifap);
  if (e) {
    errno = e;
    return -1;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(getifaddrs)

DETSIM_EXPORT void __detsim_freeifaddrs(struct ifaddrs *ifa) { free(ifa); }
DETSIM_INTERCEPT_ALIAS(freeifaddrs)

DETSIM_EXPORT unsigned int __detsim_if_nametoindex(const char *name) {
  unsigned i = net_iface_index(name);
  if (i == 0) errno = ENODEV;
  return i;
}
DETSIM_INTERCEPT_ALIAS(if_nametoindex)

DETSIM_EXPORT char *__detsim_if_indextoname(unsigned int index, char *name) {
  const char *n = net_iface_name(index);
  if (n != NULL) return strcpy(name, n);
  errno = ENXIO;
  return NULL;
}
DETSIM_INTERCEPT_ALIAS(if_indextoname)

DETSIM_EXPORT struct if_nameindex *__detsim_if_nameindex(void) {
  struct if_nameindex *v = net_if_nameindex();
  if (v == NULL) errno = ENOBUFS;
  return v;
}
DETSIM_INTERCEPT_ALIAS(if_nameindex)

DETSIM_EXPORT void __detsim_if_freenameindex(struct if_nameindex *ptr) { free(ptr); }
DETSIM_INTERCEPT_ALIAS(if_freenameindex)
