/* A world test node for multicast and broadcast between hosts.
 *
 *   mcast_node member PORT SENDER   two sockets on PORT: "joined" joins
 *                                   239.1.1.1 (no interface: the route's,
 *                                   eth0), "wild" only binds; each reports
 *                                   what it hears to SENDER's PORT+1
 *   mcast_node sender PORT MEMBERS  waits for the members' "ready", sends
 *                                   a datagram per case, and checks who
 *                                   heard it; exits 0 when every case
 *                                   holds, else 1 naming the case
 *
 * The sender says hello to each member (unicast, again until it answers:
 * nodes start one after another) before the cases.
 * Cases: a group with IP_MULTICAST_LOOP on (every member's two sockets
 * and the sender's own member socket hear it), loop off (not the
 * sender's own host), IP_MULTICAST_TTL 0 (only the sender's host, by the
 * loop), the limited broadcast and eth0's broadcast (every host, the
 * sender's too; without SO_BROADCAST, EACCES), a group after one member left (its host no longer
 * listens: neither of its sockets hears it), and a group through lo
 * (IP_MULTICAST_IF 127.0.0.1: the sender's host only, loop or not).
 * MEMBERS is a comma-separated list of node names.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "node_dial.h"

#define GROUP "239.1.1.1"
#define REPORTS_MAX 64

static int udp(uint16_t port, bool reuse) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  int one = 1;
  if (reuse) setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(s, (struct sockaddr *)&a, sizeof a) != 0) {
    perror("mcast_node: bind");
    exit(2);
  }
  return s;
}

static int join(int s, const char *group, const char *iface, int name) {
  struct ip_mreq m;
  inet_pton(AF_INET, group, &m.imr_multiaddr);
  inet_pton(AF_INET, iface, &m.imr_interface);
  return setsockopt(s, IPPROTO_IP, name, &m, sizeof m);
}

static struct sockaddr_in resolve(const char *host, uint16_t port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res;
  if (getaddrinfo(host, NULL, &hints, &res) != 0) {
    fprintf(stderr, "mcast_node: no host %s\n", host);
    exit(2);
  }
  struct sockaddr_in a = *(struct sockaddr_in *)res->ai_addr;
  a.sin_port = htons(port);
  freeaddrinfo(res);
  return a;
}

static void say(int s, const struct sockaddr_in *to, const char *fmt, const char *a, const char *b) {
  char msg[128];
  int n = snprintf(msg, sizeof msg, fmt, a, b);
  sendto(s, msg, (size_t)n, 0, (const struct sockaddr *)to, sizeof *to);
}

static int member(uint16_t port, const char *sender) {
  char self[64];
  gethostname(self, sizeof self);
  int joined = udp(port, true), wild = udp(port, true);
  if (join(joined, GROUP, "0.0.0.0", IP_ADD_MEMBERSHIP) != 0) {
    perror("mcast_node: IP_ADD_MEMBERSHIP");
    return 2;
  }
  int out = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in to = resolve(sender, (uint16_t)(port + 1));
  struct pollfd p[2] = { { joined, POLLIN, 0 }, { wild, POLLIN, 0 } };
  const char *which[2] = { "joined", "wild" };
  for (;;) {
    if (poll(p, 2, -1) <= 0) continue;
    for (int i = 0; i < 2; i++) {
      if (!(p[i].revents & POLLIN)) continue;
      char buf[64];
      ssize_t n = recv(p[i].fd, buf, sizeof buf - 1, 0);
      if (n <= 0) continue;
      buf[n] = '\0';
      if (strcmp(buf, "hello") == 0) {
        say(out, &to, "ready %s", self, "");
        continue;
      }
      if (strcmp(buf, "leave") == 0) {
        if (join(joined, GROUP, "0.0.0.0", IP_DROP_MEMBERSHIP) != 0) return 3;
        say(out, &to, "left %s", self, "");
        continue;
      }
      char who[96];
      snprintf(who, sizeof who, "%s/%s", self, which[i]);
      say(out, &to, "%s %s", who, buf);
    }
  }
}

/* ---- sender ---- */

static int own_fd;
static uint16_t port;

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Everything heard of `what` within 200 virtual ms, sorted, as one line. */
static void heard(int r, const char *what, char *line, size_t cap) {
  char *got[REPORTS_MAX];
  int n = 0;
  struct pollfd p[2] = { { r, POLLIN, 0 }, { own_fd, POLLIN, 0 } };
  while (poll(p, 2, 200) > 0) {
    for (int i = 0; i < 2; i++) {
      if (!(p[i].revents & POLLIN)) continue;
      char buf[128];
      ssize_t k = recv(p[i].fd, buf, sizeof buf - 1, 0);
      if (k <= 0) continue;
      buf[k] = '\0';
      char *sp = strrchr(buf, ' ');
      if (i == 1) {
        /* the sender's own member socket */
        if (strcmp(buf, what) == 0 && n < REPORTS_MAX) got[n++] = strdup("self");
      } else if (sp != NULL && strcmp(sp + 1, what) == 0 && n < REPORTS_MAX) {
        *sp = '\0';
        got[n++] = strdup(buf);
      }
    }
  }
  qsort(got, (size_t)n, sizeof got[0], cmp);
  line[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (i) strncat(line, " ", cap - strlen(line) - 1);
    strncat(line, got[i], cap - strlen(line) - 1);
    free(got[i]);
  }
}

static int failures;

static void expect(int r, const char *what, const char *want) {
  char line[1024];
  heard(r, what, line, sizeof line);
  bool ok = strcmp(line, want) == 0;
  printf("%s: %s%s\n", what, line, ok ? "" : "   (WRONG)");
  if (!ok) {
    printf("  wanted: %s\n", want);
    failures++;
  }
  fflush(stdout);
}

static void send_to(int s, const char *addr, const char *msg) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  inet_pton(AF_INET, addr, &a.sin_addr);
  if (sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof a) < 0) {
    perror("mcast_node: sendto");
    failures++;
  }
}

static int sender(const char *members) {
  int r = udp((uint16_t)(port + 1), false);
  own_fd = udp(port, true);
  if (join(own_fd, GROUP, "0.0.0.0", IP_ADD_MEMBERSHIP) != 0) return 2;
  char list[256];
  snprintf(list, sizeof list, "%s", members);
  int n = 0;
  char *names[8];
  for (char *m = strtok(list, ","); m && n < 8; m = strtok(NULL, ",")) names[n++] = m;
  /* The members may start after this node or before: say hello every
   * 50 ms until each answers. */
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  bool ready[8] = { false };
  for (int waiting = n; waiting > 0;) {
    for (int i = 0; i < n; i++) {
      if (ready[i]) continue;
      struct sockaddr_in m = resolve(names[i], port);
      sendto(s, "hello", 5, 0, (struct sockaddr *)&m, sizeof m);
    }
    struct pollfd p = { r, POLLIN, 0 };
    while (poll(&p, 1, 50) > 0) {
      char buf[128];
      ssize_t k = recv(r, buf, sizeof buf - 1, 0);
      if (k <= 6 || strncmp(buf, "ready ", 6) != 0) continue;
      buf[k] = '\0';
      for (int i = 0; i < n; i++) {
        if (!ready[i] && strcmp(buf + 6, names[i]) == 0) {
          ready[i] = true;
          waiting--;
        }
      }
    }
  }
  /* Who hears a group: both sockets of every member host, and this host's. */
  char everyone[512] = "", members_only[512] = "";
  for (int i = 0; i < n; i++) {
    char two[160];
    snprintf(two, sizeof two, "%s%s/joined %s/wild", i ? " " : "", names[i], names[i]);
    strncat(members_only, two, sizeof members_only - strlen(members_only) - 1);
  }
  snprintf(everyone, sizeof everyone, "%s self", members_only);

  send_to(s, GROUP, "loop");
  expect(r, "loop", everyone);
  int zero = 0, one = 1;
  setsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof zero);
  send_to(s, GROUP, "noloop");
  expect(r, "noloop", members_only);
  setsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &one, sizeof one);
  setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &zero, sizeof zero);
  send_to(s, GROUP, "ttl0");
  expect(r, "ttl0", "self");
  struct sockaddr_in all = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_BROADCAST) };
  if (sendto(s, "x", 1, 0, (struct sockaddr *)&all, sizeof all) != -1 || errno != EACCES) {
    printf("broadcast without SO_BROADCAST: not EACCES   (WRONG)\n");
    failures++;
  }
  setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
  send_to(s, "255.255.255.255", "bcast");
  expect(r, "bcast", everyone);
  send_to(s, "127.0.1.255", "netbcast");
  expect(r, "netbcast", everyone);

  /* The last member leaves: its host no longer listens to the group. */
  int ttl = 1;
  setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl);
  struct sockaddr_in last = resolve(names[n - 1], port);
  sendto(s, "leave", 5, 0, (struct sockaddr *)&last, sizeof last);
  char left[128];
  for (;;) {
    ssize_t k = recv(r, left, sizeof left - 1, 0);
    if (k > 0 && strncmp(left, "left ", 5) == 0) break;
  }
  char fewer[512] = "";
  for (int i = 0; i + 1 < n; i++) {
    char two[160];
    snprintf(two, sizeof two, "%s/joined %s/wild ", names[i], names[i]);
    strncat(fewer, two, sizeof fewer - strlen(fewer) - 1);
  }
  strncat(fewer, "self", sizeof fewer - strlen(fewer) - 1);
  send_to(s, GROUP, "after_leave");
  expect(r, "after_leave", fewer);

  /* Through lo: this host only, whatever the loop says. */
  struct in_addr lo = { htonl(INADDR_LOOPBACK) };
  setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo);
  setsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof zero);
  if (join(own_fd, GROUP, "127.0.0.1", IP_ADD_MEMBERSHIP) != 0) return 2;
  send_to(s, GROUP, "lo");
  expect(r, "lo", "self");
  printf("failures=%d\n", failures);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: mcast_node member PORT SENDER | sender PORT MEMBER,MEMBER...\n");
    return 2;
  }
  port = (uint16_t)atoi(argv[2]);
  if (strcmp(argv[1], "member") == 0) return member(port, argv[3]);
  return sender(argv[3]);
}
