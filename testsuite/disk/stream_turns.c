/* Two processes, one thread each, append lines to one file of the disk
 * through their own stdio streams (fprintf, fflush), then the parent
 * prints the order the lines landed in:
 *
 *   disk_stream_turns DIR
 *
 * Nothing else in their loops is a preemption point: only a disk stream's
 * write being one (a process with one thread holds no lock another could
 * want) lets them take turns; without it each runs its loop through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINES 12

static void append(const char *path, char who) {
  FILE *f = fopen(path, "a");
  if (f == NULL) exit(3);
  for (int i = 0; i < LINES; i++) {
    fprintf(f, "%c%d\n", who, i);
    fflush(f);
  }
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  char path[4096];
  snprintf(path, sizeof path, "%s/stream-turns.log", argv[1]);
  FILE *f = fopen(path, "w");
  if (f == NULL) return 3;
  fclose(f);
  pid_t c = fork();
  if (c < 0) return 4;
  if (c == 0) {
    append(path, 'c');
    _exit(0);
  }
  append(path, 'p');
  int st;
  waitpid(c, &st, 0);
  f = fopen(path, "r");
  char line[32], order[2 * LINES + 1];
  int n = 0;
  while (f && n < 2 * LINES && fgets(line, sizeof line, f)) order[n++] = line[0];
  order[n] = '\0';
  if (f) fclose(f);
  remove(path);
  printf("%s\n", order);
  return n == 2 * LINES ? 0 : 5;
}
