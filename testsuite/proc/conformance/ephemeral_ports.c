/* Ephemeral ports and unix autobind names are the host's, drawn by every
 * process of it from one allocation (Linux's per network namespace): a
 * parent and its three children each connect ten times to the parent's
 * listener (closing each connection at once) and autobind unix sockets
 * (kept open); the listener sees no local port twice, and no two
 * autobound names are the same.  With an argument `print` (simulation
 * only) it prints the ports and names, which a seed replays. */
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILDREN 3
#define CONNECTS 10
#define AUTOBINDS 4
#define NAME_LEN 5

static struct sockaddr_in server;

static void connect_many(void) {
  for (int i = 0; i < CONNECTS; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&server, sizeof server) != 0) _exit(3);
    close(fd);
  }
}

/* Autobinds AUTOBINDS unix datagram sockets, kept open; their names go to
 * `out`, NAME_LEN bytes each.  Returns how many binds succeeded. */
static int autobind_many(int out) {
  int ok = 0;
  for (int i = 0; i < AUTOBINDS; i++) {
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(sa_family_t)) != 0) continue;
    memset(&a, 0, sizeof a);
    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0) continue;
    if (write(out, a.sun_path + 1, NAME_LEN) != NAME_LEN) _exit(4);
    ok++;
  }
  return ok;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(int argc, char **argv) {
  int print = argc == 2 && strcmp(argv[1], "print") == 0;
  int l = socket(AF_INET, SOCK_STREAM, 0);
  server.sin_family = AF_INET;
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof server;
  if (bind(l, (struct sockaddr *)&server, sizeof server) || listen(l, 64) ||
      getsockname(l, (struct sockaddr *)&server, &len))
    return 1;
  int names[2];
  if (pipe(names)) return 1;
  int bound = autobind_many(names[1]);
  fflush(stdout);
  pid_t kids[CHILDREN];
  for (int k = 0; k < CHILDREN; k++) {
    kids[k] = fork();
    if (kids[k] == 0) {
      int n = autobind_many(names[1]);
      connect_many();
      _exit(n == AUTOBINDS ? 0 : 5);
    }
  }
  bound += autobind_many(names[1]);
  connect_many();
  enum { TOTAL = (CHILDREN + 1) * CONNECTS };
  int ports[TOTAL];
  for (int i = 0; i < TOTAL; i++) {
    struct sockaddr_in peer;
    socklen_t plen = sizeof peer;
    int c = accept(l, (struct sockaddr *)&peer, &plen);
    if (c < 0) return 2;
    ports[i] = ntohs(peer.sin_port);
    close(c);
  }
  int children_ok = 0;
  for (int k = 0; k < CHILDREN; k++) {
    int st;
    if (waitpid(kids[k], &st, 0) == kids[k] && WIFEXITED(st) && WEXITSTATUS(st) == 0) children_ok++;
  }
  close(names[1]);
  enum { NAMES = (CHILDREN + 2) * AUTOBINDS };
  char all[NAMES][NAME_LEN + 1];
  int n_names = 0;
  while (n_names < NAMES && read(names[0], all[n_names], NAME_LEN) == NAME_LEN) all[n_names++][NAME_LEN] = '\0';
  int names_distinct = 1;
  for (int i = 0; i < n_names; i++)
    for (int j = i + 1; j < n_names; j++)
      if (strcmp(all[i], all[j]) == 0) names_distinct = 0;
  if (print) {
    /* In accept order: the schedule's, the same for a seed. */
    for (int i = 0; i < TOTAL; i++) printf("port %d\n", ports[i]);
    for (int i = 0; i < n_names; i++) printf("name %s\n", all[i]);
  }
  qsort(ports, TOTAL, sizeof ports[0], cmp_int);
  int ports_distinct = 1;
  for (int i = 1; i < TOTAL; i++)
    if (ports[i] == ports[i - 1]) ports_distinct = 0;
  printf("connections=%d ports_distinct=%d\n", TOTAL, ports_distinct);
  printf("parent autobinds=%d children_ok=%d names=%d names_distinct=%d\n", bound, children_ok, n_names, names_distinct);
  return 0;
}
