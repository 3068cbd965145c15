/* files_common: what the file API conformance programs share.
 *
 * Each program makes a fresh directory "files-XXXXXX" in its working
 * directory (so once a simulated disk serves the working directory, the
 * program runs on it), works only under it, and removes it at the end.
 * Everything printed is deterministic: results and errno names, sizes and
 * contents, never inode numbers, times or the directory's random name.
 */
#ifndef FILES_COMMON_H
#define FILES_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char files_dir[64];

/* A path under the program's directory, in one of a few rotating buffers
 * (so a call can take two). */
static __attribute__((unused)) const char *at(const char *name) {
  static char bufs[4][256];
  static unsigned next;
  char *b = bufs[next++ % 4];
  snprintf(b, sizeof bufs[0], "%s/%s", files_dir, name);
  return b;
}

/* Prints "label = N" for a result >= 0, "label = -1 ENAME" for a failure.
 * The call is made before this runs, so errno is the call's. */
static __attribute__((unused)) void show(const char *label, long rc) {
  if (rc < 0) printf("%s = -1 %s\n", label, strerrorname_np(errno));
  else printf("%s = %ld\n", label, rc);
}

/* Prints ok/fail for a result that must hold, with errno when it failed. */
static __attribute__((unused)) void expect(const char *label, int ok) {
  if (ok) printf("%s: ok\n", label);
  else printf("%s: FAILED (errno %s)\n", label, strerrorname_np(errno));
}

static __attribute__((unused)) void files_setup(void) {
  strcpy(files_dir, "files-XXXXXX");
  if (!mkdtemp(files_dir)) {
    perror("mkdtemp");
    exit(1);
  }
}

/* Removes path and everything under it (no symlink is followed). */
static __attribute__((unused)) void files_rmtree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        files_rmtree(sub);
      }
      closedir(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

static __attribute__((unused)) void files_teardown(void) {
  files_rmtree(files_dir);
  struct stat st;
  printf("cleaned up: %s\n", lstat(files_dir, &st) != 0 && errno == ENOENT ? "yes" : "no");
}

/* The whole content of path (at most cap-1 bytes), NUL-terminated; "" when
 * it cannot be read. */
static __attribute__((unused)) const char *slurp(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY);
  size_t n = 0;
  if (fd >= 0) {
    ssize_t k;
    while (n + 1 < cap && (k = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)k;
    close(fd);
  }
  buf[n] = '\0';
  return buf;
}

static __attribute__((unused)) long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

#endif
