/* Priority inheritance and priority protection on one CPU with SCHED_FIFO,
 * as Linux and glibc give them: natively the process pins itself to one
 * CPU (so it needs CAP_SYS_NICE: without it the native run fails, loudly),
 * simulated the machine grants it.
 *
 * The classic inversion: a low thread L (10) holds a lock, a high one H
 * (30) blocks on it, and a CPU-bound medium one M (20) becomes runnable
 * with L.  With PTHREAD_PRIO_NONE, M runs before L can release (order MLH);
 * with PTHREAD_PRIO_INHERIT (L runs at H's priority) and
 * PTHREAD_PRIO_PROTECT (ceiling 40: L runs at 40 while it holds it) L
 * releases first and H takes the lock before M runs (LHM).  Variants: a
 * chain (H waits for X's lock, X for L's: L is boosted through X), a
 * waiter's priority changed while it waits, the raw futex PI operations;
 * then the errors of ceilings and protocols.
 *
 * The order in which threads run is all that is compared: main (50) posts
 * each thread's go, then drops to priority 1 until every other thread
 * blocked (settle), so no sleep or timing is involved. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAIN_PRIO 50
#define CEILING 40
#define SPIN_ROUNDS 2000

static const char *err_name(int e) {
  switch (e) {
  case 0: return "0";
  case EINVAL: return "EINVAL";
  case EDEADLK: return "EDEADLK";
  case EPERM: return "EPERM";
  case EBUSY: return "EBUSY";
  case ENOTSUP: return "ENOTSUP";
  case EAGAIN: return "EAGAIN";
  case ESRCH: return "ESRCH";
  default: return strerror(e);
  }
}

static void must(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "prio_protocols: %s failed: %s\n", what, strerror(errno));
    exit(2);
  }
}

static void set_fifo(pthread_t t, int prio) {
  struct sched_param p = {.sched_priority = prio};
  int e = pthread_setschedparam(t, SCHED_FIFO, &p);
  if (e != 0) {
    fprintf(stderr, "prio_protocols: pthread_setschedparam(SCHED_FIFO, %d): %s\n", prio, strerror(e));
    exit(2);
  }
}

/* Every other thread runs until it blocks: main waits below them all. */
static void settle(void) {
  set_fifo(pthread_self(), 1);
  set_fifo(pthread_self(), MAIN_PRIO);
}

/* ---- the locks the scenarios contend for ---- */

/* FUTEX_REQUEUE_PI: a FUTEX_PI lock that H comes to through
 * FUTEX_WAIT_REQUEUE_PI on a condition word, requeued onto it while L holds
 * it (as glibc's PI condvars did). */
enum lock_kind { MUTEX_NONE, MUTEX_INHERIT, MUTEX_PROTECT, FUTEX_PI, FUTEX_REQUEUE_PI };

struct lock {
  enum lock_kind kind;
  pthread_mutex_t m;
  uint32_t word; /* FUTEX_PI: 0 or the owner's tid */
};

static long futex_pi(uint32_t *word, int op) { return syscall(SYS_futex, word, op, 0, NULL, NULL, 0); }

static void lock_init(struct lock *l, enum lock_kind kind) {
  l->kind = kind;
  l->word = 0;
  if (kind == FUTEX_PI || kind == FUTEX_REQUEUE_PI) return;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setprotocol(&a, kind == MUTEX_INHERIT ? PTHREAD_PRIO_INHERIT
                                    : kind == MUTEX_PROTECT ? PTHREAD_PRIO_PROTECT : PTHREAD_PRIO_NONE);
  if (kind == MUTEX_PROTECT) pthread_mutexattr_setprioceiling(&a, CEILING);
  must(pthread_mutex_init(&l->m, &a) == 0, "pthread_mutex_init");
  pthread_mutexattr_destroy(&a);
}

static void lock_take(struct lock *l) {
  if (l->kind == FUTEX_PI || l->kind == FUTEX_REQUEUE_PI) {
    must(futex_pi(&l->word, FUTEX_LOCK_PI_PRIVATE) == 0, "FUTEX_LOCK_PI");
    return;
  }
  errno = pthread_mutex_lock(&l->m);
  must(errno == 0, "pthread_mutex_lock");
}

static void lock_give(struct lock *l) {
  if (l->kind == FUTEX_PI || l->kind == FUTEX_REQUEUE_PI) {
    must(futex_pi(&l->word, FUTEX_UNLOCK_PI_PRIVATE) == 0, "FUTEX_UNLOCK_PI");
    return;
  }
  errno = pthread_mutex_unlock(&l->m);
  must(errno == 0, "pthread_mutex_unlock");
}

/* ---- one scenario ---- */

static struct {
  struct lock a, b;
  sem_t l_go, l_release, x_go, h_go, m_go;
  bool chain;
  uint32_t cond; /* FUTEX_REQUEUE_PI's condition word */
  char order[8];
  int n;
  int low_kernel, low_glibc; /* L's priority as it sees it while it releases */
} S;

static void mark(char c) { S.order[__atomic_fetch_add(&S.n, 1, __ATOMIC_RELAXED)] = c; }

static void *low(void *arg) {
  (void)arg;
  sem_wait(&S.l_go);
  lock_take(&S.a);
  sem_wait(&S.l_release);
  struct sched_param p;
  int policy;
  sched_getparam(0, &p);
  S.low_kernel = p.sched_priority;
  pthread_getschedparam(pthread_self(), &policy, &p);
  S.low_glibc = p.sched_priority;
  mark('L');
  lock_give(&S.a);
  return NULL;
}

static void *middle_lock(void *arg) {
  (void)arg;
  sem_wait(&S.x_go);
  lock_take(&S.b);
  lock_take(&S.a);
  mark('X');
  lock_give(&S.a);
  lock_give(&S.b);
  return NULL;
}

static void *high(void *arg) {
  (void)arg;
  sem_wait(&S.h_go);
  struct lock *l = S.chain ? &S.b : &S.a;
  if (l->kind == FUTEX_REQUEUE_PI) /* returns owning the lock */
    must(syscall(SYS_futex, &S.cond, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL, &l->word, 0) == 0,
         "FUTEX_WAIT_REQUEUE_PI");
  else
    lock_take(l);
  mark('H');
  lock_give(l);
  return NULL;
}

static volatile unsigned long spin_sink;

static void *medium(void *arg) {
  (void)arg;
  sem_wait(&S.m_go);
  mark('M');
  for (unsigned long i = 0; i < SPIN_ROUNDS; i++) spin_sink += i; /* CPU-bound */
  return NULL;
}

static pthread_t start(void *(*fn)(void *), int prio) {
  pthread_t t;
  must(pthread_create(&t, NULL, fn, NULL) == 0, "pthread_create");
  set_fifo(t, prio);
  return t;
}

/* h_prio: H's priority as it starts to wait; h_then: its priority set
 * while it waits (0: left alone). */
static void scenario(const char *label, enum lock_kind kind, bool chain, int h_prio, int h_then) {
  memset(S.order, 0, sizeof S.order);
  S.n = 0;
  S.chain = chain;
  lock_init(&S.a, kind);
  lock_init(&S.b, kind);
  sem_init(&S.l_go, 0, 0);
  sem_init(&S.l_release, 0, 0);
  sem_init(&S.x_go, 0, 0);
  sem_init(&S.h_go, 0, 0);
  sem_init(&S.m_go, 0, 0);
  pthread_t l = start(low, 10), h = start(high, h_prio), m = start(medium, 20), x = 0;
  if (chain) x = start(middle_lock, 15);
  sem_post(&S.l_go);
  settle(); /* L holds a */
  if (chain) {
    sem_post(&S.x_go);
    settle(); /* X holds b and waits for a */
  }
  S.cond = 0;
  sem_post(&S.h_go);
  settle(); /* H waits */
  if (kind == FUTEX_REQUEUE_PI) /* H moves behind L on the lock L holds */
    must(syscall(SYS_futex, &S.cond, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1L, &S.a.word, 0) == 1,
         "FUTEX_CMP_REQUEUE_PI");
  if (h_then != 0) set_fifo(h, h_then);
  sem_post(&S.m_go);
  sem_post(&S.l_release);
  pthread_join(l, NULL);
  pthread_join(h, NULL);
  pthread_join(m, NULL);
  if (chain) pthread_join(x, NULL);
  printf("%s order=%s\n", label, S.order);
  if (kind != MUTEX_NONE && kind != FUTEX_PI && kind != FUTEX_REQUEUE_PI && !chain && h_then == 0)
    printf("%s low_sees kernel=%d pthread=%d\n", label, S.low_kernel, S.low_glibc);
  if (kind != FUTEX_PI && kind != FUTEX_REQUEUE_PI) {
    pthread_mutex_destroy(&S.a.m);
    pthread_mutex_destroy(&S.b.m);
  }
}

/* ---- errors ---- */

static pthread_mutex_t *E_m;
static int E_r[3];
static sem_t E_go;

static void *unlock_other(void *arg) {
  (void)arg;
  sem_wait(&E_go);
  E_r[0] = pthread_mutex_unlock(E_m);
  return NULL;
}

static void *other_policy_locks(void *arg) {
  (void)arg;
  sem_wait(&E_go);
  E_r[0] = pthread_mutex_lock(E_m);
  E_r[1] = pthread_mutex_lock(E_m);
  E_r[2] = pthread_mutex_unlock(E_m);
  return NULL;
}

/* The thread acts once its policy is set (simulated, a thread of main's
 * priority may run as soon as it exists: the seed chooses among equals). */
static void run_in_thread(void *(*fn)(void *), int policy) {
  sem_init(&E_go, 0, 0);
  pthread_t t;
  must(pthread_create(&t, NULL, fn, NULL) == 0, "pthread_create");
  struct sched_param p = {.sched_priority = policy == SCHED_FIFO ? 10 : 0};
  must(pthread_setschedparam(t, policy, &p) == 0, "pthread_setschedparam");
  sem_post(&E_go);
  pthread_join(t, NULL);
}

static int kernel_prio(void) {
  struct sched_param p;
  sched_getparam(0, &p);
  return p.sched_priority;
}

static int glibc_prio(void) {
  struct sched_param p;
  int policy;
  pthread_getschedparam(pthread_self(), &policy, &p);
  return p.sched_priority;
}

static void make(pthread_mutex_t *m, int protocol, int type, int ceiling) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setprotocol(&a, protocol);
  pthread_mutexattr_settype(&a, type);
  if (ceiling) pthread_mutexattr_setprioceiling(&a, ceiling);
  must(pthread_mutex_init(m, &a) == 0, "pthread_mutex_init");
  pthread_mutexattr_destroy(&a);
}

static void ceiling_errors(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  int c = -1;
  pthread_mutexattr_getprioceiling(&a, &c);
  printf("attr default_ceiling=%d ceiling0=%s ceiling100=%s protocol7=%s\n", c,
         err_name(pthread_mutexattr_setprioceiling(&a, 0)), err_name(pthread_mutexattr_setprioceiling(&a, 100)),
         err_name(pthread_mutexattr_setprotocol(&a, 7)));
  pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT);
  pthread_mutex_t m;
  must(pthread_mutex_init(&m, &a) == 0, "pthread_mutex_init");
  pthread_mutex_getprioceiling(&m, &c);
  printf("protect unset_ceiling=%d\n", c);
  pthread_mutex_destroy(&m);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  printf("robust protect_init=%s\n", err_name(pthread_mutex_init(&m, &a)));
  pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
  int r = pthread_mutex_init(&m, &a);
  int l1 = pthread_mutex_lock(&m), u1 = pthread_mutex_unlock(&m);
  printf("robust inherit_init=%s lock=%s unlock=%s\n", err_name(r), err_name(l1), err_name(u1));
  pthread_mutex_destroy(&m);
  pthread_mutexattr_destroy(&a);

  /* main runs at 50: above a ceiling of 40 */
  make(&m, PTHREAD_PRIO_PROTECT, PTHREAD_MUTEX_NORMAL, CEILING);
  printf("above_ceiling lock=%s trylock=%s kernel=%d\n", err_name(pthread_mutex_lock(&m)),
         err_name(pthread_mutex_trylock(&m)), kernel_prio());
  int old = -1;
  r = pthread_mutex_setprioceiling(&m, 45, &old);
  pthread_mutex_getprioceiling(&m, &c);
  printf("setprioceiling=%s old=%d now=%d bad0=%s bad100=%s\n", err_name(r), old, c,
         err_name(pthread_mutex_setprioceiling(&m, 0, &old)), err_name(pthread_mutex_setprioceiling(&m, 100, &old)));
  pthread_mutex_setprioceiling(&m, 60, &old);
  r = pthread_mutex_lock(&m);
  printf("raised lock=%s kernel=%d pthread=%d\n", err_name(r), kernel_prio(), glibc_prio());
  r = pthread_mutex_unlock(&m);
  printf("raised unlock=%s kernel=%d\n", err_name(r), kernel_prio());
  pthread_mutex_destroy(&m);

  pthread_mutex_t plain;
  pthread_mutex_init(&plain, NULL);
  printf("plain setprioceiling=%s getprioceiling=%s\n", err_name(pthread_mutex_setprioceiling(&plain, 10, &old)),
         err_name(pthread_mutex_getprioceiling(&plain, &c)));
  pthread_mutex_destroy(&plain);

  make(&m, PTHREAD_PRIO_PROTECT, PTHREAD_MUTEX_ERRORCHECK, 60);
  pthread_mutex_lock(&m);
  printf("errorcheck owner setprioceiling=%s trylock=%s\n", err_name(pthread_mutex_setprioceiling(&m, 70, &old)),
         err_name(pthread_mutex_trylock(&m)));
  pthread_mutex_unlock(&m);
  printf("errorcheck unlock_unlocked=%s\n", err_name(pthread_mutex_unlock(&m)));
  pthread_mutex_destroy(&m);

  make(&m, PTHREAD_PRIO_PROTECT, PTHREAD_MUTEX_RECURSIVE, 60);
  pthread_mutex_lock(&m);
  pthread_mutex_lock(&m);
  r = pthread_mutex_setprioceiling(&m, 70, &old);
  printf("recursive owner setprioceiling=%s old=%d kernel=%d\n", err_name(r), old, kernel_prio());
  pthread_mutex_unlock(&m);
  int k1 = kernel_prio();
  pthread_mutex_unlock(&m);
  printf("recursive unlock kernel=%d then=%d\n", k1, kernel_prio());
  pthread_mutex_destroy(&m);

  /* A SCHED_OTHER thread: glibc raises it with SCHED_OTHER's policy, which
   * the kernel refuses; it counted the ceiling first, so the next lock
   * finds nothing to change. */
  make(&m, PTHREAD_PRIO_PROTECT, PTHREAD_MUTEX_NORMAL, CEILING);
  E_m = &m;
  run_in_thread(other_policy_locks, SCHED_OTHER);
  printf("sched_other lock=%s again=%s unlock=%s\n", err_name(E_r[0]), err_name(E_r[1]), err_name(E_r[2]));
  pthread_mutex_destroy(&m);
}

static void inherit_errors(void) {
  pthread_mutex_t m;
  make(&m, PTHREAD_PRIO_INHERIT, PTHREAD_MUTEX_NORMAL, 0);
  printf("inherit unlock_unlocked=%s", err_name(pthread_mutex_unlock(&m)));
  pthread_mutex_lock(&m);
  printf(" trylock_owner=%s", err_name(pthread_mutex_trylock(&m)));
  E_m = &m;
  run_in_thread(unlock_other, SCHED_FIFO);
  printf(" unlock_other=%s unlock=%s\n", err_name(E_r[0]), err_name(pthread_mutex_unlock(&m)));
  pthread_mutex_destroy(&m);
  make(&m, PTHREAD_PRIO_INHERIT, PTHREAD_MUTEX_ERRORCHECK, 0);
  pthread_mutex_lock(&m);
  printf("inherit errorcheck lock_owner=%s trylock_owner=%s", err_name(pthread_mutex_lock(&m)),
         err_name(pthread_mutex_trylock(&m)));
  pthread_mutex_unlock(&m);
  pthread_mutex_destroy(&m);
  make(&m, PTHREAD_PRIO_INHERIT, PTHREAD_MUTEX_RECURSIVE, 0);
  int a = pthread_mutex_lock(&m), b = pthread_mutex_trylock(&m), c = pthread_mutex_unlock(&m),
      d = pthread_mutex_unlock(&m), e = pthread_mutex_unlock(&m);
  printf(" recursive=%s,%s,%s,%s,%s\n", err_name(a), err_name(b), err_name(c), err_name(d), err_name(e));
  pthread_mutex_destroy(&m);
}

/* FUTEX_LOCK_PI that would close a chain of PI waits: EDEADLK. */
static uint32_t W1, W2;
static sem_t W_start, W_go;

static void *futex_holder(void *arg) {
  (void)arg;
  sem_wait(&W_start);
  futex_pi(&W1, FUTEX_LOCK_PI_PRIVATE);
  sem_post(&W_go);
  futex_pi(&W2, FUTEX_LOCK_PI_PRIVATE); /* waits for main */
  futex_pi(&W2, FUTEX_UNLOCK_PI_PRIVATE);
  futex_pi(&W1, FUTEX_UNLOCK_PI_PRIVATE);
  return NULL;
}

static void futex_deadlock(void) {
  sem_init(&W_start, 0, 0);
  sem_init(&W_go, 0, 0);
  must(futex_pi(&W2, FUTEX_LOCK_PI_PRIVATE) == 0, "FUTEX_LOCK_PI");
  pthread_t t = start(futex_holder, 10);
  sem_post(&W_start);
  sem_wait(&W_go);
  settle(); /* it holds W1 and waits for W2 */
  long r = futex_pi(&W1, FUTEX_LOCK_PI_PRIVATE);
  printf("futex chain_lock=%ld %s\n", r, r < 0 ? err_name(errno) : "");
  futex_pi(&W2, FUTEX_UNLOCK_PI_PRIVATE);
  pthread_join(t, NULL);
}

int main(void) {
  cpu_set_t set;
  must(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
  int cpu = 0;
  while (!CPU_ISSET(cpu, &set)) cpu++;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  must(sched_setaffinity(0, sizeof set, &set) == 0, "sched_setaffinity");
  struct sched_param p = {.sched_priority = MAIN_PRIO};
  if (sched_setscheduler(0, SCHED_FIFO, &p) != 0) {
    fprintf(stderr, "prio_protocols: SCHED_FIFO needs CAP_SYS_NICE (or an RLIMIT_RTPRIO): %s\n", strerror(errno));
    return 2;
  }
  scenario("none", MUTEX_NONE, false, 30, 0);
  scenario("inherit", MUTEX_INHERIT, false, 30, 0);
  scenario("protect", MUTEX_PROTECT, false, 30, 0);
  scenario("futex_pi", FUTEX_PI, false, 30, 0);
  scenario("futex_requeue_pi", FUTEX_REQUEUE_PI, false, 30, 0);
  scenario("chain none", MUTEX_NONE, true, 30, 0);
  scenario("chain inherit", MUTEX_INHERIT, true, 30, 0);
  scenario("chain futex_pi", FUTEX_PI, true, 30, 0);
  scenario("waiter_raised inherit", MUTEX_INHERIT, false, 15, 30);
  scenario("waiter_lowered inherit", MUTEX_INHERIT, false, 30, 5);
  scenario("waiter_raised futex_pi", FUTEX_PI, false, 15, 30);
  ceiling_errors();
  inherit_errors();
  futex_deadlock();
  return 0;
}
