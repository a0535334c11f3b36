# src/gen: generators of encoders for other languages. Builds the static
# library rk_gen from its sources, with the runtimes embedded as C arrays
# (embed.cmake); it needs the key part only.
file(GLOB RK_GEN_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
set(RK_GEN_RUNTIMES
  ${CMAKE_CURRENT_LIST_DIR}/runtime/RowKeyRuntime.java
  ${CMAKE_CURRENT_LIST_DIR}/runtime/rowkey_runtime.py
  ${CMAKE_CURRENT_LIST_DIR}/runtime/rowkey_runtime.go
  ${CMAKE_CURRENT_LIST_DIR}/runtime/rowkey_runtime.ts)
set(RK_GEN_RUNTIME_C ${CMAKE_BINARY_DIR}/gen_runtime.c)
add_custom_command(OUTPUT ${RK_GEN_RUNTIME_C}
  COMMAND ${CMAKE_COMMAND} -DDIR=${CMAKE_CURRENT_LIST_DIR}/runtime -DOUT=${RK_GEN_RUNTIME_C}
          -P ${CMAKE_CURRENT_LIST_DIR}/embed.cmake
  DEPENDS ${RK_GEN_RUNTIMES} ${CMAKE_CURRENT_LIST_DIR}/embed.cmake
  COMMENT "Embedding the generators' runtimes")
add_library(rk_gen STATIC ${RK_GEN_SRC} ${RK_GEN_RUNTIME_C})
target_include_directories(rk_gen PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(rk_gen PUBLIC rk_key_static)
