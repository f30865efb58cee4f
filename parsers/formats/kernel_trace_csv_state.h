/* kernel_trace_csv_state: the state of kernel_trace_csv.c (one kernel dispatch record per
 * CSV row), shared with kernel_trace_csv_pair.c, which runs two such states from one
 * tokenizer. Private to those two files: nothing else includes it. */
#ifndef GOBLIN_KERNEL_TRACE_CSV_STATE_H
#define GOBLIN_KERNEL_TRACE_CSV_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/csv_columns.h"
#include "parsers/tokenizers/csv_tokenizer.h"

#define KT_COUNTER_COLS_MAX 64u   /* counter columns read from one legacy rocprof header */
#define KT_MAGIC 0x6b7463u        /* first word of a kernel_trace_csv.c state */
#define KT_PAIR_MAGIC 0x6b747032u /* first word of a kernel_trace_csv_pair.c state */

typedef struct kt_state {
    unsigned magic;                    /* KT_MAGIC */
    csv_tokenizer csv;                 /* its own; a pair's second state's is never fed */
    record_sink sink;
    read_facts *facts;
    unsigned fields;                   /* RF_* the sink wants beyond name and duration */
    uint64_t emitted;
    diag_list *diag;
    const char *label;
    bool seed_compat;
    _Atomic bool *rows_seen;           /* parse_options.kernel_rows_seen */
    bool have_header;
    csv_columns cols;
    strbuf name;                       /* scratch: sanitised name */
    char queue_text[24];               /* scratch: the queue id as text (record field) */
    record_field queue_field;
    uint64_t records, bad_timing, nonpositive, truncated_names, no_name, zero_start;
    uint64_t first_bad_line, first_nonpositive_line, first_zero_start_line;
    uint64_t start_line;               /* a second piece: the tokenizer's line where it began */
    /* legacy rocprof counter columns: capture slot and name (valid UTF-8) of each */
    size_t n_counters, counter_cols_cut;
    int counter_slot[KT_COUNTER_COLS_MAX];
    char *counter_name[KT_COUNTER_COLS_MAX];
    bool no_timing;                    /* the header has no timing column (a counter-only file) */
    uint64_t counter_rows, counter_bad, first_counter_bad_line;
    bool oom;
} kt_state;

/* A state reading for sink/facts/diag (kernel_trace_csv.c's open_records); NULL on OOM. */
kt_state *kernel_trace_csv_open_state(const parse_options *opt, const char *label, const record_sink *sink,
                                      read_facts *facts, diag_list *diag);
/* The tokenizer's record callback of a state (its header, then its rows). */
void kernel_trace_csv_on_record(void *state, const csv_record *r);
/* End of input after the tokenizer's end: the state's warnings and facts. */
void kernel_trace_csv_report(kt_state *s);
/* Folds first's counts into second (second's lines moved on by delta lines) and hands it
 * first's facts; the tokenizer's own lines are the caller's. */
void kernel_trace_csv_join_counts(kt_state *first, kt_state *second, uint64_t delta);
void kernel_trace_csv_close_state(kt_state *s);

/* kernel_trace_csv_pair.c: the pair state's entry points (artefact_parser.open_records_pair
 * and its resumed twin; feed, join, finish, close of a state whose first word is KT_PAIR_MAGIC). */
void *kernel_trace_csv_pair_open(const parse_options *opt, const char *label, const record_sink *sink,
                                 read_facts *facts, diag_list *diag, const record_reading *second);
void *kernel_trace_csv_pair_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                                         read_facts *facts, diag_list *diag, const record_reading *second,
                                         uint64_t offset, const uint8_t *head, size_t head_n);
bool kernel_trace_csv_pair_feed(void *pair, const uint8_t *buf, size_t n);
bool kernel_trace_csv_pair_join(void *first, void *second);
void kernel_trace_csv_pair_finish(void *pair);
void kernel_trace_csv_pair_close(void *pair);

#endif
