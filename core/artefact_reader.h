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
 * reader share this one rule, so a refused file never looks "changed" forever. */
bool artefact_identity(const char *path, const char *confine_root, uint64_t *size, int64_t *mtime_ns, uint64_t *inode);

/* Frees and zeroes a summary of `kind`. */
void artefact_summary_reset(artefact_kind kind, void *summary);

#endif
