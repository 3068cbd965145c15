/* The canonical handshake with a predicate is correct in every schedule:
 * PAIRS producer/consumer pairs pass ITEMS tokens through one-slot mailboxes
 * guarded by one mutex and two condvars each; every token arrives once, in
 * order. */
#include "sync_test.h"

#define PAIRS 3
#define ITEMS 50

struct mailbox {
  pthread_mutex_t m;
  pthread_cond_t not_empty, not_full;
  int full, value;
};

static struct mailbox boxes[PAIRS];

static void *producer(void *arg) {
  struct mailbox *b = arg;
  for (int i = 1; i <= ITEMS; i++) {
    pthread_mutex_lock(&b->m);
    while (b->full) pthread_cond_wait(&b->not_full, &b->m);
    b->value = i;
    b->full = 1;
    pthread_cond_signal(&b->not_empty);
    pthread_mutex_unlock(&b->m);
  }
  return NULL;
}

static void *consumer(void *arg) {
  struct mailbox *b = arg;
  long sum = 0;
  for (int i = 1; i <= ITEMS; i++) {
    pthread_mutex_lock(&b->m);
    while (!b->full) pthread_cond_wait(&b->not_empty, &b->m);
    EXPECT_EQ(b->value, i);
    sum += b->value;
    b->full = 0;
    pthread_cond_signal(&b->not_full);
    pthread_mutex_unlock(&b->m);
  }
  return (void *)sum;
}

int main(void) {
  pthread_t p[PAIRS], q[PAIRS];
  for (int i = 0; i < PAIRS; i++) {
    pthread_mutex_init(&boxes[i].m, NULL);
    pthread_cond_init(&boxes[i].not_empty, NULL);
    pthread_cond_init(&boxes[i].not_full, NULL);
    p[i] = spawn(producer, &boxes[i]);
    q[i] = spawn(consumer, &boxes[i]);
  }
  for (int i = 0; i < PAIRS; i++) {
    join(p[i]);
    EXPECT_EQ((long)join(q[i]), ITEMS * (ITEMS + 1) / 2);
  }
  return test_finish("cond_signal_race");
}
