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
} analysis;

/* The analysis that fills the summary of `kind` from records, or NULL when that kind's
 * formats still fill their summary themselves (the torch profile, see ARCHITECTURE.md). */
const analysis *analysis_for_kind(artefact_kind kind);

extern const analysis kernel_stats_analysis;
extern const analysis telemetry_stats_analysis;

#endif
