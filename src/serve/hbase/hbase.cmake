# rowkey serve --hbase-rest: HBase's REST API over the store (src/serve/hbase),
# on libmicrohttpd and Debian's jansson for JSON. Needs rk_serve (it shares
# the gRPC server's tables), so it builds only with gRPC; rk_http reads its
# listening address as the live page's.
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
file(GLOB RK_HBASE_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/hbase/*.c)
add_library(rk_hbase STATIC ${RK_HBASE_SRC})
target_include_directories(rk_hbase PUBLIC src)
target_link_libraries(rk_hbase PUBLIC rk_serve rk_http PkgConfig::MHD PkgConfig::JANSSON Threads::Threads)
target_compile_options(rk_hbase PRIVATE -Wno-missing-braces)
