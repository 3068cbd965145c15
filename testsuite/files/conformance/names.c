/* Names: rename (replacing a target atomically), renameat2 with
 * RENAME_NOREPLACE, link and unlink (link counts), mkdir and rmdir,
 * symlinks seen by stat, lstat, fstat and readlink, opendir/readdir (names
 * sorted before printing: the order is the filesystem's), fchmod, and
 * getcwd inside the directory. */
#include <stdio.h>
#include <sys/types.h>

#include "files_common.h"

static void put(const char *name, const char *content) {
  int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, content, strlen(content)) != (ssize_t)strlen(content)) printf("put %s failed\n", name);
  close(fd);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list(const char *dir) {
  DIR *d = opendir(at(dir));
  if (!d) {
    printf("opendir %s: %s\n", dir, strerrorname_np(errno));
    return;
  }
  char *names[64];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 64) names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], by_name);
  printf("%s:", dir);
  for (int i = 0; i < n; i++) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf("\n");
}

int main(void) {
  files_setup();
  char buf[256];
  struct stat st;
  put("a", "first");
  put("b", "second");
  show("rename a -> c", rename(at("a"), at("c")));
  show("stat a after the rename", stat(at("a"), &st));
  printf("c: %s\n", slurp(at("c"), buf, sizeof buf));
  show("rename c over b", rename(at("c"), at("b")));
  printf("b: %s\n", slurp(at("b"), buf, sizeof buf));
  put("d", "third");
  show("renameat2 NOREPLACE d -> b (exists)", renameat2(AT_FDCWD, at("d"), AT_FDCWD, at("b"), RENAME_NOREPLACE));
  show("renameat2 NOREPLACE d -> e", renameat2(AT_FDCWD, at("d"), AT_FDCWD, at("e"), RENAME_NOREPLACE));
  printf("b: %s e: %s\n", slurp(at("b"), buf, sizeof buf), slurp(at("e"), buf + 128, 128));
  show("rename of a missing name", rename(at("nope"), at("x")));

  show("link b -> b2", link(at("b"), at("b2")));
  stat(at("b"), &st);
  printf("b links: %ld\n", (long)st.st_nlink);
  show("link onto an existing name", link(at("b"), at("e")));
  show("unlink b", unlink(at("b")));
  stat(at("b2"), &st);
  printf("b2 links: %ld content: %s\n", (long)st.st_nlink, slurp(at("b2"), buf, sizeof buf));

  show("mkdir d1", mkdir(at("d1"), 0755));
  show("mkdir d1 again", mkdir(at("d1"), 0755));
  put("d1/inside", "x");
  show("rmdir d1 (not empty)", rmdir(at("d1")));
  show("unlink d1/inside", unlink(at("d1/inside")));
  show("rmdir d1", rmdir(at("d1")));
  show("rmdir d1 again", rmdir(at("d1")));
  show("mkdir d2", mkdir(at("d2"), 0700));
  show("mkdir d2/sub", mkdir(at("d2/sub"), 0700));
  show("rename a directory d2 -> d3", rename(at("d2"), at("d3")));
  stat(at("d3"), &st);
  printf("d3 is a directory: %d mode %o\n", S_ISDIR(st.st_mode), (unsigned)(st.st_mode & 0777));

  show("symlink e2 -> e", symlink("e", at("e2")));
  show("symlink dangling -> nowhere", symlink("nowhere", at("dangling")));
  show("lstat e2", lstat(at("e2"), &st));
  printf("lstat e2: link=%d size=%ld\n", S_ISLNK(st.st_mode), (long)st.st_size);
  show("stat e2", stat(at("e2"), &st));
  printf("stat e2: regular=%d size=%ld\n", S_ISREG(st.st_mode), (long)st.st_size);
  int fd = open(at("e2"), O_RDONLY);
  fstat(fd, &st);
  printf("fstat via e2: regular=%d size=%ld\n", S_ISREG(st.st_mode), (long)st.st_size);
  close(fd);
  ssize_t n = readlink(at("e2"), buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = '\0';
  printf("readlink e2: %zd %s\n", n, buf);
  show("readlink of a regular file", readlink(at("e"), buf, sizeof buf));
  show("stat dangling", stat(at("dangling"), &st));
  show("lstat dangling", lstat(at("dangling"), &st));
  show("open O_NOFOLLOW of a symlink", open(at("e2"), O_RDONLY | O_NOFOLLOW));

  fd = open(at("e"), O_RDWR);
  show("fchmod e 0600", fchmod(fd, 0600));
  fstat(fd, &st);
  printf("mode of e: %o\n", (unsigned)(st.st_mode & 0777));
  show("chmod e 0640", chmod(at("e"), 0640));
  stat(at("e"), &st);
  printf("mode of e: %o\n", (unsigned)(st.st_mode & 0777));
  close(fd);

  list(".");
  list("d3");

  char before[4096], inside[4096];
  if (!getcwd(before, sizeof before)) printf("getcwd failed\n");
  show("chdir into the directory", chdir(files_dir));
  if (!getcwd(inside, sizeof inside)) printf("getcwd failed\n");
  size_t bl = strlen(before);
  printf("getcwd inside is before + /name: %d\n",
         strncmp(inside, before, bl) == 0 && inside[bl] == '/' && strcmp(inside + bl + 1, files_dir) == 0);
  show("stat e by a relative name", stat("e", &st));
  show("getcwd into a 1-byte buffer", getcwd(inside, 1) ? 0 : -1);
  show("chdir back", chdir(".."));
  files_teardown();
  return 0;
}
