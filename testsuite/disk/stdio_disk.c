/* stdio onto the simulated disk, one program (DETSIM_OPTIONS=data_dir=):
 *
 *   disk_stdio tmpfile          tmpfile() when P_tmpdir is on the disk: a
 *                               stream of the disk's (its write sets the
 *                               file's mtime to the virtual clock: "fresh")
 *   disk_stdio freopen OUTSIDE  a stream glibc opened on OUTSIDE (off the
 *                               disk) reopened onto a file of the disk: the
 *                               run must end with a clear error, not write
 *                               past the disk
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "tmpfile") == 0) {
    FILE *t = tmpfile();
    if (t == NULL) return 3;
    fprintf(t, "scratch\n");
    fflush(t);
    struct stat st;
    fstat(fileno(t), &st);
    long d = (long)(time(NULL) - st.st_mtime);
    char line[32] = "";
    rewind(t);
    if (fgets(line, sizeof line, t) == NULL) return 4;
    printf("tmpfile links %ld fresh: %s read: %s", (long)st.st_nlink, d >= -2 && d <= 2 ? "yes" : "no", line);
    fclose(t);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "freopen") == 0) {
    FILE *f = fopen(argv[2], "w");
    if (f == NULL) return 3;
    fprintf(f, "off the disk\n");
    FILE *g = freopen("stdio-disk-target", "w", f);
    printf("freopen returned %s\n", g ? "a stream" : "NULL");
    return 0;
  }
  fprintf(stderr, "usage: disk_stdio tmpfile | freopen OUTSIDE\n");
  return 2;
}
