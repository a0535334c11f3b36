# `rowkey serve`: the store over the Cloud Bigtable gRPC API.
# Included by the top CMakeLists.txt after the Bigtable backend (it shares its
# generated protobuf-c code and gRPC). Builds the static library rk_serve,
# which the rowkey command, the serve tests and the fuzz targets link.
file(GLOB RK_SERVE_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/*.c)
add_library(rk_serve STATIC ${RK_SERVE_SRC})
target_include_directories(rk_serve PUBLIC src ${RK_BT_GEN_DIR})
set_source_files_properties(${RK_SERVE_SRC} PROPERTIES
  OBJECT_DEPENDS "${RK_BT_GEN_DIR}/bt_data.pb-c.h;${RK_BT_GEN_DIR}/bt_admin.pb-c.h")
target_link_libraries(rk_serve PUBLIC rowkey_static PkgConfig::GRPC PkgConfig::PROTOBUFC
                      Threads::Threads)
# protoc-c's INIT macros for messages with a oneof trip -Wmissing-braces (as
# in bigtable.cmake); everything else keeps every warning.
target_compile_options(rk_serve PRIVATE -Wno-missing-braces)
