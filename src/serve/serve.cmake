# `rowkey serve` (issue 10): the store over the Cloud Bigtable gRPC API.
# Included by the top CMakeLists.txt after the Bigtable backend (it shares its
# generated protobuf-c code and gRPC). Builds the static library rk_serve,
# which the rowkey command, the serve tests and the fuzz targets link.
file(GLOB RK_SERVE_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/serve/*.c)
list(FILTER RK_SERVE_SRC EXCLUDE REGEX "/filter[^/]*$") # filter.cmake builds those
include(${CMAKE_CURRENT_SOURCE_DIR}/src/serve/filter.cmake)
add_library(rk_serve STATIC ${RK_SERVE_SRC})
target_include_directories(rk_serve PUBLIC src ${RK_BT_GEN_DIR})
target_link_libraries(rk_serve PUBLIC rk_serve_filter rowkey_static PkgConfig::GRPC
                      PkgConfig::PROTOBUFC Threads::Threads)
# protoc-c's INIT macros for messages with a oneof trip -Wmissing-braces (as
# in bigtable.cmake); everything else keeps every warning.
target_compile_options(rk_serve PRIVATE -Wno-missing-braces)
