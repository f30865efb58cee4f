/* analysis_headline: the analysis numbers and kernel rows the store keeps (analysis_headline.h). */
#include "core/analysis_headline.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_utf8.h"
#include "parsers/kernel_table.h"

/* Each gauge's section and path in that section (INGEST_GAUGE_NAMES[i] is "<section>.<path>"). */
static bool split_name(const char *name, char *section, size_t n, const char **path) {
    const char *dot = strchr(name, '.');
    if (!dot || (size_t)(dot - name) >= n) return false;
    memcpy(section, name, (size_t)(dot - name));
    section[dot - name] = 0;
    *path = dot + 1;
    return true;
}

/* Room for twice as many rows in h->kernels; false on allocation failure (h unchanged). */
static bool grow(analysis_headline *h, size_t *cap) {
    size_t n = *cap ? *cap * 2 : 64;
    ingest_kernel *bigger = realloc(h->kernels, n * sizeof *bigger);
    if (!bigger) return false;
    h->kernels = bigger;
    *cap = n;
    return true;
}

static int64_t clamp_ns(double v) {
    if (!(v > -9.2e18)) return v != v ? 0 : INT64_MIN;
    if (v >= 9.2e18) return INT64_MAX;
    return (int64_t)v;
}

/* A number as the document's JSON gives it back (an integer beyond int64 is written as a
 * double): what GET /runs/<id>/kernels stored before it came from the struct. */
static int64_t as_stored(i128 v) { return clamp_ns((double)v); }

typedef struct row_sink {
    analysis_headline *h;
    size_t cap;
} row_sink;

/* One row of the kernels section into h (section_kernel_row_fn). */
static bool add_row(void *user, const section_kernel_row *r) {
    row_sink *rs = user;
    analysis_headline *h = rs->h;
    if (!r->minmax_known) { h->kernels_skipped++; return true; }   /* nothing honest to store */
    /* the name as the document shows it: invalid UTF-8 replaced (U+FFFD); a NUL is kept (the
     * document writes it "\u0000"; the store and the API carry names by length) */
    strbuf clean = {0};
    if (!utf8_sanitize((const uint8_t *)r->name, r->len, &clean) || !strbuf_terminate(&clean)) {
        strbuf_free(&clean);
        return false;
    }
    if (h->n_kernels == rs->cap && !grow(h, &rs->cap)) { strbuf_free(&clean); return false; }
    int ci = -1;
    for (int k = 0; r->kernel_class && k < INGEST_KERNEL_CLASSES; k++)
        if (!strcmp(r->kernel_class, INGEST_CLASS_KEYS[k])) ci = k;
    attn_kind attn;
    size_t n = clean.len;
    unsigned flags = kernel_classify(clean.data, n, &attn);
    if (flags == KF_CLASSIFY_FAILED) { strbuf_free(&clean); return false; }
    char *copy = clean.data;                      /* owned by h from here */
    h->kernels[h->n_kernels++] = (ingest_kernel){
        .name = copy, .name_len = n,
        .calls = as_stored((i128)r->calls), .total_ns = as_stored(r->total_ns),
        .min_ns = as_stored(r->min_ns), .max_ns = as_stored(r->max_ns),
        .flags = flags, .kernel_class = ci >= 0 ? INGEST_CLASS_KEYS[ci] : NULL};
    return true;
}

bool analysis_headline_kernel_rows(analysis_headline *h, const section_analysis *an, const void *run) {
    assert(an->kernel_rows);
    row_sink rs = {h, 0};
    return an->kernel_rows(run, add_row, &rs);
}

/* Where each AH_* number is read: "<section>.<path>" for section_number. */
static const char *const AH_NAMES[AH_COUNT] = {
    [AH_STEP_MEAN_NS] = "steps.slowest_rank.mean.wall_ns",
    [AH_STEP_COUNT] = "steps.slowest_rank.count",
    [AH_RANGE_MEAN_NS] = "steps.step_ranges.mean.wall_ns",
    [AH_RANGE_COUNT] = "steps.step_ranges.count",
    [AH_SPAN_NS] = "timeline.run.span_ns",
    [AH_BUSY_NS] = "timeline.run.busy_ns",
    [AH_UTIL_MEAN_PCT] = "telemetry.util_mean_pct",
    [AH_VRAM_PEAK_BYTES] = "telemetry.vram_peak_bytes",
    [AH_VRAM_MEAN_BYTES] = "telemetry.vram_mean_bytes",
    [AH_ALLOC_PEAK_BYTES] = "allocations.peak_bytes",
    [AH_ALLOC_REPORTED_PEAK_BYTES] = "allocations.reported_peak_bytes",
};

bool analysis_headline_collect(analysis_headline *h, const section_results *r) {
    for (int i = 0; i < AH_COUNT; i++) {
        char section[32];
        const char *path;
        double v;
        if (split_name(AH_NAMES[i], section, sizeof section, &path) && section_number(r, section, path, &v) && v == v)
            h->in[i] = v, h->has_in[i] = true;
    }
    for (int i = 0; i < IG_COUNT; i++) {
        char section[32];
        const char *path;
        double v;
        if (split_name(INGEST_GAUGE_NAMES[i], section, sizeof section, &path) && section_number(r, section, path, &v) &&
            v == v)
            h->gauges[h->n_gauges++] = (ingest_gauge){INGEST_GAUGE_NAMES[i], v};
    }
    return true;
}

bool analysis_headline_add_format(analysis_headline *h, const char *format) {
    size_t n = strlen(format);
    for (const char *p = h->kernel_formats.data; p && p < h->kernel_formats.data + h->kernel_formats.len;) {
        size_t m = strcspn(p, ",");
        if (m == n && !memcmp(p, format, n)) return true;
        p += m + 1;
    }
    if (h->kernel_formats.len) strbuf_putc(&h->kernel_formats, ',');
    strbuf_append(&h->kernel_formats, format, n);
    return strbuf_terminate(&h->kernel_formats);
}

void analysis_headline_free(analysis_headline *h) {
    for (size_t i = 0; i < h->n_kernels; i++) free((char *)h->kernels[i].name);
    free(h->kernels);
    strbuf_free(&h->kernel_formats);
    memset(h, 0, sizeof *h);
}
