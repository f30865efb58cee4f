/* source_read: one source of the analysis document read through its record format.
 *
 * The same checks as core/artefact_reader (a regular file, inside confine_root when set,
 * FIFOs never block), streamed through a fixed buffer and inflated on the fly for `.gz`;
 * a descriptor-reading format (SQLite) gets the already opened file. The daemon's
 * parse limits (cancel, max bytes, deadline) are checked before every chunk. */
#ifndef GOBLIN_SOURCE_READ_H
#define GOBLIN_SOURCE_READ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "parsers/artefact.h"

/* A passenger on a source's bytes (core/run_ingest): the bytes read, inflated once, also go
 * to a second consumer (RunMetrics' summary reading of the same file), so the file is read
 * once for both. The passenger may stop wanting bytes before the format does, and the other
 * way round: the read goes on while either wants more. */
typedef struct source_tee {
    bool (*feed)(void *user, const uint8_t *buf, size_t n);        /* false: it wants no more */
    void (*read_error)(void *user, uint64_t offset, int err);       /* the read failed there */
    void (*gzip_error)(void *user, uint64_t offset, const char *msg);  /* bad or truncated gzip */
    /* the read stopped (a limit) at file offset `at` (after inflation, for .gz) before the end
     * it wanted, `incoming` more bytes in hand (0: none yet: a cancel or the deadline before a
     * read); a piece of a split read says its own offset */
    void (*stopped_early)(void *user, uint64_t at, uint64_t incoming);
    void *user;
    /* A descriptor-reading format (SQLite) has no bytes to share, and a format that
     * shares_records can emit a passenger's records from the driver's one tokenization: a
     * passenger with records set takes the format's records instead (the one state's sink fans
     * out to both; feed, when the format reads bytes, then only counts them and stops with the
     * format), and at the end records_end gets the read's outcome (a byte stream's: true, its
     * failures came through the calls above), the format's facts, its warnings (diag items
     * [first, end): those a read apart gives, each starting with `label`) and the time taken. */
    const record_sink *records;
    void (*records_end)(void *user, bool ok, const read_facts *facts, const diag_list *diag, size_t first,
                        size_t end, const char *label, double ms);
    /* With records: the passenger's own reading (its options, name, sink = records, facts and
     * warnings) for a format with open_records_pair (the CSV kernel trace), whose one state
     * then reads for the driver and for it from one tokenization, each half as its own read
     * would (no fan-out: each half emits to its own sink). */
    const record_reading *reading;
} source_tee;

/* One format state's records to two sinks, each the types it takes (a passenger's records). */
typedef struct source_fanout {
    const record_sink *a, *b;
} source_fanout;
/* The sink fanning out to a and b through f (which must outlive it). */
record_sink source_fanout_sink(source_fanout *f, const record_sink *a, const record_sink *b);

typedef struct source_read_stats {
    bool present;            /* opened and read (a warning says why not otherwise) */
    uint64_t bytes_read;     /* bytes fed to the format (after inflation) */
    double parse_ms;
} source_read_stats;

/* Whether a warning in d from index `from` on says a read stopped at a parse bound or a cancel:
 * one that ends as such a stop's own words end ("... bounds a parse", "... bounds a parse)",
 * "(shutting down)"), never one that only quotes them (warnings quote file names and lines). */
bool source_read_stop_warned(const diag_list *d, size_t from);
/* The first warning in d from index `from` on that says a read stopped at a parse bound (ends
 * "... bounds a parse" or "... bounds a parse)"; not a cancel), NULL when none. */
const char *source_read_bound_warning(const diag_list *d, size_t from);

/* Reads path (label names it in warnings) with format p into sink, with a passenger on the bytes
 * (tee may be NULL); how it was read goes to facts, warnings to diag. */
void source_read_tee(const char *path, const char *label, const artefact_parser *p, const parse_options *opt,
                     const record_sink *sink, read_facts *facts, diag_list *diag, source_read_stats *st,
                     const source_tee *tee);

/* For a split read (core/run_analysis): opens path with the same checks as source_read_tee; the
 * descriptor, or -1 after a warning. */
int source_open(const char *path, const char *label, const parse_options *opt, diag_list *diag);
/* Feeds bytes [from, to) of fd to format state st (a feed-based format) with a passenger on the
 * range's bytes (tee may be NULL; p/st NULL: the passenger alone); the bytes fed. Limits are
 * checked before every chunk, read errors become warnings. */
uint64_t source_feed_range_tee(int fd, uint64_t from, uint64_t to, const artefact_parser *p, void *st,
                               const parse_options *opt, const char *label, diag_list *diag, const source_tee *tee);

/* true (with a warning naming label and the byte) when a parse limit says stop: a cancel
 * (shutdown), max_parse_s passed, or max_parse_mb (after inflation) would be passed by feeding
 * `incoming` more bytes after the `fed` (file offset, for a range) already fed, so a file of
 * exactly the bound is read whole. drops_whole: the reading is then dropped whole
 * (RunMetrics': "not parsed"), else it keeps what it read ("read stopped"). The one limits
 * check of every reader (and of RunMetrics' passengers). */
bool source_over_limits(const parse_options *opt, const char *label, diag_list *diag, uint64_t fed,
                        uint64_t incoming, bool drops_whole);
/* RunMetrics' read of fd through format state st (core/artefact_reader): the whole file
 * inflated (gz: from 0 to the end, by read(), as source_read_tee), or bytes [from, to) by
 * pread (as the driver's pieces); the same pump, checks and warnings as the driver's reads, a
 * limit's warning saying the reading is dropped whole. false after a read error, bad gzip data
 * or a limit (warned); *fed grows by the bytes fed (up to where the format wanted no more);
 * *stopped: the format wanted no more input. */
bool source_pump(int fd, bool gz, uint64_t from, uint64_t to, const artefact_parser *p, void *st,
                 const parse_options *opt, const char *label, diag_list *diag, uint64_t *fed, bool *stopped);
/* The end of a range being read that another thread may move nearer (core/run_split: the
 * cut of a split read chosen while the head is read). The reader takes `to` before each
 * chunk and claims the chunk's bytes; a cut is accepted only at or past what is claimed. */
typedef struct range_end {
    pthread_mutex_t mu;
    uint64_t to;             /* where the read stops */
    uint64_t claimed;        /* the reader has read, or is reading, the bytes before this */
} range_end;
/* source_feed_range_tee with the range's end in end (NULL: to); to is ignored when end is set. */
uint64_t source_feed_until(int fd, uint64_t from, uint64_t to, range_end *end, const artefact_parser *p, void *st,
                           const parse_options *opt, const char *label, diag_list *diag, const source_tee *tee);
/* Moves the read's end to `at`: true when the reader has claimed no byte at or past it
 * (it then stops exactly there), false when too late (the end stays). */
bool source_read_range_end_cut(range_end *end, uint64_t at);
/* The bytes the reader has claimed so far (where a cut may still go). */
uint64_t source_read_range_end_claimed(range_end *end);

#endif
