/* Deferred cancellation at each blocking cancellation point: the thread
 * blocks, the cancel wakes it, its cleanup handler runs (a cond wait's with
 * the mutex held again) and join returns PTHREAD_CANCELED.  A call that is
 * not reached never returns: "after" is never printed. */
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>

#include "cancel_conf.h"

static int cleanups;
static int cond_unlock = -1; /* what the cond wait's cleanup handler's unlock returned */
static pthread_mutex_t m;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int pipefd[2];
static sem_t sem;
static pthread_t sleeper_for_join;

static void count_cleanup(void *arg) {
  (void)arg;
  cleanups++;
}

static void unlock_cleanup(void *arg) {
  /* An error-checking mutex: unlock succeeds only if this thread holds it. */
  cond_unlock = pthread_mutex_unlock(arg);
  cleanups++;
}

static void *in_sleep(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  sleep(1000);
  printf("after sleep\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_nanosleep(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  struct timespec ts = { 1000, 0 };
  nanosleep(&ts, NULL);
  printf("after nanosleep\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_cond(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_cleanup_push(unlock_cleanup, &m);
  for (;;) pthread_cond_wait(&c, &m);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_read(void *arg) {
  (void)arg;
  char b;
  pthread_cleanup_push(count_cleanup, NULL);
  ssize_t r = read(pipefd[0], &b, 1);
  printf("after read %zd\n", r);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_poll(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  struct pollfd p = { pipefd[0], POLLIN, 0 };
  int r = poll(&p, 1, -1);
  printf("after poll %d\n", r);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_sem(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  sem_wait(&sem);
  printf("after sem_wait\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_sigwait(void *arg) {
  (void)arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  int sig;
  pthread_cleanup_push(count_cleanup, NULL);
  sigwait(&set, &sig);
  printf("after sigwait\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_pause(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  pause();
  printf("after pause\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_timedwait(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_cleanup_push(unlock_cleanup, &m);
  struct timespec abs;
  clock_gettime(CLOCK_REALTIME, &abs);
  abs.tv_sec += 1000;
  for (;;) pthread_cond_timedwait(&c, &m, &abs);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_clock_nanosleep(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  struct timespec ts = { 1000, 0 };
  clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
  printf("after clock_nanosleep\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_select(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  fd_set r;
  FD_ZERO(&r);
  FD_SET(pipefd[0], &r);
  int n = select(pipefd[0] + 1, &r, NULL, NULL, NULL);
  printf("after select %d\n", n);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_epoll(void *arg) {
  int ep = (int)(intptr_t)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  struct epoll_event ev;
  int n = epoll_wait(ep, &ev, 1, -1);
  printf("after epoll_wait %d\n", n);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_recv(void *arg) {
  int fd = (int)(intptr_t)arg;
  char b;
  pthread_cleanup_push(count_cleanup, NULL);
  ssize_t r = recv(fd, &b, 1, 0);
  printf("after recv %zd\n", r);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_sigsuspend(void *arg) {
  (void)arg;
  sigset_t none;
  sigfillset(&none);
  sigdelset(&none, SIGUSR2); /* nobody sends it */
  pthread_cleanup_push(count_cleanup, NULL);
  sigsuspend(&none);
  printf("after sigsuspend\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_join(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  pthread_join(sleeper_for_join, NULL);
  printf("after join\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *long_sleeper(void *arg) {
  (void)arg;
  sleep(1);
  return (void *)7;
}

static void *in_accept(void *arg) {
  int fd = (int)(intptr_t)arg;
  pthread_cleanup_push(count_cleanup, NULL);
  int r = accept(fd, NULL, NULL);
  printf("after accept %d\n", r);
  pthread_cleanup_pop(0);
  return NULL;
}

static void run(const char *label, void *(*fn)(void *), void *arg) {
  cleanups = 0;
  pthread_t t;
  pthread_create(&t, NULL, fn, arg);
  settle();
  int r = pthread_cancel(t);
  printf("%s cancel=%d\n", label, r);
  join_report(label, t);
  printf("%s cleanups=%d\n", label, cleanups);
}

int main(void) {
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&m, &ma);
  if (pipe(pipefd) != 0) return 1;
  sem_init(&sem, 0, 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited: sigwait's signal stays blocked */

  run("sleep", in_sleep, NULL);
  run("nanosleep", in_nanosleep, NULL);
  run("cond_wait", in_cond, NULL);
  printf("cond cleanup: unlock=%s\n", cond_unlock == 0 ? "0" : ename(cond_unlock));
  printf("mutex free after: trylock=%d\n", pthread_mutex_trylock(&m));
  pthread_mutex_unlock(&m);
  run("cond_timedwait", in_timedwait, NULL);
  printf("cond cleanup: unlock=%s\n", cond_unlock == 0 ? "0" : ename(cond_unlock));
  run("clock_nanosleep", in_clock_nanosleep, NULL);
  run("read_pipe", in_read, NULL);
  run("select", in_select, NULL);
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN };
  epoll_ctl(ep, EPOLL_CTL_ADD, pipefd[0], &ev);
  run("epoll_wait", in_epoll, (void *)(intptr_t)ep);
  run("poll", in_poll, NULL);
  run("sem_wait", in_sem, NULL);
  run("sigwait", in_sigwait, NULL);
  run("pause", in_pause, NULL);

  pthread_create(&sleeper_for_join, NULL, long_sleeper, NULL);
  run("join", in_join, NULL);
  /* The canceled join left its target joinable. */
  join_report("join target", sleeper_for_join);

  int s[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0) return 1;
  run("recv", in_recv, (void *)(intptr_t)s[0]);
  run("sigsuspend", in_sigsuspend, NULL);
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un_like { unsigned short family; char path[108]; } sa = { AF_UNIX, "" };
  /* An abstract address of our own pid keeps parallel native runs apart. */
  snprintf(sa.path + 1, sizeof sa.path - 1, "detsim-cancel-%d", (int)getpid());
  socklen_t len = (socklen_t)(sizeof sa.family + 1 + strlen(sa.path + 1));
  if (bind(lfd, (struct sockaddr *)&sa, len) != 0 || listen(lfd, 4) != 0) return 1;
  run("accept", in_accept, (void *)(intptr_t)lfd);
  printf("done\n");
  return 0;
}
