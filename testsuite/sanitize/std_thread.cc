// Threads created by uninstrumented code: std::thread's constructor calls
// pthread_create from libstdc++, through the sanitizer's interceptor, which
// calls the runtime's.  Under ASan the threads are simulated and known to
// ASan; under TSan this is refused with a clear error (see sanitize.c).
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
static std::mutex m;
static int counter;
int main() {
  std::vector<std::thread> ts;
  for (int i = 0; i < 3; i++) ts.emplace_back([] { for (int k = 0; k < 3; k++) { std::lock_guard<std::mutex> g(m); counter++; } });
  for (auto &t : ts) t.join();
  std::printf("counter %d\n", counter);
}
