# Writes the runtimes of src/gen/runtime/ into one C file as byte arrays
# (rk_gen__runtime_<lang>[] and _len), run at build time by src/gen/gen.cmake.
# The runtimes stay real source files in their own languages, which a reader
# and the language's tools can open, rather than C string literals with every
# quote escaped. Arguments: -DDIR=runtime directory -DOUT=the C file.
set(text "/* Generated from src/gen/runtime/ by src/gen/embed.cmake: do not edit. */\n#include \"gen/gen_int.h\"\n")
foreach(pair java:RowKeyRuntime.java python:rowkey_runtime.py go:rowkey_runtime.go ts:rowkey_runtime.ts)
  string(REPLACE ":" ";" p "${pair}")
  list(GET p 0 lang)
  list(GET p 1 file)
  file(READ "${DIR}/${file}" hex HEX)
  string(LENGTH "${hex}" n)
  math(EXPR len "${n} / 2")
  # 32 bytes a line
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," arr "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" arr "${arr}")
  string(APPEND text "const char rk_gen__runtime_${lang}[] = {\n${arr}0};\n")
  string(APPEND text "const size_t rk_gen__runtime_${lang}_len = ${len};\n")
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
