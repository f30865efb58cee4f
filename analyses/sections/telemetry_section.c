/* telemetry_section: the `telemetry` section: per GPU, how often it was sampled and what the
 * samples say (utilisation %, VRAM bytes, power W, temperature °C), from any telemetry file.
 *
 * Inputs: REC_TELEMETRY_SAMPLE. VRAM is vram_used_bytes (RF_VRAM_BYTES) when the format
 * gives bytes, else the reference reading vram_gib x 2^30 (RF_VRAM). A sample without
 * RF_DEVICE belongs to the GPU `null`. Cadence is the median of the positive intervals
 * between consecutive timestamps (start_ns, RF_START) of one GPU, exact up to NA_EXACT_CAP
 * intervals and within 1 % beyond (name_agg's median); null without timestamps. State is
 * per-GPU running aggregates (at most MAX_GPUS GPUs) and each GPU's `series` over time in at
 * most TS_MAX_POINTS buckets (analyses/sections/telemetry_series). Not splittable: an interval spans the
 * cut between two pieces, and means are float sums. docs/ANALYSIS.md. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section.h"
#include "analyses/section_md.h"
#include "analyses/sections/telemetry_series.h"

#define MAX_GPUS 64
#define NO_DEVICE INT64_MIN
#define GIB 1073741824.0

typedef struct stat1 {          /* running count, sum and max of one quantity */
    uint64_t n;
    double sum, max;
} stat1;

typedef struct gpu_agg {
    int64_t index;
    uint64_t samples;
    stat1 util, vram, power, temp;
    uint64_t vram_total;
    bool have_last;
    i128 last_ts;
    name_agg intervals;         /* one entry: the sample intervals (ns) */
    telemetry_series series;    /* utilisation, VRAM, power over time (bounded buckets) */
} gpu_agg;

typedef struct telemetry_state {
    gpu_agg gpu[MAX_GPUS];
    size_t n;
    uint64_t dropped;
    bool oom;
    diag_list *diag;
} telemetry_state;

static void *t_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg;
    telemetry_state *s = calloc(1, sizeof *s);
    if (s) s->diag = diag;
    return s;
}

/* Each source is its own state (intervals never span two files), folded in source order. */
static void *t_open_source(void *run, const source_ref *src) {
    (void)src;
    return t_open(NULL, ((telemetry_state *)run)->diag);
}

static void stat_add(stat1 *s, double v) {
    if (!isfinite(v)) return;
    if (!s->n || v > s->max) s->max = v;
    s->n++;
    s->sum += v;
}

static gpu_agg *gpu_of(telemetry_state *s, int64_t index) {
    for (size_t i = 0; i < s->n; i++)
        if (s->gpu[i].index == index) return &s->gpu[i];
    if (s->n == MAX_GPUS) return NULL;
    gpu_agg *g = &s->gpu[s->n++];
    *g = (gpu_agg){.index = index};
    name_agg_init(&g->intervals, true);
    return g;
}

static bool t_consume(void *st, const record *r) {
    telemetry_state *s = st;
    gpu_agg *g = gpu_of(s, (r->has & RF_DEVICE) ? r->device : NO_DEVICE);
    if (!g) { s->dropped++; return true; }
    g->samples++;
    if (r->has & RF_UTIL) stat_add(&g->util, r->util_pct);
    if (r->has & RF_VRAM_BYTES) stat_add(&g->vram, (double)r->vram_used_bytes);
    else if (r->has & RF_VRAM) stat_add(&g->vram, round(r->vram_gib * GIB));
    double vram = NAN;
    if (r->has & RF_VRAM_BYTES) vram = (double)r->vram_used_bytes;
    else if (r->has & RF_VRAM) vram = round(r->vram_gib * GIB);
    if ((r->has & RF_START) && r->start_ns >= INT64_MIN / 2 && r->start_ns <= INT64_MAX / 2) {
        const double v[TS_QUANTITIES] = {[TS_UTIL] = r->util_pct, [TS_VRAM] = vram, [TS_POWER] = r->power_w};
        const bool has[TS_QUANTITIES] = {[TS_UTIL] = (r->has & RF_UTIL) != 0, [TS_VRAM] = !isnan(vram),
                                         [TS_POWER] = (r->has & RF_POWER) != 0};
        if (!ts_add(&g->series, (int64_t)r->start_ns, v, has)) {
            s->oom = true;
            return false;
        }
    }
    if ((r->has & RF_VRAM_TOTAL) && r->vram_total_bytes > g->vram_total) g->vram_total = r->vram_total_bytes;
    if (r->has & RF_POWER) stat_add(&g->power, r->power_w);
    if (r->has & RF_TEMP) stat_add(&g->temp, r->temp_c);
    if (r->has & RF_START) {
        if (g->have_last && r->start_ns > g->last_ts &&
            !name_agg_add(&g->intervals, 0, "", 0, i128_sub(r->start_ns, g->last_ts))) {
            s->oom = true;
            return false;
        }
        if (!g->have_last || r->start_ns > g->last_ts) g->last_ts = r->start_ns;
        g->have_last = true;
    }
    return true;
}

static void stat_fold(stat1 *to, const stat1 *from) {
    if (!from->n) return;
    if (!to->n || from->max > to->max) to->max = from->max;
    to->n += from->n;
    to->sum += from->sum;
}

static void t_close(void *run);

static bool t_end_source(void *run, void *src) {
    telemetry_state *r = run, *s = src;
    bool ok = !s->oom;
    r->dropped += s->dropped;
    for (size_t i = 0; i < s->n; i++) {
        gpu_agg *from = &s->gpu[i], *to = gpu_of(r, from->index);
        if (!to) { r->dropped += from->samples; continue; }
        to->samples += from->samples;
        stat_fold(&to->util, &from->util);
        stat_fold(&to->vram, &from->vram);
        stat_fold(&to->power, &from->power);
        stat_fold(&to->temp, &from->temp);
        if (from->vram_total > to->vram_total) to->vram_total = from->vram_total;
        if (!name_agg_append(&to->intervals, &from->intervals)) ok = false;
        if (!ts_merge(&to->series, &from->series)) ok = false;
    }
    t_close(s);
    if (!ok) r->oom = true;
    return ok;
}

static int cmp_gpu(const void *x, const void *y) {
    int64_t a = ((const gpu_agg *)x)->index, b = ((const gpu_agg *)y)->index;
    return (a > b) - (a < b);
}

static bool t_finish(void *run, const section_results *earlier) {
    (void)earlier;
    telemetry_state *s = run;
    qsort(s->gpu, s->n, sizeof *s->gpu, cmp_gpu);
    for (size_t i = 0; i < s->n; i++) name_agg_finish(&s->gpu[i].intervals);
    if (s->oom) diag_oom(s->diag, "telemetry: out of memory; cadence is partial");
    if (s->dropped)
        diag_add(s->diag, "telemetry: %llu samples of GPUs past the first %d are not counted",
                 (unsigned long long)s->dropped, MAX_GPUS);
    return true;
}

static void mean_of(jw_out *w, const stat1 *s) { if (s->n) jw_number(w, s->sum / (double)s->n); else jw_null(w); }
static void max_of(jw_out *w, const stat1 *s) { if (s->n) jw_number(w, s->max); else jw_null(w); }
/* The peak of a byte quantity: an integer in JSON. */
static void max_bytes_of(jw_out *w, const stat1 *s) { if (s->n) jw_whole(w, s->max); else jw_null(w); }

/* The run-wide figure of one quantity: every GPU's samples together. */
static stat1 all_of(const telemetry_state *s, size_t offset) {
    stat1 t = {0};
    for (size_t i = 0; i < s->n; i++) {
        const stat1 *g = (const stat1 *)((const char *)&s->gpu[i] + offset);
        if (!g->n) continue;
        if (!t.n || g->max > t.max) t.max = g->max;
        t.n += g->n;
        t.sum += g->sum;
    }
    return t;
}

static bool cadence_ms(const gpu_agg *g, double *out) {
    if (!g->intervals.n || !g->intervals.e[0].has_median) return false;
    *out = g->intervals.e[0].median / 1e6;
    return true;
}

static uint64_t total_samples(const telemetry_state *s) {
    uint64_t n = 0;
    for (size_t i = 0; i < s->n; i++) n += s->gpu[i].samples;
    return n;
}

static void t_render(const void *run, jw_out *w) {
    const telemetry_state *s = run;
    if (!total_samples(s)) { jw_null(w); return; }
    stat1 util = all_of(s, offsetof(gpu_agg, util)), vram = all_of(s, offsetof(gpu_agg, vram)),
          power = all_of(s, offsetof(gpu_agg, power)), temp = all_of(s, offsetof(gpu_agg, temp));
    jw_object_open(w);
    jw_key(w, "samples"); jw_u64(w, total_samples(s));
    jw_key(w, "util_mean_pct"); mean_of(w, &util);
    jw_key(w, "util_max_pct"); max_of(w, &util);
    jw_key(w, "vram_peak_bytes"); max_bytes_of(w, &vram);
    jw_key(w, "power_max_w"); max_of(w, &power);
    jw_key(w, "temp_max_c"); max_of(w, &temp);
    jw_key(w, "gpus");
    jw_array_open(w);
    for (size_t i = 0; i < s->n; i++) {
        const gpu_agg *g = &s->gpu[i];
        double c;
        jw_object_open(w);
        jw_key(w, "device");
        if (g->index == NO_DEVICE) jw_null(w); else jw_int(w, g->index);
        jw_key(w, "samples"); jw_u64(w, g->samples);
        jw_key(w, "cadence_ms");
        if (cadence_ms(g, &c)) jw_number(w, c); else jw_null(w);
        jw_key(w, "cadence_exact");
        if (cadence_ms(g, &c)) jw_bool(w, g->intervals.e[0].median_exact); else jw_null(w);
        jw_key(w, "util_mean_pct"); mean_of(w, &g->util);
        jw_key(w, "util_max_pct"); max_of(w, &g->util);
        jw_key(w, "vram_peak_bytes"); max_bytes_of(w, &g->vram);
        jw_key(w, "vram_mean_bytes"); mean_of(w, &g->vram);
        jw_key(w, "vram_total_bytes");
        if (g->vram_total) jw_u64(w, g->vram_total); else jw_null(w);
        jw_key(w, "power_mean_w"); mean_of(w, &g->power);
        jw_key(w, "power_max_w"); max_of(w, &g->power);
        jw_key(w, "temp_max_c"); max_of(w, &g->temp);
        jw_key(w, "series"); ts_render(&g->series, w);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_object_close(w);
}

/* The report's telemetry table: one row per GPU (VRAM in GiB = 2^30 bytes). */
static void t_render_md(const void *run, strbuf *out) {
    const telemetry_state *s = run;
    if (!total_samples(s)) return;
    smd_printf(out, "## Telemetry\n\n| GPU | samples | cadence (ms) | util mean (%%) | util max (%%) | VRAM peak (GiB) | "
                    "VRAM mean (GiB) | power mean (W) | power max (W) | temp max (°C) |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < s->n; i++) {
        const gpu_agg *g = &s->gpu[i];
        double c = 0;
        if (g->index == NO_DEVICE) smd_printf(out, "| — | %llu |", (unsigned long long)g->samples);
        else smd_printf(out, "| %lld | %llu |", (long long)g->index, (unsigned long long)g->samples);
        bool has_c = cadence_ms(g, &c);
        smd_num(out, c, 1, has_c);
        smd_num(out, g->util.n ? g->util.sum / (double)g->util.n : 0, 1, g->util.n > 0);
        smd_num(out, g->util.max, 1, g->util.n > 0);
        smd_num(out, g->vram.max / GIB, 2, g->vram.n > 0);
        smd_num(out, g->vram.n ? g->vram.sum / (double)g->vram.n / GIB : 0, 2, g->vram.n > 0);
        smd_num(out, g->power.n ? g->power.sum / (double)g->power.n : 0, 1, g->power.n > 0);
        smd_num(out, g->power.max, 1, g->power.n > 0);
        smd_num(out, g->temp.max, 1, g->temp.n > 0);
        strbuf_putc(out, '\n');
    }
    strbuf_putc(out, '\n');
}

/* "gpus.<k>.<field>": the k-th GPU that has a device index (in device order): "device",
 * "util_mean_pct", "power_mean_w" or "vram_peak_bytes" (core/ingest_doc.h's per-GPU gauges). */
static bool gpu_number(const telemetry_state *s, const char *path, double *out) {
    char *end;
    long k = strtol(path, &end, 10);
    if (end == path || *end != '.' || k < 0) return false;
    const gpu_agg *g = NULL;
    for (size_t i = 0, seen = 0; i < s->n && !g; i++)
        if (s->gpu[i].index != NO_DEVICE && seen++ == (size_t)k) g = &s->gpu[i];
    if (!g) return false;
    const char *f = end + 1;
    const stat1 *st = !strcmp(f, "util_mean_pct") ? &g->util : !strcmp(f, "power_mean_w") ? &g->power
                    : !strcmp(f, "vram_peak_bytes") ? &g->vram : NULL;
    if (!strcmp(f, "device")) { *out = (double)g->index; return true; }
    if (!st || !st->n) return false;
    *out = st == &g->vram ? st->max : st->sum / (double)st->n;
    return true;
}

/* "samples", "util_mean_pct", "util_max_pct", "vram_peak_bytes", "vram_mean_bytes", "power_max_w", "temp_max_c"
 * (over every GPU); "gpus.<k>.<field>" one GPU's (gpu_number). */
static bool t_number(const void *run, const char *path, double *out) {
    const telemetry_state *s = run;
    if (!total_samples(s)) return false;
    if (!strncmp(path, "gpus.", 5)) return gpu_number(s, path + 5, out);
    if (!strcmp(path, "samples")) { *out = (double)total_samples(s); return true; }
    static const struct { const char *path; size_t offset; bool mean; } P[] = {
        {"util_mean_pct", offsetof(gpu_agg, util), true}, {"util_max_pct", offsetof(gpu_agg, util), false},
        {"vram_peak_bytes", offsetof(gpu_agg, vram), false}, {"vram_mean_bytes", offsetof(gpu_agg, vram), true},
        {"power_max_w", offsetof(gpu_agg, power), false},
        {"temp_max_c", offsetof(gpu_agg, temp), false}};
    for (size_t i = 0; i < sizeof P / sizeof *P; i++)
        if (!strcmp(path, P[i].path)) {
            stat1 t = all_of(s, P[i].offset);
            if (!t.n) return false;
            *out = P[i].mean ? t.sum / (double)t.n : t.max;
            return true;
        }
    return false;
}

static void t_close(void *run) {
    telemetry_state *s = run;
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        name_agg_free(&s->gpu[i].intervals);
        ts_free(&s->gpu[i].series);
    }
    free(s);
}

const section_analysis telemetry_section = {
    .key = "telemetry",
    .wants = REC_BIT(REC_TELEMETRY_SAMPLE),
    .fields = RF_DEVICE | RF_UTIL | RF_VRAM | RF_VRAM_BYTES | RF_VRAM_TOTAL | RF_POWER | RF_TEMP | RF_START,
    .splittable = false,
    .open = t_open,
    .open_source = t_open_source,
    .consume = t_consume,
    .end_source = t_end_source,
    .finish = t_finish,
    .render = t_render,
    .render_md = t_render_md,
    .number = t_number,
    .close = t_close,
};
