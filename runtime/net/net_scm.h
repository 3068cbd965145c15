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
#ifndef DETSIM_NET_SCM_H
#define DETSIM_NET_SCM_H

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

#endif
