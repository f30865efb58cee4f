/* rocprofv3_json_table: rocprofv3 JSON's tables by id (kernel symbols, counter definitions),
 * see rocprofv3_json_internal.h. A table is a sorted prefix plus a short tail in file order:
 * real files write ids counting up (all prefix); ids out of order wait in the tail, merged in
 * one pass when it reaches sqrt(n), so a hostile order costs O(sqrt n) a lookup, never a sort
 * of the table per lookup. The first entry of an id in file order is the one found. */
#include "parsers/formats/rocprofv3_json_internal.h"

#include <assert.h>
#include <stdlib.h>

/* A tail entry and its place in the file, to sort the tail by (id, place): the earlier of
 * two entries with one id stays first whatever qsort does with ties. */
typedef struct tail_entry { symbol sym; size_t place; } tail_entry;

static int tail_cmp(const void *a, const void *b) {
    const tail_entry *x = a, *y = b;
    if (x->sym.id != y->sym.id) return x->sym.id < y->sym.id ? -1 : 1;
    return (x->place > y->place) - (x->place < y->place);
}

/* Sorts the tail and merges it into the prefix, from the end (ties: the prefix's first, it
 * came earlier). false: out of memory (the table stays as it was). */
static bool merge_tail(rpj_table *t) {
    size_t m = t->n - t->n_sorted;
    if (!m) return true;
    tail_entry *tmp = malloc(m * sizeof *tmp);
    if (!tmp) return false;
    for (size_t j = 0; j < m; j++) tmp[j] = (tail_entry){t->v[t->n_sorted + j], j};
    qsort(tmp, m, sizeof *tmp, tail_cmp);
    size_t i = t->n_sorted, j = m, k = t->n;
    while (j) {
        if (i && t->v[i - 1].id > tmp[j - 1].sym.id) t->v[--k] = t->v[--i];
        else t->v[--k] = tmp[--j].sym;
    }
    free(tmp);
    t->n_sorted = t->n;
    return true;
}

const symbol *rpj_table_find(rpj_table *t, uint64_t id, bool *oom) {
    assert(t->n_sorted <= t->n);
    size_t tail = t->n - t->n_sorted;
    if (tail >= 64 && tail * tail >= t->n && !merge_tail(t)) *oom = true;
    size_t lo = 0, hi = t->n_sorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo < t->n_sorted && t->v[lo].id == id) return &t->v[lo];
    for (size_t i = t->n_sorted; i < t->n; i++)   /* the tail: the first of the id in file order */
        if (t->v[i].id == id) return &t->v[i];
    return NULL;
}

bool rpj_table_push(rpj_table *t, symbol sym, size_t max) {
    if (t->n >= max || !rpj_grow((void **)&t->v, &t->cap, t->n, sizeof *t->v)) return false;
    bool in_order = t->n_sorted == t->n && (!t->n || t->v[t->n - 1].id < sym.id);
    t->v[t->n++] = sym;
    if (in_order) t->n_sorted = t->n;
    return true;
}

void rpj_table_free(rpj_table *t) {
    for (size_t i = 0; i < t->n; i++) free(t->v[i].name);
    free(t->v);
    *t = (rpj_table){0};
}
