/* TCP urgent data (MSG_OOB), as Linux's tcp_check_urg, tcp_urg and
 * tcp_recv_urg have it.
 *
 * A send with MSG_OOB marks its last byte urgent (the urgent pointer; a
 * send that blocks part way marks the last byte of each piece, as each of
 * Linux's pushes does).  The byte stays in the stream: the receiver learns
 * of the mark when the byte arrives, and then
 *  - without SO_OOBINLINE, recv(MSG_OOB) returns that one byte (once; then
 *    EINVAL) and normal reads leave it out: a read stops before the mark,
 *    and the next one starts after the byte;
 *  - with SO_OOBINLINE the byte is read in the stream (reads still stop
 *    before the mark) and recv(MSG_OOB) is EINVAL;
 *  - SIOCATMARK (sockatmark) is true while the next byte to read is the
 *    mark; POLLPRI while an urgent byte is there to take with MSG_OOB;
 *  - a later mark replaces an earlier one: the earlier byte, unread,
 *    becomes normal data (unless the reader is at that mark, when it is
 *    dropped, as Linux's "care" for a last byte read that was urgent);
 *  - reading past the mark forgets it (recv(MSG_OOB) is EINVAL again);
 *  - the owner set with F_SETOWN gets SIGURG when a mark arrives.
 * Marks arrive lazily, as data does: the receiver applies the marks whose
 * byte has arrived when it acts on the socket (net_oob_settle), and a pure
 * view gives poll the same answer without acting.
 */
#include <string.h>

#include "core/core.h"
#include "net/net.h"
#include "proc/proc.h"
#include "signal/signal.h"
#include "world/world.h"

/* SIGURGs due at arrival times, earliest first (this process's owners). */
static uint64_t sigurg_at[DETSIM_NET_URG_MARKS_MAX];
static unsigned sigurg_n;

uint64_t net_sigurg_next(void) { return sigurg_n ? sigurg_at[0] : DETSIM_NO_DEADLINE; }

void net_sigurg_taken(uint64_t now) {
  unsigned k = 0;
  while (k < sigurg_n && sigurg_at[k] <= now) k++;
  memmove(&sigurg_at[0], &sigurg_at[k], (sigurg_n - k) * sizeof sigurg_at[0]);
  sigurg_n -= k;
}

/* One more SIGURG at `at` (a full table folds it into the last: standard
 * signals merge while pending anyway). */
static void sigurg_schedule(uint64_t at) {
  if (sigurg_n == DETSIM_NET_URG_MARKS_MAX) {
    if (sigurg_at[sigurg_n - 1] < at) sigurg_at[sigurg_n - 1] = at;
  } else {
    unsigned i = sigurg_n++;
    while (i > 0 && sigurg_at[i - 1] > at) {
      sigurg_at[i] = sigurg_at[i - 1];
      i--;
    }
    sigurg_at[i] = at;
  }
  detsim__sig_timers_changed();
}

void net_oob_mark(struct net_stream *out, const struct net_file *receiver) {
  CHECK(out->tail > out->head);
  struct net_urg_mark m = { out->tail - 1, out->last_at, false };
  /* A receiver of this process with an owner hears of the mark when it
   * arrives; another process's hears at its next look (net_oob_settle). */
  if (receiver != NULL && receiver->owner != 0 && out->dst == detsim__host_index &&
      (receiver->owner == detsim__proc_pid() || receiver->owner == -detsim__proc_pgid())) {
    m.signaled = true;
    sigurg_schedule(m.at);
  }
  if (out->urg_sent_n == DETSIM_NET_URG_MARKS_MAX) {
    out->urg_sent[out->urg_sent_n - 1] = m; /* the later mark replaces the last (see limits.h) */
    return;
  }
  out->urg_sent[out->urg_sent_n++] = m;
}

/* The receiver's urgent state, and its next unread byte. */
struct urg_state {
  uint8_t state, byte;
  uint64_t seq, head;
};

/* tcp_check_urg and tcp_urg for one mark whose byte has arrived. */
static void apply(struct urg_state *u, const struct net_stream *in, uint64_t seq, bool oobinline) {
  if (u->head > seq) return;                                  /* read past already */
  if (u->state != NET_URG_NONE && seq <= u->seq) return;      /* not newer */
  if (u->state != NET_URG_NONE && u->seq == u->head && !oobinline) u->head++; /* the old byte goes */
  u->state = NET_URG_VALID;
  u->seq = seq;
  u->byte = net_stream_byte_at(in, seq);
}

/* Marks sent before `end` (the offset bytes have arrived up to). */
static unsigned arrived_marks(const struct net_stream *in, uint64_t end) {
  unsigned n = 0;
  while (n < in->urg_sent_n && in->urg_sent[n].seq < end) n++;
  return n;
}

void net_oob_view(const struct net_stream *in, bool oobinline, uint64_t now, struct net_urg_view *v) {
  struct urg_state u = { in->urg_state, in->urg_byte, in->urg_seq, in->head };
  uint64_t end = in->head + net_stream_avail(in, now);
  unsigned n = arrived_marks(in, end);
  for (unsigned i = 0; i < n; i++) apply(&u, in, in->urg_sent[i].seq, oobinline);
  v->state = u.state;
  v->byte = u.byte;
  v->seq = u.seq;
  v->skipped = u.head - in->head;
  v->at_mark = u.state != NET_URG_NONE && u.seq == u.head;
}

unsigned net_oob_settle(struct net_stream *in, bool oobinline, uint64_t now) {
  if (in->urg_sent_n == 0) return 0;
  uint64_t end = in->head + net_stream_avail(in, now);
  unsigned n = arrived_marks(in, end);
  if (n == 0) return 0;
  struct urg_state u = { in->urg_state, in->urg_byte, in->urg_seq, in->head };
  unsigned signals = 0;
  for (unsigned i = 0; i < n; i++) {
    apply(&u, in, in->urg_sent[i].seq, oobinline);
    signals += !in->urg_sent[i].signaled;
  }
  if (u.head > in->head) net_stream_discard(in, u.head - in->head, now);
  in->urg_state = u.state;
  in->urg_byte = u.byte;
  in->urg_seq = u.seq;
  memmove(&in->urg_sent[0], &in->urg_sent[n], (in->urg_sent_n - n) * sizeof in->urg_sent[0]);
  in->urg_sent_n -= n;
  return signals;
}

void net_oob_consumed(struct net_stream *in) {
  /* tcp_recvmsg: once the reader is past the mark, it is forgotten. */
  if (in->urg_state != NET_URG_NONE && in->head > in->urg_seq) in->urg_state = NET_URG_NONE;
}

void net_oob_abort(struct net_stream *s) {
  /* What was dropped unsent takes its marks with it. */
  while (s->urg_sent_n > 0 && s->urg_sent[s->urg_sent_n - 1].seq >= s->tail) s->urg_sent_n--;
}
