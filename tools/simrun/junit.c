/* JUnit XML: one <testcase> per seed (named "seed <N>", in seed-set order),
 * a failing seed with <failure type="<class>" message="<signature>"> whose
 * text is the reproduction command and the last lines of its stderr.  CI
 * systems show each seed as a test.  Every coverage point is a property
 * ("coverage: <kind> <name>" = "<hits> occurrences in <K> of <N> seeds");
 * with --require-coverage each SOMETIMES/REACHABLE point is also a
 * testcase "coverage: <name>", failing (type="coverage") when no seed
 * reached it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simrun.h"
#include "st_classes.h"
#include "st_json.h"

void simrun_junit_write(const char *path, const struct simrun_sweep_info *info) {
  uint64_t n;
  struct simrun_result *r = simrun_stats_results(&n);
  struct st_buf b = { 0 };
  int npoints = simrun_stats_npoints();
  uint64_t point_cases = 0, point_failures = 0;
  for (int i = 0; info->require_coverage && i < npoints; i++) {
    int kind;
    const char *name;
    uint64_t hits, evals, runs_hit, known;
    simrun_stats_point(i, &kind, &name, &hits, &evals, &runs_hit, &known);
    if (kind == ST_POINT_UNREACHABLE) continue;
    point_cases++;
    point_failures += hits == 0;
  }
  uint64_t tests = n + point_cases, failures = simrun_stats_failed() + point_failures;
  const char *prog = st_basename(info->argv[0]);
  st_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  st_buf_printf(&b, "<testsuites name=\"simrun\" tests=\"%llu\" failures=\"%llu\" errors=\"0\" time=\"%.3f\">\n",
                (unsigned long long)tests, (unsigned long long)failures, info->wall_s);
  st_buf_puts(&b, "  <testsuite name=\"");
  st_xml_str(&b, prog);
  st_buf_printf(&b, "\" tests=\"%llu\" failures=\"%llu\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
                (unsigned long long)tests, (unsigned long long)failures, info->wall_s);
  st_buf_puts(&b, "    <properties>\n      <property name=\"command\" value=\"");
  struct st_buf cmd = { 0 };
  st_shell_join(&cmd, info->argv);
  st_xml_str(&b, cmd.s);
  st_buf_free(&cmd);
  st_buf_puts(&b, "\"/>\n      <property name=\"options\" value=\"");
  st_xml_str(&b, info->options ? info->options : "");
  st_buf_printf(&b, "\"/>\n      <property name=\"level\" value=\"%d\"/>\n      <property name=\"seeds\" value=\"", info->level);
  st_xml_str(&b, info->seeds_label);
  st_buf_puts(&b, "\"/>\n");
  for (int i = 0; i < npoints; i++) {
    int kind;
    const char *name;
    uint64_t hits, evals, runs_hit, known;
    simrun_stats_point(i, &kind, &name, &hits, &evals, &runs_hit, &known);
    char *key = st_xasprintf("coverage: %s %s", st_point_kind_name(kind), name);
    st_buf_puts(&b, "      <property name=\"");
    st_xml_str(&b, key);
    st_buf_printf(&b, "\" value=\"%llu occurrences in %llu of %llu seeds\"/>\n", (unsigned long long)hits,
                  (unsigned long long)runs_hit, (unsigned long long)n);
    free(key);
  }
  st_buf_puts(&b, "    </properties>\n");
  for (uint64_t i = 0; i < n; i++) {
    st_buf_puts(&b, "    <testcase classname=\"");
    st_xml_str(&b, prog);
    st_buf_printf(&b, "\" name=\"seed %llu\" time=\"%.6f\"", (unsigned long long)r[i].seed, r[i].wall_s);
    if (r[i].cls == ST_CLASS_pass) {
      st_buf_puts(&b, "/>\n");
      continue;
    }
    st_buf_printf(&b, ">\n      <failure type=\"%s\" message=\"", st_class_name(r[i].cls));
    st_xml_str(&b, r[i].sig >= 0 ? simrun_stats_sig_text(r[i].sig) : st_class_name(r[i].cls));
    st_buf_puts(&b, "\">");
    struct st_buf text = { 0 };
    st_buf_puts(&text, "reproduce: ");
    simrun_repro_env(&text, info, r[i].seed);
    st_buf_puts(&text, "\n");
    const char *tail = simrun_stats_tail(r[i].index);
    if (tail) st_buf_puts(&text, tail);
    st_xml_str(&b, text.s);
    st_buf_free(&text);
    st_buf_puts(&b, "</failure>\n    </testcase>\n");
  }
  for (int i = 0; info->require_coverage && i < npoints; i++) {
    int kind;
    const char *name;
    uint64_t hits, evals, runs_hit, known;
    simrun_stats_point(i, &kind, &name, &hits, &evals, &runs_hit, &known);
    if (kind == ST_POINT_UNREACHABLE) continue;
    st_buf_puts(&b, "    <testcase classname=\"");
    st_xml_str(&b, prog);
    st_buf_puts(&b, "\" name=\"");
    char *label = st_xasprintf("coverage: %s", name);
    st_xml_str(&b, label);
    free(label);
    if (hits) {
      st_buf_puts(&b, "\" time=\"0\"/>\n");
      continue;
    }
    st_buf_printf(&b, "\" time=\"0\">\n      <failure type=\"coverage\" message=\"%s point not exercised in %llu seeds\"/>\n    </testcase>\n",
                  st_point_kind_name(kind), (unsigned long long)n);
  }
  st_buf_puts(&b, "  </testsuite>\n</testsuites>\n");
  FILE *f = fopen(path, "w");
  if (!f || fwrite(b.s, 1, b.len, f) != b.len || fclose(f) != 0)
    st_die(ST_EXIT_HARNESS, "cannot write --junit file '%s': %s", path, strerror(errno));
  st_buf_free(&b);
}
