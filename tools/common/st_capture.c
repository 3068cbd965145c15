/* Bounded head+tail capture of a stream (see st_capture.h). */
#include "st_capture.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "st_util.h"

void st_capture_init(struct st_capture *c, size_t head_cap, size_t tail_cap) {
  memset(c, 0, sizeof *c);
  c->head = st_xmalloc(head_cap + 1);
  c->head_cap = head_cap;
  c->tail = st_xmalloc(tail_cap + 1);
  c->tail_cap = tail_cap;
}

void st_capture_add(struct st_capture *c, const char *data, size_t n) {
  c->total += n;
  size_t h = c->head_cap - c->head_len;
  if (h > n) h = n;
  memcpy(c->head + c->head_len, data, h);
  c->head_len += h;
  data += h;
  n -= h;
  if (n == 0 || c->tail_cap == 0) return;
  if (n >= c->tail_cap) {
    memcpy(c->tail, data + n - c->tail_cap, c->tail_cap);
    c->tail_len = c->tail_cap;
    c->tail_pos = 0;
    return;
  }
  /* Append n bytes to the ring at tail_pos (the oldest byte when full). */
  size_t end = (c->tail_pos + c->tail_len) % c->tail_cap;
  for (size_t done = 0; done < n;) {
    size_t room = c->tail_cap - end;
    size_t k = n - done < room ? n - done : room;
    memcpy(c->tail + end, data + done, k);
    done += k;
    end = (end + k) % c->tail_cap;
  }
  if (c->tail_len + n > c->tail_cap) {
    c->tail_pos = (c->tail_pos + (c->tail_len + n - c->tail_cap)) % c->tail_cap;
    c->tail_len = c->tail_cap;
  } else {
    c->tail_len += n;
  }
}

char *st_capture_text(const struct st_capture *c) {
  struct st_buf b = { 0 };
  st_buf_add(&b, c->head, c->head_len);
  uint64_t dropped = c->total - c->head_len - c->tail_len;
  if (dropped) {
    if (b.len && b.s[b.len - 1] != '\n') st_buf_puts(&b, "\n");
    st_buf_printf(&b, "[... %" PRIu64 " bytes not kept ...]\n", dropped);
  }
  size_t first = c->tail_len < c->tail_cap ? c->tail_len : c->tail_cap - c->tail_pos;
  if (c->tail_len < c->tail_cap) {
    st_buf_add(&b, c->tail, c->tail_len); /* tail_pos is 0 until the ring wraps */
  } else {
    st_buf_add(&b, c->tail + c->tail_pos, first);
    st_buf_add(&b, c->tail, c->tail_pos);
  }
  if (!b.s) st_buf_puts(&b, "");
  return b.s;
}

void st_capture_first_line(const struct st_capture *c, char *out, size_t n) {
  size_t k = 0;
  while (k < c->head_len && c->head[k] != '\n' && k + 1 < n) {
    out[k] = c->head[k];
    k++;
  }
  out[k] = '\0';
}

void st_capture_free(struct st_capture *c) {
  free(c->head);
  free(c->tail);
  memset(c, 0, sizeof *c);
}
