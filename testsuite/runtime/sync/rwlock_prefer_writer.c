/* PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP (as glibc): while a writer
 * waits, new readers wait behind it, so the writer gets in before them; a
 * tryrdlock meanwhile is EBUSY. */
#include "sync_test.h"

static pthread_rwlock_t rw = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static int order[2], n;

static void *writer(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_rwlock_wrlock(&rw), 0);
  order[n++] = 'w';
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_rwlock_rdlock(&rw), 0);
  order[n++] = 'r';
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
  return NULL;
}

int main(void) {
  EXPECT_EQ(pthread_rwlock_rdlock(&rw), 0);
  pthread_t w = spawn(writer, NULL);
  sleep_ms(10); /* the writer is waiting now */
  EXPECT_EQ(pthread_rwlock_tryrdlock(&rw), EBUSY);
  pthread_t r = spawn(reader, NULL);
  sleep_ms(10); /* the reader is waiting behind the writer */
  EXPECT_EQ(n, 0);
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
  join(w);
  join(r);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(order[0], 'w');
  EXPECT_EQ(order[1], 'r');

  /* The attribute gives the same kind. */
  pthread_rwlockattr_t attr;
  pthread_rwlock_t rw2;
  EXPECT_EQ(pthread_rwlockattr_init(&attr), 0);
  EXPECT_EQ(pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP), 0);
  EXPECT_EQ(pthread_rwlock_init(&rw2, &attr), 0);
  EXPECT_EQ(pthread_rwlockattr_destroy(&attr), 0);
  EXPECT_EQ(pthread_rwlock_rdlock(&rw2), 0);
  EXPECT_EQ(pthread_rwlock_unlock(&rw2), 0);
  EXPECT_EQ(pthread_rwlock_destroy(&rw2), 0);
  return test_finish("rwlock_prefer_writer");
}
