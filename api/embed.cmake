# Turns a file into a C source defining `const char NAME[]` (NUL-terminated) and `NAME_LEN`,
# so the dashboard page ships inside the binary. A line `/*@include FILE@*/` in the input is
# replaced by the text of FILE (next to the input): the page's script lives in api/dashboard*.js
# and is still served inline, as one self-contained page. Usage:
#   cmake -DINPUT=... -DOUTPUT=... -DNAME=... -P embed.cmake
file(READ "${INPUT}" text)
get_filename_component(dir "${INPUT}" DIRECTORY)
string(REGEX MATCHALL "/\\*@include [A-Za-z0-9_.-]+@\\*/" marks "${text}")
foreach(mark IN LISTS marks)
  string(REGEX REPLACE "^/\\*@include ([A-Za-z0-9_.-]+)@\\*/$" "\\1" name "${mark}")
  if(NOT EXISTS "${dir}/${name}")
    message(FATAL_ERROR "${INPUT}: ${mark} names a file that does not exist (${dir}/${name})")
  endif()
  file(READ "${dir}/${name}" part)
  string(REPLACE "${mark}" "${part}" text "${text}")
endforeach()
file(WRITE "${OUTPUT}.txt" "${text}")
file(READ "${OUTPUT}.txt" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){24})" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT} by api/embed.cmake; do not edit. */\n#include <stddef.h>\n"
     "const char ${NAME}[] = {\n${body}0x00};\nconst size_t ${NAME}_LEN = ${bytes};\n")
