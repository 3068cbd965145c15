#!/usr/bin/env bash
# libuv.sh: libuv's own test suite, natively and as a simulation build.
#
#   bench/libuv.sh LIBUV_SOURCE_DIR [PREFIX] [WORK_DIR]
#
# Builds libuv's tests twice (clang-19, and PREFIX/bin/detsim-cc: PREFIX is
# build/prefix by default), runs every test of test/test-list.h in its own
# process (`uv_run_tests_a NAME NAME`, seed 1 for the simulation build, 15 s
# each) as user nobody (libuv's tests refuse root) from a scratch directory,
# and prints how many pass natively and how many of those pass simulated,
# with the simulated failures by class.  Not a CTest test: it needs a libuv
# checkout, which the machines building detsim do not fetch.
set -euo pipefail
src=${1:?usage: bench/libuv.sh LIBUV_SOURCE_DIR [PREFIX] [WORK_DIR]}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${2:-$root/build/prefix}
work=${3:-$(mktemp -d /tmp/detsim-libuv.XXXXXX)}
mkdir -p "$work"
[ -f "$src/test/test-list.h" ] || { echo "libuv.sh: $src is not a libuv source tree (no test/test-list.h)" >&2; exit 2; }
[ -x "$prefix/bin/detsim-cc" ] || { echo "libuv.sh: no $prefix/bin/detsim-cc (build and install detsim first)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "libuv.sh: run as root (each test runs as nobody through setpriv)" >&2; exit 2; }

build() { # DIR CC
  CC=$2 cmake -S "$src" -B "$1" -DLIBUV_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release >"$1.log" 2>&1
  cmake --build "$1" -j "$(nproc)" >>"$1.log" 2>&1
}
build "$work/native" clang-19
build "$work/sim" "$prefix/bin/detsim-cc"

names=$(grep -o 'TEST_ENTRY\(_CUSTOM\)\? *([a-z_0-9]*' "$src/test/test-list.h" | sed 's/.*(//' | sort -u)
run() { # BIN OUT ENV...
  local bin=$1 out=$2; shift 2
  local d; d=$(mktemp -d /tmp/detsim-libuv-run.XXXXXX); chmod 777 "$d"
  : >"$out"
  for t in $names; do
    rc=0
    (cd "$d" && env "$@" timeout -k 2 15 setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" "$t" "$t") \
      >/dev/null 2>&1 || rc=$?
    echo "$t $rc" >>"$out"
    pkill -9 -u 65534 2>/dev/null || true # a test's leftover children
  done
  rm -rf "$d"
}
run "$work/native/uv_run_tests_a" "$work/native.res" DETSIM_UNUSED=1
run "$work/sim/uv_run_tests_a" "$work/sim.res" DETSIM_SEED=1

join <(sort "$work/native.res") <(sort "$work/sim.res") >"$work/both.res"
# The version: a checkout's tag, else a release tarball's include/uv/version.h.
version() {
  git -C "$src" describe --tags 2>/dev/null && return
  awk '/#define UV_VERSION_(MAJOR|MINOR|PATCH)/ { v = v (v == "" ? "" : ".") $3 } END { print (v == "" ? "unknown" : "v" v) }' \
    "$src/include/uv/version.h" 2>/dev/null || echo unknown
}
awk -v v="$(version)" '
  { total++ } $2 == 0 { nat++; if ($3 == 0) both++; else fail[$3]++ }
  END {
    printf "libuv %s: %d tests; %d pass natively; %d of those pass simulated (%.0f%%)\n", v, total, nat, both, 100 * both / nat
    split("80 exit 81 correctness 82 crash 83 deadlock 84 liveness 85 leak 86 inconclusive", m, " ")
    for (i = 1; i < 14; i += 2) if (fail[m[i]]) printf "  simulated failures, %s: %d\n", m[i + 1], fail[m[i]]
  }' "$work/both.res"
echo "per-test exit statuses (name native simulated): $work/both.res"
