/* net/: the one header of the runtime's net part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_NET_PART_H
#define DETSIM_NET_PART_H

/* Descriptors in flight over simulated unix sockets (SCM_RIGHTS), as
 * Linux's scm: a message that carries descriptors holds a reference to
 * each file (closing the sender's descriptor keeps the file alive), and a
 * receive installs new descriptors for them (the lowest free numbers,
 * MSG_CMSG_CLOEXEC), or MSG_CTRUNC and drops those the control buffer has
 * no room for.  A message never received gives its references back when
 * its queue goes (the receiving socket closes).
 *
 * A real descriptor (a regular file) may be passed while the run is one
 * process: the message holds a real duplicate of it, which the receive
 * moves to the lowest free number.  In a world of several processes it is
 * refused (EOPNOTSUPP, named): the receiver may be another real process.
 */

#include <stdint.h>
#include <sys/socket.h>

struct net_file;

struct net_scm_fd {
  struct net_file *file;  /* a simulated file, or NULL */
  int real_fd;            /* the real duplicate when file is NULL */
};

struct net_scm {
  struct net_scm *next;   /* the next message with descriptors in its queue */
  uint64_t start, end;    /* a stream: the bytes of the piece it travels with */
  unsigned n;
  struct net_scm_fd fds[];
};

/* sendmsg's control messages: SCM_RIGHTS descriptors (a reference to each
 * taken) and SCM_CREDENTIALS (checked against the sender's virtual pid and
 * real ids, else EPERM; not passed on).  0 with *out (NULL: no
 * descriptors), or an errno: EINVAL (a malformed or unknown control
 * message, more than DETSIM_NET_SCM_FDS_MAX descriptors), EBADF,
 * EOPNOTSUPP (a real descriptor between processes). */
int net_scm_from_msg(const struct msghdr *msg, struct net_scm **out);
/* Gives a message's references back (NULL: nothing). */
void net_scm_release(struct net_scm *m);
/* Every message of a queue. */
void net_scm_release_all(struct net_scm *head);
/* recvmsg's control messages for m (NULL: none) into the `cap` bytes of
 * msg_control: msg_controllen and MSG_CTRUNC set.  Installs descriptors;
 * gives m's references back unless MSG_PEEK (a peek installs copies). */
void net_scm_deliver(struct net_scm *m, struct msghdr *msg, size_t cap, int flags);

/* The simulated network of one node: what its modules share.
 *
 * Every socket, pipe, eventfd, timerfd and epoll instance of a simulation
 * build is an object of the runtime (a "file", as the kernel calls an open file
 * description), reached through a simulated descriptor.  No real socket is
 * ever opened.  The modules:
 *
 *   net_fd.c      the descriptor table: which fd numbers are simulated
 *   net_stream.c  a byte stream in one direction, with arrival times
 *   net_addr.c    addresses, the port table, ephemeral ports, latencies
 *   net_sock.c    stream sockets (AF_INET, AF_INET6, AF_UNIX): TCP's rules
 *   net_pipe.c    pipes and eventfds
 *   net_stat.c    fstat of a simulated descriptor: the kind of file Linux shows
 *   net_timerfd.c timerfds: expirations on virtual time
 *   net_signalfd.c signalfds: the simulation's pending signals
 *   net_poll.c    poll, ppoll, select, pselect
 *   net_epoll.c   epoll
 *   net_inotify.c real inotify descriptors in a simulated epoll
 *   net_iface.c   the host's interfaces (lo, eth0)
 *   net_udp.c     UDP: unicast, multicast and broadcast delivery
 *   net_udp_errq.c ICMP port unreachable, the error queue
 *   net_truesize.c what Linux charges a socket buffer for one skb
 *   net_mcast.c   multicast memberships
 *   net_ipopt.c   IP options the model acts on (TTLs, multicast sending)
 *   intercept_net.c  the interceptors: real descriptors go to the kernel
 *
 * Rules of these files:
 *  - Only the baton holder touches network state (as for all runtime state).
 *    A thread outside the simulation (detsim__self() == NULL) may use a
 *    simulated descriptor, but never blocks: its calls act as non-blocking.
 *  - Arrivals are lazy: a sent segment carries its arrival time, and every
 *    reader computes what has arrived from the virtual clock.  So readiness
 *    is a pure function of object state and time, which is what
 *    detsim__block's predicates must be; a blocked thread looks again at
 *    the next arrival that could wake it (net_wait), so time can jump to
 *    it.  Whatever is sent after it blocked is posted to its node
 *    (net_wake_node, net_wake_file): in a world, nothing else wakes an idle
 *    node.
 *  - Nothing here depends on addresses or fd numbers in the history hash:
 *    events carry object ids (creation order) and byte counts.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/uio.h>

#include <signal.h>

#include "limits.h"
#include "sched/sched.h"
#include "trace/trace.h"

/* ---- files ---- */

enum net_kind { NET_SOCK = 1, NET_PIPE_READ, NET_PIPE_WRITE, NET_EVENTFD, NET_EPOLL, NET_TIMERFD, NET_SIGNALFD,
                NET_DEVRANDOM, /* /dev/urandom, /dev/random (machine_devrandom.c) */
                NET_INOTIFY,   /* a real inotify descriptor as an epoll registration sees it
                                  (net_inotify.c): never behind a simulated descriptor */
                NET_PTY_MASTER, NET_PTY_SLAVE /* a pseudo-terminal's two sides (net_pty.c) */ };

struct net_file {
  enum net_kind kind;
  unsigned refs;        /* descriptors referring to it */
  unsigned holds;       /* calls in progress on it: a close during a blocking
                           call releases it when the call returns, as the
                           kernel's file reference does */
  bool nonblock;        /* O_NONBLOCK */
  uint32_t id;          /* creation order in the run (traces, the hash) */
  unsigned node;        /* the world's node whose process holds it */
  uint64_t changes;     /* bumped by every operation that may make a waiter
                           ready (for edge-triggered epoll) */
  void *obj;            /* struct net_sock / net_pipe / net_eventfd / net_epoll /
                           net_timerfd */
  int real_fd;          /* NET_INOTIFY: the kernel's descriptor */
  int owner;            /* F_SETOWN: a pid (> 0), a process group (< 0), or 0 */
};

/* Readiness, in EPOLL* bits (POLL* bits are the same values). */
uint32_t net_file_poll(struct net_file *f, uint64_t now);
/* The earliest time after `now` at which the file's readiness may change
 * without any thread acting (an arrival), or DETSIM_NO_DEADLINE. */
uint64_t net_file_next_change(struct net_file *f, uint64_t now);
/* A counter that moves whenever readiness for `events` (EPOLLIN, EPOLLOUT
 * and the like) may have newly risen, for edge triggering: operations plus
 * arrivals up to `now`. */
uint64_t net_file_gen(struct net_file *f, uint64_t now, uint32_t events);

/* ---- net_stat.c: fstat of a simulated descriptor ---- */

struct stat;
/* What Linux's fstat reports for f's kind of file (net_stat.c has the table). */
void net_fstat(struct net_file *f, struct stat *st);
/* A pipe's inode number, the same for both ends (net_pipe.c). */
uint32_t net_pipe_ino(const struct net_file *f);

/* ---- net_fd.c: the descriptor table ---- */

/* The file behind a simulated descriptor, NULL for a real one (cheap: one
 * load when no simulated descriptor was ever opened). */
struct net_file *net_fd_get(int fd);
/* A new file of `kind` (refs 0), or NULL with errno set (limit reached). */
struct net_file *net_file_new(enum net_kind kind, void *obj);
/* A descriptor for `f` (refs + 1): the lowest free fd number >= min_fd, as
 * the kernel would choose.  -1 with errno EMFILE at a limit. */
int net_fd_alloc(struct net_file *f, bool cloexec, int min_fd);
/* Forgets a simulated descriptor whose placeholder the kernel already
 * replaced (dup2 of a real descriptor over it). */
void net_fd_unmap(int fd);
void net_file_hold(struct net_file *f);
void net_file_put(struct net_file *f);
/* Closes a simulated descriptor; releases the file at its last reference. */
int net_fd_close(int fd);
int net_fd_dup(int oldfd, int newfd, int flags, int min_fd, bool at_newfd);
bool net_fd_cloexec(int fd);
void net_fd_set_cloexec(int fd, bool on);
/* A descriptor for a new file of `kind` over `obj` (one object, one file:
 * not a pipe's two ends), *out set to the file when out is not NULL.  On
 * failure (a limit) obj is freed and -1 returned with errno set. */
int net_fd_open(enum net_kind kind, void *obj, bool nonblock, bool cloexec, struct net_file **out);
/* Frees a file that never got a descriptor, leaving its object alone. */
void net_file_discard(struct net_file *f);
/* Releases what the file holds (called at its last reference). */
void net_file_release(struct net_file *f);
/* Tells every epoll instance that `f` is gone (net_epoll.c). */
void net_epoll_forget(struct net_file *f);

/* ---- net_wait: blocking on virtual time ---- */

/* Blocks until ready(arg) or virtual time reaches `deadline`, waking at each
 * arrival time next(arg) names to re-check.  0 when ready, ETIMEDOUT at the
 * deadline.  Outside the simulation it never blocks: EAGAIN. */
int net_wait(enum detsim_event_kind kind, const void *obj, bool (*ready)(void *),
             uint64_t (*next)(void *), void *arg, uint64_t deadline);

/* Something arrives at node `node` at virtual time `at` (data, FIN, RST, a
 * handshake, a datagram, a timer): its blocked network waits look again
 * (see net_fd.c).  DETSIM_NO_DEADLINE: nothing. */
void net_wake_node(unsigned node, uint64_t at);
/* File `f` changed now in a way its node's waits may see (its generation
 * for edge triggering moves, and the node looks again). */
void net_wake_file(struct net_file *f);
/* Closes every simulated descriptor, as the kernel does when a process
 * ends: peers see FIN or RST. */
void net_close_all(void);

/* A node of the world crashed (net_node.c): as a dead process its sockets
 * close as the kernel closes them; as a dead host (`silent`) they go
 * quiet and free their ports. */
void net_node_crash(unsigned node, bool silent);
/* A node that crashed as a dead host is back: its old connections RST. */
void net_node_restart(unsigned node);
/* A host comes back with a fresh process: the epoll instances its dead
 * processes made are forgotten (net_epoll.c). */
void net_epoll_host_restart(unsigned host);
/* Resets one established connection between nodes, the `pick`-th (modulo
 * their number) in creation order; false when there is none. */
bool net_reset_connection(uint64_t pick);

/* A one-time report of something the simulation does not model: names it,
 * then the caller fails with an errno (never passes through). */
void net_unsupported(const char *what, const char *detail);
/* ---- net_pty.c: pseudo-terminals ---- */

struct termios;
bool net_pty_is(const struct net_file *f);
/* A new master (posix_openpt, /dev/ptmx): a descriptor, or -1 with errno. */
int net_pty_open_master(int flags);
/* Whether path is /dev/pts/N of a simulated pty (*index: N). */
bool net_pty_slave_path(const char *path, unsigned *index);
/* Opens pty index's slave: a descriptor, or -1 with errno (EIO: locked). */
int net_pty_open_slave(unsigned index, int flags);
void net_pty_release(struct net_file *f);
uint32_t net_pty_poll(struct net_file *f);
uint64_t net_pty_gen(struct net_file *f);
ssize_t net_pty_readv(struct net_file *f, const struct iovec *iov, int iovcnt);
ssize_t net_pty_writev(struct net_file *f, const struct iovec *iov, int iovcnt);
/* 0 or an errno. */
int net_pty_tcgetattr(struct net_file *f, struct termios *t);
int net_pty_tcsetattr(struct net_file *f, int action, const struct termios *t);
int net_pty_ioctl(struct net_file *f, unsigned long req, void *arg);
/* Either side's /dev/pts number. */
unsigned net_pty_number(struct net_file *f);
/* The master's number, and unlockpt; ENOTTY on a slave. */
int net_pty_index(struct net_file *f, unsigned *index);
int net_pty_unlock(struct net_file *f, bool lock);
/* The run reached a named network limit: a one-time message naming it (the
 * call then fails with an errno, as Linux would at its own limit). */
void net_limit(const char *name, uint64_t value, const char *why);
/* Urgent data arrived on f: SIGURG to its owner (F_SETOWN), if any. */
void net_sigurg(const struct net_file *f);
/* EPIPE's signal: as the kernel would, unless MSG_NOSIGNAL. */
void net_sigpipe(void);
/* Records the outcome of an operation in the history (aux: the result). */
void net_result(const void *obj, long result);
/* The call site of the interceptor being run (set on entry, for traces). */
extern uintptr_t net__pc;
/* The event's yield point for an operation on `f`. */
void net_enter(enum detsim_event_kind kind, const struct net_file *f, uint32_t aux);

/* Seeded draws of the network (stream "network"). */
uint64_t net_draw(void);
/* One segment's jitter in [0, max]: in a world's choice mode from the
 * choices while they last, else the network's stream. */
uint64_t net_segment_jitter(uint64_t max);
uint64_t net_latency_draw(void);
/* A direction's jitter and bandwidth (ns per KiB), drawn from the seed. */
uint64_t net_jitter_draw(void);
uint64_t net_bandwidth_draw(void);

/* ---- net_stream.c: one direction of a byte stream ---- */

struct net_seg {
  uint64_t end;   /* absolute offset of the segment's last byte + 1 */
  uint64_t at;    /* virtual time it arrives */
  uint64_t left;  /* virtual time its last bytes began to leave the sender
                     (after a partition, a clog, the wire's queue) */
};

struct net_stream {
  uint8_t *buf;         /* ring of `alloc` bytes (grows to `cap`) */
  uint64_t alloc;
  uint64_t cap;         /* bytes queued (in flight + unread) at most */
  uint64_t head;        /* absolute offset of the next byte to read */
  uint64_t tail;        /* absolute offset after the last byte written */
  uint64_t base;        /* bytes known to have arrived (trimmed segments) */
  struct net_seg seg[DETSIM_NET_SEGMENTS_MAX];
  unsigned seg_first, seg_n;
  uint64_t pushed;      /* segments pushed in total (edge triggering) */
  uint64_t latency_ns;
  uint64_t jitter_ns;   /* a data segment arrives up to this much later (in order) */
  uint64_t ns_per_kib;  /* bandwidth: the wire's time for 1 KiB, 0 for no limit */
  uint64_t wire_free_at;/* the wire has sent what was written until then */
  uint64_t last_at;     /* arrival time of the last thing sent (FIFO) */
  uint64_t fin_at;      /* FIN's arrival, DETSIM_NO_DEADLINE if none sent */
  uint64_t rst_at;      /* RST's arrival, DETSIM_NO_DEADLINE if none sent */
  uint64_t reads;       /* read operations that freed space */
  uint32_t src, dst;    /* the nodes it links (a world's partitions stall it) */
  bool whole_writes;    /* AF_UNIX: a write is queued in pieces (Linux's skbs),
                           each whole while the charge is under `cap` (the
                           sender's SO_SNDBUF), and may run past it */
  /* AF_UNIX: each unread piece's end and charge (its skb's truesize), and
   * their sum, Linux's sk_wmem_alloc of the sender: a piece's charge goes
   * when the reader has taken all of it. */
  struct net_charge { uint64_t end, truesize; } *charge;
  unsigned charge_first, charge_n, charge_cap;
  uint64_t wmem;
  bool space_watched;   /* a wait in the writer's node may be for the next read:
                           it found no space, or follows reads (edge-triggered
                           EPOLLOUT) */
  /* TCP urgent data (net_oob.c): the marks sent and not yet seen by the
   * receiver, in order (each the offset of an urgent byte and when it
   * arrives), and what the receiver knows, Linux's urg_data and urg_seq. */
  struct net_urg_mark { uint64_t seq, at; bool signaled; } urg_sent[DETSIM_NET_URG_MARKS_MAX];
  unsigned urg_sent_n;
  uint8_t urg_state;    /* NET_URG_NONE, NET_URG_VALID, NET_URG_READ */
  uint8_t urg_byte;
  uint64_t urg_seq;
};

enum { NET_URG_NONE, NET_URG_VALID, NET_URG_READ };

void net_stream_init(struct net_stream *s, uint64_t cap, uint64_t latency_ns);
/* A link with a latency also has a jitter and a bandwidth, drawn per
 * direction (net_fd.c): a link without latency is a perfect one. */
void net_stream_link(struct net_stream *s, uint64_t jitter_ns, uint64_t ns_per_kib);
void net_stream_free(struct net_stream *s);
/* Bytes that have arrived and are unread at `now`. */
uint64_t net_stream_avail(const struct net_stream *s, uint64_t now);
/* Bytes that may still be written (cap minus queued); AF_UNIX, cap minus
 * the charge (some room: one more piece may go). */
uint64_t net_stream_space(const struct net_stream *s);
/* AF_UNIX: the piece just written (the last `n` bytes) is charged
 * `truesize` until read. */
void net_stream_charge(struct net_stream *s, uint64_t truesize);
/* AF_UNIX: the reader closed; its unread pieces charge nobody. */
void net_stream_uncharge_all(struct net_stream *s);
/* A writer-side wait looks at the space or at the reads: the next read
 * wakes the writer's node (other reads need not). */
static inline void net_stream_watch_space(struct net_stream *s) { s->space_watched = true; }
/* The arrival time of the next segment after `now`, DETSIM_NO_DEADLINE. */
uint64_t net_stream_next_arrival(const struct net_stream *s, uint64_t now);
/* Segments arrived by `now` (for edge triggering). */
uint64_t net_stream_arrived_segments(const struct net_stream *s, uint64_t now);
/* The arrival time of the next thing sent now (FIFO, after the latency). */
uint64_t net_stream_send_time(const struct net_stream *s, uint64_t now);
/* Appends up to n bytes from the iovecs (starting `skip` bytes in); returns
 * the count.  `n` must be <= space. */
uint64_t net_stream_write(struct net_stream *s, const struct iovec *iov, int iovcnt,
                          uint64_t skip, uint64_t n, uint64_t now);
/* Copies up to n arrived bytes into the iovecs (from `skip` bytes in);
 * consumes them unless peek.  Returns the count. */
uint64_t net_stream_read(struct net_stream *s, const struct iovec *iov, int iovcnt,
                         uint64_t skip, uint64_t n, uint64_t now, bool peek);
/* As net_stream_read with peek, from `off` bytes past the next unread one. */
uint64_t net_stream_peek_from(struct net_stream *s, uint64_t off, const struct iovec *iov, int iovcnt,
                              uint64_t skip, uint64_t n, uint64_t now);
/* Consumes n arrived bytes unread (an urgent byte outside the stream). */
void net_stream_discard(struct net_stream *s, uint64_t n, uint64_t now);
/* The byte at absolute offset `off` (written, not yet read). */
uint8_t net_stream_byte_at(const struct net_stream *s, uint64_t off);
/* FIN and RST, sent now: they arrive after everything sent before. */
void net_stream_fin(struct net_stream *s, uint64_t now);
/* The sender aborted the connection (RST, or its host died): what has not
 * begun to leave it (held back by a partition, a clog, or waiting for the
 * wire) is gone, as TCP drops its send queue; what is on the wire still
 * arrives. */
void net_stream_abort(struct net_stream *s, uint64_t now);
void net_stream_rst_at(struct net_stream *s, uint64_t at);
static inline bool net_stream_fin_arrived(const struct net_stream *s, uint64_t now) { return s->fin_at <= now; }
static inline bool net_stream_rst_arrived(const struct net_stream *s, uint64_t now) { return s->rst_at <= now; }

uint64_t net_iov_total(const struct iovec *iov, int iovcnt);

/* ---- net_oob.c: TCP urgent data ---- */

/* A send with MSG_OOB wrote up to out->tail: its last byte is urgent.
 * `receiver`: the file of the socket it goes to (NULL: none yet). */
void net_oob_mark(struct net_stream *out, const struct net_file *receiver);
/* The receiver's urgent state at `now`, without acting (for poll). */
struct net_urg_view {
  uint8_t state, byte;  /* NET_URG_*, the urgent byte when VALID */
  uint64_t seq;         /* the mark's offset */
  uint64_t skipped;     /* unread bytes a newer mark dropped (see net_oob.c) */
  bool at_mark;         /* the next byte to read is the mark */
};
void net_oob_view(const struct net_stream *in, bool oobinline, uint64_t now, struct net_urg_view *v);
/* Applies the marks whose byte has arrived by `now`; returns how many
 * of them are owed a SIGURG. */
unsigned net_oob_settle(struct net_stream *in, bool oobinline, uint64_t now);
/* After a read: a reader past the mark forgets it. */
void net_oob_consumed(struct net_stream *in);
/* The sender dropped unsent bytes (net_stream_abort): their marks go. */
void net_oob_abort(struct net_stream *s);
/* SIGURG on time for a receiver in this process: the arrival of a mark
 * whose socket has an owner is posted as a timer is (signal.c asks when
 * the next one is due, and takes those due). */
uint64_t net_sigurg_next(void);
void net_sigurg_taken(uint64_t now);

/* ---- net_addr.c: addresses and ports ---- */

/* A socket address in one canonical form: family, 16 address bytes (IPv4
 * in the v4-mapped form), port, or a unix path. */
struct net_addr {
  int family;                  /* AF_INET, AF_INET6, AF_UNIX, 0 = none */
  uint8_t ip[16];              /* v4 as ::ffff:a.b.c.d */
  uint16_t port;               /* host order */
  uint32_t scope_id;
  char path[108];              /* AF_UNIX (abstract: path[0] == 0) */
  unsigned path_len;           /* bytes of path used (0: unnamed) */
};

/* The length of RFC 2133's sockaddr_in6 (no scope id), the least Linux takes. */
#define NET_SIN6_LEN_RFC2133 24
/* An IPv6 address that names an interface with it (link-local unicast,
 * interface- and link-local multicast). */
bool net_addr_needs_scope(const struct net_addr *a);
/* Parses a sockaddr given to bind/connect; 0 or an errno. */
int net_addr_from(int sock_family, const struct sockaddr *sa, socklen_t len, struct net_addr *out);
/* Writes `a` as the sockaddr of a socket of `sock_family` (truncating as the
 * kernel does, *len set to the full size). */
void net_addr_to(int sock_family, const struct net_addr *a, struct sockaddr *sa, socklen_t *len);
bool net_addr_is_v4(const struct net_addr *a);
bool net_addr_is_any(const struct net_addr *a);
/* An address of this node (what bind accepts). */
bool net_addr_is_local(const struct net_addr *a);
/* The node an address reaches from here: this node for its loopback and
 * wildcard addresses, node k for 127.0.1.(k+1) in a world; -1 for none. */
int net_addr_node(const struct net_addr *a);
/* A world address 127.0.1.x (connections to it come from 127.0.1.x too). */
bool net_addr_is_node_address(const struct net_addr *a);
/* Text for reports ("127.0.0.1:8080", "[::1]:80", "unix:/path"). */
void net_addr_text(const struct net_addr *a, char *buf, size_t len);

/* ---- net_iface.c: the host's interfaces (lo, and eth0 on the simulated net) ---- */

#define NET_IFACES 2
#define NET_IFINDEX_LO 1
#define NET_IFINDEX_NET 2
struct ifaddrs;
struct if_nameindex;
/* An interface's name, NULL for no such index. */
const char *net_iface_name(unsigned index);
/* The index of the interface named `name`, 0 for none. */
unsigned net_iface_index(const char *name);
/* The interface owning IPv4 address `a` of this host (eth0 for the host's
 * address on the simulated net, lo for the rest of 127/8), 0 for none. */
unsigned net_iface_of_addr(const struct net_addr *a);
/* The interface whose broadcast address `a` is (lo: 127.255.255.255;
 * eth0: 127.0.1.255 and 255.255.255.255), 0 for none. */
unsigned net_iface_of_broadcast(const struct net_addr *a);
/* An interface's IPv4 address and broadcast address (v4-mapped, port 0). */
void net_iface_addr4(unsigned index, struct net_addr *out);
void net_iface_broadcast4(unsigned index, struct net_addr *out);
/* getifaddrs' list (one malloc'ed block: free() releases it); 0 or ENOMEM. */
int net_getifaddrs(struct ifaddrs **out);
/* if_nameindex's array (one malloc'ed block), NULL on ENOMEM. */
struct if_nameindex *net_if_nameindex(void);

/* ---- net_sock.c: sockets ---- */

struct net_sock;
struct net_sock *net_sock_of(struct net_file *f);
int net_socket(int domain, int type, int protocol);
int net_socketpair(int domain, int type, int protocol, int sv[2]);
int net_bind(struct net_file *f, const struct sockaddr *sa, socklen_t len);
int net_listen(struct net_file *f, int backlog);
int net_accept(struct net_file *f, struct sockaddr *sa, socklen_t *len, int flags);
int net_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len);
int net_shutdown(struct net_file *f, int how);
ssize_t net_sendmsg(struct net_file *f, const struct msghdr *msg, int flags);
ssize_t net_recvmsg(struct net_file *f, struct msghdr *msg, int flags);
int net_getsockname(struct net_file *f, struct sockaddr *sa, socklen_t *len, bool peer);
int net_setsockopt(struct net_file *f, int level, int name, const void *val, socklen_t len);
int net_getsockopt(struct net_file *f, int level, int name, void *val, socklen_t *len);
int net_ioctl_sock(struct net_file *f, unsigned long req, void *arg);
void net_sock_release(struct net_sock *s);
uint32_t net_sock_poll(struct net_sock *s, uint64_t now);
uint64_t net_sock_next_change(struct net_sock *s, uint64_t now);
uint64_t net_sock_gen(struct net_sock *s, uint64_t now, uint32_t events);
/* The listener a connection from `from` to `to` reaches (one of a
 * SO_REUSEPORT group by net__reuseport_hash of `from`), NULL for none. */
struct net_sock *net_port_listener(int type, const struct net_addr *to, const struct net_addr *from);

/* ---- net_pipe.c: pipes and eventfds ---- */

int net_pipe2(int fds[2], int flags);
int net_eventfd(unsigned initval, int flags);
ssize_t net_pipe_readv(struct net_file *f, const struct iovec *iov, int iovcnt);
ssize_t net_pipe_writev(struct net_file *f, const struct iovec *iov, int iovcnt, bool nosignal);
ssize_t net_eventfd_read(struct net_file *f, void *buf, size_t len);
ssize_t net_eventfd_write(struct net_file *f, const void *buf, size_t len);
int net_ioctl_pipe(struct net_file *f, unsigned long req, void *arg);
void net_pipe_release(struct net_file *f);
void net_eventfd_release(struct net_file *f);
uint32_t net_pipe_poll(struct net_file *f, uint64_t now);
uint32_t net_eventfd_poll(struct net_file *f);
uint64_t net_pipe_gen(struct net_file *f);

/* ---- net_signalfd.c: signalfds ---- */

/* signalfd(): a new descriptor (fd -1) or a new mask for one. */
int net_signalfd(int fd, const sigset_t *mask, int flags);
ssize_t net_signalfd_read(struct net_file *f, void *buf, size_t len);
void net_signalfd_release(struct net_file *f);
uint32_t net_signalfd_poll(struct net_file *f);
uint64_t net_signalfd_next_change(void);
uint64_t net_signalfd_gen(void);

/* ---- net_timerfd.c: timerfds ---- */

struct itimerspec;
int net_timerfd_create(int clockid, int flags);
/* 0 or an errno. */
/* unlink(path) of a simulated unix socket's path (closed, or still bound):
 * the name is gone; true when path was one (net_sock.c). */
bool net_unix_unlink(const char *path);
/* This node's CLOCK_REALTIME jumped by delta ns (a clock step): timers
 * armed at an absolute realtime time move with it (net_timerfd.c). */
void net_timerfd_clock_stepped(int64_t delta);
int net_timerfd_settime(struct net_file *f, int flags, const struct itimerspec *value, struct itimerspec *old);
int net_timerfd_gettime(struct net_file *f, struct itimerspec *out);
/* Reads the expirations since the last read (blocks while there are none). */
ssize_t net_timerfd_read(struct net_file *f, void *buf, size_t len);
void net_timerfd_release(struct net_file *f);
uint32_t net_timerfd_poll(struct net_file *f, uint64_t now);
uint64_t net_timerfd_next_change(struct net_file *f, uint64_t now);
uint64_t net_timerfd_gen(struct net_file *f, uint64_t now);

/* ---- net_inotify.c: real inotify descriptors in a simulated epoll ---- */

/* Whether real descriptor fd is an inotify instance. */
bool net_inotify_is(int fd);
/* A file standing for real inotify descriptor fd in one registration
 * (NULL at the objects' limit); released with net_inotify_release. */
struct net_file *net_inotify_file(int fd);
void net_inotify_release(struct net_file *f);
/* Whether any such registration is alive (closes need look only then). */
bool net_inotify_any(void);
/* The kernel's readiness, asked without waiting; for edge triggering, a
 * generation that moves with the unread bytes. */
uint32_t net_inotify_poll(const struct net_file *f);
uint64_t net_inotify_gen(const struct net_file *f);

/* ---- net_epoll.c ---- */

int net_epoll_create(int flags);
int net_epoll_ctl(struct net_file *ep, int op, int fd, struct epoll_event *ev);
int net_epoll_wait(struct net_file *ep, struct epoll_event *events, int maxevents, uint64_t deadline);
uint32_t net_epoll_poll(struct net_file *ep, uint64_t now);
uint64_t net_epoll_next_change(struct net_file *ep, uint64_t now);
void net_epoll_release(struct net_file *ep);
/* Real descriptor fd closes (or is replaced): its inotify registrations go. */
void net_epoll_forget_real(int fd);

/* ---- net_poll.c ---- */

struct pollfd;
int net_poll(struct pollfd *fds, unsigned long nfds, uint64_t deadline);
struct timeval;
bool net_poll_has_sim(struct pollfd *fds, unsigned long nfds);

/* ---- net_select.c ---- */

int net_select(int nfds, void *rd, void *wr, void *ex, uint64_t deadline);
/* Whether one of the first nfds bits of the sets names a simulated descriptor. */
bool net_select_has_sim(int nfds, const void *rd, const void *wr, const void *ex);

/* Sockets' insides, shared by net_sock.c (streams, the port table, names),
 * net_sockopt.c (options), net_udp.c (datagrams) and net_unix_dgram.c (unix
 * datagrams).  Interceptors see only net.h. */

#include "world/world.h"

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
   * stream order (net/net.h), and how many. */
  struct net_scm *scm_head[2], *scm_tail[2];
  unsigned scm_queued[2];
};

struct sockopt_value { int level, name, value; };

/* A socket's multicast membership (net_mcast.c): a group on an interface
 * with its source filter, Linux's ip_mc_socklist / ipv6_mc_socklist. */
struct net_mc_group {
  struct net_mc_group *next;
  bool v6;                      /* an IPv6 group (else IPv4, v4-mapped) */
  uint8_t group[16];
  unsigned ifindex;
  uint8_t ifaddr[4];            /* IPv4: the interface address the join named */
  bool include;                 /* MCAST_INCLUDE: only the sources; else all but them */
  bool had_sources;             /* the filter had a source once: its mode is fixed */
  unsigned nsrc;
  uint8_t src[DETSIM_NET_MCAST_SOURCES_MAX][16];
};

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
  /* AF_UNIX SOCK_DGRAM connected by connect: the socket it sends to, held
   * as Linux's unix_peer (an unlink of its path, a new socket there, change
   * nothing), and the sockets connected to this one, told when it closes */
  struct net_sock *dpeer, *dpeer_next, *dpeer_in;
  bool dpeer_gone;              /* its peer closed: the next send is refused and
                                   dissolves the association */
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
  /* a full backlog (net_backlog.c): the clients whose SYN it dropped, in
   * the order they came; as such a client, the listener it waits on and
   * the connection drawn for it */
  struct net_sock *syn_waiting, *syn_next, *syn_listener;
  unsigned syn_waiting_n;
  struct net_conn *syn_conn;
  uint64_t syn_first_at;        /* its first SYN */
  unsigned syn_tries;           /* SYNs sent again so far */
  unsigned syn_retries;         /* TCP_SYNCNT when it connected */
  /* options the model acts on */
  bool reuseaddr, reuseport, v6only, linger_on;
  bool oobinline;               /* SO_OOBINLINE: urgent bytes stay in the stream */
  bool autobound;               /* connect chose the port */
  int linger_s;
  int rcvbuf, sndbuf;            /* SO_RCVBUF/SO_SNDBUF as getsockopt reports them */
  bool rcvbuf_set, sndbuf_set;  /* set by the program: TCP's window and send queue
                                   follow them (net__conn_caps) */
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
  uint64_t dq_rmem;             /* UDP: the queue's charge, Linux's sk_rmem_alloc
                                   against SO_RCVBUF (net_udp.c) */
  uint64_t dq_deficit;          /* UDP: the charge of datagrams read but not yet
                                   given back (forward_deficit) */
  unsigned dq_reader_n;         /* UDP: unread datagrams in Linux's reader_queue
                                   (those arrived when it was last refilled) */
  uint32_t drops;               /* UDP: datagrams its full queue dropped (sk_drops) */
  bool rxq_ovfl;                /* SO_RXQ_OVFL: a datagram read says `drops` as it
                                   was when the datagram was queued */
  uint64_t wmem;                /* AF_UNIX SOCK_DGRAM: the charge of its datagrams
                                   not yet read, sk_wmem_alloc against SO_SNDBUF */
  uint64_t dgram_latency_ns, dgram_last_at;  /* as a sender: FIFO per socket */
  bool dgram_latency_drawn;
  unsigned scm_queued;          /* AF_UNIX datagrams carrying descriptors */
  /* IP options the model acts on (net_ipopt.c), Linux's defaults set by
   * net__sock_ip_defaults */
  bool broadcast;               /* SO_BROADCAST */
  int uc_ttl, uc_hops;          /* IP_TTL, IPV6_UNICAST_HOPS; -1: the default 64 */
  int mc_ttl;                   /* IP_MULTICAST_TTL */
  bool mc_loop, mc_all;         /* IP_MULTICAST_LOOP, IP_MULTICAST_ALL */
  unsigned mc_index;            /* IP_MULTICAST_IF: interface, or 0 */
  uint8_t mc_addr[4];           /* IP_MULTICAST_IF: source address, or 0 */
  int mc6_hops;                 /* IPV6_MULTICAST_HOPS */
  bool mc6_loop, mc6_all;       /* IPV6_MULTICAST_LOOP, IPV6_MULTICAST_ALL */
  unsigned mc6_oif;             /* IPV6_MULTICAST_IF */
  bool recverr, recverr6;       /* IP_RECVERR, IPV6_RECVERR */
  /* the error queue (net_udp_errq.c) */
  struct net_errq *errq_head, *errq_tail;
  uint64_t errq_bytes;
  /* multicast memberships (net_mcast.c), and the list of sockets with some */
  struct net_mc_group *mc_groups;
  struct net_sock *mc_next;
  bool mc_listed;
};

/* One datagram on its way to, or waiting in, a socket. */
struct net_dgram {
  struct net_dgram *next;
  uint64_t at;                  /* arrival time */
  uint64_t truesize;            /* Linux's charge for it (net_truesize.c): UDP's
                                   on the receiver, a unix datagram's on `owner` */
  struct net_sock *owner;       /* AF_UNIX: the sender charged until it is read,
                                   NULL once that sender closed */
  uint32_t dropcount;           /* UDP with SO_RXQ_OVFL: the socket's drops when
                                   it was queued */
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
/* SO_REUSEPORT's choice of a group member: a hash of the sender's address
 * keyed by a secret drawn from the seed once (Linux keys its own by a
 * boot-time secret), so one sender sticks to one socket. */
uint64_t net__reuseport_hash(const struct net_addr *from);
/* Frees a socket (unlinked from the world's list). */
void net__sock_free(struct net_sock *s);
/* The world's list of every socket (NULL outside a world). */
#define net__all_socks (*(struct net_sock **)&detsim__ws->all_socks)
bool net__port_conflict(const struct net_sock *s, uint16_t port);
void net__bind_add(struct net_sock *s);
void net__bind_remove(struct net_sock *s);
void net__source_for(const struct net_sock *s, const struct net_addr *to, struct net_addr *out);
bool net__addr_overlap(const struct net_sock *a, const struct net_sock *b);
/* A connection's buffers.  TCP: each direction holds (in flight + unread)
 * about the receiver's window (half its SO_RCVBUF, doubled as Linux
 * reports it) plus the sender's send queue (its SO_SNDBUF), each side
 * half of net_buffer_bytes when the program set nothing.  Unix: each
 * direction's cap is its sender's SO_SNDBUF, against the charge of its
 * unread pieces (whole_writes). */
void net__conn_caps(struct net_conn *c);
/* net_sock.c: a connection into l's backlog from client s, its SYN sent
 * at `at` (the child acceptable once the handshake is done). */
void net__enqueue_child(struct net_sock *l, struct net_sock *s, struct net_conn *c, uint64_t at);
uint64_t net__handshake_done(unsigned from, unsigned to, const struct net_conn *c, uint64_t at);
/* TCP_SYNCNT: the SYNs a connect sends again before ETIMEDOUT. */
unsigned net__sock_syncnt(struct net_sock *s);

/* net_backlog.c: a full backlog drops a client's SYN and the client sends
 * it again (Linux's backoff: 1, 2, 4 ... s, at most 120 s apart, TCP_SYNCNT
 * times, then ETIMEDOUT).  Retries are settled lazily, as arrivals are:
 * every operation on the listener or on a waiting client first applies
 * the retries due by now (net__syn_settle), and readiness has a pure
 * view of the same. */
/* s's SYN to l was dropped at `now`; 0, or ECONNREFUSED at the limit. */
int net__syn_drop(struct net_sock *l, struct net_sock *s, struct net_conn *c, uint64_t now);
/* s: a listener or a waiting client (anything else: nothing to do). */
void net__syn_settle(struct net_sock *s, uint64_t now);
static inline bool net__syn_waits(const struct net_sock *s) { return s->syn_conn != NULL; }
/* A waiting client's readiness, next change and edge counter. */
uint32_t net__syn_client_poll(const struct net_sock *s, uint64_t now);
uint64_t net__syn_client_next(const struct net_sock *s, uint64_t now);
uint64_t net__syn_client_gen(const struct net_sock *s, uint64_t now);
/* A listener's waiting clients that have a connection by `now` (ready:
 * acceptable), and the next time that changes. */
unsigned net__syn_ready(const struct net_sock *l, uint64_t now);
uint64_t net__syn_listener_next(const struct net_sock *l, uint64_t now);
/* The listener closes or stops listening: its waiting clients' next SYN
 * is refused.  A waiting client closes: it stops waiting. */
void net__syn_listener_gone(struct net_sock *l, uint64_t now);
void net__syn_client_gone(struct net_sock *s, uint64_t now);
/* Frees a connection no socket took. */
void net__conn_free(struct net_conn *c);

/* The pending error (SO_ERROR), cleared. */
int net__sock_take_error(struct net_sock *s);

/* net_mcast.c: memberships; the sockets with any (the world's in a world) */
extern struct net_sock *net__mc_socks_local;
#define net__mc_socks (*(detsim__ws != NULL ? (struct net_sock **)&detsim__ws->mcast_list : &net__mc_socks_local))
bool net_addr_is_multicast(const struct net_addr *a);
/* Whether (level, name) joins, leaves or filters a group. */
bool net_mcast_is_membership_option(int level, int name);
/* setsockopt of such an option: 0 or Linux's errno. */
int net_mcast_membership(struct net_sock *s, int level, int name, const void *val, socklen_t len);
/* Leaves every group (the socket closes, its host dies). */
void net_mcast_release(struct net_sock *s);
/* Whether host `node` listens to `group` on interface `ifindex` for a
 * datagram from `src` (some socket of it joined there, its filter letting
 * src in), and whether socket s takes it (its own filter, else
 * IP_MULTICAST_ALL). */
bool net_mcast_host_listens(unsigned node, const struct net_addr *group, const struct net_addr *src, unsigned ifindex);
bool net_mcast_sock_takes(const struct net_sock *s, const struct net_addr *group, const struct net_addr *src,
                          unsigned ifindex);

/* net_ipopt.c: the IP options the model acts on (TTLs, multicast sending,
 * SO_BROADCAST): true when (level, name) is one, *err its result. */
void net__sock_ip_defaults(struct net_sock *s);
bool net_ipopt_set(struct net_sock *s, int level, int name, const void *val, socklen_t len, int *err);
bool net_ipopt_get(struct net_sock *s, int level, int name, void *val, socklen_t *len, int *err);
/* getsockopt's int at IPPROTO_IP: one byte when asked for less than an
 * int and it fits (Linux's do_ip_getsockopt). */
int net_ipopt_put_ip_int(void *val, socklen_t *len, int x);
/* An int option's value into getsockopt's buffer, cut to *len as Linux
 * does (net_sockopt.c); 0 or an errno. */
int net_sockopt_put_int(void *val, socklen_t *len, int x);
/* setsockopt's int at IPPROTO_IP: an int, or a char when shorter; false
 * for an empty value. */
bool net_ipopt_ip_int(const void *val, socklen_t len, int *out);

/* net_udp_errq.c: ICMP port unreachable and the error queue */
struct net_errq;
/* A datagram of s to `to` found no socket: the ICMP error, as s hears it. */
void net_udp_port_unreachable(struct net_sock *s, const struct msghdr *msg, uint64_t len, const struct net_addr *to);
/* recvmsg(MSG_ERRQUEUE): the oldest error (control_cap: msg_control's size). */
ssize_t net_udp_errq_recv(struct net_sock *s, struct msghdr *msg, size_t control_cap);
void net_udp_errq_purge(struct net_sock *s);

/* net_udp.c */
int net_udp_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len);
ssize_t net_udp_sendmsg(struct net_file *f, const struct msghdr *msg, int flags);
ssize_t net_udp_recvmsg(struct net_file *f, struct msghdr *msg, int flags);
uint32_t net_udp_poll(struct net_sock *s, uint64_t now);
uint64_t net_udp_next_change(struct net_sock *s, uint64_t now);
uint64_t net_udp_gen(struct net_sock *s, uint64_t now);
uint64_t net_udp_first_len(struct net_sock *s, uint64_t now);
void net_udp_release(struct net_sock *s);
/* A datagram into r's queue, arriving at `at`, charged `truesize`: to
 * `owner` (a unix sender) until read, else to r (UDP's receive charge). */
void net__dgram_enqueue(struct net_sock *r, const struct msghdr *msg, uint64_t len, const struct net_addr *from,
                        uint64_t at, uint64_t truesize, struct net_sock *owner);
/* A datagram leaves r's queue (read, or r closes): its charge goes back. */
void net__dgram_uncharge(struct net_sock *r, struct net_dgram *d);
/* The AF_UNIX socket bound to path a in this node, NULL for none. */
struct net_sock *net__unix_bound(const struct net_addr *a);
/* Whether path a was a closed socket's and is not unlinked yet (its file
 * is left: a connect there is refused, a bind finds it in use). */
bool net__unix_path_stale(const struct net_addr *a);
/* The errno of a connect or send to unix path a that no socket is bound
 * to: ECONNREFUSED for a closed socket's path or any file there (a
 * one-program run's socket files are real), else the kernel's lookup's
 * (ENOENT, ENOTDIR, EACCES). */
int net__unix_unbound_errno(const struct net_addr *a);

/* net_truesize.c: Linux's charge for one buffer (an skb's truesize): a UDP
 * datagram of `payload` bytes, a unix datagram of `len`, a unix stream
 * piece of `size`; and the largest such piece for a send buffer. */
uint64_t net_truesize_udp(uint64_t payload, bool v6);
uint64_t net_truesize_unix_dgram(uint64_t len);
uint64_t net_truesize_unix_stream(uint64_t size);
uint64_t net_unix_stream_piece_max(uint64_t sndbuf);

/* net_unix_dgram.c */
int net_unix_dgram_connect(struct net_file *f, const struct sockaddr *sa, socklen_t len);
/* Takes scm (the message's descriptors, NULL for none): queued with the
 * datagram, or released when the send fails. */
ssize_t net_unix_dgram_sendmsg(struct net_file *f, const struct msghdr *msg, int flags, struct net_scm *scm);
uint32_t net_unix_dgram_poll(struct net_sock *s, uint64_t now);
void net_unix_dgram_pair(struct net_sock *a, struct net_sock *b);
void net_unix_dgram_release(struct net_sock *s);

#endif /* DETSIM_NET_PART_H */
