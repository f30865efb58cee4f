/* id_map, str_pool: id-keyed hash map and string interning (see id_map.h). */
#include "analyses/id_map.h"

#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

static size_t slot_of(uint64_t id, size_t cap) {
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (size_t)(id & (cap - 1));
}

uint32_t id_map_get(const id_map *m, uint64_t id) {
    if (!m->cap) return ID_MAP_NONE;
    for (size_t i = slot_of(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i]) return ID_MAP_NONE;
        if (m->keys[i] == id) return m->vals[i];
    }
}

static bool grow(id_map *m) {
    size_t cap = m->cap ? m->cap * 2 : 1024;
    id_map g = {calloc(cap, sizeof *g.keys), calloc(cap, sizeof *g.vals), calloc(cap, 1), cap, 0, m->max_entries};
    if (!g.keys || !g.vals || !g.used) {
        free(g.keys), free(g.vals), free(g.used);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) {
            size_t j = slot_of(m->keys[i], cap);
            while (g.used[j]) j = (j + 1) & (cap - 1);
            g.used[j] = 1, g.keys[j] = m->keys[i], g.vals[j] = m->vals[i], g.n++;
        }
    id_map_free(m);
    *m = g;
    return true;
}

/* Stores id -> val in the free slot i (the end of id's probe), growing first when due. */
static uint32_t insert_at(id_map *m, size_t i, uint64_t id, uint32_t val) {
    if (m->max_entries && m->n >= m->max_entries) return ID_MAP_FULL;
    if ((m->n + 1) * 2 > m->cap) {
        if (!grow(m)) return ID_MAP_OOM;
        i = slot_of(id, m->cap);
        while (m->used[i]) i = (i + 1) & (m->cap - 1);
    }
    m->used[i] = 1, m->keys[i] = id, m->vals[i] = val, m->n++;
    return val;
}

uint32_t id_map_get_or_put(id_map *m, uint64_t id, uint32_t val) {
    if (!m->cap) return insert_at(m, 0, id, val);
    size_t i = slot_of(id, m->cap);
    for (; m->used[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == id) return m->vals[i];
    return insert_at(m, i, id, val);
}

uint32_t id_map_put(id_map *m, uint64_t id, uint32_t val) {
    if (m->cap) {
        for (size_t i = slot_of(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
            if (!m->used[i]) break;
            if (m->keys[i] == id) return m->vals[i] = val;
        }
    }
    if (m->max_entries && m->n >= m->max_entries) return ID_MAP_FULL;
    if ((m->n + 1) * 2 > m->cap && !grow(m)) return ID_MAP_OOM;
    size_t i = slot_of(id, m->cap);
    while (m->used[i]) i = (i + 1) & (m->cap - 1);
    m->used[i] = 1, m->keys[i] = id, m->vals[i] = val, m->n++;
    return val;
}

void id_map_free(id_map *m) {
    free(m->keys), free(m->vals), free(m->used);
    m->keys = NULL, m->vals = NULL, m->used = NULL;
    m->cap = m->n = 0;
}

static uint64_t hash_text(const char *s, size_t n) {
    return str_hash_n(s, n, 0);            /* 8 bytes a step (base/str_hash.h) */
}

uint32_t str_pool_intern(str_pool *p, const char *s, size_t n) {
    uint64_t h = hash_text(s, n);
    uint32_t first = id_map_get(&p->index, h);
    for (uint32_t i = first; i != ID_MAP_NONE; i = p->next[i])
        if (p->len[i] == n && !memcmp(p->s[i], s, n)) return i;
    if ((p->max_bytes && p->bytes + n > p->max_bytes) || p->n >= ID_MAP_OOM) return ID_MAP_NONE;
    if (p->n == p->cap) {
        size_t c = p->cap ? p->cap * 2 : 64;
        char **ns = realloc(p->s, c * sizeof *ns);
        if (ns) p->s = ns;
        size_t *nl = realloc(p->len, c * sizeof *nl);
        if (nl) p->len = nl;
        uint32_t *nx = realloc(p->next, c * sizeof *nx);
        if (nx) p->next = nx;
        if (!ns || !nl || !nx) return ID_MAP_NONE;
        p->cap = c;
    }
    char *copy = malloc(n + 1);
    if (!copy) return ID_MAP_NONE;
    memcpy(copy, s, n);
    copy[n] = 0;
    uint32_t id = (uint32_t)p->n;
    if (id_map_put(&p->index, h, id) != id) {
        free(copy);
        return ID_MAP_NONE;
    }
    p->s[id] = copy, p->len[id] = n, p->next[id] = first;
    p->n++;
    p->bytes += n;
    return id;
}

void str_pool_free(str_pool *p) {
    for (size_t i = 0; i < p->n; i++) free(p->s[i]);
    free(p->s), free(p->len), free(p->next);
    id_map_free(&p->index);
    memset(p, 0, sizeof *p);
}
