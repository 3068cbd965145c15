/* Rule: the unix send-buffer and backlog waits hold across processes: a
 * parent blocked on a full unix datagram send buffer, on a full unix
 * stream send buffer, or in a connect to a full unix listener resumes
 * when its forked child reads or accepts.  Nothing is lost or reordered.
 */
#include <stdbool.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "conf.h"

#define DGRAMS 300
#define STREAM_BYTES (1 << 20)

static void reap(pid_t pid) {
  int st = 0;
  MUST(waitpid(pid, &st, 0) == pid);
  MUST(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void) {
  static char buf[65536];
  /* Datagrams: the child drains after the parent has filled its buffer. */
  int sv[2];
  MUST(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
  fflush(stdout); /* a child must not print the parent's buffered lines */
  pid_t pid = fork();
  MUST(pid >= 0);
  if (pid == 0) {
    close(sv[0]);
    settle();
    int in_order = 1;
    for (int i = 0; i < DGRAMS; i++) {
      int idx = -1;
      MUST(recv(sv[1], buf, sizeof buf, 0) == 1000);
      memcpy(&idx, buf, sizeof idx);
      in_order &= idx == i;
    }
    printf("dgram child received=%d in_order=%d\n", DGRAMS, in_order);
    fflush(stdout);
    _exit(0);
  }
  close(sv[1]);
  for (int i = 0; i < DGRAMS; i++) {
    memcpy(buf, &i, sizeof i);
    MUST(send(sv[0], buf, 1000, 0) == 1000);
  }
  reap(pid);
  printf("dgram parent sent=%d\n", DGRAMS);
  close(sv[0]);

  /* A stream: one blocking write of 1 MiB, read by the child. */
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  fflush(stdout);
  pid = fork();
  MUST(pid >= 0);
  if (pid == 0) {
    close(sv[0]);
    settle();
    long total = 0;
    ssize_t n;
    while ((n = read(sv[1], buf, sizeof buf)) > 0) total += n;
    printf("stream child read=%ld\n", total);
    fflush(stdout);
    _exit(0);
  }
  close(sv[1]);
  static char big[STREAM_BYTES];
  SHOW("stream parent write", write(sv[0], big, sizeof big));
  close(sv[0]);
  reap(pid);

  /* A full listener (backlog 0, one connection waiting): the parent's
   * second connect waits for the child's accept. */
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf(a.sun_path, sizeof a.sun_path, "/tmp/detsim_conf_ubf_%d", (int)getpid());
  unlink(a.sun_path);
  int l = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(l >= 0);
  MUST(bind(l, (struct sockaddr *)&a, sizeof a) == 0);
  MUST(listen(l, 0) == 0);
  int c1 = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(connect(c1, (struct sockaddr *)&a, sizeof a) == 0);
  fflush(stdout);
  pid = fork();
  MUST(pid >= 0);
  if (pid == 0) {
    settle();
    int s1 = accept(l, NULL, NULL), s2 = accept(l, NULL, NULL);
    char b = 0;
    MUST(s1 >= 0 && s2 >= 0);
    MUST(read(s2, &b, 1) == 1);
    printf("listener child accepted=2 second_says=%c\n", b);
    fflush(stdout);
    _exit(0);
  }
  close(l);
  int c2 = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("parent connect to full listener", connect(c2, (struct sockaddr *)&a, sizeof a));
  MUST(write(c2, "y", 1) == 1);
  reap(pid);
  close(c1);
  close(c2);
  unlink(a.sun_path);
  return 0;
}
