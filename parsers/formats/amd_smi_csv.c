/* amd_smi_csv: the reference's read_smi() as a line-by-line stream.
 *
 * `amd-smi monitor --watch` prints a banner, then the header again before every
 * sample, with blank lines between intervals. Like the reference we split lines the
 * way Python's str.splitlines() does, take the first line that has a comma and a
 * telemetry word as the header, drop blank lines and exact repeats of the header, and
 * parse the rest as CSV. Lines are held one at a time, capped at LINE_CAP.
 *
 * Every non-blank row becomes one REC_TELEMETRY_SAMPLE record carrying the VRAM (GiB, the
 * unit decided from the column name) and utilisation (percent) it has; values the rules
 * refuse (negative VRAM, utilisation outside [0, 100] in the default mode) are counted
 * here and left out of the record. The first ROCm version is a REC_METADATA record.
 * Peaks and means are analyses/summaries/telemetry_stats.c's.
 *
 * For the analysis document the same record also carries the raw readings when the header
 * has them: the GPU index (gpu / device column; "card3" -> 3), the sample time (timestamp:
 * epoch seconds in amd-smi, see telemetry_values.h), power (socket_power ..., W),
 * temperature (hotspot, else edge, °C), VRAM used in bytes (the reading above x 2^30, so
 * the unit rule is the same) and VRAM total (total_vram ...: MB = 2^20 bytes, or bytes
 * when the name says "(B)" / bytes). vram_gib and util_pct, which RunMetrics reads, are
 * unchanged. */
#include "parsers/formats/amd_smi_csv.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/tokenizers/column_pick.h"
#include "parsers/tokenizers/csv_columns.h"
#include "base/py_number.h"
#include "parsers/tokenizers/telemetry_values.h"
#include "parsers/tokenizers/csv_rows.h"

#define LINE_CAP (1u << 20)
#define FIELD_CAP 4096u

static const char *const HBM_COLS[] = {"used_vram", "USED_VRAM", "VRAM_USED_MB", "vram_used_mb", "VRAM_USED",
    "VRAM_USED_GB", "vram_used", "VRAM Used", "MEM_USED", "mem_used", NULL};
static const char *const UTIL_COLS[] = {"usage", "USAGE", "GFX_UTIL", "gfx_util", "GFX_UTILIZATION",
    "gfx_utilization", "GFX_ACTIVITY", "gfx_activity", "GPU_USE", "GFX %", "Util", NULL};
/* default: rocm-smi's gpu_use_percent / "GPU use (%)" before its accumulating gfx_activity */
static const char *const UTIL_COLS_REAL[] = {"usage", "USAGE", "GFX_UTIL", "gfx_util", "GFX_UTILIZATION",
    "gfx_utilization", "gpu_use_percent", "GPU use (%)", "GFX_ACTIVITY", "gfx_activity", "GPU_USE", "GFX %",
    "Util", NULL};
static const char *const ROCM_COLS[] = {"ROCM_VERSION", "rocm_version", NULL};
static const char *const NOT_UTIL[] = {"power", "energy", "clk", "clock", "temp", "volt", "fan", NULL};
static const char *const HEADER_WORDS[] = {"vram", "gfx_", "timestamp,", "gpu_use", "gpu,", NULL};
/* the raw readings (analysis document only) */
static const char *const POWER_COLS[] = {"socket_power", "power_usage", "current_socket_power", "average_socket_power",
    "Average Graphics Package Power (W)", "Current Socket Graphics Package Power (W)", NULL};
static const char *const NOT_POWER[] = {"management", "limit", "cap", "volt", NULL};
static const char *const TEMP_COLS[] = {"hotspot", "hotspot_temperature", "temperature_hotspot",
    "Temperature (Sensor junction) (C)", "edge", "edge_temperature", "temperature_edge", "Temperature (Sensor edge) (C)",
    NULL};
static const char *const NOT_TEMP[] = {"mem", "limit", "critical", "shutdown", NULL};
static const char *const GPU_COLS[] = {"gpu", "GPU", "device", NULL};
static const char *const NOT_GPU[] = {"use", "util", "busy", "power", "temp", "mem", "clk", "activity", NULL};
static const char *const TIME_COLS[] = {"timestamp", NULL};
static const char *const TOTAL_COLS[] = {"total_vram", "vram_total", "VRAM_TOTAL", "VRAM Total Memory (B)", NULL};
static const char *const NOT_TOTAL[] = {"used", "free", NULL};

enum { C_HBM, C_UTIL, C_ROCM, C_POWER, C_TEMP, C_GPU, C_TIME, C_TOTAL, C_COUNT };
static const csv_want WANT[] = {{HBM_COLS, NULL, false}, {UTIL_COLS_REAL, NOT_UTIL, false},
                                       {ROCM_COLS, NULL, false}, {POWER_COLS, NOT_POWER, false},
                                       {TEMP_COLS, NOT_TEMP, false}, {GPU_COLS, NOT_GPU, false},
                                       {TIME_COLS, NULL, false}, {TOTAL_COLS, NOT_TOTAL, false}};
_Static_assert(sizeof WANT / sizeof *WANT == C_COUNT, "WANT: one entry per value below C_COUNT");
static const csv_want WANT_SEED[] = {{HBM_COLS, NULL, false}, {UTIL_COLS, NULL, false}, {ROCM_COLS, NULL, false},
                                            {POWER_COLS, NOT_POWER, false}, {TEMP_COLS, NOT_TEMP, false},
                                            {GPU_COLS, NOT_GPU, false}, {TIME_COLS, NULL, false},
                                            {TOTAL_COLS, NOT_TOTAL, false}};
_Static_assert(sizeof WANT_SEED / sizeof *WANT_SEED == C_COUNT, "WANT_SEED: one entry per value below C_COUNT");

/* How a VRAM column's values become GiB, decided from its name as hbm_gb() does. */
typedef enum { U_BYTES, U_MB, U_GB, U_GUESS } vram_unit;
static const char *const UNIT_TEXT[] = {"bytes (/ 2^30)", "MB (/ 1024)", "GB", "GB, or MB (/ 1024) when above 1024"};

#define SM_MAGIC 0x736d69u        /* first word of a state */
#define SM_PAIR_MAGIC 0x736d6932u /* first word of a pair state (sm_open_pair) */

typedef struct state {
    unsigned magic;                 /* SM_MAGIC */
    record_sink sink;
    read_facts *facts;
    bool rocm_sent, oom;
    diag_list *diag;
    const char *label;
    bool seed_compat;
    /* line splitting */
    strbuf line;
    bool line_overflow, prev_cr;
    uint8_t win[3];                 /* last bytes of an overflowing line, for U+0085/U+2028/U+2029 */
    uint64_t line_no, header_line;
    uint64_t rec_start;             /* the file line the CSV record being read began on */
    uint64_t rec_line;              /* ... and that of the record in hand */
    strbuf head;                    /* decoded header line; empty until found */
    bool have_head;
    strbuf scratch, fold;
    /* CSV of the kept lines */
    csv_tokenizer csv;
    bool csv_header_done;
    csv_columns cols;
    char *hbm_col_lower;
    vram_unit unit;
    uint64_t long_lines;
    uint64_t rows_used, vram_bad, vram_negative, util_bad, util_range;
    uint64_t time_bad, time_bad_line;  /* timestamps present but unreadable; the first's line */
} state;

/* One read for two readers (the daemon's ingest: the analysis document's reading and
 * RunMetrics', artefact_parser.open_records_pair): the first state's line splitter and CSV
 * tokenizer are the ones fed; every record of the kept lines goes to both states, the
 * first's handler then the second's. Splitting lines and finding the header do not depend
 * on a reading's options, so both would keep the same lines; each state picks its columns
 * from the header by its own rules (`--compat seed` or not) on its own tokenizer, never fed,
 * and the fed one then captures the union (csv_capture_union). */
typedef struct sm_pair {
    unsigned magic;                 /* SM_PAIR_MAGIC */
    state *a, *b;
} sm_pair;

static bool is_pair(const void *st) { return *(const unsigned *)st == SM_PAIR_MAGIC; }

/* The reference's hbm_gb(): strip unit words, then decide MB vs GB from the column name.
 * A cell that cannot be copied for lack of memory marks the reading out of memory. */
static bool hbm_gb(state *s, const char *raw, size_t n, double *gb, bool *negative) {
    *negative = false;
    if (n == 0) return false;
    const char *p = raw;
    size_t len = n;
    utf8_strip(&p, &len);
    char sa[64], sb[64];                              /* (a cell of a few bytes: no allocation) */
    char *a = len < sizeof sa ? sa : malloc(len + 1), *b = len < sizeof sb ? sb : malloc(len + 1);
    bool ok = false;
    if (!a || !b) s->oom = true;
    else {
        static const char *const strip_words[] = {"MB", "GB", ","};
        memcpy(a, p, len);
        for (int w = 0; w < 3; w++) {                 /* str.replace, in the reference's order */
            size_t wl = strlen(strip_words[w]), k = 0;
            for (size_t i = 0; i < len;) {
                if (i + wl <= len && memcmp(a + i, strip_words[w], wl) == 0) { i += wl; continue; }
                b[k++] = a[i++];
            }
            len = k;
            memcpy(a, b, len);
        }
        double v;
        if (py_number(a, len, &v)) {
            ok = true;
            if (!s->seed_compat && v < 0) ok = false, *negative = true;
            else if (s->unit == U_BYTES) *gb = v / 1073741824.0;
            else if (s->unit == U_MB) *gb = v / 1024.0;
            else if (s->unit == U_GB) *gb = v;
            else *gb = v > 1024.0 ? v / 1024.0 : v;
        }
    }
    if (a != sa) free(a);
    if (b != sb) free(b);
    return ok;
}

/* The unit of the VRAM column, from its name (the reference's hbm_gb() tests, in order). */
static vram_unit unit_of(const state *s, const char *column) {
    const char *low = s->hbm_col_lower ? s->hbm_col_lower : "";
    size_t ll = strlen(low);
    if (!s->seed_compat && (column_has_name_token(column, strlen(column), "bytes") || strstr(low, "(b)"))) return U_BYTES;
    if (strstr(low, "_mb") || (ll >= 2 && strcmp(low + ll - 2, "mb") == 0)) return U_MB;
    if (strstr(low, "_gb") || (ll >= 2 && strcmp(low + ll - 2, "gb") == 0)) return U_GB;
    if (strstr(low, "vram") || strstr(low, "mem")) return U_MB;
    return U_GUESS;
}

static const csv_field *field(const state *s, int c, const csv_record *r) { return csv_columns_field(&s->cols, (size_t)c, r); }

static void on_header(state *s, const csv_record *r) {
    if (!csv_columns_pick(&s->cols, &s->csv, r, s->seed_compat ? WANT_SEED : WANT, C_COUNT)) s->oom = true;
    csv_columns_warn_oversized(&s->cols, s->label, (unsigned long long)r->line, s->diag);
    const char *hbm = s->cols.name[C_HBM];
    if (hbm) {
        strbuf f = {0};
        if (!text_fold_lower(hbm, strlen(hbm), &f) || !strbuf_terminate(&f)) s->oom = true;
        s->hbm_col_lower = f.data;              /* FOLD_OTHER bytes never match the ASCII tests */
        s->unit = unit_of(s, hbm);
    }
    read_facts *fa = s->facts;
    read_facts_column(fa, "vram", hbm);
    if (hbm) read_facts_column(fa, "vram_unit", UNIT_TEXT[s->unit]);
    read_facts_column(fa, "utilisation", s->cols.name[C_UTIL]);
    read_facts_column(fa, "rocm_version", s->cols.name[C_ROCM]);
    if (s->cols.col[C_HBM] < 0 && s->cols.col[C_UTIL] < 0)
        diag_add(s->diag, "%s: line %llu: header has no VRAM or utilisation column", s->label,
                 (unsigned long long)s->header_line);
}

/* The GPU index of a cell: "3" or "card3". */
static bool gpu_index(const csv_field *f, int64_t *out) {
    if (!f || f->truncated || !f->text.data) return false;
    const char *p = f->text.data;
    size_t n = f->text.len;
    utf8_strip(&p, &n);
    if (n > 4 && !memcmp(p, "card", 4)) p += 4, n -= 4;
    i128 v;
    if (!n || !py_integer(p, n, &v) || v < 0 || v > 65535) return false;
    *out = (int64_t)v;
    return true;
}

/* The raw readings of the analysis document (see the top comment); never touches the
 * RunMetrics fields. */
static void raw_readings(state *s, const csv_record *r, record *rec) {
    const csv_field *f;
    double v;
    unsigned long long used;
    /* (the seed's rules keep a negative reading, and inf or 1e20 GiB is no byte count) */
    if ((rec->has & RF_VRAM) && telemetry_mib_to_bytes(rec->vram_gib * 1024.0, &used))
        rec->vram_used_bytes = used, rec->has |= RF_VRAM_BYTES;
    if ((rec->has & RF_VRAM_BYTES) && (f = field(s, C_TOTAL, r)) && !f->truncated) {
        const char *name = s->cols.name[C_TOTAL];
        bool bytes = column_has_name_token(name, strlen(name), "bytes") || strstr(name, "(B)");
        unsigned long long b;
        bool number = telemetry_number(f->text.data, f->text.len, bytes ? "B" : "MB MiB", &v) && v >= 0;
        if (number && bytes && v < 1.8e19) rec->vram_total_bytes = (uint64_t)llround(v), rec->has |= RF_VRAM_TOTAL;
        else if (number && !bytes && telemetry_mib_to_bytes(v, &b))
            rec->vram_total_bytes = b, rec->has |= RF_VRAM_TOTAL;
    }
    if ((f = field(s, C_POWER, r)) && !f->truncated && telemetry_number(f->text.data, f->text.len, "W", &v) && v >= 0)
        rec->power_w = v, rec->has |= RF_POWER;
    if ((f = field(s, C_TEMP, r)) && !f->truncated && telemetry_number(f->text.data, f->text.len, "C", &v))
        rec->temp_c = v, rec->has |= RF_TEMP;
    if (gpu_index(field(s, C_GPU, r), &rec->device)) rec->has |= RF_DEVICE;
    if ((f = field(s, C_TIME, r)) && !f->truncated && telemetry_time_ns(f->text.data, f->text.len, &rec->start_ns))
        rec->has |= RF_START;
    else if (f && f->text.len && !s->time_bad++)
        s->time_bad_line = s->rec_line;
}

static void on_record(void *user, const csv_record *r) {
    state *s = user;
    if (!s->csv_header_done) { s->csv_header_done = true; on_header(s, r); return; }
    if (r->n_fields == 0 || s->oom) return;
    record rec = {.type = REC_TELEMETRY_SAMPLE, .line = s->rec_line};
    const csv_field *f;
    bool used = false;
    if ((f = field(s, C_HBM, r))) {
        double g;
        bool negative = false;
        if (!f->truncated && hbm_gb(s, f->text.data, f->text.len, &g, &negative)) {
            rec.vram_gib = g;
            rec.has |= RF_VRAM;
            used = true;
        } else if (negative) s->vram_negative++;
        else s->vram_bad++;
    } else if (s->cols.col[C_HBM] >= 0) s->vram_bad++;
    if ((f = field(s, C_UTIL, r))) {
        double u;
        if (f->truncated || !py_number(f->text.data, f->text.len, &u)) s->util_bad++;
        else if (!s->seed_compat && !(u >= 0.0 && u <= 100.0)) s->util_range++;   /* a counter, not a percentage */
        else { rec.util_pct = u < 100.0 ? u : 100.0; rec.has |= RF_UTIL; used = true; }
    } else if (s->cols.col[C_UTIL] >= 0) s->util_bad++;
    if (used) s->rows_used++;
    raw_readings(s, r, &rec);
    if (!record_emit(&s->sink, &rec)) s->oom = true;
    if ((f = field(s, C_ROCM, r)) && !s->rocm_sent && !s->oom) {
        strbuf v = {0};
        if (!utf8_sanitize((const uint8_t *)f->text.data, f->text.len, &v)) s->oom = true;
        const char *p = v.data ? v.data : "";
        size_t n = v.len;
        utf8_strip(&p, &n);
        if (n) {
            s->rocm_sent = true;
            record meta = {.type = REC_METADATA, .line = s->rec_line, .key = "rocm_version", .value = p, .value_len = n};
            if (!record_emit(&s->sink, &meta)) s->oom = true;
        }
        strbuf_free(&v);
    }
}

/* The tokenizer's callback of a state read alone. */
static void on_own_record(void *user, const csv_record *r) {
    state *s = user;
    s->rec_line = s->rec_start;
    on_record(s, r);
}

static bool is_header_line(state *s, const strbuf *decoded) {
    if (!memchr(decoded->data, ',', decoded->len)) return false;
    if (!text_fold_lower(decoded->data, decoded->len, &s->fold)) return s->oom = true, false;
    for (size_t i = 0; HEADER_WORDS[i]; i++)
        if (text_contains(s->fold.data, s->fold.len, HEADER_WORDS[i])) return true;
    return false;
}

static void end_line(state *s) {
    s->line_no++;
    if (s->line_overflow) s->long_lines++;
    s->scratch.len = 0;
    if (!utf8_sanitize((const uint8_t *)(s->line.data ? s->line.data : ""), s->line.len, &s->scratch) ||
        !strbuf_terminate(&s->scratch) || s->line.failed)
        s->oom = true;
    if (!s->have_head) {
        if (!s->line_overflow && is_header_line(s, &s->scratch)) {
            s->have_head = true;
            s->header_line = s->line_no;
            strbuf_append(&s->head, s->scratch.data, s->scratch.len);
            if (csv_at_record_start(&s->csv)) s->rec_start = s->line_no;
            csv_feed(&s->csv, (const uint8_t *)s->line.data, s->line.len);
            csv_feed(&s->csv, (const uint8_t *)"\n", 1);
        }
    } else {
        const char *p = s->scratch.data;
        size_t n = s->scratch.len;
        utf8_strip(&p, &n);
        bool repeat = !s->line_overflow && s->scratch.len == s->head.len &&
                      memcmp(s->scratch.data, s->head.data, s->head.len) == 0;
        if (n && !repeat) {
            /* a kept line starts a CSV record unless a quoted field goes on from the last one
             * (lines dropped in between are not the record's) */
            if (csv_at_record_start(&s->csv)) s->rec_start = s->line_no;
            csv_feed(&s->csv, (const uint8_t *)s->line.data, s->line.len);
            csv_feed(&s->csv, (const uint8_t *)"\n", 1);
        }
    }
    s->line.len = 0;
    s->line_overflow = false;
    memset(s->win, 0, sizeof s->win);
}

/* Whether byte c can neither end a line nor be part of U+0085/U+2028/U+2029 (printable
 * ASCII and tab): a run of them is copied into the line at once (sm_feed). */
static inline bool plain_byte(uint8_t c) {
    return (c >= 0x20 && c < 0x80) || c == '\t';
}

static bool sm_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = is_pair(st) ? ((sm_pair *)st)->a : st;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = buf[i];
        if (!s->prev_cr && plain_byte(c)) {          /* a run of plain bytes: one copy */
            size_t j = i + 1;
            while (j < n && plain_byte(buf[j])) j++;
            size_t run = j - i, room = s->line.len < LINE_CAP ? LINE_CAP - s->line.len : 0;
            if (run > room) s->line_overflow = true;
            strbuf_append(&s->line, (const char *)buf + i, run < room ? run : room);
            for (size_t k = run > 3 ? j - 3 : i; k < j; k++) {
                s->win[0] = s->win[1]; s->win[1] = s->win[2]; s->win[2] = buf[k];
            }
            i = j - 1;
            continue;
        }
        if (s->prev_cr) { s->prev_cr = false; if (c == '\n') continue; }
        if (c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E) {
            end_line(s);
            s->prev_cr = c == '\r';
            continue;
        }
        s->win[0] = s->win[1]; s->win[1] = s->win[2]; s->win[2] = c;
        if (s->line.len < LINE_CAP) strbuf_putc(&s->line, (char)c);
        else s->line_overflow = true;
        bool nel = s->win[1] == 0xC2 && c == 0x85;
        bool lsep = s->win[0] == 0xE2 && s->win[1] == 0x80 && (c == 0xA8 || c == 0xA9);
        if (nel || lsep) {                          /* U+0085, U+2028, U+2029 end a line too */
            size_t k = nel ? 2 : 3;
            if (!s->line_overflow) s->line.len -= k;
            end_line(s);
        }
    }
    return true;
}

static void *sm_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = SM_MAGIC;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    s->seed_compat = opt->seed_compat;
    csv_init(&s->csv, FIELD_CAP, on_own_record, s);
    return s;
}

/* The end of the lines: the last one, and the CSV of the kept lines. */
static void lines_finish(state *s) {
    if (s->line.len || s->line_overflow) end_line(s);
    csv_finish_warned(&s->csv, s->label, s->diag, s->facts);
    if (s->csv.oom) s->oom = true;
}

/* The reading's warnings and facts, once the lines are done. */
static void report(state *s) {
    if (s->oom) diag_oom(s->diag, "%s: out of memory; telemetry is partial", s->label);
    if (!s->have_head) {
        diag_add(s->diag, "%s: no recognisable telemetry header in %llu lines", s->label,
                 (unsigned long long)s->line_no);
        return;
    }
    if (s->long_lines)
        diag_add(s->diag, "%s: %llu lines longer than %u bytes were cut", s->label,
                 (unsigned long long)s->long_lines, LINE_CAP);
    read_facts *fa = s->facts;
    fa->rows_used = s->rows_used;
    read_facts_skip(fa, "VRAM missing or not a number", s->vram_bad);
    read_facts_skip(fa, "negative VRAM", s->vram_negative);
    read_facts_skip(fa, "utilisation missing or not a number", s->util_bad);
    read_facts_skip(fa, "utilisation outside [0, 100]", s->util_range);
    if (s->time_bad)
        diag_add(s->diag, "%s: %llu timestamps in column '%s' cannot be read (first at line %llu): those samples "
                 "have no time, so cadence and series leave them out", s->label, (unsigned long long)s->time_bad,
                 s->cols.name[C_TIME] ? s->cols.name[C_TIME] : "timestamp", (unsigned long long)s->time_bad_line);
    if (s->vram_negative)
        diag_add(s->diag, "%s: %llu negative samples in VRAM column '%s' skipped", s->label,
                 (unsigned long long)s->vram_negative, s->cols.name[C_HBM]);
    if (s->util_range)
        diag_add(s->diag, "%s: %llu samples outside [0, 100] in utilisation column '%s' skipped (a counter, "
                 "not a percentage?)", s->label, (unsigned long long)s->util_range, s->cols.name[C_UTIL]);
}

static void pair_on_record(void *user, const csv_record *r) {
    sm_pair *p = user;
    bool header = !p->b->csv_header_done;
    p->b->header_line = p->a->header_line;
    p->a->rec_line = p->b->rec_line = p->a->rec_start;
    on_record(p->a, r);
    on_record(p->b, r);
    if (!header || p->b->oom) return;         /* (b's failed pick: b reads nothing, its slots unused) */
    int *map = csv_capture_union(&p->a->csv, &p->b->csv);
    if (map) csv_columns_remap(&p->b->cols, map);
    else p->a->oom = p->b->oom = true;       /* the fed tokenizer's capture is now unknown */
    free(map);
}

static void sm_close(void *st);

static void *sm_open_pair(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                          diag_list *diag, const record_reading *second) {
    sm_pair *p = calloc(1, sizeof *p);
    state *a = sm_open(opt, label, sink, facts, diag);
    state *b = sm_open(second->opt, second->label, second->sink, second->facts, second->diag);
    if (!p || !a || !b) {
        free(p);
        sm_close(a);
        sm_close(b);
        return NULL;
    }
    *p = (sm_pair){.magic = SM_PAIR_MAGIC, .a = a, .b = b};
    a->csv.on_record = pair_on_record;
    a->csv.user = p;
    return p;
}

static void sm_finish(void *st) {
    if (!is_pair(st)) {
        lines_finish(st);
        report(st);
        return;
    }
    sm_pair *p = st;
    lines_finish(p->a);
    csv_warn_wide(&p->a->csv, p->b->label, p->b->diag, p->b->facts);   /* (b read the same records) */
    if (p->a->oom) p->b->oom = true;         /* (the shared tokenizer's fields) */
    p->b->have_head = p->a->have_head;      /* the lines are the first state's, for both */
    p->b->line_no = p->a->line_no;
    p->b->long_lines = p->a->long_lines;
    report(p->a);
    report(p->b);
}

static void sm_close(void *st) {
    if (st && is_pair(st)) {
        sm_pair *p = st;
        sm_close(p->a);
        sm_close(p->b);
        free(p);
        return;
    }
    state *s = st;
    if (!s) return;
    assert(s->magic == SM_MAGIC);
    csv_free(&s->csv);
    csv_columns_free(&s->cols);
    strbuf_free(&s->line);
    strbuf_free(&s->head);
    strbuf_free(&s->scratch);
    strbuf_free(&s->fold);
    free(s->hbm_col_lower);
    free(s);
}

static const char *const SM_NAMES[] = {"amd_smi.csv", NULL};

/* goblin_runner's amd_smi.csv is read by the reference's rules whatever tool wrote it
 * (the reference does so too); otherwise amd-smi and rocm-smi headers name VRAM or gfx
 * columns, and a banner may come first, so any CSV name still gives a low score. */
static int sm_sniff(const char *name, const uint8_t *head, size_t n) {
    if (!strcmp(name, "amd_smi.csv")) return 100;
    /* amd-smi's own column names: sure enough to claim a file by content alone (the
     * inventory takes >= 80), whatever it is called */
    if (csv_head_has(head, n, "gfx_activity") || csv_head_has(head, n, "umc_activity") ||
        csv_head_has(head, n, "vram_used"))
        return 85;
    if (csv_head_has(head, n, "vram") || csv_head_has(head, n, "gfx_")) return 60;
    return csv_name_is_csv(name) ? 10 : 0;
}

const artefact_parser amd_smi_csv_parser = {
    .name = "amd-smi-csv",
    .family = "smi",
    .kind = ARTEFACT_TELEMETRY,
    .names = SM_NAMES,
    .sniff = sm_sniff,
    .open_records = sm_open,
    .open_records_pair = sm_open_pair,
    .feed = sm_feed,
    .finish = sm_finish,
    .close = sm_close,
};
