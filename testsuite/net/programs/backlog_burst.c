/* A burst of clients at a listener with backlog 1 and a slow accept loop:
 * two get in at once, the others' SYNs are dropped and sent again 1, 3,
 * 7 ... s after their first (Linux's backoff), each getting in once accept
 * has made room.  Every client is served in the end; the run's virtual
 * time is the retries', not real time.  (Natively the same holds; SYNs
 * sent again at the same moment fare differently there, see
 * docs/network.md, so only this much is checked.) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CLIENTS 6

static struct sockaddr_in addr;
static double connect_s[CLIENTS];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *client(void *arg) {
  int id = (int)(long)arg;
  int c = socket(AF_INET, SOCK_STREAM, 0);
  double t0 = now_s();
  if (connect(c, (struct sockaddr *)&addr, sizeof addr) != 0) {
    printf("client %d connect failed\n", id);
    return NULL;
  }
  connect_s[id] = now_s() - t0;
  char b = (char)('0' + id);
  write(c, &b, 1);
  char ack;
  read(c, &ack, 1);
  close(c);
  return NULL;
}

int main(void) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(l, (struct sockaddr *)&addr, sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(l, (struct sockaddr *)&addr, &len);
  listen(l, 1);
  pthread_t t[CLIENTS];
  for (long i = 0; i < CLIENTS; i++) pthread_create(&t[i], NULL, client, (void *)i);
  int seen = 0;
  for (int i = 0; i < CLIENTS; i++) {
    usleep(400000); /* a slow server */
    int s = accept(l, NULL, NULL);
    char b = 0;
    if (s < 0 || read(s, &b, 1) != 1) break;
    seen |= 1 << (b - '0');
    write(s, "k", 1);
    close(s);
  }
  for (int i = 0; i < CLIENTS; i++) pthread_join(t[i], NULL);
  int at_once = 0, retried = 0;
  for (int i = 0; i < CLIENTS; i++) {
    if (connect_s[i] < 0.5) at_once++;
    else if (connect_s[i] > 0.9) retried++; /* the first retry is 1 s after the SYN */
  }
  printf("served_all=%d\n", seen == (1 << CLIENTS) - 1);
  printf("at_once=%d retried=%d\n", at_once, retried);
  return 0;
}
