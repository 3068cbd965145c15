#!/usr/bin/env bash
# cc_cases.sh CASE: detsim-cc's edge cases, one CTest test per CASE.
#
# Environment (set by testsuite/integration/CMakeLists.txt):
#   DETSIM_BUILD  the build tree (its bin/, lib/, include/ mirror a prefix)
#   INTEG_SRC     testsuite/integration in the source tree
#   WORK          this test's own scratch directory (emptied first)
#   CLANG         the plain clang 19 (for release objects)
#
# Cases that only compile need the plugin to load (and `instrumented`
# checks need it to rewrite calls); cases that link need the runtime to
# exist and define what the pass calls; run_* cases need the runtime to work.
. "$(dirname "$0")/lib.sh"

case_name=${1:?usage: cc_cases.sh CASE}
CC="$DETSIM_BUILD/bin/detsim-cc"
CXX="$DETSIM_BUILD/bin/detsim-c++"
LIBDIR="$DETSIM_BUILD/lib"
INCDIR="$DETSIM_BUILD/include"
PROG="$INTEG_SRC/programs"
fresh_dir "$WORK"
cd "$WORK"
unset DETSIM_CC_DEBUG DETSIM_CLANG DETSIM_CLANGXX DETSIM_OPTIONS DETSIM_SEED

# A stand-in clang that records its arguments, one a line, in args.txt.
make_fake_clang() {
  cat >"$WORK/fake-clang" <<EOF
#!/bin/sh
printf '%s\n' "\$0" "\$@" > "$WORK/args.txt"
EOF
  chmod +x "$WORK/fake-clang"
}

# line_of PATTERN: the first line number of args.txt equal to PATTERN.
line_of() {
  grep -nxF -- "$1" "$WORK/args.txt" | head -n 1 | cut -d: -f1
}

# before A B: in args.txt, A comes before B (both present).
before() {
  local a b
  a=$(line_of "$1")
  b=$(line_of "$2")
  [ -n "$a" ] || { cat args.txt >&2; fail "argument '$1' missing"; }
  [ -n "$b" ] || { cat args.txt >&2; fail "argument '$2' missing"; }
  [ "$a" -lt "$b" ] || { cat args.txt >&2; fail "'$1' must come before '$2'"; }
}

has_arg() {
  grep -qxF -- "$1" "$WORK/args.txt" || { cat args.txt >&2; fail "argument '$1' missing"; }
}

lacks_arg() {
  if grep -qxF -- "$1" "$WORK/args.txt"; then cat args.txt >&2; fail "argument '$1' must not be added"; fi
}

no_link_flags() {
  lacks_arg -ldetsim_rt
  lacks_arg "-L$LIBDIR"
  lacks_arg "-Wl,-rpath,$LIBDIR"
  lacks_arg -lpthread
}

link_flags() {
  has_arg -ldetsim_rt
  has_arg "-L$LIBDIR"
  has_arg "-Wl,-rpath,$LIBDIR"
  has_arg -lpthread
}

case "$case_name" in

preprocess)
  # __DETSIM__ comes from the wrapper, so -E, -dM and -save-temps see it.
  out=$("$CC" -E "$PROG/macros.c")
  contains "$out" "int detsim_macro = 1;" "-E"
  contains "$out" "int detsim_verify_macro_absent = 1;" "-E without --verify"
  lacks "$out" "int detsim_verify_macro =" "-E without --verify"
  contains "$out" "\"$INCDIR/detsim.h\"" "detsim.h from the build tree's include/"
  out=$("$CC" --verify -E "$PROG/macros.c")
  contains "$out" "int detsim_verify_macro = 1;" "-E --verify"
  lacks "$out" "detsim_verify_macro_absent" "-E --verify"
  out=$("$CC" -dM -E - </dev/null)
  contains "$out" "#define __DETSIM__ 1" "-dM -E"
  lacks "$out" "__DETSIM_VERIFY__" "-dM -E without --verify"
  out=$("$CC" --verify -dM -E - </dev/null)
  contains "$out" "#define __DETSIM_VERIFY__ 1" "-dM -E --verify"
  ;;

save_temps)
  # -save-temps splits the compile into steps (the .i -> .bc step runs with
  # -disable-llvm-passes): the .i file sees __DETSIM__ and the object is
  # still instrumented.
  "$CC" -save-temps -c "$PROG/macros.c" -o macros.o
  need_file macros.i
  contains "$(cat macros.i)" "int detsim_macro = 1;" "-save-temps .i file"
  need_file macros.o
  "$CC" -save-temps -O1 -c "$PROG/counter.c" -o counter.o
  need_file counter.i
  need_file counter.bc
  check_instrumented counter.o
  ;;

compile)
  # -c compiles, instruments, and does not link.
  DETSIM_CC_DEBUG=1 "$CC" -O1 -c "$PROG/counter.c" -o counter.o 2>debug.txt
  need_file counter.o
  [ ! -e a.out ] || fail "-c produced a.out"
  debug=$(cat debug.txt)
  contains "$debug" "-fplugin=$LIBDIR/libdetsim.so" "DETSIM_CC_DEBUG line"
  lacks "$debug" "-ldetsim_rt" "-c must not add link flags"
  check_instrumented counter.o
  # Without -o the object is named after the source, as with clang.
  "$CC" -c "$PROG/counter.c"
  need_file counter.o
  # --verify compiles the DETSIM_VERIFY brackets in.
  "$CC" --verify -c "$PROG/counter.c" -o verify.o
  grep -q '__detsim_verify_begin' <<<"$(nm --undefined-only verify.o)" ||
    fail "--verify object does not call __detsim_verify_begin"
  if grep -q '__detsim_verify_begin' <<<"$(nm --undefined-only counter.o)"; then
    fail "an object built without --verify calls __detsim_verify_begin"
  fi
  # -fsyntax-only: nothing written.
  "$CC" -fsyntax-only "$PROG/counter.c"
  [ -z "$(find . -mindepth 1 ! -name counter.o ! -name verify.o ! -name debug.txt)" ] ||
    fail "-fsyntax-only wrote files: $(ls -A)"
  ;;

assembly)
  "$CC" -O1 -S "$PROG/counter.c" -o counter.s
  need_file counter.s
  grep -q '__detsim_pthread_mutex_lock' counter.s || fail "-S output is not instrumented"
  [ ! -e a.out ] || fail "-S produced a.out"
  ;;

depfiles)
  out=$("$CC" -M "$PROG/counter.c")
  contains "$out" "counter.o:" "-M"
  contains "$out" "$INCDIR/detsim.h" "-M lists detsim.h"
  contains "$out" "/pthread.h" "-M lists system headers"
  [ -z "$(ls -A)" ] || fail "-M wrote files: $(ls -A)"
  out=$("$CC" -MM "$PROG/counter.c")
  contains "$out" "$INCDIR/detsim.h" "-MM lists detsim.h (a -I header)"
  lacks "$out" "/pthread.h" "-MM omits system headers"
  [ -z "$(ls -A)" ] || fail "-MM wrote files: $(ls -A)"
  "$CC" -MD -c "$PROG/counter.c" -o counter.o
  need_file counter.o
  need_file counter.d
  contains "$(cat counter.d)" "$INCDIR/detsim.h" "-MD .d file"
  "$CC" -MMD -MF deps.d -MT mytarget -c "$PROG/counter.c" -o counter2.o
  need_file counter2.o
  contains "$(cat deps.d)" "mytarget:" "-MF/-MT"
  # -MD does not stop the link.
  "$CC" -MD "$PROG/counter.c" -o prog
  need_file prog.d
  check_simulation_binary prog "$LIBDIR"
  ;;

link)
  # Link-only invocations add the runtime, also for objects built without
  # the plugin, and the runtime comes first even after the user's libraries.
  "$CLANG" -c "$PROG/counter.c" -I"$INCDIR" -o plain.o
  "$CC" plain.o -o from_plain
  check_links_runtime from_plain "$LIBDIR"
  "$CC" -O1 -c "$PROG/counter.c" -o sim.o
  "$CC" sim.o -o from_sim
  check_simulation_binary from_sim "$LIBDIR"
  # -Werror with a link-only command: no "argument unused" for added flags.
  "$CC" -Werror -Wunused-command-line-argument sim.o -o werror
  check_simulation_binary werror "$LIBDIR"
  # One step, with a user library and --as-needed.
  mkdir -p ulib
  echo 'int user_fn(void) { return 1; }' >ulib/user.c
  "$CLANG" -shared -fPIC ulib/user.c -o ulib/libuser.so
  echo 'int user_fn(void); int keep(void) { return user_fn(); }' >use.c
  "$CC" -Wl,--as-needed -O1 "$PROG/counter.c" use.c -Lulib -luser -o onestep
  check_simulation_binary onestep "$LIBDIR"
  grep -qx libuser.so <<<"$(dt_needed onestep)" || fail "onestep lost libuser.so"
  # The runtime is linked, not just named: its symbols resolve.
  grep -q ' __detsim_pthread_mutex_lock$' <<<"$(nm -D --defined-only "$LIBDIR/libdetsim_rt.so")" ||
    fail "libdetsim_rt.so does not define __detsim_pthread_mutex_lock"
  ;;

shared)
  # A shared library is instrumented but takes the runtime from the program.
  "$CC" -shared -fPIC -O1 "$PROG/counter.c" -o libcounter.so
  check_no_runtime libcounter.so
  check_instrumented libcounter.so
  "$CC" -c -fPIC "$PROG/counter.c" -o pic.o
  "$CC" -r pic.o -o partial.o
  need_file partial.o
  ;;

probes)
  # What configure scripts and CMake ask a compiler.
  v=$("$CC" -dumpversion)
  case "$v" in 19.*) ;; *) fail "-dumpversion: '$v', expected 19.x" ;; esac
  contains "$("$CC" --version)" "clang version 19" "--version"
  contains "$("$CC" -v 2>&1)" "clang version 19" "-v"
  ld=$("$CC" -print-prog-name=ld)
  [ -n "$ld" ] || fail "-print-prog-name=ld printed nothing"
  grep -q '^libraries:' <<<"$("$CC" -print-search-dirs)" || fail "-print-search-dirs"
  "$CC" -print-libgcc-file-name >/dev/null
  [ -z "$(ls -A)" ] || fail "probes wrote files: $(ls -A)"
  echo 'int main(void) { return 0; }' >conftest.c
  "$CC" -Werror conftest.c -o conftest
  check_links_runtime conftest "$LIBDIR"
  "$CC" -Werror -c conftest.c -o conftest.o
  need_file conftest.o
  out=$(echo '#include <stdio.h>' | "$CC" -E -)
  contains "$out" "printf" "-E from stdin"
  "$CC" -x c - -o fromstdin <conftest.c
  check_links_runtime fromstdin "$LIBDIR"
  ;;

own_flags)
  expect_status 2 "$CC" --detsim-bogus -c "$PROG/counter.c" 2>err.txt
  contains "$(cat err.txt)" "--detsim-bogus" "unknown own flag message"
  expect_status 2 "$CC" --verify=yes -c "$PROG/counter.c" 2>err.txt
  contains "$(cat err.txt)" "--verify" "--verify=yes message"
  echo '--verify -c x.c' >own.rsp
  expect_status 2 "$CC" @own.rsp 2>err.txt
  contains "$(cat err.txt)" "response file" "--verify in a response file"
  expect_status 2 env DETSIM_CC_DEBUG=yes "$CC" -c "$PROG/counter.c" 2>err.txt
  contains "$(cat err.txt)" "DETSIM_CC_DEBUG" "bad DETSIM_CC_DEBUG"
  expect_status 2 "$CC" -static "$PROG/counter.c" -o static 2>err.txt
  contains "$(cat err.txt)" "-static" "-static message"
  [ ! -e static ] || fail "-static produced a program"
  "$CC" -static -c "$PROG/counter.c" -o static.o # no link: fine
  out=$("$CC" --detsim-help)
  contains "$out" "--verify" "--detsim-help"
  contains "$out" "DETSIM_CLANG" "--detsim-help"
  out=$("$CXX" --detsim-version)
  contains "$out" "detsim-c++ (detsim)" "--detsim-version"
  contains "$out" "prefix: $DETSIM_BUILD" "--detsim-version"
  expect_status 1 env DETSIM_CLANG=/nonexistent/clang-19 "$CC" -c "$PROG/counter.c" 2>err.txt
  contains "$(cat err.txt)" "/nonexistent/clang-19" "missing DETSIM_CLANG message"
  expect_status 2 env DETSIM_CLANG="$CC" "$CC" -c "$PROG/counter.c" 2>err.txt
  contains "$(cat err.txt)" "detsim-cc itself" "DETSIM_CLANG=detsim-cc message"
  # clang's own --verify-debug-info is not detsim's --verify.
  make_fake_clang
  DETSIM_CLANG="$WORK/fake-clang" "$CC" --verify-debug-info -c x.c
  has_arg --verify-debug-info
  lacks_arg -fplugin-arg-detsim-verify
  ;;

args)
  # The argument editing itself, seen through a stand-in clang.
  make_fake_clang
  export DETSIM_CLANG="$WORK/fake-clang" DETSIM_CLANGXX="$WORK/fake-clang"
  "$CC" -Iuser -c x.c -o x.o
  [ "$(head -n 1 args.txt)" = "$WORK/fake-clang" ] || fail "DETSIM_CLANG not used"
  has_arg "-fplugin=$LIBDIR/libdetsim.so"
  has_arg -D__DETSIM__=1
  lacks_arg -D__DETSIM_VERIFY__=1
  before "-fplugin=$LIBDIR/libdetsim.so" -Iuser
  before -Iuser "-I$INCDIR"
  before -c x.c
  no_link_flags
  "$CC" --verify -c x.c
  has_arg -fplugin-arg-detsim-verify
  has_arg -D__DETSIM_VERIFY__=1
  lacks_arg --verify
  "$CC" x.o y.o -Lu -lfoo -o prog
  link_flags
  before -ldetsim_rt x.o
  before -ldetsim_rt -lfoo
  before -Lu "-L$LIBDIR"
  before -lfoo -lpthread
  has_arg -Wl,--push-state,--no-as-needed
  # Invocations that do not link.
  for stop in -c -S -E -M -MM -fsyntax-only; do
    "$CC" "$stop" x.c
    no_link_flags
  done
  "$CC" -shared x.o -o libx.so && no_link_flags
  "$CC" -r x.o -o part.o && no_link_flags
  "$CC" -v && no_link_flags
  "$CC" -dumpversion && no_link_flags
  "$CC" -print-prog-name=ld && no_link_flags
  # Values of options are not inputs: no input file, no link.
  "$CC" -o prog && no_link_flags
  "$CC" -x c -MF dep.d -MT t -include h.h -Xlinker foo && no_link_flags
  # -MD and -MMD do not stop the link.
  "$CC" -MD x.c -o prog && link_flags
  "$CC" -MMD -MF d.d x.c -o prog && link_flags
  # stdin is an input.
  "$CC" -x c - -o prog && link_flags
  # Response files are read to decide.
  printf '%s\n' 'x.o "-o" prog' >link.rsp
  "$CC" @link.rsp && link_flags && has_arg @link.rsp
  printf '%s\n' '-c x.c' >compile.rsp
  "$CC" @compile.rsp && no_link_flags
  printf '%s\n' '@compile.rsp' >nested.rsp
  "$CC" @nested.rsp && no_link_flags
  # C++ mode by name: detsim-c++ runs DETSIM_CLANGXX.
  unset DETSIM_CLANG
  "$CXX" -c x.cc
  [ "$(head -n 1 args.txt)" = "$WORK/fake-clang" ] || fail "DETSIM_CLANGXX not used"
  has_arg -D__DETSIM__=1
  # The recorded compilers are clang 19's.
  unset DETSIM_CLANGXX
  DETSIM_CC_DEBUG=1 "$CXX" -dumpversion 2>debug.txt >/dev/null
  contains "$(cat debug.txt)" "clang++" "detsim-c++ runs clang++"
  ;;

cxx)
  "$CXX" -O1 "$PROG/counter.cc" -o counter_cxx
  check_simulation_binary counter_cxx "$LIBDIR"
  ;;

run_simulation)
  # Needs the runtime to work.
  "$CC" -O1 "$PROG/counter.c" -o counter
  check_simulation_binary counter "$LIBDIR"
  expect_pass 7 out7 err7 ./counter
  contains "$(cat out7)" "counter=150 detsim=1 seed=7" "stdout"
  h7=$RUN_HISTORY
  expect_pass 7 out7b err7b ./counter
  [ "$RUN_HISTORY" = "$h7" ] || fail "seed 7 gave history $h7, then $RUN_HISTORY"
  expect_pass 8 out8 err8 ./counter
  # A program's failure is the `exit` class, status 80 (runtime/classes.inc).
  run_sim 5 out5 err5 ./counter --fail-on-seed 5
  [ "$RUN_CLASS" = exit ] || fail "--fail-on-seed: class $RUN_CLASS, expected exit"
  [ "$RUN_STATUS" = 80 ] || fail "--fail-on-seed: status $RUN_STATUS, expected 80"
  ;;

run_verify)
  # Needs the runtime: a verify build takes the release simulation build's
  # history for the same seed (DESIGN.md, verb 4).
  "$CC" -O1 "$PROG/counter.c" -o counter
  "$CC" --verify -O1 "$PROG/counter.c" -o counter_verify
  check_simulation_binary counter_verify "$LIBDIR"
  for seed in 1 2 3; do
    expect_pass $seed out err ./counter
    h=$RUN_HISTORY
    expect_pass $seed outv errv ./counter_verify
    [ "$RUN_HISTORY" = "$h" ] ||
      fail "seed $seed: release history $h, verify history $RUN_HISTORY"
  done
  ;;

run_cxx)
  # Needs the runtime, including interposition of libstdc++'s pthread_create.
  "$CXX" -O1 "$PROG/counter.cc" -o counter_cxx
  expect_pass 3 out err ./counter_cxx
  contains "$(cat out)" "counter=60" "stdout"
  ;;

*)
  fail "unknown case '$case_name'"
  ;;
esac
echo "PASS: $case_name"
