/* kernel_trace_csv_pair: one read of a kernel trace CSV for two readers, from one tokenizer:
 * two kernel_trace_csv.c states, each with its own options, sink, facts and warnings (the
 * daemon's ingest: the analysis document's reading and RunMetrics', core/run_ingest).
 *
 * The first state's tokenizer is the one fed; its record callback hands every record to
 * both states, the first's handler then the second's. Each state picks its columns from the
 * header as its own read would (its own want table: `--compat seed` or not, its own sink's
 * fields and counters), on its own tokenizer, which is never fed: the pair then makes the
 * fed tokenizer capture the union, the first state's columns in their slots and the second's
 * that are not among them after them, and points the second state's slots there. Both
 * tokenizers would have cut every field at the same cap, so each state sees exactly the
 * fields, truncation flags, lines and blank or unterminated records its own read would.
 *
 * A split read: the resumed pair reads the header from the file's first bytes into both
 * states (their warnings about it unsaid, as kernel_trace_csv's resumed state does), and the
 * join moves the one tokenizer's lines on and folds each state's counts into its twin. */
#include <assert.h>
#include <stdlib.h>

#include "parsers/formats/kernel_trace_csv_state.h"
#include "parsers/tokenizers/csv_rows.h"

typedef struct kt_pair {
    unsigned magic;          /* KT_PAIR_MAGIC */
    kt_state *a, *b;         /* a: the caller's reading, its tokenizer the one fed; b: the second's */
} kt_pair;

/* Makes a's tokenizer capture b's columns too (after a's own) and moves b's slots there.
 * false on allocation failure. */
static bool adopt_columns(kt_pair *p) {
    int *map = csv_capture_union(&p->a->csv, &p->b->csv);
    if (!map) return false;
    csv_columns_remap(&p->b->cols, map);
    for (size_t q = 0; q < p->b->n_counters; q++) p->b->counter_slot[q] = map[p->b->counter_slot[q]];
    free(map);
    return true;
}

/* The fed tokenizer's callback: the record to both states; after the header, the union. */
static void pair_on_record(void *user, const csv_record *r) {
    kt_pair *p = user;
    bool header = !p->b->have_header;
    kernel_trace_csv_on_record(p->a, r);
    kernel_trace_csv_on_record(p->b, r);
    if (header && !p->b->oom && !adopt_columns(p)) p->b->oom = true;
}

static kt_pair *pair_new(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                         diag_list *diag, const record_reading *second) {
    kt_pair *p = calloc(1, sizeof *p);
    kt_state *a = kernel_trace_csv_open_state(opt, label, sink, facts, diag);
    kt_state *b = kernel_trace_csv_open_state(second->opt, second->label, second->sink, second->facts, second->diag);
    if (!p || !a || !b) {
        free(p);
        kernel_trace_csv_close_state(a);
        kernel_trace_csv_close_state(b);
        return NULL;
    }
    *p = (kt_pair){.magic = KT_PAIR_MAGIC, .a = a, .b = b};
    a->csv.on_record = pair_on_record;
    a->csv.user = p;
    return p;
}

void *kernel_trace_csv_pair_open(const parse_options *opt, const char *label, const record_sink *sink,
                                 read_facts *facts, diag_list *diag, const record_reading *second) {
    return pair_new(opt, label, sink, facts, diag, second);
}

/* As kernel_trace_csv's resumed state: the header from head (quietly), then the piece starts
 * at a record's start after a '\n'. */
void *kernel_trace_csv_pair_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                                         read_facts *facts, diag_list *diag, const record_reading *second,
                                         uint64_t offset, const uint8_t *head, size_t head_n) {
    kt_pair *p = pair_new(opt, label, sink, facts, diag, second);
    if (!p) return NULL;
    diag_list quiet;                   /* the first piece warns about the header, once */
    diag_init(&quiet);
    p->a->diag = p->b->diag = &quiet;
    for (size_t i = 0; i < head_n && !p->a->have_header && i < offset; i++) csv_feed(&p->a->csv, head + i, 1);
    p->a->diag = diag;
    p->b->diag = second->diag;
    diag_free(&quiet);
    p->a->csv.prev_cr = false;         /* the piece starts after a '\n': a pending CR was its pair */
    if (!p->a->have_header || p->a->oom || p->b->oom || !csv_at_record_start(&p->a->csv)) {
        kernel_trace_csv_pair_close(p);
        return NULL;
    }
    p->a->start_line = p->b->start_line = p->a->csv.line;
    return p;
}

bool kernel_trace_csv_pair_feed(void *st, const uint8_t *buf, size_t n) {
    kt_pair *p = st;
    csv_feed(&p->a->csv, buf, n);
    return !(p->a->oom && p->b->oom);
}

/* Both states' joins on the one tokenizer (kernel_trace_csv's kt_join, twice). */
bool kernel_trace_csv_pair_join(void *fst, void *snd) {
    kt_pair *x = fst, *y = snd;
    if (!x->a->have_header || x->a->oom || x->b->oom || y->a->oom || y->b->oom || !csv_at_record_start(&x->a->csv))
        return false;
    uint64_t delta = x->a->csv.line - y->a->start_line;
    y->a->csv.line += delta;
    y->a->csv.rec.line += delta;
    kernel_trace_csv_join_counts(x->a, y->a, delta);
    kernel_trace_csv_join_counts(x->b, y->b, delta);
    return true;
}

void kernel_trace_csv_pair_finish(void *st) {
    kt_pair *p = st;
    csv_finish_warned(&p->a->csv, p->a->label, p->a->diag, p->a->facts);
    csv_warn_wide(&p->a->csv, p->b->label, p->b->diag, p->b->facts);   /* (b read the same records) */
    if (p->a->csv.oom) p->a->oom = p->b->oom = true;   /* (both readings' fields) */
    kernel_trace_csv_report(p->a);
    kernel_trace_csv_report(p->b);
}

void kernel_trace_csv_pair_close(void *st) {
    kt_pair *p = st;
    if (!p) return;
    assert(p->magic == KT_PAIR_MAGIC);
    kernel_trace_csv_close_state(p->a);
    kernel_trace_csv_close_state(p->b);
    free(p);
}
