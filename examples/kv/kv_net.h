/* kv_net: what kv_server and kv_client share: the replica list, connecting
 * by name, and the line protocol's framing.
 *
 * Every address goes through getaddrinfo (AF_INET, SOCK_STREAM), so the same
 * binary runs natively (every host 127.0.0.1) and as a node of a simulated
 * cluster (hosts kv1, kv2, ... resolved by the simulation).  Every send uses
 * MSG_NOSIGNAL: a peer that went away is an error to handle, not a SIGPIPE.
 */
#ifndef KV_NET_H
#define KV_NET_H

#include <stdbool.h>
#include <stddef.h>

/* Replicas in one list: a primary and up to 15 backups is plenty for an
 * example, and keeps every per-replica array fixed. */
#define KV_REPLICAS_MAX 16
/* One protocol line, newline included.  Keys and values are single words of
 * at most KV_WORD_MAX bytes, so a REPL line always fits. */
#define KV_LINE_MAX 256
#define KV_WORD_MAX 63

struct kv_peer {
  char host[64];
  char port[16];
};

/* Parses "host:port,host:port,...": the count, or -1 with a message. */
int kv_parse_peers(const char *list, struct kv_peer *out, int max);

/* A connected socket to the peer, or -1 with errno set (ECONNREFUSED while
 * the peer is not listening yet). */
int kv_connect(const struct kv_peer *p);
/* A listening socket on every local address at `port`, or -1. */
int kv_listen(const char *port);

/* A connection with its read buffer: replies are read a line at a time. */
struct kv_conn {
  int fd;
  size_t len;
  char buf[4 * KV_LINE_MAX];
};
void kv_conn_init(struct kv_conn *c, int fd);
void kv_conn_close(struct kv_conn *c);
/* Reads one line (without its newline) into line[cap].  1: a line; 0: no
 * line within timeout_ms (-1 waits forever); -1: end of stream, an error,
 * or a line too long for the protocol. */
int kv_read_line(struct kv_conn *c, char *line, size_t cap, int timeout_ms);
/* Sends one formatted line (the newline is added): 0, or -1. */
int kv_send_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sleeps ms milliseconds (virtual time under the simulation). */
void kv_sleep_ms(long ms);

#endif
