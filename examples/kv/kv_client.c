/* kv_client: a workload and a read-your-writes checker for kv_server.
 *
 *   kv_client OPS REPLICAS            REPLICAS = host:port,... (primary first)
 *
 * Each operation PUTs the next value of one of KV_CLIENT_KEYS keys to the
 * primary (values strictly increase per key), waits for OK, then GETs the
 * key from a replica chosen by random() (seeded with a fixed seed, so a
 * native run is reproducible; under the simulation the interleavings differ
 * by seed anyway).  The GET must return at least the last acknowledged
 * value: an acknowledged write is never unseen.
 *
 * Invariants: "read_your_writes", and "ok_seq_increases" (the primary
 * numbers writes in order, and this client's writes follow one another).
 * A violation is a DETSIM_CHECK failure in a simulation build and abort()
 * natively.  A failed connection or an ERR syncing reply is retried after a
 * short back-off, at most KV_CLIENT_RETRIES times per operation (then exit
 * 3); the servers may not be listening yet when the client starts.
 *
 * Exit: 0 after "kv_client: OPS ops ok", 2 usage, 3 retries exhausted.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_net.h"

#ifdef __DETSIM__
#include <detsim.h>
#define KV_CHECK(cond, name) DETSIM_CHECK(cond, name)
#define KV_SOMETIMES(cond, name) DETSIM_SOMETIMES(cond, name)
#else
#define KV_SOMETIMES(cond, name) ((void)0)
#define KV_CHECK(cond, name) \
  do { \
    if (!(cond)) abort(); \
  } while (0)
static inline void detsim_progress(void) {}
#endif

#define KV_CLIENT_KEYS 4
/* Tries per operation: with back-offs of 10-50 ms, several seconds for the
 * servers to start or a backup to sync. */
#define KV_CLIENT_RETRIES 200

static struct kv_peer peers[KV_REPLICAS_MAX];
static struct kv_conn conns[KV_REPLICAS_MAX];
static int n_peers;
static const char *last_error = "";

static void back_off(void) { kv_sleep_ms(10 + random() % 41); }

/* Sends one request to replica r and reads its reply, reconnecting first
 * when needed.  0, or -1 with last_error set and the connection closed. */
static int request(int r, const char *req, char *reply, size_t cap) {
  struct kv_conn *c = &conns[r];
  if (c->fd < 0) {
    kv_conn_init(c, kv_connect(&peers[r]));
    if (c->fd < 0) {
      last_error = "connect failed";
      return -1;
    }
  }
  if (kv_send_line(c->fd, "%s", req) != 0 || kv_read_line(c, reply, cap, -1) != 1) {
    last_error = "connection lost";
    kv_conn_close(c);
    return -1;
  }
  return 0;
}

/* Retries request() until the reply starts with `want` (NULL: any reply
 * but an ERR, such as a backup's ERR syncing). */
static void must(int r, const char *req, const char *want, char *reply, size_t cap) {
  for (int attempt = 0; attempt < KV_CLIENT_RETRIES; attempt++) {
    if (request(r, req, reply, cap) == 0) {
      if (want ? strncmp(reply, want, strlen(want)) == 0 : strncmp(reply, "ERR", 3) != 0) {
        /* What a sweep should reach: the report lists any it never did. */
        KV_SOMETIMES(attempt > 0, "an operation succeeded after a failed try");
        return;
      }
      last_error = reply;
    }
    back_off();
  }
  fprintf(stderr, "kv_client: '%s' to %s:%s: %d tries failed, last: %s\n", req, peers[r].host, peers[r].port,
          KV_CLIENT_RETRIES, last_error);
  exit(3);
}

int main(int argc, char **argv) {
  char *end;
  long ops = argc == 3 ? strtol(argv[1], &end, 10) : -1;
  if (argc != 3 || *end || ops < 0) {
    fprintf(stderr, "usage: kv_client OPS host:port,host:port,...  (the first is the primary)\n");
    return 2;
  }
  n_peers = kv_parse_peers(argv[2], peers, KV_REPLICAS_MAX);
  if (n_peers < 0) return 2;
  for (int r = 0; r < n_peers; r++) kv_conn_init(&conns[r], -1);
  srandom(1);

  long next[KV_CLIENT_KEYS] = { 0 }, acked[KV_CLIENT_KEYS] = { 0 };
  uint64_t last_seq = 0;
  char req[KV_LINE_MAX], reply[KV_LINE_MAX];
  for (long i = 0; i < ops; i++) {
    int k = (int)(random() % KV_CLIENT_KEYS);
    long v = ++next[k];
    snprintf(req, sizeof req, "PUT k%d %ld", k, v);
    must(0, req, "OK ", reply, sizeof reply);
    uint64_t seq = strtoull(reply + 3, NULL, 10);
    KV_CHECK(seq > last_seq, "ok_seq_increases");
    last_seq = seq;
    acked[k] = v;

    int r = (int)(random() % n_peers);
    snprintf(req, sizeof req, "GET k%d", k);
    must(r, req, NULL, reply, sizeof reply);
    long got = strncmp(reply, "VALUE ", 6) == 0 ? strtol(reply + 6, NULL, 10) : 0;
    if (got < acked[k])
      fprintf(stderr, "kv_client: STALE READ key=k%d replica=%s:%s got=%ld acked=%ld\n", k, peers[r].host,
              peers[r].port, got, acked[k]);
    KV_CHECK(got >= acked[k], "read_your_writes");
    KV_SOMETIMES(r != 0 && got == acked[k], "a backup served the latest write");
    detsim_progress();
  }
  printf("kv_client: %ld ops ok\n", ops);
  return 0;
}
