/* Rule: users and groups are looked up as glibc's files module answers
 * them (/etc/passwd, /etc/group), and a simulation build opens no real
 * socket to do it: glibc's NSS first tries nscd over a unix socket, which
 * the simulation forbids here with a seccomp filter that kills the process
 * at any socket() system call (installed only in the simulation build:
 * natively glibc makes that call).  /proc/self/fd shows no socket after. */
#include <dirent.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "conf.h"

static void forbid_real_sockets(void) {
#ifdef __DETSIM__
  struct sock_filter code[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { sizeof code / sizeof code[0], code };
  MUST(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
  MUST(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
#endif
}

static int sockets_open(void) {
  DIR *d = opendir("/proc/self/fd");
  MUST(d != NULL);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t k = readlink(path, target, sizeof target - 1);
    if (k <= 0) continue;
    target[k] = '\0';
    n += strncmp(target, "socket:", 7) == 0;
  }
  closedir(d);
  return n;
}

int main(void) {
  forbid_real_sockets();
  struct passwd *pw = getpwuid(getuid());
  MUST(pw != NULL);
  char name[256];
  snprintf(name, sizeof name, "%s", pw->pw_name);
  printf("getpwuid: uid matches=%d dir set=%d\n", pw->pw_uid == getuid(), pw->pw_dir[0] == '/');
  struct passwd *byname = getpwnam(name);
  printf("getpwnam: same uid=%d\n", byname != NULL && byname->pw_uid == getuid());
  printf("getpwnam missing=%s\n", getpwnam("no-such-user-detsim") == NULL ? "NULL" : "found");
  struct passwd pwb, *res = NULL;
  char buf[4096];
  SHOW("getpwuid_r", getpwuid_r(getuid(), &pwb, buf, sizeof buf, &res));
  printf("getpwuid_r: same name=%d\n", res != NULL && strcmp(res->pw_name, name) == 0);
  char tiny[4];
  SHOW("getpwuid_r_tiny_erange_is_34", getpwuid_r(getuid(), &pwb, tiny, sizeof tiny, &res));
  struct group *gr = getgrgid(getgid());
  MUST(gr != NULL);
  char gname[256];
  snprintf(gname, sizeof gname, "%s", gr->gr_name);
  struct group *gbyname = getgrnam(gname);
  printf("getgrnam: same gid=%d\n", gbyname != NULL && gbyname->gr_gid == getgid());
  struct group grb, *gres = NULL;
  SHOW("getgrgid_r", getgrgid_r(getgid(), &grb, buf, sizeof buf, &gres));
  printf("getgrgid_r: same name=%d\n", gres != NULL && strcmp(gres->gr_name, gname) == 0);
  int users = 0, root = 0;
  setpwent();
  while ((pw = getpwent()) != NULL) {
    users++;
    root += pw->pw_uid == 0;
  }
  endpwent();
  printf("getpwent: some users=%d one root=%d\n", users > 0, root == 1);
  gid_t groups[256];
  int ng = 256;
  int r = getgrouplist(name, getgid(), groups, &ng);
  printf("getgrouplist: first is the group=%d count=%d\n", r > 0 && groups[0] == getgid(), r == ng);
  printf("sockets open=%d\n", sockets_open());
  return 0;
}
