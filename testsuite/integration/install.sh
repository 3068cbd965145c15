#!/usr/bin/env bash
# install.sh STEP: the install layout (DESIGN.md, "Contract: install layout").
#
#   install         cmake --install the build tree into PREFIX (the fixture
#                   the other integration tests use)
#   layout          every file of the layout is there and sane
#   layout_tools    simrun and simreplay are installed (contract), and
#                   detsim-lint, which lints a source that includes
#                   <detsim.h> from PREFIX/include
#   no_build_paths  nothing installed points into the source or build tree,
#                   and detsim-cc run from PREFIX uses PREFIX's files
#   relocated       a copy of PREFIX moved elsewhere still works on its own
#   destdir         DESTDIR staging writes the final prefix into detsim.pc
#
# Environment: DETSIM_BUILD, DETSIM_SRC, INTEG_SRC, PREFIX, WORK, CMAKE,
# DETSIM_VERSION (see CMakeLists.txt here).
. "$(dirname "$0")/lib.sh"

step=${1:?usage: install.sh STEP}

# Paths that must never appear in what is installed: the source tree, and
# the build tree outside the test prefix (which itself lies in the build
# tree, under testsuite/).  Prints offending strings found in stdin.
forbidden_paths() {
  local text
  text=$(cat)
  {
    printf '%s\n' "$text" | grep -o "${DETSIM_SRC}[^ :;\"']*" || true
    printf '%s\n' "$text" | grep -o "${DETSIM_BUILD}[^ :;\"']*" || true
  } | { grep -v "^${PREFIX}\(/\|$\)" || true; } | sort -u
}

case "$step" in

install)
  fresh_dir "$PREFIX"
  "$CMAKE" --install "$DETSIM_BUILD" --prefix "$PREFIX"
  ;;

layout)
  fresh_dir "$WORK"
  need_exec "$PREFIX/bin/detsim-cc"
  need_exec "$PREFIX/bin/detsim-c++"
  if [ -L "$PREFIX/bin/detsim-c++" ]; then
    [ "$(readlink "$PREFIX/bin/detsim-c++")" = detsim-cc ] ||
      fail "bin/detsim-c++ links to $(readlink "$PREFIX/bin/detsim-c++"), expected detsim-cc"
  fi
  need_file "$PREFIX/lib/libdetsim.so"
  need_file "$PREFIX/lib/libdetsim_rt.so"
  need_file "$PREFIX/include/detsim.h"
  cmp -s "$PREFIX/include/detsim.h" "$DETSIM_SRC/runtime/include/detsim.h" ||
    fail "include/detsim.h differs from runtime/include/detsim.h"
  need_file "$PREFIX/lib/cmake/detsim/detsimConfig.cmake"
  need_file "$PREFIX/lib/cmake/detsim/detsimConfigVersion.cmake"
  need_file "$PREFIX/lib/pkgconfig/detsim.pc"
  # The plugin and the runtime are shared objects of this machine's kind.
  for so in libdetsim.so libdetsim_rt.so; do
    grep -q 'DYN (Shared object file)' <<<"$(readelf -h "$PREFIX/lib/$so")" ||
      fail "lib/$so is not a shared object"
  done
  # The MemorySanitizer copy of the runtime, where the build made one (it
  # does where clang's MSan runtime is installed), in lib/msan/.
  if [ -e "$DETSIM_BUILD/lib/msan/libdetsim_rt.so" ]; then
    need_file "$PREFIX/lib/msan/libdetsim_rt.so"
    grep -q 'DYN (Shared object file)' <<<"$(readelf -h "$PREFIX/lib/msan/libdetsim_rt.so")" ||
      fail "lib/msan/libdetsim_rt.so is not a shared object"
  fi
  # The runtime exports the public API of detsim.h.
  for sym in detsim_progress detsim_random detsim_active detsim_check_failed detsim_check_passed; do
    grep -qx "$sym" <<<"$(nm -D --defined-only "$PREFIX/lib/libdetsim_rt.so" | awk '{print $NF}')" ||
      fail "lib/libdetsim_rt.so does not export $sym (declared in detsim.h)"
  done
  # detsim.pc names the prefix itself and the installed files.
  pc="$PREFIX/lib/pkgconfig/detsim.pc"
  grep -qx "prefix=$PREFIX" "$pc" || fail "detsim.pc: no line prefix=$PREFIX"
  grep -qx "Version: $DETSIM_VERSION" "$pc" || fail "detsim.pc: no line Version: $DETSIM_VERSION"
  if command -v pkg-config >/dev/null; then
    export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
    cflags=$(pkg-config --cflags detsim)
    contains "$cflags" "-fplugin=$PREFIX/lib/libdetsim.so" "pkg-config --cflags"
    contains "$cflags" "-D__DETSIM__=1" "pkg-config --cflags"
    contains "$cflags" "-I$PREFIX/include" "pkg-config --cflags"
    libs=$(pkg-config --libs detsim)
    contains "$libs" "-L$PREFIX/lib" "pkg-config --libs"
    contains "$libs" "-ldetsim_rt" "pkg-config --libs"
    contains "$libs" "-Wl,-rpath,$PREFIX/lib" "pkg-config --libs"
    [ "$(pkg-config --modversion detsim)" = "$DETSIM_VERSION" ] || fail "pkg-config --modversion"
    # What pkg-config gives builds a simulation program with plain clang.
    cd "$WORK"
    # shellcheck disable=SC2086
    "$CLANG" $cflags -O1 "$INTEG_SRC/programs/counter.c" $libs -o counter_pc
    check_simulation_binary counter_pc "$PREFIX/lib"
  else
    fail "pkg-config is not installed: cannot check detsim.pc"
  fi
  # The package version file accepts 0.1 and refuses another major.
  cat >"$WORK/version.cmake" <<EOF
set(PACKAGE_FIND_VERSION "$DETSIM_VERSION")
string(REPLACE "." ";" _v "$DETSIM_VERSION")
list(GET _v 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET _v 1 PACKAGE_FIND_VERSION_MINOR)
set(PACKAGE_FIND_VERSION_PATCH 0)
set(PACKAGE_FIND_VERSION_COUNT 2)
include("$PREFIX/lib/cmake/detsim/detsimConfigVersion.cmake")
if(NOT PACKAGE_VERSION_COMPATIBLE)
  message(FATAL_ERROR "own version refused")
endif()
set(PACKAGE_FIND_VERSION "99.0")
set(PACKAGE_FIND_VERSION_MAJOR 99)
set(PACKAGE_FIND_VERSION_MINOR 0)
include("$PREFIX/lib/cmake/detsim/detsimConfigVersion.cmake")
if(PACKAGE_VERSION_COMPATIBLE)
  message(FATAL_ERROR "version 99.0 accepted")
endif()
EOF
  "$CMAKE" -P "$WORK/version.cmake"
  ;;

layout_tools)
  need_exec "$PREFIX/bin/simrun"
  need_exec "$PREFIX/bin/simreplay"
  need_exec "$PREFIX/bin/detsim-lint"
  out=$("$PREFIX/bin/detsim-lint" "$DETSIM_SRC/examples/bank/bank.c") ||
    { echo "installed detsim-lint on examples/bank/bank.c: status $?: $out" >&2; exit 1; }
  case "$out" in
  *"no findings (1 file)"*) ;;
  *) echo "installed detsim-lint on examples/bank/bank.c: $out" >&2; exit 1 ;;
  esac
  ;;

no_build_paths)
  fresh_dir "$WORK"
  # RUNPATH/RPATH and the dynamic string table of every installed ELF file,
  # and detsim-cc's constant data (where a path compiled in would be).
  found=0
  while IFS= read -r f; do
    readelf -h "$f" >/dev/null 2>&1 || continue
    bad=$( { dt_runpath "$f"; readelf -p .dynstr "$f" 2>/dev/null; } | forbidden_paths)
    if [ -n "$bad" ]; then
      echo "$f refers to: $bad" >&2
      found=1
    fi
  done < <(find "$PREFIX" -type f)
  bad=$(readelf -p .rodata -p .data "$PREFIX/bin/detsim-cc" 2>/dev/null | forbidden_paths)
  [ -z "$bad" ] || { echo "bin/detsim-cc contains: $bad" >&2; found=1; }
  # Text files: the CMake package files are relocatable and name no path.
  for f in "$PREFIX"/lib/cmake/detsim/*.cmake; do
    if grep -qF -e "$DETSIM_SRC" -e "$DETSIM_BUILD" "$f"; then
      echo "$f names a path of the source or build tree" >&2
      found=1
    fi
  done
  bad=$(forbidden_paths <"$PREFIX/lib/pkgconfig/detsim.pc")
  [ -z "$bad" ] || { echo "detsim.pc refers to: $bad" >&2; found=1; }
  [ "$found" = 0 ] || fail "installed files point back into the source or build tree"

  # detsim-cc run from the prefix uses the prefix's plugin, header, runtime.
  cd "$WORK"
  cp "$INTEG_SRC/programs/counter.c" .
  DETSIM_CC_DEBUG=1 "$PREFIX/bin/detsim-cc" -O1 -MD counter.c -o counter 2>debug.txt
  debug=$(cat debug.txt)
  contains "$debug" "-fplugin=$PREFIX/lib/libdetsim.so" "detsim-cc from the prefix"
  contains "$debug" "-I$PREFIX/include" "detsim-cc from the prefix"
  contains "$debug" "-L$PREFIX/lib" "detsim-cc from the prefix"
  contains "$debug" "-Wl,-rpath,$PREFIX/lib" "detsim-cc from the prefix"
  bad=$(forbidden_paths <debug.txt)
  [ -z "$bad" ] || fail "detsim-cc from the prefix passed build or source paths: $bad"
  contains "$(make_deps_text counter.d)" "$PREFIX/include/detsim.h" "detsim.h from the prefix"
  check_simulation_binary counter "$PREFIX/lib"
  [ "$(dt_runpath counter)" = "$PREFIX/lib" ] ||
    fail "RUNPATH of a program built from the prefix: '$(dt_runpath counter)', expected '$PREFIX/lib'"
  # -fsanitize=memory: the prefix's instrumented runtime, first.
  if [ -e "$PREFIX/lib/msan/libdetsim_rt.so" ]; then
    DETSIM_CC_DEBUG=1 "$PREFIX/bin/detsim-cc" -fsanitize=memory counter.c -o counter_msan 2>debug.txt
    contains "$(cat debug.txt)" "-L$PREFIX/lib/msan -Wl,-rpath,$PREFIX/lib/msan -L$PREFIX/lib" "detsim-cc -fsanitize=memory from the prefix"
    [ "$(dt_runpath counter_msan)" = "$PREFIX/lib/msan:$PREFIX/lib" ] ||
      fail "RUNPATH of an MSan program built from the prefix: '$(dt_runpath counter_msan)'"
  fi
  # detsim-c++ too.
  DETSIM_CC_DEBUG=1 "$PREFIX/bin/detsim-c++" -c "$INTEG_SRC/programs/counter.cc" -o cxx.o 2>debug.txt
  contains "$(cat debug.txt)" "-fplugin=$PREFIX/lib/libdetsim.so" "detsim-c++ from the prefix"
  ;;

relocated)
  # A copy of the prefix elsewhere works without the original: every path
  # detsim-cc and detsimConfig.cmake use is the copy's.
  fresh_dir "$WORK"
  moved="$WORK/moved prefix"
  cp -a "$PREFIX" "$moved"
  [ -L "$PREFIX/bin/detsim-c++" ] && { [ -L "$moved/bin/detsim-c++" ] || fail "cp -a lost the symlink"; }
  cd "$WORK"
  cp "$INTEG_SRC/programs/counter.c" .
  contains "$("$moved/bin/detsim-cc" --detsim-version)" "prefix: $moved" "--detsim-version"
  DETSIM_CC_DEBUG=1 "$moved/bin/detsim-c++" -dumpversion 2>debug.txt >/dev/null
  contains "$(cat debug.txt)" "'-fplugin=$moved/lib/libdetsim.so'" "relocated detsim-c++"
  "$moved/bin/detsim-cc" -O1 -MD counter.c -o counter
  contains "$(make_deps_text counter.d)" "$moved/include/detsim.h" "detsim.h from the moved prefix"
  lacks "$(make_deps_text counter.d)" "$PREFIX/include" "detsim.h from the moved prefix"
  check_simulation_binary counter "$moved/lib"
  [ "$(dt_runpath counter)" = "$moved/lib" ] || fail "RUNPATH '$(dt_runpath counter)', expected '$moved/lib'"
  # find_package from the moved prefix.
  mkdir fp
  cat >fp/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(reloc C)
find_package(detsim REQUIRED)
message(STATUS "DETSIM_PREFIX=[${DETSIM_PREFIX}]")
message(STATUS "DETSIM_CC=[${DETSIM_CC}]")
get_target_property(rt detsim::runtime IMPORTED_LOCATION)
message(STATUS "runtime=[${rt}]")
EOF
  out=$(CC="$CLANG" "$CMAKE" -S fp -B fp/build -DCMAKE_PREFIX_PATH="$moved")
  contains "$out" "DETSIM_PREFIX=[$moved]" "find_package from the moved prefix"
  contains "$out" "DETSIM_CC=[$moved/bin/detsim-cc]" "find_package from the moved prefix"
  contains "$out" "runtime=[$moved/lib/libdetsim_rt.so]" "find_package from the moved prefix"
  ;;

destdir)
  # Staged install (packagers): the files land under DESTDIR, and detsim.pc
  # names the final prefix, not the staging directory.
  fresh_dir "$WORK"
  DESTDIR="$WORK/stage" "$CMAKE" --install "$DETSIM_BUILD" --prefix /opt/detsim-test
  need_exec "$WORK/stage/opt/detsim-test/bin/detsim-cc"
  need_file "$WORK/stage/opt/detsim-test/lib/cmake/detsim/detsimConfig.cmake"
  pc="$WORK/stage/opt/detsim-test/lib/pkgconfig/detsim.pc"
  need_file "$pc"
  grep -qx "prefix=/opt/detsim-test" "$pc" || fail "staged detsim.pc: no line prefix=/opt/detsim-test"
  lacks "$(cat "$pc")" "$WORK" "staged detsim.pc"
  [ ! -e /opt/detsim-test ] || fail "DESTDIR install wrote to /opt/detsim-test"
  ;;

*)
  fail "unknown step '$step'"
  ;;
esac
echo "PASS: $step"
