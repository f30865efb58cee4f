/* piece_log: an append-only list of fixed-size entries in blocks, for what the second piece
 * of a split read keeps for its join (ops, phases, layers: kernels, launches, steps in file
 * order). Blocks are never moved, so appending costs no copy of what is already kept (a
 * doubling array measured ~4 % of the split read's CPU in realloc copies on the 208 MB run). */
#ifndef GOBLIN_PIECE_LOG_H
#define GOBLIN_PIECE_LOG_H

#include <stdbool.h>
#include <stddef.h>

#define PIECE_LOG_BLOCK 4096     /* entries per block */

typedef struct piece_log {
    char **blocks;
    size_t nblocks, capblocks;
    size_t n;                /* entries kept */
    size_t size;             /* bytes per entry, set before the first push */
} piece_log;

/* Room for one more entry at the end (its bytes are the caller's to fill); NULL on OOM. */
void *plog_push(piece_log *l);
/* Entry i (i < l->n). */
static inline void *plog_at(const piece_log *l, size_t i) {
    return l->blocks[i / PIECE_LOG_BLOCK] + (i % PIECE_LOG_BLOCK) * l->size;
}
/* Frees every block; l keeps its entry size and is empty. */
void plog_free(piece_log *l);

#endif
