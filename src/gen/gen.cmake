# src/gen: test vectors of key designs. Appends its sources to RK_LIB_SRC.
file(GLOB RK_GEN_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
list(APPEND RK_LIB_SRC ${RK_GEN_SRC})
