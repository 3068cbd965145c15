/* Sockets' insides, shared by net_sock.c (streams, the port table, names),
 * net_sockopt.c (options), net_udp.c (datagrams) and net_unix_dgram.c (unix
 * datagrams).  Interceptors see only net.h. */
#ifndef DETSIM_NET_SOCK_INTERNAL_H
#define DETSIM_NET_SOCK_INTERNAL_H

#include "net.h"
#include "net_scm.h"
#include "world.h"

enum sock_state { SS_NEW, SS_LISTEN, SS_CONNECTING, SS_CONNECTED };

/* Linux's SYN retransmissions (tcp_syn_retries = 6): 1, 2, 4, ... 64 s
 * apart; connect gives up after 127 s without an answer. */
#define NET_SYN_RETRIES 6
#define NET_SYN_RETRIES_NS (127ull * 1000000000ull)

struct net_conn {
  struct net_stream dir[2];     /* dir[i]: from end i to end 1-i */
  struct net_sock *end[2];      /* NULL once that end is closed */
  bool unix_rules;
  /* AF_UNIX: the messages carrying descriptors in each direction, in
   * stream order (net_scm.h), and how many. */
  struct net_scm *scm_head[2], *scm_tail[2];
  unsigned scm_queued[2];
};

struct sockopt_value { int level, name, value; };

/* Two AF_UNIX SOCK_DGRAM sockets made by socketpair: each end's peer, NULL
 * once it is closed. */
struct net_upair {
  struct net_sock *end[2];
};

struct net_sock {
  struct net_file *file;        /* NULL while a child waits in a backlog */
  int domain, type, protocol;
  unsigned node;                /* the world's node it belongs to */
  enum sock_state state;
  bool bound;
  struct net_addr local, peer;
  /* connection */
  struct net_conn *conn;
  struct net_upair *upair;      /* AF_UNIX SOCK_DGRAM from socketpair */
  int side;
  uint64_t established_at;      /* connecting: the handshake completes */
  uint64_t refused_at;          /* connecting: the RST of a refusal arrives */
  int refuse_err;               /* what the refusal says: ECONNREFUSED, or
                                   ETIMEDOUT for a dial into a dead host */
  bool refused_consumed, rst_consumed;
  int so_error;
  bool shut_rd, shut_wr;
  /* listener */
  struct net_sock **queue;
  unsigned qlen, qcap;
  int backlog;
  uint64_t accepted;            /* children taken by accept (edge triggering) */
  uint64_t ready_at;            /* a child: when accept may take it */
  /* options the model acts on */
  bool reuseaddr, reuseport, v6only, linger_on;
  bool autobound;               /* connect chose the port */
  int linger_s;
  int rcvbuf, sndbuf;
  uint64_t rcvtimeo_ns, sndtimeo_ns;
  struct sockopt_value opts[DETSIM_NET_SOCKOPTS_MAX];
  unsigned nopts;
  struct net_sock *bound_next;  /* the port table */
  /* In a world, every socket of every node (a crash reaches its node's
   * sockets from whichever node applies it). */
  struct net_sock *all_next, *all_prev;
  bool dead_host;               /* its node crashed as a dead host: it hears
                                   nothing and says nothing until the restart */
  bool path_unlinked;           /* AF_UNIX: its path was unlinked: bound, but
                                   nobody finds it by that name */
  /* datagrams (SOCK_DGRAM, net_udp.c): arrived or in flight to this socket */
  struct net_dgram *dq_head, *dq_tail;
  uint64_t dq_bytes, dq_pushed, dq_taken;
  uint64_t dgram_latency_ns, dgram_last_at;  /* as a sender: FIFO per socket */
  bool dgram_latency_drawn;
  unsigned scm_queued;          /* AF_UNIX datagrams carrying descriptors */
};

/* One datagram on its way to, or waiting in, a socket. */
struct net_dgram {
  struct net_dgram *next;
  uint64_t at;                  /* arrival time */
  struct net_addr from;
  size_t len;
  struct net_scm *scm;          /* AF_UNIX: the descriptors it carries */
  uint8_t data[];
};


/* net_sock.c: the port table over bound sockets (stream and datagram ports
 * are separate spaces, as in Linux). */
extern struct net_sock *net__bound_list_local;
/* In a world the list is the world's (every node's sockets, each with its
 * node), so connects find listeners of other nodes. */
#define net__bound_list (*(detsim__ws != NULL ? (struct net_sock **)&detsim__ws->bound_list : &net__bound_list_local))
int net__ephemeral_port(int type, uint16_t *out);
/* Frees a socket (unlinked from the world's list). */
void net__sock_free(struct net_sock *s);
/* The world's list of every socket (NULL outside a world). */
#define net__all_socks (*(struct net_sock **)&detsim__ws->all_socks)
bool net__port_conflict(const struct net_sock *s, uint16_t port);
void net__bind_add(struct net_sock *s);
void net__bind_remove(struct net_sock *s);
void net__source_for(const struct net_sock *s, const struct net_addr *to, struct net_addr *out);
bool net__addr_overlap(const struct net_sock *a, const struct net_sock *b);
/* The pending error (SO_ERROR), cleared. */
int net__sock_take_error(struct net_sock *s);

/* net_udp.c */
int net_udp_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len);
ssize_t net_udp_sendmsg(struct net_file *f, const struct msghdr *msg, int flags);
ssize_t net_udp_recvmsg(struct net_file *f, struct msghdr *msg, int flags);
uint32_t net_udp_poll(struct net_sock *s, uint64_t now);
uint64_t net_udp_next_change(struct net_sock *s, uint64_t now);
uint64_t net_udp_gen(struct net_sock *s, uint64_t now);
uint64_t net_udp_first_len(struct net_sock *s, uint64_t now);
void net_udp_release(struct net_sock *s);
/* A datagram into r's queue, arriving at `at`. */
void net__dgram_enqueue(struct net_sock *r, const struct msghdr *msg, uint64_t len, const struct net_addr *from,
                        uint64_t at);
/* The AF_UNIX socket bound to path a in this node, NULL for none. */
struct net_sock *net__unix_bound(const struct net_addr *a);
/* Whether path a was a closed socket's and is not unlinked yet (its file
 * is left: a connect there is refused, a bind finds it in use). */
bool net__unix_path_stale(const struct net_addr *a);

/* net_unix_dgram.c */
int net_unix_dgram_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len);
/* Takes scm (the message's descriptors, NULL for none): queued with the
 * datagram, or released when the send fails. */
ssize_t net_unix_dgram_sendmsg(struct net_file *f, const struct msghdr *msg, int flags, struct net_scm *scm);
uint32_t net_unix_dgram_poll(struct net_sock *s, uint64_t now);
void net_unix_dgram_pair(struct net_sock *a, struct net_sock *b);
void net_unix_dgram_release(struct net_sock *s);

#endif
