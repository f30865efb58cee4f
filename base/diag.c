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

void diag_add(diag_list *d, const char *fmt, ...) {
    if (d->count >= DIAG_MAX) { d->dropped++; return; }
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) { d->dropped++; return; }
    d->items[d->count++] = s;
}

void diag_move(diag_list *dst, diag_list *src) {
    for (size_t i = 0; i < src->count; i++) {
        if (dst->count < DIAG_MAX) dst->items[dst->count++] = src->items[i];
        else { free(src->items[i]); dst->dropped++; }
    }
    dst->dropped += src->dropped;
    diag_init(src);
}
