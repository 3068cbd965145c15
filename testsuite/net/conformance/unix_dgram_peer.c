/* Rule: a connected unix datagram socket sends to the socket it connected
 * to (Linux's unix_peer), not to its path: after an unlink its datagrams
 * still arrive, and a new socket bound at the path gets none of them.
 * Once the peer closes, the next send fails with ECONNREFUSED and leaves
 * the sender unconnected: the one after says ENOTCONN, and getpeername
 * too.  A receiver connected back to its sender is that sender's peer
 * whatever their paths become (no queue limit between them).
 */
#include <fcntl.h>
#include <sys/un.h>

#include "conf.h"

static struct sockaddr_un path(const char *what) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  snprintf(a.sun_path, sizeof a.sun_path, "/tmp/detsim-conf-udp-%s-%d.sock", what, (int)getpid());
  unlink(a.sun_path);
  return a;
}

static int bound(const struct sockaddr_un *a) {
  int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  MUST(s >= 0);
  MUST(bind(s, (const struct sockaddr *)a, sizeof *a) == 0);
  return s;
}

int main(void) {
  struct sockaddr_un pr = path("r");
  int r = bound(&pr);
  int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  MUST(s >= 0);
  MUST(connect(s, (struct sockaddr *)&pr, sizeof pr) == 0);
  MUST(unlink(pr.sun_path) == 0);
  char b[8];
  SHOW("send_after_unlink", send(s, "a", 1, 0));
  SHOW("recv_after_unlink", recv(r, b, sizeof b, 0));
  int r2 = bound(&pr);
  SHOW("send_with_new_socket_at_path", send(s, "b", 1, 0));
  SHOW("old_receives", recv(r, b, sizeof b, 0));
  SHOW("new_receives", recv(r2, b, sizeof b, 0));
  close(r);
  SHOW("send_after_peer_close", send(s, "c", 1, 0));
  SHOW("send_again", send(s, "d", 1, 0));
  struct sockaddr_un got;
  socklen_t gl = sizeof got;
  SHOW("getpeername", getpeername(s, (struct sockaddr *)&got, &gl));
  SHOW("new_receives_nothing", recv(r2, b, sizeof b, 0));
  close(s);
  close(r2);
  unlink(pr.sun_path);

  /* Two sockets connected to each other, their paths unlinked: no queue
   * limit (each is the other's peer). */
  struct sockaddr_un pa = path("a"), pb = path("b");
  int a = bound(&pa), c = bound(&pb);
  MUST(connect(a, (struct sockaddr *)&pb, sizeof pb) == 0);
  MUST(connect(c, (struct sockaddr *)&pa, sizeof pa) == 0);
  unlink(pa.sun_path);
  unlink(pb.sun_path);
  int n = 0;
  while (send(a, "x", 1, 0) == 1) n++;
  printf("mutual_peers_held=%d %s\n", n, ename(errno));
  close(a);
  close(c);
  return 0;
}
