# function_docs: docs/functions.md from runtime/intercept_table.def.
# Included from tools/CMakeLists.txt.
#
#   cmake --build <build> --target function-docs   rewrites docs/functions.md
#   ctest -R function-docs-up-to-date               fails if it is stale
add_executable(function_docs "${CMAKE_CURRENT_LIST_DIR}/function_docs.c")
target_compile_options(function_docs PRIVATE ${DETSIM_C_WARNINGS})
set_property(SOURCE "${CMAKE_CURRENT_LIST_DIR}/function_docs.c" APPEND PROPERTY
  OBJECT_DEPENDS "${PROJECT_SOURCE_DIR}/runtime/intercept_table.def;${PROJECT_SOURCE_DIR}/runtime/syscall_table.def")

add_custom_target(function-docs
  COMMAND function_docs "${PROJECT_SOURCE_DIR}/docs/functions.md"
  COMMENT "Writing docs/functions.md from runtime/intercept_table.def"
  VERBATIM)

if(BUILD_TESTING)
  set(_fd_check "${CMAKE_CURRENT_BINARY_DIR}/function_docs_check.cmake")
  file(WRITE "${_fd_check}" [=[
# Written by tools/function_docs.cmake: regenerate, then compare.
execute_process(COMMAND "${TOOL}" "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "function_docs failed (${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}" "${DOC}" RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "docs/functions.md is out of date with runtime/intercept_table.def.\n"
    "Regenerate it with:  cmake --build <build-dir> --target function-docs\n"
    "(or: <build-dir>/bin/function_docs docs/functions.md), then commit it.")
endif()
]=])
  add_test(NAME function-docs-up-to-date
    COMMAND "${CMAKE_COMMAND}"
      "-DTOOL=$<TARGET_FILE:function_docs>"
      "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/functions.md"
      "-DDOC=${PROJECT_SOURCE_DIR}/docs/functions.md"
      -P "${_fd_check}")
  unset(_fd_check)
endif()
