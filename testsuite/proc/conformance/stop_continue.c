/* A child stopped by its parent's SIGSTOP and continued by SIGCONT, as
 * Linux does it: waitpid with WUNTRACED and WCONTINUED reports each change
 * once, SIGCHLD carries CLD_STOPPED and CLD_CONTINUED (none under
 * SA_NOCLDSTOP); while stopped the child runs nothing (a byte sent to it
 * stays unread, a SIGUSR1 waits), its interval timer keeps virtual time
 * (it fired during the stop), and after SIGCONT its pending SIGUSR1 comes
 * first; SIGKILL ends a stopped child. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int to_child[2], from_child[2];
static volatile sig_atomic_t alarmed;

static void on_usr1(int sig) {
  (void)sig;
  if (write(from_child[1], "u", 1) != 1) _exit(9);
}

static void on_alrm(int sig) {
  (void)sig;
  alarmed = 1;
}

static void handle(int sig, void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

/* Echoes each byte back; 'a' asks whether its timer fired. */
static void child(void) {
  handle(SIGUSR1, on_usr1);
  handle(SIGALRM, on_alrm);
  struct itimerval it = { { 0, 0 }, { 0, 100000 } };
  setitimer(ITIMER_REAL, &it, NULL);
  if (write(from_child[1], "r", 1) != 1) _exit(9);
  for (;;) {
    char b;
    if (read(to_child[0], &b, 1) != 1) _exit(8);
    if (b == 'a') b = alarmed ? '1' : '0';
    if (write(from_child[1], &b, 1) != 1) _exit(9);
  }
}

static char get(void) {
  char b = '?';
  if (read(from_child[0], &b, 1) != 1) return '!';
  return b;
}

static void sleep_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void chld_info(const char *what, pid_t c) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  siginfo_t si;
  int s = sigwaitinfo(&set, &si);
  printf("%s: sigchld=%d from_child=%d stopped=%d continued=%d killed=%d status=%d\n", what, s == SIGCHLD,
         si.si_pid == c, si.si_code == CLD_STOPPED, si.si_code == CLD_CONTINUED, si.si_code == CLD_KILLED,
         si.si_status);
}

static pid_t start(void) {
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) child();
  if (get() != 'r') printf("no ready byte\n");
  return c;
}

static void stop_and_wait(pid_t c, const char *what) {
  int st = 0;
  kill(c, SIGSTOP);
  pid_t r = waitpid(c, &st, WUNTRACED);
  printf("%s: waitpid=%d stopped=%d sig=%s\n", what, r == c, WIFSTOPPED(st), WSTOPSIG(st) == SIGSTOP ? "SIGSTOP" : "?");
}

static void continue_and_wait(pid_t c, const char *what) {
  int st = 0;
  kill(c, SIGCONT);
  pid_t r = waitpid(c, &st, WCONTINUED);
  printf("%s: waitpid=%d continued=%d\n", what, r == c, WIFCONTINUED(st));
}

int main(void) {
  if (pipe(to_child) || pipe(from_child)) return 1;
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);

  pid_t c = start();
  stop_and_wait(c, "stop");
  chld_info("stop", c);
  /* A second wait has nothing new to report. */
  int st = 0;
  printf("again: waitpid=%d\n", (int)waitpid(c, &st, WUNTRACED | WNOHANG));
  kill(c, SIGUSR1);
  if (write(to_child[1], "x", 1) != 1) return 1;
  sleep_ms(300);
  struct pollfd p = { from_child[0], POLLIN, 0 };
  printf("while stopped: child_ran=%d\n", poll(&p, 1, 0));
  continue_and_wait(c, "continue");
  chld_info("continue", c);
  char first = get(), second = get();
  printf("after continue: %c%c\n", first, second);
  if (write(to_child[1], "a", 1) != 1) return 1;
  printf("timer fired during the stop: %c\n", get());
  /* Not stopped: a SIGCONT changes nothing a wait could report. */
  kill(c, SIGCONT);
  printf("continue a running child: waitpid=%d\n", (int)waitpid(c, &st, WCONTINUED | WNOHANG));
  stop_and_wait(c, "stop again");
  chld_info("stop again", c);
  kill(c, SIGKILL);
  pid_t r = waitpid(c, &st, 0);
  printf("kill stopped: waitpid=%d signaled=%d sigkill=%d\n", r == c, WIFSIGNALED(st), WTERMSIG(st) == SIGKILL);
  chld_info("kill stopped", c);

  /* SA_NOCLDSTOP: the stop and the continue send no SIGCHLD; the end does. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sa.sa_flags = SA_NOCLDSTOP;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  c = start();
  stop_and_wait(c, "nocldstop stop");
  continue_and_wait(c, "nocldstop continue");
  if (write(to_child[1], "y", 1) != 1) return 1;
  printf("nocldstop echo: %c\n", get());
  sigset_t pending;
  sigpending(&pending);
  printf("nocldstop: sigchld_pending=%d\n", sigismember(&pending, SIGCHLD));
  kill(c, SIGTERM);
  r = waitpid(c, &st, 0);
  printf("nocldstop end: waitpid=%d sigterm=%d\n", r == c, WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
  chld_info("nocldstop end", c);
  return 0;
}
