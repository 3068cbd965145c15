/* A node with a forked child: a named semaphore of the node's (another
 * node creating the same name with O_EXCL gets its own, not EEXIST), on
 * which the child waits until the node posts, and a process-shared robust
 * mutex the child dies holding, which the node then gets with EOWNERDEAD.
 * Exits 0 when all of that held, else a code naming the step. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  sem_t *s = sem_open("/world-sync-node", O_CREAT | O_EXCL, 0600, 0);
  if (s == SEM_FAILED) return 2; /* another node's name is not this one's */
  pthread_mutex_t *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return 3;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  if (pthread_mutex_init(m, &a) != 0) return 4;
  pid_t pid = fork();
  if (pid < 0) return 5;
  if (pid == 0) {
    sem_t *c = sem_open("/world-sync-node", 0);
    if (c == SEM_FAILED || sem_wait(c) != 0) _exit(6);
    if (pthread_mutex_lock(m) != 0) _exit(7);
    _exit(0); /* holding it */
  }
  usleep(2000);
  if (sem_post(s) != 0) return 8;
  int st = 0;
  if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 9;
  if (pthread_mutex_lock(m) != EOWNERDEAD) return 10;
  if (pthread_mutex_consistent(m) != 0 || pthread_mutex_unlock(m) != 0) return 11;
  if (sem_unlink("/world-sync-node") != 0) return 12;
  printf("sync node done\n");
  return 0;
}
