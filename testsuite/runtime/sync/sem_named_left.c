/* A named semaphore the program never unlinks: natively it would stay in
 * /dev/shm after the process ends; simulated it lives in the run's shared
 * memory and nothing is left (the test checks /dev/shm afterwards).  A
 * forked child waits on it until the parent posts. */
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  sem_t *s = sem_open("/detsim-left-behind-check", O_CREAT, 0600, 0);
  if (s == SEM_FAILED) {
    perror("sem_open");
    return 1;
  }
  pid_t pid = fork();
  if (pid == 0) _exit(sem_wait(s) == 0 ? 0 : 1);
  usleep(1000);
  sem_post(s);
  int st = 0;
  waitpid(pid, &st, 0);
  printf("child_woke=%d\n", WIFEXITED(st) && WEXITSTATUS(st) == 0);
  return 0;
}
