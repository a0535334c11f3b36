# rowkey's libraries are parts a program links as it needs them:
#   rowkey-key       schemas, encoding and decoding keys, plans   libcrypto, libxxhash
#   rowkey-store     the table API and the embedded store          rowkey-key, LevelDB, RE2
#   rowkey-bigtable  the store API on Cloud Bigtable (gRPC)        rowkey-store, gRPC, protobuf-c
#   rowkey-analyze   workloads, the simulator, reports, heatmaps   rowkey-store, cairo
# rk_add_part(NAME SOURCES ... DEPS ... [PUBLIC_PARTS ...]) builds part NAME once
# as position-independent objects, then as librowkey-NAME.a (target rk_NAME_static)
# and librowkey-NAME.so.VERSION with SONAME librowkey-NAME.so.MAJOR (target
# rk_NAME_shared, exporting the rk_ names only: rowkey.map), and installs both.
# DEPS are the external libraries (imported targets), linked privately; the
# parts below it in PUBLIC_PARTS (without the rk_ prefix) publicly, since their
# headers are part of this one's API. pkg-config files: pkgconfig/*.pc.in.

set(RK_PARTS)
# The .pc files find their prefix from where they are (${pcfiledir}), so an
# installed tree works wherever it lands: in DESTDIR, or moved.
file(RELATIVE_PATH RK_PC_UP "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" RK_PC_UP "${RK_PC_UP}")
set(RK_PC_PREFIX "\${pcfiledir}/${RK_PC_UP}")
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(RK_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(RK_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
function(rk_add_part name)
  cmake_parse_arguments(P "" "" "SOURCES;DEPS;PUBLIC_PARTS" ${ARGN})
  add_library(rk_${name}_obj OBJECT ${P_SOURCES})
  target_include_directories(rk_${name}_obj PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # the objects compile against the external headers (cairo.h, grpc/...)
  target_link_libraries(rk_${name}_obj PRIVATE ${P_DEPS})
  foreach(kind static shared)
    string(TOUPPER ${kind} KIND)
    set(t rk_${name}_${kind})
    add_library(${t} ${KIND} $<TARGET_OBJECTS:rk_${name}_obj>)
    target_include_directories(${t} PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    foreach(p ${P_PUBLIC_PARTS})
      target_link_libraries(${t} PUBLIC rk_${p}_${kind})
    endforeach()
    target_link_libraries(${t} PRIVATE ${P_DEPS})
    set_target_properties(${t} PROPERTIES OUTPUT_NAME rowkey-${name} EXPORT_NAME ${name}_${kind})
  endforeach()
  # a part with C++ inside (RE2's shim) links as C++, so its runtime comes along
  if(P_SOURCES MATCHES "\\.cc(;|$)")
    set_target_properties(rk_${name}_static rk_${name}_shared PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  set_target_properties(rk_${name}_shared PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR} EXPORT_NAME ${name}
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/rowkey.map)
  # every dependency is named (no undefined symbols left for the program to
  # supply), and only the rk_ names are exported
  target_link_options(rk_${name}_shared PRIVATE
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/rowkey.map)
  if(NOT RK_SANITIZE) # a sanitizer's runtime comes with the program
    target_link_options(rk_${name}_shared PRIVATE -Wl,--no-undefined)
  endif()
  install(TARGETS rk_${name}_shared EXPORT rowkey-targets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT dev)
  install(TARGETS rk_${name}_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  configure_file(${PROJECT_SOURCE_DIR}/pkgconfig/rowkey-${name}.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/rowkey-${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/rowkey-${name}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  set(RK_PARTS ${RK_PARTS} ${name} PARENT_SCOPE)
endfunction()
