/* libFuzzer's callbacks (simfuzz.h): the probe run that sizes the counter
 * region, and one run per input. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/fuzz_abi.h"
#include "simfuzz.h"
#include "st_classes.h"
#include "st_outcome.h"
#include "st_util.h"

/* libFuzzer's: registers a region of inline 8-bit counters it reads after
 * every input (simfuzz's own code is not instrumented: these are the only
 * ones). */
void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *region; /* the program's counters, then the scheduling features */
static size_t n_counters;
static size_t n_features; /* DETSIM_FUZZ_SCHED_FEATURES with --schedule-features, else 0 */
static uint64_t runs; /* inputs run by this process (the probe not counted) */

static void write_file(const char *path, const uint8_t *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) st_die(ST_EXIT_HARNESS, "cannot write %s: %s", path, strerror(errno));
  size_t off = 0;
  while (off < size) {
    ssize_t k = write(fd, data + off, size - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) st_die(ST_EXIT_HARNESS, "writing %s failed: %s", path, strerror(errno));
    off += (size_t)k;
  }
  if (close(fd) != 0) st_die(ST_EXIT_HARNESS, "writing %s failed: %s", path, strerror(errno));
}

/* A world's result line without its logs= (the scratch directory's,
 * removed with the run): in place. */
static void drop_logs_word(char *line) {
  char *w = strstr(line, " logs=");
  if (!w) return;
  char *end = strchr(w + 1, ' ');
  memmove(w, end ? end : w + strlen(w), strlen(end ? end : w + strlen(w)) + 1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  st_prog = "simfuzz";
  sf_config_init(argc, argv);
  /* The probe: the seed's own run (an empty input) says how many counters
   * the program has, and that it is a --fuzz simulation build at all. */
  char *path = st_xasprintf("%s/input.choices", sf_workdir());
  write_file(path, NULL, 0);
  struct sf_run r;
  sf_run(path, NULL, 0, NULL, 0, &r);
  if (!r.result_line)
    st_die(ST_EXIT_HARNESS, "%s is not a simulation build, or it did not run (no result line); its stderr ends:\n%s",
           sf.target[0], r.stderr_text);
  if ((!r.have_coverage || r.counters == 0) && sf.world)
    st_die(ST_EXIT_HARNESS, "%s: no node's program has coverage counters: build them with detsim-cc --fuzz",
           sf.scenario);
  if (!r.have_coverage || r.counters == 0)
    st_die(ST_EXIT_HARNESS, "%s has no coverage counters: build it with detsim-cc --fuzz", sf.target[0]);
  n_counters = r.counters;
  if (sf.world) drop_logs_word(r.result_line);
  n_features = sf.sched_features ? DETSIM_FUZZ_SCHED_FEATURES : 0;
  fprintf(stderr, "simfuzz: %s: %zu coverage counters%s and %zu scheduling features; seed %" PRIu64
          "; the seed's own run: %s\n", sf.world ? sf.scenario : sf.target[0], n_counters,
          sf.world ? " (all nodes' programs)" : "", n_features, sf.seed, r.result_line);
  sf_run_free(&r);
  free(path);
  region = st_xcalloc(n_counters + n_features, 1);
  __sanitizer_cov_8bit_counters_init(region, region + n_counters + n_features);
  return 0;
}

/* A failing run: its input, cut to the bytes the run took (the rest were
 * never read, so the cut input takes the same run), saved under the
 * history's name, and how to replay it. */
static void report_failure(const uint8_t *data, size_t size, struct sf_run *r) {
  if (sf.world) drop_logs_word(r->result_line);
  struct st_outcome o = {0};
  st_parse_result_line(r->result_line, &o);
  size_t used = r->choices_used < size ? (size_t)r->choices_used : size;
  char *saved = st_xasprintf("%s/%s-%016" PRIx64 ".choices", sf.out, st_class_name(r->cls), o.history);
  write_file(saved, data, used);
  struct st_buf cmd = {0};
  st_shell_join(&cmd, sf.target);
  struct st_buf opt = {0}, line = {0};
  char *options = st_xasprintf("choices=%s", saved);
  st_shell_quote(&opt, options);
  st_shell_quote(&line, r->result_line);
  fprintf(stderr, "\nsimfuzz: found %s at run %" PRIu64 ": %s\n", st_class_name(r->cls), runs, r->result_line);
  char *own = st_own_lines(r->stderr_text, 5);
  if (own) fprintf(stderr, "simfuzz: the program's last words:\n%s", own);
  fprintf(stderr, "simfuzz: input %s (%zu of %zu bytes taken)\n", saved, used, size);
  fprintf(stderr, "simfuzz: replay: DETSIM_SEED=%" PRIu64 " DETSIM_OPTIONS=%s %s\n", sf.seed, opt.s, cmd.s);
  fprintf(stderr, "simfuzz: check:  simreplay --seed %" PRIu64 " --options %s %s -- %s\n", sf.seed, opt.s, line.s,
          cmd.s);
  free(own);
  free(options);
  free(saved);
  st_buf_free(&cmd);
  st_buf_free(&opt);
  st_buf_free(&line);
  st_outcome_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > DETSIM_CHOICES_BYTES_MAX) return -1; /* the runtime would refuse it: not a run */
  char *path = st_xasprintf("%s/input.choices", sf_workdir());
  write_file(path, data, size);
  runs++;
  struct sf_run r;
  sf_run(path, region, n_counters, n_features ? region + n_counters : NULL, n_features, &r);
  free(path);
  if (r.cls < 0 && strstr(r.stderr_text, "detsim: error:"))
    st_die(ST_EXIT_USAGE, "the runtime refused the run:\n%s", r.stderr_text);
  bool failed = r.cls >= 0 && r.cls < (int)(sizeof sf.fails / sizeof sf.fails[0]) && sf.fails[r.cls];
  if (failed) report_failure(data, size, &r);
  sf_run_free(&r);
  /* libFuzzer records the input as a crash (and -minimize_crash shrinks it). */
  if (failed) {
    sf_workdir_remove();
    __builtin_trap();
  }
  return 0;
}
