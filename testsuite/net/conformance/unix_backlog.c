/* Rule: a unix stream listener holds its backlog + 1 connections not yet
 * accepted (unix_stream_connect's unix_recvq_full); past that a
 * non-blocking connect fails with EAGAIN and a blocking one waits for an
 * accept to make room (SO_SNDTIMEO bounds the wait: EAGAIN), or for the
 * listener to close (ECONNREFUSED).  The connections that got in are whole:
 * data sent on them before the accept is read after it.
 */
#include <stdbool.h>
#include <sys/time.h>
#include <sys/un.h>

#include "conf.h"

static struct sockaddr_un addr;

static int listener(int backlog) {
  unlink(addr.sun_path);
  int l = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(l >= 0);
  MUST(bind(l, (struct sockaddr *)&addr, sizeof addr) == 0);
  MUST(listen(l, backlog) == 0);
  return l;
}

static int dial(bool nonblock) {
  int c = socket(AF_UNIX, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
  MUST(c >= 0);
  if (connect(c, (struct sockaddr *)&addr, sizeof addr) < 0) {
    int e = errno;
    close(c);
    errno = e;
    return -1;
  }
  return c;
}

static int blocked_result = 99;
static void *blocked_dial(void *arg) {
  (void)arg;
  int c = dial(false);
  blocked_result = c < 0 ? -errno : 0;
  if (c >= 0) {
    MUST(write(c, "late", 4) == 4);
    close(c);
  }
  return NULL;
}

int main(void) {
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "/tmp/detsim_conf_ubl_%d", (int)getpid());
  for (int backlog = 0; backlog <= 3; backlog++) {
    int l = listener(backlog);
    int fds[8], n = 0;
    while (n < 8 && (fds[n] = dial(true)) >= 0) {
      MUST(write(fds[n], "x", 1) == 1);
      n++;
    }
    printf("backlog=%d connected=%d then %s\n", backlog, n, n < 8 ? ename(errno) : "none");
    /* A blocking connect with SO_SNDTIMEO gives up with EAGAIN. */
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    struct timeval tv = { 0, 100000 };
    MUST(setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0);
    SHOW("  timed_connect", connect(c, (struct sockaddr *)&addr, sizeof addr));
    close(c);
    /* An accept makes room for one more; the accepted got its byte. */
    int s = accept(l, NULL, NULL);
    MUST(s >= 0);
    char b;
    SHOW("  accepted_reads", read(s, &b, 1));
    int more = dial(true);
    SHOW("  connect_after_accept", more < 0 ? -1 : 0);
    SHOW("  connect_again_full", dial(true));
    close(more);
    close(s);
    for (int i = 0; i < n; i++) close(fds[i]);
    close(l);
  }

  /* A blocking connect waits for the accept, then gets in. */
  int l = listener(0);
  int first = dial(true);
  MUST(first >= 0);
  pthread_t t;
  MUST(pthread_create(&t, NULL, blocked_dial, NULL) == 0);
  settle();
  printf("blocked_connect_waiting=%d\n", blocked_result == 99);
  int s = accept(l, NULL, NULL);
  MUST(s >= 0);
  close(s);
  int s2 = accept(l, NULL, NULL);
  MUST(s2 >= 0);
  MUST(pthread_join(t, NULL) == 0);
  char msg[8] = "";
  SHOW("blocked_connect", blocked_result);
  SHOW("late_bytes", read(s2, msg, sizeof msg));
  close(s2);
  close(first);

  /* A blocking connect waiting on a listener that closes is refused. */
  first = dial(true);
  MUST(first >= 0);
  blocked_result = 99;
  MUST(pthread_create(&t, NULL, blocked_dial, NULL) == 0);
  settle();
  close(l);
  MUST(pthread_join(t, NULL) == 0);
  printf("listener_closed: %s\n", blocked_result < 0 ? ename(-blocked_result) : "connected");
  close(first);
  unlink(addr.sun_path);
  return 0;
}
