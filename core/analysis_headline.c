/* analysis_headline: the analysis numbers and kernel rows the store keeps (analysis_headline.h). */
#include "core/analysis_headline.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* One row object of kernels.by_name (its JSON text) into h. false on allocation failure. */
static bool add_row(analysis_headline *h, const char *text, size_t len, size_t *cap) {
    json_error_t err;
    json_t *row = json_loadb(text, len, JSON_DECODE_INT_AS_REAL, &err);
    if (!row) { h->kernels_skipped++; return true; }
    json_t *name = json_object_get(row, "name"), *mn = json_object_get(row, "min_ns"), *mx = json_object_get(row, "max_ns");
    bool ok = true;
    if (!json_is_string(name) || !json_is_number(mn) || !json_is_number(mx)) {
        h->kernels_skipped++;                   /* no min/max (stats rows): nothing honest to store */
    } else if (h->n_kernels == *cap && !grow(h, cap)) {
        ok = false;
    } else {
        size_t n = json_string_length(name);
        char *copy = malloc(n + 1);
        if (!(ok = copy != NULL)) goto out;
        memcpy(copy, json_string_value(name), n + 1);
        attn_kind attn;
        const char *cls = json_string_value(json_object_get(row, "class"));
        int ci = -1;
        for (int k = 0; cls && k < INGEST_KERNEL_CLASSES; k++)
            if (!strcmp(cls, INGEST_CLASS_KEYS[k])) ci = k;
        h->kernels[h->n_kernels++] = (ingest_kernel){
            .name = copy, .name_len = n,
            .calls = clamp_ns(json_number_value(json_object_get(row, "calls"))),
            .total_ns = clamp_ns(json_number_value(json_object_get(row, "total_ns"))),
            .min_ns = clamp_ns(json_number_value(mn)), .max_ns = clamp_ns(json_number_value(mx)),
            .flags = kernel_classify(copy, n, &attn), .kernel_class = ci >= 0 ? INGEST_CLASS_KEYS[ci] : NULL};
    }
out:
    json_decref(row);
    return ok;
}

/* Reads the kernels section's rows from its JSON text (one row object parsed at a time, so the
 * memory is the rows kept, never a tree of the whole table): only when its table came from
 * dispatches ("from": "dispatches"; stats rows carry no min/max to store). */
bool analysis_headline_kernel_rows(analysis_headline *h, const char *text, size_t len) {
    int depth = 0;
    bool in_str = false, esc = false, dispatches = false, in_rows = false;
    size_t key_at = 0, key_len = 0, obj_at = 0, cap = 0;
    enum { K_NONE, K_FROM, K_BY_NAME } last_key = K_NONE;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_str) {
            if (esc) esc = false;
            else if (c == '\\') esc = true;
            else if (c == '"') {
                in_str = false;
                key_len = i - key_at;
                if (depth == 1 && last_key == K_FROM) {
                    dispatches = key_len == 10 && !memcmp(text + key_at, "dispatches", 10);
                    last_key = K_NONE;
                }
            }
            continue;
        }
        switch (c) {
        case '"': in_str = true; key_at = i + 1; break;
        case ':':
            if (depth == 1) {
                last_key = key_len == 4 && !memcmp(text + key_at, "from", 4)      ? K_FROM
                           : key_len == 7 && !memcmp(text + key_at, "by_name", 7) ? K_BY_NAME : K_NONE;
            }
            break;
        case '[':
            if (depth == 1 && last_key == K_BY_NAME) in_rows = dispatches;
            depth++;
            break;
        case '{':
            if (depth == 2 && in_rows) obj_at = i;
            depth++;
            break;
        case '}':
            depth--;
            if (depth == 2 && in_rows && !add_row(h, text + obj_at, i + 1 - obj_at, &cap)) return false;
            break;
        case ']':
            depth--;
            if (depth == 1) in_rows = false, last_key = K_NONE;
            break;
        default: break;
        }
    }
    return true;
}

const char *const AH_NAMES[AH_COUNT] = {
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
