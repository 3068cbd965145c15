/* Signals inside the simulation: dispositions, masks, delivery at yield
 * points, interrupted waits, interval timers on virtual time, sigwait, and
 * which thread takes a process-directed signal.  Each mode prints what it
 * saw; a broken rule fails an assert (class crash, SIGABRT).
 *
 *   signals handlers    raise/kill/pthread_kill, SA_SIGINFO, sa_mask, masks
 *   signals interrupt   EINTR and SA_RESTART for read, nanosleep, sem_wait, ppoll
 *   signals timers      alarm, pause, setitimer periodic, getitimer
 *   signals sigwait     sigwait/sigtimedwait from a thread, process-directed
 *   signals chooser     which of three threads takes a process-directed signal
 *   signals signalfd    blocked signals read from a signalfd in an epoll set
 *   signals jump        a handler left by siglongjmp: its mask does not stay
 *   signals default     SIGTERM with its default action ends the run
 *   signals queue_limit real-time signals queue up to the named limit, then
 *                       sigqueue fails with EAGAIN; each is taken once
 */
#define _GNU_SOURCE
#include <assert.h>
#include <setjmp.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t order[8];
static volatile sig_atomic_t n_order;
static volatile sig_atomic_t last_code;

static void record(int sig) { order[n_order++] = sig; }

static void on_usr1_info(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  last_code = si->si_code;
  record(sig);
  /* USR2 is in this handler's sa_mask: it waits until the handler returns. */
  raise(SIGUSR2);
  assert(n_order == 1 || order[n_order - 1] == SIGUSR1);
}

static void on_plain(int sig) { record(sig); }

static void set_handler(int sig, void (*h)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  assert(sigaction(sig, &sa, NULL) == 0);
}

static void handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1_info;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR2);
  assert(sigaction(SIGUSR1, &sa, NULL) == 0);
  assert(signal(SIGUSR2, on_plain) == SIG_DFL);

  assert(raise(SIGUSR1) == 0);
  assert(n_order == 2 && order[0] == SIGUSR1 && order[1] == SIGUSR2);
  assert(last_code == SI_TKILL);

  /* Blocked: pending, not run; unblocking runs it before sigprocmask returns. */
  sigset_t set, pending;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  assert(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
  assert(kill(getpid(), SIGUSR2) == 0);
  assert(n_order == 2);
  assert(sigpending(&pending) == 0 && sigismember(&pending, SIGUSR2) == 1);
  assert(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0);
  assert(n_order == 3 && order[2] == SIGUSR2);

  /* Ignored: discarded when sent; SIGKILL's disposition can't change. */
  set_handler(SIGUSR2, SIG_IGN, 0);
  assert(raise(SIGUSR2) == 0 && n_order == 3);
  struct sigaction probe;
  memset(&probe, 0, sizeof probe);
  probe.sa_handler = on_plain;
  errno = 0;
  assert(sigaction(SIGKILL, &probe, NULL) == -1 && errno == EINVAL);
  assert(kill(getpid(), 0) == 0);
  errno = 0;
  assert(kill(getpid(), 65) == -1 && errno == EINVAL);

  /* SA_RESETHAND: the handler runs once, then the default is back. */
  set_handler(SIGUSR2, on_plain, SA_RESETHAND);
  raise(SIGUSR2);
  struct sigaction now;
  assert(sigaction(SIGUSR2, NULL, &now) == 0 && now.sa_handler == SIG_DFL);
  printf("handlers ok: order %d %d %d %d, si_code SI_TKILL\n", order[0], order[1], order[2], order[3]);
}

/* ---- interrupt ---- */

static int pipefd[2];
static sem_t sem;
static volatile int got_eintr[4];
static volatile ssize_t read_result;

static void *reader(void *arg) {
  (void)arg;
  char c;
  ssize_t r = read(pipefd[0], &c, 1);
  got_eintr[0] = r == -1 && errno == EINTR;
  read_result = r;
  return NULL;
}

static void *sleeper(void *arg) {
  (void)arg;
  struct timespec req = { 100, 0 }, rem = { 0, 0 };
  int r = nanosleep(&req, &rem);
  got_eintr[1] = r == -1 && errno == EINTR && rem.tv_sec > 90 && rem.tv_sec < 100;
  return NULL;
}

static void *sem_waiter(void *arg) {
  (void)arg;
  int r = sem_wait(&sem);
  got_eintr[2] = r == -1 && errno == EINTR;
  return NULL;
}

static void *ppoller(void *arg) {
  (void)arg;
  struct pollfd p = { pipefd[0], POLLIN, 0 };
  sigset_t none;
  sigemptyset(&none);
  /* USR1 is blocked in this thread except during the wait. */
  int r = ppoll(&p, 1, NULL, &none);
  got_eintr[3] = r == -1 && errno == EINTR;
  return NULL;
}

/* Starts f, lets it block (virtual time passes; it runs meanwhile), sends it
 * SIGUSR1, joins it. */
static void interrupt_one(void *(*f)(void *)) {
  pthread_t t;
  pthread_create(&t, NULL, f, NULL);
  sleep(1);
  pthread_kill(t, SIGUSR1);
  sleep(1);
  pthread_join(t, NULL);
}

static void interrupt(void) {
  assert(pipe(pipefd) == 0);
  sem_init(&sem, 0, 0);
  set_handler(SIGUSR1, on_plain, 0);
  interrupt_one(reader);
  interrupt_one(sleeper);
  interrupt_one(sem_waiter);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL); /* the ppoll thread inherits it */
  interrupt_one(ppoller);
  pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
  assert(got_eintr[0] && got_eintr[1] && got_eintr[2] && got_eintr[3]);
  assert(n_order == 4);

  /* With SA_RESTART the read goes on and gets the byte written later. */
  set_handler(SIGUSR1, on_plain, SA_RESTART);
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  sleep(1);
  pthread_kill(t, SIGUSR1);
  sleep(1);
  assert(write(pipefd[1], "x", 1) == 1);
  pthread_join(t, NULL);
  assert(read_result == 1 && n_order == 5);
  printf("interrupt ok: read, nanosleep, sem_wait, ppoll gave EINTR; SA_RESTART read got its byte\n");
}

/* ---- timers ---- */

static volatile sig_atomic_t ticks;
static void on_tick(int sig) {
  (void)sig;
  ticks++;
}

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void timers(void) {
  set_handler(SIGALRM, on_plain, 0);
  double t0 = mono();
  assert(alarm(5) == 0);
  assert(alarm(2) == 5);
  errno = 0;
  assert(pause() == -1 && errno == EINTR);
  double waited = mono() - t0;
  assert(n_order == 1 && order[0] == SIGALRM);
  assert(waited >= 2.0 && waited < 2.01);

  set_handler(SIGALRM, on_tick, SA_RESTART);
  struct itimerval every = { { 0, 100000 }, { 0, 100000 } }, cur;
  assert(setitimer(ITIMER_REAL, &every, NULL) == 0);
  t0 = mono();
  while (ticks < 10) usleep(1000);
  double took = mono() - t0;
  assert(getitimer(ITIMER_REAL, &cur) == 0 && cur.it_interval.tv_usec == 100000);
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  assert(setitimer(ITIMER_REAL, &off, NULL) == 0);
  int before = ticks;
  sleep(1);
  assert(ticks == before);
  assert(took >= 0.99 && took < 1.01);
  printf("timers ok: alarm after %.3f s, 10 ticks of 100 ms in %.3f s\n", waited, took);
}

/* ---- sigwait ---- */

static void *waiter(void *arg) {
  (void)arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  int sig = 0;
  assert(sigwait(&set, &sig) == 0 && sig == SIGUSR1);
  struct timespec timeout = { 3, 0 };
  double t0 = mono();
  errno = 0;
  assert(sigtimedwait(&set, NULL, &timeout) == -1 && errno == EAGAIN);
  assert(mono() - t0 >= 3.0);
  return NULL;
}

static void sigwaits(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  usleep(500);
  kill(getpid(), SIGUSR1);
  pthread_join(t, NULL);
  printf("sigwait ok\n");
}

/* ---- chooser ---- */

static _Atomic int taken_by = -1;
static _Atomic int stop;
static __thread int my_index;

static void on_usr1_note(int sig) {
  (void)sig;
  taken_by = my_index;
}

static void *spinner(void *arg) {
  my_index = (int)(long)arg;
  while (!stop) sched_yield();
  return NULL;
}

static void chooser(void) {
  set_handler(SIGUSR1, on_usr1_note, 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL); /* main never takes it */
  pthread_t t[3];
  for (long i = 0; i < 3; i++) {
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    pthread_create(&t[i], NULL, spinner, (void *)(i + 1));
    pthread_sigmask(SIG_BLOCK, &set, NULL);
  }
  kill(getpid(), SIGUSR1);
  while (taken_by < 0) sched_yield();
  stop = 1;
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("chooser: taken by thread %d\n", taken_by);
}

/* ---- signalfd ---- */

static void *sender(void *arg) {
  (void)arg;
  sleep(1);
  kill(getpid(), SIGUSR1);
  return NULL;
}

static void signalfds(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  int sfd = signalfd(-1, &set, SFD_CLOEXEC);
  assert(sfd >= 0);
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = sfd };
  assert(epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) == 0);
  pthread_t t;
  pthread_create(&t, NULL, sender, NULL);
  alarm(2);
  double t0 = mono();
  int got[2] = { 0, 0 };
  for (int i = 0; i < 2; i++) {
    struct epoll_event out;
    assert(epoll_wait(ep, &out, 1, -1) == 1 && out.data.fd == sfd);
    struct signalfd_siginfo si[4];
    ssize_t n = read(sfd, si, sizeof si);
    assert(n == (ssize_t)sizeof si[0]);
    got[i] = (int)si[0].ssi_signo;
  }
  double took = mono() - t0;
  assert(got[0] == SIGUSR1 && got[1] == SIGALRM);
  assert(took >= 2.0 && took < 2.01);
  /* Nothing pending: a non-blocking read says so; a short buffer is EINVAL. */
  struct signalfd_siginfo one;
  int fl = signalfd(sfd, &set, SFD_NONBLOCK);
  assert(fl == sfd);
  errno = 0;
  assert(read(sfd, &one, 8) == -1 && errno == EINVAL);
  pthread_join(t, NULL);
  assert(n_order == 0); /* blocked: no handler ever ran */
  printf("signalfd ok: SIGUSR1 then SIGALRM after %.3f s\n", took);
}

/* ---- jump ---- */

static sigjmp_buf back;
static volatile sig_atomic_t jumps;

static void on_usr1_jump(int sig) {
  (void)sig;
  siglongjmp(back, 1);
}

static void jump(void) {
  set_handler(SIGUSR1, on_usr1_jump, 0);
  for (int i = 0; i < 3; i++) {
    if (sigsetjmp(back, 1) == 0) {
      raise(SIGUSR1);
      assert(!"the handler jumps back");
    }
    jumps++;
  }
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  assert(sigismember(&now, SIGUSR1) == 0);
  printf("jump ok: %d jumps out of the handler, SIGUSR1 unblocked\n", (int)jumps);
}

/* ---- queue_limit ---- */

static void queue_limit(void) {
  sigset_t rt;
  sigemptyset(&rt);
  sigaddset(&rt, SIGRTMIN);
  assert(sigprocmask(SIG_BLOCK, &rt, NULL) == 0);
  int sent = 0;
  while (sent < 5000 && sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = sent }) == 0) sent++;
  assert(errno == EAGAIN);
  /* One pending in the process's slot, 1024 queued (DETSIM_MAX_QUEUED_SIGNALS). */
  assert(sent == 1025);
  struct timespec none = { 0, 0 };
  siginfo_t si;
  for (int i = 0; i < sent; i++) assert(sigtimedwait(&rt, &si, &none) == SIGRTMIN && si.si_value.sival_int == i);
  errno = 0;
  assert(sigtimedwait(&rt, &si, &none) == -1 && errno == EAGAIN);
  /* Room again. */
  assert(sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 7 }) == 0);
  printf("queue_limit ok: %d queued, then EAGAIN; each taken once, in order\n", sent);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "handlers")) handlers();
  else if (!strcmp(mode, "interrupt")) interrupt();
  else if (!strcmp(mode, "timers")) timers();
  else if (!strcmp(mode, "sigwait")) sigwaits();
  else if (!strcmp(mode, "chooser")) chooser();
  else if (!strcmp(mode, "signalfd")) signalfds();
  else if (!strcmp(mode, "jump")) jump();
  else if (!strcmp(mode, "queue_limit")) queue_limit();
  else if (!strcmp(mode, "default")) {
    printf("before\n");
    kill(getpid(), SIGTERM);
    printf("after (never printed)\n");
  } else {
    fprintf(stderr, "usage: signals handlers|interrupt|timers|sigwait|chooser|signalfd|jump|default|queue_limit\n");
    return 2;
  }
  return 0;
}
