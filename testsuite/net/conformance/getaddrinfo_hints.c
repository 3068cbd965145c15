/* Rule: getaddrinfo answers a numeric host as glibc does for every socket
 * type and protocol hint (glibc's table: with no hint a stream, a datagram
 * and a raw answer per address; a protocol alone picks its socket type;
 * a mismatch is EAI_SOCKTYPE, a service for SOCK_RAW EAI_SERVICE), named
 * services come from /etc/services (getservbyname and getservbyport too),
 * and a lookup of a name with no descriptor free under RLIMIT_NOFILE fails
 * EAI_SYSTEM with EMFILE while a numeric one still resolves (glibc opens
 * /etc/hosts for a name: libevent's regress tests this). */
#include <netdb.h>
#include <sys/resource.h>

#include "conf.h"

static void query(const char *node, const char *service, int family, int socktype, int protocol, int flags) {
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = family;
  hints.ai_socktype = socktype;
  hints.ai_protocol = protocol;
  hints.ai_flags = flags;
  errno = 0;
  int e = getaddrinfo(node, service, &hints, &res);
  printf("%s %s family=%d type=%d proto=%d flags=%#x:", node ? node : "NULL", service ? service : "NULL", family,
         socktype, protocol, flags);
  if (e != 0) {
    printf(" error %d%s%s\n", e, e == EAI_SYSTEM ? " " : "", e == EAI_SYSTEM ? ename(errno) : "");
    return;
  }
  for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN];
    const void *ip = a->ai_family == AF_INET ? (const void *)&((struct sockaddr_in *)a->ai_addr)->sin_addr
                                             : (const void *)&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
    uint16_t port = a->ai_family == AF_INET ? ((struct sockaddr_in *)a->ai_addr)->sin_port
                                            : ((struct sockaddr_in6 *)a->ai_addr)->sin6_port;
    inet_ntop(a->ai_family, ip, text, sizeof text);
    printf(" [%d %d %d %s %u]", a->ai_family, a->ai_socktype, a->ai_protocol, text, ntohs(port));
  }
  printf("\n");
  freeaddrinfo(res);
}

static void service(const char *label, struct servent *s) {
  if (s == NULL) {
    printf("%s=NULL\n", label);
    return;
  }
  printf("%s: name=%s port=%d proto=%s aliases:", label, s->s_name, ntohs((uint16_t)s->s_port), s->s_proto);
  for (char **a = s->s_aliases; *a; a++) printf(" %s", *a);
  printf("\n");
}

int main(void) {
  /* Socket types and protocols, numeric hosts. */
  query("1.2.3.4", "8080", AF_UNSPEC, 0, 0, 0);
  query("1.2.3.4", NULL, AF_UNSPEC, 0, 0, 0);
  query("1.2.3.4", "8080", AF_UNSPEC, SOCK_STREAM, 0, 0);
  query("1001:b0b::f00f", "4321", AF_UNSPEC, 0, IPPROTO_UDP, 0);
  query("1.2.3.4", "4321", AF_UNSPEC, 0, IPPROTO_TCP, 0);
  query("1.2.3.4", "4321", AF_INET, SOCK_STREAM, IPPROTO_UDP, 0);
  query("1.2.3.4", "4321", AF_INET, SOCK_DGRAM, IPPROTO_UDP, 0);
  query("1.2.3.4", "4321", AF_INET, SOCK_RAW, 0, 0);
  query("1.2.3.4", NULL, AF_INET, SOCK_RAW, IPPROTO_ICMP, 0);
  query("1.2.3.4", "4321", AF_INET, 0, IPPROTO_SCTP, 0);
  query("1.2.3.4", "4321", AF_INET, SOCK_SEQPACKET, 0, 0);
  query("1.2.3.4", "4321", AF_INET, 0, IPPROTO_ICMP, 0);
  query(NULL, "80", AF_INET, 0, IPPROTO_TCP, AI_PASSIVE);
  query(NULL, "0", AF_INET6, 0, 0, AI_PASSIVE);

  /* Named services: /etc/services, per protocol. */
  query("1.2.3.4", "http", AF_INET, 0, 0, 0);
  query("1.2.3.4", "www", AF_INET, SOCK_STREAM, 0, 0);
  query("1.2.3.4", "http", AF_INET, 0, IPPROTO_UDP, 0);
  query("1.2.3.4", "domain", AF_INET, 0, 0, 0);
  query("1.2.3.4", "domain", AF_INET, SOCK_DGRAM, 0, 0);
  query("1.2.3.4", "no-such-service-here", AF_INET, 0, 0, 0);
  query("1.2.3.4", "http", AF_INET, 0, 0, AI_NUMERICSERV);
  service("getservbyname(http, tcp)", getservbyname("http", "tcp"));
  service("getservbyname(www, tcp)", getservbyname("www", "tcp"));
  service("getservbyname(domain, NULL)", getservbyname("domain", NULL));
  service("getservbyname(http, udp)", getservbyname("http", "udp"));
  service("getservbyport(53, udp)", getservbyport(htons(53), "udp"));
  service("getservbyport(80, NULL)", getservbyport(htons(80), NULL));
  service("getservbyname(no-such-service-here, NULL)", getservbyname("no-such-service-here", NULL));

  /* No descriptor free: a name fails, a number resolves. */
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  MUST(fd >= 0);
  MUST(close(fd) == 0);
  struct rlimit old, low = { (rlim_t)fd, (rlim_t)fd };
  MUST(getrlimit(RLIMIT_NOFILE, &old) == 0);
  low.rlim_max = old.rlim_max;
  MUST(setrlimit(RLIMIT_NOFILE, &low) == 0);
  query("localhost", "80", AF_INET, SOCK_STREAM, 0, 0);
  query("127.0.0.1", "80", AF_INET, SOCK_STREAM, 0, 0);
  h_errno = 0;
  struct hostent *h = gethostbyname("localhost");
  printf("gethostbyname(localhost) with no descriptor: %s h_errno=%d\n", h ? "found" : "NULL", h_errno);
  MUST(setrlimit(RLIMIT_NOFILE, &old) == 0);
  query("localhost", "80", AF_INET, SOCK_STREAM, 0, 0);
  return 0;
}
