/* A program whose output depends on the seed only: two threads append their
 * names in the order the scheduler lets them, and the order is printed on
 * stdout (printf), stderr (fprintf) and into a file (dprintf, pwrite).  One seed
 * prints the same every time; seeds differ. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char order[64];

static void *work(void *arg) {
  for (int i = 0; i < 4; i++) {
    pthread_mutex_lock(&m);
    strncat(order, (const char *)arg, sizeof order - strlen(order) - 1);
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t a, b;
  pthread_create(&a, NULL, work, "a");
  pthread_create(&b, NULL, work, "b");
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("order %s\n", order);
  fprintf(stderr, "order on stderr %s\n", order);
  if (argc > 1) {
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dprintf(fd, "order in a file %s\n", order);
      if (pwrite(fd, order, 2, 0) != 2) return 1; /* the file's first bytes: the order again */
      close(fd);
    }
  }
  return 0;
}
