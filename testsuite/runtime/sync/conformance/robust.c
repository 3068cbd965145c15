/* Robust mutexes as glibc gives them, natively and simulated: of every type
 * (normal, recursive, errorcheck), without a protocol and with
 * PTHREAD_PRIO_INHERIT.  An owner thread that ends holding one (returning
 * or pthread_exit) leaves it to the next locker with EOWNERDEAD;
 * pthread_mutex_consistent makes it usable again, an unlock without it
 * makes it ENOTRECOVERABLE; waiters blocked when the owner ends wake (one
 * gets EOWNERDEAD); a thread ending with several held gives up each; a
 * cond wait reacquiring one returns EOWNERDEAD; and the errors of each
 * type (EPERM, EDEADLK, EBUSY, EINVAL). */
#include "../../../net/conformance/conf.h"

#include <pthread.h>

static const char *type_name(int type) {
  return type == PTHREAD_MUTEX_NORMAL ? "normal" : type == PTHREAD_MUTEX_RECURSIVE ? "recursive" : "errorcheck";
}

static void robust_init(pthread_mutex_t *m, int type, int protocol) {
  pthread_mutexattr_t a;
  MUST(pthread_mutexattr_init(&a) == 0);
  MUST(pthread_mutexattr_settype(&a, type) == 0);
  MUST(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0);
  MUST(pthread_mutexattr_setprotocol(&a, protocol) == 0);
  int r = -1;
  MUST(pthread_mutexattr_getrobust(&a, &r) == 0 && r == PTHREAD_MUTEX_ROBUST);
  MUST(pthread_mutex_init(m, &a) == 0);
  pthread_mutexattr_destroy(&a);
}

static void rc(const char *label, int r) {
  printf("  %s=%s\n", label, r == 0 ? "0" : ename(r));
}

/* ---- an owner that ends holding it ---- */

struct hold {
  pthread_mutex_t *m[3];
  int n;
  int how_exit; /* 0 return, 1 pthread_exit */
};

static void *hold_and_end(void *arg) {
  struct hold *h = arg;
  for (int i = 0; i < h->n; i++) MUST(pthread_mutex_lock(h->m[i]) == 0);
  if (h->how_exit) pthread_exit(NULL);
  return NULL;
}

static void owner_ends(pthread_mutex_t *m, int how_exit) {
  struct hold h = {.m = {m}, .n = 1, .how_exit = how_exit};
  pthread_t t;
  MUST(pthread_create(&t, NULL, hold_and_end, &h) == 0);
  MUST(pthread_join(t, NULL) == 0);
}

static void *unlock_other(void *arg) {
  return (void *)(long)pthread_mutex_unlock(arg);
}

static void *trylock_other(void *arg) {
  return (void *)(long)pthread_mutex_trylock(arg);
}

static int in_other_thread(void *(*fn)(void *), pthread_mutex_t *m) {
  pthread_t t;
  void *r;
  MUST(pthread_create(&t, NULL, fn, m) == 0);
  MUST(pthread_join(t, &r) == 0);
  return (int)(long)r;
}

static void one_kind(int type, int protocol) {
  printf("%s %s\n", type_name(type), protocol == PTHREAD_PRIO_INHERIT ? "inherit" : "none");
  pthread_mutex_t m;
  robust_init(&m, type, protocol);

  /* Plain use, and the errors of the type. */
  rc("lock", pthread_mutex_lock(&m));
  rc("trylock_by_owner", pthread_mutex_trylock(&m));
  if (type == PTHREAD_MUTEX_RECURSIVE) rc("unlock_extra", pthread_mutex_unlock(&m));
  rc("trylock_other", in_other_thread(trylock_other, &m));
  rc("unlock_other", in_other_thread(unlock_other, &m));
  rc("consistent_when_consistent", pthread_mutex_consistent(&m));
  rc("unlock", pthread_mutex_unlock(&m));
  rc("unlock_unlocked", pthread_mutex_unlock(&m));

  /* The owner returns holding it; consistent makes it whole. */
  owner_ends(&m, 0);
  rc("lock_after_owner_returned", pthread_mutex_lock(&m));
  if (type == PTHREAD_MUTEX_RECURSIVE) {
    rc("relock_inconsistent", pthread_mutex_lock(&m));
    rc("unlock_inner", pthread_mutex_unlock(&m));
  }
  rc("consistent", pthread_mutex_consistent(&m));
  rc("consistent_again", pthread_mutex_consistent(&m));
  rc("unlock", pthread_mutex_unlock(&m));
  rc("lock", pthread_mutex_lock(&m));
  rc("unlock", pthread_mutex_unlock(&m));

  /* The owner calls pthread_exit holding it; trylock finds it; unlocked
   * without consistent it is gone for good. */
  owner_ends(&m, 1);
  rc("trylock_after_owner_exited", pthread_mutex_trylock(&m));
  if (type == PTHREAD_MUTEX_RECURSIVE) {
    rc("relock_inconsistent", pthread_mutex_lock(&m));
    rc("unlock_inner_inconsistent", pthread_mutex_unlock(&m));
  }
  rc("unlock_inconsistent", pthread_mutex_unlock(&m));
  rc("lock_not_recoverable", pthread_mutex_lock(&m));
  rc("trylock_not_recoverable", pthread_mutex_trylock(&m));
  rc("consistent_not_recoverable", pthread_mutex_consistent(&m));
  rc("destroy", pthread_mutex_destroy(&m));
}

/* ---- waiters blocked when the owner ends ---- */

struct waiters {
  pthread_mutex_t m;
  pthread_mutex_t count_lock;
  pthread_barrier_t locked;
  int make_consistent;
  int ok, ownerdead, notrecoverable, other;
};

static void *waiter(void *arg) {
  struct waiters *w = arg;
  int r = pthread_mutex_lock(&w->m);
  if (r == EOWNERDEAD && w->make_consistent) MUST(pthread_mutex_consistent(&w->m) == 0);
  if (r == 0 || r == EOWNERDEAD) MUST(pthread_mutex_unlock(&w->m) == 0);
  MUST(pthread_mutex_lock(&w->count_lock) == 0);
  if (r == 0) w->ok++;
  else if (r == EOWNERDEAD) w->ownerdead++;
  else if (r == ENOTRECOVERABLE) w->notrecoverable++;
  else w->other++;
  MUST(pthread_mutex_unlock(&w->count_lock) == 0);
  return NULL;
}

static void *hold_then_end(void *arg) {
  struct waiters *w = arg;
  MUST(pthread_mutex_lock(&w->m) == 0);
  pthread_barrier_wait(&w->locked);
  settle(); /* the waiters block meanwhile */
  return NULL;
}

static void waiters_wake(int type, int protocol, int make_consistent) {
  struct waiters w = {.make_consistent = make_consistent};
  robust_init(&w.m, type, protocol);
  MUST(pthread_mutex_init(&w.count_lock, NULL) == 0);
  MUST(pthread_barrier_init(&w.locked, NULL, 2) == 0);
  pthread_t holder, ws[3];
  MUST(pthread_create(&holder, NULL, hold_then_end, &w) == 0);
  pthread_barrier_wait(&w.locked);
  /* Not made consistent, two waiters: with a third, glibc's non-PI
   * robust mutex can leave one asleep for ever (the one told
   * ENOTRECOVERABLE unlocks with a plain unlock). */
  int n = make_consistent ? 3 : 2;
  for (int i = 0; i < n; i++) MUST(pthread_create(&ws[i], NULL, waiter, &w) == 0);
  MUST(pthread_join(holder, NULL) == 0);
  for (int i = 0; i < n; i++) MUST(pthread_join(ws[i], NULL) == 0);
  printf("%s %s blocked_waiters consistent=%d: ok=%d ownerdead=%d notrecoverable=%d other=%d\n", type_name(type),
         protocol == PTHREAD_PRIO_INHERIT ? "inherit" : "none", make_consistent, w.ok, w.ownerdead, w.notrecoverable,
         w.other);
  pthread_barrier_destroy(&w.locked);
  pthread_mutex_destroy(&w.m);
}

/* ---- several held at the end ---- */

static void several_held(void) {
  pthread_mutex_t ms[3];
  for (int i = 0; i < 3; i++) robust_init(&ms[i], PTHREAD_MUTEX_ERRORCHECK, i == 1 ? PTHREAD_PRIO_INHERIT : PTHREAD_PRIO_NONE);
  struct hold h = {.m = {&ms[0], &ms[1], &ms[2]}, .n = 3, .how_exit = 1};
  pthread_t t;
  MUST(pthread_create(&t, NULL, hold_and_end, &h) == 0);
  MUST(pthread_join(t, NULL) == 0);
  printf("several_held\n");
  /* In another order than they were taken. */
  int order[3] = {1, 2, 0};
  for (int i = 0; i < 3; i++) {
    char label[32];
    snprintf(label, sizeof label, "lock_%d", order[i]);
    rc(label, pthread_mutex_lock(&ms[order[i]]));
  }
  for (int i = 0; i < 3; i++) {
    MUST(pthread_mutex_consistent(&ms[i]) == 0);
    MUST(pthread_mutex_unlock(&ms[i]) == 0);
    pthread_mutex_destroy(&ms[i]);
  }
}

/* ---- a cond wait reacquires one whose owner ended ---- */

static pthread_mutex_t cm;
static pthread_cond_t cc = PTHREAD_COND_INITIALIZER;
static int signalled;

static void *cond_waiter(void *arg) {
  (void)arg;
  MUST(pthread_mutex_lock(&cm) == 0);
  int r = 0;
  while (!signalled && r == 0) r = pthread_cond_wait(&cc, &cm);
  if (r == EOWNERDEAD) MUST(pthread_mutex_consistent(&cm) == 0);
  MUST(pthread_mutex_unlock(&cm) == 0);
  return (void *)(long)r;
}

static void *cond_signaller(void *arg) {
  (void)arg;
  MUST(pthread_mutex_lock(&cm) == 0);
  signalled = 1;
  MUST(pthread_cond_signal(&cc) == 0);
  return NULL; /* holding cm */
}

static void cond_reacquire(void) {
  robust_init(&cm, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE);
  pthread_t w, s;
  void *r;
  MUST(pthread_create(&w, NULL, cond_waiter, NULL) == 0);
  settle(); /* it waits */
  MUST(pthread_create(&s, NULL, cond_signaller, NULL) == 0);
  MUST(pthread_join(s, NULL) == 0);
  MUST(pthread_join(w, &r) == 0);
  printf("cond_wait_reacquire\n");
  rc("cond_wait", (int)(long)r);
}

/* ---- not robust ---- */

static void not_robust(void) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  printf("not_robust\n");
  rc("consistent", pthread_mutex_consistent(&m));
  pthread_mutexattr_t a;
  MUST(pthread_mutexattr_init(&a) == 0);
  int r = -1;
  MUST(pthread_mutexattr_getrobust(&a, &r) == 0);
  printf("  default_robust=%s\n", r == PTHREAD_MUTEX_STALLED ? "stalled" : "robust");
  rc("setrobust_bad", pthread_mutexattr_setrobust(&a, 7));
  MUST(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0);
  MUST(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT) == 0);
  rc("init_robust_protect", pthread_mutex_init(&m, &a));
  pthread_mutexattr_destroy(&a);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int types[] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK};
  int protocols[] = {PTHREAD_PRIO_NONE, PTHREAD_PRIO_INHERIT};
  for (int p = 0; p < 2; p++)
    for (int t = 0; t < 3; t++) one_kind(types[t], protocols[p]);
  for (int p = 0; p < 2; p++)
    for (int t = 0; t < 3; t++)
      for (int c = 1; c >= 0; c--) waiters_wake(types[t], protocols[p], c);
  several_held();
  cond_reacquire();
  not_robust();
  return 0;
}
