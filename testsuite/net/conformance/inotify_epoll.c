/* Rule: an inotify descriptor in an epoll instance (what libuv's fs events
 * do): not ready until a watched file changes, readable with the events
 * after (level-triggered: until read; EPOLLET: once per new event;
 * EPOLLONESHOT: once until EPOLL_CTL_MOD); a thread blocked in epoll_wait
 * wakes when another thread changes a watched file; a second ADD is
 * EEXIST, DEL then MOD ENOENT; closing the descriptor ends its
 * registration.  A regular file is still EPERM. */
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "conf.h"

static char dir[64];

static const char *mask_names(uint32_t m, char *buf, size_t n) {
  static const struct { uint32_t bit; const char *name; } names[] = {
    { IN_ACCESS, "ACCESS" }, { IN_MODIFY, "MODIFY" }, { IN_ATTRIB, "ATTRIB" }, { IN_CLOSE_WRITE, "CLOSE_WRITE" },
    { IN_CLOSE_NOWRITE, "CLOSE_NOWRITE" }, { IN_OPEN, "OPEN" }, { IN_MOVED_FROM, "MOVED_FROM" },
    { IN_MOVED_TO, "MOVED_TO" }, { IN_CREATE, "CREATE" }, { IN_DELETE, "DELETE" }, { IN_DELETE_SELF, "DELETE_SELF" },
    { IN_MOVE_SELF, "MOVE_SELF" }, { IN_IGNORED, "IGNORED" }, { IN_ISDIR, "ISDIR" }, { IN_Q_OVERFLOW, "OVERFLOW" },
  };
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!(m & names[i].bit)) continue;
    if (buf[0]) strncat(buf, "|", n - strlen(buf) - 1);
    strncat(buf, names[i].name, n - strlen(buf) - 1);
  }
  return buf;
}

/* Reads and prints every queued event. */
static void events(const char *label, int in) {
  char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
  printf("%s:", label);
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n <= 0) break;
    for (char *p = buf; p < buf + n;) {
      struct inotify_event *e = (struct inotify_event *)p;
      char m[128];
      printf(" %s(%s)%s", mask_names(e->mask, m, sizeof m), e->len ? e->name : "", e->cookie ? "+cookie" : "");
      p += sizeof *e + e->len;
    }
  }
  printf("\n");
  fflush(stdout);
}

static int wait0(int ep) {
  struct epoll_event ev[4];
  return epoll_wait(ep, ev, 4, 0);
}

static void touch(const char *name, const char *data) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  MUST(fd >= 0);
  if (data) MUST(write(fd, data, strlen(data)) == (ssize_t)strlen(data));
  close(fd);
}

struct waiter { int ep, got; uint64_t data; };

static void *wait_forever(void *arg) {
  struct waiter *w = arg;
  struct epoll_event ev;
  w->got = epoll_wait(w->ep, &ev, 1, -1);
  w->data = ev.data.u64;
  return NULL;
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/detsim-inotify-XXXXXX");
  MUST(mkdtemp(dir) != NULL);
  int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  MUST(in >= 0);
  int wd = inotify_add_watch(in, dir, IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO);
  printf("watch=%d\n", wd >= 0);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 42 };
  SHOW("add", epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev));
  SHOW("add_again", epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev));
  SHOW("wait_nothing", wait0(ep));
  touch("a", "hello");
  struct epoll_event got[4];
  SHOW("wait_after_create", epoll_wait(ep, got, 4, 0));
  printf("events=%#x data=%llu\n", got[0].events, (unsigned long long)got[0].data.u64);
  SHOW("still_ready", wait0(ep));
  events("create_write", in);
  SHOW("after_read", wait0(ep));

  /* Edge-triggered: one report per change. */
  ev.events = EPOLLIN | EPOLLET;
  SHOW("mod_et", epoll_ctl(ep, EPOLL_CTL_MOD, in, &ev));
  touch("a", "more");
  SHOW("et_first", wait0(ep));
  SHOW("et_again", wait0(ep));
  touch("b", NULL);
  SHOW("et_new_event", wait0(ep));
  events("et_events", in);

  /* One-shot: once, until re-armed. */
  ev.events = EPOLLIN | EPOLLONESHOT;
  SHOW("mod_oneshot", epoll_ctl(ep, EPOLL_CTL_MOD, in, &ev));
  char from[128], to[128];
  snprintf(from, sizeof from, "%s/a", dir);
  snprintf(to, sizeof to, "%s/c", dir);
  MUST(rename(from, to) == 0);
  SHOW("oneshot_first", wait0(ep));
  SHOW("oneshot_again", wait0(ep));
  ev.events = EPOLLIN;
  SHOW("mod_rearm", epoll_ctl(ep, EPOLL_CTL_MOD, in, &ev));
  SHOW("rearmed", wait0(ep));
  events("rename", in);

  /* A thread waits; another changes a file. */
  struct waiter w = { ep, -2, 0 };
  pthread_t t;
  pthread_create(&t, NULL, wait_forever, &w);
  settle();
  printf("waiter_still_waiting=%d\n", w.got == -2);
  snprintf(from, sizeof from, "%s/b", dir);
  MUST(unlink(from) == 0);
  pthread_join(t, NULL);
  printf("waiter_got=%d data=%llu\n", w.got, (unsigned long long)w.data);
  events("unlink", in);

  SHOW("del", epoll_ctl(ep, EPOLL_CTL_DEL, in, NULL));
  SHOW("del_again", epoll_ctl(ep, EPOLL_CTL_DEL, in, NULL));
  SHOW("mod_after_del", epoll_ctl(ep, EPOLL_CTL_MOD, in, &ev));
  SHOW("add_back", epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev));
  touch("d", NULL);
  SHOW("ready_again", wait0(ep));
  /* Closing the only descriptor ends the registration. */
  int in2 = inotify_init1(IN_NONBLOCK);
  inotify_add_watch(in2, dir, IN_CREATE);
  SHOW("add_second", epoll_ctl(ep, EPOLL_CTL_ADD, in2, &ev));
  close(in);
  close(in2);
  SHOW("after_close", wait0(ep));

  snprintf(from, sizeof from, "%s/c", dir);
  int file = open(from, O_RDONLY);
  SHOW("regular_file", epoll_ctl(ep, EPOLL_CTL_ADD, file, &ev));
  close(file);
  SHOW("closed_fd", epoll_ctl(ep, EPOLL_CTL_ADD, 987, &ev));
  unlink(from);
  snprintf(from, sizeof from, "%s/d", dir);
  unlink(from);
  rmdir(dir);
  return 0;
}
