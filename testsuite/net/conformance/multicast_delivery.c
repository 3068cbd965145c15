/* Rule: IPv4 multicast and broadcast delivery through the loopback
 * interface (lo, chosen by IP_MULTICAST_IF or by the sender's bound
 * address, so the host's other interfaces play no part): a datagram to a
 * group reaches every socket bound to its port, on the wildcard or the
 * group, once the host listens to the group there (some socket joined it,
 * its source filter letting the sender in); a socket that did not join
 * takes it by IP_MULTICAST_ALL; a socket bound to a unicast address, to
 * another port, connected elsewhere, IPV6_V6ONLY, does not.  lo delivers
 * whatever IP_MULTICAST_LOOP and IP_MULTICAST_TTL say.  Source filters
 * (include, block) act per socket and per host.  A broadcast needs
 * SO_BROADCAST (EACCES), then reaches the wildcard sockets of the port.
 * IPv6 multicast through lo has no route. */
#include "conf.h"

#define GROUP "239.42.0.1"

enum { R_WILD, R_GROUP, R_OTHER, R_NOALL, R_UNICAST, R_PORT2, R_CONN, R_DUAL, R_V6ONLY, R_N };
static const char *names[R_N] = { "wild", "group", "other", "noall", "unicast", "port2", "conn", "dual", "v6only" };
static int rx[R_N];
static uint16_t port;

static int udp4(const char *addr, uint16_t p) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  int one = 1;
  MUST(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(p) };
  inet_pton(AF_INET, addr, &a.sin_addr);
  MUST(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
  return s;
}

static int udp6(int v6only, uint16_t p) {
  int s = socket(AF_INET6, SOCK_DGRAM, 0);
  int one = 1;
  MUST(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0);
  MUST(setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) == 0);
  struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(p), .sin6_addr = IN6ADDR_ANY_INIT };
  MUST(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
  return s;
}

static uint16_t port_of(int s) {
  struct sockaddr_storage a;
  socklen_t len = sizeof a;
  MUST(getsockname(s, (struct sockaddr *)&a, &len) == 0);
  return ntohs(((struct sockaddr_in *)&a)->sin_port);
}

static void join(const char *label, int s, int level, int name, const char *group, const char *iface,
                 const char *source) {
  int r;
  if (source != NULL) {
    struct ip_mreq_source m;
    memset(&m, 0, sizeof m);
    inet_pton(AF_INET, group, &m.imr_multiaddr);
    inet_pton(AF_INET, iface, &m.imr_interface);
    inet_pton(AF_INET, source, &m.imr_sourceaddr);
    r = setsockopt(s, level, name, &m, sizeof m);
  } else {
    struct ip_mreq m;
    inet_pton(AF_INET, group, &m.imr_multiaddr);
    inet_pton(AF_INET, iface, &m.imr_interface);
    r = setsockopt(s, level, name, &m, sizeof m);
  }
  SHOW(label, r);
}

/* What each receiver got since the last look: "name:payload@from" words. */
static void collect(const char *label) {
  settle();
  printf("%s:", label);
  for (int i = 0; i < R_N; i++) {
    char buf[64];
    struct sockaddr_storage from;
    socklen_t len = sizeof from;
    ssize_t n;
    while ((n = recvfrom(rx[i], buf, sizeof buf - 1, MSG_DONTWAIT, (struct sockaddr *)&from, &len)) >= 0) {
      buf[n] = '\0';
      char text[INET6_ADDRSTRLEN] = "?";
      if (from.ss_family == AF_INET) inet_ntop(AF_INET, &((struct sockaddr_in *)&from)->sin_addr, text, sizeof text);
      else inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&from)->sin6_addr, text, sizeof text);
      printf(" %s:%s@%s", names[i], buf, text);
      len = sizeof from;
    }
  }
  printf("\n");
  fflush(stdout);
}

static long send4(int s, const char *msg, const char *to) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  inet_pton(AF_INET, to, &a.sin_addr);
  return sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof a);
}

int main(void) {
  rx[R_WILD] = udp4("0.0.0.0", 0);
  port = port_of(rx[R_WILD]);
  rx[R_GROUP] = udp4(GROUP, port);
  rx[R_OTHER] = udp4("0.0.0.0", port);
  rx[R_NOALL] = udp4("0.0.0.0", port);
  int zero = 0;
  SHOW("multicast_all_off", setsockopt(rx[R_NOALL], IPPROTO_IP, IP_MULTICAST_ALL, &zero, sizeof zero));
  rx[R_UNICAST] = udp4("127.0.0.1", port);
  rx[R_PORT2] = udp4("0.0.0.0", 0);
  rx[R_CONN] = udp4("0.0.0.0", port);
  struct sockaddr_in elsewhere = { .sin_family = AF_INET, .sin_port = htons(port_of(rx[R_PORT2])) };
  elsewhere.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  SHOW("connect_elsewhere", connect(rx[R_CONN], (struct sockaddr *)&elsewhere, sizeof elsewhere));
  rx[R_DUAL] = udp6(0, port);
  rx[R_V6ONLY] = udp6(1, port);

  join("join_wild", rx[R_WILD], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("join_group", rx[R_GROUP], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("join_unicast", rx[R_UNICAST], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("join_port2", rx[R_PORT2], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("join_conn", rx[R_CONN], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("join_dual", rx[R_DUAL], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("join_v6only", rx[R_V6ONLY], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);

  /* Out of lo by IP_MULTICAST_IF. */
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct in_addr lo = { htonl(INADDR_LOOPBACK) };
  SHOW("multicast_if_lo", setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo));
  SHOW("send_group", send4(s, "a", GROUP));
  collect("got_a");
  SHOW("loop_off", setsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof zero));
  SHOW("ttl_0", setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &zero, sizeof zero));
  SHOW("send_group_loop_off_ttl_0", send4(s, "b", GROUP));
  collect("got_b");
  SHOW("send_group_not_joined", send4(s, "c", "239.42.0.2"));
  collect("got_c");

  /* Out of lo by the sender's bound address. */
  int t = udp4("127.0.0.2", 0);
  SHOW("send_from_bound", send4(t, "d", GROUP));
  collect("got_d");

  /* Source filters: wild only from 127.0.0.1, group blocks 127.0.0.2. */
  join("wild_leave", rx[R_WILD], IPPROTO_IP, IP_DROP_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("wild_join_source", rx[R_WILD], IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, GROUP, "127.0.0.1", "127.0.0.1");
  join("group_block", rx[R_GROUP], IPPROTO_IP, IP_BLOCK_SOURCE, GROUP, "127.0.0.1", "127.0.0.2");
  SHOW("send_from_1", send4(s, "e", GROUP));
  SHOW("send_from_2", send4(t, "f", GROUP));
  collect("got_ef");
  /* Only the source-filtered membership is left on the host: the others
   * (not joined: IP_MULTICAST_ALL) hear only what it lets in. */
  join("group_leave", rx[R_GROUP], IPPROTO_IP, IP_DROP_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("unicast_leave", rx[R_UNICAST], IPPROTO_IP, IP_DROP_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("port2_leave", rx[R_PORT2], IPPROTO_IP, IP_DROP_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("conn_leave", rx[R_CONN], IPPROTO_IP, IP_DROP_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("dual_leave", rx[R_DUAL], IPPROTO_IP, IP_DROP_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  join("v6only_leave", rx[R_V6ONLY], IPPROTO_IP, IP_DROP_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  SHOW("send_from_1_again", send4(s, "g", GROUP));
  SHOW("send_from_2_again", send4(t, "h", GROUP));
  collect("got_gh");
  join("wild_drop_source", rx[R_WILD], IPPROTO_IP, IP_DROP_SOURCE_MEMBERSHIP, GROUP, "127.0.0.1", "127.0.0.1");
  SHOW("send_nobody_listens", send4(s, "i", GROUP));
  collect("got_i");

  /* A dual-stack sender: the group v4-mapped. */
  join("rejoin_wild", rx[R_WILD], IPPROTO_IP, IP_ADD_MEMBERSHIP, GROUP, "127.0.0.1", NULL);
  int d = socket(AF_INET6, SOCK_DGRAM, 0);
  SHOW("v6_sender_multicast_if", setsockopt(d, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo));
  struct sockaddr_in6 mapped = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
  inet_pton(AF_INET6, "::ffff:" GROUP, &mapped.sin6_addr);
  SHOW("send_mapped_group", sendto(d, "j", 1, 0, (struct sockaddr *)&mapped, sizeof mapped));
  collect("got_j");

  /* A socket connected to the group sends there; its name is the route's source. */
  int c = socket(AF_INET, SOCK_DGRAM, 0);
  SHOW("connected_multicast_if", setsockopt(c, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo));
  struct sockaddr_in g = { .sin_family = AF_INET, .sin_port = htons(port) };
  inet_pton(AF_INET, GROUP, &g.sin_addr);
  SHOW("connect_group", connect(c, (struct sockaddr *)&g, sizeof g));
  struct sockaddr_in me;
  socklen_t len = sizeof me;
  getsockname(c, (struct sockaddr *)&me, &len);
  printf("connected_name=%s\n", inet_ntoa(me.sin_addr));
  SHOW("send_connected", send(c, "k", 1, 0));
  collect("got_k");

  /* Broadcast on lo. */
  SHOW("broadcast_without_option", send4(s, "l", "127.255.255.255"));
  int b = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in bc = { .sin_family = AF_INET, .sin_port = htons(port) };
  inet_pton(AF_INET, "127.255.255.255", &bc.sin_addr);
  SHOW("connect_broadcast_without_option", connect(b, (struct sockaddr *)&bc, sizeof bc));
  int one = 1;
  SHOW("so_broadcast", setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof one));
  SHOW("broadcast", send4(s, "m", "127.255.255.255"));
  collect("got_m");
  SHOW("so_broadcast_b", setsockopt(b, SOL_SOCKET, SO_BROADCAST, &one, sizeof one));
  SHOW("connect_broadcast", connect(b, (struct sockaddr *)&bc, sizeof bc));
  SHOW("so_broadcast_b_off", setsockopt(b, SOL_SOCKET, SO_BROADCAST, &zero, sizeof zero));
  SHOW("send_connected_broadcast_off", send(b, "n", 1, 0));
  collect("got_n");

  /* IPv6 multicast: no route through lo. */
  int v6 = socket(AF_INET6, SOCK_DGRAM, 0);
  int lo_index = 1;
  SHOW("v6_multicast_if_lo", setsockopt(v6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &lo_index, sizeof lo_index));
  struct sockaddr_in6 g6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
  inet_pton(AF_INET6, "ff0e::42", &g6.sin6_addr);
  SHOW("v6_send_group", sendto(v6, "o", 1, 0, (struct sockaddr *)&g6, sizeof g6));
  return 0;
}
