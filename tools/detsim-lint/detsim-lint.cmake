# detsim-lint (tools/detsim-lint): a source lint on libclang's C API
# (clang-c/Index.h, libclang-19-dev), the LLVM 19 this project builds with.
# It compiles in runtime/intercept_table.def and runtime/syscall_table.def
# (lint_tables.c), so a change to either table rebuilds it.
find_path(DETSIM_LIBCLANG_INCLUDE clang-c/Index.h HINTS "${LLVM_INCLUDE_DIRS}" NO_DEFAULT_PATH)
find_library(DETSIM_LIBCLANG_LIB NAMES clang-19 clang HINTS "${LLVM_LIBRARY_DIRS}" NO_DEFAULT_PATH)
if(NOT DETSIM_LIBCLANG_INCLUDE OR NOT DETSIM_LIBCLANG_LIB)
  message(FATAL_ERROR "detsim-lint: libclang 19 not found (scripts/install-deps.sh installs libclang-19-dev)")
endif()
file(GLOB _detsim_lint_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.c")
add_executable(detsim-lint ${_detsim_lint_sources})
target_compile_options(detsim-lint PRIVATE ${DETSIM_C_WARNINGS})
target_compile_definitions(detsim-lint PRIVATE _GNU_SOURCE)
target_include_directories(detsim-lint PRIVATE "${CMAKE_CURRENT_LIST_DIR}" "${DETSIM_LIBCLANG_INCLUDE}")
target_link_libraries(detsim-lint PRIVATE "${DETSIM_LIBCLANG_LIB}")
set_target_properties(detsim-lint PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin"
                      INSTALL_RPATH "${LLVM_LIBRARY_DIRS}" BUILD_RPATH "${LLVM_LIBRARY_DIRS}")
install(TARGETS detsim-lint RUNTIME DESTINATION bin)
