# RowFilter evaluation for rowkey serve: filter.c and its RE2 shim
# (filter_re2.cc, C++: RE2 is a C++ library; Debian libre2-dev). Included by
# serve.cmake; builds the static library rk_serve_filter.
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
add_library(rk_serve_filter STATIC ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/filter.c
                                   ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/filter_re2.cc)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/src/serve/filter.c PROPERTIES
  OBJECT_DEPENDS "${RK_BT_GEN_DIR}/bt_data.pb-c.h")
target_include_directories(rk_serve_filter PUBLIC src ${RK_BT_GEN_DIR} include)
target_compile_features(rk_serve_filter PRIVATE cxx_std_11)
target_link_libraries(rk_serve_filter PUBLIC PkgConfig::RE2 PkgConfig::PROTOBUFC)
