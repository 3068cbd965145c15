/* Named semaphores as glibc gives them, natively and simulated: sem_open
 * with and without O_CREAT and O_EXCL, the same address for a second open
 * (leading slashes skipped), the value of a creating open only, the errors
 * (ENOENT, EEXIST, EINVAL, ENAMETOOLONG), a forked child that opens the
 * name and blocks on it until the parent posts (and the other way round),
 * sem_unlink (the name goes, the semaphore stays for who has it open) and
 * sem_close (counted opens; EINVAL for one never opened). */
#include "../../../net/conformance/conf.h"

#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <sys/wait.h>

static char name1[64], name2[64], name1_slashes[64];

static void show_sem(const char *label, sem_t *s) {
  if (s == SEM_FAILED) printf("%s=SEM_FAILED %s\n", label, ename(errno));
  else printf("%s=ok\n", label);
}

static void value(const char *label, sem_t *s) {
  int v = -1;
  MUST(sem_getvalue(s, &v) == 0);
  printf("%s=%d\n", label, v);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* Unique natively (runs in parallel share /dev/shm). */
  snprintf(name1, sizeof name1, "/detsim-conf-sem-%d-a", (int)getpid());
  snprintf(name2, sizeof name2, "/detsim-conf-sem-%d-b", (int)getpid());
  snprintf(name1_slashes, sizeof name1_slashes, "//%s", name1);

  show_sem("open_missing", sem_open(name1, 0));
  sem_t *s = sem_open(name1, O_CREAT | O_EXCL, 0600, 2);
  show_sem("create_excl", s);
  value("value", s);
  show_sem("create_excl_again", sem_open(name1, O_CREAT | O_EXCL, 0600, 0));
  sem_t *s2 = sem_open(name1, O_CREAT, 0600, 7);
  printf("create_existing_same=%d\n", s2 == s);
  value("value_kept", s);
  sem_t *s3 = sem_open(name1, 0);
  printf("open_same=%d\n", s3 == s);
  /* Another spelling: glibc maps it again (another address), the same
   * semaphore. */
  sem_t *s4 = sem_open(name1_slashes, 0);
  show_sem("open_slashes", s4);
  value("value_through_slashes", s4);

  show_sem("empty_name", sem_open("", O_CREAT, 0600, 0));
  show_sem("only_slashes", sem_open("///", O_CREAT, 0600, 0));
  show_sem("inner_slash", sem_open("/a/b", O_CREAT, 0600, 0));
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[0] = '/';
  longname[sizeof longname - 1] = '\0';
  show_sem("too_long", sem_open(longname, O_CREAT, 0600, 0));
  show_sem("value_too_big", sem_open(name2, O_CREAT, 0600, (unsigned)SEM_VALUE_MAX + 1u));

  SHOW("trywait", sem_trywait(s));
  SHOW("trywait", sem_trywait(s));
  SHOW("trywait_at_zero", sem_trywait(s));

  /* A child opens both names and blocks; each side posts the other. */
  sem_t *t = sem_open(name2, O_CREAT | O_EXCL, 0600, 0);
  show_sem("create_second", t);
  pid_t pid = fork();
  MUST(pid >= 0);
  if (pid == 0) {
    sem_t *c = sem_open(name1, 0);
    sem_t *ct = sem_open(name2, 0);
    if (c != s || ct != t) _exit(2); /* the parent's mappings, as glibc */
    if (sem_wait(c) != 0) _exit(3);  /* until the parent posts */
    if (sem_post(ct) != 0) _exit(4);
    sem_close(c);
    sem_close(ct);
    _exit(0);
  }
  settle(); /* the child blocks */
  SHOW("post_for_child", sem_post(s));
  SHOW("wait_for_child", sem_wait(t)); /* until the child posts */
  int st = 0;
  MUST(waitpid(pid, &st, 0) == pid);
  printf("child_exit=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);

  SHOW("unlink", sem_unlink(name1));
  show_sem("open_unlinked", sem_open(name1, 0));
  SHOW("unlink_again", sem_unlink(name1));
  SHOW("unlink_bad_name", sem_unlink(""));
  SHOW("unlink_too_long", sem_unlink(longname));
  SHOW("post_after_unlink", sem_post(s));
  value("value_after_unlink", s);
  sem_t *fresh = sem_open(name1, O_CREAT | O_EXCL, 0600, 5);
  printf("recreated_other=%d\n", fresh != SEM_FAILED && fresh != s);
  value("recreated_value", fresh);

  for (int i = 0; i < 3; i++) SHOW("close", sem_close(s));
  SHOW("close_slashes", sem_close(s4));
  SHOW("close_once_more", sem_close(s));
  sem_t unnamed;
  MUST(sem_init(&unnamed, 0, 0) == 0);
  SHOW("close_unnamed", sem_close(&unnamed));
  SHOW("close_fresh", sem_close(fresh));
  SHOW("close_second", sem_close(t));
  SHOW("unlink_fresh", sem_unlink(name1));
  SHOW("unlink_second", sem_unlink(name2));
  return 0;
}
