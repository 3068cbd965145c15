/* Named semaphores: sem_open, sem_close, sem_unlink, as glibc 2.36 gives
 * them, without /dev/shm.
 *
 * glibc keeps a named semaphore in a file /dev/shm/sem.NAME that each
 * process maps.  Here it is a record in the world's shared arena (world.h:
 * the region a run maps at its start, shared with the processes it forks,
 * and a scenario's): each host has its list of names, so the processes of
 * one node (or of one run) share a name and another node's do not, and the
 * semaphore itself is the record's sem_t, marked process-shared (a post
 * posts the world, so a waiter in another process wakes).  Nothing is
 * created on the real machine: nothing is left in /dev/shm when the run
 * ends.  Each process has its own table of the semaphores it opened, with
 * a count of opens (glibc's mapping table: a second sem_open of a name
 * gives the same address; sem_close counts down; a fork copies it).  A
 * name spelled with other leading slashes gives the same address too
 * (glibc maps the file again, at another address).
 *
 * As glibc: leading slashes of a name are skipped; an empty name, one of
 * NAME_MAX - 1 bytes or more, or one with another slash is EINVAL; one
 * that glibc's "sem." prefix makes longer than NAME_MAX ENAMETOOLONG; without O_CREAT a missing name is ENOENT;
 * O_CREAT|O_EXCL on an existing one EEXIST; a value above SEM_VALUE_MAX
 * EINVAL (only when it creates); an O_CREAT open of an existing one takes
 * it as it is.  sem_close of a semaphore this process did not open is
 * EINVAL; sem_unlink of a bad or missing name ENOENT, and the name goes
 * while processes that have it open keep using it.  The mode is kept but
 * nothing checks it (the simulated processes run as one user).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdarg.h>
#include <string.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "limits.h"
#include "sched/sched.h"
#include "sync/sync.h"
#include "world/world.h"

/* glibc's file name prefix: a name and it fit in NAME_MAX. */
#define SEM_PREFIX_LEN 4 /* "sem." */

struct named_sem {
  sem_t sem; /* first: sem_open's result */
  struct named_sem *next;
  bool unlinked;
  mode_t mode;
  char name[NAME_MAX + 1];
};

/* The host's list: in the region when there is one, else this process's. */
static struct named_sem *local_list;
static struct named_sem **list_head(void) {
  return detsim__ws != NULL ? (struct named_sem **)&detsim__ws->named_sems[detsim__host_index] : &local_list;
}

/* This process's opens (copied by a fork, as glibc's table). */
static struct {
  struct named_sem *sem;
  unsigned opens;
} opened[DETSIM_NAMED_SEMS_OPEN_MAX];

static int name_check(const char *name, const char **out) {
  while (*name == '/') name++;
  size_t len = strlen(name);
  /* glibc 2.36's __shm_get_name: a name of NAME_MAX - 1 or more is EINVAL;
   * a shorter one that its "sem." prefix makes too long for the kernel
   * ENAMETOOLONG. */
  if (len == 0 || len + 1 >= NAME_MAX || strchr(name, '/') != NULL) return EINVAL;
  if (len + SEM_PREFIX_LEN > NAME_MAX) return ENAMETOOLONG;
  *out = name;
  return 0;
}

static struct named_sem *find(const char *name) {
  for (struct named_sem *s = *list_head(); s != NULL; s = s->next)
    if (!s->unlinked && strcmp(s->name, name) == 0) return s;
  return NULL;
}

static sem_t *fail_sem(int err) {
  errno = err;
  return SEM_FAILED;
}

/* Counts an open of s in this process: its address, or SEM_FAILED. */
static sem_t *open_ref(struct named_sem *s) {
  int free_slot = -1;
  for (int i = 0; i < DETSIM_NAMED_SEMS_OPEN_MAX; i++) {
    if (opened[i].sem == s) {
      opened[i].opens++;
      return &s->sem;
    }
    if (opened[i].sem == NULL && free_slot < 0) free_slot = i;
  }
  if (free_slot < 0) {
    detsim__msg("sem_open: this process has %d named semaphores open (limit named_sems_open_max)",
                DETSIM_NAMED_SEMS_OPEN_MAX);
    return fail_sem(EMFILE);
  }
  opened[free_slot].sem = s;
  opened[free_slot].opens = 1;
  return &s->sem;
}

DETSIM_EXPORT sem_t *__detsim_sem_open(const char *name, int oflag, ...) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_sem_open, NULL);
  const char *n;
  int bad = name_check(name, &n);
  if (bad) return fail_sem(bad);
  struct named_sem *s = find(n);
  if (s != NULL) {
    if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) return fail_sem(EEXIST);
    return open_ref(s);
  }
  if ((oflag & O_CREAT) == 0) return fail_sem(ENOENT);
  va_list ap;
  va_start(ap, oflag);
  mode_t mode = va_arg(ap, mode_t);
  unsigned value = va_arg(ap, unsigned);
  va_end(ap);
  if (value > DETSIM_SEM_VALUE_MAX) return fail_sem(EINVAL);
  s = detsim__net_calloc(1, sizeof *s);
  if (s == NULL) return fail_sem(ENOMEM);
  /* A process-shared semaphore (sync.h's layout); calloc zeroed the rest. */
  SYNC_STORE(detsim__sync_word(&s->sem, DETSIM_SEM_VALUE), value);
  SYNC_STORE(detsim__sync_word(&s->sem, DETSIM_SEM_SHARED), 1);
  s->mode = mode;
  memcpy(s->name, n, strlen(n) + 1);
  sem_t *r = open_ref(s);
  if (r == SEM_FAILED) {
    detsim__net_free(s);
    return r;
  }
  s->next = *list_head();
  *list_head() = s;
  return r;
}
DETSIM_INTERCEPT_ALIAS(sem_open)

DETSIM_EXPORT int __detsim_sem_close(sem_t *sem) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_sem_open, sem);
  for (int i = 0; i < DETSIM_NAMED_SEMS_OPEN_MAX; i++) {
    if (opened[i].sem == NULL || &opened[i].sem->sem != sem) continue;
    /* Its record stays in the arena: other processes may hold it, and a
     * record is small (an unlinked one is never found again). */
    if (--opened[i].opens == 0) opened[i].sem = NULL;
    return 0;
  }
  errno = EINVAL;
  return -1;
}
DETSIM_INTERCEPT_ALIAS(sem_close)

DETSIM_EXPORT int __detsim_sem_unlink(const char *name) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_sem_open, NULL);
  const char *n = name;
  int bad = name_check(name, &n);
  /* A name glibc still makes a path of, which the kernel refuses. */
  if (bad == ENAMETOOLONG) {
    errno = ENAMETOOLONG;
    return -1;
  }
  struct named_sem *s = bad ? NULL : find(n);
  if (s == NULL) {
    errno = ENOENT;
    return -1;
  }
  s->unlinked = true;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sem_unlink)
