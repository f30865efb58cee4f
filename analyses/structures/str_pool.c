/* str_pool: string interning through an id_map keyed by the text's hash (see str_pool.h). */
#include "analyses/structures/str_pool.h"

#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

static uint64_t hash_text(const char *s, size_t n) {
    return str_hash_n(s, n, 0);            /* 8 bytes a step (base/str_hash.h) */
}

uint32_t str_pool_intern(str_pool *p, const char *s, size_t n) {
    uint64_t h = hash_text(s, n);
    uint32_t first = id_map_get(&p->index, h);
    for (uint32_t i = first; i != ID_MAP_NONE; i = p->next[i])
        if (p->len[i] == n && !memcmp(p->s[i], s, n)) return i;
    size_t cost = n + STR_POOL_ENTRY_BYTES;
    if ((p->max_bytes && (cost > p->max_bytes || p->bytes > p->max_bytes - cost)) || p->n >= ID_MAP_OOM)
        return ID_MAP_NONE;
    if (p->n == p->cap) {
        size_t c = p->cap ? p->cap * 2 : 64;
        char **ns = realloc(p->s, c * sizeof *ns);
        if (ns) p->s = ns;
        size_t *nl = realloc(p->len, c * sizeof *nl);
        if (nl) p->len = nl;
        uint32_t *nx = realloc(p->next, c * sizeof *nx);
        if (nx) p->next = nx;
        if (!ns || !nl || !nx) return ID_MAP_OOM;
        p->cap = c;
    }
    char *copy = malloc(n + 1);
    if (!copy) return ID_MAP_OOM;
    memcpy(copy, s, n);
    copy[n] = 0;
    uint32_t id = (uint32_t)p->n;
    uint32_t put = id_map_put(&p->index, h, id);
    if (put != id) {
        free(copy);
        return put == ID_MAP_OOM ? ID_MAP_OOM : ID_MAP_NONE;
    }
    p->s[id] = copy, p->len[id] = n, p->next[id] = first;
    p->n++;
    p->bytes += cost;
    return id;
}

void str_pool_free(str_pool *p) {
    for (size_t i = 0; i < p->n; i++) free(p->s[i]);
    free(p->s), free(p->len), free(p->next);
    id_map_free(&p->index);
    memset(p, 0, sizeof *p);
}
