/* json_load: jansson's parser with memory failures detected (see json_load.h). */
#include "base/json_load.h"

#include <stdio.h>
#include <stdlib.h>

/* This thread's jansson allocations that failed. Thread-local, not shared: a count only its own
 * thread reads, compared before and after that thread's parse. */
static _Thread_local unsigned long jansson_failures;

/* jansson's malloc: malloc, counting this thread's failures. */
static void *counting_malloc(size_t n) {
    void *p = malloc(n);
    if (!p) jansson_failures++;
    return p;
}

/* Installs counting_malloc before main, before any jansson use of the process. */
__attribute__((constructor)) static void json_load_install(void) { json_set_alloc_funcs(counting_malloc, free); }

json_t *json_load_checked(const char *text, size_t len, size_t flags, json_error_t *err, bool *oom) {
    unsigned long before = jansson_failures;
    json_t *doc = json_loadb(text, len, flags, err);
    bool failed = jansson_failures != before;
    if (failed) {                           /* a token may have lost bytes: not this document */
        json_decref(doc);
        doc = NULL;
        if (err) snprintf(err->text, sizeof err->text, "out of memory");
    }
    if (oom) *oom = failed;
    return doc;
}

char *json_dumps_checked(const json_t *j, size_t flags) {
    unsigned long before = jansson_failures;
    char *text = json_dumps(j, flags);
    if (jansson_failures != before) {       /* the text may have lost bytes */
        free(text);
        text = NULL;
    }
    return text;
}
