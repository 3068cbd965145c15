/* Process-shared robust mutexes between a process and its forked child, as
 * glibc and Linux give them, natively and simulated: in a MAP_SHARED
 * mapping, a mutex the child holds when it exits, when it is killed, or
 * while the parent is blocked on it comes to the parent with EOWNERDEAD
 * (without a protocol and with PTHREAD_PRIO_INHERIT); a process-shared
 * mutex the child unlocks wakes the parent blocked on it. */
#include "../../../net/conformance/conf.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

static void shared_init(pthread_mutex_t *m, int robust, int protocol) {
  pthread_mutexattr_t a;
  MUST(pthread_mutexattr_init(&a) == 0);
  MUST(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0);
  if (robust) MUST(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0);
  MUST(pthread_mutexattr_setprotocol(&a, protocol) == 0);
  MUST(pthread_mutex_init(m, &a) == 0);
  pthread_mutexattr_destroy(&a);
}

static void rc(const char *label, int r) { printf("  %s=%s\n", label, r == 0 ? "0" : ename(r)); }

static const char *status_text(int st) {
  static char buf[32];
  if (WIFEXITED(st)) snprintf(buf, sizeof buf, "exit %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st)) snprintf(buf, sizeof buf, "signal %d", WTERMSIG(st));
  else snprintf(buf, sizeof buf, "other");
  return buf;
}

enum end { END_EXIT, END_UNDERSCORE_EXIT, END_KILLED, END_WHILE_BLOCKED, END_UNLOCKS };

static const char *end_name(enum end e) {
  static const char *names[] = {"exit", "_exit", "killed", "while_parent_blocked", "unlocks"};
  return names[e];
}

/* The child locks m, tells the parent, and ends as `e` says. */
static void child_case(pthread_mutex_t *m, int robust, int protocol, enum end e) {
  printf("%s %s %s\n", robust ? "robust" : "plain", protocol == PTHREAD_PRIO_INHERIT ? "inherit" : "none", end_name(e));
  shared_init(m, robust, protocol);
  int p[2];
  MUST(pipe(p) == 0);
  pid_t pid = fork();
  MUST(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    if (pthread_mutex_lock(m) != 0) _exit(3);
    if (write(p[1], "L", 1) != 1) _exit(4);
    switch (e) {
    case END_EXIT: exit(0);
    case END_UNDERSCORE_EXIT: _exit(0);
    case END_KILLED: sleep(100); _exit(5);
    case END_WHILE_BLOCKED: settle(); exit(0);
    case END_UNLOCKS:
      settle();
      if (pthread_mutex_unlock(m) != 0) _exit(6);
      exit(0);
    }
    _exit(7);
  }
  close(p[1]);
  char c;
  MUST(read(p[0], &c, 1) == 1);
  close(p[0]);
  int st = 0;
  if (e == END_KILLED) MUST(kill(pid, SIGKILL) == 0);
  if (e == END_EXIT || e == END_UNDERSCORE_EXIT || e == END_KILLED) {
    MUST(waitpid(pid, &st, 0) == pid);
    printf("  child=%s\n", status_text(st));
    rc("trylock", pthread_mutex_trylock(m));
  } else {
    rc("lock", pthread_mutex_lock(m)); /* blocks until the child ends or unlocks */
    MUST(waitpid(pid, &st, 0) == pid);
    printf("  child=%s\n", status_text(st));
  }
  if (robust) {
    rc("consistent", pthread_mutex_consistent(m));
    rc("consistent_again", pthread_mutex_consistent(m));
  }
  rc("unlock", pthread_mutex_unlock(m));
  rc("lock", pthread_mutex_lock(m));
  rc("unlock", pthread_mutex_unlock(m));
  rc("destroy", pthread_mutex_destroy(m));
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  pthread_mutex_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  MUST(m != MAP_FAILED);
  int protocols[] = {PTHREAD_PRIO_NONE, PTHREAD_PRIO_INHERIT};
  for (int p = 0; p < 2; p++) {
    for (enum end e = END_EXIT; e <= END_WHILE_BLOCKED; e++) child_case(m, 1, protocols[p], e);
    child_case(m, 1, protocols[p], END_UNLOCKS);
    child_case(m, 0, protocols[p], END_UNLOCKS);
  }
  munmap(m, 4096);
  return 0;
}
