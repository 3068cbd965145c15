/* Rule: several threads printing to one stdout redirected (dup2) onto a
 * pipe, each flushing after every line, while another thread drains the
 * pipe: every line arrives whole, none lost, as glibc's stream lock makes
 * it natively.  (In the simulation a stream's writes are no preemption
 * points: a thread switched in there would wait in the kernel for the
 * stream's lock.) */
#include "conf.h"

#define LINES 60

static int pipe_r;
static char got[1 << 16];
static size_t got_n;

static void *drain(void *arg) {
  (void)arg;
  ssize_t k;
  while ((k = read(pipe_r, got + got_n, sizeof got - 1 - got_n)) > 0) got_n += (size_t)k;
  return NULL;
}

static void *writer(void *arg) {
  const char *name = arg;
  for (int i = 0; i < LINES; i++) {
    printf("%s line %02d\n", name, i);
    fflush(stdout);
  }
  return NULL;
}

int main(void) {
  int p[2];
  MUST(pipe(p) == 0);
  pipe_r = p[0];
  setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
  int saved = dup(1);
  MUST(dup2(p[1], 1) == 1);
  pthread_t d, a, b;
  pthread_create(&d, NULL, drain, NULL);
  pthread_create(&a, NULL, writer, "A");
  pthread_create(&b, NULL, writer, "B");
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  MUST(dup2(saved, 1) == 1);
  close(p[1]);
  pthread_join(d, NULL);
  got[got_n] = '\0';
  int na = 0, nb = 0, bad = 0;
  for (char *l = got; *l; ) {
    char *nl = strchr(l, '\n');
    if (nl == NULL) { bad++; break; }
    if (nl - l != 9) bad++;
    else if (l[0] == 'A') na++;
    else if (l[0] == 'B') nb++;
    else bad++;
    l = nl + 1;
  }
  printf("bytes=%zu A=%d B=%d torn=%d\n", got_n, na, nb, bad);
  return 0;
}
