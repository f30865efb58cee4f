/* csv_columns: the columns a CSV format needs, chosen once from its header record and
 * then captured by the tokenizer for every row. Shared by every CSV parser, so "which
 * column holds what" is decided one way everywhere. */
#ifndef GOBLIN_CSV_COLUMNS_H
#define GOBLIN_CSV_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/diag.h"
#include "parsers/tokenizers/csv_tokenizer.h"

#define CSV_COLUMNS_MAX 24
/* A header past either bound is not picked from (the widest real one seen, rocprof-compute's
 * pmc_perf.csv, has 2,718 columns in 50 KB): a pick costs the header's size times every
 * wanted column's candidates. */
#define CSV_HEADER_MAX_FIELDS 16384
#define CSV_HEADER_MAX_BYTES (1u << 20)

/* One wanted quantity: candidate column names, and words that disqualify a column. */
typedef struct csv_want {
    const char *const *candidates;
    const char *const *exclude;        /* may be NULL */
    bool whole_tokens;                 /* column_pick_timing() instead of column_pick() */
} csv_want;

typedef struct csv_columns {
    size_t n;
    ssize_t col[CSV_COLUMNS_MAX];      /* header index of each wanted quantity, -1 when absent */
    int slot[CSV_COLUMNS_MAX];         /* its capture slot in the tokenizer's records */
    char *name[CSV_COLUMNS_MAX];       /* the chosen header name (valid UTF-8), NULL when absent */
    bool oversized;                    /* the header was past CSV_HEADER_MAX_*: every column absent */
} csv_columns;

/* Picks every wanted column from the header record (see column_pick) and makes the
 * tokenizer capture them from the next record on. A header of more than CSV_HEADER_MAX_FIELDS
 * cells or CSV_HEADER_MAX_BYTES is not picked from: every column absent, c->oversized set.
 * false on allocation failure (the caller then reads no row: a column may have no name, or
 * no slot). */
bool csv_columns_pick(csv_columns *c, csv_tokenizer *t, const csv_record *header, const csv_want *want, size_t n);
/* Whether record r has more than max_fields cells or max_bytes of text (a header candidate
 * past the bounds: CSV_HEADER_MAX_FIELDS and CSV_HEADER_MAX_BYTES for a pick). */
bool csv_header_oversized(const csv_record *r, size_t max_fields, size_t max_bytes);
/* Warns, when c->oversized, that the header at `line` of file `label` was too large to be read. */
void csv_columns_warn_oversized(const csv_columns *c, const char *label, unsigned long long line, diag_list *diag);
/* Two readers on one tokenizer (a format's pair state: one read of a file for the daemon's
 * two readings): makes `fed` capture the columns `other` (the second reader's own tokenizer,
 * never fed) captures too, after fed's own, and returns for each of other's slots its slot
 * in fed's records (other->rec.n_captured entries, malloc'd; the caller frees it). NULL on
 * allocation failure. */
int *csv_capture_union(csv_tokenizer *fed, const csv_tokenizer *other);
/* Moves c's slots through map (csv_capture_union's answer for the tokenizer c picked on). */
void csv_columns_remap(csv_columns *c, const int *map);
/* Frees the chosen column names; c is then empty. */
void csv_columns_free(csv_columns *c);
/* The field of quantity `which` in record r, or NULL when the column is absent or the row short. */
const csv_field *csv_columns_field(const csv_columns *c, size_t which, const csv_record *r);
/* For CSV formats' sniff(): true when the file name ends in ".csv". */
bool csv_name_is_csv(const char *name);
/* For CSV formats' sniff(): true when the first bytes contain `word`, ASCII case-insensitively. */
bool csv_head_has(const uint8_t *head, size_t n, const char *word);
/* The same within the first line only (the header of a CSV that starts with it): a word in a
 * data row (a kernel named `...Function...`) does not count. */
bool csv_first_line_has(const uint8_t *head, size_t n, const char *word);

#endif
