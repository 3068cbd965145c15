/* Bytes nobody wrote, sent over a simulated socket, keep their shadow: the
 * runtime copies them through its buffers with memcpy, which MSan's
 * interceptor copies with their shadow, so the reader's branch on them is
 * reported (line 24).  Natively MSan's write interceptor would report the
 * write itself; the runtime checks no inputs (docs/sanitizers.md). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  int *msg = malloc(2 * sizeof *msg);
  if (msg == NULL) return 1;
  msg[0] = 1; /* msg[1] is never written: the bug */
  if (write(sv[0], msg, 2 * sizeof *msg) != 2 * sizeof *msg) return 2;
  free(msg);
  int got[2];
  if (read(sv[1], got, sizeof got) != sizeof got) return 3;
  printf("first %d\n", got[0]);
  fflush(stdout);
  /* MSan reports this branch: got[1] is the msg[1] nobody wrote. */
  if (got[1] == 7) printf("seven\n");
  printf("done\n");
  return 0;
}
