/* A signal handler that does work runs inside a yield point of code that
 * holds the work counter in a register across it (the optimiser keeps the
 * sum in a register across a volatile access, where the yield point goes
 * after optimisation); the interrupted code then stores its stale sum, and
 * the counter goes back.  The clock must charge no work for that, not
 * 2^64 instructions (the run jumped past max_sim_time_s and ended
 * inconclusive).  Built with -O2, where the register is kept. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile sig_atomic_t flag;
static volatile int sink;

static void handler(int s) {
  (void)s;
  for (int i = 0; i < 200; i++) sink += i * 3;
  flag = 1;
}

int main(void) {
  signal(SIGALRM, handler);
  struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
  setitimer(ITIMER_REAL, &it, NULL);
  int seen = 0;
  while (seen < 5) {
    if (flag) {
      flag = 0;
      seen++;
    }
  }
  printf("handled %d\n", seen);
  return 0;
}
