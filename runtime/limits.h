/* Every limit of the runtime, in one place.
 *
 * Each limit is named with its unit, says why it has the value it has, and is
 * reported by name when a run hits it: a run that reaches a limit ends with a
 * message naming the limit and its value, never with memory corruption or a
 * hang.  Limits that users may lower or raise are also DETSIM_OPTIONS keys
 * (options.inc); the values here are then the defaults and the hard caps.
 */
#ifndef DETSIM_LIMITS_H
#define DETSIM_LIMITS_H

/* Simulated threads alive at once (the main thread included).  The scheduler
 * scans the live threads at each switch, and each thread holds a real stack:
 * a program needing more is better simulated with a smaller pool. */
#define DETSIM_MAX_THREADS 1024

/* POSIX timers (timer_create) alive at once: the next timer_create fails
 * with EAGAIN, as Linux's does at its per-process limit.  The signal path
 * scans them when one expires. */
#define DETSIM_MAX_POSIX_TIMERS 256

/* Raw futex waiters at once (syscall(SYS_futex), futex.c), and so the futex
 * keys (addresses) with waiters: each waiting thread waits on one key, so a
 * table as large as the thread table can never be full.  The wake paths scan
 * it; it is reported by name should it ever fill. */
#define DETSIM_FUTEX_WAITERS_MAX DETSIM_MAX_THREADS

/* Real-time signals queued beyond the first pending instance of each, for
 * the whole process: a kill or sigqueue beyond fails with EAGAIN, as
 * Linux's does beyond RLIMIT_SIGPENDING (which is larger; a program that
 * queues a thousand signals unread is likely stuck). */
#define DETSIM_MAX_QUEUED_SIGNALS 1024

/* sigsetjmp buffers remembered per thread (their simulated masks): a
 * longjmp to an older one restores as if it had none.  Buffers nest as
 * calls do; eight deep is more than handlers that jump out need. */
#define DETSIM_JMP_MARKS 8

/* Threads created over a whole run.  Thread ids in the trace are never
 * reused, and they are 16-bit in trace records. */
#define DETSIM_MAX_THREADS_CREATED 60000

/* Virtual pids and tids (proc/proc.h) are never reused in a run: the
 * counter stops at Linux's largest pid_max (2^22), and a run that would
 * need one more ends as inconclusive with limit=pid_max.  Threads created
 * per process are bounded far below (DETSIM_MAX_THREADS_CREATED), so only
 * a world of many nodes, restarted often, comes near it. */
#define DETSIM_PID_MAX 4194304

/* Events (yield points, blocks, wakes, timers) in one run before it ends as
 * inconclusive: a livelock that keeps yielding would otherwise run forever.
 * 2^32 events are tens of minutes at the fastest yield rate. */
#define DETSIM_MAX_EVENTS_DEFAULT (1ull << 32)

/* Virtual time a run may reach (ns) before it ends as inconclusive: a
 * program sleeping in a loop forever would otherwise never end.  One
 * simulated year. */
#define DETSIM_MAX_SIM_TIME_NS_DEFAULT (365ull * 24 * 3600 * 1000000000ull)

/* Trace records kept in memory (a ring: the last N events are written to the
 * trace file on failure).  32 bytes each: 1 Mi records = 32 MiB. */
#define DETSIM_TRACE_EVENTS_DEFAULT (1u << 20)
#define DETSIM_TRACE_EVENTS_MAX (1u << 26)

/* Lines of the trace printed on stderr when a run fails. */
#define DETSIM_TRACE_TAIL_LINES 20

/* Frames kept in one backtrace. */
#define DETSIM_BACKTRACE_FRAMES_MAX 32

/* Real seconds without a single event before the watchdog ends the run as
 * inconclusive (a thread stuck in an unsimulated call or a plain spin loop). */
#define DETSIM_WATCHDOG_S_DEFAULT 10

/* Length of the command line echoed in the first line. */
#define DETSIM_CMDLINE_BYTES_MAX 4096

/* PCT: the most priority change points a run may ask for. */
#define DETSIM_PCT_DEPTH_MAX 64

/* Decisions a schedule plan holds (plan= and plan_out=): 40 bytes each, in
 * two lazily touched arrays of 40 MiB (the recording's moves to the
 * world's arena at a run's first fork). */
#define DETSIM_PLAN_ENTRIES_MAX (1u << 20)
/* Processes a schedule plan names (by their virtual pids). */
#define DETSIM_PLAN_PIDS_MAX 1024

/* Size of a path option (trace file). */
#define DETSIM_PATH_BYTES_MAX 1024

/* How long the first process of a run that forked waits, at a failing end,
 * for the other processes' trace parts (world_trace_merge.c); a part late
 * past it is missing from the trace, and a warning says so. */
#define DETSIM_TRACE_PARTS_WAIT_MS 3000

/* ---- a node's clocks askew (clock.c, world_faults.c) ---- */

/* A node's clock rate may differ from virtual time by this many parts per
 * billion at most: 1000 ppm, twice the worst quartz NTP still corrects
 * (500 ppm).  Far below 1e9, so a drifting clock never runs backwards and
 * the rate arithmetic stays in 64 bits. */
#define DETSIM_CLOCK_DRIFT_PPB_MAX 1000000
/* A node's CLOCK_REALTIME is offset from the world's by an hour at most:
 * far beyond any skew worth drawing, far below the epoch it is added to. */
#define DETSIM_CLOCK_OFFSET_NS_MAX (3600ll * 1000000000ll)
/* A node's clocks read at most this many ns since the start (Linux's
 * KTIME_MAX, about 292 years): later times saturate, so a clock's base or a
 * timer's value added to them never wraps. */
#define DETSIM_CLOCK_LOCAL_NS_MAX 0x7fffffffffffffffull

/* ---- the simulated network (net_*.c) ---- */

/* Simulated descriptors open at once (default; option net_max_fds).  A
 * simulated descriptor holds one real placeholder descriptor (its number),
 * so the process's RLIMIT_NOFILE bounds it too; past either, calls fail with
 * EMFILE as Linux would, and the run says which limit it was. */
#define DETSIM_NET_MAX_FDS_DEFAULT 4096

/* Highest fd number + 1 that may be simulated: the descriptor table is
 * indexed by number (512 KiB of pointers, touched only where used). */
#define DETSIM_NET_FD_NUMBER_MAX 65536

/* Sockets, pipes, eventfds, timerfds and epoll instances alive at once,
 * descriptors closed but connections still draining included.  Past it:
 * EMFILE/ENFILE and a message naming the limit. */
#define DETSIM_NET_MAX_OBJECTS 65536

/* Bytes queued in one direction of a TCP connection (in flight + unread)
 * by default (option net_buffer_bytes), half for each side whose buffer
 * the program did not set: about Linux's default receive buffer on
 * loopback.  A writer blocks (or gets EAGAIN) when it is full.  Unix and
 * UDP sockets are bounded by their SO_SNDBUF/SO_RCVBUF instead
 * (net_truesize.c). */
#define DETSIM_NET_BUFFER_BYTES_DEFAULT (256u << 10)
/* The most a program may ask for (SO_RCVBUF) or the option may set. */
#define DETSIM_NET_BUFFER_BYTES_MAX (64u << 20)

/* A pipe's capacity: Linux's default (16 pages). */
#define DETSIM_NET_PIPE_BYTES 65536u
/* Datagrams an AF_UNIX SOCK_DGRAM socket holds unread before a sender that
 * is not its own peer waits (Linux's default net.unix.max_dgram_qlen: the
 * queue is full once it holds more than this). */
#define DETSIM_NET_UNIX_DGRAM_QLEN 10
/* Paths of closed unix sockets remembered until unlinked (the kernel leaves
 * a socket file): beyond, the oldest is forgotten (then ENOENT, not
 * ECONNREFUSED, for a connect there). */
#define DETSIM_NET_UNIX_STALE_PATHS 256

/* Segments in flight in one direction before new bytes are merged into the
 * last one (which then arrives when the new bytes would): bounds memory per
 * connection, never loses or reorders a byte. */
#define DETSIM_NET_SEGMENTS_MAX 64

/* Pending connections a listener holds (Linux's SOMAXCONN). */
#define DETSIM_NET_BACKLOG_MAX 4096
/* TCP urgent marks in flight in one direction (MSG_OOB sends not yet
 * arrived); a later one past this replaces the last, as an arrived later
 * mark replaces an earlier one. */
#define DETSIM_NET_URG_MARKS_MAX 8
/* Clients one listener's full backlog holds waiting (their SYN dropped,
 * sent again later); past it a connect is refused with a message. */
#define DETSIM_NET_SYN_WAITING_MAX 64
/* Pseudo-terminals open at once (their /dev/pts numbers), and the bytes
 * each direction of one holds (n_tty's N_TTY_BUF_SIZE). */
#define DETSIM_NET_PTYS_MAX 64
#define DETSIM_NET_PTY_BYTES 4096
/* Linux's SYN retransmission timer: 1 s first (TCP_TIMEOUT_INIT),
 * doubling, at most 120 s (TCP_RTO_MAX); TCP_SYNCNT at most 127. */
#define DETSIM_NET_SYN_RTO_INIT_NS 1000000000ull
#define DETSIM_NET_SYN_RTO_MAX_NS 120000000000ull
#define DETSIM_NET_SYNCNT_MAX 127
/* Socket buffer sizes as a default Linux has them (bytes; getsockopt
 * reports the kernel's doubled values): net.core.rmem_max and wmem_max
 * cap SO_RCVBUF/SO_SNDBUF (SO_*BUFFORCE goes past them), the floors are
 * SOCK_MIN_RCVBUF/SOCK_MIN_SNDBUF, the TCP defaults tcp_rmem[1] and
 * tcp_wmem[1], the others rmem_default/wmem_default. */
#define DETSIM_NET_RMEM_MAX 212992
#define DETSIM_NET_WMEM_MAX 212992
#define DETSIM_NET_RCVBUF_MIN 2304
#define DETSIM_NET_SNDBUF_MIN 4608
#define DETSIM_NET_TCP_RCVBUF_DEFAULT 131072
#define DETSIM_NET_TCP_SNDBUF_DEFAULT 16384
#define DETSIM_NET_SOCK_BUF_DEFAULT 212992

/* Registrations in all epoll instances together (Linux's max_user_watches
 * is far larger; ENOSPC past it, as Linux). */
#define DETSIM_NET_EPOLL_REGISTRATIONS_MAX 65536

/* Epoll instances nested in each other (Linux's EP_MAX_NESTS). */
#define DETSIM_NET_EPOLL_NEST_MAX 4

/* Multicast (net_mcast.c): sources in one membership's filter (Linux's
 * IPv6 default, mld_max_msf; IPv4's is 10, igmp_max_msf), and IPv6 groups
 * one socket joins (Linux bounds them by the socket's option memory):
 * past it ENOMEM and a message naming net_mcast6_groups_max. */
#define DETSIM_NET_MCAST_SOURCES_MAX 64
#define DETSIM_NET_MCAST6_GROUPS_MAX 256

/* Socket options remembered per socket (values set with setsockopt that
 * the model does not act on, read back by getsockopt). */
#define DETSIM_NET_SOCKOPTS_MAX 16

/* A timerfd's value and interval (ns) at most: Linux's KTIME_MAX (about 292
 * years).  Longer times saturate there, as the kernel's ktime does, so
 * expiration arithmetic on virtual time cannot overflow. */
#define DETSIM_NET_TIMERFD_NS_MAX 0x7fffffffffffffffull

/* One-way latency of a link (ns) drawn per connection direction, at most
 * (default; option net_latency_max_ns).  2 ms: far above loopback's, well
 * below the sleeps and timeouts programs use, so schedules vary without
 * turning every test into a timeout test. */
#define DETSIM_NET_LATENCY_NS_MAX_DEFAULT 2000000ull
/* A link's jitter: up to 0.5 ms by default (net_jitter_max_ns). */
#define DETSIM_NET_JITTER_NS_MAX_DEFAULT 500000ull
/* Bandwidths drawn per link direction: from net_bandwidth_min (10 Mbit/s
 * by default) to 10 Gbit/s, in bytes per second. */
#define DETSIM_NET_BANDWIDTH_MIN_DEFAULT 1250000ull
#define DETSIM_NET_BANDWIDTH_MAX 1250000000ull

/* Sections of coverage points a run keeps (points.c): one per module
 * (executable, shared library), plus one per point reached before its
 * module registered.  Past the limit the run warns, and the points of the
 * others are not reported. */
#define DETSIM_POINT_MODULES_MAX 64

/* The buffer of a stdio stream fdopen()ed on a simulated descriptor
 * (stdio_sim.c): what glibc takes for a socket or a pipe, whose st_blksize
 * is the page size. */
#define DETSIM_STDIO_STREAM_BUFFER_BYTES 4096
/* Streams fdopen()ed on simulated descriptors alive at once: as many as the
 * default descriptor limit; one more fails with EMFILE and a message. */
#define DETSIM_STDIO_SIM_STREAMS_MAX 4096
/* One wprintf on the runtime's streams formats at most this many wide
 * characters (vswprintf cannot say how many it needs); longer fails (-1). */
#define DETSIM_STDIO_WIDE_CHARS_MAX (1u << 20)

/* One /etc/passwd or /etc/group entry for the non-reentrant lookups
 * (intercept_pwd.c): a group of a few thousand members fits; a longer one
 * fails with ERANGE, as a _r lookup with a small buffer does. */
#define DETSIM_NSS_ENTRY_BYTES_MAX 65536
/* initgroups: at most as many groups as Linux takes (NGROUPS_MAX). */
#define DETSIM_NSS_GROUPS_MAX 65536

/* Addresses gethostbyname returns at most (intercept_libc_io.c): a world
 * node or localhost has one or two. */
#define DETSIM_HOSTENT_ADDRS_MAX 16

/* A service of /etc/services as getservbyname returns it
 * (intercept/services_file.c): its name and protocol at most this long
 * (a longer one never matches), its aliases at most this many (later ones
 * still match, but the servent lists these). */
#define DETSIM_SERVICE_NAME_MAX 64
#define DETSIM_SERVICE_ALIASES_MAX 8

/* Linux's ephemeral port range (ip_local_port_range). */
#define DETSIM_NET_EPHEMERAL_PORT_LOW 32768
#define DETSIM_NET_EPHEMERAL_PORT_HIGH 60999

/* Simulated CPUs (option cpus): an affinity mask is one 64-bit word, and
 * cpus=draw draws 1..this many.  Machines with more exist; a program's
 * behaviour past 64 is rarely different from at 64. */
#define DETSIM_CPUS_MAX 64
/* The real-time priorities of SCHED_FIFO and SCHED_RR, Linux's
 * (sched_get_priority_min/max): also the range of a PRIO_PROTECT ceiling. */
#define DETSIM_RT_PRIO_MIN 1
#define DETSIM_RT_PRIO_MAX 99
/* The simulated machine's memory (sysconf(_SC_PHYS_PAGES), /proc/meminfo):
 * a plain 16 GiB, the same on every seed. */
#define DETSIM_MACHINE_MEMORY_BYTES (16ull << 30)
/* Bytes of a special file's simulated contents (/proc/cpuinfo at
 * DETSIM_CPUS_MAX CPUs is the largest, about 40 KiB). */
#define DETSIM_MACHINE_FILE_BYTES_MAX (64u << 10)
/* Executable segments of sanitizer runtimes (libclang_rt.*) the runtime
 * tells apart from the program's code; more is an `inconclusive` run. */
#define DETSIM_SANITIZER_SEGMENTS_MAX 8
/* Interceptor functions of sanitizer runtimes (MSan has about 600, ASan
 * 450): calls from them are the program's; more is an `inconclusive` run. */
#define DETSIM_SANITIZER_INTERCEPTORS_MAX 4096
/* MemorySanitizer's pointers to real functions that point at the runtime's
 * own (133 with clang 19): each gets a pair of trampolines (msan.c), made
 * 16 x 16 at build time; more is an `inconclusive` run. */
#define DETSIM_MSAN_REAL_POINTERS_MAX 256
/* Bytes of the names of MemorySanitizer's other pointers to real functions
 * (those aimed at libc's already; clang 19 has about 530, 7 KiB of names),
 * whose interceptors REAL may enter directly; more is an `inconclusive` run. */
#define DETSIM_MSAN_OTHER_NAMES_BYTES_MAX (32u << 10)
/* The runtime's own threads of one process (watchdog, dispatcher, warden)
 * that a fork under ThreadSanitizer stops and starts again. */
#define DETSIM_HELPER_THREADS_MAX 4
/* How long a fork under ThreadSanitizer waits for the real exits of the
 * simulated threads that ended (so TSan counts them out): they take
 * microseconds; past this the fork goes on, a multi-threaded one to TSan. */
#define DETSIM_FORK_THREAD_EXIT_WAIT_MS 1000

_Static_assert(DETSIM_NET_MAX_FDS_DEFAULT <= DETSIM_NET_FD_NUMBER_MAX, "the default fits the table");
_Static_assert(DETSIM_NET_BUFFER_BYTES_DEFAULT <= DETSIM_NET_BUFFER_BYTES_MAX, "default within the cap");
_Static_assert(DETSIM_NET_SEGMENTS_MAX >= 2, "a segment array holds at least two");
_Static_assert(DETSIM_NET_TIMERFD_NS_MAX <= 0xffffffffffffffffull / 2, "virtual time plus a timer's value fits in 64 bits");

_Static_assert(DETSIM_CLOCK_DRIFT_PPB_MAX < 1000000000 / 2, "a drifting clock still moves forward");
_Static_assert(DETSIM_CLOCK_LOCAL_NS_MAX == DETSIM_NET_TIMERFD_NS_MAX, "a timerfd's times are a node's clock times");

_Static_assert(DETSIM_CPUS_MAX <= 64, "an affinity mask is one 64-bit word");
_Static_assert(DETSIM_MAX_THREADS_CREATED < 65535, "thread ids are 16-bit in trace records");
_Static_assert(DETSIM_MAX_THREADS <= DETSIM_MAX_THREADS_CREATED, "live threads are a subset of created threads");
_Static_assert(DETSIM_FUTEX_WAITERS_MAX >= DETSIM_MAX_THREADS, "every live thread can wait on a futex at once");
_Static_assert((DETSIM_TRACE_EVENTS_DEFAULT & (DETSIM_TRACE_EVENTS_DEFAULT - 1)) == 0, "the trace ring is a power of two");

/* Processes of one world, every one that ever lived in the run (fork makes
 * one; a slot is never reused, so a pid names one process): the world's
 * node slots, DETSIM_WORLD_NODES_MAX in world_abi.h.  A fork beyond it
 * fails with EAGAIN and names world_processes_max. */
#define DETSIM_WORLD_PROCESSES_MAX 64

/* posix_spawn, system, popen (runtime/proc/proc_spawn.c): file actions
 * recorded per posix_spawn_file_actions_t, such objects alive at once,
 * words of a command line run without a shell, popen streams open at
 * once.  Past each: ENOMEM (EMFILE for popen) and a message naming it. */
#define DETSIM_SPAWN_ACTIONS_MAX 64
#define DETSIM_SPAWN_ACTION_OBJECTS_MAX 64
#define DETSIM_COMMAND_WORDS_MAX 256
#define DETSIM_POPEN_MAX 64
/* Named semaphores one process has open at once (sem_open: its own table
 * of open ones, as glibc's, which a fork copies).  One more: EMFILE and a
 * message naming named_sems_open_max. */
#define DETSIM_NAMED_SEMS_OPEN_MAX 256
/* Descriptors passed over unix sockets (SCM_RIGHTS, net_scm.c): at most
 * DETSIM_NET_SCM_FDS_MAX in one message (Linux's SCM_MAX_FD: more is
 * EINVAL), and DETSIM_NET_SCM_QUEUED_MAX messages carrying descriptors
 * waiting in one direction of a connection or one datagram socket (more
 * is ETOOMANYREFS, named net_scm_queued_max). */
#define DETSIM_NET_SCM_FDS_MAX 253
#define DETSIM_NET_SCM_QUEUED_MAX 1024
/* Executable segments of libc, the loader, the vDSO, the runtime and its
 * libraries that the trap_syscalls filter allows; past it the run stops
 * with an error naming the limit (the filter would be incomplete). */
#define DETSIM_TRAP_TEXT_RANGES_MAX 64
/* The simulated disk (runtime/disk/, docs/disk.md): descriptor numbers whose
 * answer (on the disk or not) is cached; the undo journal of one node, in
 * bytes and records (past either the run ends with a clear error: sync() or
 * syncfs() empties it); what one rollback after a power loss handles: files
 * found under the data directory, records of one file, units (sectors or
 * pages) of one file it draws a version for. */
#define DETSIM_DISK_FDS_MAX 65536
#define DETSIM_DISK_JOURNAL_BYTES_MAX (256ull << 20)
#define DETSIM_DISK_RECORDS_MAX (1u << 20)
#define DETSIM_DISK_SCAN_FILES_MAX 65536
#define DETSIM_DISK_RECORDS_PER_FILE_MAX 65536
#define DETSIM_DISK_UNITS_PER_FILE_MAX 65536
/* Shared file mappings of the disk (runtime/disk/disk_map.c): the mappings
 * a node's processes hold (every mmap of a file of the disk with
 * MAP_SHARED, split by munmap and mprotect), the distinct files they map,
 * and the bytes of the writable ones the crash model tracks, summed over
 * the node's processes (each snapshot goes to the undo journal): past any
 * of them the mapping call ends the run with a clear error naming it. */
#define DETSIM_DISK_MAPS_MAX 1024
#define DETSIM_DISK_MAPPED_FILES_MAX 64
#define DETSIM_DISK_MAPPED_BYTES_MAX (256ull << 20)

#endif
