/* A grandchild that sleeps 1000 virtual seconds must not outlive the run.
 * It writes its real pid (the kernel's /proc/self, read by a raw readlink:
 * the libc one answers the virtual pid) to the file
 * named by argv[1]; the run then ends:
 *   leftover FILE exit      the first process exits at once (pass)
 *   leftover FILE stuck     the first process blocks outside the simulation
 *                           (a spin on plain memory) until the watchdog ends
 *                           the run
 *   leftover FILE killed    the child writes its real pid to FILE.child and
 *                           blocks outside the simulation holding the world;
 *                           the test kills it from outside
 * The test then checks that no process with that pid is left. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Never set: a spin on it has no yield point (raw pause is simulated now). */
static int plain_flag;

static void spin_outside(void) {
  while (!plain_flag) {
  }
}

/* The kernel's pid of this process, as text. */
static void real_pid(char *out, size_t size) {
  out[0] = '\0';
  long n = syscall(SYS_readlink, "/proc/self", out, size - 1);
  if (n > 0) out[n] = '\0';
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int ready[2], gready[2];
  if (pipe(ready) != 0 || pipe(gready) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    pid_t g = fork();
    if (g == 0) {
      char self[64];
      real_pid(self, sizeof self);
      FILE *f = fopen(argv[1], "w");
      if (f) {
        fprintf(f, "%s\n", self);
        fclose(f);
      }
      if (write(ready[1], "g", 1) != 1 || write(gready[1], "g", 1) != 1) _exit(4);
      sleep(1000);
      _exit(0);
    }
    if (strcmp(argv[2], "killed") == 0) {
      char b2;
      if (read(gready[0], &b2, 1) != 1) _exit(5); /* the grandchild started */
      char path[4096], self[64];
      real_pid(self, sizeof self);
      snprintf(path, sizeof path, "%s.child", argv[1]);
      FILE *f = fopen(path, "w");
      if (f) {
        fprintf(f, "%s\n", self);
        fclose(f);
      }
      spin_outside(); /* holds the world, outside the simulation */
      _exit(6);
    }
    /* The child ends; the grandchild is an orphan now. */
    _exit(0);
  }
  char b;
  if (read(ready[0], &b, 1) != 1) return 3;
  int st;
  if (strcmp(argv[2], "killed") != 0) waitpid(c, &st, 0);
  printf("grandchild started\n");
  fflush(stdout);
  if (strcmp(argv[2], "killed") == 0) waitpid(c, &st, 0);
  if (strcmp(argv[2], "stuck") == 0) spin_outside(); /* outside the simulation: the watchdog ends the run */
  return 0;
}
