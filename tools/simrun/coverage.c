/* --coverage DIR: the source coverage of a whole sweep.
 *
 * Every seed ran with LLVM_PROFILE_FILE=DIR/seed-<seed>-%c%p.profraw
 * (sweep.c): one profile per process (a world's nodes each write theirs),
 * kept up to date as the run goes (continuous mode; detsim-cc builds
 * -fprofile-instr-generate with relocatable counters), so a crash, a
 * failed check or a killed node leaves its profile too.  Here:
 *
 *   llvm-profdata merge -sparse -f DIR/profraw.list -o DIR/sweep.profdata
 *   llvm-cov report OBJECTS -instr-profile=DIR/sweep.profdata  > DIR/report.txt
 *   llvm-cov show   OBJECTS ... -format=html -output-dir=DIR/html
 *
 * where OBJECTS is PROGRAM, or a world's node programs; the per-seed
 * profiles are deleted once merged (DIR holds the merged profile and the
 * reports only).  The report's SOURCE COVERAGE section gives the TOTAL
 * line's lines, functions and regions, and the paths.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simrun.h"
#include "st_scenario.h"
#include "st_world.h"

/* The tool: its versioned name on PATH, else the LLVM this was built with. */
static char *llvm_tool(const char *versioned, const char *built) {
  char *p = st_find_program(versioned);
  if (p) return p;
  return access(built, X_OK) == 0 ? st_xstrdup(built) : NULL;
}

/* Runs argv with stdout to out_path (NULL: /dev/null) and stderr to
 * err_path; its exit status, or -1. */
static int run_tool(char **argv, const char *out_path, const char *err_path) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) dup2(out, 1);
    if (err >= 0) dup2(err, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The objects whose coverage mapping counts: PROGRAM, or every distinct
 * node program of a world. */
static int objects(char **argv, char **out, int max) {
  if (st_is_simworld(argv[0]) && argv[1]) {
    static struct st_scenario sc;
    char err[512];
    if (st_scenario_load(argv[1], &sc, err, sizeof err) != 0) return 0;
    int n = 0;
    for (unsigned i = 0; i < sc.n_nodes && n < max; i++) {
      bool seen = false;
      for (int k = 0; k < n; k++) seen |= !strcmp(out[k], sc.nodes[i].program);
      if (!seen) out[n++] = sc.nodes[i].program;
    }
    return n;
  }
  out[0] = strchr(argv[0], '/') ? argv[0] : st_find_program(argv[0]);
  return out[0] ? 1 : 0;
}

/* "TOTAL  regions missed cover% functions missed cover% lines missed
 * cover% [branches ...]" of llvm-cov report. */
static bool parse_total(const char *text, unsigned long long v[9]) {
  const char *t = strstr(text, "\nTOTAL");
  if (!t) return false;
  double pct[3];
  return sscanf(t + 6, " %llu %llu %lf%% %llu %llu %lf%% %llu %llu %lf%%", &v[0], &v[1], &pct[0], &v[3], &v[4],
                &pct[1], &v[6], &v[7], &pct[2]) == 9;
}

static void covered(struct st_buf *b, const char *what, unsigned long long total, unsigned long long missed) {
  unsigned long long hit = total - missed;
  st_buf_printf(b, "  %-10s %.2f%% (%llu of %llu)\n", what, total ? 100.0 * (double)hit / (double)total : 0.0, hit,
                total);
}

char *simrun_source_coverage(const char *dir, char **argv, uint64_t runs) {
  struct st_buf b = { 0 };
  st_buf_puts(&b, "SOURCE COVERAGE: ");
  /* The profiles the runs wrote (an empty one is a run that never started). */
  char *list = st_xasprintf("%s/profraw.list", dir);
  FILE *lf = fopen(list, "w");
  DIR *d = opendir(dir);
  int profiles = 0;
  char **written = NULL;
  for (struct dirent *e; d && lf && (e = readdir(d)) != NULL;) {
    size_t n = strlen(e->d_name);
    if (n < 8 || strcmp(e->d_name + n - 8, ".profraw")) continue;
    char *path = st_xasprintf("%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && st.st_size > 0) {
      fprintf(lf, "%s\n", path);
      written = st_xrealloc(written, sizeof *written * (size_t)(profiles + 1));
      written[profiles++] = path;
    } else {
      unlink(path);
      free(path);
    }
  }
  if (d) closedir(d);
  if (lf) fclose(lf);
  char *profdata = st_xasprintf("%s/sweep.profdata", dir), *report = st_xasprintf("%s/report.txt", dir);
  char *log = st_xasprintf("%s/llvm.log", dir), *html = st_xasprintf("%s/html", dir);
  char *pd = llvm_tool("llvm-profdata-19", DETSIM_LLVM_PROFDATA), *cov = llvm_tool("llvm-cov-19", DETSIM_LLVM_COV);
  char *objs[ST_SCENARIO_NODES_MAX];
  int nobj = objects(argv, objs, ST_SCENARIO_NODES_MAX);
  if (profiles == 0) {
    st_buf_printf(&b, "none: no run wrote a profile to %s (build the program with detsim-cc "
                      "-fprofile-instr-generate -fcoverage-mapping)\n", dir);
  } else if (!pd || !cov) {
    st_buf_printf(&b, "not merged: llvm-profdata-19 or llvm-cov-19 not found (%d profiles in %s)\n", profiles, dir);
  } else {
    char *in = st_xasprintf("--input-files=%s", list), *o = st_xasprintf("--output=%s", profdata);
    char *merge[] = { pd, "merge", "-sparse", in, o, NULL };
    int st = run_tool(merge, NULL, log);
    if (st != 0) {
      st_buf_printf(&b, "not merged: llvm-profdata merge failed (status %d; see %s)\n", st, log);
    } else {
      for (int i = 0; i < profiles; i++) unlink(written[i]);
      unlink(list);
      char *ip = st_xasprintf("-instr-profile=%s", profdata), *od = st_xasprintf("-output-dir=%s", html);
      char *rep[4 + 2 * ST_SCENARIO_NODES_MAX], *show[8 + 2 * ST_SCENARIO_NODES_MAX];
      int r = 0, s = 0;
      rep[r++] = cov, rep[r++] = "report";
      show[s++] = cov, show[s++] = "show";
      for (int i = 0; i < nobj; i++) {
        if (i) rep[r++] = "-object", show[s++] = "-object";
        rep[r++] = objs[i], show[s++] = objs[i];
      }
      rep[r++] = ip, rep[r] = NULL;
      show[s++] = ip, show[s++] = "-format=html", show[s++] = od, show[s] = NULL;
      st = nobj ? run_tool(rep, report, log) : -1;
      char *text = NULL;
      size_t len;
      unsigned long long v[9];
      if (st == 0 && st_read_file(report, 1u << 26, &text, &len) == 0 && parse_total(text, v)) {
        st_buf_printf(&b, "%llu runs, %d profiles merged into %s\n", (unsigned long long)runs, profiles, profdata);
        covered(&b, "lines:", v[6], v[7]);
        covered(&b, "functions:", v[3], v[4]);
        covered(&b, "regions:", v[0], v[1]);
        bool shown = run_tool(show, NULL, log) == 0;
        st_buf_printf(&b, "  report:    %s (llvm-cov report)%s%s%s\n", report, shown ? ", " : "", shown ? html : "",
                      shown ? "/index.html (llvm-cov show)" : "");
      } else {
        st_buf_printf(&b, "merged into %s, but llvm-cov report failed (see %s): was the program built with "
                          "-fcoverage-mapping?\n", profdata, log);
      }
      free(text);
      free(ip);
      free(od);
    }
    free(in);
    free(o);
  }
  for (int i = 0; i < profiles; i++) free(written[i]);
  free(written);
  free(list);
  free(profdata);
  free(report);
  free(log);
  free(html);
  free(pd);
  free(cov);
  return b.s;
}
