/* A planted ordering bug of depth DEPTH between a parent and its forked
 * child: the parent opens DEPTH windows, one after another, each one
 * yield point wide (a byte written to a shared pipe and read back at
 * once) after NOISE round trips through a pipe of its own; the child
 * looks into the shared pipe between NOISE round trips of its own.  The
 * bug needs the child to take the byte of every window, in order: it then
 * exits 42, and the parent aborts.  Each window taken is a new stage (new
 * coverage counts) that a coverage-guided search can build on. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef DEPTH
#define DEPTH 2
#endif
#ifndef NOISE
#define NOISE 2
#endif

/* NOISE round trips through a pipe only this process uses. */
static void noise(const int np[2]) {
  char c = 'n';
  for (int i = 0; i < NOISE; i++)
    if (write(np[1], &c, 1) != 1 || read(np[0], &c, 1) != 1) _exit(3);
}

static void child(int wr) {
  int np[2];
  if (pipe(np) != 0) _exit(4);
  int stage = 0;
  for (;;) {
    noise(np);
    unsigned char c;
    ssize_t n = read(wr, &c, 1);
    if (n == 0) break; /* the parent closed its end: no more windows */
    if (n == 1 && c == stage + 1 && ++stage == DEPTH) _exit(42);
  }
  _exit(stage);
}

int main(void) {
  int w[2];
  if (pipe2(w, O_NONBLOCK) != 0) return 1;
  pid_t c = fork();
  if (c < 0) return 2;
  if (c == 0) {
    close(w[1]);
    child(w[0]);
  }
  int np[2];
  if (pipe(np) != 0) return 1;
  for (unsigned char r = 1; r <= DEPTH; r++) {
    noise(np);
    unsigned char back;
    if (write(w[1], &r, 1) != 1) return 5;
    (void)!read(w[0], &back, 1); /* the window closes (EAGAIN: the child took it) */
  }
  close(w[1]);
  int st;
  if (waitpid(c, &st, 0) != c || !WIFEXITED(st)) return 6;
  if (WEXITSTATUS(st) == 42) {
    fprintf(stderr, "fork_ordering: the child took all %d windows\n", DEPTH);
    abort();
  }
  printf("child stages=%d of %d\n", WEXITSTATUS(st), DEPTH);
  return 0;
}
