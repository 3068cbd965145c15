/* Conformance: select with descriptors past FD_SETSIZE.
 *
 * glibc's fd_set holds 1024 bits, but the kernel reads and writes nfds bits of
 * whatever arrays it is given, so a program that allocates a larger set on
 * the heap can pass nfds > 1024.  Descriptors 1200 and 1500 are copies of
 * the two ends of a unix socket pair; only one end has data.  select must
 * report exactly the ready bits, clear the others (also in the longs it
 * writes back past nfds' last bit), and a bit on a descriptor that is not
 * open inside the table is EBADF.
 */
#include <sys/resource.h>
#include <sys/select.h>

#include "conf.h"

#define BITS 2048
#define WORD (8 * sizeof(unsigned long))

static unsigned long *set_new(void) {
  unsigned long *s = calloc(BITS / WORD, sizeof *s);
  MUST(s != NULL);
  return s;
}
static void set_bit(unsigned long *s, int fd) { s[fd / WORD] |= 1ul << (fd % WORD); }
static int get_bit(const unsigned long *s, int fd) { return (int)(s[fd / WORD] >> (fd % WORD) & 1ul); }

static void show_bits(const char *label, const unsigned long *s) {
  printf("%s:", label);
  for (int fd = 1024; fd < BITS; fd++)
    if (get_bit(s, fd)) printf(" %d", fd);
  printf("\n");
}

int main(void) {
  struct rlimit rl;
  MUST(getrlimit(RLIMIT_NOFILE, &rl) == 0);
  if (rl.rlim_cur < BITS) {
    MUST(rl.rlim_max >= BITS);
    rl.rlim_cur = BITS;
    MUST(setrlimit(RLIMIT_NOFILE, &rl) == 0);
  }
  int sv[2];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  MUST(dup2(sv[0], 1200) == 1200);
  MUST(dup2(sv[1], 1500) == 1500);
  MUST(write(sv[0], "x", 1) == 1); /* 1500 (sv[1]) has data, 1200 has none */

  unsigned long *rd = set_new(), *wr = set_new();
  set_bit(rd, 1200);
  set_bit(rd, 1500);
  set_bit(wr, 1500);
  set_bit(rd, 1503); /* past nfds, in the long the kernel writes back */
  struct timeval tv = { 0, 0 };
  SHOW("select(1501, rd={1200,1500}, wr={1500})", select(1501, (fd_set *)rd, (fd_set *)wr, NULL, &tv));
  show_bits("readable", rd);
  show_bits("writable", wr);

  memset(rd, 0, BITS / 8);
  set_bit(rd, 1500);
  set_bit(rd, 1300); /* not open, inside the table */
  tv = (struct timeval){ 0, 0 };
  SHOW("select(1501, rd={1300 closed,1500})", select(1501, (fd_set *)rd, NULL, NULL, &tv));
  show_bits("unchanged", rd);

  memset(rd, 0, BITS / 8);
  set_bit(rd, 1200);
  tv = (struct timeval){ 0, 20000 };
  SHOW("select(1201, rd={1200}) no data, 20 ms", select(1201, (fd_set *)rd, NULL, NULL, &tv));
  show_bits("readable", rd);

  free(rd);
  free(wr);
  return 0;
}
