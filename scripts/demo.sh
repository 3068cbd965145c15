#!/usr/bin/env bash
# demo.sh: builds detsim, installs it into ./build/prefix and runs the demo
# (examples/demo.sh) against that prefix.
#
# The demo gets DETSIM_PREFIX (the install prefix) in its environment and
# the prefix's bin/ first on PATH, so it uses detsim-cc, simrun and
# simreplay exactly as a user who installed detsim would.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-"$root/build"}
prefix="$build/prefix"
jobs=$(nproc 2>/dev/null || echo 2)

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs"
cmake --install "$build" --prefix "$prefix"

if [ ! -f "$root/examples/demo.sh" ]; then
  echo "demo.sh: detsim is installed in $prefix; there is no examples/demo.sh to run yet" >&2
  exit 0
fi
export DETSIM_PREFIX="$prefix"
export PATH="$prefix/bin:$PATH"
exec bash "$root/examples/demo.sh"
