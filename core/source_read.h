/* source_read: one source of the analysis document read through its record format.
 *
 * The same checks as core/artefact_reader (a regular file, inside confine_root when set,
 * FIFOs never block), streamed through a fixed buffer and inflated on the fly for `.gz`;
 * a path-reading format (SQLite) gets a name for the already opened file. The daemon's
 * parse limits (cancel, max bytes, deadline) are checked before every chunk. */
#ifndef GOBLIN_SOURCE_READ_H
#define GOBLIN_SOURCE_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/artefact.h"

typedef struct source_read_stats {
    bool present;            /* opened and read (a warning says why not otherwise) */
    uint64_t bytes_read;     /* bytes fed to the format (after inflation) */
    double parse_ms;
} source_read_stats;

/* Reads path (label names it in warnings) with format p into sink; how it was read goes to
 * facts, warnings to diag. */
void source_read(const char *path, const char *label, const artefact_parser *p, const parse_options *opt,
                 const record_sink *sink, read_facts *facts, diag_list *diag, source_read_stats *st);

/* For a split read (core/run_analysis): opens path with the same checks as source_read; the
 * descriptor, or -1 after a warning. */
int source_open(const char *path, const char *label, const parse_options *opt, diag_list *diag);
/* Feeds bytes [from, to) of fd to format state st (a feed-based format); the bytes fed.
 * Limits are checked before every chunk, read errors become warnings. */
uint64_t source_feed_range(int fd, uint64_t from, uint64_t to, const artefact_parser *p, void *st,
                           const parse_options *opt, const char *label, diag_list *diag);

#endif
