/* Interval timers across fork and exec (setitimer(2)): a forked child does
 * not inherit them; an exec keeps them, so the new image (this program
 * again) finds ITIMER_REAL still armed with its interval and takes its
 * SIGALRMs, after installing a handler (exec reset the old one). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;

static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

static void show(const char *who) {
  struct itimerval it;
  getitimer(ITIMER_REAL, &it);
  int armed = it.it_value.tv_sec > 0 || it.it_value.tv_usec > 0;
  int within = it.it_value.tv_sec == 0 || (it.it_value.tv_sec == 1 && it.it_value.tv_usec == 0);
  printf("%s: armed=%d within_first_expiry=%d interval=%lds+%ldus\n", who, armed, armed && within,
         (long)it.it_interval.tv_sec, (long)it.it_interval.tv_usec);
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "image") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    show("new image");
    while (alarms < 3) pause();
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_REAL, &off, NULL);
    printf("new image: %d alarms, then disarmed\n", (int)alarms);
    return 0;
  }
  struct itimerval it = { { 0, 200000 }, { 1, 0 } };
  setitimer(ITIMER_REAL, &it, NULL);
  show("before fork");
  pid_t pid = fork();
  if (pid == 0) {
    show("forked child");
    _exit(0);
  }
  int st;
  waitpid(pid, &st, 0);
  char self[512];
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) return 1;
  self[k] = '\0';
  execl(self, self, "image", (char *)NULL);
  perror("execl");
  return 1;
}
