/* csv_rows: the reading loop shared by the record-emitting CSV formats of the analysis
 * document (rocprofv3 copy/API/allocation/counter traces, stats reports, nsys and nvprof
 * exports).
 *
 * A format describes itself with a csv_rows_spec: the columns it wants (csv_want, picked
 * once from the header like every CSV format does), which of them must be present, and a
 * row function that turns one data row into at most one record. This file does the rest
 * the same way for all of them: finds the header (records before it, such as nvprof's
 * "==PID==" banners or an nsys "Processing ..." preamble, are skipped and counted), feeds
 * rows, counts skipped rows by reason with the first line of each, and warns at finish
 * naming the file and line. Only the wanted columns are copied per row. */
#ifndef GOBLIN_CSV_ROWS_H
#define GOBLIN_CSV_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/csv_columns.h"

#define CSV_ROWS_SKIPS 8
#define CSV_ROWS_TEXTS 6

typedef struct csv_rows csv_rows;

typedef struct csv_rows_spec {
    const char *what;                  /* for warnings: "memory copy trace" */
    const csv_want *want;              /* the wanted columns, in quantity order */
    const char *const *quantity;       /* their names for read_facts (NULL entries: not reported) */
    size_t n_want;
    unsigned required;                 /* bit i: quantity i must be in the header */
    int variant;                       /* the format's own switch (one row function, several formats) */
    /* false: the first record is the header (rocprofv3). true: the header may follow banner or
     * preamble lines (nvprof, nsys): the first of the first 100 records naming a candidate of
     * a required quantity exactly (ASCII case aside) and having every required column. */
    bool header_search;
    /* Names written unquoted with commas in them (legacy rocprof's results.stats.csv:
     * `Kokkos::View<int**, Kokkos::LayoutLeft>`): a row with more fields than the header has
     * its surplus joined back, with the commas, into the column of this quantity (+1; 0: off),
     * the columns after it shifted (the numbers are the last fields). */
    unsigned join_surplus_into;
    /* One data row (n_fields > 0) after the header: build a record and csv_rows_emit it, or
     * csv_rows_skip it with a reason. */
    void (*row)(csv_rows *rows, const csv_record *r);
} csv_rows_spec;

struct csv_rows {
    const csv_rows_spec *spec;
    csv_tokenizer csv;
    csv_columns cols;
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    bool have_header, oom;
    uint64_t before_header;            /* records skipped while looking for the header */
    uint64_t header_line;              /* the last header candidate's line */
    uint64_t oversized_headers, oversized_header_line;   /* candidates too large for a header */
    uint64_t emitted;
    size_t n_skips;
    struct { const char *reason; bool kept; uint64_t rows, first_line; } skips[CSV_ROWS_SKIPS];   /* and rows kept in part */
    strbuf text[CSV_ROWS_TEXTS];       /* scratch for csv_rows_text */
    int64_t aux[CSV_COLUMNS_MAX];      /* the format's own per-file state (nvprof: column units) */
    bool aux_set;
    size_t header_fields;              /* join_surplus_into: the header's field count */
    csv_field fixed[CSV_COLUMNS_MAX];  /* join_surplus_into: the row's wanted fields, realigned */
    strbuf joined;                     /* join_surplus_into: the rejoined cell */
    uint64_t rejoined;                 /* rows whose surplus fields were joined back */
};

/* A state reading with spec (the body of a format's open_records). NULL on OOM. */
csv_rows *csv_rows_open(const csv_rows_spec *spec, const char *label, const record_sink *sink, read_facts *facts,
                        diag_list *diag);
/* The format's feed/finish/close (artefact_parser): bytes in any chunks (false: stop, out
 * of memory or the sink refused a record); end of input (skip warnings naming file and
 * line, read facts); free the state. */
bool csv_rows_feed(void *st, const uint8_t *buf, size_t n);
void csv_rows_finish(void *st);
/* csv_finish(t), then a warning naming the first line, and a skip count in facts, for the
 * records t did not report for passing a capture-all bound (csv_wide): every format whose
 * tokenizer captures whole records (a header, or every row) finishes through this. */
void csv_finish_warned(csv_tokenizer *t, const char *label, diag_list *diag, read_facts *facts);
/* That warning and skip count alone: for the second reading of a pair sharing t. */
void csv_warn_wide(const csv_tokenizer *t, const char *label, diag_list *diag, read_facts *facts);
void csv_rows_close(void *st);

/* The raw field of quantity q in row r: NULL when the column is absent, the row short, the
 * cell empty or cut at the field cap. */
const csv_field *csv_rows_field(const csv_rows *rows, size_t q, const csv_record *r);
/* Quantity q as an exact integer (Python's int(), else int(float())); false when missing or not a number. */
bool csv_rows_int(const csv_rows *rows, size_t q, const csv_record *r, i128 *out);
/* Quantity q as a finite float; false when missing or not a number. */
bool csv_rows_num(const csv_rows *rows, size_t q, const csv_record *r, double *out);
/* An agent or device number: an integer, or the number in "Agent 3" / "GPU 0" text. */
bool csv_rows_agent(const csv_rows *rows, size_t q, const csv_record *r, int64_t *out);
/* Quantity q as valid UTF-8 with surrounding white space stripped, in scratch buffer
 * `slot` (< CSV_ROWS_TEXTS; valid until the next call with that slot). false when missing
 * or blank (or on OOM, which the state remembers). */
bool csv_rows_text(csv_rows *rows, size_t slot, size_t q, const csv_record *r, const char **s, size_t *n);
/* Counts row r as skipped for `reason` (a static string). */
void csv_rows_skip(csv_rows *rows, const char *reason, const csv_record *r);
/* Counts row r as kept without `what` (a static string: "times (end before start)"); warned
 * at the finish with the count and the first line. */
void csv_rows_kept_without(csv_rows *rows, const char *what, const csv_record *r);
/* Sends a record (line set from r). */
void csv_rows_emit(csv_rows *rows, const csv_record *r, record *rec);

/* Decimal text times 10^pow10 as an exact integer, rounded half away from zero: "1.5" with
 * pow10 3 (microseconds to ns) is 1500. Accepts [+-]digits[.digits][e[+-]digits]. false
 * when the text is not such a number or the result does not fit 64 bits. */
bool csv_rows_decimal_scaled(const char *s, size_t n, int pow10, i128 *out);

/* For sniff(): true when the base name of `name` matches one of the patterns (fnmatch). */
bool csv_rows_name_matches(const char *name, const char *const *patterns);

/* Defines `const artefact_parser var` (format id `id`, profile family `family`, kind
 * ARTEFACT_ANALYSIS_ONLY) reading
 * with `spec`; its sniff scores 95 when the base name matches `pats` and the header holds
 * `header_word` (the first line; anywhere in the first bytes when the header may follow a
 * banner, spec.header_search), 60 for the header word alone, 30 for the name alone. */
#define CSV_ROWS_FORMAT(var, id, family_, spec, pats, header_word) \
    CSV_ROWS_FORMAT_KERNELS(var, id, family_, spec, pats, header_word, KERNELS_NONE)
/* The same for a format whose rows include kernel dispatches (`kernels`: kernel_source_kind). */
#define CSV_ROWS_FORMAT_KERNELS(var, id, family_, spec, pats, header_word, kernels_)                                     \
    static void *var##_open(const parse_options *opt, const char *label, const record_sink *sink,                \
                            read_facts *facts, diag_list *diag) {                                                \
        (void)opt;                                                                                               \
        return csv_rows_open(&spec, label, sink, facts, diag);                                                   \
    }                                                                                                            \
    static int var##_sniff(const char *name, const uint8_t *head, size_t n) {                                    \
        bool by_name = csv_rows_name_matches(name, pats);                                                        \
        bool by_head = spec.header_search ? csv_head_has(head, n, header_word)                                  \
                                          : csv_first_line_has(head, n, header_word);                           \
        return by_name && by_head ? 95 : by_head ? 60 : by_name ? 30 : 0;                                        \
    }                                                                                                            \
    const artefact_parser var = {.name = id, .family = family_, .kind = ARTEFACT_ANALYSIS_ONLY, .kernels = kernels_, .names = pats, \
                                 .sniff = var##_sniff, .open_records = var##_open, .feed = csv_rows_feed,        \
                                 .finish = csv_rows_finish, .close = csv_rows_close};


#endif
