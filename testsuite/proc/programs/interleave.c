/* Parent and child write to one pipe in turns the scheduler picks: the
 * order of their bytes is the seed's (replay: the same seed, the same
 * string; explore: seeds give different ones).  The parent reads it all
 * once both closed their write ends, then prints it. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define EACH 24

static void writer(int fd, char c) {
  for (int i = 0; i < EACH; i++)
    if (write(fd, &c, 1) != 1) _exit(3);
}

int main(void) {
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t c = fork();
  if (c < 0) return 2;
  if (c == 0) {
    close(p[0]);
    writer(p[1], 'c');
    _exit(0);
  }
  writer(p[1], 'P');
  close(p[1]);
  char buf[2 * EACH + 1];
  size_t got = 0;
  ssize_t n;
  while (got < sizeof buf - 1 && (n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
  buf[got] = '\0';
  int st;
  waitpid(c, &st, 0);
  printf("order=%s\nbytes=%zu child_status=%d\n", buf, got, WEXITSTATUS(st));
  return 0;
}
