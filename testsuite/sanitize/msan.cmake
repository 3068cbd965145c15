# MemorySanitizer in simulation builds (included by CMakeLists.txt when the
# runtime's MSan-instrumented copy is built): detsim-cc -fsanitize=memory
# links lib/msan/libdetsim_rt.so.
#
#  - the planted uninitialized read (msan_uninit.c) is reported on the
#    schedules where the worker reads before main writes, as
#    `crash sanitizer=memory` with MSan's report first, passes on the
#    others, and replays in separate processes with the same history;
#    with -fsanitize-memory-track-origins the report names the allocation;
#  - no false positives: programs that use sockets, pipes, clocks, random,
#    stat, epoll/poll/select, threads, conditions, getaddrinfo, timers,
#    signals and stdio pass under MSan and take the unsanitized build's
#    history and stdout on every seed (which also shows MSan's own calls are
#    neither events nor yield points);
#  - fork, exec and worlds of MSan processes (below).
set(MSAN -fsanitize=memory)

detsim_test_program(msan_uninit msan_uninit.c FLAGS ${MSAN})
detsim_test_program(msan_uninit_origins msan_uninit.c FLAGS ${MSAN} -fsanitize-memory-track-origins)
detsim_test_program(msan_uninit_plain msan_uninit.c)
simtest(sanitize-msan-uninit-found find --seeds 1-20 --class crash
  --stderr "WARNING: MemorySanitizer: use-of-uninitialized-value[\\s\\S]*^SUMMARY: MemorySanitizer[\\s\\S]*^detsim: crash "
  --stderr "#0 0x[0-9a-f]+ in worker .*msan_uninit.c" --stderr "sanitizer=memory" -- ${B}/msan_uninit)
simtest(sanitize-msan-uninit-some-seeds-pass find --seeds 1-20 --class pass --stdout "^job 1 port 8080$"
  -- ${B}/msan_uninit)
simtest(sanitize-msan-uninit-replays replay --seed 8 --runs 5 --stderr "MemorySanitizer: use-of-uninitialized-value"
  --stderr "sanitizer=memory" -- ${B}/msan_uninit)
simtest(sanitize-msan-uninit-origins find --seeds 1-20 --class crash
  --stderr "Uninitialized value was created by a heap allocation" --stderr "in main .*msan_uninit.c:[0-9]+"
  --stderr "sanitizer=memory" -- ${B}/msan_uninit_origins)
# Where MSan does not report (main wrote first), the sanitized build takes
# the plain build's history: seeds 1-7 all pass.
simtest(sanitize-msan-uninit-same-history compare --seeds 1-7 --other ${B}/msan_uninit_plain -- ${B}/msan_uninit)

# The clean programs, each built with MSan and without (NAME=SOURCE, or
# NAME=SOURCE=ARGUMENT); net conformance programs print what they observe,
# so equal stdout is a check too.
set(NETC ${PROJECT_SOURCE_DIR}/testsuite/net/conformance)
set(SYNC ${PROJECT_SOURCE_DIR}/testsuite/runtime/sync)
set(RT ${PROJECT_SOURCE_DIR}/testsuite/runtime)
set(msan_clean
  unix_stream=${NETC}/unix_stream.c        # sockets, threads
  pipe_eventfd=${NETC}/pipe_eventfd.c      # pipes, eventfd
  poll_select=${NETC}/poll_select.c        # poll, select
  epoll_modes=${NETC}/epoll_modes.c        # epoll, level and edge
  getaddrinfo=${NETC}/getaddrinfo_hints.c  # getaddrinfo
  timerfd=${NETC}/timerfd.c                # timerfds
  udp=${NETC}/udp.c                        # datagrams
  signals_queue=${NETC}/signals_queue.c    # signals
  fstat_kinds=${NETC}/fstat_kinds.c        # stat
  stdio_streams=${NETC}/stdio_streams.c    # stdio on sockets
  scm_rights=${NETC}/scm_rights.c          # recvmsg, control messages
  libc_lookups=${NETC}/libc_lookups.c      # names, services, hosts
  posix_timers=${RT}/posix_timers.c=signal # timer_create, SIGEV_SIGNAL
  posix_timers_thread=${RT}/posix_timers.c=thread  # SIGEV_THREAD
  signals=${RT}/signals.c=handlers         # handlers, sigaction
  sigwait=${RT}/signals.c=sigwait          # sigwait
  virtual_time=${RT}/virtual_time.c        # sleeps, clocks
  cond_broadcast=${SYNC}/cond_broadcast.c  # condition variables
  sem=${SYNC}/sem.c                        # semaphores
  rwlock=${SYNC}/rwlock.c                  # reader-writer locks
  devrandom=${PROJECT_SOURCE_DIR}/testsuite/machine/conformance/devrandom.c  # getrandom, /dev/urandom
  read_write=${PROJECT_SOURCE_DIR}/testsuite/files/conformance/read_write.c  # files
  bank_fixed=${PROJECT_SOURCE_DIR}/examples/bank/bank.c                      # the example, -DBANK_FIXED
  echo_epoll=${PROJECT_SOURCE_DIR}/testsuite/net/programs/echo_epoll.c       # a client-server
  message_clean=${CMAKE_CURRENT_SOURCE_DIR}/message_clean.c)
foreach(entry ${msan_clean})
  string(REPLACE "=" ";" parts "${entry}")
  list(GET parts 0 n)
  list(GET parts 1 src)
  set(args)
  list(LENGTH parts n_parts)
  if(n_parts GREATER 2)
    list(GET parts 2 args)
  endif()
  set(flags -D_GNU_SOURCE)
  if(src MATCHES "/testsuite/runtime/")
    set(flags) # these define _GNU_SOURCE themselves
  endif()
  if(n STREQUAL bank_fixed)
    list(APPEND flags -DBANK_FIXED)
  endif()
  detsim_test_program(msan_${n} ${src} FLAGS ${flags} ${MSAN})
  detsim_test_program(msan_${n}_plain ${src} FLAGS ${flags})
  simtest(sanitize-msan-clean-${n} check --seeds 1-3 --class pass
    --stderr "\\A(?![\\s\\S]*MemorySanitizer)" -- ${B}/msan_${n} ${args})
  simtest(sanitize-msan-same-history-${n} compare --seeds 1-3 --other ${B}/msan_${n}_plain -- ${B}/msan_${n} ${args})
endforeach()
# The seeds explore under MSan as without it.
simtest(sanitize-msan-explores explore --seeds 1-12 --min-histories 10 -- ${B}/msan_rwlock)



# fork, exec and worlds: the world's region is application memory to MSan.
# A forking run and a run that execs itself take the unsanitized build's
# history; a clean program of forks, an exec and pipes gets no report; a
# child's read of memory its parent freed (MSan poisons freed memory) ends
# the whole run with MSan's report on the seeds that free first, and
# replays; the kv example's world over MSan nodes runs clean and takes the
# history of the same world over unsanitized nodes.
detsim_test_program(fork_interleave_msan ${PROC}/programs/interleave.c FLAGS -D_GNU_SOURCE ${MSAN})
detsim_test_program(exec_self_msan ${PROC}/conformance/exec_self.c FLAGS -D_GNU_SOURCE ${MSAN})
simtest(sanitize-msan-fork-same-history compare --seeds 1-8 --other ${B}/fork_interleave_plain -- ${B}/fork_interleave_msan)
simtest(sanitize-msan-exec-same-history compare --seeds 1-4 --other ${B}/exec_self_plain -- ${B}/exec_self_msan)
detsim_test_program(fork_exec_clean_msan fork_exec_clean.c FLAGS ${MSAN})
simtest(sanitize-msan-fork-exec-clean check --seeds 1-6 --class pass
  --stdout "^parent 200 child 40 image 1120 status 0 0$" --stderr "\\A(?![\\s\\S]*MemorySanitizer)"
  -- ${B}/fork_exec_clean_msan)
simtest(sanitize-msan-fork-exec-clean-same-history compare --seeds 1-6 --other ${B}/fork_exec_clean_plain
  -- ${B}/fork_exec_clean_msan)
detsim_test_program(fork_child_freed_msan fork_child_uaf.c FLAGS ${MSAN} -fsanitize-memory-track-origins)
simtest(sanitize-msan-fork-child-freed-found find --seeds 1-12 --class crash
  --stderr "WARNING: MemorySanitizer: use-of-uninitialized-value" --stderr "in main .*fork_child_uaf.c"
  --stderr "created by a heap deallocation" --stderr "sanitizer=memory" -- ${B}/fork_child_freed_msan)
simtest(sanitize-msan-fork-child-freed-some-seeds-pass find --seeds 1-12 --class pass --stdout "^child status=0$"
  -- ${B}/fork_child_freed_msan)
simtest(sanitize-msan-fork-child-freed-replays replay --seed 2 --runs 4 --stderr "MemorySanitizer: use-of-uninitialized-value"
  -- ${B}/fork_child_freed_msan)
detsim_test_program(kv_server_msan ${KV}/kv_server.c FLAGS ${MSAN} SOURCES ${KV}/kv_net.c)
detsim_test_program(kv_client_msan ${KV}/kv_client.c FLAGS ${MSAN} SOURCES ${KV}/kv_net.c)
file(READ ${KV}/kv.scenario kv_msan_scenario)
string(REPLACE "kv_server " "kv_server_msan " kv_msan_scenario "${kv_msan_scenario}")
string(REPLACE "kv_client " "kv_client_msan " kv_msan_scenario "${kv_msan_scenario}")
file(WRITE ${B}/kv-msan.scenario "${kv_msan_scenario}")
simtest(sanitize-msan-example-kv-world check --seeds 1-4 --class pass
  --stderr "checked ok_seq_increases=100 read_your_writes=100" --stderr "\\A(?![\\s\\S]*MemorySanitizer)"
  -- ${PROJECT_BINARY_DIR}/bin/simworld kv-msan.scenario)
simtest(sanitize-msan-example-kv-world-same-history compare --seeds 1-4 --other ${B}/kv-plain-world.sh
  -- ${PROJECT_BINARY_DIR}/bin/simworld kv-msan.scenario)

# detsim-cc no longer refuses -fsanitize=memory (with origins too): it links
# the instrumented runtime, first in the link and run-time search order.
add_test(NAME sanitize-cc-links-msan-runtime
  COMMAND ${PROJECT_BINARY_DIR}/bin/detsim-cc -fsanitize=memory -fsanitize-memory-track-origins
    -o ${B}/cc_msan_links ${CMAKE_CURRENT_SOURCE_DIR}/leak.c)
set_tests_properties(sanitize-cc-links-msan-runtime PROPERTIES LABELS sanitize TIMEOUT 60 ENVIRONMENT DETSIM_CC_DEBUG=1
  PASS_REGULAR_EXPRESSION "-L[^ ]*/lib/msan -Wl,-rpath,[^ ]*/lib/msan -L[^ ]*/lib -Wl,-rpath,"
  FAIL_REGULAR_EXPRESSION "error|-shared-libsan")

# What the program sends keeps its shadow through the simulated network:
# the reader's branch on bytes the writer never wrote is reported there,
# with the writer's allocation as the origin, and the data it did write is
# clean (printed before the report).
detsim_test_program(msan_socket_uninit msan_socket_uninit.c FLAGS ${MSAN} -fsanitize-memory-track-origins)
simtest(sanitize-msan-socket-carries-shadow check --seeds 1-3 --class crash --stdout "^first 1$"
  --stderr "WARNING: MemorySanitizer: use-of-uninitialized-value\\n +#0 0x[0-9a-f]+ in main .*msan_socket_uninit.c:24"
  --stderr "created by a heap allocation[\\s\\S]*in main .*msan_socket_uninit.c:14" --stderr "sanitizer=memory"
  -- ${B}/msan_socket_uninit)

# A library MSan instruments but detsim-cc did not compile (plain clang
# -fsanitize=memory, as a program's dependencies are built for MSan): its
# clock_gettime passes MSan's interceptor and reaches the simulation, so it
# reads virtual time, as under the other sanitizers (msan.c: MSan's pointer
# to the real clock_gettime leads back to the runtime, except for the
# runtime's own REAL calls).
add_library(sanitize_clock_lib_msan SHARED clock_lib.c)
target_compile_options(sanitize_clock_lib_msan PRIVATE ${MSAN})
target_link_options(sanitize_clock_lib_msan PRIVATE ${MSAN})
set_target_properties(sanitize_clock_lib_msan PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${B} OUTPUT_NAME clocklib_msan)
detsim_test_program(clock_from_library_msan clock_from_library.c FLAGS ${MSAN} -L${B} -lclocklib_msan -Wl,-rpath,${B})
add_dependencies(clock_from_library_msan_prog sanitize_clock_lib_msan)
simtest(sanitize-msan-library-clock-virtual check --seeds 1-2 --class pass --max-wall 20
  --stdout "^library saw 30 s$" -- ${B}/clock_from_library_msan)

# A stripped -fsanitize=memory build has no .symtab to find MSan's pointers
# in: the run stops before the program with a message saying so.
detsim_test_program(msan_uninit_stripped msan_uninit.c FLAGS ${MSAN} -s)
add_test(NAME sanitize-msan-stripped-refused COMMAND ${B}/msan_uninit_stripped)
set_tests_properties(sanitize-msan-stripped-refused PROPERTIES LABELS sanitize TIMEOUT 60 ENVIRONMENT DETSIM_SEED=1
  PASS_REGULAR_EXPRESSION "error: MemorySanitizer build: no MemorySanitizer pointer .* executable's symbol table \\(is it stripped\\?.*\ndetsim: inconclusive .*reason=unsupported"
  FAIL_REGULAR_EXPRESSION "job 1 port")
