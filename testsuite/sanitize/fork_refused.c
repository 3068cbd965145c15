/* fork in a ThreadSanitizer simulation build: the run's processes share a
 * world region at a fixed address that lies in ThreadSanitizer's shadow,
 * so such a run stays one process and fork fails with ENOMEM, saying why
 * on stderr.  The program goes on as after any failed fork. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  if (pid > 0) {
    waitpid(pid, NULL, 0);
    printf("fork succeeded\n");
    return 0;
  }
  printf("fork failed: %s\n", errno == ENOMEM ? "ENOMEM" : strerror(errno));
  return 0;
}
