/* msprof_csv: Ascend operator tables as REC_NPU_OP records, two formats on one reader.
 *
 *   msprof-op-csv         msprof's op_summary_*.csv and torch_npu's kernel_details.csv: one
 *                         row per operator task, its duration in `Task Duration(us)`
 *                         (`Duration(us)` in kernel_details.csv).
 *   msprof-reference-csv  reference durations, reference/<anything>.csv: one row per
 *                         operator signature, its duration in `Average Duration(us)` (older
 *                         references: `MicroBench Duration(us)`, used when Average is absent);
 *                         records carry category "reference"; a `Profiling Average
 *                         Duration(us)` cell rides along as the field profiling_average_us.
 *
 * Both have the signature columns (Input Shapes, Input Data Types, Input Formats, Output
 * Shapes, Output Data Types). Every row becomes one record: name = the operator type
 * (`OP Type` / `Type`; a reference file without a type column is named by its file name),
 * duration_ns = the decimal microseconds converted exactly (fixed point, rounded to the
 * nearest ns, ties away from zero), fields = the signature columns under snake_case keys,
 * the identity columns (op_name, task_type, task_id, stream_id, model_id, block_num,
 * mix_block_num) and every counter column under its own name (msprof's PMU columns are the
 * lower-case ones: aicore_time(us), aic_*, aiv_*, cube_utilization(%), total_cycles ...).
 *
 * msprof's quirks are cleaned here so analyses see plain text: surrounding blanks and the
 * trailing TAB msprof appends to times, the extra quotes around shapes (`"""4096,512"""`
 * reads as `"4096,512"` through CSV and loses one more pair here), "N/A" and empty cells
 * (left out: unknown), Model ID 4294967295 ("no model": left out), and the two column
 * generations Block Dim / Block Num (both become block_num). A row without an operator
 * type or a readable duration, or with a cell of 64 KiB or more (which the tokenizer may
 * have cut: a cut shape would be a wrong signature), is skipped, counted, and the first one
 * is named by line. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parsers/formats/msprof_csv.h"

#include "base/text_utf8.h"

#include "parsers/tokenizers/csv_columns.h"
#include "parsers/tokenizers/csv_rows.h"
#include "parsers/tokenizers/csv_tokenizer.h"

#define FIELD_CAP 65536u       /* a cell this long may have been cut: its row is skipped */
#define MAX_FIELDS 96u

/* A header column's role. */
typedef enum { ROLE_SKIP, ROLE_TYPE, ROLE_DURATION, ROLE_START, ROLE_DEVICE, ROLE_STREAM, ROLE_FIELD } col_role;

typedef struct column {
    col_role role;
    const char *key;         /* ROLE_FIELD (and stream): the record_field key */
    char *own_key;           /* counter columns: the header text, owned */
    bool model_id;           /* 4294967295 means "no model" */
} column;

typedef struct state {
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    bool reference;          /* msprof-reference-csv */
    csv_tokenizer csv;
    bool header_done, oom;
    column *cols;
    size_t n_cols;
    bool have_type, have_duration;
    char *type_from_name;    /* reference file without a type column: its base name */
    uint64_t rows, skipped_type, skipped_duration, skipped_long, skipped_utf8, first_bad_line;
    uint64_t fields_cut;     /* rows with more than MAX_FIELDS field cells: the rest not passed on */
    const char *first_bad_reason;
} state;

/* Signature and identity columns: header text -> field key (both column generations). */
static const struct { const char *header, *key; } NAMED[] = {
    {"Input Shapes", "input_shapes"},   {"Input Data Types", "input_data_types"},
    {"Input Formats", "input_formats"}, {"Output Shapes", "output_shapes"},
    {"Output Data Types", "output_data_types"}, {"Output Formats", "output_formats"},
    {"Op Name", "op_name"},             {"Name", "op_name"},
    {"Task Type", "task_type"},         {"Accelerator Core", "task_type"},
    {"Task ID", "task_id"},             {"Model ID", "model_id"},
    {"Block Dim", "block_num"},         {"Block Num", "block_num"},
    {"Mix Block Dim", "mix_block_num"}, {"Mix Block Num", "mix_block_num"},
    {"OP State", "op_state"},           {"Step Id", "step_id"},
    {"Task Wait Time(us)", "wait_us"},  {"Wait Time(us)", "wait_us"},
    {"Context ID", "context_id"},       {"HF32 Eligible", "hf32_eligible"},
};

/* Strips blanks (TAB included) and surrounding double quotes, repeatedly: the cell's text. */
static void clean_cell(const char **p, size_t *n) {
    for (;;) {
        size_t before = *n;
        while (*n && ((*p)[0] == ' ' || (*p)[0] == '\t' || (*p)[0] == '\r' || (*p)[0] == '\n')) (*p)++, (*n)--;
        while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t' || (*p)[*n - 1] == '\r' || (*p)[*n - 1] == '\n')) (*n)--;
        if (*n >= 2 && (*p)[0] == '"' && (*p)[*n - 1] == '"') (*p)++, *n -= 2;
        if (*n == before) return;
    }
}

static bool is_unknown(const char *p, size_t n) {
    return n == 0 || (n == 3 && !strncasecmp(p, "N/A", 3)) || (n == 2 && !strncasecmp(p, "NA", 2)) ||
           (n == 4 && !strncasecmp(p, "None", 4));
}

/* Decimal microseconds ("185.504", "12", "0.0005") to integer ns, rounded to nearest (ties
 * away from zero) on the digits alone, never through a double. false: not a plain
 * non-negative decimal. */
bool msprof_us_to_ns(const char *p, size_t n, i128 *out) {
    if (n && p[0] == '+') p++, n--;
    if (!n) return false;
    i128 v = 0;
    size_t i = 0, digits = 0;
    const i128 cap = INT64_MAX / 1000;   /* past it no time in ns fits 64 bits: refused, never wrapped */
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
        v = v * 10 + (p[i] - '0');
        if (v > cap) return false;
    }
    v *= 1000;
    if (i < n && p[i] == '.') {
        i++;
        i128 scale = 100;
        bool round_up = false;
        for (size_t k = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++, k++, digits++) {
            if (k < 3) { v += (p[i] - '0') * scale; scale /= 10; }
            else if (k == 3) round_up = p[i] >= '5';
        }
        if (round_up) v += 1;
    }
    if (i != n || digits == 0 || v > INT64_MAX) return false;   /* (the fraction's rounding too) */
    *out = v;
    return true;
}

static bool emit_or_oom(state *s, const record *r) {
    if (!record_emit(&s->sink, r)) { s->oom = true; return false; }
    return true;
}

static void on_header(state *s, const csv_record *r) {
    s->cols = calloc(r->n_all ? r->n_all : 1, sizeof *s->cols);
    if (!s->cols) { s->oom = true; return; }     /* (n_cols stays 0: nothing to free) */
    s->n_cols = r->n_all;
    size_t legacy = SIZE_MAX;          /* a reference's legacy `MicroBench Duration(us)` column */
    for (size_t i = 0; i < r->n_all; i++) {
        const char *h = r->all[i].data ? r->all[i].data : "";
        size_t hl = r->all[i].len;
        clean_cell(&h, &hl);
        char buf[128];
        if (hl >= sizeof buf) continue;
        memcpy(buf, h, hl);
        buf[hl] = 0;
        column *c = &s->cols[i];
        if (!strcmp(buf, "OP Type") || !strcmp(buf, "Type") || !strcmp(buf, "Op Type")) {
            if (!s->have_type) c->role = ROLE_TYPE, s->have_type = true;
            continue;
        }
        bool dur = s->reference ? !strcmp(buf, "Average Duration(us)")
                                : (!strcmp(buf, "Task Duration(us)") || !strcmp(buf, "Duration(us)"));
        if (s->reference && !strcmp(buf, "Profiling Average Duration(us)")) {   /* the original tool's comparison */
            c->role = ROLE_FIELD;
            c->key = "profiling_average_us";
            continue;
        }
        if (s->reference && !strcmp(buf, "MicroBench Duration(us)")) {
            if (legacy == SIZE_MAX) legacy = i;
            continue;
        }
        if (dur) {
            if (!s->have_duration) {
                c->role = ROLE_DURATION;
                s->have_duration = true;
                read_facts_column(s->facts, "duration", buf);
            }
            continue;
        }
        if (!strcmp(buf, "Task Start Time(us)") || !strcmp(buf, "Start Time(us)") || !strcmp(buf, "Task Start Time")) {
            c->role = ROLE_START;
            continue;
        }
        if (!strcmp(buf, "Device_id") || !strcmp(buf, "Device ID")) { c->role = ROLE_DEVICE; continue; }
        if (!strcmp(buf, "Stream ID")) { c->role = ROLE_STREAM; c->key = "stream_id"; continue; }
        for (size_t k = 0; k < sizeof NAMED / sizeof NAMED[0]; k++)
            if (!strcmp(buf, NAMED[k].header)) {
                c->role = ROLE_FIELD;
                c->key = NAMED[k].key;
                c->model_id = !strcmp(NAMED[k].key, "model_id");
                break;
            }
        /* a PMU counter column (its header, a valid UTF-8 name, becomes the field's key) */
        if (c->role == ROLE_SKIP && hl && buf[0] >= 'a' && buf[0] <= 'z' && utf8_valid((const uint8_t *)buf, hl)) {
            c->own_key = strdup(buf);
            if (!c->own_key) { s->oom = true; return; }
            c->role = ROLE_FIELD;
            c->key = c->own_key;
        }
    }
    if (!s->have_duration && legacy != SIZE_MAX) {      /* older references: the one duration they have */
        s->cols[legacy].role = ROLE_DURATION;
        s->have_duration = true;
        read_facts_column(s->facts, "duration", "MicroBench Duration(us)");
    }
    if (!s->have_duration)
        diag_add(s->diag, "%s: line %llu: header has no %s column; no operator is read", s->label,
                 (unsigned long long)r->line,
                 s->reference ? "'Average Duration(us)' or 'MicroBench Duration(us)'" : "'Task Duration(us)' or 'Duration(us)'");
    if (!s->have_type && !s->type_from_name)
        diag_add(s->diag, "%s: line %llu: header has no 'OP Type' or 'Type' column; no operator is read", s->label,
                 (unsigned long long)r->line);
}

static void skip_row(state *s, uint64_t line, const char *reason, uint64_t *counter) {
    (*counter)++;
    if (!s->first_bad_reason) { s->first_bad_reason = reason; s->first_bad_line = line; }
}

static void on_record(void *user, const csv_record *r) {
    state *s = user;
    if (s->oom) return;
    if (!s->header_done) { s->header_done = true; on_header(s, r); return; }
    if (r->n_fields == 0 || !s->have_duration || (!s->have_type && !s->type_from_name)) return;
    record rec = {.type = REC_NPU_OP, .line = r->line};
    record_field fields[MAX_FIELDS];
    size_t nf = 0;
    bool have_dur = false, cut = false;
    if (s->type_from_name) rec.name = s->type_from_name, rec.name_len = strlen(s->type_from_name);
    for (size_t i = 0; i < r->n_all && i < s->n_cols; i++) {
        column *c = &s->cols[i];
        if (c->role == ROLE_SKIP) continue;
        const char *p = r->all[i].data ? r->all[i].data : "";
        size_t n = r->all[i].len;
        if (n >= FIELD_CAP) { skip_row(s, r->line, "a cell of 64 KiB or more (cut)", &s->skipped_long); return; }
        clean_cell(&p, &n);
        if (is_unknown(p, n)) continue;
        if (!utf8_valid((const uint8_t *)p, n)) {   /* msprof writes UTF-8: a row that is not is not read */
            skip_row(s, r->line, "a cell not valid UTF-8", &s->skipped_utf8);
            return;
        }
        switch (c->role) {
        case ROLE_TYPE: rec.name = p; rec.name_len = n; break;
        case ROLE_DURATION: have_dur = msprof_us_to_ns(p, n, &rec.duration_ns); break;
        case ROLE_START:
            if (msprof_us_to_ns(p, n, &rec.start_ns)) rec.has |= RF_START;
            break;
        case ROLE_DEVICE: {
            char *end;
            char tmp[32];
            if (n >= sizeof tmp) break;
            memcpy(tmp, p, n);
            tmp[n] = 0;
            long long v = strtoll(tmp, &end, 10);
            if (*end == 0) rec.device = v, rec.has |= RF_DEVICE;
            break;
        }
        case ROLE_STREAM: {
            char *end;
            char tmp[32];
            if (n < sizeof tmp) {
                memcpy(tmp, p, n);
                tmp[n] = 0;
                long long v = strtoll(tmp, &end, 10);
                if (*end == 0) rec.stream = v, rec.has |= RF_STREAM;
            }
        }
            __attribute__((fallthrough));   /* the stream id is a field too */
        case ROLE_FIELD:
            if (c->model_id && n == 10 && !memcmp(p, "4294967295", 10)) break;   /* "no model" */
            if (nf < MAX_FIELDS) fields[nf++] = (record_field){c->key, p, n};
            else cut = true;
            break;
        default: break;
        }
    }
    s->fields_cut += cut;
    if (!rec.name || !rec.name_len) { skip_row(s, r->line, "no operator type", &s->skipped_type); return; }
    if (!have_dur) { skip_row(s, r->line, "duration missing or not a decimal", &s->skipped_duration); return; }
    rec.has |= RF_DURATION;
    if (s->reference) rec.category = "reference", rec.category_len = 9;
    rec.fields = fields;
    rec.n_fields = nf;
    s->rows++;
    emit_or_oom(s, &rec);
}

static void *open_common(const char *label, const record_sink *sink, read_facts *facts, diag_list *diag,
                         bool reference) {
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    s->reference = reference;
    if (reference) {   /* reference/MatMulV2.csv names its operator when no column does */
        const char *base = strrchr(label, '/');
        base = base ? base + 1 : label;
        size_t bl = strlen(base);
        if (bl > 4 && !strcasecmp(base + bl - 4, ".csv")) bl -= 4;
        s->type_from_name = strndup(base, bl);
        if (!s->type_from_name) { free(s); return NULL; }
    }
    csv_init(&s->csv, FIELD_CAP, on_record, s);   /* capture-all: every column of every row */
    return s;
}

static void *op_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    (void)opt;
    return open_common(label, sink, facts, diag, false);
}

static void *ref_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                      diag_list *diag) {
    (void)opt;
    return open_common(label, sink, facts, diag, true);
}

static bool ms_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    csv_feed(&s->csv, buf, n);
    return !s->oom;
}

static void ms_finish(void *st) {
    state *s = st;
    csv_finish_warned(&s->csv, s->label, s->diag, s->facts);
    if (s->csv.oom) s->oom = true;
    if (!s->header_done) diag_add(s->diag, "%s: empty file, no header", s->label);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; operators are partial", s->label);
    uint64_t bad = s->skipped_type + s->skipped_duration + s->skipped_long + s->skipped_utf8;
    if (bad)
        diag_add(s->diag, "%s: line %llu: %s; %llu row(s) skipped in all", s->label,
                 (unsigned long long)s->first_bad_line, s->first_bad_reason, (unsigned long long)bad);
    if (s->fields_cut)
        diag_add(s->diag, "%s: %llu row(s) with more than %u counter and identity cells: the cells past them are "
                 "not read", s->label, (unsigned long long)s->fields_cut, MAX_FIELDS);
    s->facts->rows_used = s->rows;
    read_facts_skip(s->facts, "no operator type", s->skipped_type);
    read_facts_skip(s->facts, "duration missing or not a decimal", s->skipped_duration);
    read_facts_skip(s->facts, "a cell of 64 KiB or more", s->skipped_long);
    read_facts_skip(s->facts, "a cell not valid UTF-8", s->skipped_utf8);
}

static void ms_close(void *st) {
    state *s = st;
    if (!s) return;
    csv_free(&s->csv);
    for (size_t i = 0; i < s->n_cols; i++) free(s->cols[i].own_key);
    free(s->cols);
    free(s->type_from_name);
    free(s);
}

static bool name_has_prefix(const char *name, const char *prefix) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return !strncmp(base, prefix, strlen(prefix));
}

/* msprof writes PROF_<id>/mindstudio_profiler_output/op_summary_<ts>.csv and torch_npu
 * <worker>_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv: the two-slash patterns match
 * only where the inventory looks two levels down. */
static const char *const OP_NAMES[] = {"op_summary_*.csv", "mindstudio_profiler_output/op_summary_*.csv",
                                       "PROF_*/mindstudio_profiler_output/op_summary_*.csv", "kernel_details.csv",
                                       "ASCEND_PROFILER_OUTPUT/kernel_details.csv",
                                       "*_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", NULL};

/* An operator table names its duration and signature columns in the header; a reference
 * table (Average Duration) is the other format's. */
static int op_sniff(const char *name, const uint8_t *head, size_t n) {
    bool shapes = csv_head_has(head, n, "Input Shapes");
    bool dur = csv_head_has(head, n, "Task Duration(us)") ||
               (csv_head_has(head, n, "Duration(us)") && !csv_head_has(head, n, "Average Duration(us)"));
    bool named = name_has_prefix(name, "op_summary_") || name_has_prefix(name, "kernel_details");
    if (dur && shapes) return named ? 100 : 90;
    if (dur && csv_head_has(head, n, "Type")) return named ? 80 : 40;
    return 0;
}

static const char *const REF_NAMES[] = {"reference/*.csv", NULL};

static int ref_sniff(const char *name, const uint8_t *head, size_t n) {
    (void)name;
    if (!csv_head_has(head, n, "Average Duration(us)") && !csv_head_has(head, n, "MicroBench Duration(us)")) return 0;
    return csv_head_has(head, n, "Input Shapes") ? 95 : 60;
}

const artefact_parser msprof_op_csv_parser = {
    .name = "msprof-op-csv",
    .family = "msprof",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .names = OP_NAMES,
    .sniff = op_sniff,
    .open_records = op_open,
    .feed = ms_feed,
    .finish = ms_finish,
    .close = ms_close,
};

const artefact_parser msprof_reference_csv_parser = {
    .name = "msprof-reference-csv",
    .family = "msprof",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .names = REF_NAMES,
    .sniff = ref_sniff,
    .open_records = ref_open,
    .feed = ms_feed,
    .finish = ms_finish,
    .close = ms_close,
};
