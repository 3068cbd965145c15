#!/usr/bin/env bash
# bench/lint.sh [BUILD_DIR]: how long detsim-lint takes on this repository's
# own C programs (examples/, testsuite/, tools/), one run per group, and what
# it names there.  Prints a Markdown table on stdout.  Not a test.
#
# The sources are linted with -D_GNU_SOURCE and the include directories the
# tools need; the testsuite's planted sources (testsuite/lint, testsuite/audit,
# testsuite/pass) are where the findings are meant to be.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
LINT=$BUILD/bin/detsim-lint
[ -x "$LINT" ] || { echo "bench/lint.sh: $LINT not built" >&2; exit 2; }
cd "$ROOT"

row() { # row NAME ARGS...: files, wall seconds, ms per file, the summary counts
  local name=$1; shift
  local files start end out
  files=$(printf '%s\n' "$@" | grep -c '\.c$')
  start=$(date +%s.%N)
  out=$("$LINT" "$@" 2>&1 | grep -e "^detsim-lint: [0-9n]" -e "does not compile" | tr "\n" " " || true)
  end=$(date +%s.%N)
  awk -v n="$name" -v f="$files" -v s="$start" -v e="$end" -v o="$out" \
    'BEGIN { printf "| %s | %d | %.2f | %.1f | %s |\n", n, f, e - s, (e - s) * 1000 / f, o }'
}

echo "| sources | files | wall s | ms/file | detsim-lint's summary |"
echo "|---|---|---|---|---|"
row "examples/" examples/kv/*.c examples/bank/*.c
row "testsuite/ (conformance, runtime, tools...)" $(ls testsuite/*/*.c testsuite/*/conformance/*.c |
  grep -v -e '^testsuite/lint/' -e '^testsuite/audit/' -e '^testsuite/pass/') -- -D_GNU_SOURCE -Itools/common
row "testsuite/pass, audit, lint (planted)" testsuite/pass/*.c testsuite/audit/*.c testsuite/lint/planted.c testsuite/lint/clean.c \
  -- -D_GNU_SOURCE
row "tools/" tools/*.c tools/*/*.c -- -D_GNU_SOURCE -Itools/common -Itools/simaudit -Itools/detsim-lint \
  -I"$BUILD/tools" -I/usr/lib/llvm-19/include -DDETSIM_VERSION='"0"' -DDETSIM_LLVM_SYMBOLIZER='"x"' \
  -DDETSIM_LLVM_PROFDATA='"x"' -DDETSIM_LLVM_COV='"x"'
