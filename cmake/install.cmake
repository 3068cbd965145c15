# The package files of the install layout (DESIGN.md, "Contract: install
# layout"): PREFIX/lib/cmake/detsim/ (find_package) and
# PREFIX/lib/pkgconfig/detsim.pc.  The programs, plugin, runtime and header
# are installed by their own directories (tools/, plugin/, runtime/).
#
# The build tree gets the same files at the same relative places, so the
# build directory itself can serve as a prefix (CMAKE_PREFIX_PATH=build,
# PKG_CONFIG_PATH=build/lib/pkgconfig) and nothing installed points back into
# it: detsimConfig.cmake finds everything from its own location, and the
# installed detsim.pc is written at install time with the real prefix
# (`cmake --install build --prefix P` changes it after configure).
include(CMakePackageConfigHelpers)

set(DETSIM_CMAKE_DIR "${PROJECT_BINARY_DIR}/lib/cmake/detsim")
configure_file("${CMAKE_CURRENT_LIST_DIR}/detsimConfig.cmake.in"
               "${DETSIM_CMAKE_DIR}/detsimConfig.cmake" @ONLY)
# 0.x: a minor release may break the interface.
write_basic_package_version_file("${DETSIM_CMAKE_DIR}/detsimConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${DETSIM_CMAKE_DIR}/detsimConfig.cmake"
              "${DETSIM_CMAKE_DIR}/detsimConfigVersion.cmake"
        DESTINATION lib/cmake/detsim)

# pkg-config for the build tree, now.
set(DETSIM_PC_PREFIX "${PROJECT_BINARY_DIR}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/detsim.pc.in"
               "${PROJECT_BINARY_DIR}/lib/pkgconfig/detsim.pc" @ONLY)
unset(DETSIM_PC_PREFIX)

# pkg-config for the prefix, when installing.  DESTDIR is not part of the
# prefix written into the file; file(INSTALL) adds it to where it goes.
install(CODE "
  set(DETSIM_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  # One scratch file per destination: installs into two prefixes may run at once.
  string(MD5 _detsim_pc_tag \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(_detsim_pc \"${PROJECT_BINARY_DIR}/cmake/detsim-install-\${_detsim_pc_tag}.pc\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/detsim.pc.in\" \"\${_detsim_pc}\" @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/lib/pkgconfig\" TYPE FILE
       RENAME detsim.pc FILES \"\${_detsim_pc}\")
")
