/* Two threads race to fill one UDP receiver whose SO_RCVBUF (16384,
 * doubled) holds 14 datagrams of 1000 bytes (each charged 2304, its
 * truesize): the rest are dropped.  Which sender's datagrams get in
 * depends on the schedule and the links' latencies, so seeds differ in the
 * split, while the number held never does.  Prints "held=N from_a=A
 * from_b=B".
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PER_SENDER 60

static struct sockaddr_in dst;

static void *sender(void *arg) {
  int s = *(int *)arg;
  char buf[1000] = { 0 };
  for (int i = 0; i < PER_SENDER; i++)
    if (sendto(s, buf, sizeof buf, 0, (struct sockaddr *)&dst, sizeof dst) != (ssize_t)sizeof buf) abort();
  return NULL;
}

static int bound_socket(struct sockaddr_in *a) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  memset(a, 0, sizeof *a);
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof *a;
  if (s < 0 || bind(s, (struct sockaddr *)a, sizeof *a) != 0 || getsockname(s, (struct sockaddr *)a, &len) != 0)
    abort();
  return s;
}

int main(void) {
  struct sockaddr_in a, b;
  int r = bound_socket(&dst);
  int rcvbuf = 16384;
  if (setsockopt(r, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) != 0) abort();
  int sa = bound_socket(&a), sb = bound_socket(&b);
  pthread_t ta, tb;
  pthread_create(&ta, NULL, sender, &sa);
  pthread_create(&tb, NULL, sender, &sb);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  usleep(10000); /* what is in flight lands */
  fcntl(r, F_SETFL, O_NONBLOCK);
  int held = 0, from_a = 0, from_b = 0;
  char buf[2000];
  struct sockaddr_in from;
  socklen_t len = sizeof from;
  while (recvfrom(r, buf, sizeof buf, 0, (struct sockaddr *)&from, &len) == 1000) {
    held++;
    from_a += from.sin_port == a.sin_port;
    from_b += from.sin_port == b.sin_port;
    len = sizeof from;
  }
  printf("held=%d from_a=%d from_b=%d\n", held, from_a, from_b);
  return 0;
}
