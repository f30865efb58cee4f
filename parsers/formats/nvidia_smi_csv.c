/* nvidia_smi_csv: `nvidia-smi --query-gpu=... --format=csv` telemetry logs.
 *
 * Each row is one sample of one GPU: REC_TELEMETRY_SAMPLE with the GPU index (device),
 * VRAM used (GiB, from MiB) and GPU utilisation (percent) when the row has them. Both
 * --format=csv (units in the header and in every value: "841 MiB", "22 %", a space after
 * each comma) and csv,noheader,nounits logs with a hand-written header are read. Scripts
 * that append a header before every sample repeat it: such rows are dropped. Values
 * such as "[N/A]" are counted as skipped, never read as 0.
 *
 * The raw readings ride along for the analysis document: power.draw (W), temperature.gpu
 * (°C), memory.used / memory.total (MiB -> bytes, x 2^20) and the timestamp (start_ns, see
 * telemetry_values.h). The same columns by the names of hand-written headers (power_W,
 * temperature_C, ...) are taken too. RunMetrics reads only vram_gib and util_pct. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/py_number.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/csv_columns.h"
#include "parsers/tokenizers/telemetry_values.h"
#include "parsers/tokenizers/csv_rows.h"

#define FIELD_CAP 4096u

static const char *const VRAM_COLS[] = {"memory.used [MiB]", "memory.used", "memory_used_mib", "memory_used", NULL};
static const char *const UTIL_COLS[] = {"utilization.gpu [%]", "utilization.gpu", "utilization_gpu_percent",
                                        "utilization_gpu", NULL};
static const char *const INDEX_COLS[] = {"index", "gpu_index", NULL};
static const char *const POWER_COLS[] = {"power.draw [W]", "power.draw", "power_W", "power_draw_w", "power_draw", NULL};
static const char *const NOT_POWER[] = {"limit", "max", "min", "default", "enforced", NULL};
static const char *const TEMP_COLS[] = {"temperature.gpu", "temperature_C", "temperature_gpu", "temp_c", NULL};
static const char *const NOT_TEMP[] = {"memory", "limit", "max", "slowdown", "shutdown", NULL};
static const char *const TOTAL_COLS[] = {"memory.total [MiB]", "memory.total", "memory_total_mib", "memory_total", NULL};
static const char *const TIME_COLS[] = {"timestamp", NULL};

enum { C_VRAM, C_UTIL, C_INDEX, C_POWER, C_TEMP, C_TOTAL, C_TIME, C_COUNT };
static const csv_want WANT[] = {{VRAM_COLS, NULL, false},   {UTIL_COLS, NULL, false},
                                       {INDEX_COLS, NULL, false},  {POWER_COLS, NOT_POWER, false},
                                       {TEMP_COLS, NOT_TEMP, false}, {TOTAL_COLS, NULL, false},
                                       {TIME_COLS, NULL, false}};
_Static_assert(sizeof WANT / sizeof *WANT == C_COUNT, "WANT: one entry per value below C_COUNT");

#define NS_MAGIC 0x6e736du        /* first word of a state */
#define NS_PAIR_MAGIC 0x6e736d32u /* first word of a pair state (ns_open_pair) */

typedef struct state {
    unsigned magic;                    /* NS_MAGIC */
    csv_tokenizer csv;
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    bool have_header, oom;
    csv_columns cols;
    uint64_t rows_used, repeated_headers, vram_bad, util_bad;
    double vram_to_mib, total_to_mib, power_to_w;   /* the header's unit (header_unit): 1 for nvidia-smi's own */
    uint64_t time_bad, time_bad_line;  /* timestamps present but unreadable; the first's line */
    char time_bad_text[48];
} state;

/* One read for two readers (the daemon's ingest: the analysis document's reading and
 * RunMetrics', artefact_parser.open_records_pair): the first state's tokenizer is the one fed
 * and every record goes to both states, the first's handler then the second's. Each picks
 * its columns from the header on its own tokenizer, never fed; the fed one then captures
 * the union (csv_capture_union). */
typedef struct ns_pair {
    unsigned magic;                    /* NS_PAIR_MAGIC */
    state *a, *b;
} ns_pair;

static bool is_pair(const void *st) { return *(const unsigned *)st == NS_PAIR_MAGIC; }

/* The factor of unit word w[0..n) to nvidia-smi's own unit (MiB for memory, W for power);
 * 0: not a unit of that quantity known here. */
static double unit_factor(const char *w, size_t n, bool memory) {
    static const struct { const char *unit; double mem, power; } UNITS[] = {
        {"mib", 1.0, 0}, {"mb", 1.0, 0}, {"gib", 1024.0, 0}, {"gb", 1024.0, 0}, {"kib", 1.0 / 1024, 0},
        {"kb", 1.0 / 1024, 0}, {"bytes", 1.0 / 1048576, 0}, {"b", 1.0 / 1048576, 0},
        {"w", 0, 1.0}, {"mw", 0, 1e-3}, {"kw", 0, 1e3}};
    for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++)
        if (strlen(UNITS[i].unit) == n && !strncasecmp(w, UNITS[i].unit, n)) return memory ? UNITS[i].mem : UNITS[i].power;
    return 0.0;
}

/* What a cell's unit word may be: one of `factor` for memory or power (unit_factor), '%'
 * for a utilisation, none for an index. */
typedef enum { V_INDEX, V_PERCENT, V_MEMORY, V_POWER } value_kind;

/* The number in a value such as " 841 MiB" or "22 %": surrounding blanks and a trailing
 * unit word (letters or '%') removed, then Python's float() grammar. The unit word must suit
 * the column: a memory or power column's cell may carry only a unit of the header's factor
 * ("1.5 GiB" under a MiB column is no MiB value, "841 MB" under [MB] is; "65 mW" under [W]
 * is no watts), a utilisation only '%', an index none. */
static bool value_number(const csv_field *f, value_kind kind, double factor, double *v) {
    if (!f || f->truncated) return false;
    const char *p = f->text.data ? f->text.data : "";
    size_t n = f->text.len;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    size_t end = n;
    while (n && ((p[n - 1] >= 'A' && p[n - 1] <= 'Z') || (p[n - 1] >= 'a' && p[n - 1] <= 'z') || p[n - 1] == '%')) n--;
    if (end > n) {
        bool ok = kind == V_PERCENT ? end - n == 1 && p[n] == '%'
                : kind == V_INDEX   ? false
                                    : unit_factor(p + n, end - n, kind == V_MEMORY) == factor;
        if (!ok) return false;
    }
    return n && py_number(p, n, v) && isfinite(*v);
}

/* What a header's unit makes of its column's values, as a factor to nvidia-smi's own unit (MiB
 * for memory, W for power): the unit in brackets ("memory.used [MiB]") or a hand-written name's
 * last '_' / ' ' / '.' word ("power_mW", "memory_used_gb"; a last word that is no unit,
 * "power.draw.average", means nvidia-smi's own). 0: a bracketed unit not known here or of the
 * other quantity (the column is then not read: no value in a guessed unit). */
static double header_unit(const char *name, bool memory) {
    if (!name) return 1.0;
    const char *b = strrchr(name, '['), *e = b ? strchr(b, ']') : NULL, *w;
    size_t n;
    bool bracket = b && e;
    if (bracket) w = b + 1, n = (size_t)(e - w);
    else {
        size_t len = strlen(name);
        for (n = 0; n < len && !strchr("_ .", name[len - 1 - n]); n++) {}
        w = name + len - n;
        if (n == len) return 1.0;          /* one word: "memory.used"-like names say no unit */
    }
    double f = unit_factor(w, n, memory);
    return f ? f : bracket ? 0.0 : 1.0;
}

/* A row that repeats the header (a cell of a chosen column is the column's own name). */
static bool is_header_again(const state *s, const csv_record *r) {
    for (int c = 0; c < C_COUNT; c++) {
        const csv_field *f = csv_columns_field(&s->cols, (size_t)c, r);
        const char *name = s->cols.name[c];
        if (!f || !name) continue;
        const char *p = f->text.data ? f->text.data : "";
        size_t n = f->text.len;
        while (n && *p == ' ') p++, n--;
        while (*name == ' ') name++;
        if (n == strlen(name) && !memcmp(p, name, n)) return true;
    }
    return false;
}

static void on_header(state *s, const csv_record *r) {
    if (!csv_columns_pick(&s->cols, &s->csv, r, WANT, C_COUNT)) s->oom = true;
    csv_columns_warn_oversized(&s->cols, s->label, (unsigned long long)r->line, s->diag);
    read_facts_column(s->facts, "vram", s->cols.name[C_VRAM]);
    if (s->cols.name[C_VRAM]) read_facts_column(s->facts, "vram_unit", "MiB (/ 1024)");
    read_facts_column(s->facts, "utilisation", s->cols.name[C_UTIL]);
    read_facts_column(s->facts, "device", s->cols.name[C_INDEX]);
    read_facts_column(s->facts, "power", s->cols.name[C_POWER]);
    read_facts_column(s->facts, "temperature", s->cols.name[C_TEMP]);
    read_facts_column(s->facts, "vram_total", s->cols.name[C_TOTAL]);
    read_facts_column(s->facts, "time", s->cols.name[C_TIME]);
    s->vram_to_mib = header_unit(s->cols.name[C_VRAM], true);
    s->total_to_mib = header_unit(s->cols.name[C_TOTAL], true);
    s->power_to_w = header_unit(s->cols.name[C_POWER], false);
    if (s->cols.name[C_VRAM] && !s->vram_to_mib)
        diag_add(s->diag, "%s: line %llu: memory column '%s' is in a unit not known here; not read", s->label,
                 (unsigned long long)r->line, s->cols.name[C_VRAM]);
    if (s->cols.name[C_POWER] && !s->power_to_w)
        diag_add(s->diag, "%s: line %llu: power column '%s' is in a unit not known here; not read", s->label,
                 (unsigned long long)r->line, s->cols.name[C_POWER]);
    if (s->cols.col[C_VRAM] < 0 && s->cols.col[C_UTIL] < 0 && s->cols.col[C_POWER] < 0 && s->cols.col[C_TEMP] < 0)
        diag_add(s->diag, "%s: line %llu: header has no memory.used, utilization.gpu, power.draw or temperature.gpu column", s->label,
                 (unsigned long long)r->line);
}

static void on_record(void *user, const csv_record *r) {
    state *s = user;
    if (s->oom) return;
    if (!s->have_header) { s->have_header = true; on_header(s, r); return; }
    if (r->n_fields == 0) return;
    if (is_header_again(s, r)) { s->repeated_headers++; return; }
    if (r->unterminated) s->facts->truncated = true;
    record rec = {.type = REC_TELEMETRY_SAMPLE, .line = r->line};
    double v;
    unsigned long long bytes;
    if (s->vram_to_mib && value_number(csv_columns_field(&s->cols, C_VRAM, r), V_MEMORY, s->vram_to_mib, &v) && v >= 0) {
        v *= s->vram_to_mib;
        rec.vram_gib = v / 1024.0;
        rec.has |= RF_VRAM;
        if (telemetry_mib_to_bytes(v, &bytes)) rec.vram_used_bytes = bytes, rec.has |= RF_VRAM_BYTES;
    } else if (s->cols.col[C_VRAM] >= 0) s->vram_bad++;
    if (value_number(csv_columns_field(&s->cols, C_UTIL, r), V_PERCENT, 0, &v) && v >= 0 && v <= 100) {
        rec.util_pct = v;
        rec.has |= RF_UTIL;
    } else if (s->cols.col[C_UTIL] >= 0) s->util_bad++;
    if (value_number(csv_columns_field(&s->cols, C_INDEX, r), V_INDEX, 0, &v) && v >= 0 && v < 65536) {
        rec.device = (int64_t)v;
        rec.has |= RF_DEVICE;
    }
    const csv_field *f;
    if ((rec.has & RF_VRAM_BYTES) && s->total_to_mib &&
        value_number(csv_columns_field(&s->cols, C_TOTAL, r), V_MEMORY, s->total_to_mib, &v) &&
        telemetry_mib_to_bytes(v * s->total_to_mib, &bytes))
        rec.vram_total_bytes = bytes, rec.has |= RF_VRAM_TOTAL;
    if (s->power_to_w && value_number(csv_columns_field(&s->cols, C_POWER, r), V_POWER, s->power_to_w, &v) && v >= 0)
        rec.power_w = v * s->power_to_w, rec.has |= RF_POWER;
    if ((f = csv_columns_field(&s->cols, C_TEMP, r)) && !f->truncated && telemetry_number(f->text.data, f->text.len, "C", &v))
        rec.temp_c = v, rec.has |= RF_TEMP;
    if ((f = csv_columns_field(&s->cols, C_TIME, r)) && !f->truncated &&
        telemetry_time_ns(f->text.data, f->text.len, &rec.start_ns))
        rec.has |= RF_START;
    else if (f && f->text.len && !s->time_bad++) {
        s->time_bad_line = r->line;
        snprintf(s->time_bad_text, sizeof s->time_bad_text, "%.*s", (int)(f->text.len < 40 ? f->text.len : 40),
                 f->text.data ? f->text.data : "");
    }
    if (rec.has & (RF_VRAM | RF_UTIL)) s->rows_used++;
    if (!record_emit(&s->sink, &rec)) s->oom = true;
}

static void *ns_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = NS_MAGIC;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    csv_init(&s->csv, FIELD_CAP, on_record, s);
    return s;
}

static void pair_on_record(void *user, const csv_record *r) {
    ns_pair *p = user;
    bool header = !p->b->have_header && !p->b->oom;
    on_record(p->a, r);
    on_record(p->b, r);
    if (!header || p->b->oom) return;
    int *map = csv_capture_union(&p->a->csv, &p->b->csv);
    if (map) csv_columns_remap(&p->b->cols, map);
    else p->a->oom = p->b->oom = true;       /* the fed tokenizer's capture is now unknown */
    free(map);
}

static void ns_close(void *st);

static void *ns_open_pair(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                          diag_list *diag, const record_reading *second) {
    ns_pair *p = calloc(1, sizeof *p);
    state *a = ns_open(opt, label, sink, facts, diag);
    state *b = ns_open(second->opt, second->label, second->sink, second->facts, second->diag);
    if (!p || !a || !b) {
        free(p);
        ns_close(a);
        ns_close(b);
        return NULL;
    }
    *p = (ns_pair){.magic = NS_PAIR_MAGIC, .a = a, .b = b};
    a->csv.on_record = pair_on_record;
    a->csv.user = p;
    return p;
}

static bool ns_feed(void *st, const uint8_t *buf, size_t n) {
    if (is_pair(st)) {
        ns_pair *p = st;
        csv_feed(&p->a->csv, buf, n);
        return !(p->a->oom && p->b->oom);
    }
    state *s = st;
    csv_feed(&s->csv, buf, n);
    return !s->oom;
}

/* The reading's warnings and facts, once its records are done. */
static void report(state *s) {
    if (!s->have_header) diag_add(s->diag, "%s: empty nvidia-smi log (no header line)", s->label);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; telemetry is partial", s->label);
    s->facts->rows_used = s->rows_used;
    if (s->time_bad)
        diag_add(s->diag, "%s: %llu timestamps in column '%s' cannot be read (first at line %llu: \"%s\"): those "
                 "samples have no time, so cadence and series leave them out", s->label,
                 (unsigned long long)s->time_bad, s->cols.name[C_TIME] ? s->cols.name[C_TIME] : "timestamp",
                 (unsigned long long)s->time_bad_line, s->time_bad_text);
    read_facts_skip(s->facts, "repeated header", s->repeated_headers);
    read_facts_skip(s->facts, "memory.used missing or not a number", s->vram_bad);
    read_facts_skip(s->facts, "utilization.gpu missing or outside [0, 100]", s->util_bad);
}

static void ns_finish(void *st) {
    if (is_pair(st)) {
        ns_pair *p = st;
        csv_finish_warned(&p->a->csv, p->a->label, p->a->diag, p->a->facts);
        csv_warn_wide(&p->a->csv, p->b->label, p->b->diag, p->b->facts);   /* (b read the same records) */
        if (p->a->csv.oom) p->a->oom = p->b->oom = true;   /* (both readings' fields) */
        report(p->a);
        report(p->b);
        return;
    }
    state *s = st;
    csv_finish_warned(&s->csv, s->label, s->diag, s->facts);
    if (s->csv.oom) s->oom = true;
    report(s);
}

static void ns_close(void *st) {
    if (st && is_pair(st)) {
        ns_pair *p = st;
        ns_close(p->a);
        ns_close(p->b);
        free(p);
        return;
    }
    state *s = st;
    if (!s) return;
    assert(s->magic == NS_MAGIC);
    csv_free(&s->csv);
    csv_columns_free(&s->cols);
    free(s);
}

static const char *const NS_NAMES[] = {"nvidia_smi.csv", "nvidia-smi.csv", NULL};

/* nvidia-smi's query names are unmistakable; without them this is not an nvidia-smi log. */
static int ns_sniff(const char *name, const uint8_t *head, size_t n) {
    (void)name;
    bool ours = csv_head_has(head, n, "memory.used") || csv_head_has(head, n, "utilization.gpu") ||
                csv_head_has(head, n, "utilization_gpu") || csv_head_has(head, n, "power.draw") ||
                csv_head_has(head, n, "temperature.gpu");
    return ours ? 90 : 0;
}

const artefact_parser nvidia_smi_csv_parser = {
    .name = "nvidia-smi-csv",
    .family = "smi",
    .kind = ARTEFACT_TELEMETRY,
    .names = NS_NAMES,
    .sniff = ns_sniff,
    .open_records = ns_open,
    .open_records_pair = ns_open_pair,
    .feed = ns_feed,
    .finish = ns_finish,
    .close = ns_close,
};
