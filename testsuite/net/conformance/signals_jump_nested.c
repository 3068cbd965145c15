/* Rule: a siglongjmp out of nested handlers (a handler that ran inside
 * another) gives the thread the mask sigsetjmp saved, whatever the
 * handlers had blocked; a longjmp to a buffer that saved no mask (_setjmp)
 * leaves the handlers' mask as it is; either way the handlers are over, so
 * the signals they left blocked and unblocked run their handlers again. */
#include "conf.h"

#include <setjmp.h>
#include <signal.h>

static sigjmp_buf with_mask;
static jmp_buf without_mask;
static volatile sig_atomic_t usr1_runs, usr2_runs, use_plain;

static void on_usr2(int sig) {
  (void)sig;
  usr2_runs++;
  if (use_plain) longjmp(without_mask, 1);
  siglongjmp(with_mask, 1);
}

static void on_usr1(int sig) {
  (void)sig;
  if (++usr1_runs == 1 || usr1_runs == 3) raise(SIGUSR2); /* its handler jumps out of both */
}

static int blocked(int sig) {
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  return sigismember(&now, sig);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  signal(SIGUSR1, on_usr1);
  signal(SIGUSR2, on_usr2);
  sigset_t winch;
  sigemptyset(&winch);
  sigaddset(&winch, SIGWINCH);
  sigprocmask(SIG_BLOCK, &winch, NULL);

  if (sigsetjmp(with_mask, 1) == 0) {
    raise(SIGUSR1);
    printf("not reached\n");
  }
  printf("siglongjmp: usr1 blocked=%d usr2 blocked=%d winch blocked=%d\n", blocked(SIGUSR1), blocked(SIGUSR2),
         blocked(SIGWINCH));
  raise(SIGUSR1);
  printf("usr1 handler runs again: %d\n", usr1_runs);

  use_plain = 1;
  if (setjmp(without_mask) == 0) {
    raise(SIGUSR1);
    printf("not reached\n");
  }
  printf("longjmp without a saved mask: usr1 blocked=%d usr2 blocked=%d\n", blocked(SIGUSR1), blocked(SIGUSR2));
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  sigprocmask(SIG_UNBLOCK, &both, NULL);
  raise(SIGUSR1);
  printf("runs: usr1=%d usr2=%d\n", usr1_runs, usr2_runs);
  return 0;
}
