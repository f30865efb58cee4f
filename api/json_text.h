/* json_text: a jansson value as compact JSON text through core/json_writer, so every API
 * body writes its numbers as RunMetrics does — the shortest text that reads back to the same
 * double, laid out as Python's repr (jansson's json_dumps prints 17 significant digits). */
#ifndef GOBLIN_JSON_TEXT_H
#define GOBLIN_JSON_TEXT_H

#include <jansson.h>
#include <stddef.h>

/* Compact JSON text of v (malloc'd, NUL-terminated, length in *len when len is not NULL);
 * NULL on allocation failure. Object keys keep their insertion order. */
char *json_text(const json_t *v, size_t *len);

#endif
