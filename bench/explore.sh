#!/bin/sh
# Executions to first failure on planted bugs of increasing depth, for the
# seeded random walk, PCT and simfuzz (coverage-guided choices).
#
#   bench/explore.sh [--quick] [BUILD_DIR [--budget N] [--trials N] [--only NAME] [--ablation]]
#
# Builds the programs with BUILD_DIR/bin/detsim-cc --fuzz (one build serves
# all three: the coverage counters cost the seeded runs nothing but a few
# increments), then runs bench/explore/explore.py, which prints a Markdown
# table on stdout (progress on stderr).  See bench/README.md, "Exploration".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# Options after BUILD_DIR go to explore.py: --budget N, --trials N, --only NAME,
# --ablation (simfuzz without and with --schedule-features).
quick=
if [ "${1:-}" = "--quick" ]; then quick=--quick; shift; fi
build=$(cd "${1:-$here/../build}" && pwd)
[ $# -gt 0 ] && shift
cc="$build/bin/detsim-cc"
[ -x "$cc" ] && [ -x "$build/bin/simfuzz" ] || { echo "explore.sh: build first ($build/bin/detsim-cc, simfuzz)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/detsim-explore.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
src="$here/.."
for d in 1 2 3; do
  "$cc" --fuzz -O1 -g -DDEPTH=$d -DNOISE=4 -o "$work/ordering_d$d" "$src/testsuite/fuzz/ordering.c"
done
"$cc" --fuzz -O1 -g -o "$work/lost_update" "$src/testsuite/runtime/lost_update.c"
"$cc" --fuzz -O1 -g -o "$work/canary" "$src/testsuite/tools/canary.c"
"$cc" --fuzz -O1 -g -o "$work/bank" "$src/examples/bank/bank.c"
python3 "$here/explore/explore.py" $quick --simfuzz "$build/bin/simfuzz" --progs "$work" --work "$work" "$@"
