#!/usr/bin/env bash
# install-deps.sh: installs what building and testing detsim needs, with apt.
#
# Idempotent and quick: it asks dpkg which packages are missing and does
# nothing (no apt-get update, no sudo) when none are.  Uses sudo only when
# not root.  On a system without apt it checks the commands it needs and
# says what is missing.
set -euo pipefail

packages=(
  clang-19          # the compiler the plugin is built for and detsim-cc runs
  llvm-19-dev       # LLVM's CMake package and headers (the pass)
  libclang-19-dev   # clang's headers (the frontend plugin) and libclang (detsim-lint)
  libclang-rt-19-dev
  llvm-19-tools     # FileCheck, lit (the pass tests)
  libcapstone-dev   # disassembly for the audit tools
  libunwind-dev     # backtraces in the runtime
  libuv1-dev        # a real event-loop library for the raw-syscall tests
  cmake
  python3
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  missing_cmds=()
  for cmd in clang-19 cmake python3; do
    command -v "$cmd" >/dev/null 2>&1 || missing_cmds+=("$cmd")
  done
  if [ ${#missing_cmds[@]} -ne 0 ]; then
    echo "install-deps.sh: this system has no apt/dpkg; install by hand: ${packages[*]}" >&2
    echo "install-deps.sh: missing commands: ${missing_cmds[*]}" >&2
    exit 1
  fi
  echo "install-deps.sh: no dpkg; clang-19, cmake and python3 are present, assuming the rest is" >&2
  exit 0
fi

# One dpkg-query for all: it is the slow part when nothing is missing.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
  printf '%s\n' "$installed" | grep -qx "$p install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps.sh: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
