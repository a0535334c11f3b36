# The live Key Visualizer page (src/serve/http): an HTTP server on Debian's
# libmicrohttpd, with the page's files (page/) built into the binary as C
# arrays (embed.cmake), so nothing is fetched at run time. Builds the static
# library rk_http, which `rowkey serve --http` and `rowkey keyviz` use; it
# needs no gRPC.
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
set(RK_HTTP_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/http)
set(RK_HTTP_PAGE ${RK_HTTP_DIR}/page/index.html ${RK_HTTP_DIR}/page/keyviz.js
    ${RK_HTTP_DIR}/page/keyviz.css)
string(REPLACE ";" "|" RK_HTTP_PAGE_ARG "${RK_HTTP_PAGE}") # one argument for -P
add_custom_command(
  OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/keyviz_assets.c
  COMMAND ${CMAKE_COMMAND} -DOUT=${CMAKE_CURRENT_BINARY_DIR}/keyviz_assets.c
          "-DFILES=${RK_HTTP_PAGE_ARG}" -P ${RK_HTTP_DIR}/embed.cmake
  DEPENDS ${RK_HTTP_PAGE} ${RK_HTTP_DIR}/embed.cmake
  COMMENT "Embedding the live page's files" VERBATIM)
add_library(rk_http STATIC ${RK_HTTP_DIR}/http.c ${RK_HTTP_DIR}/http_api.c
            ${CMAKE_CURRENT_BINARY_DIR}/keyviz_assets.c)
target_include_directories(rk_http PUBLIC src)
target_link_libraries(rk_http PUBLIC rowkey_static PkgConfig::MHD Threads::Threads)
