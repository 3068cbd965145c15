/* Signals and raw futex waits, as Linux gives them: an untimed FUTEX_WAIT
 * fails with EINTR after a handler without SA_RESTART, and is restarted
 * after one with SA_RESTART (comparing the word again: a wake then ends
 * it); a timed wait fails with EINTR after any handler; LOCK_PI is
 * restarted after any handler and takes the lock when it is freed.  The
 * signals are sent with a raw tgkill to the waiter's gettid. */
#include "../../net/conformance/conf.h"

#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>

static _Atomic uint32_t word, pi, started;
static _Atomic long waiter_tid;
static volatile sig_atomic_t handled;

static void on_signal(int sig) { handled += sig > 0; }

struct job { int op; int timed; long result; int err; };

static void *waiter(void *arg) {
  struct job *j = arg;
  atomic_store(&waiter_tid, syscall(SYS_gettid));
  atomic_store(&started, 1);
  errno = 0;
  if (j->op == FUTEX_LOCK_PI)
    j->result = syscall(SYS_futex, &pi, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
  else
    j->result = syscall(SYS_futex, &word, FUTEX_WAIT, 0, j->timed ? &(struct timespec){5, 0} : NULL, NULL, 0);
  j->err = errno;
  if (j->op == FUTEX_LOCK_PI && j->result == 0) {
    uint32_t tid = (uint32_t)syscall(SYS_gettid);
    j->err = (atomic_load(&pi) & FUTEX_TID_MASK) == tid ? 0 : -1;
    MUST(syscall(SYS_futex, &pi, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) == 0);
  }
  return NULL;
}

static void run(const char *label, int sig, struct job *j, int release) {
  pthread_t t;
  atomic_store(&started, 0);
  atomic_store(&word, 0);
  handled = 0;
  MUST(pthread_create(&t, NULL, waiter, j) == 0);
  while (!atomic_load(&started)) usleep(1000);
  settle();
  /* By thread id, as a raw tgkill names it. */
  MUST(atomic_load(&waiter_tid) != syscall(SYS_gettid));
  MUST(syscall(SYS_tgkill, getpid(), atomic_load(&waiter_tid), sig) == 0);
  settle();
  if (release == 1) {
    atomic_store(&word, 1);
    syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0);
  } else if (release == 2) {
    MUST(syscall(SYS_futex, &pi, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) == 0);
  }
  pthread_join(t, NULL);
  if (j->result < 0)
    printf("%s=-1 %s handled=%d\n", label, ename(j->err), (int)handled);
  else
    printf("%s=%ld handled=%d%s\n", label, j->result, (int)handled, j->op == FUTEX_LOCK_PI && j->err ? " not_owner" : "");
  fflush(stdout);
}

int main(void) {
  struct sigaction plain = {.sa_handler = on_signal}, restart = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
  sigemptyset(&plain.sa_mask);
  sigemptyset(&restart.sa_mask);
  MUST(sigaction(SIGUSR1, &plain, NULL) == 0);
  MUST(sigaction(SIGUSR2, &restart, NULL) == 0);
  struct job j = {FUTEX_WAIT, 0, -9, 0};
  run("untimed_no_restart", SIGUSR1, &j, 1);
  j = (struct job){FUTEX_WAIT, 0, -9, 0};
  run("untimed_sa_restart", SIGUSR2, &j, 1);
  j = (struct job){FUTEX_WAIT, 1, -9, 0};
  run("timed_sa_restart", SIGUSR2, &j, 1);
  /* The main thread holds the PI lock while the waiter is interrupted. */
  atomic_store(&pi, (uint32_t)syscall(SYS_gettid));
  j = (struct job){FUTEX_LOCK_PI, 0, -9, 0};
  run("lock_pi_interrupted", SIGUSR1, &j, 2);
  printf("pi_word_after=%u\n", atomic_load(&pi));
  printf("done\n");
  return 0;
}
