# simaudit (tools/simaudit): Capstone's C library (libcapstone-dev, from
# scripts/install-deps.sh) for disassembly; file:line from the LLVM 19
# llvm-symbolizer, run as a program (its path recorded here, outside the
# source and build trees, so the install works on its own).
find_path(DETSIM_CAPSTONE_INCLUDE capstone/capstone.h)
find_library(DETSIM_CAPSTONE_LIB capstone)
if(NOT DETSIM_CAPSTONE_INCLUDE OR NOT DETSIM_CAPSTONE_LIB)
  message(FATAL_ERROR "simaudit: capstone not found (scripts/install-deps.sh installs libcapstone-dev)")
endif()
file(GLOB _detsim_simaudit_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.c")
add_executable(simaudit ${_detsim_simaudit_sources})
target_compile_options(simaudit PRIVATE ${DETSIM_C_WARNINGS})
target_compile_definitions(simaudit PRIVATE _GNU_SOURCE
                           DETSIM_LLVM_SYMBOLIZER="${LLVM_TOOLS_BINARY_DIR}/llvm-symbolizer")
target_include_directories(simaudit PRIVATE "${CMAKE_CURRENT_LIST_DIR}" "${DETSIM_CAPSTONE_INCLUDE}")
target_link_libraries(simaudit PRIVATE "${DETSIM_CAPSTONE_LIB}")
set_target_properties(simaudit PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
install(TARGETS simaudit RUNTIME DESTINATION bin)
