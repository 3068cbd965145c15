/* A child that stops itself (raise(SIGSTOP), raise(SIGTSTP)) and a parent
 * that continues it (its SIGCONT handler runs then); waitid's WSTOPPED, WCONTINUED and WNOWAIT; SIGTTIN
 * and SIGTTOU stop at their default action; a stop signal discards a
 * pending SIGCONT and a SIGCONT the pending stop signals, as Linux does. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int to_child[2], from_child[2];

static char get(void) {
  char b = '?';
  if (read(from_child[0], &b, 1) != 1) return '!';
  return b;
}

static void put(int fd, char b) {
  if (write(fd, &b, 1) != 1) _exit(9);
}

static void waitid_line(const char *what, pid_t c, int options) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  int r = waitid(P_PID, (id_t)c, &si, options);
  const char *code = si.si_pid == 0 ? "none" : si.si_code == CLD_STOPPED ? "stopped" : si.si_code == CLD_CONTINUED ? "continued"
                   : si.si_code == CLD_EXITED ? "exited" : "other";
  printf("%s: waitid=%d code=%s from_child=%d status=%d\n", what, r, code, si.si_pid == c, si.si_status);
}

static void on_cont(int sig) {
  (void)sig;
  put(from_child[1], 'c');
}

/* Its SIGCONT handler runs once it is continued, before raise returns. */
static void self_stop(void) {
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_cont;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCONT, &sa, NULL);
    raise(SIGSTOP);
    put(from_child[1], 'a');
    _exit(5);
  }
  int st = 0;
  pid_t r = waitpid(c, &st, WUNTRACED);
  printf("raise(SIGSTOP): waitpid=%d stopped=%d sigstop=%d\n", r == c, WIFSTOPPED(st), WSTOPSIG(st) == SIGSTOP);
  kill(c, SIGCONT);
  char first = get(), second = get();
  printf("after SIGCONT: %c%c\n", first, second);
  r = waitpid(c, &st, 0);
  printf("end: waitpid=%d exited=%d status=%d\n", r == c, WIFEXITED(st), WEXITSTATUS(st));
}

/* In a group of its own: Linux discards SIGTSTP, SIGTTIN and SIGTTOU at
 * their default action in an orphaned group, which this one is not (its
 * parent is in another group of the session). */
static void tstp_and_waitid(void) {
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    setpgid(0, 0);
    raise(SIGTSTP);
    put(from_child[1], 'b');
    char b;
    if (read(to_child[0], &b, 1) != 1) _exit(8);
    _exit(6);
  }
  waitid_line("raise(SIGTSTP) nowait", c, WSTOPPED | WNOWAIT);
  waitid_line("raise(SIGTSTP)", c, WSTOPPED);
  waitid_line("reported already", c, WSTOPPED | WNOHANG);
  kill(c, SIGCONT);
  waitid_line("continued", c, WCONTINUED);
  printf("after SIGCONT: %c\n", get());
  kill(c, SIGTTIN);
  waitid_line("SIGTTIN", c, WSTOPPED);
  kill(c, SIGCONT);
  waitid_line("continued", c, WCONTINUED);
  kill(c, SIGTTOU);
  waitid_line("SIGTTOU", c, WSTOPPED);
  kill(c, SIGCONT);
  waitid_line("continued", c, WCONTINUED | WEXITED);
  put(to_child[1], 'q');
  waitid_line("end", c, WEXITED);
}

static void pending_discards(void) {
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGTSTP);
    sigaddset(&block, SIGTTOU);
    sigaddset(&block, SIGCONT);
    sigprocmask(SIG_BLOCK, &block, NULL);
    put(from_child[1], 'r');
    for (;;) {
      char b;
      if (read(to_child[0], &b, 1) != 1) _exit(8);
      if (b == 'q') _exit(0);
      sigset_t p;
      sigpending(&p);
      put(from_child[1], (char)('0' + sigismember(&p, SIGTSTP)));
      put(from_child[1], (char)('0' + sigismember(&p, SIGCONT)));
      put(from_child[1], (char)('0' + sigismember(&p, SIGTTOU)));
    }
  }
  get();
  const struct { int sig; const char *name; } steps[] = { { SIGTSTP, "SIGTSTP" }, { SIGCONT, "SIGCONT" }, { SIGTTOU, "SIGTTOU" } };
  for (unsigned i = 0; i < 3; i++) {
    kill(c, steps[i].sig);
    put(to_child[1], 'p');
    char a = get(), b = get(), d = get();
    printf("after %s: pending tstp=%c cont=%c ttou=%c\n", steps[i].name, a, b, d);
  }
  /* Both at once, before the child looks: the later one wins. */
  kill(c, SIGCONT);
  kill(c, SIGTSTP);
  put(to_child[1], 'p');
  char a = get(), b = get(), d = get();
  printf("after SIGCONT then SIGTSTP: pending tstp=%c cont=%c ttou=%c\n", a, b, d);
  put(to_child[1], 'q');
  int st = 0;
  waitpid(c, &st, 0);
  printf("end: exited=%d status=%d\n", WIFEXITED(st), WEXITSTATUS(st));
}

int main(void) {
  if (pipe(to_child) || pipe(from_child)) return 1;
  self_stop();
  tstp_and_waitid();
  pending_discards();
  return 0;
}
