/* A world test node that shows its clocks.
 *
 *   clock_node serve PORT                  answers each byte it reads with its
 *                                          CLOCK_REALTIME and CLOCK_MONOTONIC
 *   clock_node probe PORT REF ROUNDS STEP_MS
 *
 * A probe sleeps ROUNDS times until a time on its own CLOCK_REALTIME (STEP_MS
 * apart, clock_nanosleep with TIMER_ABSTIME), then asks REF for its clocks,
 * then sleeps SLEEP_NS relatively, then waits for a periodic timerfd armed
 * at an absolute CLOCK_REALTIME time, then for a condition variable's
 * timeout (CLOCK_REALTIME, as pthread_cond_timedwait has it by default).
 * It prints every reading, one line each, for world_test.py to compare
 * across nodes:
 *
 *   wake K armed=A target=T rt=R mono=M  after the absolute sleep until T
 *                                        asked for when CLOCK_REALTIME read A
 *   probe K rt=R mono=M ref_rt=R2 ref_mono=M2
 *   sleep K asked=NS slept=NS            CLOCK_MONOTONIC across a nanosleep
 *   timer K armed=A target=T rt=R mono=M after each of two expirations
 *   cond K armed=A target=T rt=R mono=M  after the timed wait's timeout
 *
 * It fails by itself (exit 7, 8, 9) when a wait ends before its time on its
 * own clock or CLOCK_MONOTONIC goes back.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

#define NS_PER_S 1000000000ll
/* The relative sleep of each round: long enough for a drifting clock's
 * rate to show, short next to the rounds. */
#define SLEEP_NS 10000000ll
/* The timerfd's first expiration after arming, and its period; the timed
 * wait's timeout: long enough that a wait blind to the clock's drift would
 * end visibly off, and a round still fits in a step of 5 s. */
#define TIMER_NS 1500000000ll
#define TIMER_PERIOD_NS 1000000000ll
#define COND_NS 500000000ll
#define DIAL_ATTEMPTS 50
#define DIAL_RETRY_MS 20

static int64_t read_ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) {
    perror("clock_node: clock_gettime");
    exit(2);
  }
  return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns) {
  struct timespec ts = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };
  return ts;
}

/* ---- serve ---- */

static void *answer(void *arg) {
  int fd = (int)(intptr_t)arg;
  char q, out[96];
  while (read(fd, &q, 1) == 1) {
    int64_t rt = read_ns(CLOCK_REALTIME), mono = read_ns(CLOCK_MONOTONIC);
    int k = snprintf(out, sizeof out, "%lld %lld\n", (long long)rt, (long long)mono);
    if (write(fd, out, (size_t)k) != k) break;
  }
  close(fd);
  return NULL;
}

static int serve(int port) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("clock_node: bind/listen");
    return 1;
  }
  for (;;) {
    int c = accept(l, NULL, NULL);
    if (c < 0) continue;
    pthread_t t;
    pthread_create(&t, NULL, answer, (void *)(intptr_t)c);
    pthread_detach(t);
  }
}

/* ---- probe ---- */

static int dial(const char *host, const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  int e = getaddrinfo(host, port, &hints, &res);
  if (e != 0) {
    fprintf(stderr, "clock_node: getaddrinfo %s: %s\n", host, gai_strerror(e));
    exit(2);
  }
  int fd = dial_retry(res, DIAL_ATTEMPTS, DIAL_RETRY_MS);
  if (fd < 0) {
    fprintf(stderr, "clock_node: cannot connect to %s\n", host);
    exit(3);
  }
  freeaddrinfo(res);
  return fd;
}

/* CLOCK_MONOTONIC, which must never read less than it read before. */
static int64_t mono_now(int64_t *last) {
  int64_t m = read_ns(CLOCK_MONOTONIC);
  if (m < *last) {
    fprintf(stderr, "clock_node: CLOCK_MONOTONIC went back from %lld to %lld\n", (long long)*last, (long long)m);
    exit(8);
  }
  *last = m;
  return m;
}

/* A wait until `target` on CLOCK_REALTIME ended: says when, on this
 * node's clocks. */
static void woke(const char *what, int k, int64_t armed, int64_t target, int64_t *last_mono) {
  int64_t rt = read_ns(CLOCK_REALTIME), mono = mono_now(last_mono);
  printf("%s %d armed=%lld target=%lld rt=%lld mono=%lld\n", what, k, (long long)armed, (long long)target, (long long)rt,
         (long long)mono);
  if (rt < target) {
    fprintf(stderr, "clock_node: %s woke at %lld, before %lld on its own clock\n", what, (long long)rt, (long long)target);
    exit(7);
  }
}

static void sleep_until_realtime(int k, int64_t target, int64_t *last_mono) {
  int64_t armed = read_ns(CLOCK_REALTIME);
  struct timespec t = ts_of(target);
  int r;
  while ((r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, NULL)) == EINTR) {}
  if (r != 0) {
    fprintf(stderr, "clock_node: clock_nanosleep: %s\n", strerror(r));
    exit(2);
  }
  woke("wake", k, armed, target, last_mono);
}

static void timer_at_realtime(int k, int64_t *last_mono) {
  int t = timerfd_create(CLOCK_REALTIME, 0);
  int64_t armed = read_ns(CLOCK_REALTIME), first = armed + TIMER_NS;
  struct itimerspec v = { .it_interval = ts_of(TIMER_PERIOD_NS), .it_value = ts_of(first) };
  if (t < 0 || timerfd_settime(t, TFD_TIMER_ABSTIME, &v, NULL) != 0) {
    perror("clock_node: timerfd");
    exit(2);
  }
  for (int i = 0; i < 2; i++) {
    uint64_t n;
    if (read(t, &n, sizeof n) != sizeof n || n != 1) {
      fprintf(stderr, "clock_node: timerfd read %d: want one expiration\n", i);
      exit(2);
    }
    woke("timer", k, armed, first + i * TIMER_PERIOD_NS, last_mono);
  }
  close(t);
}

static void cond_timeout(int k, int64_t *last_mono) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  int64_t armed = read_ns(CLOCK_REALTIME), target = armed + COND_NS;
  struct timespec t = ts_of(target);
  pthread_mutex_lock(&m);
  int r;
  while ((r = pthread_cond_timedwait(&c, &m, &t)) == 0) {} /* nobody signals: only spurious wakes */
  pthread_mutex_unlock(&m);
  if (r != ETIMEDOUT) {
    fprintf(stderr, "clock_node: pthread_cond_timedwait: %s\n", strerror(r));
    exit(2);
  }
  woke("cond", k, armed, target, last_mono);
}

static void ask(int fd, int k, int64_t *last_mono) {
  int64_t rt = read_ns(CLOCK_REALTIME), mono = mono_now(last_mono);
  char line[96];
  size_t used = 0;
  if (write(fd, "q", 1) != 1) exit(4);
  while (used == 0 || line[used - 1] != '\n') {
    ssize_t n = read(fd, line + used, sizeof line - 1 - used);
    if (n <= 0 || used + (size_t)n >= sizeof line - 1) {
      fprintf(stderr, "clock_node: the reference closed or said too much\n");
      exit(5);
    }
    used += (size_t)n;
  }
  line[used] = '\0';
  long long ref_rt, ref_mono;
  if (sscanf(line, "%lld %lld", &ref_rt, &ref_mono) != 2) exit(6);
  printf("probe %d rt=%lld mono=%lld ref_rt=%lld ref_mono=%lld\n", k, (long long)rt, (long long)mono, ref_rt, ref_mono);
}

static void sleep_relative(int k, int64_t *last_mono) {
  int64_t before = mono_now(last_mono);
  struct timespec t = ts_of(SLEEP_NS);
  nanosleep(&t, NULL);
  int64_t slept = mono_now(last_mono) - before;
  printf("sleep %d asked=%lld slept=%lld\n", k, (long long)SLEEP_NS, (long long)slept);
  if (slept < SLEEP_NS) {
    fprintf(stderr, "clock_node: a %lld ns sleep lasted %lld ns on CLOCK_MONOTONIC\n", (long long)SLEEP_NS, (long long)slept);
    exit(9);
  }
}

static int probe(const char *port, const char *ref, int rounds, int64_t step_ms) {
  int fd = dial(ref, port);
  int64_t last_mono = 0;
  int64_t start = read_ns(CLOCK_REALTIME);
  for (int k = 1; k <= rounds; k++) {
    sleep_until_realtime(k, start + k * step_ms * 1000000ll, &last_mono);
    ask(fd, k, &last_mono);
    sleep_relative(k, &last_mono);
    timer_at_realtime(k, &last_mono);
    cond_timeout(k, &last_mono);
  }
  close(fd);
  printf("done %d rounds\n", rounds);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "serve") == 0) return serve(atoi(argv[2]));
  if (argc == 6 && strcmp(argv[1], "probe") == 0) return probe(argv[2], argv[3], atoi(argv[4]), atoll(argv[5]));
  fprintf(stderr, "usage: clock_node serve PORT | clock_node probe PORT REF ROUNDS STEP_MS\n");
  return 2;
}
