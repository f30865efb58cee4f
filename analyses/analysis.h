/* analysis: the contract of everything that turns records into meaning.
 *
 * An analysis declares the record types it wants (a bit per record_type), consumes the
 * records of one artefact in file order in a single pass, and completes its result in
 * finish(). It never sees bytes, file names or formats: a new format that emits the same
 * records feeds every analysis unchanged, and a new analysis needs no parser change.
 *
 * The summary analyses below fill the per-kind summary structs of parsers/artefact.h
 * that the RunMetrics heuristics (core/waste_budget) read. */
#ifndef GOBLIN_ANALYSIS_H
#define GOBLIN_ANALYSIS_H

#include "parsers/artefact.h"
#include "parsers/record.h"

#define REC_BIT(t) (1u << (t))

typedef struct analysis {
    const char *name;          /* short id, e.g. "kernel-stats" */
    unsigned wants;            /* REC_BIT(...) of the record types consumed; others are not delivered */
    artefact_kind kind;        /* the summary struct it fills */
    /* Starts a pass writing `summary` (the kind's struct, reset here). label names the
     * file in warnings. NULL on allocation failure. */
    void *(*open)(const parse_options *opt, const char *label, void *summary, diag_list *diag);
    /* One record. false: out of memory, no more records can be taken. */
    bool (*consume)(void *state, const record *r);
    /* End of the records: completes the summary. */
    void (*finish)(void *state);
    /* Frees the state (not the summary). */
    void (*close)(void *state);
    /* Where the format writes how it read the file (columns, rows, skips). */
    read_facts *(*facts)(void *summary);

    /* Optional, for split reads (core/format_pipe): `second` consumed the records after
     * `first`'s. can_join: whether folding first into second would be exact (no state is
     * changed). join: folds first's results into second, in record order, so second
     * stands for the whole file (false only on allocation failure, then reported by
     * finish). An analysis whose results cannot join exactly (float sums) either keeps the
     * second piece's terms and replays them in order (torch_stats) or leaves them NULL, and
     * the split is declined. */
    bool (*can_join)(const void *first, const void *second);
    bool (*join)(void *first, void *second);
} analysis;

/* The analysis that fills the summary of `kind` from records, or NULL when there is none. */
const analysis *analysis_for_kind(artefact_kind kind);

extern const analysis kernel_stats_analysis;
extern const analysis telemetry_stats_analysis;
extern const analysis torch_stats_analysis;     /* REC_TRACE_EVENT -> torch_summary */

#endif
