/* fstat of a simulated descriptor: what Linux reports for the file behind
 * it, not for the placeholder (/dev/null) the kernel holds.  Programs read
 * the type: libuv's uv_guess_handle and the handle type of a descriptor
 * received over IPC (S_ISSOCK, then getsockname), stdio's buffering,
 * servers checking that stdin is a socket (inetd style).
 *
 *   socket              S_IFSOCK | 0777, on sockfs
 *   pipe (either end)   S_IFIFO | 0600, on pipefs, one inode for both ends
 *   eventfd, epoll, timerfd, signalfd
 *                       mode 0600 and no type: the kernel's one anonymous
 *                       inode, the same for all of them
 *   /dev/urandom, /dev/random
 *                       S_IFCHR | 0666, the device 1:9 (urandom's)
 *   a pty's master      S_IFCHR | 0666, /dev/ptmx (5:2)
 *   a pty's slave       S_IFCHR | 0620, /dev/pts/N (136:N), group tty
 *
 * The owner is the process's effective ids (root for the devices), nlink 1, size 0, st_blksize
 * 4096.  The device numbers of sockfs, pipefs and the anonymous inodes are
 * assigned at boot on Linux; here they are fixed (those of a common boot),
 * and inode numbers come from the files' creation order, so they replay.
 * The times are the virtual CLOCK_REALTIME of the call.
 */
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"
#include "time/time.h"

#define SOCKFS_DEV makedev(0, 8)
#define PIPEFS_DEV makedev(0, 13)
#define ANON_INODE_DEV makedev(0, 14)
#define ANON_INODE_INO 1
#define DEVTMPFS_DEV makedev(0, 5)
#define URANDOM_RDEV makedev(1, 9)
#define URANDOM_INO 7
#define PTMX_RDEV makedev(5, 2)
#define PTMX_INO 87
#define DEVPTS_DEV makedev(0, 24)
#define TTY_GID 5
/* Simulated inode numbers start here, clear of the fixed ones. */
#define INO_BASE 100000

void net_fstat(struct net_file *f, struct stat *st) {
  memset(st, 0, sizeof *st);
  st->st_nlink = 1;
  st->st_uid = geteuid();
  st->st_gid = getegid();
  st->st_blksize = 4096;
  struct timespec now;
  detsim__clock_read(CLOCK_REALTIME, &now);
  st->st_atim = st->st_mtim = st->st_ctim = now;
  switch (f->kind) {
  case NET_SOCK:
    st->st_mode = S_IFSOCK | 0777;
    st->st_dev = SOCKFS_DEV;
    st->st_ino = INO_BASE + f->id;
    break;
  case NET_PIPE_READ:
  case NET_PIPE_WRITE:
    st->st_mode = S_IFIFO | 0600;
    st->st_dev = PIPEFS_DEV;
    st->st_ino = INO_BASE + net_pipe_ino(f);
    break;
  case NET_DEVRANDOM: /* root's, as udev makes it */
    st->st_uid = st->st_gid = 0;
    st->st_mode = S_IFCHR | 0666;
    st->st_dev = DEVTMPFS_DEV;
    st->st_rdev = URANDOM_RDEV;
    st->st_ino = URANDOM_INO;
    break;
  case NET_PTY_MASTER: /* /dev/ptmx, root's */
    st->st_uid = st->st_gid = 0;
    st->st_mode = S_IFCHR | 0666;
    st->st_dev = DEVTMPFS_DEV;
    st->st_rdev = PTMX_RDEV;
    st->st_ino = PTMX_INO;
    break;
  case NET_PTY_SLAVE: /* /dev/pts/N as grantpt leaves it: the user's, group tty */
    st->st_gid = TTY_GID;
    st->st_mode = S_IFCHR | 0620;
    st->st_dev = DEVPTS_DEV;
    st->st_rdev = makedev(136, net_pty_number(f));
    st->st_ino = 3 + net_pty_number(f);
    break;
  default: /* eventfd, epoll, timerfd, signalfd: anon_inode_getfile */
    st->st_mode = S_IRUSR | S_IWUSR;
    st->st_dev = ANON_INODE_DEV;
    st->st_ino = ANON_INODE_INO;
    break;
  }
}
