/* popen and system of a simulation build (this program as its helper,
 * a command line of plain words): popen "r" reads the helper's stdout,
 * popen "w" feeds its stdin, pclose and system give its exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "lines") == 0) {
    for (int i = 0; i < 3; i++) printf("line %d from the helper\n", i);
    return 2;
  }
  if (argc > 1 && strcmp(argv[1], "count") == 0) {
    int c, n = 0;
    while ((c = getchar()) != EOF) n += c == '\n';
    printf("helper counted %d lines\n", n);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "status") == 0) return 6;
  char self[512], cmd[600];
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) return 1;
  self[k] = '\0';
  snprintf(cmd, sizeof cmd, "%s lines", self);
  FILE *r = popen(cmd, "r");
  char line[128];
  while (r && fgets(line, sizeof line, r)) printf("read: %s", line);
  int st = r ? pclose(r) : -1;
  printf("pclose(r): exited=%d status=%d\n", WIFEXITED(st), WEXITSTATUS(st));
  fflush(stdout);
  snprintf(cmd, sizeof cmd, "%s count", self);
  FILE *w = popen(cmd, "w");
  for (int i = 0; w && i < 5; i++) fprintf(w, "input %d\n", i);
  st = w ? pclose(w) : -1;
  printf("pclose(w): status=%d\n", WEXITSTATUS(st));
  snprintf(cmd, sizeof cmd, "%s   status", self);
  st = system(cmd);
  printf("system: exited=%d status=%d\n", WIFEXITED(st), WEXITSTATUS(st));
  return 0;
}
