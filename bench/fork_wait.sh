#!/bin/sh
# fork + wait and fork + exec + wait, per child: native against a
# simulation build (bench/README.md, "Processes").  Least wall time of
# RUNS runs (the machine is shared: the least is the least disturbed) with
# N = 60 minus N = 0, divided by 60; then the cost of a child's trace part.
#   bench/fork_wait.sh BUILD_DIR [RUNS]
set -eu
build=${1:?usage: fork_wait.sh BUILD_DIR [RUNS]}
runs=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang -O2 -o "$work/native" "$here/fork_wait.c"
"$build/bin/detsim-cc" -O2 -o "$work/sim" "$here/fork_wait.c"

# least wall seconds of `runs` runs of the command
least() {
  for i in $(seq "$runs"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    echo "$e - $s" | bc -l
  done | sort -g | head -1
}

per_child() { # prog mode
  full=$(least "$@" 60 ${MODE:-})
  none=$(least "$@" 0 ${MODE:-})
  echo "($full - $none) / 60 * 1000000" | bc -l | xargs printf '%.0f'
}

for mode in fork exec; do
  MODE=$([ "$mode" = exec ] && echo exec || true)
  export MODE
  n=$(per_child "$work/native")
  s=$(DETSIM_SEED=1 per_child env DETSIM_SEED=1 "$work/sim")
  echo "$mode+wait per child: native ${n} us, detsim ${s} us, ratio $(echo "$s / $n" | bc -l | xargs printf '%.1f')x"
done
# What each child's trace part costs (its file written at its end, for the
# run's merged trace): the same with trace=none, which writes none.
MODE= ; export MODE
d=$(per_child env DETSIM_SEED=1 "$work/sim")
t=$(per_child env DETSIM_SEED=1 DETSIM_OPTIONS=trace=none "$work/sim")
echo "fork+wait per child, detsim: with trace parts ${d} us, trace=none ${t} us, a part $(echo "$d - $t" | bc -l | xargs printf '%.0f') us"
