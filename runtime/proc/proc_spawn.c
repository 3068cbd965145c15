/* posix_spawn, system and popen as fork + exec in the simulation
 * (docs/processes.md).
 *
 * Rules of this file:
 *  - Each is the runtime's fork (proc.h) and exec (proc/proc.h), so the
 *    child is a process of the world and the binary follows exec's rules:
 *    a simulation build goes on in the child's slot; any other one is an
 *    escape (refused, or run outside with exec_native=1).  The binary is
 *    checked before the fork, so a refused spawn makes no process.
 *  - posix_spawn's file actions are opaque in glibc: the runtime records
 *    them as the program adds them (the add functions are intercepted and
 *    still call libc's), and refuses an object holding one it did not see.
 *  - system and popen run a command line without a shell when it is plain
 *    words (no shell syntax at all) whose first names a simulation build:
 *    the shell would only have split the words and searched PATH.  Anything
 *    else needs /bin/sh, which is not a simulation build: an escape.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core.h"
#include "limits.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

extern char **environ;

static bool simulated(void) { return detsim__self() != NULL && !detsim__internal(); }

/* ---- recorded file actions ---- */

enum action_kind { ACT_OPEN, ACT_CLOSE, ACT_DUP2 };
struct action {
  enum action_kind kind;
  int fd, newfd, oflag;
  mode_t mode;
  char *path;
};
struct actions {
  const posix_spawn_file_actions_t *owner;
  unsigned n;
  struct action a[DETSIM_SPAWN_ACTIONS_MAX];
};
static struct actions *recorded[DETSIM_SPAWN_ACTION_OBJECTS_MAX];

static struct actions *find_actions(const posix_spawn_file_actions_t *fa) {
  for (unsigned i = 0; i < DETSIM_SPAWN_ACTION_OBJECTS_MAX; i++)
    if (recorded[i] && recorded[i]->owner == fa) return recorded[i];
  return NULL;
}

static void forget_actions(const posix_spawn_file_actions_t *fa) {
  for (unsigned i = 0; i < DETSIM_SPAWN_ACTION_OBJECTS_MAX; i++)
    if (recorded[i] && recorded[i]->owner == fa) {
      for (unsigned k = 0; k < recorded[i]->n; k++) free(recorded[i]->a[k].path);
      free(recorded[i]);
      recorded[i] = NULL;
    }
}

/* A new record for `fa` (a re-initialised object starts over); NULL at
 * the limit, reported once. */
static struct actions *new_actions(const posix_spawn_file_actions_t *fa) {
  forget_actions(fa);
  for (unsigned i = 0; i < DETSIM_SPAWN_ACTION_OBJECTS_MAX; i++)
    if (recorded[i] == NULL) {
      recorded[i] = calloc(1, sizeof *recorded[i]);
      if (recorded[i] == NULL) return NULL;
      recorded[i]->owner = fa;
      return recorded[i];
    }
  detsim__msg("limit spawn_action_objects_max=%d reached: posix_spawn_file_actions_init fails with ENOMEM (file "
              "action objects alive at once)", DETSIM_SPAWN_ACTION_OBJECTS_MAX);
  return NULL;
}

static int add_action(const posix_spawn_file_actions_t *fa, struct action a) {
  struct actions *r = find_actions(fa);
  if (r == NULL) return 0; /* not made by the simulation's init: refused at spawn */
  if (r->n >= DETSIM_SPAWN_ACTIONS_MAX) {
    detsim__msg("limit spawn_actions_max=%d reached: the file action is refused with ENOMEM", DETSIM_SPAWN_ACTIONS_MAX);
    free(a.path);
    return ENOMEM;
  }
  r->a[r->n++] = a;
  return 0;
}

DETSIM_EXPORT int __detsim_posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa) {
  int r = REAL(posix_spawn_file_actions_init)(fa);
  if (r == 0 && new_actions(fa) == NULL) {
    REAL(posix_spawn_file_actions_destroy)(fa);
    return ENOMEM;
  }
  return r;
}
DETSIM_INTERCEPT_ALIAS(posix_spawn_file_actions_init)

DETSIM_EXPORT int __detsim_posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa) {
  forget_actions(fa);
  return REAL(posix_spawn_file_actions_destroy)(fa);
}
DETSIM_INTERCEPT_ALIAS(posix_spawn_file_actions_destroy)

DETSIM_EXPORT int __detsim_posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd, const char *path,
                                                            int oflag, mode_t mode) {
  int r = REAL(posix_spawn_file_actions_addopen)(fa, fd, path, oflag, mode);
  if (r != 0) return r;
  char *copy = strdup(path);
  if (copy == NULL) return ENOMEM;
  return add_action(fa, (struct action){ ACT_OPEN, fd, -1, oflag, mode, copy });
}
DETSIM_INTERCEPT_ALIAS(posix_spawn_file_actions_addopen)

DETSIM_EXPORT int __detsim_posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa, int fd) {
  int r = REAL(posix_spawn_file_actions_addclose)(fa, fd);
  if (r != 0) return r;
  return add_action(fa, (struct action){ ACT_CLOSE, fd, -1, 0, 0, NULL });
}
DETSIM_INTERCEPT_ALIAS(posix_spawn_file_actions_addclose)

DETSIM_EXPORT int __detsim_posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd, int newfd) {
  int r = REAL(posix_spawn_file_actions_adddup2)(fa, fd, newfd);
  if (r != 0) return r;
  return add_action(fa, (struct action){ ACT_DUP2, fd, newfd, 0, 0, NULL });
}
DETSIM_INTERCEPT_ALIAS(posix_spawn_file_actions_adddup2)

/* ---- spawning ---- */

/* Whether the binary can be run, as exec would decide: 0, or the error
 * posix_spawn returns (EPERM for a refused escape, reported). */
static int check_binary(const char *call, const char *file, bool search) {
  char path[DETSIM_PATH_BYTES_MAX];
  int e = detsim__proc_exec_resolve(file, search, path, sizeof path);
  if (e != 0) return e;
  bool sim = false;
  e = detsim__proc_elf_is_sim(path, -1, &sim);
  if (e != 0) return e;
  if (sim || detsim__opt.exec_native) return 0;
  detsim__proc_exec_refuse(call, path);
  return EPERM;
}

/* The child's side: the file actions in order, the attributes, the exec;
 * status 127 when any fails (as the shell reports a command not run). */
static _Noreturn void spawn_child(const char *call, const char *file, bool search, const struct actions *acts,
                                  const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  short flags = 0;
  if (attr) posix_spawnattr_getflags(attr, &flags);
  if (flags & POSIX_SPAWN_SETSIGDEF) {
    sigset_t def;
    posix_spawnattr_getsigdefault(attr, &def);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
      if (sig != SIGKILL && sig != SIGSTOP && sigismember(&def, sig) == 1) sigaction(sig, &dfl, NULL);
  }
  if (flags & POSIX_SPAWN_SETSIGMASK) {
    sigset_t mask;
    posix_spawnattr_getsigmask(attr, &mask);
    sigprocmask(SIG_SETMASK, &mask, NULL);
  }
  for (unsigned i = 0; acts && i < acts->n; i++) {
    const struct action *a = &acts->a[i];
    int ok = 0;
    switch (a->kind) {
    case ACT_CLOSE:
      close(a->fd);
      break;
    case ACT_DUP2:
      /* dup2 onto itself clears FD_CLOEXEC in a spawn (POSIX 2024). */
      if (a->fd == a->newfd) ok = fcntl(a->fd, F_SETFD, 0);
      else ok = dup2(a->fd, a->newfd) < 0 ? -1 : 0;
      break;
    case ACT_OPEN: {
      int fd = open(a->path, a->oflag, a->mode);
      if (fd < 0) ok = -1;
      else if (fd != a->fd) {
        ok = dup2(fd, a->fd) < 0 ? -1 : 0;
        close(fd);
      }
      break;
    }
    }
    if (ok != 0) {
      detsim__msg("error: %s: file action %u failed: %s; the child exits 127", call, i + 1, strerror(errno));
      _exit(127);
    }
  }
  detsim__proc_exec(call, file, search, -1, argv, envp ? envp : environ, 0);
  detsim__msg("error: %s(\"%s\"): exec failed in the child: %s; it exits 127", call, file, strerror(errno));
  _exit(127);
}

static int spawn(const char *call, pid_t *pid, const char *file, bool search, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[], uintptr_t pc) {
  const struct actions *acts = NULL;
  if (fa) {
    acts = find_actions(fa);
    /* glibc counts its actions: one the runtime did not record (addchdir,
     * addclosefrom, an object made before the runtime) cannot be applied. */
    if (acts == NULL || (unsigned)fa->__used != acts->n) {
      detsim__msg("error: %s: its file actions hold one the simulation does not apply (only addopen, addclose and "
                  "adddup2 are): the call fails with ENOSYS", call);
      return ENOSYS;
    }
  }
  short flags = 0;
  if (attr) posix_spawnattr_getflags(attr, &flags);
  short unsupported = flags & ~(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_USEVFORK |
                                 POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSID);
  if (unsupported) {
    detsim__msg("error: %s: attribute flags 0x%x are not simulated (RESETIDS, scheduling): the call fails with "
                "ENOSYS", call, (unsigned)unsupported);
    return ENOSYS;
  }
  /* What glibc's child would find when it sets the group (it reports the
   * error, and makes no process): decided before the fork. */
  if (flags & POSIX_SPAWN_SETPGROUP) {
    pid_t pgroup = 0;
    posix_spawnattr_getpgroup(attr, &pgroup);
    if (pgroup < 0) return EINVAL;
    /* The child's new session holds no group but its own; without one, the
     * group must be in the caller's session. */
    if (pgroup > 0 && ((flags & POSIX_SPAWN_SETSID) || !detsim__proc_group_exists(pgroup, detsim__proc_sid())))
      return EPERM;
  }
  int e = check_binary(call, file, search);
  if (e != 0) return e;
  pid_t c = detsim__proc_fork(pc);
  if (c < 0) return errno;
  if (c == 0) spawn_child(call, file, search, acts, attr, argv, envp);
  /* The child's session and group are set before posix_spawn returns, as
   * glibc's child sets them before its exec (which posix_spawn waits for):
   * by the parent, on the child's slot, before the child first runs. */
  if (flags & (POSIX_SPAWN_SETSID | POSIX_SPAWN_SETPGROUP)) {
    int slot = detsim__proc_node_of(c);
    CHECK_GE(slot, 0);
    pid_t pgroup = 0;
    if (flags & POSIX_SPAWN_SETPGROUP) posix_spawnattr_getpgroup(attr, &pgroup);
    if (flags & POSIX_SPAWN_SETSID) detsim__proc_set_group((unsigned)slot, c, c);
    else detsim__proc_set_group((unsigned)slot, pgroup ? pgroup : c, detsim__proc_sid());
  }
  if (pid) *pid = c;
  return 0;
}

DETSIM_EXPORT int __detsim_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!simulated() || !detsim__proc_can_fork()) return REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
  return spawn("posix_spawn", pid, path, false, fa, attr, argv, envp, PC());
}
DETSIM_INTERCEPT_ALIAS(posix_spawn)

DETSIM_EXPORT int __detsim_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!simulated() || !detsim__proc_can_fork()) return REAL(posix_spawnp)(pid, file, fa, attr, argv, envp);
  return spawn("posix_spawnp", pid, file, true, fa, attr, argv, envp, PC());
}
DETSIM_INTERCEPT_ALIAS(posix_spawnp)

/* ---- system and popen ---- */

/* A command line split into plain words, or false when it has any shell
 * syntax (quotes, expansions, redirections, operators, assignments...). */
static bool plain_words(const char *cmd, char *buf, size_t size, char **argv, unsigned max) {
  if (strlen(cmd) >= size || strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~={}%!\n") != NULL) return false;
  snprintf(buf, size, "%s", cmd);
  unsigned n = 0;
  for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    if (n + 1 >= max) return false;
    argv[n++] = w;
  }
  argv[n] = NULL;
  return n > 0;
}

/* How a command line runs: its argv (plain words naming a simulation
 * build, or /bin/sh -c with exec_native=1), or false after the escape's
 * error (the caller fails). */
struct command {
  char buf[DETSIM_PATH_BYTES_MAX];
  char *argv[DETSIM_COMMAND_WORDS_MAX + 1];
  bool search;
};

static bool command_of(const char *call, const char *cmd, struct command *c) {
  if (plain_words(cmd, c->buf, sizeof c->buf, c->argv, DETSIM_COMMAND_WORDS_MAX + 1)) {
    char path[DETSIM_PATH_BYTES_MAX];
    bool sim = false;
    if (detsim__proc_exec_resolve(c->argv[0], true, path, sizeof path) == 0 &&
        detsim__proc_elf_is_sim(path, -1, &sim) == 0 && sim) {
      c->search = true;
      return true;
    }
  }
  if (detsim__opt.exec_native) {
    c->argv[0] = "sh";
    c->argv[1] = "-c";
    c->argv[2] = (char *)cmd;
    c->argv[3] = NULL;
    snprintf(c->buf, sizeof c->buf, "/bin/sh");
    c->search = false;
    return true;
  }
  /* The message names the command and the shell it needs. */
  char what[DETSIM_PATH_BYTES_MAX + 32];
  snprintf(what, sizeof what, "%s(\"%.*s\") needs /bin/sh: exec", call, DETSIM_PATH_BYTES_MAX - 64, cmd);
  detsim__proc_exec_refuse(what, "/bin/sh");
  return false;
}

static const char *command_file(const struct command *c) { return c->search ? c->argv[0] : c->buf; }

DETSIM_EXPORT int __detsim_system(const char *cmd) {
  if (!simulated() || !detsim__proc_can_fork()) return REAL(system)(cmd);
  /* A shell is "available" (the query of system(3)); a command is run
   * directly or is an escape. */
  if (cmd == NULL) return 1;
  struct command c;
  if (!command_of("system", cmd, &c)) {
    errno = EPERM;
    return -1;
  }
  /* As POSIX asks of system(): while the caller waits, SIGINT and SIGQUIT
   * are ignored and SIGCHLD is blocked (so a SIGCHLD handler that reaps
   * cannot take the child from under the wait); the child starts with the
   * caller's own dispositions and mask. */
  struct sigaction ignore, old_int, old_quit;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  sigset_t chld, old_mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old_mask);
  int st = -1;
  pid_t pid = detsim__proc_fork(PC());
  if (pid == 0) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    detsim__proc_exec("system", command_file(&c), c.search, -1, c.argv, environ, 0);
    _exit(127);
  }
  if (pid > 0)
    while (waitpid(pid, &st, 0) < 0) {
      if (errno != EINTR) {
        st = -1;
        break;
      }
    }
  int saved = errno;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  sigprocmask(SIG_SETMASK, &old_mask, NULL);
  errno = saved;
  return st;
}
DETSIM_INTERCEPT_ALIAS(system)

/* The popen streams and their children. */
static struct {
  FILE *f;
  pid_t pid;
} popened[DETSIM_POPEN_MAX];

DETSIM_EXPORT FILE *__detsim_popen(const char *cmd, const char *mode) {
  if (!simulated() || !detsim__proc_can_fork()) return REAL(popen)(cmd, mode);
  bool reading = mode && mode[0] == 'r', writing = mode && mode[0] == 'w';
  bool cloexec = mode && strchr(mode, 'e') != NULL;
  if ((!reading && !writing) || (mode[1] && strcmp(mode + 1, "e") != 0)) {
    errno = EINVAL;
    return NULL;
  }
  unsigned slot = 0;
  while (slot < DETSIM_POPEN_MAX && popened[slot].f != NULL) slot++;
  if (slot == DETSIM_POPEN_MAX) {
    detsim__msg("limit popen_max=%d reached: popen fails with EMFILE (popen streams open at once)", DETSIM_POPEN_MAX);
    errno = EMFILE;
    return NULL;
  }
  struct command c;
  if (!command_of("popen", cmd, &c)) {
    errno = EPERM;
    return NULL;
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return NULL;
  int mine = reading ? p[0] : p[1], theirs = reading ? p[1] : p[0];
  pid_t pid = detsim__proc_fork(PC());
  if (pid < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    errno = e;
    return NULL;
  }
  if (pid == 0) {
    int target = reading ? 1 : 0;
    /* The child's end becomes its stdin or stdout (dup2 leaves the copy
     * without FD_CLOEXEC); the other streams' ends are not its own. */
    if (theirs == target) fcntl(theirs, F_SETFD, 0);
    else if (dup2(theirs, target) < 0) _exit(127);
    for (unsigned i = 0; i < DETSIM_POPEN_MAX; i++)
      if (popened[i].f) close(fileno(popened[i].f));
    detsim__proc_exec("popen", command_file(&c), c.search, -1, c.argv, environ, 0);
    _exit(127);
  }
  close(theirs);
  if (!cloexec) fcntl(mine, F_SETFD, 0);
  FILE *f = fdopen(mine, reading ? "r" : "w");
  if (f == NULL) {
    close(mine);
    return NULL;
  }
  popened[slot].f = f;
  popened[slot].pid = pid;
  return f;
}
DETSIM_INTERCEPT_ALIAS(popen)

DETSIM_EXPORT int __detsim_pclose(FILE *f) {
  for (unsigned i = 0; i < DETSIM_POPEN_MAX; i++) {
    if (popened[i].f != f || f == NULL) continue;
    pid_t pid = popened[i].pid;
    popened[i].f = NULL;
    fclose(f);
    int st;
    while (waitpid(pid, &st, 0) < 0)
      if (errno != EINTR) return -1;
    return st;
  }
  return REAL(pclose)(f);
}
DETSIM_INTERCEPT_ALIAS(pclose)
