/* Schedule plan files (runtime/trace/trace.h has the format): read, written and
 * checked by simreplay --shrink and by a replay of a plan file.  The reader
 * is as strict as the runtime's: a truncated or edited file is refused,
 * naming its line. */
#ifndef ST_PLAN_H
#define ST_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_plan_entry {
  uint32_t thread;  /* the deciding thread */
  uint64_t step;    /* at its step */
  uint32_t chosen;  /* the thread it ran or woke */
  /* Their processes' virtual pids as the plan names them (PID:T); 0 for a
   * plain T, a thread of the run's first process. */
  int32_t pid, chosen_pid;
  uint16_t image;   /* the deciding process's execs so far (PID.I:T) */
  bool wake;        /* a wake decision, else a switch */
  uint64_t event;   /* the "# event N" note, 0 without one */
};

struct st_plan {
  uint64_t seed;
  bool has_outcome;  /* the "# class= events= history=" header */
  char cls[32];
  uint64_t events, history;
  char *replay;      /* the "# replay: " command, or NULL */
  struct st_plan_entry *entries;
  size_t n;
};

/* True when the file starts with the plan magic line. */
bool st_plan_is_plan_file(const char *path);
/* 0, or -1 with the reason in err. */
int st_plan_load(const char *path, struct st_plan *p, char *err, size_t errlen);
/* Writes the header lines given (each without '\n', may be NULL), the seed,
 * the entries entries[i] with keep[i] (keep NULL: all), and the end line.
 * 0, or -1 with errno. */
int st_plan_write(const char *path, const struct st_plan *p, const bool *keep, const char *const *comments, int ncomments);
void st_plan_free(struct st_plan *p);

#endif
