/* test_util: temporary run directories and file helpers for the Check suites. */
#ifndef GOBLIN_TEST_UTIL_H
#define GOBLIN_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ingest_doc.h"
#include "core/run_analysis.h"
#include "core/run_headline.h"
#include "core/run_parse.h"
#include "storage/store.h"

/* A fresh empty directory under $TMPDIR; caller frees the string (and rm -rf's via tu_rmrf). */
char *tu_tempdir(void);
void tu_rmrf(const char *dir);
/* Writes n bytes to dir/name (creating subdirectories is the caller's job). */
void tu_write(const char *dir, const char *name, const void *data, size_t n);
void tu_write_str(const char *dir, const char *name, const char *text);
/* Reads a whole file (tests only); *n gets its size. NULL when unreadable. */
char *tu_read(const char *path, size_t *n);
/* Path of a fixture under ../shared/fixtures. Static buffer. */
const char *tu_fixture(const char *rel);
/* Copies a fixture into dir/name. */
void tu_copy_fixture(const char *rel, const char *dir, const char *name);
/* Parses dir with default options (seed_compat as given). */
void tu_parse(const char *dir, bool seed_compat, run_result *r);
/* Reads one artefact of the given kind into summary (a *_summary of that kind), with
 * warnings in diag (initialised here) and facts in info: tail_bytes 0 is one sequential
 * read, otherwise a split read offering that tail to this thread (any size is worth a
 * thread). The split tests compare the two. */
void tu_read_artefact(const char *path, artefact_kind kind, uint64_t tail_bytes, void *summary, diag_list *diag,
                      artefact_info *info);
/* A fresh directory (tu_tempdir) with goblin_runner's three files: a rocprofv3 kernel trace of
 * `kernels` dispatches over four names and three queues, a torch profile of `events` events
 * (kernels, CPU operators, a ProfilerStep every 300; cut before its root's '}' when cut_torch:
 * invalid JSON) and a two-sample amd_smi.csv. 12000 and 9000 are a few hundred KiB each.
 * Caller frees the path (and tu_rmrf's it). */
char *tu_goblin_run(int kernels, int events, bool cut_torch);
/* RunMetrics' JSON, its warnings and each artefact's read facts (format, bytes, error), as one
 * NUL-terminated text to compare two readings by; caller frees. */
char *tu_metrics_text(const run_result *r);
/* True when any warning contains needle. */
bool tu_warned(const run_result *r, const char *needle);

/* A run read as the daemon's ingest reads it (goblind.json, run_ingest, run_headline_apply, the
 * store's document: daemon/ingest_job.c), for the tests of the store and the API. */
typedef struct tu_ingested {
    run_result res;
    run_analysis an;
    run_headline h;
    ingest_doc doc;
} tu_ingested;
/* Reads dir into *x (asserting that it reads). */
void tu_ingest(const char *dir, tu_ingested *x);
/* The store's record of x as run id, complete, at now_ms 1000 (no forgotten-run check). */
ingest_record tu_ingested_record(const tu_ingested *x, const char *id, const char *root, const char *path);
void tu_ingested_free(tu_ingested *x);

#endif
