# What `cmake --install` adds beside the targets' own rules, and `cpack -G DEB`.
#
# The man page and bash completion are installed where present. The .deb is built from the same install
# rules, under /usr: the tool, libwarpsearch.so and .a, the headers, the CMake package, warpsearch.pc and,
# with -DWARPSEARCH_PYTHON=ON, the Python module.
if(EXISTS ${PROJECT_SOURCE_DIR}/tools/warpsearch.1)
  install(FILES ${PROJECT_SOURCE_DIR}/tools/warpsearch.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
if(EXISTS ${PROJECT_SOURCE_DIR}/tools/warpsearch.bash-completion)
  install(FILES ${PROJECT_SOURCE_DIR}/tools/warpsearch.bash-completion
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME warpsearch)
endif()

set(CPACK_PACKAGE_NAME warpsearch)
set(CPACK_PACKAGE_VENDOR "warpsearch")
set(CPACK_PACKAGE_CONTACT "warpsearch maintainers <warpsearch@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "exact Smith-Waterman search of protein and DNA databases, CPU and GPU")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Dependencies from the binaries' shared libraries (dpkg-shlibdeps) where dpkg-dev is installed.
find_program(WARPSEARCH_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(WARPSEARCH_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, zlib1g, libbz2-1.0, liblzma5, libzstd1, libboost-program-options1.74.0")
endif()
if(WARPSEARCH_PYTHON)
  # The module is built for one Python ABI (cpython-3XY).
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3 (>= ${WARPSEARCH_PYTHON_VERSION}), python3 (<< ${WARPSEARCH_PYTHON_VERSION}.999), python3-numpy")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkg-config, cmake, zlib1g-dev")
include(CPack)
