/* wal_server: a small durable key-value service over a write-ahead log.
 *
 *   wal_server PORT [--dir DIR] [--compact-every N]
 *
 * Protocol, one request and one reply per line:
 *   PUT key version value   OK seq, once the write is durable (or already
 *                           superseded by a newer version of the key);
 *                           ERR io when the disk failed it (not applied:
 *                           retry), ERR full, ERR bad
 *   GET key                 VALUE version value | NOTFOUND
 *
 * Durability (wal_log.h, wal_snap.h): a PUT is appended to DIR/wal.log as a
 * checksummed record and fsynced before it is applied and acknowledged.  At
 * start the server loads DIR/snapshot, replays the log after it (stopping
 * at the first torn or bad record and truncating it away), and every N
 * appended records (default 16) compacts: the whole state goes to a new
 * snapshot (tmp + fsync + rename + fsync of DIR) and the log is emptied.
 * DIR (default ".", the working directory) is created when missing, and its
 * parent synced so the new directory's name is durable too.
 *
 * Threads: the accept loop (main) and one per connection, at most
 * WAL_CONNS_MAX; one lock orders every write, so records are appended and
 * synced one at a time (no group commit: the example keeps it plain).
 *
 * Planted bugs (build options, the wal_server_* variants):
 *   WAL_BUG_ACK_BEFORE_FSYNC   OK is sent after the write, before its fsync
 *   WAL_BUG_RENAME_NO_DIRSYNC  the snapshot's rename is not followed by an
 *                              fsync of the directory (wal_snap.c)
 * Both lose acknowledged writes only when a host crash drops what was not
 * durable: a simulated disk at level 3 finds them; a process crash or real
 * files at levels 1 and 2 cannot.
 *
 * Exit: 2 usage, 1 when the data directory cannot be opened or recovered
 * (a corrupt snapshot, an unreadable log): it says which.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wal_check.h"
#include "wal_log.h"
#include "wal_net.h"
#include "wal_snap.h"
#include "wal_state.h"

/* Connections served at once: the example's clients hold one or two each;
 * past it a new connection is closed at once (the client retries). */
#define WAL_CONNS_MAX 64
#define WAL_COMPACT_EVERY_DEFAULT 16
#define WAL_COMPACT_EVERY_MAX 1000000
/* A disk that fails at start (EIO, a full disk) may come back, as a disk
 * does after an operator frees space: the server tries this often, this
 * far apart, before it gives up. */
#define WAL_START_TRIES 50
#define WAL_START_RETRY_US 200000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct wal_state state;
static struct wal_log wlog;
static int dir_fd = -1;
static long compact_every = WAL_COMPACT_EVERY_DEFAULT;
static long since_compaction;
static int n_conns;

static void usage(void) {
  fprintf(stderr, "usage: wal_server PORT [--dir DIR] [--compact-every N]\n");
  exit(2);
}

/* Snapshot the state and empty the log; on failure the log keeps
 * everything and the next PUT tries again.  Called with the lock held. */
static void compact(void) {
  if (wal_snap_write(dir_fd, &state) != 0) {
    fprintf(stderr, "wal_server: compaction: snapshot: %s (the log keeps everything)\n", strerror(errno));
    return;
  }
  if (wal_log_reset(&wlog) != 0) {
    fprintf(stderr, "wal_server: compaction: emptying the log: %s\n", strerror(errno));
    return;
  }
  since_compaction = 0;
  WAL_SOMETIMES(1, "compaction done");
}

/* Handles PUT: the reply line into reply[cap]. */
static void put(const char *key, uint64_t version, const char *value, char *reply, size_t cap) {
  pthread_mutex_lock(&lock);
  if (!wal_state_is_newer(&state, key, version)) {
    /* A retry of a write already durable, or one a newer write superseded. */
    snprintf(reply, cap, "OK %" PRIu64, state.seq);
    pthread_mutex_unlock(&lock);
    return;
  }
  if (!wal_state_has_room(&state, key)) {
    snprintf(reply, cap, "ERR full");
    pthread_mutex_unlock(&lock);
    return;
  }
  struct wal_entry e = { .version = version };
  strcpy(e.key, key);
  strcpy(e.value, value);
  uint64_t seq = state.seq + 1;
  if (wal_log_write(&wlog, seq, &e) != 0) {
    fprintf(stderr, "wal_server: log write: %s\n", strerror(errno));
    snprintf(reply, cap, "ERR io");
    pthread_mutex_unlock(&lock);
    return;
  }
#ifndef WAL_BUG_ACK_BEFORE_FSYNC
  if (wal_log_sync(&wlog) != 0) {
    fprintf(stderr, "wal_server: log fsync: %s (the write is given up)\n", strerror(errno));
    snprintf(reply, cap, "ERR io");
    pthread_mutex_unlock(&lock);
    return;
  }
#endif
  wal_state_set(&state, key, version, value);
  state.seq = seq;
  snprintf(reply, cap, "OK %" PRIu64, seq);
#ifndef WAL_BUG_ACK_BEFORE_FSYNC
  if (++since_compaction >= compact_every) compact();
#endif
  pthread_mutex_unlock(&lock);
}

/* The planted bug's late fsync, after the OK went out. */
static void sync_after_ack(void) {
#ifdef WAL_BUG_ACK_BEFORE_FSYNC
  pthread_mutex_lock(&lock);
  if (wal_log_sync(&wlog) != 0) fprintf(stderr, "wal_server: log fsync: %s\n", strerror(errno));
  else if (++since_compaction >= compact_every) compact();
  pthread_mutex_unlock(&lock);
#endif
}

static void handle(const char *line, char *reply, size_t cap) {
  char cmd[8], key[WAL_WORD_MAX + 2], value[WAL_WORD_MAX + 2], ver[24], extra[2];
  int n = sscanf(line, "%7s %64s %23s %64s %1s", cmd, key, ver, value, extra);
  char *end;
  if (n == 4 && strcmp(cmd, "PUT") == 0 && wal_word_ok(key) && wal_word_ok(value)) {
    errno = 0;
    uint64_t v = strtoull(ver, &end, 10);
    if (*end == '\0' && errno == 0 && v > 0) {
      put(key, v, value, reply, cap);
      return;
    }
  } else if (n == 2 && strcmp(cmd, "GET") == 0 && wal_word_ok(key)) {
    pthread_mutex_lock(&lock);
    const struct wal_entry *e = wal_state_get(&state, key);
    if (e) snprintf(reply, cap, "VALUE %" PRIu64 " %s", e->version, e->value);
    else snprintf(reply, cap, "NOTFOUND");
    pthread_mutex_unlock(&lock);
    return;
  }
  snprintf(reply, cap, "ERR bad");
}

static void *serve(void *arg) {
  struct wal_conn c;
  wal_conn_init(&c, (int)(intptr_t)arg);
  char line[WAL_LINE_MAX], reply[WAL_LINE_MAX];
  while (wal_read_line(&c, line, sizeof line) == 1) {
    handle(line, reply, sizeof reply);
    if (wal_send_line(c.fd, "%s", reply) != 0) break;
    if (strncmp(line, "PUT", 3) == 0 && strncmp(reply, "OK", 2) == 0) sync_after_ack();
  }
  wal_conn_close(&c);
  pthread_mutex_lock(&lock);
  n_conns--;
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* Opens DIR, creating it (and syncing its parent) when missing. */
static int open_dir(const char *dir) {
  if (mkdir(dir, 0755) == 0) {
    char *copy = strdup(dir);
    int parent = copy ? open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    int ok = parent >= 0 && fsync(parent) == 0;
    if (parent >= 0) close(parent);
    free(copy);
    if (!ok) {
      fprintf(stderr, "wal_server: cannot make the new directory %s durable: %s\n", dir, strerror(errno));
      return -1;
    }
  } else if (errno != EEXIST) {
    fprintf(stderr, "wal_server: cannot create %s: %s\n", dir, strerror(errno));
    return -1;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fprintf(stderr, "wal_server: cannot open directory %s: %s\n", dir, strerror(errno));
  return fd;
}

int main(int argc, char **argv) {
  const char *port = NULL, *dir = ".";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (strcmp(argv[i], "--compact-every") == 0 && i + 1 < argc) {
      char *end;
      compact_every = strtol(argv[++i], &end, 10);
      if (*end || compact_every < 1 || compact_every > WAL_COMPACT_EVERY_MAX) usage();
    } else if (!port && argv[i][0] != '-') {
      port = argv[i];
    } else {
      usage();
    }
  }
  if (!port) usage();
  uint64_t snap_seq = 0;
  struct wal_replay r;
  for (int tries = 1;; tries++) {
    memset(&state, 0, sizeof state);
    memset(&wlog, 0, sizeof wlog);
    dir_fd = open_dir(dir);
    if (dir_fd >= 0 && wal_snap_load(dir_fd, &state) == 0) {
      snap_seq = state.seq;
      if (wal_log_open(&wlog, dir_fd, &state, &r) == 0) break;
    }
    if (dir_fd >= 0) close(dir_fd);
    if (tries == WAL_START_TRIES) return 1;
    fprintf(stderr, "wal_server: start failed (try %d of %d); trying again\n", tries, WAL_START_TRIES);
    usleep(WAL_START_RETRY_US);
  }
  fprintf(stderr, "wal_server: recovered seq=%" PRIu64 " keys=%u (snapshot seq=%" PRIu64 ", %u log records, %u stale, %" PRIu64
          " torn bytes cut)\n",
          state.seq, state.n, snap_seq, r.records, r.stale, r.torn_bytes);
  WAL_SOMETIMES(r.torn_bytes > 0, "recovered a torn log tail");
  WAL_SOMETIMES(r.records > 0, "replayed log records at start");
  WAL_SOMETIMES(snap_seq > 0, "loaded a snapshot at start");

  int lfd = wal_listen(port);
  if (lfd < 0) {
    fprintf(stderr, "wal_server: cannot listen on port %s: %s\n", port, strerror(errno));
    return 1;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (;;) {
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) continue;
      fprintf(stderr, "wal_server: accept: %s\n", strerror(errno));
      return 1;
    }
    pthread_mutex_lock(&lock);
    int room = n_conns < WAL_CONNS_MAX;
    if (room) n_conns++;
    pthread_mutex_unlock(&lock);
    pthread_t t;
    if (!room || pthread_create(&t, &attr, serve, (void *)(intptr_t)fd) != 0) {
      if (room) {
        pthread_mutex_lock(&lock);
        n_conns--;
        pthread_mutex_unlock(&lock);
      }
      close(fd);
    }
  }
}
