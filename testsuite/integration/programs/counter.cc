// counter.cc: the C++ counterpart of counter.c, built with detsim-c++.
#include <detsim.h>
#include <pthread.h>
#include <cstdio>
#include <thread>
#include <vector>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; i++)
    threads.emplace_back([] {
      for (int r = 0; r < 20; r++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
      }
    });
  for (auto &t : threads) t.join();
  DETSIM_CHECK(counter == 60, "counter_total");
  std::printf("counter=%ld\n", counter);
  return counter == 60 ? 0 : 1;
}
