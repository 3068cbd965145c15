/* One direction of a byte stream (a TCP or unix connection, a pipe).
 *
 * Bytes are written into a ring and travel as segments that each carry an
 * arrival time (the send time plus the direction's latency, never earlier
 * than what was sent before: a stream never reorders).  The reader sees the
 * bytes of every segment whose time has come.  FIN and RST travel behind the
 * data the same way.  The ring is bounded by `cap`: bytes in flight and bytes
 * arrived but unread both count, so a writer facing a slow reader blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "sanitize/sanitize.h"
#include "core/core.h"
#include "net/net.h"
#include "world/world.h"

void net_stream_init(struct net_stream *s, uint64_t cap, uint64_t latency_ns) {
  memset(s, 0, sizeof *s);
  s->cap = cap;
  s->latency_ns = latency_ns;
  s->fin_at = DETSIM_NO_DEADLINE;
  s->rst_at = DETSIM_NO_DEADLINE;
  /* Both ends here until a connection between nodes says otherwise. */
  s->src = s->dst = detsim__host_index;
}

/* A partition or a clog stalls the link: what is sent waits for the heal
 * (TCP queues and retransmits; nothing is lost or reordered). */
static uint64_t link_open(const struct net_stream *s, uint64_t now) {
  return s->src != s->dst ? detsim__world_link_open(s->src, s->dst, now) : now;
}

void net_stream_link(struct net_stream *s, uint64_t jitter_ns, uint64_t ns_per_kib) {
  s->jitter_ns = jitter_ns;
  s->ns_per_kib = ns_per_kib;
}

/* When n bytes written now arrive: they leave once the link is open (a
 * partition or a clog holds them) and the wire has sent what came before
 * (the bandwidth), then take the latency plus a jitter, and never arrive
 * before what was sent earlier. */
static uint64_t data_time(struct net_stream *s, uint64_t now, uint64_t n, uint64_t *left) {
  uint64_t depart = link_open(s, now);
  if (s->ns_per_kib && depart < s->wire_free_at) depart = s->wire_free_at;
  *left = depart;
  if (s->ns_per_kib) {
    depart += (n * s->ns_per_kib + 1023) / 1024;
    s->wire_free_at = depart;
  }
  uint64_t at = depart + s->latency_ns;
  if (s->jitter_ns) at += net_segment_jitter(s->jitter_ns);
  return at < s->last_at ? s->last_at : at;
}

void net_stream_free(struct net_stream *s) {
  detsim__net_free(s->buf);
  s->buf = NULL;
  s->alloc = 0;
  detsim__net_free(s->charge);
  s->charge = NULL;
  s->charge_n = s->charge_cap = 0;
}

uint64_t net_iov_total(const struct iovec *iov, int iovcnt) {
  uint64_t n = 0;
  for (int i = 0; i < iovcnt; i++) n += iov[i].iov_len;
  return n;
}

/* The offset up to which bytes have arrived at `now` (pure). */
static uint64_t arrived_end(const struct net_stream *s, uint64_t now) {
  uint64_t end = s->base;
  for (unsigned i = 0; i < s->seg_n; i++) {
    const struct net_seg *g = &s->seg[(s->seg_first + i) % DETSIM_NET_SEGMENTS_MAX];
    if (g->at > now) break;
    end = g->end;
  }
  return end;
}

uint64_t net_stream_avail(const struct net_stream *s, uint64_t now) {
  uint64_t end = arrived_end(s, now);
  CHECK_GE(end, s->head);
  return end - s->head;
}

uint64_t net_stream_space(const struct net_stream *s) {
  if (s->whole_writes) return s->wmem >= s->cap ? 0 : s->cap - s->wmem;
  uint64_t queued = s->tail - s->head;
  return queued >= s->cap ? 0 : s->cap - queued;
}

uint64_t net_stream_next_arrival(const struct net_stream *s, uint64_t now) {
  for (unsigned i = 0; i < s->seg_n; i++) {
    const struct net_seg *g = &s->seg[(s->seg_first + i) % DETSIM_NET_SEGMENTS_MAX];
    if (g->at > now) return g->at;
  }
  uint64_t t = DETSIM_NO_DEADLINE;
  if (s->fin_at > now && s->fin_at < t) t = s->fin_at;
  if (s->rst_at > now && s->rst_at < t) t = s->rst_at;
  return t;
}

uint64_t net_stream_arrived_segments(const struct net_stream *s, uint64_t now) {
  uint64_t pending = 0;
  for (unsigned i = 0; i < s->seg_n; i++) {
    const struct net_seg *g = &s->seg[(s->seg_first + i) % DETSIM_NET_SEGMENTS_MAX];
    if (g->at > now) pending++;
  }
  return s->pushed - pending + (s->fin_at <= now) + (s->rst_at <= now);
}

uint64_t net_stream_send_time(const struct net_stream *s, uint64_t now) {
  uint64_t at = link_open(s, now) + s->latency_ns;
  return at < s->last_at ? s->last_at : at;
}

/* Forgets segments that have arrived (their bytes stay until read). */
static void trim(struct net_stream *s, uint64_t now) {
  while (s->seg_n > 0) {
    struct net_seg *g = &s->seg[s->seg_first];
    if (g->at > now) break;
    s->base = g->end;
    s->seg_first = (s->seg_first + 1) % DETSIM_NET_SEGMENTS_MAX;
    s->seg_n--;
  }
}

/* Copies n bytes into a ring of `alloc` bytes at absolute offset `off`
 * (which lives at off mod alloc): at most two pieces. */
static void ring_put(uint8_t *ring, uint64_t alloc, uint64_t off, const uint8_t *src, uint64_t n) {
  uint64_t at = off % alloc, first = alloc - at < n ? alloc - at : n;
  memcpy(ring + at, src, first);
  memcpy(ring, src + first, n - first);
}

static void ring_get(const uint8_t *ring, uint64_t alloc, uint64_t off, uint8_t *dst, uint64_t n) {
  uint64_t at = off % alloc, first = alloc - at < n ? alloc - at : n;
  memcpy(dst, ring + at, first);
  memcpy(dst + first, ring, n - first);
}

/* Makes room for `need` more bytes in the ring, keeping its contents. */
static void grow(struct net_stream *s, uint64_t need) {
  uint64_t used = s->tail - s->head;
  if (used + need <= s->alloc) return;
  uint64_t size = s->alloc ? s->alloc : 4096;
  while (size < used + need) size *= 2;
  uint8_t *nb = detsim__net_malloc(size);
  if (nb == NULL) {
    detsim__msg("error: out of memory for a simulated stream buffer (%llu bytes)", (unsigned long long)size);
    abort();
  }
  /* Offsets stay absolute: byte at offset o lives at o mod alloc. */
  if (used > 0) {
    uint64_t at = s->head % s->alloc, first = s->alloc - at < used ? s->alloc - at : used;
    ring_put(nb, size, s->head, s->buf + at, first);
    ring_put(nb, size, s->head + first, s->buf, used - first);
  }
  detsim__net_free(s->buf);
  s->buf = nb;
  s->alloc = size;
}

uint64_t net_stream_write(struct net_stream *s, const struct iovec *iov, int iovcnt,
                          uint64_t skip, uint64_t n, uint64_t now) {
  CHECK(n <= net_stream_space(s) || (s->whole_writes && net_stream_space(s) > 0));
  CHECK(s->fin_at == DETSIM_NO_DEADLINE);
  if (n == 0) return 0;
  detsim__hb_release(s); /* what the writer did before, for the reader (TSan) */
  grow(s, n);
  uint64_t done = 0;
  for (int i = 0; i < iovcnt && done < n; i++) {
    uint64_t len = iov[i].iov_len;
    if (skip >= len) {
      skip -= len;
      continue;
    }
    const uint8_t *src = (const uint8_t *)iov[i].iov_base + skip;
    uint64_t take = len - skip;
    if (take > n - done) take = n - done;
    skip = 0;
    ring_put(s->buf, s->alloc, s->tail + done, src, take);
    done += take;
  }
  CHECK_EQ(done, n);
  s->tail += n;
  uint64_t left;
  uint64_t at = data_time(s, now, n, &left);
  trim(s, now);
  if (s->seg_n > 0) {
    struct net_seg *last = &s->seg[(s->seg_first + s->seg_n - 1) % DETSIM_NET_SEGMENTS_MAX];
    if (last->at == at || s->seg_n == DETSIM_NET_SEGMENTS_MAX) {
      /* Same arrival, or the array is full: the bytes join the last segment,
       * which then arrives with them (later, never earlier, never out of
       * order). */
      last->end = s->tail;
      last->at = at;
      last->left = left;
      s->last_at = at;
      s->pushed++;
      net_wake_node(s->dst, at);
      return n;
    }
  }
  struct net_seg *g = &s->seg[(s->seg_first + s->seg_n) % DETSIM_NET_SEGMENTS_MAX];
  g->end = s->tail;
  g->at = at;
  g->left = left;
  s->seg_n++;
  s->pushed++;
  s->last_at = at;
  net_wake_node(s->dst, at);
  return n;
}

/* Copies up to n arrived bytes from `off` past the head (see net_stream_read). */
static uint64_t copy_out(struct net_stream *s, uint64_t off, const struct iovec *iov, int iovcnt,
                         uint64_t skip, uint64_t n, uint64_t now) {
  detsim__hb_acquire(s);
  trim(s, now);
  uint64_t avail = s->base - s->head;
  avail = avail > off ? avail - off : 0;
  if (n > avail) n = avail;
  uint64_t done = 0;
  for (int i = 0; i < iovcnt && done < n; i++) {
    uint64_t len = iov[i].iov_len;
    if (skip >= len) {
      skip -= len;
      continue;
    }
    uint8_t *dst = (uint8_t *)iov[i].iov_base + skip;
    uint64_t take = len - skip;
    if (take > n - done) take = n - done;
    skip = 0;
    ring_get(s->buf, s->alloc, s->head + off + done, dst, take);
    done += take;
  }
  return done;
}

void net_stream_charge(struct net_stream *s, uint64_t truesize) {
  if (s->charge_n == s->charge_cap) {
    unsigned cap = s->charge_cap ? s->charge_cap * 2 : 16;
    struct net_charge *nc = detsim__net_malloc(cap * sizeof *nc);
    CHECK(nc != NULL);
    for (unsigned i = 0; i < s->charge_n; i++) nc[i] = s->charge[(s->charge_first + i) % s->charge_cap];
    detsim__net_free(s->charge);
    s->charge = nc;
    s->charge_cap = cap;
    s->charge_first = 0;
  }
  s->charge[(s->charge_first + s->charge_n) % s->charge_cap] = (struct net_charge){ s->tail, truesize };
  s->charge_n++;
  s->wmem += truesize;
}

/* The pieces the reader has taken all of give their charge back (Linux
 * frees an skb once consumed: sock_wfree). */
static void uncharge(struct net_stream *s) {
  while (s->charge_n > 0 && s->charge[s->charge_first].end <= s->head) {
    CHECK_GE(s->wmem, s->charge[s->charge_first].truesize);
    s->wmem -= s->charge[s->charge_first].truesize;
    s->charge_first = (s->charge_first + 1) % s->charge_cap;
    s->charge_n--;
  }
}

void net_stream_uncharge_all(struct net_stream *s) {
  s->charge_n = 0;
  s->wmem = 0;
}

/* The reader consumed `done` bytes. */
static void consumed(struct net_stream *s, uint64_t done, uint64_t now) {
  if (done == 0) return;
  s->head += done;
  uncharge(s);
  s->reads++;
  /* Space freed: the writer's node looks again if a wait there may be
   * for it (net_stream_watch_space). */
  if (s->space_watched) {
    s->space_watched = false;
    net_wake_node(s->src, now);
  }
}

uint64_t net_stream_read(struct net_stream *s, const struct iovec *iov, int iovcnt,
                         uint64_t skip, uint64_t n, uint64_t now, bool peek) {
  uint64_t done = copy_out(s, 0, iov, iovcnt, skip, n, now);
  if (!peek) consumed(s, done, now);
  return done;
}

uint64_t net_stream_peek_from(struct net_stream *s, uint64_t off, const struct iovec *iov, int iovcnt,
                              uint64_t skip, uint64_t n, uint64_t now) {
  return copy_out(s, off, iov, iovcnt, skip, n, now);
}

void net_stream_discard(struct net_stream *s, uint64_t n, uint64_t now) {
  trim(s, now);
  CHECK_GE(s->base - s->head, n);
  consumed(s, n, now);
}

uint8_t net_stream_byte_at(const struct net_stream *s, uint64_t off) {
  CHECK(off >= s->head && off < s->tail);
  return s->buf[off % s->alloc];
}

void net_stream_fin(struct net_stream *s, uint64_t now) {
  if (s->fin_at != DETSIM_NO_DEADLINE) return;
  s->fin_at = net_stream_send_time(s, now);
  s->last_at = s->fin_at;
  net_wake_node(s->dst, s->fin_at);
}

void net_stream_abort(struct net_stream *s, uint64_t now) {
  uint64_t horizon = now + s->latency_ns + s->jitter_ns;
  while (s->seg_n > 0) {
    struct net_seg *g = &s->seg[(s->seg_first + s->seg_n - 1) % DETSIM_NET_SEGMENTS_MAX];
    if (g->left <= now) break;
    s->seg_n--;
    CHECK_GE(s->pushed, 1);
    s->pushed--;
  }
  const struct net_seg *last = s->seg_n ? &s->seg[(s->seg_first + s->seg_n - 1) % DETSIM_NET_SEGMENTS_MAX] : NULL;
  s->tail = last ? last->end : s->base;
  CHECK_GE(s->tail, s->head);
  net_oob_abort(s);
  s->last_at = last ? last->at : 0;
  if (s->fin_at != DETSIM_NO_DEADLINE && s->fin_at > horizon) s->fin_at = DETSIM_NO_DEADLINE;
  if (s->fin_at != DETSIM_NO_DEADLINE && s->fin_at > s->last_at) s->last_at = s->fin_at;
}

void net_stream_rst_at(struct net_stream *s, uint64_t at) {
  if (s->rst_at != DETSIM_NO_DEADLINE) return;
  if (at < s->last_at) at = s->last_at;
  s->rst_at = at;
  s->last_at = at;
  net_wake_node(s->dst, at);
}
