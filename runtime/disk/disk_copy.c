/* copy_file_range into a file of the simulated disk (docs/disk.md).
 *
 * The kernel would move the bytes past the undo journal; here the kernel
 * checks the call (a copy of nothing: EBADF, EINVAL, EXDEV, EISDIR as it
 * answers them), the count is shortened to the source's end as it
 * shortens it, an overlapping copy within one file is EINVAL as Linux
 * says, and then the bytes are read and written through the disk, in
 * pieces: each is a write of the disk (its time, its faults, its journal
 * record, the capacity), as ext4's copy (a splice through the page cache,
 * no shared extents) writes them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "disk/disk.h"
#include "intercept/intercept.h"

/* The bytes one piece of a copy moves: one write record each. */
#define COPY_PIECE_BYTES 65536

static ssize_t fail_with(int e) {
  errno = e;
  return -1;
}

ssize_t detsim__disk_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags,
                                     uintptr_t pc) {
  off_t pin = in_off ? *in_off : 0, pout = out_off ? *out_off : 0;
  if (REAL(copy_file_range)(in, in_off ? &pin : NULL, out, out_off ? &pout : NULL, 0, flags) < 0) return -1;
  if (!in_off) pin = lseek(in, 0, SEEK_CUR);
  if (!out_off) pout = lseek(out, 0, SEEK_CUR);
  struct stat si, so;
  if (pin < 0 || pout < 0 || fstat(in, &si) != 0 || fstat(out, &so) != 0) return -1;
  if ((int64_t)n < 0 || pin + (off_t)n < pin || pout + (off_t)n < pout) return fail_with(EOVERFLOW);
  size_t count = pin >= si.st_size ? 0 : (size_t)(si.st_size - pin) < n ? (size_t)(si.st_size - pin) : n;
  if (si.st_dev == so.st_dev && si.st_ino == so.st_ino && pout + (off_t)count > pin && pout < pin + (off_t)count)
    return fail_with(EINVAL);
  if (count == 0) return 0;
  char *buf = malloc(COPY_PIECE_BYTES);
  if (buf == NULL) return fail_with(ENOMEM);
  size_t done = 0;
  int e = 0;
  while (done < count) {
    size_t want = count - done < COPY_PIECE_BYTES ? count - done : COPY_PIECE_BYTES;
    ssize_t got = REAL(pread)(in, buf, want, pin + (off_t)done);
    if (got <= 0) {
      e = got < 0 ? errno : 0;
      break;
    }
    struct iovec one = { buf, (size_t)got };
    ssize_t w = detsim__disk_pwritev(out, &one, 1, pout + (off_t)done, pc);
    if (w <= 0) {
      e = w < 0 ? errno : 0;
      break;
    }
    done += (size_t)w;
    if (w < got) break; /* a full disk took part of it */
  }
  free(buf);
  if (done == 0 && e != 0) return fail_with(e);
  if (in_off) *in_off = pin + (off_t)done;
  else lseek(in, pin + (off_t)done, SEEK_SET);
  if (out_off) *out_off = pout + (off_t)done;
  else lseek(out, pout + (off_t)done, SEEK_SET);
  return (ssize_t)done;
}
