/* pthread_atfork handlers run as libc runs them (prepare and parent in the
 * parent, child in the child); a unix socket pair, an eventfd and an epoll
 * instance made before the fork are shared: the child answers on the
 * socket, adds to the eventfd, and the parent's epoll sees both; the
 * parent reads end-of-file on its socket once the child, the last other
 * holder of the peer end, has ended. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int prepared, in_parent, in_child;
static void prepare(void) { prepared++; }
static void parent(void) { in_parent++; }
static void child(void) { in_child++; }

int main(void) {
  pthread_atfork(prepare, parent, child);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  int ev = eventfd(0, 0);
  int ep = epoll_create1(0);
  struct epoll_event e = { .events = EPOLLIN, .data.fd = ev };
  epoll_ctl(ep, EPOLL_CTL_ADD, ev, &e);
  pid_t c = fork();
  if (c == 0) {
    close(sv[0]);
    char buf[16] = "";
    if (read(sv[1], buf, 4) != 4) _exit(2);
    char answer[32];
    int n = snprintf(answer, sizeof answer, "%s:%d%d%d", buf, prepared, in_parent, in_child);
    if (write(sv[1], answer, (size_t)n) != n) _exit(3);
    uint64_t five = 5;
    if (write(ev, &five, sizeof five) != sizeof five) _exit(4);
    _exit(0);
  }
  close(sv[1]);
  if (write(sv[0], "ping", 4) != 4) return 2;
  char buf[32] = "";
  ssize_t n = read(sv[0], buf, sizeof buf - 1);
  printf("child answered: %.*s (handlers prepare,parent,child in the child)\n", (int)(n > 0 ? n : 0), buf);
  printf("parent handlers: prepare=%d parent=%d child=%d\n", prepared, in_parent, in_child);
  struct epoll_event out;
  int ready = epoll_wait(ep, &out, 1, 10000);
  printf("epoll ready=%d is_eventfd=%d\n", ready, ready == 1 && out.data.fd == ev);
  uint64_t v = 0;
  printf("eventfd read=%d value=%llu\n", (int)read(ev, &v, sizeof v), (unsigned long long)v);
  int st;
  waitpid(c, &st, 0);
  printf("after the child: read=%d status=%d\n", (int)read(sv[0], buf, sizeof buf), WEXITSTATUS(st));
  return 0;
}
