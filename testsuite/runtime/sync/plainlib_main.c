/* Calls from an uninstrumented shared library land in the simulation: the
 * library's mutex is held by main while a thread calls into the library
 * (which must then block in the simulation, not in a real futex), its
 * condvar wait of an hour and its sleep of a day pass in virtual time (a
 * real hour would hit the test's timeout), and its mutex carries the
 * runtime's layout (a depth word of 1 while held; glibc's __count would be
 * 0 for a normal mutex). */
#include "sync_test.h"

#include <stdint.h>

extern pthread_mutex_t plainlib_mutex;
int plainlib_work(long *elapsed_s);

static int main_released;

static void *worker(void *arg) {
  long *elapsed = arg;
  int rc = plainlib_work(elapsed);
  EXPECT_EQ(rc, ETIMEDOUT);
  EXPECT_EQ(main_released, 1); /* it could not take the mutex before */
  return NULL;
}

int main(void) {
  EXPECT_EQ(pthread_mutex_lock(&plainlib_mutex), 0);
  uint32_t words[2];
  memcpy(words, &plainlib_mutex, sizeof words);
  EXPECT(words[0] != 0); /* owner */
  EXPECT_EQ(words[1], 1); /* depth */

  long elapsed[2] = {0, 0};
  pthread_t t[2] = {spawn(worker, &elapsed[0]), spawn(worker, &elapsed[1])};
  sleep_ms(100);
  main_released = 1;
  EXPECT_EQ(pthread_mutex_unlock(&plainlib_mutex), 0);
  join(t[0]);
  join(t[1]);
  for (int i = 0; i < 2; i++) EXPECT(elapsed[i] >= 3600 + 86400);
  return test_finish("plainlib");
}
