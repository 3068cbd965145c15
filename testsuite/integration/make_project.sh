#!/usr/bin/env bash
# make_project.sh STEP: a Makefile project built with CC=detsim-cc from PREFIX.
#
#   build      `make CC=detsim-cc` alone: a simulation build, with -MMD
#              dependency files and a static archive on the way
#   configure  ./configure CC=detsim-cc (autoconf-style probes, including
#              running a test program: needs the runtime to work), make,
#              make check
. "$(dirname "$0")/lib.sh"

step=${1:?usage: make_project.sh STEP}
DCC="$PREFIX/bin/detsim-cc"
unset DETSIM_SEED DETSIM_OPTIONS DETSIM_CC_DEBUG CFLAGS LDFLAGS CPPFLAGS
fresh_dir "$WORK"
cp -R "$INTEG_SRC/make_project/." "$WORK/"
cd "$WORK"

case "$step" in

build)
  "$MAKE" CC="$DCC"
  check_simulation_binary counter "$PREFIX/lib"
  need_file main.d
  contains "$(cat worker.d)" "$PREFIX/include/detsim.h" "worker.d from -MMD"
  # Up to date: a second make does nothing.
  out=$("$MAKE" CC="$DCC")
  contains "$out" "Nothing to be done" "second make"
  ;;

configure)
  ./configure CC="$DCC" CFLAGS="-O1 -Werror" | tee configure.out
  out=$(cat configure.out)
  contains "$out" "checking whether the C compiler works... yes" "configure"
  contains "$out" "checking whether we are cross compiling... no" "configure"
  contains "$out" "checking how to run the C preprocessor... $DCC -E" "configure"
  contains "$out" "checking whether this is a detsim simulation build... yes" "configure"
  grep -qx '#define HAVE_DETSIM_BUILD 1' config.h || fail "config.h: HAVE_DETSIM_BUILD is not 1"
  "$MAKE"
  check_simulation_binary counter "$PREFIX/lib"
  out=$("$MAKE" check 2>&1)
  printf '%s\n' "$out"
  contains "$out" "detsim: pass seed=1 " "make check, seed 1"
  contains "$out" "detsim: pass seed=2 " "make check, seed 2"
  ;;

*)
  fail "unknown step '$step'"
  ;;
esac
echo "PASS: $step"
