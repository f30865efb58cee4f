/* csv_tokenizer: a push-style CSV state machine with Python's csv (excel dialect,
 * strict=False) semantics, fed bytes in chunks of any size.
 *
 * The reference parses with csv.DictReader after universal-newline decoding, so we
 * follow the same rules: quotes open a field only at its start, "" inside quotes is a
 * quote, text after a closing quote is appended, CR/CRLF/LF all end a line, a quoted
 * field may span lines, and an unterminated quote at end of input still yields its
 * record. Only the columns the consumer asks for are copied (bounded by a cap), so
 * memory does not depend on line length. UTF-8 is not decoded here: every structural
 * byte is ASCII, and Python's replacement decoding never merges an ASCII byte into
 * a replaced sequence, so splitting raw bytes gives the same fields. */
#ifndef GOBLIN_CSV_TOKENIZER_H
#define GOBLIN_CSV_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/text_utf8.h"

typedef struct csv_field {
    size_t index;       /* column index */
    strbuf text;        /* raw bytes (capped) */
    bool present;       /* the record had this column */
    bool truncated;     /* longer than the cap */
} csv_field;

typedef struct csv_record {
    size_t n_fields;          /* columns in this record; 0 for a blank line (DictReader skips
                                 those, except that a blank first line is an empty header) */
    uint64_t line;            /* 1-based line the record started on */
    bool unterminated;        /* ended by end of input inside quotes */
    csv_field *captured;      /* the wanted columns, in the order they were requested */
    size_t n_captured;
    strbuf *all;              /* capture-all mode: every field */
    size_t n_all;
} csv_record;

typedef void (*csv_record_fn)(void *user, const csv_record *rec);

typedef struct csv_tokenizer {
    int state;
    bool prev_cr;
    uint64_t line;
    size_t field;             /* index of the field being read */
    size_t cap;               /* per-field byte cap */
    /* capture map: column -> slot in rec.captured (or -1) */
    int *slot_of;
    size_t slot_of_len;
    bool capture_all;
    size_t all_cap;           /* allocated entries of rec.all */
    strbuf *cur;              /* buffer of the field being read, NULL when not captured */
    bool *cur_trunc;
    csv_record rec;
    csv_record_fn on_record;
    void *user;
    bool oom;                 /* a captured field lost bytes for lack of memory: the reading is partial */
    size_t all_held;          /* capture-all buffers' capacity in all (CSV_ALL_MAX_BYTES) */
    bool cut;                 /* the record being read passed a capture-all bound */
    uint64_t wide, wide_line; /* records cut so, and the line the first began on */
} csv_tokenizer;

/* Capture-all bounds (a header line, or formats that keep every cell of every row): at most
 * CSV_ALL_MAX_FIELDS cells and CSV_ALL_MAX_BYTES of buffers for one record (a buffer's growth
 * is reserved at twice the text it holds, and buffers kept from earlier records count, so
 * about 32 MiB of text); a record past
 * either is not reported but counted (csv_wide), so a line of millions of cells or a file
 * growing a different column's buffer on every row cannot hold memory without bound. Between
 * records, buffers holding more than CSV_ALL_KEEP_BYTES are freed. */
#define CSV_ALL_MAX_FIELDS 65536u
#define CSV_ALL_MAX_BYTES ((size_t)64 << 20)
#define CSV_ALL_KEEP_BYTES ((size_t)4 << 20)

/* Starts in capture-all mode (used for a header line): every field is copied. */
void csv_init(csv_tokenizer *t, size_t field_cap, csv_record_fn fn, void *user);
/* Records not reported because they passed a capture-all bound (CSV_ALL_MAX_FIELDS or
 * CSV_ALL_MAX_BYTES), and the line the first of them began on (*first_line). */
uint64_t csv_wide(const csv_tokenizer *t, uint64_t *first_line);
/* Frees the field buffers. */
void csv_free(csv_tokenizer *t);
/* From the next record on, copy only these columns. false on allocation failure. */
bool csv_capture_columns(csv_tokenizer *t, const size_t *cols, size_t n);
/* Tokenizes the next chunk (any size, any boundary), calling fn once per complete record. */
void csv_feed(csv_tokenizer *t, const uint8_t *buf, size_t n);
/* True between records (outside any quoted field, no CR waiting for its LF): where a
 * second piece of a split read may have begun. */
bool csv_at_record_start(const csv_tokenizer *t);
/* End of input: flushes a pending record (unterminated quote or missing final newline). */
void csv_finish(csv_tokenizer *t);

#endif
