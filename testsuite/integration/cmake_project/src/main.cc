#include <cstdio>
#include <string>

#include "worker.h"

int main() {
  std::string s = std::to_string(worker_run(2, 10));
  std::printf("counter=%s\n", s.c_str());
  return s == "20" ? 0 : 1;
}
