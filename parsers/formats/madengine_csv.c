/* madengine_csv: madengine's gpu_info_profiler output (gpu_info_power_profiler_output.csv,
 * gpu_info_vram_profiler_output.csv).
 *
 * madengine's gpu_info_profiler.py writes one row per sample and one column per GPU:
 * `time,Power(Watt) GPU0,Power(Watt) GPU1,...` (power mode) or `time,vram(%) GPU0,...`
 * (vram mode); time is datetime.now() as "%Y-%m-%d %H:%M:%S.%f" (local time, no zone:
 * read as UTC, see telemetry_values.h). Each (row, GPU column) with a number becomes one
 * REC_TELEMETRY_SAMPLE: device = the N of "GPUN", start_ns = time, and power_w (W, as
 * written: madengine's amd-smi path divides by 1000 assuming mW, so on some versions the
 * values are 1000x too small; the file cannot tell, so they are passed on unchanged), or for
 * vram mode the percentage as the text field "vram_pct" (VRAM in use, percent of total: the
 * record has no field for a percentage of memory). "N/A" cells are counted, never 0. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/py_number.h"
#include "base/text_utf8.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/csv_columns.h"
#include "parsers/tokenizers/telemetry_values.h"
#include "parsers/tokenizers/csv_rows.h"

#define FIELD_CAP 4096u
#define MAX_GPUS 4096

typedef enum { M_NONE, M_POWER, M_VRAM_PCT } column_kind;

typedef struct state {
    csv_tokenizer csv;
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    bool have_header, oom;
    size_t n_cols;
    column_kind *kind;           /* per column */
    int64_t *gpu;                /* per column */
    size_t used_cols;
    uint64_t samples, not_a_number, bad_time, first_bad_time;
} state;

/* "Power(Watt) GPU3" -> M_POWER, 3; "vram(%) GPU0" -> M_VRAM_PCT, 0. */
static column_kind column_of(const char *l, size_t n, int64_t *gpu) {
    const char *g = NULL;
    for (size_t i = 0; i + 3 < n; i++)
        if (!memcmp(l + i, "GPU", 3)) g = l + i;
    if (!g) return M_NONE;
    size_t rest = n - (size_t)(g + 3 - l);
    i128 v;
    if (!rest || !py_integer(g + 3, rest, &v) || v < 0 || v >= MAX_GPUS) return M_NONE;
    *gpu = (int64_t)v;
    if (n >= 5 && !strncasecmp(l, "power", 5)) return M_POWER;
    if (n >= 4 && !strncasecmp(l, "vram", 4)) return M_VRAM_PCT;
    return M_NONE;
}

static void on_header(state *s, const csv_record *r) {
    s->have_header = true;
    s->n_cols = r->n_all;
    s->kind = calloc(s->n_cols ? s->n_cols : 1, sizeof *s->kind);
    s->gpu = calloc(s->n_cols ? s->n_cols : 1, sizeof *s->gpu);
    if (!s->kind || !s->gpu) { s->oom = true; return; }
    for (size_t i = 1; i < r->n_all; i++) {
        const char *l = r->all[i].data ? r->all[i].data : "";
        size_t n = r->all[i].len;
        utf8_strip(&l, &n);
        s->kind[i] = column_of(l, n, &s->gpu[i]);
        if (s->kind[i] != M_NONE) s->used_cols++;
    }
    read_facts_column(s->facts, "time", r->n_all ? "time" : NULL);
    read_facts_column(s->facts, "per-GPU columns", s->used_cols ? "Power(Watt) GPUn / vram(%) GPUn" : NULL);
    if (!s->used_cols)
        diag_add(s->diag, "%s: line %llu: header has no \"Power(Watt) GPUn\" or \"vram(%%) GPUn\" column", s->label,
                 (unsigned long long)r->line);
}

static void on_record(void *user, const csv_record *r) {
    state *s = user;
    if (s->oom || r->n_fields == 0) return;
    if (!s->have_header) { on_header(s, r); return; }
    i128 t = 0;
    bool has_time = r->n_all && r->all[0].data && telemetry_time_ns(r->all[0].data, r->all[0].len, &t);
    if (!has_time && !s->bad_time++) s->first_bad_time = r->line;
    for (size_t i = 1; i < r->n_all && i < s->n_cols && !s->oom; i++) {
        if (s->kind[i] == M_NONE) continue;
        double v;
        const strbuf *c = &r->all[i];
        if (!c->data || !telemetry_number(c->data, c->len, s->kind[i] == M_POWER ? "W Watt Watts" : "%", &v) || v < 0) { s->not_a_number++; continue; }
        record rec = {.type = REC_TELEMETRY_SAMPLE, .line = r->line, .has = RF_DEVICE, .device = s->gpu[i]};
        if (has_time) rec.start_ns = t, rec.has |= RF_START;
        record_field f;
        strbuf clean = {0};
        if (s->kind[i] == M_POWER) rec.power_w = v, rec.has |= RF_POWER;
        else {
            const char *p = c->data;
            size_t n = c->len;
            utf8_strip(&p, &n);
            if (!utf8_sanitize((const uint8_t *)p, n, &clean)) s->oom = true;
            f = (record_field){"vram_pct", clean.data ? clean.data : "", clean.len};
            rec.fields = &f;
            rec.n_fields = 1;
        }
        s->samples++;
        if (!record_emit(&s->sink, &rec)) s->oom = true;
        strbuf_free(&clean);
    }
}

static void *me_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    csv_init(&s->csv, FIELD_CAP, on_record, s);   /* capture-all: one column per GPU */
    return s;
}

static bool me_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    csv_feed(&s->csv, buf, n);
    return !s->oom;
}

static void me_finish(void *st) {
    state *s = st;
    csv_finish_warned(&s->csv, s->label, s->diag, s->facts);
    if (s->csv.oom) s->oom = true;
    if (!s->have_header) diag_add(s->diag, "%s: empty madengine profiler log (no header line)", s->label);
    if (s->bad_time)
        diag_add(s->diag, "%s: %llu rows without a readable time (first at line %llu): their samples have no time",
                 s->label, (unsigned long long)s->bad_time, (unsigned long long)s->first_bad_time);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; telemetry is partial", s->label);
    s->facts->rows_used = s->samples;
    read_facts_skip(s->facts, "GPU cell N/A or not a number", s->not_a_number);
}

static void me_close(void *st) {
    state *s = st;
    if (!s) return;
    csv_free(&s->csv);
    free(s->kind);
    free(s->gpu);
    free(s);
}

static const char *const ME_NAMES[] = {"gpu_info_power_profiler_output.csv", "gpu_info_vram_profiler_output.csv",
                                       "*/gpu_info_power_profiler_output.csv", "*/gpu_info_vram_profiler_output.csv",
                                       NULL};

static int me_sniff(const char *name, const uint8_t *head, size_t n) {
    bool header = n >= 5 && !memcmp(head, "time,", 5) &&
                  (csv_head_has(head, n, "Power(Watt) GPU") || csv_head_has(head, n, "vram(%) GPU"));
    if (header) return 95;
    return !strncmp(name, "gpu_info_", 9) && csv_name_is_csv(name) ? 40 : 0;
}

const artefact_parser madengine_csv_parser = {
    .name = "madengine-gpu-info-csv",
    .family = "smi",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .names = ME_NAMES,
    .sniff = me_sniff,
    .open_records = me_open,
    .feed = me_feed,
    .finish = me_finish,
    .close = me_close,
};
