/* Rule: MSG_PEEK leaves the bytes; MSG_WAITALL waits for all of them;
 * readv/writev gather and scatter. */
#include <sys/uio.h>

#include "conf.h"

static int client_fd;
static void *slow_writer(void *arg) {
  (void)arg;
  write(client_fd, "12345", 5);
  settle();
  write(client_fd, "6789", 4);
  return NULL;
}

int main(void) {
  int c, s;
  pair4(&c, &s);
  SHOW("write", write(c, "abc", 3));
  settle();
  char buf[16] = {0};
  SHOW("peek", recv(s, buf, sizeof buf, MSG_PEEK));
  printf("peeked=%s\n", buf);
  memset(buf, 0, sizeof buf);
  SHOW("recv", recv(s, buf, sizeof buf, 0));
  printf("data=%s\n", buf);
  client_fd = c;
  pthread_t t;
  pthread_create(&t, NULL, slow_writer, NULL);
  memset(buf, 0, sizeof buf);
  SHOW("waitall", recv(s, buf, 9, MSG_WAITALL));
  printf("data=%s\n", buf);
  pthread_join(t, NULL);
  struct iovec out[3] = { { "ab", 2 }, { "", 0 }, { "cdef", 4 } };
  SHOW("writev", writev(c, out, 3));
  settle();
  char x[3] = {0}, y[8] = {0};
  struct iovec in[2] = { { x, 2 }, { y, 7 } };
  SHOW("readv", readv(s, in, 2));
  printf("x=%s y=%s\n", x, y);
  struct msghdr m;
  memset(&m, 0, sizeof m);
  struct iovec one = { "msg", 3 };
  m.msg_iov = &one;
  m.msg_iovlen = 1;
  SHOW("sendmsg", sendmsg(c, &m, 0));
  settle();
  char z[8] = {0};
  struct iovec zi = { z, sizeof z };
  struct msghdr r;
  memset(&r, 0, sizeof r);
  r.msg_iov = &zi;
  r.msg_iovlen = 1;
  SHOW("recvmsg", recvmsg(s, &r, 0));
  printf("z=%s flags=%d\n", z, r.msg_flags);
  struct sockaddr_in from;
  socklen_t flen = sizeof from;
  SHOW("sendto", sendto(c, "to", 2, 0, NULL, 0));
  settle();
  memset(z, 0, sizeof z);
  SHOW("recvfrom", recvfrom(s, z, sizeof z, 0, (struct sockaddr *)&from, &flen));
  printf("z=%s fromlen=%u\n", z, (unsigned)flen);
  SHOW("zero_len_read", read(s, z, 0));
  close(c);
  close(s);
  return 0;
}
