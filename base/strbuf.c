/* strbuf: growable byte buffer (doubling capacity, always room for a NUL). */
#include "base/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void strbuf_free(strbuf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

/* Room for `extra` more bytes plus a NUL; capacity doubles so appends are amortised O(1). */
static bool strbuf_reserve(strbuf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) return b->failed = true, false;
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) return b->failed = true, false;
    b->data = p;
    b->cap = cap;
    return true;
}

bool strbuf_append(strbuf *b, const void *p, size_t n) {
    if (!strbuf_reserve(b, n)) return false;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    return true;
}

bool strbuf_putc(strbuf *b, char c) { return strbuf_append(b, &c, 1); }

bool strbuf_terminate(strbuf *b) {
    if (!strbuf_reserve(b, 0)) return false;
    b->data[b->len] = '\0';
    return !b->failed;
}
