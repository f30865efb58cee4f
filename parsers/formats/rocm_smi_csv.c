/* rocm_smi_csv: `rocm-smi --showuse --showpower --showtemp --showmeminfo vram --csv` logs.
 *
 * rocm-smi's CSV names columns by their human labels with the unit in parentheses
 * ("Temperature (Sensor edge) (C)", "Average Graphics Package Power (W)", "GPU use (%)",
 * "VRAM Total Memory (B)", "VRAM Total Used Memory (B)"); the first column is `device`
 * (card0, card1, ...). Several --show flags may print several blocks, each starting with
 * its own `device,...` header, separated by blank lines, and a watch loop repeats them. A
 * line whose first cell is `device` starts a block; each later row is one
 * REC_TELEMETRY_SAMPLE of that card with the readings its block has: temperature (°C:
 * junction, else edge, else the first temperature column), power (W: the first power
 * column, "Average ..." or "Current Socket ..." by version), utilisation (%), VRAM used and
 * total (bytes, as written). rocm-smi prints no timestamp, so samples have none. Cells
 * such as "N/A" or "N/A (Secondary die)" are left out, never read as 0. */
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

enum { Q_TEMP, Q_POWER, Q_UTIL, Q_USED, Q_TOTAL, Q_COUNT };

typedef struct state {
    csv_tokenizer csv;
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    bool in_block, oom, facts_named;
    long col[Q_COUNT];          /* column of each quantity in the current block, -1 when absent */
    int temp_rank;              /* 3 junction, 2 edge, 1 other temperature */
    uint64_t samples, blocks, no_reading, not_a_card, outside_block;
    uint64_t first_not_a_card;
} state;

static bool has(const char *s, const char *word) { return strstr(s, word) != NULL; }

static const strbuf *cell(const csv_record *r, size_t i) { return i < r->n_all ? &r->all[i] : NULL; }

/* The first cell, stripped: "device" starts a block. */
static bool first_is(const csv_record *r, const char *word) {
    const strbuf *c = cell(r, 0);
    if (!c || !c->data) return false;
    const char *p = c->data;
    size_t n = c->len;
    utf8_strip(&p, &n);
    return n == strlen(word) && !strncasecmp(p, word, n);
}

static void on_header(state *s, const csv_record *r) {
    for (int q = 0; q < Q_COUNT; q++) s->col[q] = -1;
    s->temp_rank = 0;
    s->in_block = true;
    s->blocks++;
    for (size_t i = 1; i < r->n_all; i++) {
        strbuf b = {0};
        const char *l = "";
        if (r->all[i].data && utf8_sanitize((const uint8_t *)r->all[i].data, r->all[i].len, &b) && strbuf_terminate(&b))
            l = b.data;
        if (has(l, "Temperature") && has(l, "(C)")) {
            int rank = has(l, "junction") ? 3 : has(l, "edge") ? 2 : 1;
            if (rank > s->temp_rank) s->temp_rank = rank, s->col[Q_TEMP] = (long)i;
        } else if (has(l, "Power") && has(l, "(W)") && s->col[Q_POWER] < 0 && !has(l, "Max") && !has(l, "Cap"))
            s->col[Q_POWER] = (long)i;
        else if (has(l, "GPU use (%)")) s->col[Q_UTIL] = (long)i;
        else if (has(l, "VRAM Total Used Memory (B)")) s->col[Q_USED] = (long)i;
        else if (has(l, "VRAM Total Memory (B)")) s->col[Q_TOTAL] = (long)i;
        strbuf_free(&b);
    }
    if (!s->facts_named) {
        s->facts_named = true;
        read_facts_column(s->facts, "device", "device (cardN)");
        read_facts_column(s->facts, "temperature", s->col[Q_TEMP] >= 0 ? "Temperature (...) (C)" : NULL);
        read_facts_column(s->facts, "power", s->col[Q_POWER] >= 0 ? "... Power (W)" : NULL);
        read_facts_column(s->facts, "utilisation", s->col[Q_UTIL] >= 0 ? "GPU use (%)" : NULL);
        read_facts_column(s->facts, "vram_used", s->col[Q_USED] >= 0 ? "VRAM Total Used Memory (B)" : NULL);
    }
}

/* The number in column `col` of r, its unit word (if any) one of `units`. */
static bool number_at(const csv_record *r, long col, const char *units, double *v) {
    const strbuf *c = col >= 0 ? cell(r, (size_t)col) : NULL;
    return c && c->data && telemetry_number(c->data, c->len, units, v);
}

static void on_record(void *user, const csv_record *r) {
    state *s = user;
    if (s->oom || r->n_fields == 0) return;
    if (first_is(r, "device")) { on_header(s, r); return; }
    if (!s->in_block) { s->outside_block++; return; }
    const strbuf *c = cell(r, 0);
    const char *p = c && c->data ? c->data : "";
    size_t n = c ? c->len : 0;
    utf8_strip(&p, &n);
    if (n > 4 && !strncmp(p, "card", 4)) p += 4, n -= 4;
    i128 dev;
    if (!n || !py_integer(p, n, &dev) || dev < 0 || dev > 65535) {
        if (!s->not_a_card++) s->first_not_a_card = r->line;
        return;
    }
    record rec = {.type = REC_TELEMETRY_SAMPLE, .line = r->line, .has = RF_DEVICE, .device = (int64_t)dev};
    double v;
    if (number_at(r, s->col[Q_TEMP], "C", &v)) rec.temp_c = v, rec.has |= RF_TEMP;
    if (number_at(r, s->col[Q_POWER], "W", &v) && v >= 0) rec.power_w = v, rec.has |= RF_POWER;
    if (number_at(r, s->col[Q_UTIL], "%", &v) && v >= 0 && v <= 100) rec.util_pct = v, rec.has |= RF_UTIL;
    if (number_at(r, s->col[Q_USED], "B", &v) && v >= 0 && v < 1.8e19)
        rec.vram_used_bytes = (uint64_t)v, rec.has |= RF_VRAM_BYTES;
    if ((rec.has & RF_VRAM_BYTES) && number_at(r, s->col[Q_TOTAL], "B", &v) && v >= 0 && v < 1.8e19)
        rec.vram_total_bytes = (uint64_t)v, rec.has |= RF_VRAM_TOTAL;
    if (rec.has == RF_DEVICE) { s->no_reading++; return; }
    s->samples++;
    if (!record_emit(&s->sink, &rec)) s->oom = true;
}

static void *rs_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    csv_init(&s->csv, FIELD_CAP, on_record, s);   /* capture-all: every block has its own columns */
    return s;
}

static bool rs_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    csv_feed(&s->csv, buf, n);
    return !s->oom;
}

static void rs_finish(void *st) {
    state *s = st;
    csv_finish_warned(&s->csv, s->label, s->diag, s->facts);
    if (s->csv.oom) s->oom = true;
    if (!s->blocks) diag_add(s->diag, "%s: not a rocm-smi CSV log (no line starting with \"device,\")", s->label);
    if (s->not_a_card)
        diag_add(s->diag, "%s: %llu rows whose device cell is not cardN ignored (first at line %llu)", s->label,
                 (unsigned long long)s->not_a_card, (unsigned long long)s->first_not_a_card);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; telemetry is partial", s->label);
    s->facts->rows_used = s->samples;
    read_facts_skip(s->facts, "no temperature, power, utilisation or VRAM reading", s->no_reading);
    read_facts_skip(s->facts, "device cell not cardN", s->not_a_card);
    read_facts_skip(s->facts, "before the first device header", s->outside_block);
}

static void rs_close(void *st) {
    state *s = st;
    if (!s) return;
    csv_free(&s->csv);
    free(s);
}

static const char *const RS_NAMES[] = {"rocm_smi*.csv", "rocm-smi*.csv", NULL};

/* rocm-smi's CSV starts with "device," and labels carrying units in parentheses. */
static int rs_sniff(const char *name, const uint8_t *head, size_t n) {
    (void)name;
    bool device = n >= 7 && !strncasecmp((const char *)head, "device,", 7);
    bool units = csv_head_has(head, n, "(C)") || csv_head_has(head, n, "(W)") || csv_head_has(head, n, "(%)") ||
                 csv_head_has(head, n, "(B)");
    return device && units ? 90 : device ? 30 : 0;
}

const artefact_parser rocm_smi_csv_parser = {
    .name = "rocm-smi-csv",
    .family = "smi",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .names = RS_NAMES,
    .sniff = rs_sniff,
    .open_records = rs_open,
    .feed = rs_feed,
    .finish = rs_finish,
    .close = rs_close,
};
