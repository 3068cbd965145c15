/* libc/: the one header of the runtime's libc part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_LIBC_PART_H
#define DETSIM_LIBC_PART_H

/* stdio on the simulation's descriptors (stdio_sim.c), and the descriptor
 * calls it makes (intercept_net.c).
 *
 * glibc's streams call its internal read and write, which no interposition
 * sees; so the runtime gives stdio streams of its own (fopencookie) whose
 * reads and writes go through the simulation: stdin, stdout and stderr from
 * the start (over descriptors 0, 1 and 2, whatever they are: a dup2 onto
 * them redirects the stream, as in the kernel), and every fdopen of a
 * simulated descriptor.
 */

#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

/* read/write on fd as the interceptors do them (simulated or real; a real
 * write is output, trace/trace.h), on behalf of the program at call site pc.
 * pc 0: a stdio stream's call, made while glibc holds the stream's lock:
 * the site is found from the stack, and the call is no preemption point
 * (it blocks only when it must). */
ssize_t detsim__fd_write(int fd, const void *buf, size_t len, uintptr_t pc);
ssize_t detsim__fd_read(int fd, void *buf, size_t len, uintptr_t pc);

/* Replaces stdin, stdout and stderr by the runtime's streams (at start). */
void detsim__stdio_install(void);
/* A stream of the runtime's over a real descriptor (a file of the
 * simulated disk: fopen, fdopen), as fdopen makes one. */
FILE *detsim__stdio_fdopen_real(int fd, const char *mode);
/* Descriptor fd (0, 1 or 2) now names another file (dup2, dup3): a
 * standard stream not used yet takes the buffering glibc would give it. */
void detsim__stdio_fd_changed(int fd);

/* The run is ending from the runtime (a failure, exit with a status): the
 * flush of the program's streams that follows writes real descriptors only
 * (a simulated write could yield or block with the run half-ended). */
void detsim__stdio_end(void);

#endif /* DETSIM_LIBC_PART_H */
