/* kernel_trace_csv: one kernel dispatch per CSV row, folded into a kernel_table.
 *
 * The duration of a row is DurationNs when the file has it, else End - Start computed
 * in 128-bit integers from the integer timestamp text (rocprofv3 ns timestamps exceed
 * 2^53, so going through double would lose nanoseconds). */
#include "parsers/kernel_trace_csv.h"

#include <stdlib.h>
#include <string.h>

#include "parsers/column_pick.h"
#include "parsers/csv_tokenizer.h"

#define NAME_CAP (1u << 20)  /* longest kernel name kept (real ones reach ~10 KB) */

static const char *const NAME_COLS[] = {"KernelName", "Kernel_Name", "kernel_name", "Name", NULL};
static const char *const START_COLS[] = {"BeginNs", "start_ns", "BeginNS", "Start", NULL};
static const char *const END_COLS[] = {"EndNs", "end_ns", "EndNS", "End", NULL};
static const char *const DUR_COLS[] = {"DurationNs", "duration_ns", "Duration", NULL};

enum { C_NAME, C_START, C_END, C_DUR, C_COUNT };

typedef struct state {
    csv_tokenizer csv;
    kernel_summary *out;
    diag_list *diag;
    const char *label;
    bool have_header;
    ssize_t col[C_COUNT];
    int slot[C_COUNT];                 /* capture slot of each column, -1 when absent */
    strbuf name;                       /* scratch: sanitised name */
    uint64_t records, bad_timing, nonpositive, truncated_names;
    uint64_t first_bad_line, first_nonpositive_line;
    bool oom;
} state;

static const csv_field *field(const state *s, int c, const csv_record *r) {
    if (s->slot[c] < 0) return NULL;
    const csv_field *f = &r->captured[s->slot[c]];
    return f->present ? f : NULL;
}

static void on_header(state *s, const csv_record *r) {
    strbuf *names = calloc(r->n_all ? r->n_all : 1, sizeof *names);
    if (!names) { s->oom = true; return; }
    for (size_t i = 0; i < r->n_all; i++)
        utf8_sanitize((const uint8_t *)(r->all[i].data ? r->all[i].data : ""), r->all[i].len, &names[i]);
    s->col[C_NAME] = column_pick(names, r->n_all, NAME_COLS, NULL);
    s->col[C_START] = column_pick(names, r->n_all, START_COLS, NULL);
    s->col[C_END] = column_pick(names, r->n_all, END_COLS, NULL);
    s->col[C_DUR] = column_pick(names, r->n_all, DUR_COLS, NULL);
    for (size_t i = 0; i < r->n_all; i++) strbuf_free(&names[i]);
    free(names);
    size_t cols[C_COUNT], n = 0;
    for (int c = 0; c < C_COUNT; c++) {
        s->slot[c] = -1;
        if (s->col[c] < 0) continue;
        for (size_t k = 0; k < n; k++) if (cols[k] == (size_t)s->col[c]) s->slot[c] = (int)k;
        if (s->slot[c] < 0) { s->slot[c] = (int)n; cols[n++] = (size_t)s->col[c]; }
    }
    if (!csv_capture_columns(&s->csv, cols, n)) s->oom = true;
    if (s->col[C_NAME] < 0)
        diag_add(s->diag, "%s: line %llu: no kernel-name column in the header", s->label,
                 (unsigned long long)r->line);
    else if (s->col[C_DUR] < 0 && (s->col[C_START] < 0 || s->col[C_END] < 0))
        diag_add(s->diag, "%s: line %llu: no duration or start/end timestamp columns in the header",
                 s->label, (unsigned long long)r->line);
}

static bool nonempty(const csv_field *f) { return f && f->text.len > 0; }

static void on_row(state *s, const csv_record *r) {
    s->records++;
    const csv_field *fn = field(s, C_NAME, r);
    if (!fn || fn->text.len == 0) return;
    s->name.len = 0;
    if (!utf8_sanitize((const uint8_t *)fn->text.data, fn->text.len, &s->name)) { s->oom = true; return; }
    const char *name = s->name.data;
    size_t len = s->name.len;
    py_strip(&name, &len);
    if (len == 0) return;
    if (fn->truncated) s->truncated_names++;
    i128 ns = 0;
    bool timing_ok = false;
    const csv_field *fd = field(s, C_DUR, r);
    if (nonempty(fd)) {
        double d;
        if (!fd->truncated && py_number(fd->text.data, fd->text.len, &d)) { ns = py_trunc(d); timing_ok = true; }
    } else {
        const csv_field *fb = field(s, C_START, r), *fe = field(s, C_END, r);
        if (s->col[C_START] >= 0 && s->col[C_END] >= 0 && nonempty(fb) && nonempty(fe)) {
            i128 b, e;
            if (!fb->truncated && !fe->truncated && py_integer(fb->text.data, fb->text.len, &b) &&
                py_integer(fe->text.data, fe->text.len, &e)) {
                ns = i128_sub(e, b);
                timing_ok = true;
            }
        }
    }
    if (!timing_ok) {
        if (!s->bad_timing++) s->first_bad_line = r->line;
        return;
    }
    if (ns <= 0) {
        if (!s->nonpositive++) s->first_nonpositive_line = r->line;
        return;
    }
    if (!kernel_table_add(&s->out->kernels, name, len, ns)) s->oom = true;
}

static void on_record(void *user, const csv_record *r) {
    state *s = user;
    if (s->oom) return;
    if (!s->have_header) {              /* DictReader: the first record, even blank, is the header */
        s->have_header = true;
        on_header(s, r);
        return;
    }
    if (r->n_fields == 0) return;
    if (r->unterminated) {
        s->out->complete = false;
        diag_add(s->diag, "%s: line %llu: last record ends inside a quoted field (file truncated?)",
                 s->label, (unsigned long long)r->line);
    }
    on_row(s, r);
}

static void *kt_open(const parse_options *opt, const char *label, void *out, diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->out = out;
    s->diag = diag;
    s->label = label;
    for (int c = 0; c < C_COUNT; c++) { s->col[c] = -1; s->slot[c] = -1; }
    kernel_table_init(&s->out->kernels);
    s->out->complete = true;
    csv_init(&s->csv, NAME_CAP, on_record, s);
    return s;
}

static bool kt_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    csv_feed(&s->csv, buf, n);
    return !s->oom;
}

static void kt_finish(void *st) {
    state *s = st;
    csv_finish(&s->csv);
    if (!s->have_header) diag_add(s->diag, "%s: empty kernel trace (no header line)", s->label);
    if (s->oom) diag_add(s->diag, "%s: out of memory; kernel statistics are partial", s->label);
    if (s->bad_timing)
        diag_add(s->diag, "%s: %llu rows without a usable duration or timestamps (first at line %llu)",
                 s->label, (unsigned long long)s->bad_timing, (unsigned long long)s->first_bad_line);
    if (s->nonpositive)
        diag_add(s->diag, "%s: %llu rows with zero or negative duration ignored (first at line %llu)",
                 s->label, (unsigned long long)s->nonpositive, (unsigned long long)s->first_nonpositive_line);
    if (s->out->kernels.overflow.dispatches)
        diag_add(s->diag, "%s: more than %u distinct kernel names (or %u MiB of names): %llu dispatches of further "
                 "names count in every total but are not listed by name", s->label, KT_MAX_NAMES, KT_MAX_NAME_BYTES >> 20,
                 (unsigned long long)s->out->kernels.overflow.dispatches);
    if (s->truncated_names)
        diag_add(s->diag, "%s: %llu kernel names longer than %u bytes were cut", s->label,
                 (unsigned long long)s->truncated_names, NAME_CAP);
}

static void kt_close(void *st) {
    state *s = st;
    if (!s) return;
    csv_free(&s->csv);
    strbuf_free(&s->name);
    free(s);
}

static bool kt_sniff(const char *name, const uint8_t *head, size_t n) {
    (void)head; (void)n;
    size_t l = strlen(name);
    return l >= 4 && strcmp(name + l - 4, ".csv") == 0;
}

const artefact_parser kernel_trace_csv_parser = {
    .name = "kernel-trace-csv",
    .kind = ARTEFACT_KERNEL_TRACE,
    .sniff = kt_sniff,
    .open = kt_open,
    .feed = kt_feed,
    .finish = kt_finish,
    .close = kt_close,
};
