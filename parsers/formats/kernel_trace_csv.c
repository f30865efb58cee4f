/* kernel_trace_csv: one kernel dispatch record per CSV row.
 *
 * The duration of a row is DurationNs when the file has it, else End - Start computed
 * in 128-bit integers from the integer timestamp text (rocprofv3 ns timestamps exceed
 * 2^53, so going through double would lose nanoseconds). The format only reads: rows
 * become REC_KERNEL_DISPATCH records (name, duration, and start, end, agent, stream (else
 * queue), correlation id, pid/tid, grid and workgroup sizes, LDS/scratch bytes and VGPR/SGPR
 * counts when the sink wants them and the file has them: every rocprofv3 header generation
 * and the legacy rocprof results.csv); what they mean is analyses/summaries/kernel_stats.c's business.
 * The identity columns are not even captured unless the sink asks (RunMetrics does not), so
 * RunMetrics' read costs what it did.
 *
 * Legacy rocprof's counter columns (`rocprof --pmc`: `...,sig,obj,GPUBusy,Wavefronts` with or
 * without the DispatchNs..EndNs timestamps) become REC_COUNTER records, one per row and
 * counter (name = the column, number = the cell, named field "kernel_name"), when the sink
 * wants counters: the columns after legacy rocprof's fixed `obj` column that are neither a
 * timestamp nor a column picked above. A counter file without timestamps is read for its
 * counters; its rows then give no dispatch (their durations are unknown, said once).
 *
 * A large file can be read in two pieces (artefact_parser.join): the second starts after
 * a newline, having read the header from the file's first bytes; the join checks that the
 * first piece ended there outside any quoted field, then folds its counts in and moves
 * the second piece's line numbers on by the first piece's lines. The records of a second
 * piece carry lines counted from its start. */
#include "parsers/formats/kernel_trace_csv.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parsers/formats/kernel_trace_csv_state.h"
#include "parsers/tokenizers/csv_columns.h"
#include "parsers/tokenizers/csv_rows.h"

#define NAME_CAP (1u << 20)  /* longest kernel name kept (real ones reach ~10 KB) */
#define COUNTER_COLS_MAX KT_COUNTER_COLS_MAX

static const char *const NAME_COLS[] = {"KernelName", "Kernel_Name", "kernel_name", "Name", NULL};
static const char *const START_COLS[] = {"BeginNs", "start_ns", "BeginNS", "Start", NULL};
static const char *const END_COLS[] = {"EndNs", "end_ns", "EndNS", "End", NULL};
static const char *const DUR_COLS[] = {"DurationNs", "duration_ns", "Duration", NULL};
/* rocprofv3's identity columns, read only when a consumer wants them (record_sink.fields);
 * the legacy rocprof names (gpu-id, queue-id, grd, wgr, lds, scr, vgpr, sgpr) last */
static const char *const DEVICE_COLS[] = {"Agent_Id", "agent_id", "gpu-id", NULL};
static const char *const STREAM_COLS[] = {"Stream_Id", "stream_id", "Queue_Id", "queue_id", "queue-id", NULL};
static const char *const QUEUE_COLS[] = {"Queue_Id", "queue_id", "queue-id", NULL};
static const char *const CORR_COLS[] = {"Correlation_Id", "correlation_id", NULL};
static const char *const PID_COLS[] = {"Process_Id", "pid", NULL};
static const char *const TID_COLS[] = {"Thread_Id", "tid", NULL};
/* a single Grid_Size / Workgroup_Size (counter collection) or grd / wgr (legacy) is the x size */
static const char *const GX_COLS[] = {"Grid_Size_X", "grid_x", "Grid_Size", "grd", NULL};
static const char *const GY_COLS[] = {"Grid_Size_Y", "grid_y", NULL};
static const char *const GZ_COLS[] = {"Grid_Size_Z", "grid_z", NULL};
static const char *const WX_COLS[] = {"Workgroup_Size_X", "workgroup_x", "Workgroup_Size", "wgr", NULL};
static const char *const WY_COLS[] = {"Workgroup_Size_Y", "workgroup_y", NULL};
static const char *const WZ_COLS[] = {"Workgroup_Size_Z", "workgroup_z", NULL};
/* LDS: LDS_Block_Size (newer) or Group_Segment_Size (older headers: the group segment is the
 * LDS); scratch: Scratch_Size or Private_Segment_Size */
static const char *const LDS_COLS[] = {"LDS_Block_Size", "Group_Segment_Size", "lds_size", "lds", NULL};
static const char *const SCRATCH_COLS[] = {"Scratch_Size", "Private_Segment_Size", "scratch_size", "scr", NULL};
/* the architectural VGPRs (VGPR_Count is rocprofv3's arch count); Accum_VGPR_Count (AGPRs)
 * is never taken for it */
static const char *const VGPR_COLS[] = {"VGPR_Count", "Arch_VGPR_Count", "arch_vgpr_count", "vgpr_count", "vgpr", NULL};
static const char *const SGPR_COLS[] = {"SGPR_Count", "sgpr_count", "sgpr", NULL};
static const char *const NOT_ACCUM[] = {"accum", NULL};
/* legacy rocprof's fixed columns after `obj`: timestamps, never counters */
static const char *const LEGACY_TIMING[] = {"DispatchNs", "BeginNs", "EndNs", "CompleteNs", "DurationNs", NULL};

enum { C_NAME, C_START, C_END, C_DUR, C_TIMING_COUNT, C_DEVICE = C_TIMING_COUNT, C_STREAM, C_CORR, C_PID, C_TID,
       C_GX, C_GY, C_GZ, C_WX, C_WY, C_WZ, C_LDS, C_SCRATCH, C_VGPR, C_SGPR, C_QUEUE, C_COUNT };
#define IDENTITY_WANTS                                                                                          \
    {DEVICE_COLS, NULL, true}, {STREAM_COLS, NULL, true}, {CORR_COLS, NULL, true}, {PID_COLS, NULL, true},      \
        {TID_COLS, NULL, true}, {GX_COLS, NULL, true}, {GY_COLS, NULL, true}, {GZ_COLS, NULL, true},            \
        {WX_COLS, NULL, true}, {WY_COLS, NULL, true}, {WZ_COLS, NULL, true}, {LDS_COLS, NULL, true},            \
        {SCRATCH_COLS, NULL, true}, {VGPR_COLS, NOT_ACCUM, false}, {SGPR_COLS, NULL, true}, {QUEUE_COLS, NULL, true}
/* default: whole name tokens (SQ_INSTS_SENDMSG is no end_ns); seed: the original's substrings */
static const csv_want WANT[] = {{NAME_COLS, NULL, true}, {START_COLS, NULL, true}, {END_COLS, NULL, true},
                                       {DUR_COLS, NULL, true}, IDENTITY_WANTS};
_Static_assert(sizeof WANT / sizeof *WANT == C_COUNT, "WANT: one entry per value below C_COUNT");
static const csv_want WANT_SEED[] = {{NAME_COLS, NULL, false}, {START_COLS, NULL, false},
                                            {END_COLS, NULL, false}, {DUR_COLS, NULL, false}, IDENTITY_WANTS};
_Static_assert(sizeof WANT_SEED / sizeof *WANT_SEED == C_COUNT, "WANT_SEED: one entry per value below C_COUNT");
/* the fields that need the identity columns */
#define IDENTITY_FIELDS (RF_DEVICE | RF_STREAM | RF_CORRELATION | RF_PID_TID | RF_GRID | RF_RESOURCES)
static const char *const QUANTITY[] = {"name", "start", "end", "duration"};
_Static_assert(sizeof QUANTITY / sizeof *QUANTITY == C_TIMING_COUNT, "QUANTITY: one entry per timing column");

typedef kt_state state;   /* (kernel_trace_csv_state.h: shared with the pair state) */

/* feed, join, finish and close take a pair state too (kernel_trace_csv_pair.c): its first word */
static bool is_pair(const void *st) { return *(const unsigned *)st == KT_PAIR_MAGIC; }

static const csv_field *field(const state *s, int c, const csv_record *r) { return csv_columns_field(&s->cols, (size_t)c, r); }

/* Legacy rocprof's counter columns (see the top): those after its fixed "obj" column that are
 * neither a timestamp nor a column picked already, captured beside the picked ones (after
 * them: the picked columns keep their slots). false on allocation failure. */
static bool pick_counters(state *s, const csv_record *h) {
    size_t obj = h->n_all;
    for (size_t i = 0; i < h->n_all && obj == h->n_all; i++)
        if (h->all[i].len == 3 && !memcmp(h->all[i].data, "obj", 3)) obj = i;
    if (obj == h->n_all) return true;
    size_t cols[CSV_COLUMNS_MAX + COUNTER_COLS_MAX], n = 0;
    for (size_t w = 0; w < s->cols.n; w++)
        if (s->cols.slot[w] >= 0) {
            cols[s->cols.slot[w]] = (size_t)s->cols.col[w];
            if ((size_t)s->cols.slot[w] + 1 > n) n = (size_t)s->cols.slot[w] + 1;
        }
    size_t picked = n;
    strbuf nm = {0};
    for (size_t i = obj + 1; i < h->n_all; i++) {
        bool skip = h->all[i].len == 0;
        for (size_t k = 0; k < picked && !skip; k++) skip = cols[k] == i;
        for (size_t k = 0; LEGACY_TIMING[k] && !skip; k++)
            skip = h->all[i].len == strlen(LEGACY_TIMING[k]) && !strncasecmp(h->all[i].data, LEGACY_TIMING[k], h->all[i].len);
        if (skip) continue;
        if (s->n_counters == COUNTER_COLS_MAX) { s->counter_cols_cut++; continue; }
        nm.len = 0;
        if (!utf8_sanitize((const uint8_t *)h->all[i].data, h->all[i].len, &nm) ||
            !(s->counter_name[s->n_counters] = strndup(nm.data ? nm.data : "", nm.len))) {
            strbuf_free(&nm);
            return false;
        }
        s->counter_slot[s->n_counters++] = (int)n;
        cols[n++] = i;
    }
    strbuf_free(&nm);
    return !s->n_counters || csv_capture_columns(&s->csv, cols, n);
}

static void on_header(state *s, const csv_record *r) {
    /* the identity columns only when wanted: every captured column costs a copy per row */
    size_t want = s->fields & IDENTITY_FIELDS ? C_COUNT : C_TIMING_COUNT;
    if (!csv_columns_pick(&s->cols, &s->csv, r, s->seed_compat ? WANT_SEED : WANT, want)) s->oom = true;
    csv_columns_warn_oversized(&s->cols, s->label, (unsigned long long)r->line, s->diag);
    if (!s->oom && !s->cols.oversized && record_sink_wants(&s->sink, REC_COUNTER) && !pick_counters(s, r))
        s->oom = true;
    for (int c = 0; c < C_TIMING_COUNT; c++)
        if (!read_facts_column(s->facts, QUANTITY[c], s->cols.name[c])) s->oom = true;
    const ssize_t *col = s->cols.col;
    s->no_timing = col[C_DUR] < 0 && (col[C_START] < 0 || col[C_END] < 0);
    if (col[C_NAME] < 0)
        diag_add(s->diag, "%s: line %llu: no kernel-name column in the header", s->label,
                 (unsigned long long)r->line);
    else if (s->no_timing && s->n_counters)
        diag_add(s->diag, "%s: line %llu: no duration or start/end timestamp columns (counters collected without "
                 "timestamps): kernel durations unknown; its %zu counter columns are read", s->label,
                 (unsigned long long)r->line, s->n_counters);
    else if (s->no_timing)
        diag_add(s->diag, "%s: line %llu: no duration or start/end timestamp columns in the header",
                 s->label, (unsigned long long)r->line);
    if (s->counter_cols_cut)
        diag_add(s->diag, "%s: more than %u counter columns: %zu columns after the first %u are not read", s->label,
                 COUNTER_COLS_MAX, s->counter_cols_cut, COUNTER_COLS_MAX);
}

/* One REC_COUNTER per counter column of the row with a number (an empty cell is no value, a
 * cell that is not a number is counted and named once at the end). true when any was sent. */
static bool emit_counters(state *s, const csv_record *r, const char *kernel, size_t kernel_len) {
    record_field f = {"kernel_name", kernel, kernel_len};
    bool any = false;
    for (size_t k = 0; k < s->n_counters && !s->oom; k++) {
        const csv_field *v = &r->captured[s->counter_slot[k]];
        double x;
        if (!v->present || !v->text.len) continue;
        if (v->truncated || !py_number(v->text.data, v->text.len, &x)) {
            if (!s->counter_bad++) s->first_counter_bad_line = r->line;
            continue;
        }
        record rec = {.type = REC_COUNTER, .has = RF_VALUE, .line = r->line, .name = s->counter_name[k],
                      .name_len = strlen(s->counter_name[k]), .number = x, .fields = &f, .n_fields = 1};
        if (!record_emit(&s->sink, &rec)) { s->oom = true; return any; }
        any = true;
    }
    return any;
}

static bool nonempty(const csv_field *f) { return f && f->text.len > 0; }

/* An optional integer column of the row into *v (false when absent, empty or not an integer). */
static bool int_field(const state *s, int c, const csv_record *r, i128 *v) {
    if ((size_t)c >= s->cols.n) return false;
    const csv_field *f = field(s, c, r);
    return nonempty(f) && !f->truncated && py_integer(f->text.data, f->text.len, v);
}

/* An optional column that fits a signed 64-bit id (device, stream, pid, tid). */
static bool i64_field(const state *s, int c, const csv_record *r, int64_t *out) {
    i128 v;
    if (!int_field(s, c, r, &v) || v < INT64_MIN || v > INT64_MAX) return false;
    *out = (int64_t)v;
    return true;
}

/* An optional non-negative 32-bit column of the row (false when absent or not such a number). */
static bool u32_field(const state *s, int c, const csv_record *r, uint32_t *out) {
    i128 v;
    if (!int_field(s, c, r, &v) || v < 0 || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

/* An agent column: an integer, or "Agent 3" as rocprofv3's counter collection writes it. */
static bool agent_field(const state *s, int c, const csv_record *r, int64_t *out) {
    i128 v;
    if (i64_field(s, c, r, out)) return true;
    if ((size_t)c >= s->cols.n) return false;
    const csv_field *f = field(s, c, r);
    if (!nonempty(f) || f->truncated || f->text.len < 7 || memcmp(f->text.data, "Agent ", 6) != 0) return false;
    if (!py_integer(f->text.data + 6, f->text.len - 6, &v) || v < 0 || v > INT64_MAX) return false;
    *out = (int64_t)v;
    return true;
}

/* v as decimal text into out (room for 21 bytes and a NUL); its length. What snprintf's
 * "%lld" writes, without a vfprintf per row (~650 instructions, most of a row's cost). */
static size_t i64_text(char *out, int64_t v) {
    char tmp[24];
    size_t n = 0, k = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do { tmp[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) out[k++] = '-';
    while (n) out[k++] = tmp[--n];
    out[k] = '\0';
    return k;
}

/* The fields a consumer asked for beyond name and duration, when the row has them. A group
 * (grid and workgroup; LDS, scratch, VGPR, SGPR) is sent only whole: a bit never stands
 * for a made-up 0. A lone x size (Grid_Size, grd) is sent as {x, 1, 1}. be: the row's
 * start and end as on_row already read them from the same columns (NULL when it did not:
 * read here), so a timestamp's digits are not read twice. */
static void identity_fields(state *s, const csv_record *r, record *rec, const i128 *be) {
    i128 v;
    int64_t a;
    unsigned f = s->fields;
    if ((f & RF_START) && (be || int_field(s, C_START, r, &v))) rec->start_ns = be ? be[0] : v, rec->has |= RF_START;
    if ((f & RF_END) && (be || int_field(s, C_END, r, &v))) rec->end_ns = be ? be[1] : v, rec->has |= RF_END;
    /* an end before the start (the duration came from DurationNs): which one is wrong is
     * unknown, so neither is sent */
    if ((rec->has & RF_START) && (rec->has & RF_END) && rec->end_ns < rec->start_ns) rec->has &= ~(unsigned)(RF_START | RF_END);
    if ((f & RF_DEVICE) && agent_field(s, C_DEVICE, r, &a)) rec->device = a, rec->has |= RF_DEVICE;
    if ((f & RF_STREAM) && i64_field(s, C_STREAM, r, &a)) rec->stream = a, rec->has |= RF_STREAM;
    /* with a Stream_Id, the HSA queue too, as the named field "queue_id" (the number, in text) */
    if ((f & RF_STREAM) && s->cols.col[C_QUEUE] >= 0 && s->cols.col[C_QUEUE] != s->cols.col[C_STREAM] &&
        i64_field(s, C_QUEUE, r, &a)) {
        size_t k = i64_text(s->queue_text, a);
        s->queue_field = (record_field){"queue_id", s->queue_text, k};
        rec->fields = &s->queue_field;
        rec->n_fields = 1;
    }
    if ((f & RF_CORRELATION) && int_field(s, C_CORR, r, &v) && v >= 0 && v <= (i128)UINT64_MAX)
        rec->correlation_id = (uint64_t)v, rec->has |= RF_CORRELATION;
    int64_t p, t;
    if ((f & RF_PID_TID) && i64_field(s, C_PID, r, &p) && i64_field(s, C_TID, r, &t))
        rec->pid = p, rec->tid = t, rec->has |= RF_PID_TID;
    if ((f & RF_GRID) && u32_field(s, C_GX, r, &rec->grid[0]) && u32_field(s, C_WX, r, &rec->workgroup[0])) {
        bool yz = s->cols.col[C_GY] >= 0 || s->cols.col[C_GZ] >= 0 || s->cols.col[C_WY] >= 0 || s->cols.col[C_WZ] >= 0;
        if (!yz) {
            rec->grid[1] = rec->grid[2] = rec->workgroup[1] = rec->workgroup[2] = 1;
            rec->has |= RF_GRID;
        } else if (u32_field(s, C_GY, r, &rec->grid[1]) && u32_field(s, C_GZ, r, &rec->grid[2]) &&
                   u32_field(s, C_WY, r, &rec->workgroup[1]) && u32_field(s, C_WZ, r, &rec->workgroup[2])) {
            rec->has |= RF_GRID;
        }
    }
    if ((f & RF_RESOURCES) && u32_field(s, C_LDS, r, &rec->lds_bytes) && u32_field(s, C_SCRATCH, r, &rec->scratch_bytes) &&
        u32_field(s, C_VGPR, r, &rec->vgpr) && u32_field(s, C_SGPR, r, &rec->sgpr))
        rec->has |= RF_RESOURCES;
}

static void on_row(state *s, const csv_record *r) {
    s->records++;
    const csv_field *fn = field(s, C_NAME, r);
    if (!fn || fn->text.len == 0) { s->no_name++; return; }
    const char *name = fn->text.data;      /* valid UTF-8 (nearly every name): the field's own */
    size_t len = fn->text.len;             /* bytes, no copy (they live until this returns) */
    if (!utf8_valid((const uint8_t *)name, len)) {
        s->name.len = 0;
        if (!utf8_sanitize((const uint8_t *)fn->text.data, fn->text.len, &s->name)) { s->oom = true; return; }
        name = s->name.data;
        len = s->name.len;
    }
    utf8_strip(&name, &len);
    if (len == 0) { s->no_name++; return; }
    if (fn->truncated) s->truncated_names++;
    bool counted = s->n_counters && emit_counters(s, r, name, len);
    if (s->oom) return;
    i128 ns = 0, be[2] = {0, 0};
    bool timing_ok = false, have_be = false;
    const csv_field *fd = field(s, C_DUR, r);
    if (nonempty(fd)) {
        double d;
        if (!fd->truncated && py_number(fd->text.data, fd->text.len, &d)) { ns = py_trunc(d); timing_ok = true; }
    } else {
        const csv_field *fb = field(s, C_START, r), *fe = field(s, C_END, r);
        if (s->cols.col[C_START] >= 0 && s->cols.col[C_END] >= 0 && nonempty(fb) && nonempty(fe)) {
            i128 b, e;
            if (!fb->truncated && !fe->truncated && py_integer(fb->text.data, fb->text.len, &b) &&
                py_integer(fe->text.data, fe->text.len, &e)) {
                ns = i128_sub(e, b);
                timing_ok = have_be = true;
                be[0] = b, be[1] = e;
                if (b == 0 && e > 0 && !s->zero_start++) s->first_zero_start_line = r->line;
            }
        }
    }
    if (!timing_ok) {
        /* a counter-only file's rows are used for their counters; its missing timestamps were
         * said once, at the header */
        if (counted && s->no_timing) { s->counter_rows++; return; }
        if (!s->bad_timing++) s->first_bad_line = r->line;
        return;
    }
    if (ns <= 0) {
        if (!s->nonpositive++) s->first_nonpositive_line = r->line;
        return;
    }
    record rec = {.type = REC_KERNEL_DISPATCH, .has = RF_DURATION, .line = r->line, .duration_ns = ns,
                  .name = name, .name_len = len};
    if (s->fields) identity_fields(s, r, &rec, have_be ? be : NULL);
    if (!record_emit(&s->sink, &rec)) { s->oom = true; return; }
    if (s->rows_seen && !s->emitted) *s->rows_seen = true;
    s->emitted++;
}

/* The tokenizer's callback: the header first (DictReader's), then the rows. */
void kernel_trace_csv_on_record(void *user, const csv_record *r) {
    state *s = user;
    if (s->oom) return;
    if (!s->have_header) {              /* DictReader: the first record, even blank, is the header */
        s->have_header = true;
        on_header(s, r);
        return;
    }
    if (r->n_fields == 0) return;
    if (r->unterminated) {
        s->facts->truncated = true;
        diag_add(s->diag, "%s: line %llu: last record ends inside a quoted field (file truncated?)",
                 s->label, (unsigned long long)r->line);
    }
    on_row(s, r);
}

/* Defined below: kt_open_resumed starts as kt_open does. */
static void *kt_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag);

/* The first byte after a newline: a record starts there unless the newline was inside a
 * quoted field, which the join finds out. */
static size_t kt_resume_point(const uint8_t *buf, size_t n) {
    const uint8_t *nl = memchr(buf, '\n', n);
    return nl && (size_t)(nl - buf) + 1 < n ? (size_t)(nl - buf) + 1 : n;
}

static void kt_close(void *st);

static void *kt_open_resumed(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                             diag_list *diag, uint64_t offset, const uint8_t *head, size_t head_n) {
    state *s = kt_open(opt, label, sink, facts, diag);
    if (!s) return NULL;
    diag_list quiet;                   /* the first piece warns about the header, once */
    diag_init(&quiet);
    s->diag = &quiet;
    for (size_t i = 0; i < head_n && !s->have_header && i < offset; i++) csv_feed(&s->csv, head + i, 1);
    s->diag = diag;
    diag_free(&quiet);
    s->csv.prev_cr = false;            /* the piece starts after a '\n': a pending CR was its pair */
    if (!s->have_header || s->oom || !csv_at_record_start(&s->csv)) { kt_close(s); return NULL; }
    s->start_line = s->csv.line;
    return s;
}

/* A first-line number of the second piece, counted from the file's start. */
static uint64_t moved(uint64_t line, uint64_t delta) { return line ? line + delta : 0; }

static bool kt_join(void *fst, void *snd) {
    if (is_pair(fst) || is_pair(snd)) return is_pair(fst) && is_pair(snd) && kernel_trace_csv_pair_join(fst, snd);
    state *a = fst, *b = snd;
    if (!a->have_header || a->oom || b->oom || !csv_at_record_start(&a->csv)) return false;
    uint64_t delta = a->csv.line - b->start_line;
    b->csv.line += delta;
    b->csv.rec.line += delta;
    kernel_trace_csv_join_counts(a, b, delta);
    return true;
}

void kernel_trace_csv_join_counts(kt_state *a, kt_state *b, uint64_t delta) {
    b->first_bad_line = a->bad_timing ? a->first_bad_line : moved(b->first_bad_line, delta);
    b->first_nonpositive_line = a->nonpositive ? a->first_nonpositive_line : moved(b->first_nonpositive_line, delta);
    b->first_zero_start_line = a->zero_start ? a->first_zero_start_line : moved(b->first_zero_start_line, delta);
    b->first_counter_bad_line = a->counter_bad ? a->first_counter_bad_line : moved(b->first_counter_bad_line, delta);
    b->counter_rows += a->counter_rows;
    b->counter_bad += a->counter_bad;
    b->records += a->records;
    b->bad_timing += a->bad_timing;
    b->nonpositive += a->nonpositive;
    b->truncated_names += a->truncated_names;
    b->no_name += a->no_name;
    b->zero_start += a->zero_start;
    b->emitted += a->emitted;
    b->facts = a->facts;               /* the columns the first piece recorded stand */
}

kt_state *kernel_trace_csv_open_state(const parse_options *opt, const char *label, const record_sink *sink,
                                      read_facts *facts, diag_list *diag) {
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = KT_MAGIC;
    s->seed_compat = opt->seed_compat;
    s->rows_seen = opt->kernel_rows_seen;
    s->sink = *sink;
    s->fields = sink->fields & (RF_START | RF_END | IDENTITY_FIELDS);
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    csv_init(&s->csv, NAME_CAP, kernel_trace_csv_on_record, s);
    return s;
}

static void *kt_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    return kernel_trace_csv_open_state(opt, label, sink, facts, diag);
}

static bool kt_feed(void *st, const uint8_t *buf, size_t n) {
    if (is_pair(st)) return kernel_trace_csv_pair_feed(st, buf, n);
    state *s = st;
    csv_feed(&s->csv, buf, n);
    return !s->oom;
}

/* The timing columns chosen, for warnings: "column 'DurationNs'" or "columns 'Start'/'End'". */
static void timing_columns(const state *s, char *out, size_t cap) {
    char *const *nm = s->cols.name;
    if (nm[C_DUR] && nm[C_START] && nm[C_END])
        snprintf(out, cap, "column '%.120s' (else '%.120s'/'%.120s')", nm[C_DUR], nm[C_START], nm[C_END]);
    else if (nm[C_DUR]) snprintf(out, cap, "column '%.120s'", nm[C_DUR]);
    else if (nm[C_START] && nm[C_END]) snprintf(out, cap, "columns '%.120s'/'%.120s'", nm[C_START], nm[C_END]);
    else snprintf(out, cap, "no timing column");
}

static void kt_finish(void *st) {
    if (is_pair(st)) { kernel_trace_csv_pair_finish(st); return; }
    state *s = st;
    csv_finish_warned(&s->csv, s->label, s->diag, s->facts);
    if (s->csv.oom) s->oom = true;
    kernel_trace_csv_report(s);
}

void kernel_trace_csv_report(kt_state *s) {
    if (!s->have_header) diag_add(s->diag, "%s: empty kernel trace (no header line)", s->label);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; kernel statistics are partial", s->label);
    char timing[512];
    timing_columns(s, timing, sizeof timing);
    if (s->bad_timing)
        diag_add(s->diag, "%s: %llu rows without a usable duration or timestamps in %s (first at line %llu)",
                 s->label, (unsigned long long)s->bad_timing, timing, (unsigned long long)s->first_bad_line);
    if (s->nonpositive)
        diag_add(s->diag, "%s: %llu rows with zero or negative duration in %s ignored (first at line %llu)",
                 s->label, (unsigned long long)s->nonpositive, timing, (unsigned long long)s->first_nonpositive_line);
    /* counted as the reference counts them, but a duration from the clock's epoch is not real */
    if (s->zero_start)
        diag_add(s->diag, "%s: %llu rows with a zero start timestamp in %s (first at line %llu): their durations "
                 "run from the clock's epoch and inflate the kernel totals", s->label,
                 (unsigned long long)s->zero_start, timing, (unsigned long long)s->first_zero_start_line);
    if (s->counter_bad)
        diag_add(s->diag, "%s: %llu counter cells are not numbers; not counted (first at line %llu)", s->label,
                 (unsigned long long)s->counter_bad, (unsigned long long)s->first_counter_bad_line);
    read_facts *f = s->facts;
    f->rows_used = s->emitted + s->counter_rows;
    read_facts_skip(f, "no kernel name", s->no_name);
    read_facts_skip(f, "no usable duration or timestamps", s->bad_timing);
    read_facts_skip(f, "zero or negative duration", s->nonpositive);
    if (s->truncated_names)
        diag_add(s->diag, "%s: %llu kernel names longer than %u bytes were cut", s->label,
                 (unsigned long long)s->truncated_names, NAME_CAP);
}

static void kt_close(void *st) {
    if (st && is_pair(st)) kernel_trace_csv_pair_close(st);
    else kernel_trace_csv_close_state(st);
}

void kernel_trace_csv_close_state(kt_state *s) {
    if (!s) return;
    assert(s->magic == KT_MAGIC);
    csv_free(&s->csv);
    csv_columns_free(&s->cols);
    strbuf_free(&s->name);
    for (size_t k = 0; k < s->n_counters; k++) free(s->counter_name[k]);
    free(s);
}

/* goblin_runner's trace.csv, else rocprofv3's own names, here or in its <host>/ directory */
static const char *const KT_NAMES[] = {"trace.csv", "*kernel_trace.csv", "*/*kernel_trace.csv", NULL};

/* Whether the header line (the first) has a field that is exactly `word` (blanks and quotes
 * aside, ASCII case-insensitively). */
static bool header_field_is(const uint8_t *head, size_t n, const char *word) {
    size_t wl = strlen(word), i = 0;
    while (i < n && head[i] != '\n' && head[i] != '\r') {
        size_t a = i;
        while (i < n && head[i] != ',' && head[i] != '\n' && head[i] != '\r') i++;
        size_t b = i;
        while (a < b && (head[a] == ' ' || head[a] == '"' || head[a] == '\t')) a++;
        while (b > a && (head[b - 1] == ' ' || head[b - 1] == '"' || head[b - 1] == '\t')) b--;
        if (b - a == wl && !strncasecmp((const char *)head + a, word, wl)) return true;
        if (i < n && head[i] == ',') i++;
    }
    return false;
}

/* A CSV whose header names a kernel column is surely one (90); a header with a plain `Name`
 * field and a start, begin or duration column may be one (55: below the formats whose
 * headers say more, stats reports, nsys and nvprof traces, msprof tables); any other CSV is
 * not (10 for the name alone, below what the inventory accepts). */
static int kt_sniff(const char *name, const uint8_t *head, size_t n) {
    /* rocprofv3's counter_collection.csv names the kernel too, but its rows are counters */
    if (csv_head_has(head, n, "counter_name")) return csv_name_is_csv(name) ? 10 : 0;
    if (csv_head_has(head, n, "kernel_name") || csv_head_has(head, n, "kernelname")) return 90;
    if (header_field_is(head, n, "name") &&
        (csv_first_line_has(head, n, "start") || csv_first_line_has(head, n, "begin") ||
         csv_first_line_has(head, n, "duration")))
        return 55;
    return csv_name_is_csv(name) ? 10 : 0;
}

const artefact_parser kernel_trace_csv_parser = {
    .name = "kernel-trace-csv",
    .family = "rocprofv3",
    .kind = ARTEFACT_KERNEL_TRACE,
    .names = KT_NAMES,
    .sniff = kt_sniff,
    .open_records = kt_open,
    .resume_point = kt_resume_point,
    .open_records_resumed = kt_open_resumed,
    .open_records_pair = kernel_trace_csv_pair_open,
    .open_records_pair_resumed = kernel_trace_csv_pair_open_resumed,
    .join = kt_join,
    .feed = kt_feed,
    .finish = kt_finish,
    .close = kt_close,
};

/* Legacy rocprof's results.csv (kernel rows with BeginNs/EndNs, gpu-id, queue-id, grd, wgr,
 * lds, scr, vgpr, sgpr), read the same way. A format of its own, analysis only: RunMetrics'
 * discovery keeps its names (the reference reads trace.csv only), while the analysis
 * document finds a legacy rocprof output directory by its own file name. */
static const char *const LEGACY_NAMES[] = {"results.csv", "*/results.csv", NULL};

static int legacy_sniff(const char *name, const uint8_t *head, size_t n) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    bool by_head = csv_head_has(head, n, "KernelName") && csv_head_has(head, n, "BeginNs");
    bool by_name = strcmp(base, "results.csv") == 0;
    /* the same content score as kernel-trace-csv's (the same reader): the name decides */
    return by_head ? 90 : by_name ? 30 : 0;
}

const artefact_parser legacy_rocprof_csv_parser = {
    .name = "rocprof-legacy-results-csv",
    .family = "rocprof",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .kernels = KERNELS_DEVICE_CLOCK,
    .names = LEGACY_NAMES,
    .sniff = legacy_sniff,
    .open_records = kt_open,
    .resume_point = kt_resume_point,
    .open_records_resumed = kt_open_resumed,
    .join = kt_join,
    .feed = kt_feed,
    .finish = kt_finish,
    .close = kt_close,
};
