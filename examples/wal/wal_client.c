/* wal_client: a workload and a durability checker for wal_server.
 *
 *   wal_client OPS HOST:PORT
 *
 * Each operation writes the next version of one of WAL_CLIENT_KEYS keys
 * (PUT key version value, the value naming both, so a record mixed up with
 * another one shows), retrying on a new connection until the server says
 * OK, and remembers it as acknowledged.  Then it reads a key chosen by
 * random() (seeded with a fixed seed, so a native run is reproducible) and
 * checks it; at the end it reads back every key.
 *
 * Checks (DETSIM_CHECK in a simulation build, abort() natively):
 *   acked_write_readable   a read returns at least the last acknowledged
 *                          version of the key: no acknowledged write is lost,
 *                          across any number of server crashes and restarts
 *   no_phantom_write       and at most the last version sent (a write that
 *                          was never sent cannot appear), with the value
 *                          that version was written with
 * A failed request (refused, timed out, connection lost, ERR io) is retried
 * after a back-off of 10-50 ms, at most WAL_CLIENT_TRIES times per request
 * (then exit 3: the server never came back).
 *
 * Exit: 0 after "wal_client: OPS ops ok", 2 usage, 3 tries exhausted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wal_check.h"
#include "wal_net.h"

#define WAL_CLIENT_KEYS 8
/* Each try costs at most a back-off and a timeout, so this many is minutes
 * of (virtual) time: longer than any crash, restart or disk fault lasts. */
#define WAL_CLIENT_TRIES 2000
/* A server host that died answers nothing: a request waits this long. */
#define WAL_CLIENT_TIMEOUT_MS 1000
#define WAL_CLIENT_OPS_MAX 1000000

static char host[64], port[16];
static struct wal_conn conn;
static const char *last_error = "";
static int lost_connection;

static void back_off(void) { wal_sleep_ms(10 + random() % 41); }

/* One request and its reply on the connection, dialing first when there is
 * none: 0, or -1 with last_error set and the connection closed. */
static int request(const char *req, char *reply, size_t cap) {
  if (conn.fd < 0) {
    wal_conn_init(&conn, wal_connect(host, port, WAL_CLIENT_TIMEOUT_MS));
    if (conn.fd < 0) {
      last_error = strerror(errno);
      return -1;
    }
  }
  if (wal_send_line(conn.fd, "%s", req) != 0 || wal_read_line(&conn, reply, cap) != 1) {
    last_error = "connection lost or timed out";
    wal_conn_close(&conn);
    lost_connection = 1;
    return -1;
  }
  return 0;
}

/* Retries req until the reply starts with want (NULL: any reply but ERR). */
static void must(const char *req, const char *want, char *reply, size_t cap) {
  int refused = 0;
  for (int attempt = 0; attempt < WAL_CLIENT_TRIES; attempt++) {
    if (request(req, reply, cap) == 0) {
      if (want ? strncmp(reply, want, strlen(want)) == 0 : strncmp(reply, "ERR", 3) != 0) {
        WAL_SOMETIMES(lost_connection, "a request succeeded after reconnecting (server crash or restart)");
        WAL_SOMETIMES(refused, "a request succeeded after an ERR reply (a disk fault)");
        lost_connection = 0;
        return;
      }
      refused = 1;
      last_error = reply;
    }
    back_off();
  }
  fprintf(stderr, "wal_client: '%s' to %s:%s: %d tries failed, last: %s\n", req, host, port, WAL_CLIENT_TRIES,
          last_error);
  exit(3);
}

static uint64_t sent[WAL_CLIENT_KEYS], acked[WAL_CLIENT_KEYS];

/* Reads key k back and checks it against what was sent and acknowledged. */
static void check_key(int k) {
  char req[WAL_LINE_MAX], reply[WAL_LINE_MAX], want[WAL_LINE_MAX], value[WAL_LINE_MAX] = "";
  snprintf(req, sizeof req, "GET k%d", k);
  must(req, NULL, reply, sizeof reply);
  uint64_t got = 0;
  if (strncmp(reply, "VALUE ", 6) == 0 && sscanf(reply + 6, "%" SCNu64 " %255s", &got, value) != 2) got = 0;
  snprintf(want, sizeof want, "v%" PRIu64 "-of-k%d", got, k);
  if (got < acked[k] || got > sent[k] || (got && strcmp(value, want) != 0))
    fprintf(stderr, "wal_client: LOST OR WRONG key=k%d got=%" PRIu64 " value=%s acked=%" PRIu64 " sent=%" PRIu64 "\n", k,
            got, value, acked[k], sent[k]);
  WAL_CHECK(got >= acked[k], "acked_write_readable");
  WAL_CHECK(got <= sent[k] && (got == 0 || strcmp(value, want) == 0), "no_phantom_write");
}

int main(int argc, char **argv) {
  char *end = NULL;
  long ops = argc == 3 ? strtol(argv[1], &end, 10) : -1;
  if (argc != 3 || *end || ops < 0 || ops > WAL_CLIENT_OPS_MAX) {
    fprintf(stderr, "usage: wal_client OPS HOST:PORT   (OPS at most %d)\n", WAL_CLIENT_OPS_MAX);
    return 2;
  }
  if (wal_split_addr(argv[2], host, sizeof host, port, sizeof port) != 0) return 2;
  wal_conn_init(&conn, -1);
  srandom(1);

  char req[WAL_LINE_MAX], reply[WAL_LINE_MAX];
  for (long i = 0; i < ops; i++) {
    int k = (int)(random() % WAL_CLIENT_KEYS);
    uint64_t v = ++sent[k];
    snprintf(req, sizeof req, "PUT k%d %" PRIu64 " v%" PRIu64 "-of-k%d", k, v, v, k);
    must(req, "OK ", reply, sizeof reply);
    acked[k] = v;
    check_key((int)(random() % WAL_CLIENT_KEYS));
    detsim_progress();
  }
  for (int k = 0; k < WAL_CLIENT_KEYS; k++) check_key(k);
  wal_conn_close(&conn);
  printf("wal_client: %ld ops ok\n", ops);
  return 0;
}
