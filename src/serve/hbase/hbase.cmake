# rowkey serve --hbase-rest: HBase's REST API over the store (src/serve/hbase),
# on libmicrohttpd and Debian's jansson for JSON. Needs rk_serve (it shares
# the gRPC server's tables), so it builds only with gRPC; rk_http reads its
# listening address as the live page's. The protobuf representation's
# messages (proto/hb_rest.proto) go through protoc-c, as the Bigtable API's.
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
set(RK_HB_GEN_DIR ${CMAKE_CURRENT_BINARY_DIR}/hbase_gen)
file(MAKE_DIRECTORY ${RK_HB_GEN_DIR})
add_custom_command(
  OUTPUT ${RK_HB_GEN_DIR}/hb_rest.pb-c.c ${RK_HB_GEN_DIR}/hb_rest.pb-c.h
  COMMAND ${RK_PROTOC_C} --c_out=${RK_HB_GEN_DIR}
          -I${CMAKE_CURRENT_SOURCE_DIR}/src/serve/hbase/proto
          ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/hbase/proto/hb_rest.proto
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/hbase/proto/hb_rest.proto
  COMMENT "protoc-c hb_rest.proto"
  VERBATIM)
set_source_files_properties(${RK_HB_GEN_DIR}/hb_rest.pb-c.c PROPERTIES GENERATED TRUE)
file(GLOB RK_HBASE_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/hbase/*.c)
set_source_files_properties(${RK_HBASE_SRC} PROPERTIES
  OBJECT_DEPENDS "${RK_HB_GEN_DIR}/hb_rest.pb-c.h")
add_library(rk_hbase STATIC ${RK_HBASE_SRC} ${RK_HB_GEN_DIR}/hb_rest.pb-c.c)
target_include_directories(rk_hbase PUBLIC src ${RK_HB_GEN_DIR})
target_link_libraries(rk_hbase PUBLIC rk_serve rk_http PkgConfig::MHD PkgConfig::JANSSON Threads::Threads)
target_compile_options(rk_hbase PRIVATE -Wno-missing-braces)
