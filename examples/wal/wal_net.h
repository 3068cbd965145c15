/* wal_net: what wal_server and wal_client share: connecting by name,
 * listening, and the line protocol's framing.
 *
 * Addresses go through getaddrinfo (AF_INET, SOCK_STREAM), so the same
 * binary runs natively (the server on 127.0.0.1) and as a node of a
 * simulated world (the server's node name resolved by the simulation).
 * Sends use MSG_NOSIGNAL: a peer that went away is an error to handle.
 */
#ifndef WAL_NET_H
#define WAL_NET_H

#include <stddef.h>

/* One protocol line, newline included: "PUT key version value" with two
 * words of at most WAL_WORD_MAX bytes and a 20-digit version fits. */
#define WAL_LINE_MAX 256

/* Splits "host:port" into its parts: 0, or -1 with a message. */
int wal_split_addr(const char *addr, char *host, size_t host_cap, char *port, size_t port_cap);
/* A connected socket, or -1 with errno set.  timeout_ms > 0 bounds the
 * dial and every later send and receive (SO_SNDTIMEO, SO_RCVTIMEO), so a
 * dead server host costs a timeout, not the kernel's two minutes. */
int wal_connect(const char *host, const char *port, int timeout_ms);
/* A listening socket on every local address at port, or -1. */
int wal_listen(const char *port);

/* A connection with its read buffer: requests and replies are lines. */
struct wal_conn {
  int fd;
  size_t len;
  char buf[4 * WAL_LINE_MAX];
};
void wal_conn_init(struct wal_conn *c, int fd);
void wal_conn_close(struct wal_conn *c);
/* Reads one line (without its newline) into line[cap].  1: a line; -1: end
 * of stream, an error, a timeout, or a line too long for the protocol. */
int wal_read_line(struct wal_conn *c, char *line, size_t cap);
/* Sends one formatted line (the newline is added): 0, or -1. */
int wal_send_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sleeps ms milliseconds (virtual time under the simulation). */
void wal_sleep_ms(long ms);

#endif
