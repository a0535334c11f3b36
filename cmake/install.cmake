# What `make install` (cmake --install) puts where, under the GNU directory
# conventions (GNUInstallDirs; PREFIX and DESTDIR as the Makefile passes them):
#   bin/rowkey                                 the command
#   lib/librowkey-PART.so.VERSION, .so.MAJOR, .so, lib/librowkey-PART.a
#   include/rowkey/*.h                         the public headers (version.h generated)
#   lib/pkgconfig/rowkey-PART.pc, rowkey.pc    (rowkey: every part)
#   lib/cmake/rowkey/                          find_package(rowkey [COMPONENTS PART...])
#   share/man/man1/rowkey*.1, man5/rowkey-schema.5
#   share/bash-completion/completions/rowkey, share/zsh/site-functions/_rowkey
install(TARGETS rowkey RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${RK_DOC_DIR}/man1 ${RK_DOC_DIR}/man5 DESTINATION ${CMAKE_INSTALL_MANDIR})
install(FILES ${RK_DOC_DIR}/rowkey.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME rowkey)
install(FILES ${RK_DOC_DIR}/_rowkey DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(DIRECTORY include/rowkey DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/rowkey/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rowkey)

set(RK_PC_ALL_PARTS)
foreach(p ${RK_PARTS})
  string(APPEND RK_PC_ALL_PARTS " rowkey-${p} = ${PROJECT_VERSION}")
endforeach()
string(STRIP "${RK_PC_ALL_PARTS}" RK_PC_ALL_PARTS)
string(REPLACE " = ${PROJECT_VERSION} " " = ${PROJECT_VERSION}, " RK_PC_ALL_PARTS "${RK_PC_ALL_PARTS}")
foreach(pc rowkey rowkey-cxx-runtime)
  configure_file(pkgconfig/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# The CMake package: the shared parts as rowkey::key, rowkey::store,
# rowkey::bigtable, rowkey::analyze, and rowkey::rowkey for all of them.
set(RK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rowkey)
install(EXPORT rowkey-targets NAMESPACE rowkey:: DESTINATION ${RK_CMAKE_DIR})
include(CMakePackageConfigHelpers)
configure_package_config_file(cmake/rowkey-config.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/rowkey-config.cmake INSTALL_DESTINATION ${RK_CMAKE_DIR})
# 0.x: a minor version may change the API, so only the same minor matches
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/rowkey-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/rowkey-config.cmake
              ${PROJECT_BINARY_DIR}/cmake/rowkey-config-version.cmake
        DESTINATION ${RK_CMAKE_DIR})
