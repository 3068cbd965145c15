/* A parent and its exec'd child (this program as the helper) write to one
 * pipe at the same time: the seed orders their writes, the same seed
 * always the same way (the exec'd image is scheduled with the world). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WRITES 8

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "helper") == 0) {
    int fd = atoi(argv[2]);
    for (int i = 0; i < WRITES; i++)
      if (write(fd, "c", 1) != 1) return 1;
    return 0;
  }
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    close(p[0]);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", p[1]);
    execl("/proc/self/exe", argv[0], "helper", fd, (char *)NULL);
    _exit(126);
  }
  for (int i = 0; i < WRITES; i++)
    if (write(p[1], "p", 1) != 1) return 1;
  close(p[1]);
  char buf[64];
  size_t got = 0;
  ssize_t n;
  while ((n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
  buf[got] = '\0';
  int st;
  waitpid(c, &st, 0);
  printf("order=%s bytes=%zu child_status=%d\n", buf, got, WEXITSTATUS(st));
  return 0;
}
