#!/usr/bin/env bash
# test.sh: the whole test suite, as CI runs it (.ci/run execs this).
#
# Installs missing dependencies, configures a Release build in ./build,
# builds with every core and runs every test with ctest.  Exits non-zero if
# anything fails.  BUILD_DIR overrides ./build; DETSIM_TEST_TIMEOUT the
# per-test bound in seconds for tests that set none themselves.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-"$root/build"}
timeout=${DETSIM_TEST_TIMEOUT:-600}
jobs=$(nproc 2>/dev/null || echo 2)

# Where the time goes, for CI logs: each phase's seconds on stderr.
phase_start=$SECONDS
phase() { echo "test.sh: $1 took $((SECONDS - phase_start)) s" >&2; phase_start=$SECONDS; }

"$root/scripts/install-deps.sh"
phase "installing dependencies"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs"
phase "configuring and building"
# One more test than cores: many tests spend much of their time waiting on
# child processes (compilers, CMake, supervised runs).
ctest --test-dir "$build" --output-on-failure -j $((jobs + 1)) --timeout "$timeout"
phase "running the tests"
