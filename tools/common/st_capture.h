/* A bounded capture of a stream: the first `head_cap` bytes and the last
 * `tail_cap` bytes, with the count of bytes dropped in between.  What the
 * tools need of a run's stderr is at its two ends (the runtime's first line
 * at the start; backtraces, `checked` and the result line at the end), so a
 * run that writes gigabytes costs a fixed amount of memory. */
#ifndef ST_CAPTURE_H
#define ST_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct st_capture {
  char *head;
  size_t head_len, head_cap;
  char *tail; /* a ring */
  size_t tail_len, tail_pos, tail_cap;
  uint64_t total;
};

void st_capture_init(struct st_capture *c, size_t head_cap, size_t tail_cap);
void st_capture_add(struct st_capture *c, const char *data, size_t n);
/* The kept text, NUL-terminated, malloc'd: head, then (when bytes were
 * dropped) a line "[... N bytes not kept ...]", then the tail. */
char *st_capture_text(const struct st_capture *c);
/* The first line (up to n-1 bytes) of the stream; "" when none. */
void st_capture_first_line(const struct st_capture *c, char *out, size_t n);
void st_capture_free(struct st_capture *c);

#endif
