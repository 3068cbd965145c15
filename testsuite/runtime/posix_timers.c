/* POSIX timers inside the simulation (runtime/time/posix_timer.c), and the
 * value sigqueue carries.  Each mode prints what it saw; a broken rule
 * fails an assert (class crash, SIGABRT).
 *
 *   posix_timers signal     SIGEV_SIGNAL: periodic ticks with SI_TIMER and
 *                           a pointer value, overruns while blocked,
 *                           gettime, delete keeps the pending signal
 *   posix_timers thread     SIGEV_THREAD: the function runs in new threads
 *   posix_timers thread_id  SIGEV_THREAD_ID: one thread takes every signal
 *   posix_timers abstime    TIMER_ABSTIME on CLOCK_REALTIME, sigwaitinfo
 *   posix_timers errors     what is refused, and with which errno
 *   posix_timers sigqueue   a pointer sent with sigqueue arrives whole
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s) {
  struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void on_info(int sig, void (*h)(int, siginfo_t *, void *)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = h;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  assert(sigaction(sig, &sa, NULL) == 0);
}

static void block(int sig, int how) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  assert(pthread_sigmask(how, &set, NULL) == 0);
}

static struct itimerspec every(long ms) {
  struct itimerspec its = { { ms / 1000, (ms % 1000) * 1000000L }, { ms / 1000, (ms % 1000) * 1000000L } };
  return its;
}

/* ---- signal ---- */

static int marker;
static volatile sig_atomic_t ticks, last_overrun, bad_info;

static void on_tick(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  if (si->si_code != SI_TIMER || si->si_value.sival_ptr != &marker) bad_info = 1;
  last_overrun = si->si_overrun;
  ticks++;
}

static void signal_mode(void) {
  on_info(SIGRTMIN, on_tick);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGRTMIN;
  sev.sigev_value.sival_ptr = &marker;
  timer_t t;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == 0);
  struct itimerspec its = every(100), cur;
  assert(timer_gettime(t, &cur) == 0 && cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
  double t0 = mono();
  assert(timer_settime(t, 0, &its, NULL) == 0);
  while (ticks < 10) sleep_s(0.001);
  double took = mono() - t0;
  assert(!bad_info && took >= 0.999 && took < 1.001);
  assert(timer_gettime(t, &cur) == 0 && cur.it_interval.tv_nsec == 100000000 && cur.it_value.tv_sec == 0 &&
         cur.it_value.tv_nsec > 0 && cur.it_value.tv_nsec <= 100000000);

  /* Blocked for 5 expiries: one signal, four overruns. */
  block(SIGRTMIN, SIG_BLOCK);
  int before = ticks;
  double t1 = mono();
  struct timespec to_next = cur.it_value;
  nanosleep(&to_next, NULL); /* the next expiry */
  sleep_s(0.45);             /* four more */
  assert(mono() - t1 < 0.6);
  block(SIGRTMIN, SIG_UNBLOCK);
  assert(ticks == before + 1 && last_overrun == 4 && timer_getoverrun(t) == 4);
  int overrun_seen = last_overrun;

  /* Deleted with its signal pending: the signal stays (as Linux keeps
   * it), and nothing comes after it. */
  block(SIGRTMIN, SIG_BLOCK);
  sleep_s(0.25);
  sigset_t pending;
  assert(sigpending(&pending) == 0 && sigismember(&pending, SIGRTMIN) == 1);
  assert(timer_delete(t) == 0);
  assert(sigpending(&pending) == 0 && sigismember(&pending, SIGRTMIN) == 1);
  int before_unblock = ticks;
  block(SIGRTMIN, SIG_UNBLOCK);
  assert(ticks == before_unblock + 1);
  int after = ticks;
  sleep_s(1);
  assert(ticks == after);
  errno = 0;
  assert(timer_gettime(t, &cur) == -1 && errno == EINVAL);
  printf("signal ok: 10 ticks of 100 ms in %.3f s, SI_TIMER with its pointer, overrun %d while blocked, "
         "the pending one kept and none after delete\n", took, overrun_seen);
}

/* ---- thread ---- */

static atomic_int calls;
static pthread_t main_thread;
static atomic_int off_main;

static void notified(union sigval v) {
  assert(v.sival_ptr == &marker);
  if (!pthread_equal(pthread_self(), main_thread)) off_main++;
  calls++;
}

static void thread_mode(void) {
  main_thread = pthread_self();
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD;
  sev.sigev_notify_function = notified;
  sev.sigev_value.sival_ptr = &marker;
  timer_t t;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == 0);
  struct itimerspec its = every(50);
  assert(timer_settime(t, 0, &its, NULL) == 0);
  sleep_s(1.025);
  assert(timer_delete(t) == 0);
  int seen = calls;
  sleep_s(1);
  assert(calls == seen);
  assert(seen == 20 && off_main == 20);
  printf("thread ok: %d calls in 1 s, each in a thread of its own\n", seen);
}

/* ---- thread_id ---- */

static atomic_int worker_tid, wrong_thread, taken;
static atomic_int stop;

static void on_mine(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc, (void)si;
  if (gettid() != worker_tid) wrong_thread++;
  taken++;
}

static void *worker(void *arg) {
  (void)arg;
  worker_tid = gettid();
  while (!stop) sleep_s(0.01);
  return NULL;
}

static void *bystander(void *arg) {
  (void)arg;
  while (!stop) sleep_s(0.003);
  return NULL;
}

static void thread_id_mode(void) {
  on_info(SIGUSR1, on_mine);
  pthread_t w, b;
  assert(pthread_create(&w, NULL, worker, NULL) == 0);
  assert(pthread_create(&b, NULL, bystander, NULL) == 0);
  while (worker_tid == 0) sleep_s(0.001);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGUSR1;
  sev._sigev_un._tid = worker_tid;
  timer_t t;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == 0);
  struct itimerspec its = every(20);
  assert(timer_settime(t, 0, &its, NULL) == 0);
  while (taken < 25) sleep_s(0.005);
  assert(timer_delete(t) == 0);
  stop = 1;
  pthread_join(w, NULL);
  pthread_join(b, NULL);
  assert(wrong_thread == 0);
  printf("thread_id ok: every signal taken by the named thread\n");
}

/* ---- abstime ---- */

static void abstime_mode(void) {
  block(SIGRTMIN + 1, SIG_BLOCK);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGRTMIN + 1;
  sev.sigev_value.sival_int = 42;
  timer_t t;
  assert(timer_create(CLOCK_REALTIME, &sev, &t) == 0);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct itimerspec its = { { 0, 0 }, { now.tv_sec + 2, now.tv_nsec } };
  double t0 = mono();
  assert(timer_settime(t, TIMER_ABSTIME, &its, NULL) == 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGRTMIN + 1);
  siginfo_t si;
  assert(sigwaitinfo(&set, &si) == SIGRTMIN + 1);
  double waited = mono() - t0;
  assert(si.si_code == SI_TIMER && si.si_value.sival_int == 42 && si.si_overrun == 0);
  assert(waited >= 1.999 && waited < 2.001);
  /* A one-shot timer is disarmed once it expired. */
  struct itimerspec cur;
  assert(timer_gettime(t, &cur) == 0 && cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
  /* An absolute time already past expires at once. */
  its.it_value = now;
  assert(timer_settime(t, TIMER_ABSTIME, &its, NULL) == 0);
  assert(sigwaitinfo(&set, &si) == SIGRTMIN + 1);
  assert(timer_delete(t) == 0);
  printf("abstime ok: CLOCK_REALTIME expiry after %.3f s, si_value 42; a past time expires at once\n", waited);
}

/* ---- errors ---- */

static void no_op(union sigval v) { (void)v; }

static void errors_mode(void) {
  timer_t t;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGUSR2;
  errno = 0;
  assert(timer_create(12345, &sev, &t) == -1 && errno == EINVAL);
  errno = 0;
  assert(timer_create(CLOCK_REALTIME_ALARM, &sev, &t) == -1 && errno == EPERM);
  sev.sigev_signo = 0;
  errno = 0;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == -1 && errno == EINVAL);
  sev.sigev_notify = 77;
  errno = 0;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == -1 && errno == EINVAL);
  sev.sigev_notify = SIGEV_THREAD;
  sev.sigev_notify_function = NULL;
  errno = 0;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == -1 && errno == EINVAL);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGUSR2;
  sev._sigev_un._tid = 999999;
  errno = 0;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == -1 && errno == EINVAL);
  /* SIGEV_NONE keeps time and nothing else. */
  sev.sigev_notify = SIGEV_NONE;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == 0);
  struct itimerspec bad = { { 0, 0 }, { 0, 1000000000L } }, its = every(300), cur;
  errno = 0;
  assert(timer_settime(t, 0, &bad, NULL) == -1 && errno == EINVAL);
  errno = 0;
  assert(timer_settime(t, 0x40, &its, NULL) == -1 && errno == EINVAL);
  assert(timer_settime(t, 0, &its, NULL) == 0);
  sleep_s(1);
  assert(timer_gettime(t, &cur) == 0 && cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 199990000 &&
         cur.it_value.tv_nsec <= 200000000);
  /* A value too large for nanoseconds saturates (about 292 years), as the
   * kernel's does: far ahead, not wrapped around. */
  struct itimerspec far = { { 0, 0 }, { (time_t)1 << 62, 0 } };
  assert(timer_settime(t, 0, &far, NULL) == 0);
  assert(timer_gettime(t, &cur) == 0 && cur.it_value.tv_sec > (time_t)9000000000);
  assert(timer_delete(t) == 0);
  errno = 0;
  assert(timer_delete(t) == -1 && errno == EINVAL);
  errno = 0;
  assert(timer_getoverrun(t) == -1 && errno == EINVAL);
  /* The limit: 256 timers alive at once, then EAGAIN. */
  sev.sigev_notify = SIGEV_THREAD;
  sev.sigev_notify_function = no_op;
  assert(timer_create(CLOCK_MONOTONIC, &sev, &t) == 0 && timer_delete(t) == 0);
  sev.sigev_notify = SIGEV_SIGNAL;
  int made = 0;
  timer_t all[300];
  while (made < 300 && timer_create(CLOCK_MONOTONIC, &sev, &all[made]) == 0) made++;
  assert(errno == EAGAIN);
  for (int i = 0; i < made; i++) assert(timer_delete(all[i]) == 0);
  printf("errors ok: bad clock, alarm clock, signal, notify, function, thread and time refused; "
         "%d timers at most\n", made);
}

/* ---- sigqueue ---- */

static void *volatile received;

static void on_queued(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  assert(si->si_code == SI_QUEUE);
  received = si->si_value.sival_ptr;
}

static void sigqueue_mode(void) {
  on_info(SIGUSR1, on_queued);
  static long payload = 7;
  assert(sigqueue(getpid(), SIGUSR1, (union sigval){ .sival_ptr = &payload }) == 0);
  assert(received == &payload && *(long *)received == 7);
  printf("sigqueue ok: the pointer arrived whole\n");
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "signal")) signal_mode();
  else if (!strcmp(mode, "thread")) thread_mode();
  else if (!strcmp(mode, "thread_id")) thread_id_mode();
  else if (!strcmp(mode, "abstime")) abstime_mode();
  else if (!strcmp(mode, "errors")) errors_mode();
  else if (!strcmp(mode, "sigqueue")) sigqueue_mode();
  else {
    fprintf(stderr, "usage: posix_timers signal|thread|thread_id|abstime|errors|sigqueue\n");
    return 2;
  }
  return 0;
}
