/* artefact_reader: streams one file through its format parser.
 *
 * The file is read once through a fixed buffer (and inflated on the fly when its name
 * ends in .gz), so memory does not depend on file size. Anything that is not a
 * readable regular file becomes a warning, never an error of the whole run. */
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
    double parse_ms;
    const char *format;      /* parser name, NULL when none ran */
    const char *error;       /* the first warning about this file (owned by the run's warnings), or NULL */
} artefact_info;

/* Parses `path` as artefact `kind` into `summary` (the kind's summary struct).
 * Warnings go to diag; info describes the file. */
void artefact_read(const char *path, artefact_kind kind, const parse_options *opt,
                   void *summary, diag_list *diag, artefact_info *info);

/* What artefact_read() would open: true for a regular file (inside confine_root, when given,
 * after resolving symlinks), with its identity. The tracker's change detection and the
 * reader share this one rule, so a refused file never looks "changed" forever. */
bool artefact_identity(const char *path, const char *confine_root, uint64_t *size, int64_t *mtime_ns, uint64_t *inode);

/* Frees and zeroes a summary of `kind`. */
void artefact_summary_reset(artefact_kind kind, void *summary);

#endif
