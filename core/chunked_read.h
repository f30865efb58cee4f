/* chunked_read: one file read in many pieces on worker threads, delivered in file order.
 *
 * The two-piece split of core/run_analysis serves only analyses that take records out of
 * order (analyses/section.h `splittable`); most need them in file order. Here the file is
 * cut into chunks (about chunk_bytes each) at the format's resume points; worker threads
 * parse chunks, each with a state of its own (the first from the file's start, the others
 * resumed at their offset), into record batches (core/record_batch); the calling thread
 * joins each chunk's state onto the previous one (the format's join, in file order) and,
 * once joined, hands the chunk's records to the sink, so the sink sees exactly the records
 * of one sequential read, in the same order. At most `window` chunks wait parsed or in
 * parse, and their batches hold at most batch_max_bytes together, so memory does not grow
 * with the file.
 *
 * Any chunk that cannot be opened, read whole or joined (a resume point inside a quoted
 * field, a format that stopped early, a batch past its bound, a cancel) ends the read with
 * -1: the caller forgets what the sink got and reads the file sequentially. Not for gzip,
 * descriptor-reading (SQLite) or non-record formats, nor under a byte limit: chunked_can_read. */
#ifndef GOBLIN_CHUNKED_READ_H
#define GOBLIN_CHUNKED_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/source_read.h"
#include "parsers/artefact.h"

#define CHUNKED_CHUNK_BYTES (128u << 10)      /* default chunk size, 128 KiB (256 KiB chunks: +1 MB peak RSS on the 1 GB run) */
#define CHUNKED_BATCH_MAX_BYTES (64u << 20)   /* default bound on the waiting batches' bytes */

typedef struct chunked_options {
    uint64_t chunk_bytes;       /* 0: CHUNKED_CHUNK_BYTES */
    uint64_t batch_max_bytes;   /* 0: CHUNKED_BATCH_MAX_BYTES */
    int workers;                /* parsing threads (0: 2) */
} chunked_options;

/* Whether a file of format p at path, of size bytes, can be read in chunks of chunk_bytes
 * (0: the default) under opt: a feed-based record format with resume points and join, not
 * `.gz`, no byte limit (max_parse_mb), and more than one chunk's worth of bytes. */
bool chunked_can_read(const artefact_parser *p, const char *path, uint64_t size, const parse_options *opt,
                      uint64_t chunk_bytes);

/* Reads the open file fd (size bytes) with format p in chunks; records go to sink on the
 * calling thread in file order, the file's facts to facts, warnings (in file order) to
 * diag; st and *pieces (the chunk count) say how it was read. 1: read whole; -1: not
 * (sink may have had records, facts some columns: the caller forgets both and reads
 * sequentially; diag and st are then untouched). */
int chunked_read(int fd, uint64_t size, const artefact_parser *p, const parse_options *opt, const char *label,
                 const record_sink *sink, read_facts *facts, diag_list *diag, const chunked_options *co,
                 source_read_stats *st, unsigned *pieces);

#endif
