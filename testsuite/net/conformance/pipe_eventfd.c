/* Rule: pipes and eventfds as Linux: a pipe reads 0 once its writer is
 * gone and writes EPIPE once its reader is gone; an eventfd adds and
 * drains (or counts down with EFD_SEMAPHORE); both poll as Linux says. */
#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>

#include "conf.h"

static int pipe_w;
static void *late_writer(void *arg) {
  (void)arg;
  settle();
  write(pipe_w, "late", 4);
  return NULL;
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  int p[2];
  SHOW("pipe", pipe(p));
  struct pollfd q[2] = { { p[0], POLLIN, 0 }, { p[1], POLLOUT, 0 } };
  SHOW("poll_idle", poll(q, 2, 0));
  show_revents("read_end", q[0].revents);
  show_revents("write_end", q[1].revents);
  pipe_w = p[1];
  pthread_t t;
  pthread_create(&t, NULL, late_writer, NULL);
  char buf[16] = {0};
  SHOW("blocking_read", read(p[0], buf, sizeof buf));
  printf("data=%s\n", buf);
  pthread_join(t, NULL);
  SHOW("getfl_rd", fcntl(p[0], F_GETFL) & O_ACCMODE);
  SHOW("getfl_wr", fcntl(p[1], F_GETFL) & O_ACCMODE);
  SHOW("write_to_read_end", write(p[0], "x", 1));
  close(p[1]);
  SHOW("poll_hup", poll(q, 1, 0));
  show_revents("read_end", q[0].revents);
  SHOW("read_eof", read(p[0], buf, sizeof buf));
  close(p[0]);

  SHOW("pipe2", pipe2(p, O_NONBLOCK | O_CLOEXEC));
  SHOW("getfd_cloexec", fcntl(p[0], F_GETFD));
  SHOW("read_empty", read(p[0], buf, sizeof buf));
  close(p[0]);
  SHOW("write_no_reader", write(p[1], "x", 1));
  q[1].fd = p[1];
  SHOW("poll_err", poll(&q[1], 1, 0));
  show_revents("write_end", q[1].revents);
  close(p[1]);

  SHOW("pipe_fill", pipe2(p, O_NONBLOCK));
  char big[4096];
  memset(big, 'y', sizeof big);
  long total = 0;
  for (;;) {
    ssize_t w = write(p[1], big, sizeof big);
    if (w < 0) break;
    total += w;
  }
  printf("pipe_capacity=%ld errno=%s\n", total, ename(errno));
  close(p[0]);
  close(p[1]);

  int e = eventfd(3, EFD_NONBLOCK);
  uint64_t v = 0;
  SHOW("efd_read", read(e, &v, sizeof v));
  printf("value=%llu\n", (unsigned long long)v);
  SHOW("efd_read_empty", read(e, &v, sizeof v));
  v = 5;
  SHOW("efd_write", write(e, &v, sizeof v));
  v = 2;
  SHOW("efd_write2", write(e, &v, sizeof v));
  SHOW("efd_short_read", read(e, &v, 4));
  eventfd_t ev = 0;
  SHOW("eventfd_read", eventfd_read(e, &ev));
  printf("value=%llu\n", (unsigned long long)ev);
  struct pollfd ep = { e, POLLIN | POLLOUT, 0 };
  SHOW("efd_poll", poll(&ep, 1, 0));
  show_revents("efd", ep.revents);
  close(e);
  int sem = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
  SHOW("sem_read1", read(sem, &v, sizeof v));
  printf("value=%llu\n", (unsigned long long)v);
  SHOW("sem_read2", read(sem, &v, sizeof v));
  SHOW("sem_read3", read(sem, &v, sizeof v));
  SHOW("eventfd_write", eventfd_write(sem, 1));
  SHOW("sem_read4", read(sem, &v, sizeof v));
  close(sem);
  return 0;
}
