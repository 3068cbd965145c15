/* kv_server: one replica of a primary-backup key-value service.
 *
 *   kv_server NAME PORT REPLICAS      REPLICAS = host:port,host:port,...
 *
 * The first replica of the list is the primary, the others are backups; this
 * server is the entry whose host is NAME and whose port is PORT (natively
 * every host is 127.0.0.1 and the port tells them apart; in a simulated
 * cluster each node has its own name).
 *
 * Protocol, one request and one reply per line:
 *   PUT key value        primary: OK seq, once every synced backup ACKed seq;
 *                        a backup: ERR notprimary
 *   GET key              VALUE value | NOTFOUND | ERR syncing (a backup that
 *                        has not installed its snapshot yet)
 *   SYNC host:port       a backup asks the primary for its state:
 *                        SNAP seq n, then n lines KV key value
 *   REPL seq key value   primary -> backup: applied in seq order; the reply
 *                        ACK n says every seq up to n is applied
 *
 * Threads: an accept thread (main), one per connection, and on the primary
 * one replication thread per backup that keeps a connection, reconnects
 * after failures and resends what is unacked every KV_RESEND_MS.  On a
 * backup, one sync thread fetches the snapshot at start (a restarted backup
 * has lost its memory and starts over the same way).
 *
 * The planted bug (-DKV_PLANTED_BUG, the kv_server_buggy target): the
 * primary answers OK as soon as the write is queued for replication, before
 * the backups ACKed it, so a read from a backup right after can be stale.
 *
 * Limits: a primary that restarts loses its data (there is no failover);
 * keys and values are single words of at most KV_WORD_MAX bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kv_net.h"

#define KV_KEYS_MAX 1024
/* Writes the primary remembers for resending.  A PUT waits while the
 * slowest synced backup is this far behind, so nothing unacked is lost. */
#define KV_LOG_MAX 1024
#define KV_RESEND_MS 50
#define KV_SYNC_RETRY_MS 50

struct kv_entry {
  char key[KV_WORD_MAX + 1];
  char value[KV_WORD_MAX + 1];
};

struct kv_write {
  uint64_t seq;
  struct kv_entry e;
};

/* Everything shared, under one lock; one condition variable (on
 * CLOCK_MONOTONIC) wakes PUTs waiting for acks and replication threads
 * waiting for writes. */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n_peers, self;
  struct kv_peer peers[KV_REPLICAS_MAX];
  bool synced; /* a backup: the snapshot is installed; the primary: always */
  uint64_t seq; /* the last write applied here */
  unsigned n_keys;
  struct kv_entry keys[KV_KEYS_MAX];
  struct kv_write log[KV_LOG_MAX]; /* primary: write seq lives at log[seq % KV_LOG_MAX] */
  bool backup_synced[KV_REPLICAS_MAX]; /* primary: this backup has asked SYNC */
  uint64_t acked[KV_REPLICAS_MAX];     /* primary: every seq <= acked is on the backup */
} kv = { .mu = PTHREAD_MUTEX_INITIALIZER };

static bool is_primary(void) { return kv.self == 0; }

/* Caller holds kv.mu. */
static struct kv_entry *lookup(const char *key, bool create) {
  for (unsigned i = 0; i < kv.n_keys; i++)
    if (strcmp(kv.keys[i].key, key) == 0) return &kv.keys[i];
  if (!create || kv.n_keys == KV_KEYS_MAX) return NULL;
  struct kv_entry *e = &kv.keys[kv.n_keys++];
  snprintf(e->key, sizeof e->key, "%s", key);
  e->value[0] = '\0';
  return e;
}

static bool apply(const char *key, const char *value) {
  struct kv_entry *e = lookup(key, true);
  if (e) snprintf(e->value, sizeof e->value, "%s", value);
  return e != NULL;
}

static void wait_ms(long ms) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  t.tv_nsec += ms * 1000000L;
  t.tv_sec += t.tv_nsec / 1000000000L;
  t.tv_nsec %= 1000000000L;
  pthread_cond_timedwait(&kv.cv, &kv.mu, &t);
}

/* Caller holds kv.mu.  The lowest seq some synced backup still lacks, minus
 * one (kv.seq when every backup has everything). */
static uint64_t min_acked(void) {
  uint64_t m = kv.seq;
  for (int b = 1; b < kv.n_peers; b++)
    if (kv.backup_synced[b] && kv.acked[b] < m) m = kv.acked[b];
  return m;
}

/* The primary's PUT: returns the write's seq, or 0 when the store is full. */
static uint64_t put(const char *key, const char *value) {
  pthread_mutex_lock(&kv.mu);
  while (kv.seq - min_acked() >= KV_LOG_MAX) wait_ms(KV_RESEND_MS);
  if (!apply(key, value)) {
    pthread_mutex_unlock(&kv.mu);
    return 0;
  }
  uint64_t seq = ++kv.seq;
  struct kv_write *w = &kv.log[seq % KV_LOG_MAX];
  w->seq = seq;
  w->e = *lookup(key, false);
  pthread_cond_broadcast(&kv.cv);
#ifndef KV_PLANTED_BUG
  /* The write is acknowledged only once it cannot be lost or unseen: every
   * backup that serves reads has it.  An unreachable backup holds the PUT
   * until it is back (its replication thread keeps retrying). */
  while (min_acked() < seq) wait_ms(KV_RESEND_MS);
#endif
  pthread_mutex_unlock(&kv.mu);
  return seq;
}

static int peer_index(const char *host, const char *port) {
  for (int i = 0; i < kv.n_peers; i++)
    if (strcmp(kv.peers[i].host, host) == 0 && strcmp(kv.peers[i].port, port) == 0) return i;
  return -1;
}

/* The primary's side of SYNC: the snapshot and its seq are taken under the
 * lock, so no write falls between them, and from then on PUTs wait for this
 * backup.  They are sent outside it: a slow backup must not stall the
 * others.  If the send fails the backup asks again, and PUTs wait for it
 * meanwhile, as for any synced backup that went away.  Its acked seq only
 * comes down here: it goes up with the backup's ACKs. */
static int sync_backup(int fd, const char *who) {
  char host[64], port[16];
  if (sscanf(who, "%63[^:]:%15s", host, port) != 2) return kv_send_line(fd, "ERR bad sync");
  int b = peer_index(host, port);
  if (b <= 0) return kv_send_line(fd, "ERR unknown backup %s", who);
  struct kv_entry *snap = malloc(sizeof kv.keys);
  if (!snap) return -1;
  pthread_mutex_lock(&kv.mu);
  uint64_t seq = kv.seq;
  unsigned n = kv.n_keys;
  memcpy(snap, kv.keys, n * sizeof *snap);
  kv.backup_synced[b] = true;
  /* Never more than the backup confirmed or this snapshot gives: a SYNC can
   * be stale (read from a connection the backup gave up on, after the one
   * whose snapshot it installed), and a later ACK says what it really has. */
  if (kv.acked[b] > seq) kv.acked[b] = seq;
  pthread_mutex_unlock(&kv.mu);
  int rc = kv_send_line(fd, "SNAP %" PRIu64 " %u", seq, n);
  for (unsigned i = 0; rc == 0 && i < n; i++) rc = kv_send_line(fd, "KV %s %s", snap[i].key, snap[i].value);
  free(snap);
  return rc;
}

/* A backup's side of REPL: applies in order; the reply is cumulative, so a
 * resent or early write is answered with what is really applied. */
static int replicate(int fd, uint64_t seq, const char *key, const char *value) {
  pthread_mutex_lock(&kv.mu);
  bool synced = kv.synced;
  if (synced && seq == kv.seq + 1 && apply(key, value)) kv.seq = seq;
  uint64_t applied = kv.seq;
  pthread_mutex_unlock(&kv.mu);
  return synced ? kv_send_line(fd, "ACK %" PRIu64, applied) : kv_send_line(fd, "ERR syncing");
}

static int get(int fd, const char *key) {
  pthread_mutex_lock(&kv.mu);
  char value[KV_WORD_MAX + 1] = "";
  bool synced = kv.synced;
  struct kv_entry *e = lookup(key, false);
  if (e) snprintf(value, sizeof value, "%s", e->value);
  pthread_mutex_unlock(&kv.mu);
  if (!synced) return kv_send_line(fd, "ERR syncing");
  return e ? kv_send_line(fd, "VALUE %s", value) : kv_send_line(fd, "NOTFOUND");
}

static int serve_line(int fd, const char *line) {
  char a[KV_WORD_MAX + 1], b[KV_WORD_MAX + 1];
  uint64_t seq;
  if (sscanf(line, "PUT %63s %63s", a, b) == 2) {
    if (!is_primary()) return kv_send_line(fd, "ERR notprimary");
    seq = put(a, b);
    return seq ? kv_send_line(fd, "OK %" PRIu64, seq) : kv_send_line(fd, "ERR full");
  }
  if (sscanf(line, "GET %63s", a) == 1) return get(fd, a);
  if (sscanf(line, "SYNC %63s", a) == 1)
    return is_primary() ? sync_backup(fd, a) : kv_send_line(fd, "ERR notprimary");
  if (sscanf(line, "REPL %" SCNu64 " %63s %63s", &seq, a, b) == 3)
    return is_primary() ? kv_send_line(fd, "ERR primary") : replicate(fd, seq, a, b);
  return kv_send_line(fd, "ERR bad request");
}

static void *connection_thread(void *arg) {
  struct kv_conn c;
  kv_conn_init(&c, (int)(intptr_t)arg);
  char line[KV_LINE_MAX];
  while (kv_read_line(&c, line, sizeof line, -1) == 1)
    if (serve_line(c.fd, line) != 0) break;
  kv_conn_close(&c);
  return NULL;
}

/* Sends backup b everything it has not acked and reads its acks for up to
 * KV_RESEND_MS.  Returns -1 when the connection failed. */
static int replicate_round(struct kv_conn *c, int b) {
  struct kv_write batch[64];
  int n = 0;
  pthread_mutex_lock(&kv.mu);
  for (uint64_t s = kv.acked[b] + 1; s <= kv.seq && n < 64; s++) batch[n++] = kv.log[s % KV_LOG_MAX];
  pthread_mutex_unlock(&kv.mu);
  for (int i = 0; i < n; i++)
    if (kv_send_line(c->fd, "REPL %" PRIu64 " %s %s", batch[i].seq, batch[i].e.key, batch[i].e.value) != 0)
      return -1;
  char line[KV_LINE_MAX];
  uint64_t acked;
  for (;;) {
    int r = kv_read_line(c, line, sizeof line, KV_RESEND_MS);
    if (r < 0) return -1;
    if (r == 0) return 0;
    if (sscanf(line, "ACK %" SCNu64, &acked) != 1) continue; /* ERR syncing: resent later */
    pthread_mutex_lock(&kv.mu);
    if (acked > kv.acked[b] && acked <= kv.seq) kv.acked[b] = acked;
    bool done = kv.acked[b] >= (n ? batch[n - 1].seq : 0);
    pthread_cond_broadcast(&kv.cv);
    pthread_mutex_unlock(&kv.mu);
    if (done) return 0;
  }
}

static void *replication_thread(void *arg) {
  int b = (int)(intptr_t)arg;
  struct kv_conn c;
  kv_conn_init(&c, -1);
  for (;;) {
    pthread_mutex_lock(&kv.mu);
    while (!kv.backup_synced[b] || kv.acked[b] >= kv.seq) wait_ms(KV_RESEND_MS);
    pthread_mutex_unlock(&kv.mu);
    if (c.fd < 0) {
      int fd = kv_connect(&kv.peers[b]);
      if (fd < 0) {
        kv_sleep_ms(KV_RESEND_MS);
        continue;
      }
      kv_conn_init(&c, fd);
    }
    if (replicate_round(&c, b) != 0) kv_conn_close(&c);
  }
  return NULL;
}

/* A backup fetches the primary's state before it answers any GET.  The
 * snapshot is read whole before it is installed, so the lock is never held
 * across the network. */
static int fetch_snapshot(struct kv_conn *c) {
  char line[KV_LINE_MAX];
  uint64_t seq;
  unsigned n;
  if (kv_send_line(c->fd, "SYNC %s:%s", kv.peers[kv.self].host, kv.peers[kv.self].port) != 0) return -1;
  if (kv_read_line(c, line, sizeof line, -1) != 1) return -1;
  if (sscanf(line, "SNAP %" SCNu64 " %u", &seq, &n) != 2 || n > KV_KEYS_MAX) {
    fprintf(stderr, "kv_server: SYNC refused: %s\n", line);
    return -1;
  }
  struct kv_entry *snap = malloc(sizeof kv.keys);
  if (!snap) return -1;
  unsigned got = 0;
  while (got < n && kv_read_line(c, line, sizeof line, -1) == 1 &&
         sscanf(line, "KV %63s %63s", snap[got].key, snap[got].value) == 2)
    got++;
  if (got == n) {
    pthread_mutex_lock(&kv.mu);
    memcpy(kv.keys, snap, n * sizeof *snap);
    kv.n_keys = n;
    kv.seq = seq;
    kv.synced = true;
    pthread_mutex_unlock(&kv.mu);
  }
  free(snap);
  return got == n ? 0 : -1;
}

static void *sync_thread(void *arg) {
  (void)arg;
  for (;;) {
    struct kv_conn c;
    kv_conn_init(&c, kv_connect(&kv.peers[0]));
    int rc = c.fd >= 0 ? fetch_snapshot(&c) : -1;
    kv_conn_close(&c);
    if (rc == 0) return NULL;
    kv_sleep_ms(KV_SYNC_RETRY_MS);
  }
}

static void start_thread(void *(*fn)(void *), intptr_t arg) {
  pthread_t t;
  int rc = pthread_create(&t, NULL, fn, (void *)arg);
  if (rc != 0) {
    fprintf(stderr, "kv_server: pthread_create: %s\n", strerror(rc));
    exit(1);
  }
  pthread_detach(t);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: kv_server NAME PORT host:port,host:port,...  (the first is the primary)\n");
    return 2;
  }
  kv.n_peers = kv_parse_peers(argv[3], kv.peers, KV_REPLICAS_MAX);
  if (kv.n_peers < 0) return 2;
  kv.self = peer_index(argv[1], argv[2]);
  if (kv.self < 0) {
    fprintf(stderr, "kv_server: %s:%s is not in the replica list %s\n", argv[1], argv[2], argv[3]);
    return 2;
  }
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&kv.cv, &ca);
  pthread_condattr_destroy(&ca);

  int lfd = kv_listen(argv[2]);
  if (lfd < 0) {
    fprintf(stderr, "kv_server: cannot listen on port %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  kv.synced = is_primary();
  if (is_primary())
    for (int b = 1; b < kv.n_peers; b++) start_thread(replication_thread, b);
  else
    start_thread(sync_thread, 0);
  for (;;) {
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      fprintf(stderr, "kv_server: accept: %s\n", strerror(errno));
      return 1;
    }
    start_thread(connection_thread, fd);
  }
}
