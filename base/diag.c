/* diag: bounded list of parse warnings. */
#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_init(diag_list *d) { memset(d, 0, sizeof *d); }

void diag_free(diag_list *d) {
    for (size_t i = 0; i < d->count; i++) free(d->items[i]);
    diag_init(d);
}

static void add_v(diag_list *d, size_t cap, const char *fmt, va_list ap) {
    if (d->count >= cap) { d->dropped++; return; }
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) { d->dropped++; d->out_of_memory = true; return; }
    d->items[d->count++] = s;
}

void diag_add(diag_list *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add_v(d, DIAG_MAX, fmt, ap);
    va_end(ap);
}

void diag_oom(diag_list *d, const char *fmt, ...) {
    d->out_of_memory = true;
    va_list ap;
    va_start(ap, fmt);
    add_v(d, DIAG_MAX, fmt, ap);
    va_end(ap);
}

void diag_add_reserved(diag_list *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add_v(d, DIAG_MAX + DIAG_RESERVED, fmt, ap);
    va_end(ap);
}

void diag_append(diag_list *dst, const diag_list *src) {
    for (size_t i = 0; i < src->count; i++) {   /* (a reserved one stays reserved) */
        if (i < DIAG_MAX) diag_add(dst, "%s", src->items[i]);
        else diag_add_reserved(dst, "%s", src->items[i]);
    }
    dst->dropped += src->dropped;
    dst->out_of_memory |= src->out_of_memory;
}

void diag_move(diag_list *dst, diag_list *src) {
    for (size_t i = 0; i < src->count; i++) {
        if (dst->count < (i < DIAG_MAX ? DIAG_MAX : DIAG_MAX + DIAG_RESERVED)) dst->items[dst->count++] = src->items[i];
        else { free(src->items[i]); dst->dropped++; }
    }
    dst->dropped += src->dropped;
    dst->out_of_memory |= src->out_of_memory;
    diag_init(src);
}
