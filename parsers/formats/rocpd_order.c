/* rocpd_order: a bounded reorder window for a database view's records (see rocpd_order.h). */
#include "parsers/formats/rocpd_order.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct rocpd_order_item {
    i128 k1;
    int64_t k2;
    uint64_t seq;
    record r;
    char *text;                    /* name, category and value, one allocation */
    size_t text_len;
};

static bool less(const rocpd_order_item *a, const rocpd_order_item *b) {
    if (a->k1 != b->k1) return a->k1 < b->k1;
    if (a->k2 != b->k2) return a->k2 < b->k2;
    return a->seq < b->seq;
}

static void swap(rocpd_order_item *a, rocpd_order_item *b) {
    rocpd_order_item t = *a;
    *a = *b;
    *b = t;
}

void rocpd_order_init(rocpd_order *o, const record_sink *sink) { *o = (rocpd_order){.sink = sink}; }

/* Removes the smallest item and emits it. */
static bool pop(rocpd_order *o) {
    assert(o->n > 0);
    rocpd_order_item top = o->heap[0];
    o->heap[0] = o->heap[--o->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < o->n && less(&o->heap[l], &o->heap[m])) m = l;
        if (r < o->n && less(&o->heap[r], &o->heap[m])) m = r;
        if (m == i) break;
        swap(&o->heap[i], &o->heap[m]);
        i = m;
    }
    if (o->emitted && (top.k1 < o->last_k1 || (top.k1 == o->last_k1 && top.k2 < o->last_k2))) o->late++;
    else o->emitted = true, o->last_k1 = top.k1, o->last_k2 = top.k2;
    o->bytes -= top.text_len;
    bool ok = record_emit(o->sink, &top.r);
    free(top.text);
    return ok;
}

/* Copies s[0..n) into *at (NUL-terminated), moving *at on; the copy, or NULL for NULL. */
static const char *put(char **at, const char *s, size_t n) {
    if (!s) return NULL;
    char *d = *at;
    memcpy(d, s, n);
    d[n] = 0;
    *at += n + 1;
    return d;
}

bool rocpd_order_add(rocpd_order *o, i128 k1, int64_t k2, const record *r) {
    while (o->n && (o->n >= ROCPD_ORDER_ROWS || o->bytes >= ROCPD_ORDER_BYTES))
        if (!pop(o)) return false;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 256;
        rocpd_order_item *h = realloc(o->heap, cap * sizeof *h);
        if (!h) return false;
        o->heap = h, o->cap = cap;
    }
    size_t vlen = r->value ? r->value_len : 0, need = r->name_len + r->category_len + vlen + 3;
    rocpd_order_item it = {.k1 = k1, .k2 = k2, .seq = o->seq++, .r = *r, .text = malloc(need), .text_len = need};
    if (!it.text) return false;
    char *at = it.text;
    it.r.name = put(&at, r->name, r->name_len);
    it.r.category = put(&at, r->category, r->category_len);
    it.r.value = put(&at, r->value, vlen);
    o->bytes += need;
    size_t i = o->n++;
    o->heap[i] = it;
    while (i && less(&o->heap[i], &o->heap[(i - 1) / 2])) {
        swap(&o->heap[i], &o->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    return true;
}

bool rocpd_order_flush(rocpd_order *o) {
    while (o->n)
        if (!pop(o)) return false;
    return true;
}

void rocpd_order_free(rocpd_order *o) {
    for (size_t i = 0; i < o->n; i++) free(o->heap[i].text);
    free(o->heap);
    o->heap = NULL;
    o->n = o->cap = o->bytes = 0;
}
