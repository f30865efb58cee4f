/* record_batch: records kept past their emit call, for an ordered chunked read.
 *
 * A format's records live only until its emit call returns (parsers/record.h). A chunked
 * read (core/chunked_read) parses a piece of a file on a worker thread while the driver
 * thread hands earlier pieces to the analyses, so a worker keeps its piece's records here:
 * each record copied with every string it points to (name, key, value, category, track,
 * args, the extra fields and their keys) into an arena of blocks that never move (no
 * array of records that doubles: the arena holds them too, an array their pointers). A batch
 * is emptied and reused; its memory is what it held at its largest. */
#ifndef GOBLIN_RECORD_BATCH_H
#define GOBLIN_RECORD_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/record.h"

typedef struct record_batch_block record_batch_block;

typedef struct record_batch {
    record **recs;               /* recs[0..n): the copies (in the arena), in emit order */
    size_t n, cap;
    record_batch_block *blocks;  /* the arena (first: the one being filled) */
    record_batch_block *spare;   /* emptied blocks kept for reuse */
    uint64_t bytes;              /* record and string bytes held (for the bound) */
} record_batch;

/* An empty batch (no allocation until the first add). */
void record_batch_init(record_batch *b);
/* Appends a copy of r and its strings. false on allocation failure (b is unchanged). */
bool record_batch_add(record_batch *b, const record *r);
/* Empties b, keeping its memory for the next piece. */
void record_batch_clear(record_batch *b);
/* Frees everything b holds; b is then empty. */
void record_batch_free(record_batch *b);

#endif
