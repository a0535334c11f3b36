# The Bigtable backend: gRPC's C core + protobuf-c. Included by the top
# CMakeLists.txt when RK_WITH_BIGTABLE is ON. It generates the protobuf-c code
# for the .proto subset in proto/ at build time, and builds the generated and
# hand-written sources as the part rowkey-bigtable (cmake/parts.cmake).

find_program(RK_PROTOC_C protoc-c)
if(NOT RK_PROTOC_C)
  message(FATAL_ERROR "RK_WITH_BIGTABLE needs protoc-c (Debian: protobuf-c-compiler)")
endif()
pkg_check_modules(GRPC REQUIRED IMPORTED_TARGET grpc)
pkg_check_modules(PROTOBUFC REQUIRED IMPORTED_TARGET libprotobuf-c)

set(RK_BT_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/store/bigtable)
set(RK_BT_GEN_DIR ${CMAKE_CURRENT_BINARY_DIR}/bigtable_gen)
file(MAKE_DIRECTORY ${RK_BT_GEN_DIR})

set(RK_BT_GEN_SRC)
foreach(p bt_data bt_admin)
  add_custom_command(
    OUTPUT ${RK_BT_GEN_DIR}/${p}.pb-c.c ${RK_BT_GEN_DIR}/${p}.pb-c.h
    COMMAND ${RK_PROTOC_C} --c_out=${RK_BT_GEN_DIR} -I${RK_BT_DIR}/proto ${RK_BT_DIR}/proto/${p}.proto
    DEPENDS ${RK_BT_DIR}/proto/${p}.proto
    COMMENT "protoc-c ${p}.proto"
    VERBATIM)
  list(APPEND RK_BT_GEN_SRC ${RK_BT_GEN_DIR}/${p}.pb-c.c)
endforeach()
# Generated code only: protoc-c's INIT macros for messages with a oneof trip
# gcc's -Wmissing-braces. Hand-written files keep every warning.
set_source_files_properties(${RK_BT_GEN_SRC} PROPERTIES
  GENERATED TRUE
  COMPILE_OPTIONS "-Wno-missing-braces;-Wno-missing-field-initializers")

file(GLOB RK_BT_SRC CONFIGURE_DEPENDS ${RK_BT_DIR}/*.c)
# The hand-written sources include the generated headers: make them wait for them.
set_source_files_properties(${RK_BT_SRC} PROPERTIES
  OBJECT_DEPENDS "${RK_BT_GEN_DIR}/bt_data.pb-c.h;${RK_BT_GEN_DIR}/bt_admin.pb-c.h")

include_directories(${RK_BT_GEN_DIR})
rk_add_part(bigtable SOURCES ${RK_BT_GEN_SRC} ${RK_BT_SRC}
            DEPS PkgConfig::GRPC PkgConfig::PROTOBUFC Threads::Threads PUBLIC_PARTS store)
