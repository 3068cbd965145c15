/* Rule: AF_UNIX datagram sockets, by socketpair and by path: boundaries
 * kept (a short read truncates), an unnamed sender reported with no name,
 * a peer's close gives ECONNREFUSED to the next send and nothing to read;
 * a missing path is ENOENT, a stream socket's path EPROTOTYPE, a receiver
 * connected elsewhere EPERM, no address and no peer ENOTCONN; a receiver
 * that does not read makes a non-blocking sender wait (EAGAIN), never
 * drops; a blocking sender waits until the receiver reads.  A closed
 * socket's path stays (its file) until unlink: refused, and in use. */
#include <fcntl.h>
#include <sys/un.h>

#include "conf.h"

static struct sockaddr_un path(const char *what) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  snprintf(a.sun_path, sizeof a.sun_path, "/tmp/detsim-conf-udg-%s-%d.sock", what, (int)getpid());
  unlink(a.sun_path);
  return a;
}

/* The reader reports after join: natively the woken sender and the reader
 * race to print, and the order is no part of what is compared. */
static int receiver, reader_took;
static void *slow_reader(void *arg) {
  (void)arg;
  settle();
  char b[64];
  int n = 0;
  while (recv(receiver, b, sizeof b, MSG_DONTWAIT) > 0) n++;
  reader_took = n;
  return NULL;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int sv[2];
  char b[64];
  SHOW("socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
  SHOW("send", send(sv[0], "abc", 3, 0));
  SHOW("send", send(sv[0], "de", 2, 0));
  SHOW("recv", recv(sv[1], b, sizeof b, 0));
  SHOW("recv_truncated", recv(sv[1], b, 1, 0));
  struct sockaddr_un from;
  socklen_t fl = sizeof from;
  SHOW("send_back", send(sv[1], "x", 1, 0));
  SHOW("recvfrom", recvfrom(sv[0], b, sizeof b, 0, (struct sockaddr *)&from, &fl));
  printf("from_len=%u\n", (unsigned)fl);
  fl = sizeof from;
  SHOW("getpeername", getpeername(sv[0], (struct sockaddr *)&from, &fl));
  printf("peer_len=%u\n", (unsigned)fl);
  close(sv[1]);
  SHOW("send_after_peer_close", send(sv[0], "x", 1, 0));
  SHOW("recv_after_peer_close", recv(sv[0], b, sizeof b, MSG_DONTWAIT));
  struct pollfd p = { sv[0], POLLIN | POLLOUT, 0 };
  poll(&p, 1, 0);
  show_revents("revents_after_peer_close", p.revents);
  close(sv[0]);

  struct sockaddr_un pa = path("a"), pd = path("d"), ps = path("s"), missing = path("missing");
  int a = socket(AF_UNIX, SOCK_DGRAM, 0), c = socket(AF_UNIX, SOCK_DGRAM, 0), d = socket(AF_UNIX, SOCK_DGRAM, 0);
  SHOW("bind", bind(a, (struct sockaddr *)&pa, sizeof pa));
  SHOW("sendto", sendto(c, "hello", 5, 0, (struct sockaddr *)&pa, sizeof pa));
  fl = sizeof from;
  SHOW("recvfrom_named", recvfrom(a, b, sizeof b, 0, (struct sockaddr *)&from, &fl));
  printf("from_len=%u\n", (unsigned)fl);
  SHOW("sendto_missing", sendto(c, "x", 1, 0, (struct sockaddr *)&missing, sizeof missing));
  SHOW("connect_missing", connect(c, (struct sockaddr *)&missing, sizeof missing));
  SHOW("send_unconnected", send(c, "x", 1, 0));
  int st = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(bind(st, (struct sockaddr *)&ps, sizeof ps) == 0 && listen(st, 1) == 0);
  SHOW("connect_stream_path", connect(c, (struct sockaddr *)&ps, sizeof ps));
  SHOW("sendto_stream_path", sendto(c, "x", 1, 0, (struct sockaddr *)&ps, sizeof ps));
  SHOW("bind_d", bind(d, (struct sockaddr *)&pd, sizeof pd));
  SHOW("connect_a_to_d", connect(a, (struct sockaddr *)&pd, sizeof pd));
  SHOW("sendto_a_from_c", sendto(c, "x", 1, 0, (struct sockaddr *)&pa, sizeof pa));
  SHOW("send_a_to_d", send(a, "y", 1, 0));
  fl = sizeof from;
  SHOW("recvfrom_d", recvfrom(d, b, sizeof b, 0, (struct sockaddr *)&from, &fl));
  printf("from_a=%d\n", strcmp(from.sun_path, pa.sun_path) == 0);

  /* d does not read: a non-blocking sender ends with EAGAIN, nothing lost. */
  fcntl(c, F_SETFL, O_NONBLOCK);
  int n = 0;
  long r;
  while ((r = sendto(c, "zzzz", 4, 0, (struct sockaddr *)&pd, sizeof pd)) == 4 && n < 100000) n++;
  printf("full: %s\n", r < 0 ? ename(errno) : "never");
  int got = 0;
  while (recv(d, b, sizeof b, MSG_DONTWAIT) == 4) got++;
  printf("all kept: %d\n", got == n); /* every one of c's sends that succeeded */
  (void)got;
  /* A blocking sender waits until the receiver reads. */
  fcntl(c, F_SETFL, 0);
  while (sendto(c, "zzzz", 4, MSG_DONTWAIT, (struct sockaddr *)&pd, sizeof pd) == 4) {}
  receiver = d;
  pthread_t t;
  pthread_create(&t, NULL, slow_reader, NULL);
  SHOW("blocking_send_when_full", sendto(c, "last", 4, 0, (struct sockaddr *)&pd, sizeof pd));
  pthread_join(t, NULL);
  printf("reader took %s\n", reader_took > 0 ? "some" : "none");
  /* A closed socket leaves its file: sends are refused, the name is in
   * use, until unlink. */
  close(a);
  SHOW("send_to_closed_path", sendto(c, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&pa, sizeof pa));
  int again = socket(AF_UNIX, SOCK_DGRAM, 0);
  SHOW("bind_closed_path", bind(again, (struct sockaddr *)&pa, sizeof pa));
  close(st);
  int sc = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("connect_closed_stream_path", connect(sc, (struct sockaddr *)&ps, sizeof ps));
  SHOW("unlink", unlink(pa.sun_path));
  SHOW("send_to_unlinked_path", sendto(c, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&pa, sizeof pa));
  SHOW("bind_unlinked_path", bind(again, (struct sockaddr *)&pa, sizeof pa));
  SHOW("sendto_rebound", sendto(c, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&pa, sizeof pa));
  /* Unlinking a bound socket's file: nobody finds it by that name. */
  SHOW("unlink_live", unlink(pd.sun_path));
  SHOW("sendto_unlinked_live", sendto(c, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&pd, sizeof pd));
  unlink(pa.sun_path);
  unlink(ps.sun_path);
  return 0;
}
