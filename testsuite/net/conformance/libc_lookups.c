/* Rule: libc's lookups that glibc answers over real sockets (nscd, DNS,
 * netlink, /dev/log) answer as Linux does for what the simulation knows
 * (localhost and numeric hosts by gethostbyname, the loopback interface),
 * and a simulation build opens no real socket for any of them (a seccomp
 * filter kills the process at a socket() system call: simulation build
 * only, natively glibc makes those calls). */
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <netdb.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <syslog.h>

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

static void show_host(const char *label, struct hostent *h) {
  if (h == NULL) {
    printf("%s=NULL\n", label);
    return;
  }
  char text[64];
  inet_ntop(h->h_addrtype, h->h_addr_list[0], text, sizeof text);
  printf("%s: family=%s length=%d first=%s\n", label, h->h_addrtype == AF_INET ? "inet" : "inet6", h->h_length, text);
}

int main(void) {
  forbid_real_sockets();
  show_host("gethostbyname_localhost", gethostbyname("localhost"));
  show_host("gethostbyname_numeric", gethostbyname("127.0.0.7"));
  show_host("gethostbyname2_numeric6", gethostbyname2("::1", AF_INET6));
  printf("if_nametoindex_lo=%u\n", if_nametoindex("lo"));
  char name[IF_NAMESIZE];
  printf("if_indextoname_1=%s\n", if_indextoname(1, name) ? name : "NULL");
  openlog("detsim-conformance", LOG_NDELAY, LOG_USER);
  syslog(LOG_DEBUG, "a message nobody needs to read");
  closelog();
  printf("syslog returned\n");
  return 0;
}
