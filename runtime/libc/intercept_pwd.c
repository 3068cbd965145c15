/* Interceptors: users and groups, read from /etc/passwd and /etc/group.
 *
 * glibc's lookups go through NSS, which first asks nscd over a unix socket
 * (and, with the systemd module, userdb over another): a real socket, opened
 * inside libc where no interposition sees it, in a run that promises none.
 * These replace the lookups whole with the files module's own parsers
 * (fgetpwent_r, fgetgrent_r), which only read the files.  Users and groups
 * that only another NSS module knows (LDAP, systemd's dynamic users) are not
 * found: docs/functions.md says so.
 *
 * The non-reentrant forms return static storage, as glibc's do; an entry
 * longer than DETSIM_NSS_ENTRY_BYTES_MAX fails with ERANGE.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limits.h"
#include "intercept/intercept.h"

#define PASSWD_FILE "/etc/passwd"
#define GROUP_FILE "/etc/group"

/* 0 and *result NULL when no entry matches (as getpwnam_r), else an errno. */
static int pw_find(const char *name, uid_t uid, struct passwd *pw, char *buf, size_t len, struct passwd **result) {
  *result = NULL;
  FILE *f = fopen(PASSWD_FILE, "re");
  if (f == NULL) return errno == ENOENT ? 0 : errno;
  int err = 0;
  for (;;) {
    struct passwd *p;
    int r = fgetpwent_r(f, pw, buf, len, &p);
    if (r == ENOENT) break;
    if (r != 0) {
      err = r;
      break;
    }
    if (name != NULL ? strcmp(p->pw_name, name) == 0 : p->pw_uid == uid) {
      *result = p;
      break;
    }
  }
  fclose(f);
  return err;
}

static int gr_find(const char *name, gid_t gid, struct group *gr, char *buf, size_t len, struct group **result) {
  *result = NULL;
  FILE *f = fopen(GROUP_FILE, "re");
  if (f == NULL) return errno == ENOENT ? 0 : errno;
  int err = 0;
  for (;;) {
    struct group *g;
    int r = fgetgrent_r(f, gr, buf, len, &g);
    if (r == ENOENT) break;
    if (r != 0) {
      err = r;
      break;
    }
    if (name != NULL ? strcmp(g->gr_name, name) == 0 : g->gr_gid == gid) {
      *result = g;
      break;
    }
  }
  fclose(f);
  return err;
}

DETSIM_EXPORT int __detsim_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len, struct passwd **result) {
  if (name == NULL) {
    *result = NULL;
    return 0;
  }
  return pw_find(name, 0, pw, buf, len, result);
}
DETSIM_INTERCEPT_ALIAS(getpwnam_r)

DETSIM_EXPORT int __detsim_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len, struct passwd **result) {
  return pw_find(NULL, uid, pw, buf, len, result);
}
DETSIM_INTERCEPT_ALIAS(getpwuid_r)

DETSIM_EXPORT int __detsim_getgrnam_r(const char *name, struct group *gr, char *buf, size_t len, struct group **result) {
  if (name == NULL) {
    *result = NULL;
    return 0;
  }
  return gr_find(name, 0, gr, buf, len, result);
}
DETSIM_INTERCEPT_ALIAS(getgrnam_r)

DETSIM_EXPORT int __detsim_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len, struct group **result) {
  return gr_find(NULL, gid, gr, buf, len, result);
}
DETSIM_INTERCEPT_ALIAS(getgrgid_r)

/* ---- the non-reentrant forms: one static entry each, as glibc's ---- */

static struct passwd pw_static;
static char pw_buf[DETSIM_NSS_ENTRY_BYTES_MAX];
static struct group gr_static;
static char gr_buf[DETSIM_NSS_ENTRY_BYTES_MAX];

static struct passwd *pw_result(int err, struct passwd *p) {
  if (err != 0) errno = err;
  return p;
}

static struct group *gr_result(int err, struct group *g) {
  if (err != 0) errno = err;
  return g;
}

DETSIM_EXPORT struct passwd *__detsim_getpwnam(const char *name) {
  struct passwd *p = NULL;
  int err = name != NULL ? pw_find(name, 0, &pw_static, pw_buf, sizeof pw_buf, &p) : 0;
  return pw_result(err, p);
}
DETSIM_INTERCEPT_ALIAS(getpwnam)

DETSIM_EXPORT struct passwd *__detsim_getpwuid(uid_t uid) {
  struct passwd *p = NULL;
  int err = pw_find(NULL, uid, &pw_static, pw_buf, sizeof pw_buf, &p);
  return pw_result(err, p);
}
DETSIM_INTERCEPT_ALIAS(getpwuid)

DETSIM_EXPORT struct group *__detsim_getgrnam(const char *name) {
  struct group *g = NULL;
  int err = name != NULL ? gr_find(name, 0, &gr_static, gr_buf, sizeof gr_buf, &g) : 0;
  return gr_result(err, g);
}
DETSIM_INTERCEPT_ALIAS(getgrnam)

DETSIM_EXPORT struct group *__detsim_getgrgid(gid_t gid) {
  struct group *g = NULL;
  int err = gr_find(NULL, gid, &gr_static, gr_buf, sizeof gr_buf, &g);
  return gr_result(err, g);
}
DETSIM_INTERCEPT_ALIAS(getgrgid)

/* ---- enumeration: one open file each, as NSS keeps one ---- */

static FILE *pw_enum, *gr_enum;

DETSIM_EXPORT void __detsim_setpwent(void) {
  if (pw_enum != NULL) rewind(pw_enum);
}
DETSIM_INTERCEPT_ALIAS(setpwent)

DETSIM_EXPORT void __detsim_endpwent(void) {
  if (pw_enum != NULL) fclose(pw_enum);
  pw_enum = NULL;
}
DETSIM_INTERCEPT_ALIAS(endpwent)

DETSIM_EXPORT struct passwd *__detsim_getpwent(void) {
  if (pw_enum == NULL && (pw_enum = fopen(PASSWD_FILE, "re")) == NULL) return NULL;
  struct passwd *p = NULL;
  int r = fgetpwent_r(pw_enum, &pw_static, pw_buf, sizeof pw_buf, &p);
  return pw_result(r == ENOENT ? 0 : r, r == 0 ? p : NULL);
}
DETSIM_INTERCEPT_ALIAS(getpwent)

DETSIM_EXPORT void __detsim_setgrent(void) {
  if (gr_enum != NULL) rewind(gr_enum);
}
DETSIM_INTERCEPT_ALIAS(setgrent)

DETSIM_EXPORT void __detsim_endgrent(void) {
  if (gr_enum != NULL) fclose(gr_enum);
  gr_enum = NULL;
}
DETSIM_INTERCEPT_ALIAS(endgrent)

DETSIM_EXPORT struct group *__detsim_getgrent(void) {
  if (gr_enum == NULL && (gr_enum = fopen(GROUP_FILE, "re")) == NULL) return NULL;
  struct group *g = NULL;
  int r = fgetgrent_r(gr_enum, &gr_static, gr_buf, sizeof gr_buf, &g);
  return gr_result(r == ENOENT ? 0 : r, r == 0 ? g : NULL);
}
DETSIM_INTERCEPT_ALIAS(getgrent)

/* ---- a user's groups ---- */

/* getgrouplist(3): `group` first, then every group of /etc/group listing
 * `user`, each once; -1 with *ngroups the count when they do not fit. */
DETSIM_EXPORT int __detsim_getgrouplist(const char *user, gid_t group, gid_t *groups, int *ngroups) {
  int max = *ngroups, n = 0;
  if (n < max) groups[n] = group;
  n++;
  FILE *f = fopen(GROUP_FILE, "re");
  if (f != NULL) {
    struct group gr, *g;
    static char buf[DETSIM_NSS_ENTRY_BYTES_MAX];
    while (fgetgrent_r(f, &gr, buf, sizeof buf, &g) == 0) {
      if (g->gr_gid == group) continue;
      bool member = false;
      for (char **m = g->gr_mem; m != NULL && *m != NULL && !member; m++) member = strcmp(*m, user) == 0;
      if (!member) continue;
      bool seen = false;
      for (int i = 0; i < n && i < max && !seen; i++) seen = groups[i] == g->gr_gid;
      if (seen) continue;
      if (n < max) groups[n] = g->gr_gid;
      n++;
    }
    fclose(f);
  }
  *ngroups = n;
  return n <= max ? n : -1;
}
DETSIM_INTERCEPT_ALIAS(getgrouplist)

DETSIM_EXPORT int __detsim_initgroups(const char *user, gid_t group) {
  static gid_t list[DETSIM_NSS_GROUPS_MAX];
  int n = DETSIM_NSS_GROUPS_MAX;
  if (__detsim_getgrouplist(user, group, list, &n) < 0) n = DETSIM_NSS_GROUPS_MAX; /* as glibc: the first ones */
  return setgroups((size_t)n, list);
}
DETSIM_INTERCEPT_ALIAS(initgroups)
