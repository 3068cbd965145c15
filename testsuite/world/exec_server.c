/* A world test node that execs, as servers that re-exec themselves and
 * spawn worker programs do: it first execs itself (the node's own process
 * goes on as the new image: the same pid), then listens, forks WORKERS
 * children that each exec this program again as a worker given the
 * listener by its descriptor number, and waits for them.  A worker answers
 * each line of one connection with "pong <line> from <hostname>"
 * (ping_client's protocol) and exits with its number.  An exec that fails
 * is reported and the node exits 1.
 *
 *   exec_server PORT WORKERS             the node's command
 *   exec_server PORT WORKERS main        after its own exec
 *   exec_server PORT WORKERS worker FD N a worker
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char self[] = "/proc/self/exe";

static int serve(int fd, const char *host) {
  char line[256], out[400];
  size_t used = 0;
  int lines = 0;
  for (;;) {
    ssize_t n = read(fd, line + used, sizeof line - 1 - used);
    if (n <= 0) break;
    used += (size_t)n;
    char *nl;
    while ((nl = memchr(line, '\n', used)) != NULL) {
      *nl = '\0';
      int k = snprintf(out, sizeof out, "pong %s from %s\n", line, host);
      if (write(fd, out, (size_t)k) != k) goto done;
      lines++;
      used -= (size_t)(nl + 1 - line);
      memmove(line, nl + 1, used);
    }
    if (used == sizeof line - 1) break;
  }
done:
  close(fd);
  return lines;
}

/* getpid as a bare instruction: in a world the net catches it in every
 * image (the virtual pid), natively it is the kernel's. */
static long raw_getpid(void) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getpid) : "rcx", "r11", "memory");
  return r;
}

static int worker(int listener, int index) {
  char host[64];
  gethostname(host, sizeof host);
  int fd = accept(listener, NULL, NULL);
  if (fd < 0) {
    perror("exec_server: worker accept");
    return 100;
  }
  int lines = serve(fd, host);
  printf("exec'd worker %d pid %d ppid %d raw_getpid_same=%d: %d lines\n", index, (int)getpid(), (int)getppid(),
         raw_getpid() == (long)getpid(), lines);
  return index;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: exec_server PORT WORKERS [main | worker FD N]\n");
    return 2;
  }
  if (argc == 6 && strcmp(argv[3], "worker") == 0) return worker(atoi(argv[4]), atoi(argv[5]));
  if (argc == 3) {
    printf("node pid %d execs itself\n", (int)getpid());
    fflush(stdout);
    execl(self, argv[0], argv[1], argv[2], "main", (char *)NULL);
    printf("exec of the node failed: %s\n", strerror(errno));
    return 1;
  }
  int port = atoi(argv[1]), workers = atoi(argv[2]);
  printf("new image: pid %d ppid %d\n", (int)getpid(), (int)getppid());
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("exec_server: bind/listen");
    return 3;
  }
  fflush(stdout);
  for (int w = 1; w <= workers; w++) {
    pid_t p = fork();
    if (p == 0) {
      char fd[16], n[16];
      snprintf(fd, sizeof fd, "%d", l);
      snprintf(n, sizeof n, "%d", w);
      execl(self, argv[0], argv[1], argv[2], "worker", fd, n, (char *)NULL);
      printf("exec of worker %d failed: %s\n", w, strerror(errno));
      fflush(stdout);
      _exit(1);
    }
    printf("forked worker %d: pid %d\n", w, (int)p);
    fflush(stdout);
  }
  int failed = 0;
  for (int w = 1; w <= workers; w++) {
    int st;
    pid_t p = wait(&st);
    if (p < 0) {
      perror("exec_server: wait");
      return 5;
    }
    printf("worker pid %d: exit %d\n", (int)p, WEXITSTATUS(st));
    failed |= !WIFEXITED(st) || WEXITSTATUS(st) < 1 || WEXITSTATUS(st) > workers;
  }
  printf("every worker ended\n");
  return failed;
}
