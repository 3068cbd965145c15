#!/usr/bin/env bash
# cmake_projects.sh STEP: user CMake projects against the installed PREFIX.
#
#   cc_build      cmake_project/ configured with CC/CXX = PREFIX's detsim-cc
#                 and detsim-c++; its programs are simulation builds, its
#                 shared module is instrumented without the runtime
#   cc_ctest      that project's own ctest (needs the runtime to work)
#   fp_build      find_package_project/: find_package(detsim), plain clang 19
#                 with detsim::simulation, detsim_add_simulation_test()
#   fp_ctest      its ctest: exactly the two planted failures fail (needs
#                 the runtime to work)
#   fp_bad_usage  detsim_add_simulation_test() refuses bad arguments
. "$(dirname "$0")/lib.sh"

step=${1:?usage: cmake_projects.sh STEP}
WORK_ROOT=$(dirname "$WORK")
CC_BUILD="$WORK_ROOT/cmake_cc.build/build"
FP_BUILD="$WORK_ROOT/find_package.build/build"
unset DETSIM_SEED DETSIM_OPTIONS DETSIM_CC_DEBUG CFLAGS CXXFLAGS LDFLAGS

case "$step" in

cc_build)
  fresh_dir "$WORK"
  CC="$PREFIX/bin/detsim-cc" CXX="$PREFIX/bin/detsim-c++" \
    "$CMAKE" -S "$INTEG_SRC/cmake_project" -B "$CC_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  grep -q "^CMAKE_C_COMPILER:.*=$PREFIX/bin/detsim-cc$" "$CC_BUILD/CMakeCache.txt" ||
    fail "the project's C compiler is not $PREFIX/bin/detsim-cc"
  "$CMAKE" --build "$CC_BUILD" -j2
  check_simulation_binary "$CC_BUILD/counter" "$PREFIX/lib"
  check_simulation_binary "$CC_BUILD/counter_cxx" "$PREFIX/lib"
  check_no_runtime "$CC_BUILD/libplugin_mod.so"
  check_instrumented "$CC_BUILD/libplugin_mod.so"
  n=$(cd "$CC_BUILD" && "$CTEST" -N | sed -n 's/^Total Tests: //p')
  [ "$n" = 4 ] || fail "cmake_project registers $n tests, expected 4"
  ;;

cc_ctest)
  out=$(cd "$CC_BUILD" && "$CTEST" --output-on-failure --timeout 120 2>&1) ||
    { printf '%s\n' "$out" >&2; fail "cmake_project's ctest failed"; }
  printf '%s\n' "$out"
  contains "$out" "100% tests passed, 0 tests failed out of 4" "cmake_project's ctest"
  ;;

fp_build)
  fresh_dir "$WORK"
  CC="$CLANG" "$CMAKE" -S "$INTEG_SRC/find_package_project" -B "$FP_BUILD" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  "$CMAKE" --build "$FP_BUILD" -j2
  check_simulation_binary "$FP_BUILD/counter" "$PREFIX/lib"
  # Exactly one test per seed, named <name>.seed<N>.
  names=$(cd "$FP_BUILD" && "$CTEST" -N | sed -n 's/^ *Test *#[0-9]*: //p' | sort | tr '\n' ' ')
  want="badopts.seed1 counter.seed1 counter.seed2 counter.seed3 failing.seed1 failing.seed2 failing.seed3 quiet.seed1 "
  [ "$names" = "$want" ] || fail "registered tests: '$names', expected '$want'"
  # Each gets its seed (and options) in the environment, and the TIMEOUT.
  (cd "$FP_BUILD" && "$CTEST" --show-only=json-v1) >"$WORK/tests.json"
  prop() {
    "$CMAKE" -DJSON="$WORK/tests.json" -DTEST_NAME="$1" -DPROP="$2" -P "$INTEG_SRC/test_props.cmake"
  }
  for t in counter.seed1 counter.seed2 counter.seed3 failing.seed2 badopts.seed1; do
    seed=${t##*.seed}
    env=$(prop "$t" ENVIRONMENT)
    case "$t" in
      badopts.*) want="DETSIM_SEED=$seed;DETSIM_OPTIONS=no_such_option=1" ;;
      *) want="DETSIM_SEED=$seed" ;;
    esac
    [ "$env" = "$want" ] || fail "$t: ENVIRONMENT '$env', expected '$want'"
  done
  env=$(prop quiet.seed1 ENVIRONMENT)
  [ "$env" = "DETSIM_SEED=1;DETSIM_OPTIONS=quiet=1:max_threads=64" ] || fail "quiet.seed1: ENVIRONMENT '$env'"
  timeout=$(prop quiet.seed1 TIMEOUT)
  [ "${timeout%.0}" = 60 ] || fail "quiet.seed1: TIMEOUT '$timeout', expected 60"
  labels=$(prop failing.seed2 LABELS)
  [ "$labels" = "detsim;expected_failure" ] || fail "failing.seed2: LABELS '$labels'"
  ;;

fp_ctest)
  status=0
  out=$(cd "$FP_BUILD" && "$CTEST" --output-on-failure --timeout 120 2>&1) || status=$?
  printf '%s\n' "$out"
  [ "$status" != 0 ] || fail "ctest passed, but failing.seed2 and badopts.seed1 must fail"
  failed=$(printf '%s\n' "$out" | sed -n '/The following tests FAILED:/,$p' |
           sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' | sort | tr '\n' ' ')
  [ "$failed" = "badopts.seed1 failing.seed2 " ] ||
    fail "failed tests: '$failed', expected 'badopts.seed1 failing.seed2 '"
  contains "$out" "75% tests passed, 2 tests failed out of 8" "find_package project's ctest"
  contains "$out" "no_such_option" "an unknown DETSIM_OPTIONS key is named"
  # The seed reached the program and the runtime.
  out=$(cd "$FP_BUILD" && "$CTEST" -R '^counter\.seed3$' -V 2>&1)
  contains "$out" "detsim: seed=3 replay: DETSIM_SEED=3" "counter.seed3's first line"
  contains "$out" "counter=150 detsim=1 seed=3" "counter.seed3's output"
  ;;

fp_bad_usage)
  fresh_dir "$WORK"
  status=0
  out=$(CC="$CLANG" "$CMAKE" -S "$INTEG_SRC/find_package_project" -B "$WORK/bad1" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DDETSIM_TEST_BAD_SEEDS=ON 2>&1) || status=$?
  [ "$status" != 0 ] || fail "SEEDS 5-2 was accepted"
  contains "$out" "SEEDS 5-2" "bad SEEDS message"
  status=0
  out=$(CC="$CLANG" "$CMAKE" -S "$INTEG_SRC/find_package_project" -B "$WORK/bad2" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DDETSIM_TEST_NO_COMMAND=ON 2>&1) || status=$?
  [ "$status" != 0 ] || fail "a test without COMMAND was accepted"
  contains "$out" "COMMAND is required" "missing COMMAND message"
  ;;

*)
  fail "unknown step '$step'"
  ;;
esac
echo "PASS: $step"
