/* Interceptors: names.  getaddrinfo, getnameinfo and gethostname answer
 * from the simulated world, never from DNS, /etc/hosts or the machine: the
 * world's nodes have names and addresses 127.0.1.1 and up (world.h), each
 * node's loopback is its own, and any other name does not exist.  libc's
 * own getaddrinfo would open real sockets (nscd, DNS) behind the simulation,
 * so these replace it whole.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net.h"
#include "intercept/intercept.h"
#include "world/world.h"

#define SINGLE_NODE_HOSTNAME "localhost"

static const char *own_name(void) {
  return detsim__world_hosts() ? detsim__ws->nodes[detsim__host_index].name : SINGLE_NODE_HOSTNAME;
}

/* The IPv4 address (host order) a name stands for: 0 when it is not one. */
static uint32_t name_ipv4(const char *name) {
  if (strcmp(name, "localhost") == 0) return INADDR_LOOPBACK;
  int node = detsim__world_node_by_name(name);
  if (node >= 0) return detsim__world_node_ip((unsigned)node);
  return 0;
}

/* glibc's table of the socket types and protocols getaddrinfo knows
 * (sysdeps/posix/getaddrinfo.c, gaih_inet_typeproto), in its order: hints
 * pick the first entry they match; without hints a numeric or no service
 * gives every `by_default` entry, a named one every entry /etc/services
 * names it for. */
struct type_proto {
  int socktype, protocol;
  bool any_protocol; /* SOCK_RAW: the hint's protocol is the answer's */
  bool no_service;   /* SOCK_RAW: a service is EAI_SERVICE */
  bool by_default;
  const char *name;  /* the protocol's name in /etc/services */
};
static const struct type_proto type_protos[] = {
  { SOCK_STREAM, IPPROTO_TCP, false, false, true, "tcp" },
  { SOCK_DGRAM, IPPROTO_UDP, false, false, true, "udp" },
  { SOCK_DCCP, IPPROTO_DCCP, false, false, false, "dccp" },
  { SOCK_DGRAM, IPPROTO_UDPLITE, false, false, false, "udplite" },
  { SOCK_STREAM, IPPROTO_SCTP, false, false, false, "sctp" },
  { SOCK_SEQPACKET, IPPROTO_SCTP, false, false, false, "sctp" },
  { SOCK_RAW, 0, true, true, true, "raw" },
};
#define TYPE_PROTOS (sizeof type_protos / sizeof type_protos[0])

/* One (socket type, protocol, port) the answer has for each address. */
struct answer_tuple {
  int socktype, protocol;
  uint16_t port;
};

static int tuple_of(const struct type_proto *tp, int hint_protocol, uint16_t port, struct answer_tuple *out) {
  out->socktype = tp->socktype;
  out->protocol = tp->any_protocol ? hint_protocol : tp->protocol;
  out->port = port;
  return 1;
}

/* The tuples for the hints and the service, as glibc's gaih_inet makes
 * them: how many (at most TYPE_PROTOS), or an EAI_ error (negative). */
static int answer_tuples(const char *service, const struct addrinfo *hints, struct answer_tuple *out) {
  int socktype = hints ? hints->ai_socktype : 0;
  int protocol = hints ? hints->ai_protocol : 0;
  const struct type_proto *tp = NULL;
  if (socktype != 0 || protocol != 0) {
    for (size_t i = 0; i < TYPE_PROTOS && tp == NULL; i++) {
      const struct type_proto *e = &type_protos[i];
      if (socktype != 0 && socktype != e->socktype) continue;
      if (protocol != 0 && !e->any_protocol && protocol != e->protocol) continue;
      tp = e;
    }
    if (tp == NULL) return socktype != 0 ? EAI_SOCKTYPE : EAI_SERVICE;
  }
  uint16_t port = 0;
  if (service != NULL) {
    if (tp && tp->no_service) return EAI_SERVICE;
    char *end;
    unsigned long p = strtoul(service, &end, 10);
    if (*service == '\0' || *end != '\0') {
      if (hints && (hints->ai_flags & AI_NUMERICSERV)) return EAI_NONAME;
      struct detsim_service se;
      if (tp) {
        if (!detsim__service_find(service, 0, tp->name, &se)) return EAI_SERVICE;
        return tuple_of(tp, protocol, (uint16_t)se.port, out);
      }
      int n = 0;
      for (size_t i = 0; i < TYPE_PROTOS; i++)
        if (!type_protos[i].no_service && detsim__service_find(service, 0, type_protos[i].name, &se))
          n += tuple_of(&type_protos[i], protocol, (uint16_t)se.port, &out[n]);
      return n ? n : EAI_SERVICE;
    }
    if (p > 65535) return EAI_SERVICE;
    port = (uint16_t)p;
  }
  if (tp) return tuple_of(tp, protocol, port, out);
  int n = 0;
  for (size_t i = 0; i < TYPE_PROTOS; i++)
    if (type_protos[i].by_default) n += tuple_of(&type_protos[i], protocol, port, &out[n]);
  return n;
}

/* glibc's lookup of a name opens /etc/hosts (then resolv.conf, a socket):
 * with no descriptor free under RLIMIT_NOFILE it fails EAI_SYSTEM with
 * EMFILE, and programs test that (a numeric address needs none). */
static bool descriptor_free(void) {
  int fd = REAL(open)("/dev/null", O_PATH | O_CLOEXEC);
  if (fd < 0) return false;
  REAL(close)(fd);
  return true;
}

static bool link_scoped(const struct in6_addr *a) { return IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_MC_LINKLOCAL(a); }

/* A numeric IPv6 address with glibc's "%scope" suffix: an interface name
 * (for a link-local address) or a number; false when it is none. */
static bool parse_ipv6_scoped(const char *node, struct in6_addr *out, uint32_t *scope) {
  *scope = 0;
  const char *pct = strchr(node, '%');
  if (pct == NULL) return inet_pton(AF_INET6, node, out) == 1;
  char addr[INET6_ADDRSTRLEN];
  size_t n = (size_t)(pct - node);
  if (n >= sizeof addr) return false;
  memcpy(addr, node, n);
  addr[n] = '\0';
  if (inet_pton(AF_INET6, addr, out) != 1) return false;
  const char *name = pct + 1;
  unsigned index = link_scoped(out) ? net_iface_index(name) : 0;
  if (index != 0) {
    *scope = index;
    return true;
  }
  char *end;
  unsigned long v = strtoul(name, &end, 10);
  if (*name == '\0' || *end != '\0' || v > UINT32_MAX) return false;
  *scope = (uint32_t)v;
  return true;
}

/* One result: the addrinfo and its address in one block, as glibc lays
 * them out (so either freeaddrinfo frees either's). */
static struct addrinfo *entry(int family, const struct answer_tuple *t, const void *ip, const char *canon,
                              uint32_t scope) {
  struct addrinfo *ai = calloc(1, sizeof *ai + sizeof(struct sockaddr_in6));
  if (ai == NULL) return NULL;
  uint16_t port = t->port;
  ai->ai_family = family;
  ai->ai_socktype = t->socktype;
  ai->ai_protocol = t->protocol;
  ai->ai_addr = (struct sockaddr *)(ai + 1);
  if (family == AF_INET) {
    struct sockaddr_in *in = (struct sockaddr_in *)ai->ai_addr;
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    memcpy(&in->sin_addr, ip, 4);
    ai->ai_addrlen = sizeof *in;
  } else {
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ai->ai_addr;
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    memcpy(&in6->sin6_addr, ip, 16);
    in6->sin6_scope_id = scope;
    ai->ai_addrlen = sizeof *in6;
  }
  if (canon) ai->ai_canonname = strdup(canon);
  return ai;
}

DETSIM_EXPORT void __detsim_freeaddrinfo(struct addrinfo *ai) {
  while (ai) {
    struct addrinfo *next = ai->ai_next;
    free(ai->ai_canonname);
    free(ai);
    ai = next;
  }
}
DETSIM_INTERCEPT_ALIAS(freeaddrinfo)

DETSIM_EXPORT int __detsim_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                                       struct addrinfo **res) {
  int family = hints ? hints->ai_family : AF_UNSPEC;
  int flags = hints ? hints->ai_flags : 0;
  if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6) return EAI_FAMILY;
  if (node == NULL && service == NULL) return EAI_NONAME;
  struct answer_tuple tuples[TYPE_PROTOS];
  int ntuples = answer_tuples(service, hints, tuples);
  if (ntuples < 0) return ntuples;
  /* The addresses, IPv4 first (a fixed order: no sorting by the machine). */
  bool have4 = false, have6 = false;
  struct in_addr a4 = { 0 };
  struct in6_addr a6 = IN6ADDR_ANY_INIT;
  uint32_t scope = 0;
  if (node == NULL) {
    bool passive = (flags & AI_PASSIVE) != 0;
    a4.s_addr = htonl(passive ? INADDR_ANY : INADDR_LOOPBACK);
    a6 = passive ? in6addr_any : in6addr_loopback;
    have4 = have6 = true;
  } else if (inet_pton(AF_INET, node, &a4) == 1) {
    have4 = true;
  } else if (parse_ipv6_scoped(node, &a6, &scope)) {
    have6 = true;
  } else if (flags & AI_NUMERICHOST) {
    return EAI_NONAME;
  } else if (!descriptor_free()) {
    errno = EMFILE;
    return EAI_SYSTEM;
  } else {
    uint32_t ip = name_ipv4(node);
    if (ip == 0 && strcmp(node, own_name()) == 0 && detsim__world_hosts())
      ip = detsim__world_node_ip(detsim__host_index);
    if (ip == 0 && strcmp(node, SINGLE_NODE_HOSTNAME) != 0) {
      char what[320];
      snprintf(what, sizeof what, "getaddrinfo(\"%.256s\")", node);
      net_unsupported(what, detsim__world_hosts() ? "not a node of the simulated world (names come from the scenario)"
                                             : "only numeric addresses and localhost resolve in a one-node run");
      return EAI_NONAME;
    }
    a4.s_addr = htonl(ip);
    have4 = true;
    if (ip == INADDR_LOOPBACK) {
      a6 = in6addr_loopback;
      have6 = true;
    }
  }
  if (family == AF_INET) have6 = false;
  if (family == AF_INET6) {
    if (have4 && !have6 && (flags & AI_V4MAPPED)) {
      memset(&a6, 0, sizeof a6);
      a6.s6_addr[10] = a6.s6_addr[11] = 0xff;
      memcpy(&a6.s6_addr[12], &a4, 4);
      have6 = true;
    }
    have4 = false;
  }
  if (!have4 && !have6) return family == AF_UNSPEC ? EAI_NONAME : EAI_ADDRFAMILY;
  const char *canon = (flags & AI_CANONNAME) && node ? node : NULL;
  struct addrinfo *head = NULL, **tail = &head;
  for (int fam = 0; fam < 2; fam++) {
    if ((fam == 0 && !have4) || (fam == 1 && !have6)) continue;
    for (int t = 0; t < ntuples; t++) {
      struct addrinfo *ai = fam == 0 ? entry(AF_INET, &tuples[t], &a4, head ? NULL : canon, 0)
                                     : entry(AF_INET6, &tuples[t], &a6, head ? NULL : canon, scope);
      if (ai == NULL) {
        __detsim_freeaddrinfo(head);
        return EAI_MEMORY;
      }
      *tail = ai;
      tail = &ai->ai_next;
    }
  }
  *res = head;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(getaddrinfo)

DETSIM_EXPORT int __detsim_getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host, socklen_t hostlen,
                                       char *serv, socklen_t servlen, int flags) {
  if (sa == NULL) return EAI_FAIL;
  uint16_t port;
  char text[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];
  const char *name = NULL;
  if (sa->sa_family == AF_INET && salen >= (socklen_t)sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    port = ntohs(in->sin_port);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    uint32_t ip = ntohl(in->sin_addr.s_addr);
    if (ip == INADDR_LOOPBACK) name = "localhost";
    for (unsigned j = 0; detsim__world_hosts() && j < detsim__ws->n_hosts; j++)
      if (ip == detsim__world_node_ip(j)) name = detsim__ws->nodes[j].name;
  } else if (sa->sa_family == AF_INET6 && salen >= (socklen_t)sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    port = ntohs(in6->sin6_port);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) name = "localhost";
    if (in6->sin6_scope_id != 0) {
      /* glibc's "%scope": an interface's name for a link-local address, else the number */
      const char *ifname = link_scoped(&in6->sin6_addr) ? net_iface_name(in6->sin6_scope_id) : NULL;
      size_t k = strlen(text);
      if (ifname != NULL) snprintf(text + k, sizeof text - k, "%%%s", ifname);
      else snprintf(text + k, sizeof text - k, "%%%u", in6->sin6_scope_id);
    }
  } else {
    return EAI_FAMILY;
  }
  if (host && hostlen) {
    if ((flags & NI_NAMEREQD) && name == NULL) return EAI_NONAME;
    const char *h = (flags & NI_NUMERICHOST) || name == NULL ? text : name;
    if (strlen(h) >= hostlen) return EAI_OVERFLOW;
    strcpy(host, h);
  }
  if (serv && servlen) {
    if (snprintf(serv, servlen, "%u", port) >= (int)servlen) return EAI_OVERFLOW;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(getnameinfo)

DETSIM_EXPORT int __detsim_gethostname(char *name, size_t len) {
  const char *own = own_name();
  size_t n = strlen(own);
  if (n + 1 > len) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(name, own, n + 1);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(gethostname)
