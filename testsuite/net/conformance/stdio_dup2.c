/* Rule: the standard streams follow their descriptors: after dup2 of a
 * pipe's write end onto 1, printf and puts go into the pipe (another thread
 * reads them back), fileno(stdout) is still 1, and dup2 of the saved
 * descriptor restores the terminal or file; after dup2 of a socket onto 0,
 * fgets and scanf on stdin read the socket; stderr (unbuffered) follows 2.
 * Output buffered before a dup2 goes where the descriptor points when it
 * is flushed, as glibc writes it.  freopen moves stdout onto a file (still
 * descriptor 1), and an fdopen stream of a socket onto a file. */
#include <fcntl.h>
#include <signal.h>

#include "conf.h"

static int pipe_r;
static char collected[4096];
static size_t collected_n;

static void *reader(void *arg) {
  (void)arg;
  ssize_t k;
  while ((k = read(pipe_r, collected + collected_n, sizeof collected - 1 - collected_n)) > 0) collected_n += (size_t)k;
  return NULL;
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, NULL, _IOFBF, BUFSIZ); /* the same buffering natively and in every harness */
  int p[2];
  MUST(pipe(p) == 0);
  pipe_r = p[0];
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);

  printf("before the redirect, flushed later\n"); /* still in stdout's buffer */
  fflush(stdout);
  int saved_out = dup(1);
  printf("buffered across the dup2 ");
  MUST(dup2(p[1], 1) == 1);
  printf("into the pipe %d\n", 1);
  puts("puts too");
  printf("fileno=%d\n", fileno(stdout));
  fflush(stdout);
  int saved_err = dup(2);
  MUST(dup2(p[1], 2) == 2);
  fprintf(stderr, "stderr into the pipe\n");
  perror("perror");
  MUST(dup2(saved_err, 2) == 2);
  close(saved_err);
  MUST(dup2(saved_out, 1) == 1);
  close(saved_out);
  close(p[1]);
  pthread_join(t, NULL);
  close(p[0]);
  collected[collected_n] = '\0';
  printf("the pipe read %zu bytes:\n%s", collected_n, collected);
  printf("back on stdout, fileno=%d\n", fileno(stdout));
  fflush(stdout);

  /* stdin from a socket. */
  int sv[2];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  int saved_in = dup(0);
  MUST(dup2(sv[1], 0) == 0);
  close(sv[1]);
  const char msg[] = "a line from the socket\n42 17\n";
  MUST(write(sv[0], msg, sizeof msg - 1) == (ssize_t)(sizeof msg - 1));
  close(sv[0]);
  char line[64];
  printf("fgets=%s", fgets(line, sizeof line, stdin) ? line : "NULL\n");
  int x = 0, y = 0;
  SHOW("scanf", scanf("%d %d", &x, &y));
  printf("x=%d y=%d\n", x, y);
  printf("eof=%d\n", getchar() == '\n' && getchar() == EOF);
  printf("fileno_stdin=%d\n", fileno(stdin));
  MUST(dup2(saved_in, 0) == 0);
  close(saved_in);
  clearerr(stdin);

  char path[64];
  snprintf(path, sizeof path, "/tmp/detsim-conf-freopen-%d.txt", (int)getpid());
  fflush(stdout);
  saved_out = dup(1);
  FILE *f = freopen(path, "w", stdout);
  printf("freopen same stream=%d fileno=%d\n", f == stdout, fileno(stdout));
  fflush(stdout);
  MUST(dup2(saved_out, 1) == 1);
  close(saved_out);
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  FILE *sock = fdopen(sv[0], "w");
  MUST(sock != NULL);
  FILE *g = freopen(path, "a", sock);
  fprintf(g, "appended through the socket's stream=%d\n", g == sock);
  SHOW("fclose", fclose(g));
  char peek[8];
  SHOW("peer_sees_close", read(sv[1], peek, sizeof peek));
  close(sv[1]);
  FILE *back = fopen(path, "r");
  MUST(back != NULL);
  while (fgets(line, sizeof line, back)) printf("file: %s", line);
  fclose(back);
  unlink(path);
  errno = 0;
  SHOW("freopen_missing", freopen("/nonexistent-dir/x", "r", fdopen(dup(2), "w")) == NULL ? -1 : 0);
  return 0;
}
