/* section_drive: runs one section analysis over hand-built record streams, the way the run
 * driver does (open, per source open_source/consume/end_source, finish, render), for the
 * steps/ops/phases/layers/ranks unit tests. */
#ifndef GOBLIN_SECTION_DRIVE_H
#define GOBLIN_SECTION_DRIVE_H

#include <jansson.h>

#include "analyses/section.h"

typedef struct drive {
    const section_analysis *an;
    void *run;
    void *src;
    diag_list diag;
    analysis_config cfg;
} drive;

/* Opens the analysis registered as `key` (aborts the test when absent). */
void drive_open(drive *d, const char *key);
/* Starts a source (index in call order, rank -1 for unknown, piece 0 or 1). */
void drive_source(drive *d, size_t index, int rank, unsigned piece);
/* Feeds one record to the current source (only types the analysis wants). */
void drive_record(drive *d, const record *r);
/* Ends the current source. */
void drive_end_source(drive *d);
/* Finishes the analysis and returns its rendered section parsed (caller json_decref's). */
json_t *drive_finish(drive *d);
void drive_close(drive *d);

/* Record builders: a timed record of `type` named `name` over [start, end) ns. */
record rec_span(record_type type, const char *name, int64_t start, int64_t end);
/* A REC_METADATA record key=value. */
record rec_meta(const char *key, const char *value);

#endif
