/* A one-program run that execs itself before any fork goes on as the same
 * process: the same pid, the clock only moves forward, and a descriptor
 * without FD_CLOEXEC (a pipe holding bytes written before the exec) is
 * still there with its bytes; the final image's exit status is the run's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc == 1) {
    int p[2];
    if (pipe(p) != 0) return 1;
    if (write(p[1], "carried", 7) != 7) return 1;
    char a[4][32];
    snprintf(a[0], sizeof a[0], "%ld", (long)getpid());
    snprintf(a[1], sizeof a[1], "%lld", now_ns());
    snprintf(a[2], sizeof a[2], "%d", p[0]);
    snprintf(a[3], sizeof a[3], "%d", p[1]);
    printf("first image\n");
    fflush(stdout);
    execl("/proc/self/exe", argv[0], a[0], a[1], a[2], a[3], (char *)NULL);
    perror("execl");
    return 1;
  }
  int rd = atoi(argv[3]);
  close(atoi(argv[4]));
  char buf[16] = { 0 };
  ssize_t n = read(rd, buf, sizeof buf - 1);
  printf("second image: same_pid=%d clock_forward=%d pipe=%zd:%s\n", getpid() == (pid_t)atol(argv[1]),
         now_ns() >= atoll(argv[2]), n, buf);
  return 0;
}
