/* str_pool: interned strings (operator names, input shapes) by id: equal text, equal id.
 * The ops and ranks sections and the kernel rows name things by these ids. An id_map from the text's hash finds a string's first id, chained by `next` on a collision;
 * max_bytes bounds what the pool holds whatever the trace, text and per-string overhead. */
#ifndef GOBLIN_STR_POOL_H
#define GOBLIN_STR_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/structures/id_map.h"

/* Ids count from 0 in first-seen order; a zeroed str_pool is an empty pool. */
typedef struct str_pool {
    char **s;
    size_t *len;
    size_t n, cap;
    id_map index;            /* hash of the text -> first id with that hash (chained by next) */
    uint32_t *next;
    size_t bytes, max_bytes; /* bytes: the strings' cost (STR_POOL_ENTRY_BYTES each, plus their
                              * text); max_bytes: no new string beyond it (str_pool_intern: NONE) */
} str_pool;

/* What one string costs beyond its text, counted in str_pool.bytes so that max_bytes bounds
 * the pool's memory, not only its text: the copy's malloc header and rounding (~16 B), its
 * slots in s, len and next (20 B, up to twice that while they grow by doubling) and its index
 * slot (12 B, up to 24). Millions of 3-byte names are millions of these. */
#define STR_POOL_ENTRY_BYTES 64u

/* The id of the text s[0..n), added when new; ID_MAP_NONE when the pool is full (a bound:
 * the caller counts the drop), ID_MAP_OOM when memory ran out (the caller's result would be
 * partial: it fails as out of memory). */
uint32_t str_pool_intern(str_pool *p, const char *s, size_t n);
/* Frees every interned string and the index; ids handed out are then invalid. */
void str_pool_free(str_pool *p);

#endif
