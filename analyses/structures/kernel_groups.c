/* kernel_groups: kernels grouped by launch id (see kernel_groups.h). */
#include "analyses/structures/kernel_groups.h"

#include <stdlib.h>
#include <string.h>

/* The group for key, created empty when new; NULL when the table is full or on OOM
 * (*oom says which). */
static kgroup *group_of(kgroups *g, uint64_t key, bool *oom) {
    if (g->n >= (g->max_groups ? g->max_groups : KGROUPS_MAX)) {
        uint32_t i = id_map_get(&g->index, key);
        return i != ID_MAP_NONE ? &g->v[i] : NULL;
    }
    if (g->n == g->cap) {               /* room for a new group before the one probe */
        size_t c = g->cap ? g->cap * 2 : 256;
        kgroup *v = realloc(g->v, c * sizeof *v);
        if (!v) return *oom = true, NULL;
        g->v = v;
        g->cap = c;
    }
    uint32_t got = id_map_get_or_put(&g->index, key, (uint32_t)g->n);
    if (got == ID_MAP_OOM) return *oom = true, NULL;
    if (got == ID_MAP_FULL) return NULL;
    if (got != g->n) return &g->v[got];
    g->v[g->n] = (kgroup){.key = key, .lo = INT64_MAX, .hi = INT64_MIN};
    return &g->v[g->n++];
}

static void fold(kgroup *d, const kgroup *s) {
    d->kernels += s->kernels, d->attention += s->attention, d->gemm += s->gemm;
    d->sum_ns += s->sum_ns, d->attention_ns += s->attention_ns, d->gemm_ns += s->gemm_ns;
    if (s->lo < d->lo) d->lo = s->lo;
    if (s->hi > d->hi) d->hi = s->hi;
    if (s->kernels) d->gemm_since_attention = s->gemm_since_attention;
    d->segment = d->segment || s->segment;
}

bool kgroups_add(kgroups *g, uint64_t key, kernel_class c, int64_t a, int64_t b) {
    bool oom = false;
    kgroup *k = group_of(g, key, &oom);
    if (!k) {
        if (oom) return false;
        g->dropped++;
        return true;
    }
    kgroup one = {.kernels = 1, .lo = a, .hi = b, .sum_ns = b - a};
    if (c == KC_ATTENTION) one.attention = 1, one.attention_ns = b - a;
    if (c == KC_GEMM) one.gemm = 1, one.gemm_ns = b - a;
    bool since = k->gemm_since_attention;
    fold(k, &one);
    k->gemm_since_attention = c == KC_ATTENTION ? false : (c == KC_GEMM && k->attention) ? true : since;
    return true;
}

size_t kgroups_compact(kgroups *g, uint64_t min_kernels, int64_t before, bool *oom) {
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].kernels >= min_kernels || g->v[i].hi >= before || (g->v[i].segment && g->v[i].attention && g->v[i].gemm))
            g->v[k++] = g->v[i];
    size_t removed = g->n - k;
    if (!removed) return 0;
    g->n = k;
    id_map_free(&g->index);
    for (size_t i = 0; i < g->n; i++)
        if (id_map_put(&g->index, g->v[i].key, (uint32_t)i) == ID_MAP_OOM) {
            *oom = true;
            return removed;
        }
    return removed;
}

void kgroups_free(kgroups *g) {
    free(g->v);
    id_map_free(&g->index);
    memset(g, 0, sizeof *g);
}
