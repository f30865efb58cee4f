/* artefact_reader: streams one file through its format parser.
 *
 * The file is read once through a fixed buffer (and inflated on the fly when its name
 * ends in .gz), so memory does not depend on file size. Anything that is not a
 * readable regular file becomes a warning, never an error of the whole run.
 *
 * A large plain file whose format can resume mid-file (artefact_parser.join) is read in
 * two pieces: the head on a second thread, the tail on the caller's, so both cores work
 * on the one critical file. The result is exactly that of one sequential read. */
#ifndef GOBLIN_ARTEFACT_READER_H
#define GOBLIN_ARTEFACT_READER_H

#include <stdint.h>
#include <sys/types.h>

#include "parsers/artefact.h"

typedef struct artefact_info {
    bool present;            /* a regular file was found and opened */
    uint64_t size;           /* bytes on disk */
    int64_t mtime_ns;
    uint64_t inode;
    uint64_t bytes_parsed;   /* bytes fed to the parser (after inflation) */
    double parse_ms;         /* reading and parsing, both pieces' times added when split */
    unsigned pieces;         /* 2 when read in two pieces on two threads and joined, else 1 (0: not read) */
    const char *format;      /* parser name, NULL when none ran */
    int sniff_score;         /* how well the format's sniff said it fits (0-100) */
    const char *error;       /* the first warning about this file (owned by the run's warnings), or NULL */
} artefact_info;

/* Parses `path` as artefact `kind` into `summary` (the kind's summary struct).
 * Warnings go to diag; info describes the file. */
void artefact_read(const char *path, artefact_kind kind, const parse_options *opt,
                   void *summary, diag_list *diag, artefact_info *info);

/* artefact_read() started on a second thread. tail_bytes > 0 offers the caller's thread
 * for about that many bytes at the file's end: when the file can be split near there,
 * the second thread reads only the head, and the caller's thread the tail in
 * artefact_read_end(). (The tail is the piece whose sum terms are kept until the join,
 * so the caller, which has other files to read first, takes the smaller one.)
 * Call artefact_read_end() to wait and complete
 * (the summary, diag and info are written by then, not before). NULL: the read is already
 * complete (no memory for a thread); artefact_read_end(NULL) does nothing. */
typedef struct artefact_reading artefact_reading;
artefact_reading *artefact_read_begin(const char *path, artefact_kind kind, const parse_options *opt, void *summary,
                                      diag_list *diag, artefact_info *info, uint64_t tail_bytes);
/* Reads the tail on this thread if there is one, waits for the second thread, joins. */
void artefact_read_end(artefact_reading *r);

/* What artefact_read() would open: true for a regular file (inside confine_root, when given,
 * after resolving symlinks), with its identity. The tracker's change detection and the
 * reader share this one rule, so a refused file never looks "changed" forever. false with
 * errno ENOMEM when memory ran out deciding (the caller fails as an allocation failure). */
bool artefact_identity(const char *path, const char *confine_root, uint64_t *size, int64_t *mtime_ns, uint64_t *inode);

/* Opens path for reading the way every reader must: inside confine_root (when given) after
 * resolving symlinks, the resolved name opened with O_NOFOLLOW | O_NONBLOCK (a FIFO or a
 * symlink swapped in after any earlier check neither blocks nor leads out), the opened file
 * checked again by what the kernel says it is (inside the root, a regular file), then made
 * blocking. The descriptor (st filled), or -2 when outside the root, -1 with errno (EINVAL:
 * not a regular file; ENOMEM: memory ran out deciding). */
struct stat;
int artefact_open(const char *path, const char *confine_root, struct stat *st);

/* A passenger reading: artefact_read()'s checks, format choice, warnings and summary, but
 * fed the bytes another reader reads (core/run_ingest: the run driver's one read of the
 * file, so the ingest reads each file once for RunMetrics and the analysis document).
 * The bytes come in file order (inflated for .gz); when the driver reads the file in two
 * pieces, the second piece's bytes go to a second state opened at the same resume point
 * and the two are joined as artefact_read_begin() joins them. */
typedef struct artefact_passenger artefact_passenger;
/* Opens the reading of path as `kind` into summary. NULL: the reading is already complete
 * (the file is missing or refused, with artefact_read()'s warning; a format that is not a
 * byte stream was read whole here; out of memory). */
artefact_passenger *artefact_passenger_open(const char *path, artefact_kind kind, const parse_options *opt,
                                            void *summary, diag_list *diag, artefact_info *info);
/* The same for a descriptor-reading format (SQLite), a format that shares_records (the
 * torch profile) or one with open_records_pair (the kernel trace CSV: its reading,
 * artefact_passenger_reading), read by the driver: the driver's one format state emits into *sink too
 * (the kind's analysis alone), artefact_passenger_feed only counts a byte stream's bytes,
 * and artefact_passenger_records_end completes it. NULL as above (also when the file here is
 * a database not of `format`: then read whole at once, as before); a byte stream not of
 * `format`: a passenger on the bytes (artefact_passenger_open), *sink NULL. */
artefact_passenger *artefact_passenger_open_records(const char *path, artefact_kind kind, const parse_options *opt,
                                                    void *summary, diag_list *diag, artefact_info *info,
                                                    const artefact_parser *format, const record_sink **sink);
/* The driver's read ended: ok (else the summary is dropped), the format's facts, its warnings
 * (diag items [first, end), those starting with `label` renamed as this reading names the
 * file), the time it took. */
void artefact_passenger_records_end(artefact_passenger *a, bool ok, const read_facts *facts, const diag_list *diag,
                                    size_t first, size_t end, const char *label, double ms);
/* Bytes for piece 0 (the whole file or its head) or 1 (the tail). false: this piece wants
 * no more (the format stopped, or a limit of opt's stopped it, with the warning). */
bool artefact_passenger_feed(artefact_passenger *a, int piece, const uint8_t *buf, size_t n);
/* The reader failed at `offset` (errno err) or met bad gzip data: the summary is dropped,
 * as artefact_read() drops it, with its warning. */
void artefact_passenger_read_error(artefact_passenger *a, uint64_t offset, int err);
void artefact_passenger_gzip_error(artefact_passenger *a, uint64_t offset, const char *msg);
/* The reader stopped before the end (a limit, at file offset `at`, `incoming` more bytes in
 * hand): the summary is dropped, with the warning artefact_read() would give. */
void artefact_passenger_stopped_early(artefact_passenger *a, uint64_t at, uint64_t incoming);
/* The reader will read the file in two pieces split at `offset` (head: the file's first
 * bytes): opens the tail state. false: this format cannot follow (read it whole then). */
bool artefact_passenger_split(artefact_passenger *a, uint64_t offset, const uint8_t *head, size_t head_n);
/* Both pieces fed: joins them. false: the join declined; the reading must be redone
 * (artefact_passenger_restart, then every byte again as piece 0). */
bool artefact_passenger_join(artefact_passenger *a);
/* A records passenger split (artefact_passenger_split): the sink of the tail's analysis,
 * for the driver's tail state; NULL when not split or not a records passenger. */
const record_sink *artefact_passenger_tail_records(artefact_passenger *a);
/* A records passenger of a format with open_records_pair (the CSV kernel trace): its own
 * reading of piece 0 (the head, or the whole file) or 1 (the tail, once split), for the
 * driver's pair state (source_tee.reading); NULL for any other passenger. */
const record_reading *artefact_passenger_reading(artefact_passenger *a, int piece);
/* A records passenger on a byte stream whose pieces did not join while the driver's did:
 * forgets them and reads the file apart, now (artefact_read); end then only frees it. */
void artefact_passenger_read_apart(artefact_passenger *a);
/* Forgets what was fed (the summary is reset) to be fed again from byte 0 as one piece. */
bool artefact_passenger_restart(artefact_passenger *a);
/* End of the bytes: completes the summary and info (parse_ms is the reader's time spent
 * feeding it) and frees the passenger. */
void artefact_passenger_end(artefact_passenger *a);

/* Frees and zeroes a summary of `kind`. */
void artefact_summary_reset(artefact_kind kind, void *summary);

#endif
