/* Parsing of DETSIM_SEED and DETSIM_OPTIONS, driven by options.inc.
 *
 * Runs in the runtime's constructor, before the program's code: no locks,
 * no threads, and errors are returned as text for the caller to print.
 */
#include "core/core.h"
#include "machine/machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct detsim_options detsim__opt = {
#define DETSIM_OPTION(type, name, def, desc) .name = def,
#include "options.inc"
#undef DETSIM_OPTION
};

/* Storage for string values: the environment string is copied once. */
static char options_text[8192];

static int parse_u64(const char *v, uint64_t *out) {
  if (*v == '\0') return -1;
  uint64_t x = 0;
  for (const char *p = v; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    unsigned d = (unsigned)(*p - '0');
    if (x > (UINT64_MAX - d) / 10) return -1;
    x = x * 10 + d;
  }
  *out = x;
  return 0;
}

static int parse_f64(const char *v, double *out) {
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  if (*v == '\0' || *end != '\0' || errno != 0) return -1;
  *out = x;
  return 0;
}

static int parse_bool(const char *v, bool *out) {
  if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes")) { *out = true; return 0; }
  if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no")) { *out = false; return 0; }
  return -1;
}

static int set_option(const char *key, const char *val, char *err, unsigned errlen) {
#define DETSIM_OPT_PARSE_BOOL(dst, v) parse_bool(v, &(dst))
#define DETSIM_OPT_PARSE_U64(dst, v) parse_u64(v, &(dst))
#define DETSIM_OPT_PARSE_F64(dst, v) parse_f64(v, &(dst))
#define DETSIM_OPT_PARSE_STR(dst, v) ((dst) = (v), 0)
#define DETSIM_OPTION(type, name, def, desc) \
  if (!strcmp(key, #name)) { \
    if (DETSIM_OPT_PARSE_##type(detsim__opt.name, val) != 0) { \
      snprintf(err, errlen, "DETSIM_OPTIONS: bad value '%s' for key '%s' (expected %s)", val, key, \
               #type[0] == 'B' ? "0 or 1" : #type[0] == 'U' ? "a decimal integer" : \
               #type[0] == 'F' ? "a decimal number" : "a string"); \
      return -1; \
    } \
    return 0; \
  }
#include "options.inc"
#undef DETSIM_OPTION
  snprintf(err, errlen, "DETSIM_OPTIONS: unknown key '%s' (DETSIM_OPTIONS=help=1 lists the keys)", key);
  return -1;
}

static const char *const fault_names[] = {
#define DETSIM_FAULT_OPTION(NAME, name) #name,
#include "fault_options.inc"
#undef DETSIM_FAULT_OPTION
};
#define FAULT_NAMES (sizeof fault_names / sizeof *fault_names)

int detsim__faults_mask(const char *list, unsigned *mask) {
  *mask = 0;
  if (strcmp(list, "all") == 0) {
    *mask = (1u << FAULT_NAMES) - 1;
    return 0;
  }
  const char *p = list;
  while (*p) {
    size_t n = strcspn(p, ",");
    unsigned k = 0;
    while (k < FAULT_NAMES && (strlen(fault_names[k]) != n || strncmp(p, fault_names[k], n))) k++;
    if (k == FAULT_NAMES) return -1;
    *mask |= 1u << k;
    p += n + (p[n] == ',');
  }
  return 0;
}

/* Cross-option checks: values each key accepts on its own but the run can't. */
static int validate(char *err, unsigned errlen) {
  const struct detsim_options *o = &detsim__opt;
  unsigned mask;
  if (detsim__faults_mask(o->faults, &mask) != 0) {
    char names[128] = "";
    for (unsigned k = 0; k < FAULT_NAMES; k++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? "," : "", fault_names[k]);
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value '%s' for key 'faults' (expected all, or some of %s)", o->faults, names);
    return -1;
  }
  if (strcmp(o->strategy, "random") && strcmp(o->strategy, "pct")) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value '%s' for key 'strategy' (expected random or pct)", o->strategy);
    return -1;
  }
  unsigned cpus;
  bool cpus_draw;
  if (detsim__machine_cpus_parse(o->cpus, &cpus, &cpus_draw) != 0) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value '%s' for key 'cpus' (expected 1..%d or draw)", o->cpus, DETSIM_CPUS_MAX);
    return -1;
  }
  if (o->expect_history[0]) {
    size_t n = strlen(o->expect_history);
    bool hex = n == 16;
    for (size_t i = 0; hex && i < n; i++) hex = strchr("0123456789abcdefABCDEF", o->expect_history[i]) != NULL;
    if (!hex) {
      snprintf(err, errlen, "DETSIM_OPTIONS: bad value '%s' for key 'expect_history' (expected 16 hex digits)",
               o->expect_history);
      return -1;
    }
  }
  if (o->preempt != -1.0 && !(o->preempt >= 0.0 && o->preempt <= 1.0)) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %g for key 'preempt' (expected -1 or a probability in 0..1)", o->preempt);
    return -1;
  }
  if (o->pct_depth < 1 || o->pct_depth > DETSIM_PCT_DEPTH_MAX) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %llu for key 'pct_depth' (expected 1..%d)",
             (unsigned long long)o->pct_depth, DETSIM_PCT_DEPTH_MAX);
    return -1;
  }
  if (o->max_threads < 1 || o->max_threads > DETSIM_MAX_THREADS) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %llu for key 'max_threads' (expected 1..%d)",
             (unsigned long long)o->max_threads, DETSIM_MAX_THREADS);
    return -1;
  }
  if (o->net_max_fds < 1 || o->net_max_fds > DETSIM_NET_FD_NUMBER_MAX) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %llu for key 'net_max_fds' (expected 1..%d)",
             (unsigned long long)o->net_max_fds, DETSIM_NET_FD_NUMBER_MAX);
    return -1;
  }
  if (o->net_buffer_bytes < 1024 || o->net_buffer_bytes > DETSIM_NET_BUFFER_BYTES_MAX) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %llu for key 'net_buffer_bytes' (expected 1024..%u)",
             (unsigned long long)o->net_buffer_bytes, DETSIM_NET_BUFFER_BYTES_MAX);
    return -1;
  }
  if (o->net_latency_max_ns > 60000000000ull) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %llu for key 'net_latency_max_ns' (expected 0..60000000000)",
             (unsigned long long)o->net_latency_max_ns);
    return -1;
  }
  if (o->trace_events < 16 || o->trace_events > DETSIM_TRACE_EVENTS_MAX) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %llu for key 'trace_events' (expected 16..%u)",
             (unsigned long long)o->trace_events, DETSIM_TRACE_EVENTS_MAX);
    return -1;
  }
  if (o->max_sim_time_s < 1 || o->max_sim_time_s > UINT64_MAX / 1000000000ull / 2) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value %llu for key 'max_sim_time_s' (expected 1..%llu)",
             (unsigned long long)o->max_sim_time_s, (unsigned long long)(UINT64_MAX / 1000000000ull / 2));
    return -1;
  }
  if (strcmp(o->trap_syscalls, "auto") != 0 && strcmp(o->trap_syscalls, "1") != 0 && strcmp(o->trap_syscalls, "0") != 0 &&
      strcmp(o->trap_syscalls, "seccomp") != 0) {
    snprintf(err, errlen, "DETSIM_OPTIONS: bad value '%s' for key 'trap_syscalls' (expected auto, 1, seccomp or 0)",
             o->trap_syscalls);
    return -1;
  }
  if (strlen(o->trace) >= DETSIM_PATH_BYTES_MAX) {
    snprintf(err, errlen, "DETSIM_OPTIONS: value of key 'trace' is longer than %d bytes", DETSIM_PATH_BYTES_MAX);
    return -1;
  }
  return 0;
}

int detsim__options_parse(const char *text, char *err, unsigned errlen) {
  if (text == NULL) text = "";
  if (strlen(text) >= sizeof options_text) {
    snprintf(err, errlen, "DETSIM_OPTIONS is longer than %zu bytes", sizeof options_text - 1);
    return -1;
  }
  strcpy(options_text, text);
  char *p = options_text;
  while (*p) {
    char *end = strchr(p, ':');
    if (end) *end = '\0';
    if (*p != '\0') {
      char *eq = strchr(p, '=');
      if (!eq) {
        snprintf(err, errlen, "DETSIM_OPTIONS: '%s' has no value (expected key=value)", p);
        return -1;
      }
      *eq = '\0';
      if (set_option(p, eq + 1, err, errlen) != 0) return -1;
    }
    if (!end) break;
    p = end + 1;
  }
  return validate(err, errlen);
}

int detsim__seed_parse(const char *text, uint64_t *seed, char *err, unsigned errlen) {
  if (parse_u64(text, seed) != 0) {
    snprintf(err, errlen, "DETSIM_SEED='%s' is not a decimal number in 0..18446744073709551615", text);
    return -1;
  }
  return 0;
}

void detsim__options_help(int fd) {
  dprintf(fd, "detsim: DETSIM_OPTIONS=key=value:key=value... keys:\n");
#define DETSIM_OPT_FMT_BOOL(v) dprintf(fd, "%d", (int)(v))
#define DETSIM_OPT_FMT_U64(v) dprintf(fd, "%llu", (unsigned long long)(v))
#define DETSIM_OPT_FMT_F64(v) dprintf(fd, "%g", (double)(v))
#define DETSIM_OPT_FMT_STR(v) dprintf(fd, "'%s'", (const char *)(v))
#define DETSIM_OPTION(type, name, def, desc) \
  dprintf(fd, "  %-16s default ", #name); DETSIM_OPT_FMT_##type(def); dprintf(fd, "\n      %s\n", desc);
#include "options.inc"
#undef DETSIM_OPTION
}
