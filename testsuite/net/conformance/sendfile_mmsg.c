/* Rule: sendfile copies a regular file into a socket: with an offset it
 * sends from there, moves the offset and leaves the file position alone;
 * without one it sends from the file position and moves it.  sendmmsg sends
 * a batch of datagrams, recvmmsg takes a batch (MSG_WAITFORONE: the first
 * waited for, the rest as far as they have arrived), each with its length. */
#include "conf.h"

#include <fcntl.h>
#include <sys/sendfile.h>

#define FILE_BYTES (300 * 1000)

static int sv;
static unsigned long received_sum;
static ssize_t received;

static void *reader(void *arg) {
  size_t want = *(size_t *)arg;
  static char buf[FILE_BYTES];
  received = read_n(sv, buf, want);
  for (ssize_t i = 0; i < received; i++) received_sum = received_sum * 31 + (unsigned char)buf[i];
  return NULL;
}

static unsigned long sum_of(const char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i++) s = s * 31 + (unsigned char)p[i];
  return s;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  static char data[FILE_BYTES];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (char)(i * 7 + i / 1000);
  char path[64];
  snprintf(path, sizeof path, "/tmp/detsim-conf-sendfile-%d", (int)getpid());
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  MUST(fd >= 0 && write(fd, data, sizeof data) == (ssize_t)sizeof data);
  unlink(path);
  MUST(lseek(fd, 0, SEEK_SET) == 0);

  int cl;
  pair4(&cl, &sv);
  /* The whole file from offset 0, more than a socket buffer holds: the
   * reader drains it meanwhile. */
  size_t want = FILE_BYTES;
  pthread_t t;
  pthread_create(&t, NULL, reader, &want);
  off_t off = 0;
  SHOW("sendfile", sendfile(cl, fd, &off, FILE_BYTES));
  pthread_join(t, NULL);
  printf("offset=%lld position=%lld received=%zd same=%d\n", (long long)off, (long long)lseek(fd, 0, SEEK_CUR),
         received, received_sum == sum_of(data, FILE_BYTES));
  /* From the file position: it moves. */
  MUST(lseek(fd, 1000, SEEK_SET) == 1000);
  want = 500;
  received_sum = 0;
  pthread_create(&t, NULL, reader, &want);
  SHOW("sendfile_at_position", sendfile(cl, fd, NULL, 500));
  pthread_join(t, NULL);
  printf("position=%lld same=%d\n", (long long)lseek(fd, 0, SEEK_CUR), received_sum == sum_of(data + 1000, 500));
  /* Past the end: what is left. */
  off = FILE_BYTES - 10;
  want = 10;
  received_sum = 0;
  pthread_create(&t, NULL, reader, &want);
  SHOW("sendfile_past_end", sendfile(cl, fd, &off, 100));
  pthread_join(t, NULL);
  printf("offset=%lld same=%d\n", (long long)off, received_sum == sum_of(data + FILE_BYTES - 10, 10));
  close(cl);
  close(sv);
  close(fd);

  /* Datagram batches. */
  int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  MUST(bind(b, (struct sockaddr *)&addr, sizeof addr) == 0 && getsockname(b, (struct sockaddr *)&addr, &len) == 0);
  MUST(connect(a, (struct sockaddr *)&addr, sizeof addr) == 0);
  char msgs[3][16] = { "one", "three", "seventeen" };
  struct iovec out_iov[3];
  struct mmsghdr out[3];
  memset(out, 0, sizeof out);
  for (int i = 0; i < 3; i++) {
    out_iov[i] = (struct iovec){ msgs[i], strlen(msgs[i]) };
    out[i].msg_hdr.msg_iov = &out_iov[i];
    out[i].msg_hdr.msg_iovlen = 1;
  }
  SHOW("sendmmsg", sendmmsg(a, out, 3, 0));
  printf("lengths sent: %u %u %u\n", out[0].msg_len, out[1].msg_len, out[2].msg_len);
  settle();
  char in_buf[5][32];
  struct iovec in_iov[5];
  struct mmsghdr in[5];
  memset(in, 0, sizeof in);
  for (int i = 0; i < 5; i++) {
    in_iov[i] = (struct iovec){ in_buf[i], sizeof in_buf[i] };
    in[i].msg_hdr.msg_iov = &in_iov[i];
    in[i].msg_hdr.msg_iovlen = 1;
  }
  SHOW("recvmmsg", recvmmsg(b, in, 5, MSG_WAITFORONE, NULL));
  printf("lengths received: %u %u %u, first=%.*s last=%.*s\n", in[0].msg_len, in[1].msg_len, in[2].msg_len,
         (int)in[0].msg_len, in_buf[0], (int)in[2].msg_len, in_buf[2]);
  SHOW("recvmmsg_empty", recvmmsg(b, in, 5, MSG_DONTWAIT, NULL));
  return 0;
}
