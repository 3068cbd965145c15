#!/usr/bin/env bash
# libevent.sh: libevent's own regress suite, natively and as a simulation build.
#
#   bench/libevent.sh LIBEVENT_SOURCE_DIR [PREFIX] [WORK_DIR]
#
# Builds libevent (static, no OpenSSL) and its test/regress twice (clang-19,
# and PREFIX/bin/detsim-cc: PREFIX is build/prefix by default), lists the
# tests (`regress --list-tests`, without the disabled and off-by-default
# ones) and runs each in its own process (`regress NAME`: tinytest forks the
# test's child, as libevent's CI runs it) once per backend libevent's
# test/test.sh covers on Linux (epoll, epoll with the changelist, epoll with
# a timerfd for precise timers, poll, select), natively and simulated (seed
# 1), a timeout each, from a scratch directory of its own, nice'd (the
# machine is shared). Prints how many runs pass natively (and how many of
# those only skip) and how many of the ones that ran natively pass
# simulated, with the simulated failures by result class. Each run's output
# is kept in WORK_DIR/logs/{native,sim}/BACKEND/, a simulated run's trace
# beside it. Not a CTest test: it needs libevent's source (Debian: `apt-get
# source libevent`), which the machines building detsim do not fetch.
#
# LIBEVENT_JOBS=N runs N tests at a time (default 1); LIBEVENT_TIMEOUT=S is
# each run's limit in real seconds (default 40); LIBEVENT_TESTS="a b" runs
# only those tests, LIBEVENT_BACKENDS="epoll poll" only those backends,
# LIBEVENT_SEED=N the simulated runs' seed (default 1), LIBEVENT_REPLAY=1
# runs each simulated test again and counts the runs that took the same
# history (the builds are reused when present); LIBEVENT_CFLAGS="..." adds
# C flags to both builds, e.g. "-g -fsanitize=thread" for libevent's suite
# under ThreadSanitizer natively and simulated (in build directories named
# after the flags).
set -euo pipefail
src=${1:?usage: bench/libevent.sh LIBEVENT_SOURCE_DIR [PREFIX] [WORK_DIR]}
src=$(cd "$src" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${2:-$root/build/prefix}
work=${3:-$(mktemp -d /tmp/detsim-libevent.XXXXXX)}
jobs=${LIBEVENT_JOBS:-1}
limit=${LIBEVENT_TIMEOUT:-40}
seed=${LIBEVENT_SEED:-1}
[ -f "$src/test/regress.c" ] && [ -f "$src/event.c" ] ||
  { echo "libevent.sh: $src is not a libevent source tree (no test/regress.c)" >&2; exit 2; }
[ -x "$prefix/bin/detsim-cc" ] || { echo "libevent.sh: no $prefix/bin/detsim-cc (build and install detsim first)" >&2; exit 2; }
mkdir -p "$work"
work=$(cd "$work" && pwd)

cflags=${LIBEVENT_CFLAGS:-}
flavour=$(printf '%s' "$cflags" | tr -c 'A-Za-z0-9=,\n' '_')
build() { # DIR CC
  [ -x "$1/bin/regress" ] && return 0
  CC=$2 CFLAGS=$cflags LDFLAGS=$cflags nice -n 10 cmake -S "$src" -B "$1" -DCMAKE_BUILD_TYPE=Release \
    -DEVENT__LIBRARY_TYPE=STATIC -DEVENT__DISABLE_OPENSSL=ON -DEVENT__DISABLE_MBEDTLS=ON \
    -DEVENT__DISABLE_BENCHMARK=ON -DEVENT__DISABLE_SAMPLES=ON >"$1.log" 2>&1 ||
    { echo "libevent.sh: configuring $1 failed (see $1.log)" >&2; exit 1; }
  nice -n 10 cmake --build "$1" -j "$(nproc)" --target regress >>"$1.log" 2>&1 ||
    { echo "libevent.sh: the build in $1 failed (see $1.log)" >&2; exit 1; }
}
native_dir=native${flavour:+-$flavour}
sim_dir=sim${flavour:+-$flavour}
build "$work/$native_dir" clang-19
build "$work/$sim_dir" "$prefix/bin/detsim-cc"

# `--list-tests` prints "    group/name" a line, a suffix on the disabled ones.
if [ -n "${LIBEVENT_TESTS:-}" ]; then
  names=$LIBEVENT_TESTS
else
  names=$("$work/$native_dir/bin/regress" --list-tests | awk '/^    [^ ]/ && NF == 1 { print $1 }')
fi
[ -n "$names" ] || { echo "libevent.sh: regress --list-tests listed no test" >&2; exit 1; }

# The backends libevent's test/test.sh runs the suite with, by the
# environment variables libevent reads.
backend_env() {
  case $1 in
    epoll) echo EVENT_NOPOLL=yes EVENT_NOSELECT=yes ;;
    changelist) echo EVENT_NOPOLL=yes EVENT_NOSELECT=yes EVENT_EPOLL_USE_CHANGELIST=yes ;;
    timerfd) echo EVENT_NOPOLL=yes EVENT_NOSELECT=yes EVENT_PRECISE_TIMER=1 ;;
    poll) echo EVENT_NOEPOLL=yes EVENT_NOSELECT=yes ;;
    select) echo EVENT_NOEPOLL=yes EVENT_NOPOLL=yes ;;
    *) echo "libevent.sh: unknown backend $1 (epoll changelist timerfd poll select)" >&2; return 1 ;;
  esac
}
backends=${LIBEVENT_BACKENDS:-epoll changelist timerfd poll select}
for b in $backends; do backend_env "$b" >/dev/null || exit 2; done

# One run: KIND BACKEND NAME -> "NAME@BACKEND STATUS OUTCOME HISTORY" on
# stdout. OUTCOME is from tinytest's summary line: ok, skipped, failed, or
# none when the run printed none; HISTORY the simulated run's history hash
# (its result line's), - natively. KIND replay is the simulation build again.
run_one() {
  local kind=$1 b=$2 t=$3 bin rc=0 d log outcome history
  case $kind in native) bin=$work/$native_dir/bin/regress ;; *) bin=$work/$sim_dir/bin/regress ;; esac
  d=$work/runs/$kind/$b/${t//\//_}
  log=$work/logs/$kind/$b/${t//\//_}.log
  rm -rf "$d"; mkdir -p "$d" "$(dirname "$log")"
  # timeout makes the run a process group of its own: what the test leaves
  # behind (a forked child) is ended with the group once the run is over.
  # shellcheck disable=SC2046 # the backend's variables are words
  (cd "$d" && exec env TMPDIR="$d" DETSIM_SEED="$seed" $(backend_env "$b") \
     nice -n 10 timeout -k 2 "$limit" "$bin" "$t") >"$log" 2>&1 </dev/null &
  local pid=$!
  wait "$pid" || rc=$?
  kill -9 -- "-$pid" 2>/dev/null || true
  if grep -q "TESTS FAILED" "$log"; then outcome=failed
  elif grep -q "^1 tests ok\." "$log"; then outcome=ok
  elif grep -q "^0 tests ok\.  (1 skipped)" "$log"; then outcome=skipped
  else outcome=none; fi
  # A simulated run's trace is all that is worth keeping of its directory.
  for f in "$d"/detsim-*.trace; do [ -e "$f" ] && mv "$f" "${log%.log}.trace"; done
  rm -rf "$d"
  history=$(sed -n 's/^detsim: [a-z]* seed=[0-9]* events=[0-9]* history=\([0-9a-f]*\).*/\1/p' "$log" | tail -1)
  echo "$t@$b $rc $outcome ${history:--}"
}
export -f run_one backend_env
export work limit seed native_dir sim_dir

kinds="native sim"
[ "${LIBEVENT_REPLAY:-0}" = 1 ] && kinds="$kinds replay"
for kind in $kinds; do
  for b in $backends; do printf "$b %s\n" $names; done |
    xargs -P "$jobs" -L1 bash -c 'run_one '"$kind"' "$1" "$2"' _ | sort >"$work/$kind.res"
done

join <(sort "$work/native.res") <(sort "$work/sim.res") >"$work/both.res"
if [ "${LIBEVENT_REPLAY:-0}" = 1 ]; then
  # The same seed in another process must take the same history.
  join <(awk '{ print $1, $4 }' "$work/sim.res") <(awk '{ print $1, $4 }' "$work/replay.res") |
    awk '$2 != "-" { n++; if ($2 == $3) same++; else print "  replay took another history: " $1 }
         END { printf "replays: %d of %d simulated runs took the same history in a second process\n", same, n }'
fi
version=$(sed -n 's/^#define EVENT__VERSION "\(.*\)"/\1/p' "$work/$native_dir/include/event2/event-config.h")
awk -v v="${version:-unknown}" -v backends="$backends" -v seed="$seed" -v cflags="$cflags" '
  { total++ }
  $2 == 0 && $3 != "failed" {
    nat++
    if ($3 == "skipped") natskip++
    else {
      ran++
      if ($5 == 0 && $6 == "ok") both++
      else if ($5 == 0) fail["sim-" $6]++
      else fail[$5]++
    }
  }
  END {
    if (cflags != "") printf "C flags %s: ", cflags
    printf "libevent %s, backends %s, seed %s: %d runs; %d pass natively (%d of them skip); %d of the %d that ran pass simulated (%.0f%%)\n",
      v, backends, seed, total, nat, natskip, both, ran, ran ? 100 * both / ran : 0
    n = split("sim-skipped skipped sim-none no-summary 80 exit 81 correctness 82 crash 83 deadlock 84 liveness 85 leak 86 inconclusive 124 timeout 137 killed", m, " ")
    for (i = 1; i < n; i += 2) if (m[i] in fail) { printf "  simulated failures, %s: %d\n", m[i + 1], fail[m[i]]; delete fail[m[i]] }
    for (s in fail) printf "  simulated failures, exit status %s: %d\n", s, fail[s]
  }' "$work/both.res"
echo "per-run results (test@backend, native: status outcome -, simulated: status outcome history): $work/both.res"
echo "logs: $work/logs/{native,sim}/BACKEND/"
