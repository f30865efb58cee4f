/* run_inventory: every file of a run directory that a registered format reads, for the
 * analysis document (core/run_analysis), and RunMetrics' three files chosen from the same
 * walk's listings (core/run_files): an ingest walks the directory once.
 *
 * RunMetrics keeps one file per kind (core/run_files); the analysis document takes every
 * source: several torch traces (one per rank), a whole rocprofv3 output tree
 * (<host>/<pid>_*.csv, *_results.db one level down; msprof two levels down), analysis-only formats (API and copy
 * traces, stats reports, NPU reference durations under reference/ or the configured
 * npu_reference_dir). Content decides which format reads a file: the format whose sniff
 * accepts the first bytes (inflated for .gz; >= INVENTORY_SNIFF_ACCEPT) with the highest
 * score, its sniff_file() asked too when it has one (SQLite schemas); a format whose name
 * pattern matches only breaks ties (`rank3.pt.trace.json.gz` is a torch trace by its
 * inflated first bytes, a torch trace saved as `trace.json` is not an AIE trace). A file no
 * format accepts is listed as unrecognised, with a warning, when a format's name pattern
 * matched it or it has a data extension (.csv, .json, .db, .sqlite, .tsv). */
#ifndef GOBLIN_RUN_INVENTORY_H
#define GOBLIN_RUN_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/run_files.h"
#include "parsers/artefact.h"

#define INVENTORY_SNIFF_ACCEPT 50     /* a sniff score at least this: the content is the format's */
#define INVENTORY_MAX_UNRECOGNISED 256 /* unrecognised files listed per run (the rest are not) */
#define INVENTORY_MAX_SOURCES 4096   /* a directory with more is cut there, with a warning */
#define INVENTORY_MAX_DEPTH 2        /* directory levels below the run directory (msprof's
                                      * PROF_<id>/mindstudio_profiler_output/ is two) */
#define INVENTORY_MAX_ENTRIES 65536  /* directory entries looked at per run, at every level */
#define LIST_MAX (INVENTORY_MAX_ENTRIES + 1) /* names listed per directory, the smallest (hidden ones too):
                                              * a walk looks at no more */

typedef struct inventory_source {
    char *rel;                       /* path shown and used as source_ref.path (relative to the run
                                      * directory; absolute for an extra root outside it) */
    char *path;                      /* the path opened */
    const artefact_parser *format;
    int sniff_score;
    const char *found_by;            /* the winner's name pattern that matched (static), or "sniff"
                                      * when its content alone claimed the file */
    int rank;                        /* from the file name (rank3, rank-3, rank_3), -1 when none */
    uint64_t size;
    bool device_clock;               /* kernel times from the device (not a host-side profiler's) */
    bool extra_root;                 /* found under the configured extra root (not confined to the
                                      * daemon's run root: the configuration named it) */
    bool kernel_source;              /* its format may carry kernel dispatches (a kernel trace or
                                      * torch profile kind): one family of them is chosen */
} inventory_source;

/* A file no format's content test accepted: listed in the sources section, not read. */
typedef struct inventory_unrecognised {
    char *rel;
    uint64_t size;
    char *why;                       /* the warning: names the file and what it looks like */
} inventory_unrecognised;

/* A directory's entry names as the walk listed them (the run directory, "", and the real
 * sub-directories one level down): RunMetrics' file choice reads them, not the directory again. */
typedef struct inventory_dir {
    char *rel;
    char **names;
    size_t n;
} inventory_dir;

typedef struct run_inventory {
    inventory_source *src;
    size_t n, cap;
    inventory_unrecognised *unrec;   /* in scan order */
    size_t n_unrec, cap_unrec;
    bool scanning_extra;             /* (while building) */
    unsigned entries_seen;           /* (while building) */
    unsigned sources_over;           /* files a format reads beyond INVENTORY_MAX_SOURCES (not read) */
    inventory_dir *dirs;             /* the listings kept */
    size_t n_dirs, cap_dirs;
    run_files files;                 /* RunMetrics' three files (core/run_files), chosen from this
                                      * walk's listings */
} run_inventory;

/* Lists the sources of run_dir (and of extra_root when not NULL and not inside it), in
 * reading order (confine_root, when set: a symlinked file resolving outside it is not
 * looked at, not even sniffed): kernel-carrying formats with a device clock first, then torch traces,
 * then everything else; by path within each group. Warnings (unreadable directory, too
 * many files) go to diag. false only on allocation failure. */
bool run_inventory_build(const char *run_dir, const char *extra_root, const char *confine_root, run_inventory *out,
                         diag_list *diag);
void run_inventory_free(run_inventory *inv);
/* A fingerprint of an inventory's sources: their count, and a hash of each one's (path, size,
 * mtime, inode), for change detection (the daemon re-ingests a run when any source changes,
 * appears or goes, not only RunMetrics' three files). */
typedef struct inventory_fingerprint {
    uint64_t sources;
    uint64_t hash;
} inventory_fingerprint;
/* The fingerprint of an inventory already built (the ingest's own: no second walk). */
void run_inventory_fingerprint_of(const run_inventory *inv, const char *confine_root, inventory_fingerprint *out);
/* A cheap hash of what run_inventory_build() looks at, without opening any file: every entry
 * name of run_dir and of its sub-directories down to INVENTORY_MAX_DEPTH (and of extra_root), with each
 * regular file's size, mtime and inode. When it is unchanged the inventory (and its
 * fingerprint) is unchanged too, so change detection builds the inventory — which opens files
 * to sniff them — only after this hash moved. */
uint64_t run_inventory_listing_hash(const char *run_dir, const char *extra_root);
/* The rank a file name states ("rank3", "rank-34", "rank_0"), or -1. */
int run_inventory_rank_from_name(const char *name);

#endif
