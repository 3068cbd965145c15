/* Data handed between threads by messages over the simulated network: the
 * sender fills a buffer and sends a byte over a socketpair (a stream) and a
 * pipe; the receiver reads the buffer after the byte arrives.  As on Linux,
 * a message orders what the sender did before it: ThreadSanitizer must
 * report nothing on any schedule. */
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

static int pair[2], pipe_fds[2];
static int by_stream[4], by_pipe[4];

static void *sender(void *arg) {
  (void)arg;
  for (int i = 0; i < 4; i++) by_stream[i] = i + 1;
  char c = 's';
  if (write(pair[0], &c, 1) != 1) return NULL;
  for (int i = 0; i < 4; i++) by_pipe[i] = 10 * (i + 1);
  c = 'p';
  if (write(pipe_fds[1], &c, 1) != 1) return NULL;
  return NULL;
}

int main(void) {
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0 || pipe(pipe_fds) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, sender, NULL);
  char c;
  int sum = 0;
  if (read(pair[1], &c, 1) != 1) return 1;
  for (int i = 0; i < 4; i++) sum += by_stream[i];
  if (read(pipe_fds[0], &c, 1) != 1) return 1;
  for (int i = 0; i < 4; i++) sum += by_pipe[i];
  pthread_join(t, NULL);
  printf("sum %d\n", sum);
  return 0;
}
