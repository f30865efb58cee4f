/* json_load: jansson's parser and serialiser, with a failed allocation detected.
 *
 * Under memory pressure jansson 2.14 can succeed with damaged text: its lexer ignores a failed
 * append to its token buffer, so json_loadb can return a document whose key lost a character,
 * and json_dumps can return text with a key's bytes missing (both seen by
 * tests/check_alloc_failure_api.c: "step_time_secods", {":{...}). Every jansson allocation of
 * the process goes through a counting malloc installed before main (json_set_alloc_funcs); a
 * parse or a serialisation during which one of this thread's allocations failed is discarded. */
#ifndef GOBLIN_JSON_LOAD_H
#define GOBLIN_JSON_LOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* json_loadb(text, len, flags, err), or NULL when the text is not JSON or memory ran out
 * during the parse; *oom (when given) says which (err->text then says "out of memory"). */
json_t *json_load_checked(const char *text, size_t len, size_t flags, json_error_t *err, bool *oom);
/* json_dumps(j, flags) (caller frees), or NULL when it failed or memory ran out during it. */
char *json_dumps_checked(const json_t *j, size_t flags);

#endif
