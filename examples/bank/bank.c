/* bank: a small multithreaded transfer service, and the bug detsim finds in it.
 *
 * Tellers take transfer requests from a queue (a mutex and two condition
 * variables), move money between accounts that each have their own lock,
 * and an auditor wakes every 100 ms to check that money is conserved.
 * Clients submit transfers with think times between them.
 *
 * The planted bug (compiled in unless BANK_FIXED is defined): a teller checks
 * the source balance before taking the account's lock — check-then-act.  Two
 * tellers draining the same account can both pass the check, and the account
 * goes negative.  Under a real OS this needs an unlucky preemption between
 * two lines; a detsim sweep finds a seed for it in seconds and replays it.
 *
 * Build:  detsim-cc -O1 -g -o bank bank.c          (simulation build)
 *         clang -O1 -o bank bank.c -lpthread        (release build: no detsim)
 * Run:    DETSIM_SEED=7 ./bank
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <detsim.h>

#define ACCOUNTS 4
#define TELLERS 3
#define CLIENTS 3
#define TRANSFERS_PER_CLIENT 12
#define BURST 4
#define QUEUE_CAPACITY 8
#define INITIAL_BALANCE 100
#define AUDIT_PERIOD_US 100000

struct account {
  pthread_mutex_t lock;
  atomic_long balance;
};

struct transfer {
  int from, to;
  long amount;
};

static struct account accounts[ACCOUNTS];

static struct {
  pthread_mutex_t lock;
  pthread_cond_t not_empty, not_full;
  struct transfer items[QUEUE_CAPACITY];
  int head, count;
  int closed;
} queue = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0, 0, 0}}, 0, 0, 0 };

static atomic_int transfers_done, transfers_refused;
static atomic_int stop_auditor;

static void queue_put(struct transfer t) {
  pthread_mutex_lock(&queue.lock);
  while (queue.count == QUEUE_CAPACITY) pthread_cond_wait(&queue.not_full, &queue.lock);
  queue.items[(queue.head + queue.count) % QUEUE_CAPACITY] = t;
  queue.count++;
  pthread_cond_signal(&queue.not_empty);
  pthread_mutex_unlock(&queue.lock);
}

/* Returns 0 when the queue is closed and empty. */
static int queue_take(struct transfer *t) {
  pthread_mutex_lock(&queue.lock);
  while (queue.count == 0 && !queue.closed) pthread_cond_wait(&queue.not_empty, &queue.lock);
  if (queue.count == 0) {
    pthread_mutex_unlock(&queue.lock);
    return 0;
  }
  *t = queue.items[queue.head];
  queue.head = (queue.head + 1) % QUEUE_CAPACITY;
  queue.count--;
  pthread_cond_signal(&queue.not_full);
  pthread_mutex_unlock(&queue.lock);
  return 1;
}

static void lock_pair(int a, int b) {
  /* Always in index order: no lock-order inversion. */
  pthread_mutex_lock(&accounts[a < b ? a : b].lock);
  pthread_mutex_lock(&accounts[a < b ? b : a].lock);
}

static void unlock_pair(int a, int b) {
  pthread_mutex_unlock(&accounts[a].lock);
  pthread_mutex_unlock(&accounts[b].lock);
}

static long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void execute(const struct transfer *t) {
  long started_us = now_us();
#ifndef BANK_FIXED
  /* BUG: the balance is checked before the lock is taken. */
  if (atomic_load(&accounts[t->from].balance) < t->amount) {
    atomic_fetch_add(&transfers_refused, 1);
    return;
  }
  lock_pair(t->from, t->to);
#else
  lock_pair(t->from, t->to);
  if (atomic_load(&accounts[t->from].balance) < t->amount) {
    unlock_pair(t->from, t->to);
    atomic_fetch_add(&transfers_refused, 1);
    return;
  }
#endif
  atomic_fetch_sub(&accounts[t->from].balance, t->amount);
  atomic_fetch_add(&accounts[t->to].balance, t->amount);
  DETSIM_CHECK(atomic_load(&accounts[t->from].balance) >= 0, "no account overdrawn");
  unlock_pair(t->from, t->to);
  DETSIM_CHECK(now_us() - started_us < 1000000, "a transfer takes under a second");
  atomic_fetch_add(&transfers_done, 1);
  detsim_progress();
}

static void *teller(void *arg) {
  (void)arg;
  struct transfer t;
  while (queue_take(&t)) execute(&t);
  return NULL;
}

static long total_balance(void) {
  for (int i = 0; i < ACCOUNTS; i++) pthread_mutex_lock(&accounts[i].lock);
  long sum = 0;
  for (int i = 0; i < ACCOUNTS; i++) sum += atomic_load(&accounts[i].balance);
  for (int i = ACCOUNTS - 1; i >= 0; i--) pthread_mutex_unlock(&accounts[i].lock);
  return sum;
}

static void *auditor(void *arg) {
  (void)arg;
  int audits = 0;
  while (!atomic_load(&stop_auditor)) {
    usleep(AUDIT_PERIOD_US);
    DETSIM_CHECK(total_balance() == ACCOUNTS * INITIAL_BALANCE, "money is conserved");
    audits++;
  }
  return (void *)(long)audits;
}

static void *client(void *arg) {
  unsigned seed = (unsigned)(long)arg;
  for (int i = 0; i < TRANSFERS_PER_CLIENT; i++) {
    struct transfer t;
    t.from = (int)(rand_r(&seed) % ACCOUNTS);
    t.to = (t.from + 1 + (int)(rand_r(&seed) % (ACCOUNTS - 1))) % ACCOUNTS;
    t.amount = 40 + rand_r(&seed) % 50;
    queue_put(t);
    if (i % BURST == BURST - 1) usleep(1000 * (rand_r(&seed) % 20)); /* think: up to 20 ms */
  }
  return NULL;
}

int main(void) {
  for (int i = 0; i < ACCOUNTS; i++) {
    pthread_mutex_init(&accounts[i].lock, NULL);
    atomic_store(&accounts[i].balance, INITIAL_BALANCE);
  }
  pthread_t tellers[TELLERS], clients[CLIENTS], audit;
  pthread_create(&audit, NULL, auditor, NULL);
  for (int i = 0; i < TELLERS; i++) pthread_create(&tellers[i], NULL, teller, NULL);
  for (long i = 0; i < CLIENTS; i++) pthread_create(&clients[i], NULL, client, (void *)(i + 1));
  for (int i = 0; i < CLIENTS; i++) pthread_join(clients[i], NULL);
  pthread_mutex_lock(&queue.lock);
  queue.closed = 1;
  pthread_cond_broadcast(&queue.not_empty);
  pthread_mutex_unlock(&queue.lock);
  for (int i = 0; i < TELLERS; i++) pthread_join(tellers[i], NULL);
  atomic_store(&stop_auditor, 1);
  void *audits;
  pthread_join(audit, &audits);
  long total = total_balance();
  printf("transfers: %d done, %d refused; audits: %ld; total balance %ld\n", atomic_load(&transfers_done),
         atomic_load(&transfers_refused), (long)audits, total);
  return total == ACCOUNTS * INITIAL_BALANCE ? 0 : 1;
}
