# shellcheck shell=bash
# lib.sh: helpers shared by the integration tests (sourced, not run).
#
# With pipefail on, `cmd | grep -q` fails when grep exits early and cmd gets
# SIGPIPE, so output is matched as a here-string instead: grep -q <<<"$(cmd)".
#
# Every test runs in its own work directory under the build tree, given by
# CTest (WORK), and writes nothing elsewhere.  A failed check prints what was
# expected and what was found, then exits 1: there is no way for a check to
# pass without running.

set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

note() {
  echo "-- $*"
}

# fresh_dir DIR: an empty directory.
fresh_dir() {
  rm -rf "$1"
  mkdir -p "$1"
}

need_file() {
  [ -f "$1" ] || fail "missing file: $1"
}

need_exec() {
  [ -f "$1" ] && [ -x "$1" ] || fail "missing or not executable: $1"
}

# make_deps_text FILE: a make dependency file with its escapes undone
# (`a\ b` is a path with a space), so paths can be matched as text.
make_deps_text() {
  sed 's/\\ / /g' "$1"
}

# contains HAYSTACK NEEDLE WHAT: the text must contain the string.
contains() {
  case "$1" in
    *"$2"*) ;;
    *) printf '%s\n' "$1" | head -40 >&2; fail "$3: expected to find '$2' in the text above" ;;
  esac
}

# lacks HAYSTACK NEEDLE WHAT: the text must not contain the string.
lacks() {
  case "$1" in
    *"$2"*) printf '%s\n' "$1" | head -40 >&2; fail "$3: '$2' must not appear in the text above" ;;
    *) ;;
  esac
}

# expect_status WANT CMD...: runs CMD, output to the log, and checks its status.
expect_status() {
  local want=$1 got=0
  shift
  "$@" || got=$?
  [ "$got" = "$want" ] || fail "'$*' exited $got, expected $want"
}

# dt_needed FILE: the DT_NEEDED entries, one a line, in order.
dt_needed() {
  readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# dt_runpath FILE: the RUNPATH and RPATH entries.
dt_runpath() {
  readelf -d "$1" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p'
}

# check_links_runtime FILE LIBDIR: FILE needs libdetsim_rt.so before libc
# (the runtime interposes libc) and finds it through its RUNPATH in LIBDIR.
check_links_runtime() {
  local file=$1 libdir=$2 needed rt_line libc_line
  needed=$(dt_needed "$file")
  rt_line=$(printf '%s\n' "$needed" | grep -n '^libdetsim_rt\.so$' | cut -d: -f1 || true)
  libc_line=$(printf '%s\n' "$needed" | grep -n '^libc\.so' | cut -d: -f1 || true)
  [ -n "$rt_line" ] || fail "$file: no DT_NEEDED libdetsim_rt.so (needed: $(echo $needed))"
  [ -n "$libc_line" ] || fail "$file: no DT_NEEDED libc (needed: $(echo $needed))"
  [ "$rt_line" -lt "$libc_line" ] ||
    fail "$file: libdetsim_rt.so must come before libc in DT_NEEDED (needed: $(echo $needed))"
  [ "$rt_line" = 1 ] ||
    fail "$file: libdetsim_rt.so must be the first DT_NEEDED (needed: $(echo $needed))"
  contains "$(dt_runpath "$file")" "$libdir" "$file RUNPATH"
}

# check_no_runtime FILE: FILE does not need the runtime.
check_no_runtime() {
  if grep -q '^libdetsim_rt\.so$' <<<"$(dt_needed "$1")"; then
    fail "$1 must not have DT_NEEDED libdetsim_rt.so"
  fi
}

# check_instrumented FILE: the plugin rewrote FILE's pthread_mutex_lock calls
# into the runtime's __detsim_pthread_mutex_lock (a REWRITE function of
# runtime/intercept_table.def) and left no direct call to the libc one.
# Works on objects (.o, nm) and on linked files (nm -D).
check_instrumented() {
  local file=$1 syms
  case "$file" in
    *.o) syms=$(nm --undefined-only "$file" | awk '{print $NF}') ;;
    *) syms=$(nm -D --undefined-only "$file" | awk '{print $NF}' | sed 's/@.*//') ;;
  esac
  grep -qx '__detsim_pthread_mutex_lock' <<<"$syms" ||
    fail "$file is not instrumented: no reference to __detsim_pthread_mutex_lock (undefined: $(echo $syms))"
  if grep -qx 'pthread_mutex_lock' <<<"$syms"; then
    fail "$file still calls pthread_mutex_lock directly (the plugin must rewrite it)"
  fi
}

# check_simulation_binary FILE LIBDIR: a simulation build.
check_simulation_binary() {
  check_links_runtime "$1" "$2"
  check_instrumented "$1"
}

# run_sim SEED OUT ERR CMD...: runs a simulation build with DETSIM_SEED, sets
# RUN_STATUS, and checks the contract's first and last stderr lines.
run_sim() {
  local seed=$1 out=$2 err=$3 first last
  shift 3
  RUN_STATUS=0
  env DETSIM_SEED="$seed" timeout 60 "$@" >"$out" 2>"$err" || RUN_STATUS=$?
  [ "$RUN_STATUS" != 124 ] || fail "'$*' (seed $seed) timed out"
  first=$(head -n 1 "$err")
  last=$(tail -n 1 "$err")
  case "$first" in
    "detsim: seed=$seed replay: DETSIM_SEED=$seed "*) ;;
    *) cat "$err" >&2; fail "first stderr line of '$*' is not the detsim seed line: $first" ;;
  esac
  grep -Eq "^detsim: [a-z]+ seed=$seed events=[0-9]+ history=[0-9a-f]{16}( |$)" <<<"$last" ||
    { cat "$err" >&2; fail "last stderr line of '$*' is not a detsim result line: $last"; }
  RUN_CLASS=$(printf '%s\n' "$last" | awk '{print $2}')
  RUN_HISTORY=$(printf '%s\n' "$last" | sed 's/.* history=\([0-9a-f]*\).*/\1/')
}

# expect_pass SEED OUT ERR CMD...: the run passes (class pass, status 0).
expect_pass() {
  run_sim "$@"
  [ "$RUN_CLASS" = pass ] || { cat "$3" >&2; fail "seed $1: class $RUN_CLASS, expected pass"; }
  [ "$RUN_STATUS" = 0 ] || { cat "$3" >&2; fail "seed $1: exit status $RUN_STATUS, expected 0"; }
}
