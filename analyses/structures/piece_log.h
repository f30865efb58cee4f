/* piece_log: an append-only list of fixed-size entries, read back once in order, for what
 * the second piece of a split read keeps for its join (ops, phases, layers: kernels,
 * launches, steps in file order).
 *
 * Entries are stored compressed in blocks that never move: each 32-bit word of an entry is
 * kept as the zigzag varint of its difference from the same word of the previous entry (ids
 * and times of consecutive records are close: 1-3 bytes a word instead of 4), and an int64
 * end field (`span`) as its difference from the int64 field just before it, its start (a
 * duration). The 208 MB run's three logs took 8.6 MB as plain 32-56-byte entries, ~3.4 MB
 * so (measured: git history of docs/PERFORMANCE.md): fresh memory is what costs on a VM where the
 * kernel zeroes every new page. Blocks are never moved (a doubling array measured ~4 % of
 * the split read's CPU in realloc copies), and the reader frees each block as it leaves it,
 * so the join's own growth reuses them. Encoding is exact for any bytes (padding included;
 * zeroed padding compresses best). */
#ifndef GOBLIN_PIECE_LOG_H
#define GOBLIN_PIECE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PIECE_LOG_BLOCK ((size_t)64 << 10)   /* bytes per block */
#define PIECE_LOG_MAX_WORDS 16                /* entries of at most 64 bytes */
/* Whether entries of type T fit a piece_log (size a multiple of 4, at most 64 bytes). */
#define PIECE_LOG_FITS(T) (sizeof(T) % 4 == 0 && sizeof(T) <= 4 * PIECE_LOG_MAX_WORDS)

typedef struct piece_log {
    unsigned char **blocks;
    size_t nblocks, capblocks;
    size_t used;             /* bytes written in the last block */
    size_t n;                /* entries kept */
    size_t size;             /* bytes per entry (a multiple of 4, at most 64), set before the first put */
    size_t span;             /* byte offset (0: none, else >= 8) of an int64 field coded against the int64 before it */
    uint32_t prev[PIECE_LOG_MAX_WORDS];   /* the last entry put */
    /* the reader (plog_take) */
    size_t rblock, rpos, rn;
    uint32_t rprev[PIECE_LOG_MAX_WORDS];
} piece_log;

/* Appends a copy of the entry at e (l->size bytes). false on OOM. */
bool plog_put(piece_log *l, const void *e);
/* The next entry in order into out (l->size bytes); false when all l->n have been read.
 * Each block is freed once read past: a log is read once. */
bool plog_take(piece_log *l, void *out);
/* Frees every block; l keeps its entry size and span and is empty. */
void plog_free(piece_log *l);

#endif
