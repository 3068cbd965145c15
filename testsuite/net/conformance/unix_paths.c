/* Rule: a unix socket bound to a path is a file, as Linux makes it: stat
 * shows a socket with the umask's mode, chmod changes it, a second bind
 * there is EADDRINUSE (even after the socket closed, until unlink), a bind
 * in a missing directory ENOENT and under a regular file ENOTDIR, a
 * connect to a regular file or to a socket file no one listens on
 * ECONNREFUSED, and after unlink the name is free and stat ENOENT.  The
 * paths are in a fresh directory; nothing of them is printed. */
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "conf.h"

static char dir[64];

static struct sockaddr_un at(const char *name) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  snprintf(a.sun_path, sizeof a.sun_path, "%s/%s", dir, name);
  return a;
}

static int bind_at(int s, const char *name) {
  struct sockaddr_un a = at(name);
  return bind(s, (struct sockaddr *)&a, sizeof a);
}

static int connect_at(int s, const char *name) {
  struct sockaddr_un a = at(name);
  return connect(s, (struct sockaddr *)&a, sizeof a);
}

static void show_stat(const char *label, const char *name) {
  struct sockaddr_un a = at(name);
  struct stat st;
  if (stat(a.sun_path, &st) != 0) {
    printf("%s: stat -1 %s\n", label, ename(errno));
    return;
  }
  printf("%s: socket=%d mode=%o\n", label, S_ISSOCK(st.st_mode), (unsigned)(st.st_mode & 0777));
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/detsim-unix-paths-XXXXXX");
  if (mkdtemp(dir) == NULL) return 1;
  umask(022);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("bind", bind_at(s, "srv"));
  show_stat("after_bind", "srv");
  struct sockaddr_un a = at("srv");
  SHOW("chmod", chmod(a.sun_path, 0600));
  show_stat("after_chmod", "srv");
  int t = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("bind_again", bind_at(t, "srv"));
  SHOW("connect_not_listening", connect_at(t, "srv"));
  SHOW("listen", listen(s, 4));
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("connect_listening", connect_at(c, "srv"));
  close(c);
  close(s);
  show_stat("after_close", "srv");
  int u = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("bind_after_close", bind_at(u, "srv"));
  SHOW("unlink", unlink(a.sun_path));
  show_stat("after_unlink", "srv");
  SHOW("bind_after_unlink", bind_at(u, "srv"));
  SHOW("unlink_again", unlink(a.sun_path));

  SHOW("bind_missing_dir", bind_at(t, "no-such-dir/x"));
  struct sockaddr_un f = at("plain");
  int fd = open(f.sun_path, O_CREAT | O_WRONLY, 0644);
  close(fd);
  SHOW("bind_under_file", bind_at(t, "plain/x"));
  SHOW("bind_on_file", bind_at(t, "plain"));
  int d = socket(AF_UNIX, SOCK_STREAM, 0);
  SHOW("connect_regular_file", connect_at(d, "plain"));
  SHOW("connect_missing", connect_at(d, "nothing"));
  int g = socket(AF_UNIX, SOCK_DGRAM, 0);
  struct sockaddr_un p = at("plain");
  SHOW("sendto_regular_file", (int)sendto(g, "x", 1, 0, (struct sockaddr *)&p, sizeof p));
  unlink(f.sun_path);
  rmdir(dir);
  return 0;
}
