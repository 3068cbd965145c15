/* An embedded database in WAL mode on the simulated disk (bench/sqlite_wal.sh):
 * SQLite, whose WAL index (the -shm file) is shared through MAP_SHARED
 * mappings by every connection of every process.
 *
 *   sqlite_wal run DIR THREADS TXNS [PROCS]
 *       DIR/test.db from scratch in WAL mode; PROCS processes (1 or 2: a
 *       fork before any connection) of THREADS threads each, every thread
 *       on its own connection committing TXNS transactions (ROWS rows of
 *       its own, keyed (thread, seq), and its counter row) with a passive
 *       checkpoint every few; then a final TRUNCATE checkpoint and, on
 *       stdout, what the database holds: its row count, a hash of a full
 *       ordered SELECT, the integrity_check answer, and a hash of the bytes
 *       of VACUUM INTO's copy (a function of the content alone, whatever
 *       order the threads committed in).
 *   sqlite_wal node THREADS TXNS
 *       a world's node: the database in disk/ (its data directory), an
 *       oracle of acknowledged commits in ./oracle (outside it: no power
 *       loss touches it).  After a restart it checks the database first:
 *       integrity_check is "ok", each thread's rows are whole transactions
 *       0..n-1 with its counter matching, and no acknowledged commit is
 *       missing; then every thread goes on from where its rows end.  A
 *       failed statement (an injected EIO, ENOSPC) rolls back, reopens the
 *       connection and retries: a commit that failed may or may not be
 *       there after a crash, and either is right.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detsim.h"
#include "sqlite3.h"

#define ROWS 4
#define THREADS_MAX 8
#define CHECKPOINT_EVERY 5

static char db_path[4096];
static bool node_mode;
static unsigned txns;

static _Noreturn void die(sqlite3 *db, const char *what) {
  fprintf(stderr, "sqlite_wal: %s: %s\n", what, db ? sqlite3_errmsg(db) : strerror(errno));
  exit(2);
}

static uint32_t fnv(uint32_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 16777619u;
  return h;
}

/* Row (th, seq)'s value: 64 to 319 bytes of its own. */
static size_t value(unsigned th, unsigned seq, unsigned char *out) {
  uint32_t x = (th + 1) * 2654435761u ^ (seq + 1) * 40503u;
  size_t n = 64 + (x >> 3) % 256;
  for (size_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    out[i] = (unsigned char)(x >> 16);
  }
  return n;
}

static void exec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "sqlite_wal: %s: %s\n", sql, err ? err : "?");
    exit(2);
  }
}

/* A connection, NULL on an error.  A node meets storage faults (an open
 * runs the WAL's recovery, which writes): it retries, a while apart. */
static sqlite3 *open_db(void) {
  for (unsigned tries = 0;; tries++) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
      sqlite3_busy_timeout(db, 60000);
      rc = sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK) return db;
    if (!node_mode || tries == 1000) die(db, "open");
    sqlite3_close(db);
    usleep(10000);
  }
}

/* sqlite3_exec, retried on a node (storage faults) until it succeeds. */
static int exec_retry(sqlite3 *db, const char *sql) {
  for (unsigned tries = 0;; tries++) {
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK || !node_mode || tries == 1000) return rc;
    usleep(10000);
  }
}

/* How many of its rows thread th has committed: n rows, -1 on an error. */
static long rows_of(sqlite3 *db, unsigned th) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM t WHERE th = ?", -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int(st, 1, (int)th);
  long n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return n;
}

static void note_commit(unsigned th, unsigned txn) {
  FILE *f = fopen("oracle", "a");
  if (f == NULL) die(NULL, "oracle");
  fprintf(f, "c %u %u\n", th, txn + 1);
  fclose(f);
}

/* One transaction of thread th: ROWS rows and its counter.  SQLITE_OK, or
 * the error (rolled back). */
static int one_txn(sqlite3 *db, unsigned th, unsigned txn) {
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (rc != SQLITE_OK) return rc;
  sqlite3_stmt *ins = NULL, *up = NULL;
  rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO t(th, seq, v) VALUES (?, ?, ?)", -1, &ins, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO counters(th, n) VALUES (?, ?)", -1, &up, NULL);
  unsigned char v[320];
  for (unsigned k = 0; k < ROWS && rc == SQLITE_OK; k++) {
    unsigned seq = txn * ROWS + k;
    size_t n = value(th, seq, v);
    sqlite3_bind_int(ins, 1, (int)th);
    sqlite3_bind_int(ins, 2, (int)seq);
    sqlite3_bind_blob(ins, 3, v, (int)n, SQLITE_STATIC);
    rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_reset(ins);
  }
  if (rc == SQLITE_OK) {
    sqlite3_bind_int(up, 1, (int)th);
    sqlite3_bind_int(up, 2, (int)txn + 1);
    rc = sqlite3_step(up) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
  }
  sqlite3_finalize(ins);
  sqlite3_finalize(up);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

static void *worker(void *arg) {
  unsigned th = (unsigned)(uintptr_t)arg;
  sqlite3 *db = open_db();
  long have = rows_of(db, th);
  unsigned txn = have > 0 ? (unsigned)(have / ROWS) : 0;
  unsigned failures = 0;
  while (txn < txns) {
    int rc = one_txn(db, th, txn);
    if (rc != SQLITE_OK) {
      /* Busy past the timeout, or a storage fault: start over on a fresh
       * connection from what the database holds. */
      if (!node_mode || ++failures > 1000) die(db, "transaction");
      sqlite3_close(db);
      usleep(10000);
      db = open_db();
      have = rows_of(db, th);
      if (have >= 0) txn = (unsigned)(have / ROWS);
      continue;
    }
    if (node_mode) note_commit(th, txn);
    txn++;
    if (txn % CHECKPOINT_EVERY == 0) sqlite3_exec(db, "PRAGMA wal_checkpoint(PASSIVE)", NULL, NULL, NULL);
    if (txn % 3 == 0 && rows_of(db, th) < 0 && !node_mode) die(db, "read");
    usleep(1000);
  }
  sqlite3_close(db);
  return NULL;
}

static void run_threads(unsigned first, unsigned n) {
  pthread_t t[THREADS_MAX];
  for (unsigned i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(first + i));
  for (unsigned i = 0; i < n; i++) pthread_join(t[i], NULL);
}

static void create_schema(void) {
  sqlite3 *db = open_db();
  const char *sql[] = { "PRAGMA journal_mode=WAL",
                        "CREATE TABLE IF NOT EXISTS t(th INTEGER, seq INTEGER, v BLOB, PRIMARY KEY(th, seq)) WITHOUT ROWID",
                        "CREATE TABLE IF NOT EXISTS counters(th INTEGER PRIMARY KEY, n INTEGER)" };
  for (unsigned i = 0; i < 3; i++)
    if (exec_retry(db, sql[i]) != SQLITE_OK) die(db, sql[i]);
  sqlite3_close(db);
}

/* integrity_check's first line; on a node, a statement that fails (a
 * storage fault while the open recovers the WAL) is retried. */
static char *integrity(sqlite3 *db) {
  static char out[256];
  for (unsigned tries = 0;; tries++) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(st, 0));
    else snprintf(out, sizeof out, "error: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW || !node_mode || tries == 1000) return out;
    usleep(10000);
  }
}

static uint32_t file_hash(const char *path, long *size) {
  int fd = open(path, O_RDONLY);
  uint32_t h = 2166136261u;
  *size = 0;
  if (fd < 0) return 0;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    h = fnv(h, buf, (size_t)n);
    *size += n;
  }
  close(fd);
  return h;
}

static int cmd_run(const char *dir, unsigned threads, unsigned procs) {
  snprintf(db_path, sizeof db_path, "%s/test.db", dir);
  const char *suffix[] = { "", "-wal", "-shm", "-journal" };
  for (unsigned i = 0; i < 4; i++) {
    char p[4200];
    snprintf(p, sizeof p, "%s%s", db_path, suffix[i]);
    unlink(p);
  }
  create_schema();
  fflush(NULL);
  pid_t child = -1;
  if (procs == 2) {
    child = fork();
    if (child < 0) die(NULL, "fork");
    if (child == 0) {
      run_threads(threads, threads);
      _exit(0);
    }
  }
  run_threads(0, threads);
  if (child > 0) {
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) die(NULL, "child");
  }
  sqlite3 *db = open_db();
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT th, seq, v FROM t ORDER BY th, seq", -1, &st, NULL) != SQLITE_OK) die(db, "select");
  uint32_t h = 2166136261u;
  long rows = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int th = sqlite3_column_int(st, 0), seq = sqlite3_column_int(st, 1);
    h = fnv(h, &th, sizeof th);
    h = fnv(h, &seq, sizeof seq);
    h = fnv(h, sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2));
    rows++;
  }
  sqlite3_finalize(st);
  char vac[4200];
  snprintf(vac, sizeof vac, "%s/vacuum.db", dir);
  unlink(vac);
  char sql[4300];
  snprintf(sql, sizeof sql, "VACUUM INTO '%s'", vac);
  exec(db, sql);
  char *ok = integrity(db);
  printf("rows=%ld dump=%08x integrity=%s", rows, h, ok);
  sqlite3_close(db);
  long vsize, dsize;
  uint32_t vh = file_hash(vac, &vsize), dh = file_hash(db_path, &dsize);
  printf(" vacuum_bytes=%ld vacuum=%08x\n", vsize, vh);
  /* The database file itself: its pages' order follows the order the
   * threads committed in, which differs between runs natively. */
  fprintf(stderr, "sqlite_wal: test.db after the checkpoint: %ld bytes, fnv %08x\n", dsize, dh);
  unlink(vac);
  return strcmp(ok, "ok") == 0 && rows == (long)(threads * procs * txns * ROWS) ? 0 : 1;
}

/* ---- a world's node ---- */

static void node_check(unsigned threads) {
  unsigned noted[THREADS_MAX] = { 0 };
  FILE *f = fopen("oracle", "r");
  if (f == NULL) return;
  unsigned th, n;
  while (fscanf(f, " c %u %u", &th, &n) == 2)
    if (th < THREADS_MAX && n > noted[th]) noted[th] = n;
  fclose(f);
  sqlite3 *db = open_db();
  char *ok = integrity(db);
  if (strcmp(ok, "ok") != 0) fprintf(stderr, "sqlite_wal: integrity_check after the restart: %s\n", ok);
  DETSIM_CHECK(strcmp(ok, "ok") == 0, "integrity_check passes after a restart");
  bool beyond = false;
  for (th = 0; th < threads; th++) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT seq FROM t WHERE th = ? ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
      die(db, "select");
    sqlite3_bind_int(st, 1, (int)th);
    unsigned rows = 0;
    bool contiguous = true;
    while (sqlite3_step(st) == SQLITE_ROW) contiguous &= (unsigned)sqlite3_column_int(st, 0) == rows++;
    sqlite3_finalize(st);
    long counter = -1;
    if (sqlite3_prepare_v2(db, "SELECT n FROM counters WHERE th = ?", -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_int(st, 1, (int)th);
      counter = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
      sqlite3_finalize(st);
    }
    if (!contiguous || rows % ROWS || counter != rows / ROWS || rows < noted[th] * ROWS)
      fprintf(stderr, "sqlite_wal: thread %u after the restart: %u rows%s, counter %ld, %u commits acknowledged\n", th,
              rows, contiguous ? "" : " (with gaps)", counter, noted[th]);
    DETSIM_CHECK(contiguous && rows % ROWS == 0, "a thread's rows are whole transactions, in order");
    DETSIM_CHECK(counter == rows / ROWS, "a thread's counter matches its rows");
    DETSIM_CHECK(rows >= noted[th] * ROWS, "an acknowledged commit survives");
    if (rows > noted[th] * ROWS) beyond = true;
  }
  DETSIM_SOMETIMES(beyond, "a commit not yet acknowledged survived");
  sqlite3_close(db);
}

static int cmd_node(unsigned threads) {
  node_mode = true;
  snprintf(db_path, sizeof db_path, "disk/test.db");
  /* The oracle is made once the schema is durable (its commit synced the
   * WAL), so a restart that finds it finds the tables. */
  bool restarted = access("oracle", F_OK) == 0;
  if (restarted) node_check(threads);
  create_schema();
  if (!restarted) {
    FILE *f = fopen("oracle", "w");
    if (f) fclose(f);
  }
  run_threads(0, threads);
  /* Stay up: the client ends the world. */
  for (;;) sleep(100);
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "run") == 0) {
    unsigned threads = (unsigned)atoi(argv[3]), procs = argc > 5 ? (unsigned)atoi(argv[5]) : 1;
    txns = (unsigned)atoi(argv[4]);
    if (threads < 1 || threads > THREADS_MAX / 2 || procs < 1 || procs > 2) return 2;
    return cmd_run(argv[2], threads, procs);
  }
  if (argc == 4 && strcmp(argv[1], "node") == 0) {
    unsigned threads = (unsigned)atoi(argv[2]);
    txns = (unsigned)atoi(argv[3]);
    if (threads < 1 || threads > THREADS_MAX) return 2;
    return cmd_node(threads);
  }
  fprintf(stderr, "usage: sqlite_wal run DIR THREADS TXNS [PROCS] | sqlite_wal node THREADS TXNS\n");
  return 2;
}
