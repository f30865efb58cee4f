/* piece_log: delta-coded entries in blocks that never move (see piece_log.h). */
#include "analyses/structures/piece_log.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Most bytes one entry can take encoded (5 per word). */
static size_t max_encoded(const piece_log *l) { return l->size / 4 * 5; }

/* The first of the two words of the span field (l->span / 4), or a value no word index
 * reaches; word i is coded against w[i - 2] of the same entry when i - first < 2 (unsigned),
 * else against the previous entry's word i. */
static inline size_t span_word(const piece_log *l) { return l->span ? l->span / 4 : (size_t)-4; }

bool plog_put(piece_log *l, const void *e) {
    assert(l->size && l->size % 4 == 0 && l->size <= 4 * PIECE_LOG_MAX_WORDS);   /* set before the first put */
    assert(!l->span || (l->span >= 8 && l->span % 4 == 0 && l->span + 8 <= l->size));
    if (!l->nblocks || PIECE_LOG_BLOCK - l->used < max_encoded(l)) {
        if (l->nblocks == l->capblocks) {
            size_t c = l->capblocks ? l->capblocks * 2 : 16;
            unsigned char **v = realloc(l->blocks, c * sizeof *v);
            if (!v) return false;
            l->blocks = v, l->capblocks = c;
        }
        if (!(l->blocks[l->nblocks] = malloc(PIECE_LOG_BLOCK))) return false;
        l->nblocks++, l->used = 0;
    }
    uint32_t w[PIECE_LOG_MAX_WORDS];
    size_t nw = l->size / 4;
    memcpy(w, e, l->size);
    unsigned char *p = l->blocks[l->nblocks - 1] + l->used, *p0 = p;
    size_t sw = span_word(l);
    for (size_t i = 0; i < nw; i++) {
        int32_t d = (int32_t)(w[i] - (i - sw < 2 ? w[i - 2] : l->prev[i]));    /* modular: any word round-trips */
        uint32_t z = ((uint32_t)d << 1) ^ (uint32_t)-(int32_t)((uint32_t)d >> 31);   /* zigzag */
        while (z >= 0x80) *p++ = (unsigned char)(z | 0x80), z >>= 7;
        *p++ = (unsigned char)z;
    }
    memcpy(l->prev, w, l->size);
    l->used += (size_t)(p - p0);
    assert(l->used <= PIECE_LOG_BLOCK);   /* a block had room for max_encoded bytes */
    l->n++;
    return true;
}

bool plog_take(piece_log *l, void *out) {
    if (l->rn >= l->n) return false;
    if (PIECE_LOG_BLOCK - l->rpos < max_encoded(l)) {   /* the writer went on in the next block */
        free(l->blocks[l->rblock]);
        l->blocks[l->rblock++] = NULL;
        l->rpos = 0;
    }
    const unsigned char *p = l->blocks[l->rblock] + l->rpos, *p0 = p;
    uint32_t w[PIECE_LOG_MAX_WORDS];
    size_t nw = l->size / 4;
    size_t sw = span_word(l);
    for (size_t i = 0; i < nw; i++) {
        uint32_t z = *p++;
        if (z & 0x80) {   /* more than one byte (most words take one) */
            z &= 0x7f;
            for (unsigned sh = 7;; sh += 7) {
                unsigned char b = *p++;
                z |= (uint32_t)(b & 0x7f) << sh;
                if (!(b & 0x80)) break;
            }
        }
        uint32_t d = (z >> 1) ^ (uint32_t)-(int32_t)(z & 1);
        w[i] = d + (i - sw < 2 ? w[i - 2] : l->rprev[i]);
    }
    memcpy(l->rprev, w, l->size);
    memcpy(out, w, l->size);
    l->rpos += (size_t)(p - p0);
    l->rn++;
    return true;
}

void plog_free(piece_log *l) {
    for (size_t i = 0; i < l->nblocks; i++) free(l->blocks[i]);
    free(l->blocks);
    size_t size = l->size, span = l->span;
    *l = (piece_log){.size = size, .span = span};
}
