# simrun, simreplay and simworld: the sweep, replay and world tools
# (tools/simrun, tools/simreplay, tools/simworld), with the code they share
# in tools/common (an object library, not installed).  Included from tools/CMakeLists.txt; builds into
# build/bin and installs to bin/ like every tool.
#
# tools/common reads the runtime's own tables (runtime/classes.inc,
# runtime/events.inc) by relative path, so the tools and the runtime can
# never disagree on a class name, an exit status or an event kind.

set(DETSIM_SIMTOOLS_DIR "${CMAKE_CURRENT_LIST_DIR}")

file(GLOB DETSIM_SIMTOOLS_COMMON CONFIGURE_DEPENDS "${DETSIM_SIMTOOLS_DIR}/common/*.c")
add_library(detsim_simtools_common OBJECT ${DETSIM_SIMTOOLS_COMMON})
target_compile_options(detsim_simtools_common PRIVATE ${DETSIM_C_WARNINGS})
target_compile_definitions(detsim_simtools_common PRIVATE _GNU_SOURCE)
target_include_directories(detsim_simtools_common PUBLIC "${DETSIM_SIMTOOLS_DIR}/common")

foreach(tool simrun simreplay simworld)
  file(GLOB _detsim_tool_sources CONFIGURE_DEPENDS "${DETSIM_SIMTOOLS_DIR}/${tool}/*.c")
  add_executable(${tool} ${_detsim_tool_sources} $<TARGET_OBJECTS:detsim_simtools_common>)
  target_compile_options(${tool} PRIVATE ${DETSIM_C_WARNINGS})
  target_compile_definitions(${tool} PRIVATE _GNU_SOURCE DETSIM_VERSION="${PROJECT_VERSION}"
                             DETSIM_LLVM_SYMBOLIZER="${LLVM_TOOLS_BINARY_DIR}/llvm-symbolizer"
                             DETSIM_LLVM_PROFDATA="${LLVM_TOOLS_BINARY_DIR}/llvm-profdata"
                             DETSIM_LLVM_COV="${LLVM_TOOLS_BINARY_DIR}/llvm-cov")
  target_include_directories(${tool} PRIVATE "${DETSIM_SIMTOOLS_DIR}/common" "${DETSIM_SIMTOOLS_DIR}/${tool}")
  set_target_properties(${tool} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
  install(TARGETS ${tool} RUNTIME DESTINATION bin)
endforeach()

# simfuzz: libFuzzer's callbacks (tools/simfuzz).  Its own code is not
# instrumented (only the link takes -fsanitize=fuzzer, for libFuzzer's main):
# the counters libFuzzer reads are the ones simfuzz registers and fills from
# each run of the target.
file(GLOB _detsim_simfuzz_sources CONFIGURE_DEPENDS "${DETSIM_SIMTOOLS_DIR}/simfuzz/*.c")
add_executable(simfuzz ${_detsim_simfuzz_sources} $<TARGET_OBJECTS:detsim_simtools_common>)
target_compile_options(simfuzz PRIVATE ${DETSIM_C_WARNINGS})
target_compile_definitions(simfuzz PRIVATE _GNU_SOURCE)
target_include_directories(simfuzz PRIVATE "${DETSIM_SIMTOOLS_DIR}/common" "${DETSIM_SIMTOOLS_DIR}/simfuzz")
target_link_options(simfuzz PRIVATE -fsanitize=fuzzer)
set_target_properties(simfuzz PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
install(TARGETS simfuzz RUNTIME DESTINATION bin)
