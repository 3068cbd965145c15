/* Raw system calls by number on simulated and real descriptors: the same
 * results as Linux gives (the kernel ABI: -1 and errno).  Among them,
 * syscall(SYS_close) on an accepted socket makes the peer read EOF, and a
 * raw socket/connect/accept4/sendto/recvfrom round trip works as the libc
 * calls do.  getrandom shows only its length. */
#include "../../net/conformance/conf.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/syscall.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  MUST(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) == 0);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { got_usr1 = sig; }

static void pipes(void) {
  int p[2];
  SHOW("pipe2", syscall(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK));
  SHOW("fcntl_getfl_nonblock", (syscall(SYS_fcntl, p[0], F_GETFL, 0L) & O_NONBLOCK) != 0);
  SHOW("fcntl_getfd_cloexec", syscall(SYS_fcntl, p[0], F_GETFD, 0L));
  SHOW("read_empty", syscall(SYS_read, p[0], (char[4]){0}, 4));
  SHOW("write", syscall(SYS_write, p[1], "hello", 5));
  struct pollfd pfd = {.fd = p[0], .events = POLLIN};
  SHOW("poll", syscall(SYS_poll, &pfd, 1, 1000));
  show_revents("poll_revents", pfd.revents);
  char buf[16] = {0};
  SHOW("read", syscall(SYS_read, p[0], buf, sizeof buf));
  printf("read_data=%s\n", buf);
  struct iovec iov[2] = {{"ab", 2}, {"cd", 2}};
  SHOW("writev", syscall(SYS_writev, p[1], iov, 2));
  char x[2], y[2];
  struct iovec riov[2] = {{x, 2}, {y, 2}};
  SHOW("readv", syscall(SYS_readv, p[0], riov, 2));
  printf("readv_data=%.2s%.2s\n", x, y);
  SHOW("lseek_pipe", syscall(SYS_lseek, p[0], 0L, SEEK_SET));
  SHOW("pread64_pipe", syscall(SYS_pread64, p[0], buf, 1L, 0L));
  /* ppoll on an empty pipe times out after 20 ms and writes back 0 left. */
  struct timespec to = {0, 20 * 1000 * 1000};
  pfd.revents = 0;
  SHOW("ppoll_timeout", syscall(SYS_ppoll, &pfd, 1, &to, NULL, 8));
  printf("ppoll_left=%ld.%09ld\n", (long)to.tv_sec, to.tv_nsec);
  uint64_t kmask = 0;
  SHOW("ppoll_bad_sigsetsize", syscall(SYS_ppoll, &pfd, 1, &to, &kmask, 4));
  /* pselect6's sixth argument is {sigset pointer, size}. */
  SHOW("write_again", syscall(SYS_write, p[1], "z", 1));
  fd_set rs;
  FD_ZERO(&rs);
  FD_SET(p[0], &rs);
  struct { const void *set; size_t size; } sig = {&kmask, 8};
  struct timespec pto = {1, 0};
  SHOW("pselect6", syscall(SYS_pselect6, p[0] + 1, &rs, NULL, NULL, &pto, &sig));
  printf("pselect6_ready=%d\n", FD_ISSET(p[0], &rs) != 0);
  int q[2];
  SHOW("dup3", syscall(SYS_dup3, p[0], p[0] + 40, O_CLOEXEC) == p[0] + 40);
  SHOW("close_dup", syscall(SYS_close, p[0] + 40));
  SHOW("close_again", syscall(SYS_close, p[0] + 40));
  /* Closing the write end by number: the reader sees EOF after the data. */
  SHOW("close_w", syscall(SYS_close, p[1]));
  SHOW("read_rest", syscall(SYS_read, p[0], buf, sizeof buf));
  SHOW("read_eof", syscall(SYS_read, p[0], buf, sizeof buf));
  SHOW("close_r", syscall(SYS_close, p[0]));
  SHOW("pipe", syscall(SYS_pipe, q));
  SHOW("close_q0", syscall(SYS_close, q[0]));
  SHOW("close_q1", syscall(SYS_close, q[1]));
}

static void events_and_epoll(void) {
  int e = (int)syscall(SYS_eventfd2, 0, EFD_NONBLOCK);
  MUST(e >= 0);
  int ep = (int)syscall(SYS_epoll_create1, EPOLL_CLOEXEC);
  MUST(ep >= 0);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 77};
  SHOW("epoll_ctl", syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, e, &ev));
  struct epoll_event out[4];
  SHOW("epoll_wait_idle", syscall(SYS_epoll_wait, ep, out, 4, 0));
  uint64_t v = 3;
  SHOW("eventfd_write", syscall(SYS_write, e, &v, sizeof v));
  SHOW("epoll_wait", syscall(SYS_epoll_wait, ep, out, 4, 1000));
  printf("epoll_data=%u\n", out[0].data.u32);
  struct timespec zero = {0, 0};
  SHOW("epoll_pwait2", syscall(SYS_epoll_pwait2, ep, out, 4, &zero, NULL, 8));
  SHOW("epoll_pwait", syscall(SYS_epoll_pwait, ep, out, 4, 0, NULL, 8));
  v = 0;
  SHOW("eventfd_read", syscall(SYS_read, e, &v, sizeof v));
  printf("eventfd_value=%llu\n", (unsigned long long)v);
  SHOW("epoll_pwait2_timeout", syscall(SYS_epoll_pwait2, ep, out, 4, &(struct timespec){0, 5000000}, NULL, 8));
  SHOW("close_ep", syscall(SYS_close, ep));
  SHOW("close_e", syscall(SYS_close, e));
}

static void clocks_and_random(void) {
  double t0 = now_s();
  SHOW("nanosleep", syscall(SYS_nanosleep, &(struct timespec){0, 30 * 1000 * 1000}, NULL));
  double t1 = now_s();
  printf("slept_30ms=%d\n", t1 - t0 >= 0.030);
  SHOW("clock_nanosleep", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &(struct timespec){0, 1000000}, NULL));
  SHOW("clock_nanosleep_bad_clock", syscall(SYS_clock_nanosleep, 12345, 0, &(struct timespec){0, 1}, NULL));
  SHOW("clock_nanosleep_bad_ts", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &(struct timespec){0, -1}, NULL));
  struct timespec res;
  SHOW("clock_getres", syscall(SYS_clock_getres, CLOCK_MONOTONIC, &res));
  SHOW("clock_gettime_bad", syscall(SYS_clock_gettime, 12345, &res));
  unsigned char rnd[24];
  SHOW("getrandom", syscall(SYS_getrandom, rnd, sizeof rnd, 0));
  SHOW("getrandom_bad_flags", syscall(SYS_getrandom, rnd, sizeof rnd, 0x1000));
  SHOW("sched_yield", syscall(SYS_sched_yield));
}

static void sockets(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 8);
  int c = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
  MUST(c >= 0);
  SHOW("connect", syscall(SYS_connect, c, &a, sizeof a));
  int s = (int)syscall(SYS_accept4, l, NULL, NULL, SOCK_CLOEXEC);
  MUST(s >= 0);
  int one = 1, got = 0;
  socklen_t gl = sizeof got;
  SHOW("setsockopt", syscall(SYS_setsockopt, c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
  SHOW("getsockopt", syscall(SYS_getsockopt, c, IPPROTO_TCP, TCP_NODELAY, &got, &gl));
  printf("nodelay=%d\n", got != 0);
  SHOW("sendto", syscall(SYS_sendto, c, "ping", 4, 0, NULL, 0));
  char buf[8] = {0};
  SHOW("recvfrom", syscall(SYS_recvfrom, s, buf, sizeof buf, MSG_WAITALL & 0, NULL, NULL));
  printf("recvfrom_data=%s\n", buf);
  struct iovec iov = {"pong", 4};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
  SHOW("sendmsg", syscall(SYS_sendmsg, s, &m, 0));
  char rb[8] = {0};
  struct iovec riov = {rb, sizeof rb};
  struct msghdr rm = {.msg_iov = &riov, .msg_iovlen = 1};
  SHOW("recvmsg", syscall(SYS_recvmsg, c, &rm, 0));
  printf("recvmsg_data=%s\n", rb);
  /* The accepted end closed by number: the client reads EOF. */
  SHOW("close_accepted", syscall(SYS_close, s));
  SHOW("peer_read_eof", read(c, buf, sizeof buf));
  SHOW("shutdown", syscall(SYS_shutdown, c, SHUT_WR));
  SHOW("close_client", syscall(SYS_close, c));
  SHOW("close_listener", syscall(SYS_close, l));
  /* And the other way: a client closed by number, the server reads EOF. */
  int cl, sv;
  pair4(&cl, &sv);
  SHOW("close_client_raw", syscall(SYS_close, cl));
  SHOW("server_read_eof", read(sv, buf, sizeof buf));
  close(sv);
}

static void real_files(void) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY | O_CLOEXEC);
  MUST(fd >= 0);
  SHOW("write_devnull", syscall(SYS_write, fd, "abc", 3));
  struct stat st;
  SHOW("fstat_devnull", syscall(SYS_fstat, fd, &st));
  printf("devnull_is_chr=%d\n", S_ISCHR(st.st_mode));
  SHOW("close_devnull", syscall(SYS_close, fd));
  SHOW("getpid_is_tid", syscall(SYS_getpid) == syscall(SYS_gettid));
  SHOW("getpid_matches", syscall(SYS_getpid) == getpid());
}

static void signals(void) {
  struct sigaction sa = {.sa_handler = on_usr1};
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR2);
  MUST(sigaction(SIGUSR1, &sa, NULL) == 0);
  SHOW("tgkill_self", syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1));
  printf("handler_ran=%d\n", got_usr1 == SIGUSR1);
  got_usr1 = 0;
  SHOW("tkill_self", syscall(SYS_tkill, syscall(SYS_gettid), SIGUSR1));
  printf("handler_ran_again=%d\n", got_usr1 == SIGUSR1);
  SHOW("tgkill_bad_sig", syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 999));
  /* The kernel's struct sigaction: {handler, flags, restorer, mask}. */
  struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } old = {0};
  SHOW("rt_sigaction_read", syscall(SYS_rt_sigaction, SIGUSR1, NULL, &old, 8));
  printf("old_handler_is_ours=%d old_mask_usr2=%d\n", old.handler == (void *)on_usr1,
         (int)((old.mask >> (SIGUSR2 - 1)) & 1));
  struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } ign = {(void *)SIG_IGN, 0, NULL, 0};
  SHOW("rt_sigaction_ignore", syscall(SYS_rt_sigaction, SIGUSR1, &ign, NULL, 8));
  struct sigaction now;
  MUST(sigaction(SIGUSR1, NULL, &now) == 0);
  printf("now_ignored=%d\n", now.sa_handler == SIG_IGN);
  SHOW("rt_sigaction_bad_size", syscall(SYS_rt_sigaction, SIGUSR1, NULL, &old, 128));
  uint64_t block = 1ull << (SIGUSR2 - 1), was = ~0ull;
  SHOW("rt_sigprocmask", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, &was, 8));
  printf("was_usr2=%d\n", (int)((was >> (SIGUSR2 - 1)) & 1));
  sigset_t cur;
  MUST(sigprocmask(SIG_BLOCK, NULL, &cur) == 0);
  printf("usr2_blocked=%d\n", sigismember(&cur, SIGUSR2));
  SHOW("rt_sigprocmask_unblock", syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &block, NULL, 8));
}

static void timers_and_signalfds(void) {
  int t = (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_CLOEXEC);
  MUST(t >= 0);
  struct itimerspec its = {.it_value = {0, 10 * 1000 * 1000}};
  SHOW("timerfd_settime", syscall(SYS_timerfd_settime, t, 0, &its, NULL));
  uint64_t expirations = 0;
  SHOW("timerfd_read", syscall(SYS_read, t, &expirations, sizeof expirations));
  printf("expirations=%llu\n", (unsigned long long)expirations);
  struct itimerspec cur;
  SHOW("timerfd_gettime", syscall(SYS_timerfd_gettime, t, &cur));
  printf("disarmed=%d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
  SHOW("close_timerfd", syscall(SYS_close, t));
  uint64_t usr2 = 1ull << (SIGUSR2 - 1);
  SHOW("block_usr2", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &usr2, NULL, 8));
  int sfd = (int)syscall(SYS_signalfd4, -1, &usr2, 8, SFD_NONBLOCK);
  MUST(sfd >= 0);
  struct signalfd_siginfo si;
  SHOW("signalfd_empty", syscall(SYS_read, sfd, &si, sizeof si));
  SHOW("kill_self", syscall(SYS_kill, getpid(), SIGUSR2));
  SHOW("signalfd_read", syscall(SYS_read, sfd, &si, sizeof si) == (long)sizeof si);
  printf("signalfd_signo=%u\n", si.ssi_signo);
  SHOW("signalfd4_bad_size", syscall(SYS_signalfd4, -1, &usr2, 128, 0));
  SHOW("close_signalfd", syscall(SYS_close, sfd));
  SHOW("unblock_usr2", syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &usr2, NULL, 8));
}

static _Atomic int exited_work;
static void *raw_exit_thread(void *arg) {
  (void)arg;
  exited_work = 1;
  syscall(SYS_exit, 0);
  return (void *)1; /* never reached */
}

static void thread_exit(void) {
  pthread_t t;
  MUST(pthread_create(&t, NULL, raw_exit_thread, NULL) == 0);
  SHOW("join_raw_exited", pthread_join(t, NULL));
  printf("thread_worked=%d\n", exited_work);
}

static void barriers_and_io_uring(void) {
  long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  int want = MEMBARRIER_CMD_PRIVATE_EXPEDITED | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED | MEMBARRIER_CMD_GLOBAL;
  printf("membarrier_query_has_private=%d\n", q >= 0 && (q & want) == want);
  SHOW("membarrier_private_unregistered", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0));
  SHOW("membarrier_register", syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0));
  SHOW("membarrier_private", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0));
  SHOW("membarrier_bad_flags", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 7, 0));
}

int main(void) {
  pipes();
  events_and_epoll();
  clocks_and_random();
  sockets();
  real_files();
  signals();
  barriers_and_io_uring();
  timers_and_signalfds();
  thread_exit();
  printf("done\n");
  fflush(stdout);
  syscall(SYS_exit_group, 0);
  printf("not reached\n");
  return 1;
}
