/* Blocking happens in the simulation: an accept that no client will ever
 * satisfy, with no timer pending, is a deadlock the run reports. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  int l = socket(AF_INET, SOCK_STREAM, 0);
  bind(l, (struct sockaddr *)&a, sizeof a);
  listen(l, 1);
  printf("accepting\n");
  fflush(stdout);
  accept(l, NULL, NULL);
  return 0;
}
