/* Rule: stdio on sockets, pipes and eventfds as glibc gives it: fdopen
 * checks the mode against the descriptor's (EINVAL), fileno answers the
 * descriptor, fprintf/fwrite are buffered until fflush (the peer sees
 * nothing before), fgets/getline/fread read what arrived and block for the
 * rest, fclose closes the descriptor (the peer reads EOF; a TCP peer's
 * stream sees EOF too), a write error sets ferror, fseek (and pwrite on
 * the descriptor) fails with ESPIPE.
 * Over a socket pair, a TCP connection, a pipe and an eventfd. */
#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>

#include "conf.h"

static FILE *writer_stream;
static void *late_writer(void *arg) {
  (void)arg;
  settle();
  fputs("second half\n", writer_stream);
  fflush(writer_stream);
  return NULL;
}

/* One connected pair of stream descriptors a (writer) and b (reader). */
static void exercise(const char *what, int a, int b) {
  printf("-- %s\n", what);
  FILE *wa = fdopen(a, "r+"), *rb = fdopen(b, "r+");
  MUST(wa != NULL && rb != NULL);
  printf("fileno=%d %d\n", fileno(wa) == a, fileno_unlocked(rb) == b);
  fprintf(wa, "line %d\n", 1);
  fwrite("raw bytes|", 1, 10, wa);
  fprintf(wa, "first half ");
  settle();
  /* Nothing left the buffer yet. */
  char peek[64];
  SHOW("before_fflush", recv(b, peek, sizeof peek, MSG_DONTWAIT));
  SHOW("fflush", fflush(wa));
  char line[128];
  printf("fgets=%s", fgets(line, sizeof line, rb) ? line : "NULL\n");
  char raw[11] = { 0 };
  SHOW("fread", fread(raw, 1, 10, rb));
  printf("raw=%s\n", raw);
  /* getline blocks until the rest of the line arrives from another thread. */
  writer_stream = wa;
  pthread_t t;
  pthread_create(&t, NULL, late_writer, NULL);
  char *gl = NULL;
  size_t cap = 0;
  SHOW("getline", getline(&gl, &cap, rb));
  printf("got=%s", gl);
  free(gl);
  pthread_join(t, NULL);
  errno = 0;
  SHOW("fseek", fseek(rb, 0, SEEK_SET));
  SHOW("ftell", ftell(rb));
  /* fclose closes the descriptor: the peer reads EOF. */
  SHOW("fclose", fclose(wa));
  SHOW("fcntl_closed", fcntl(a, F_GETFD));
  printf("eof=%d\n", fgetc(rb) == EOF && feof(rb) && !ferror(rb));
  SHOW("fclose_reader", fclose(rb));
}

static void eventfd_stream(void) {
  printf("-- eventfd\n");
  int e = eventfd(0, 0);
  FILE *f = fdopen(e, "r+");
  MUST(f != NULL);
  uint64_t v = 5;
  SHOW("fwrite", fwrite(&v, sizeof v, 1, f));
  SHOW("fflush", fflush(f));
  uint64_t got = 0;
  /* A read after a write needs a positioning call first (C11 7.21.5.3);
   * fflush is enough for glibc. */
  SHOW("fread", fread(&got, sizeof got, 1, f));
  printf("value=%llu\n", (unsigned long long)got);
  SHOW("fclose", fclose(f));
}

static void pipe_streams(void) {
  printf("-- pipe\n");
  int p[2];
  MUST(pipe(p) == 0);
  errno = 0;
  FILE *bad = fdopen(p[0], "w");
  printf("fdopen_read_end_w=%s %s\n", bad ? "stream" : "NULL", ename(errno));
  errno = 0;
  bad = fdopen(p[1], "r+");
  printf("fdopen_write_end_rplus=%s %s\n", bad ? "stream" : "NULL", ename(errno));
  errno = 0;
  bad = fdopen(p[1], "x");
  printf("fdopen_bad_mode=%s %s\n", bad ? "stream" : "NULL", ename(errno));
  FILE *w = fdopen(p[1], "w"), *r = fdopen(p[0], "r");
  MUST(w != NULL && r != NULL);
  SHOW("pwrite_pipe", pwrite(p[1], "x", 1, 0));
  for (int i = 0; i < 3; i++) fprintf(w, "pipe line %d\n", i);
  SHOW("fclose_w", fclose(w));
  char line[64];
  while (fgets(line, sizeof line, r)) printf("read: %s", line);
  printf("eof=%d\n", feof(r) != 0);
  SHOW("fclose_r", fclose(r));
  /* A write end whose reader is gone: the flush fails with EPIPE. */
  MUST(pipe(p) == 0);
  close(p[0]);
  w = fdopen(p[1], "w");
  fputs("nobody reads this\n", w);
  SHOW("fflush_epipe", fflush(w));
  printf("ferror=%d\n", ferror(w) != 0);
  fclose(w);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  int sv[2];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  exercise("socketpair", sv[0], sv[1]);

  int c, s;
  pair4(&c, &s);
  exercise("tcp", c, s);

  pipe_streams();
  eventfd_stream();
  return 0;
}
