# Turns a file into a C source defining `const char NAME[]` (NUL-terminated) and `NAME_LEN`,
# so the dashboard page ships inside the binary. Usage:
#   cmake -DINPUT=... -DOUTPUT=... -DNAME=... -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){24})" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT} by api/embed.cmake; do not edit. */\n#include <stddef.h>\n"
     "const char ${NAME}[] = {\n${body}0x00};\nconst size_t ${NAME}_LEN = ${bytes};\n")
