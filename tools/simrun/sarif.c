/* SARIF 2.1.0: one result per failure signature (not per seed: a code
 * scanning dashboard should show one alert per distinct bug).  Each class
 * is a rule "detsim/<class>" described from runtime/classes.inc; a result
 * carries the signature as its fingerprint, the first backtrace function as
 * a logical location, the seeds, and the reproduction command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simrun.h"
#include "st_classes.h"
#include "st_json.h"
#include "st_limits.h"

#ifndef DETSIM_VERSION
#define DETSIM_VERSION "0"
#endif

void simrun_sarif_write(const char *path, const struct simrun_sweep_info *info) {
  struct st_buf b = { 0 };
  st_buf_puts(&b, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n");
  st_buf_puts(&b, "  \"runs\": [{\n    \"tool\": {\"driver\": {\"name\": \"simrun\", \"version\": \"" DETSIM_VERSION
                  "\", \"rules\": [\n");
  for (int c = 1; c < ST_CLASS_COUNT; c++) {
    st_buf_printf(&b, "      {\"id\": \"detsim/%s\", \"name\": \"%s\", \"shortDescription\": {\"text\": ", st_class_name(c),
                  st_class_name(c));
    st_json_str(&b, st_class_desc(c));
    st_buf_printf(&b, "}, \"properties\": {\"exit_status\": %d}}%s\n", st_class_status(c), c + 1 < ST_CLASS_COUNT ? "," : "");
  }
  st_buf_puts(&b, "    ]}},\n    \"invocations\": [{\"executionSuccessful\": true, \"commandLine\": ");
  struct st_buf cmd = { 0 };
  st_shell_join(&cmd, info->argv);
  st_json_str(&b, cmd.s);
  st_buf_free(&cmd);
  st_buf_puts(&b, "}],\n    \"results\": [");
  int nsigs = simrun_stats_nsigs();
  for (int i = 0; i < nsigs; i++) {
    int cls = simrun_stats_sig_class(i);
    const char *sig = simrun_stats_sig_text(i);
    uint64_t seeds[SIMRUN_REPORT_SEEDS_SHOWN];
    int ns = simrun_stats_sig_seeds(i, seeds, SIMRUN_REPORT_SEEDS_SHOWN);
    struct st_buf msg = { 0 }, repro = { 0 };
    simrun_repro_env(&repro, info, simrun_stats_sig_first_seed(i));
    st_buf_printf(&msg, "%s: %llu seed%s failed. Reproduce: %s", sig, (unsigned long long)simrun_stats_sig_count(i),
                  simrun_stats_sig_count(i) == 1 ? "" : "s", repro.s);
    st_buf_printf(&b, "%s\n      {\"ruleId\": \"detsim/%s\", \"level\": \"%s\", \"message\": {\"text\": ", i ? "," : "",
                  st_class_name(cls), cls == ST_CLASS_inconclusive ? "warning" : "error");
    st_json_str(&b, msg.s);
    st_buf_puts(&b, "},\n       \"partialFingerprints\": {\"detsimSignature/v1\": ");
    st_json_str(&b, sig);
    st_buf_puts(&b, "}");
    /* The function after " in " (the first, for a deadlock's list). */
    const char *in = strstr(sig, " in ");
    if (in) {
      char *fn = st_xasprintf("%.*s", (int)strcspn(in + 4, ","), in + 4);
      st_buf_puts(&b, ",\n       \"locations\": [{\"logicalLocations\": [{\"kind\": \"function\", \"name\": ");
      st_json_str(&b, fn);
      st_buf_puts(&b, "}]}]");
      free(fn);
    }
    st_buf_printf(&b, ",\n       \"properties\": {\"class\": \"%s\", \"count\": %llu, \"reproduce\": ", st_class_name(cls),
                  (unsigned long long)simrun_stats_sig_count(i));
    st_json_str(&b, repro.s);
    st_buf_puts(&b, ", \"seeds\": [");
    for (int k = 0; k < ns; k++) st_buf_printf(&b, "%s%llu", k ? ", " : "", (unsigned long long)seeds[k]);
    st_buf_puts(&b, "]}}");
    st_buf_free(&msg);
    st_buf_free(&repro);
  }
  st_buf_puts(&b, nsigs ? "\n    ]\n  }]\n}\n" : "]\n  }]\n}\n");
  FILE *f = fopen(path, "w");
  if (!f || fwrite(b.s, 1, b.len, f) != b.len || fclose(f) != 0)
    st_die(ST_EXIT_HARNESS, "cannot write --sarif file '%s': %s", path, strerror(errno));
  st_buf_free(&b);
}
