/* id_map: the id-keyed hash map (see id_map.h).
 *
 * The map is 12-byte slots in blocks of 8, probed as find_in says. id_map_at walks the
 * slots in table order (phases merges per-file maps by it). */
#include "analyses/structures/id_map.h"

#include <string.h>
#include <assert.h>
#include <stdlib.h>

/* Probing. Ids mostly come in runs of consecutive values (torch's External and correlation
 * ids count up), so the slots form blocks of BLOCK slots and id's low bits pick its slot in
 * a block. The block is the id's own block number (id >> BLOCK_BITS) modulo the table's
 * blocks, offset by a hash of the bits above those (which window of cap ids it lies in):
 * consecutive ids fill consecutive blocks, so lookups and inserts that move forward through
 * the ids walk memory forward (a hashed block put each on a random line of a multi-megabyte
 * table: a cache and TLB miss each, 3-4 % of analyze on run208), a doubling moves each
 * block's keys to the same block or the one a half-table later, and ids in one window never
 * collide (the table is at least twice the keys). Ids of different windows land at random
 * offsets, so sparse and strided ids spread as with a full hash. A probe tries the rest of
 * the block (cyclically), then jumps to another block by a per-key odd stride (double
 * hashing over blocks: linear probing over blocks made clusters). No deletion, and the
 * table is at most half full, so a probe always ends. */
#define BLOCK_BITS 3
#define BLOCK (1u << BLOCK_BITS)

static inline uint64_t key_at(const id_slot *s) { return (uint64_t)s->hi << 32 | s->lo; }

static inline uint64_t mix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* The slot of slots[0..cap) holding id, else the empty slot where its probe ends (cap a
 * power of two, at least BLOCK). */
static size_t find_in(const id_slot *slots, size_t cap, uint64_t id) {
    uint64_t blk = id >> BLOCK_BITS;
    size_t blocks = cap >> BLOCK_BITS, mask = blocks - 1;
    unsigned wbits = (unsigned)__builtin_ctzll((unsigned long long)blocks);
    size_t b = (size_t)(blk + mix64(blk >> wbits)) & mask;   /* mix64(0) == 0: the first window unmoved */
    uint32_t lo = (uint32_t)id, hi = (uint32_t)(id >> 32);
    unsigned o = (unsigned)(id & (BLOCK - 1));
    for (unsigned k = 0; k < BLOCK; k++) {   /* the id's own block: almost always the answer */
        const id_slot *s = &slots[b << BLOCK_BITS | ((o + k) & (BLOCK - 1))];
        if (!s->val1 || (s->lo == lo && s->hi == hi)) return b << BLOCK_BITS | ((o + k) & (BLOCK - 1));
    }
    size_t step = (size_t)(mix64(blk) >> 40) << 1 | 1;
    for (;;) {
        b = (b + step) & mask;
        for (unsigned k = 0; k < BLOCK; k++) {
            size_t i = b << BLOCK_BITS | ((o + k) & (BLOCK - 1));
            const id_slot *s = &slots[i];
            if (!s->val1 || (s->lo == lo && s->hi == hi)) return i;
        }
    }
}

static size_t find(const id_map *m, uint64_t id) { return find_in(m->slots, m->cap, id); }

/* Whether the map holds max_entries already (no new id goes in). */
static inline bool full(const id_map *m) { return m->max_entries && m->n >= m->max_entries; }

/* Whether id lies outside the stored keys' bounds (then it is absent). */
static inline bool out_of_bounds(const id_map *m, uint64_t id) { return !m->n || id < m->kmin || id > m->kmax; }

uint32_t id_map_get(const id_map *m, uint64_t id) {
    if (out_of_bounds(m, id)) return ID_MAP_NONE;
    const id_slot *s = &m->slots[find(m, id)];
    return s->val1 ? s->val1 - 1 : ID_MAP_NONE;
}

bool id_map_at(const id_map *m, size_t i, uint64_t *id, uint32_t *val) {
    if (i >= m->cap || !m->slots[i].val1) return false;
    *id = key_at(&m->slots[i]), *val = m->slots[i].val1 - 1;
    return true;
}

static bool grow(id_map *m) {
    size_t cap = m->cap ? m->cap * 2 : 1024;
    id_slot *g = calloc(cap, sizeof *g);
    if (!g) return false;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].val1) g[find_in(g, cap, key_at(&m->slots[i]))] = m->slots[i];
    free(m->slots);
    m->slots = g, m->cap = cap;
    return true;
}

/* Stores id -> val in the free slot i (the end of id's probe), growing first when due. */
static uint32_t insert_at(id_map *m, size_t i, uint64_t id, uint32_t val) {
    assert(!m->cap || !m->slots[i].val1);   /* i is where id's probe ended: a free slot */
    if (full(m)) return ID_MAP_FULL;
    if (val >= ID_MAP_OOM) return ID_MAP_OOM;
    if ((m->n + 1) * 2 > m->cap) {
        if (!grow(m)) return ID_MAP_OOM;
        i = find(m, id);
    }
    m->slots[i] = (id_slot){(uint32_t)id, (uint32_t)(id >> 32), val + 1};
    if (!m->n || id < m->kmin) m->kmin = id;
    if (!m->n || id > m->kmax) m->kmax = id;
    m->n++;
    assert(m->cap >= BLOCK && !(m->cap & (m->cap - 1)) && m->n * 2 <= m->cap);   /* a power of two, at most half full */
    return val;
}

uint32_t id_map_get_or_put(id_map *m, uint64_t id, uint32_t val) {
    if (out_of_bounds(m, id)) return full(m) ? ID_MAP_FULL : insert_at(m, m->cap ? find(m, id) : 0, id, val);
    size_t i = find(m, id);
    if (m->slots[i].val1) return m->slots[i].val1 - 1;
    return insert_at(m, i, id, val);
}

uint32_t id_map_put(id_map *m, uint64_t id, uint32_t val) {
    if (out_of_bounds(m, id)) return full(m) ? ID_MAP_FULL : insert_at(m, m->cap ? find(m, id) : 0, id, val);
    size_t i = find(m, id);
    if (m->slots[i].val1) {
        if (val >= ID_MAP_OOM) return ID_MAP_OOM;
        m->slots[i].val1 = val + 1;
        return val;
    }
    return insert_at(m, i, id, val);
}

void id_map_free(id_map *m) {
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}

bool id_map_keep_latest(id_map *m, void *v, size_t *n, uint64_t id, const void *e, size_t sz, uint64_t *dropped) {
    uint32_t slot = id_map_get_or_put(m, id, (uint32_t)*n);
    if (slot == ID_MAP_OOM) return false;
    if (slot == ID_MAP_FULL) {
        (*dropped)++;
        return true;
    }
    assert(slot <= *n);
    memcpy((char *)v + (size_t)slot * sz, e, sz);
    if (slot == *n) (*n)++;
    return true;
}
