/* What the program writes out of the simulation (output.c).
 *
 * Every write of the program to a real descriptor (stdout, stderr, a file),
 * by write, writev, dprintf or stdio, is an `output` event whose value is a
 * hash of its bytes, and goes into the run's output digest (`output=` on the
 * result line).  So a replay that prints something else diverges, and
 * simreplay names the first write that differs, with its call site.
 */
#ifndef DETSIM_OUTPUT_H
#define DETSIM_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

/* n bytes the program wrote to real descriptor fd, from call site pc (0:
 * find the program's frame, for writes that stdio made on its behalf).
 * Writes of the runtime itself, of libraries it calls, from threads outside
 * the simulation, and under suppression (DETSIM_VERIFY) do not count. */
void detsim__output(int fd, const void *buf, size_t n, uintptr_t pc);
/* The same for the first n bytes of a writev's iovecs (one event). */
struct iovec;
void detsim__output_iov(int fd, const struct iovec *iov, int iovcnt, size_t n, uintptr_t pc);
/* The digest of everything counted so far. */
uint64_t detsim__output_digest(void);
/* The call site of the program's innermost frame outside libc and the
 * runtime (0 when none is found). */
uintptr_t detsim__program_pc(void);
/* True for an address inside the runtime library itself. */
int detsim__pc_in_runtime(uintptr_t pc);

#endif
