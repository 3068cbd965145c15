/* Rule: AF_UNIX stream sockets by path and by socketpair: connect is
 * immediate, names read back, a peer's close gives 0 on read and EPIPE on
 * the very next write (unlike TCP). */
#include <sys/un.h>

#include "conf.h"

int main(void) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  snprintf(a.sun_path, sizeof a.sun_path, "/tmp/detsim-conf-unix-%d.sock", (int)getpid());
  unlink(a.sun_path);
  int l = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("bind", bind(l, (struct sockaddr *)&a, sizeof a));
  int l2 = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("bind_same_path", bind(l2, (struct sockaddr *)&a, sizeof a));
  close(l2);
  SHOW("listen", listen(l, 4));
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
  struct sockaddr_un got;
  socklen_t len = sizeof got;
  int s = accept(l, (struct sockaddr *)&got, &len);
  printf("accept_ok=%d peer_addrlen=%u\n", s >= 0, (unsigned)len);
  len = sizeof got;
  SHOW("getsockname", getsockname(l, (struct sockaddr *)&got, &len));
  printf("name_matches=%d\n", strcmp(got.sun_path, a.sun_path) == 0);
  len = sizeof got;
  SHOW("getpeername", getpeername(c, (struct sockaddr *)&got, &len));
  printf("peer_matches=%d\n", strcmp(got.sun_path, a.sun_path) == 0);
  SHOW("write", write(c, "unix", 4));
  char buf[16] = {0};
  SHOW("read", read(s, buf, sizeof buf));
  printf("data=%s\n", buf);
  close(s);
  SHOW("read_eof", read(c, buf, sizeof buf));
  SHOW("write_after_close", send(c, "x", 1, MSG_NOSIGNAL));
  close(c);

  struct sockaddr_un missing = a;
  strcat(missing.sun_path, ".missing");
  int m = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("connect_missing", connect(m, (struct sockaddr *)&missing, sizeof missing));
  close(m);

  int sv[2];
  SHOW("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  SHOW("pair_write", write(sv[0], "pair", 4));
  memset(buf, 0, sizeof buf);
  SHOW("pair_read", read(sv[1], buf, sizeof buf));
  printf("data=%s\n", buf);
  SHOW("pair_write_back", write(sv[1], "zz", 2));
  close(sv[1]); /* closed with "pair" read but "zz" going the other way */
  memset(buf, 0, sizeof buf);
  SHOW("pair_read_after_close", read(sv[0], buf, sizeof buf));
  SHOW("pair_read_eof", read(sv[0], buf, sizeof buf));
  close(sv[0]);

  SHOW("socketpair_reset", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  write(sv[0], "unread", 6);
  close(sv[1]); /* unread data: the peer sees ECONNRESET */
  SHOW("read_reset", read(sv[0], buf, sizeof buf));
  SHOW("read_after_reset", read(sv[0], buf, sizeof buf));
  close(sv[0]);
  SHOW("socketpair_inet", socketpair(AF_INET, SOCK_STREAM, 0, sv));
  close(l);
  unlink(a.sun_path);
  return 0;
}
