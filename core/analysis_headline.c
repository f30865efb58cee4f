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

static int64_t clamp_ns(double v) {
    if (!(v > -9.2e18)) return v != v ? 0 : INT64_MIN;
    if (v >= 9.2e18) return INT64_MAX;
    return (int64_t)v;
}

/* The section analysis keyed `key` and its finished state, or false. */
static bool find_section(const section_results *r, const char *key, const section_analysis **an, const void **st) {
    for (size_t i = 0; r && i < r->n; i++)
        if (r->analyses[i] && !strcmp(r->analyses[i]->key, key) && r->states[i]) {
            *an = r->analyses[i];
            *st = r->states[i];
            return true;
        }
    return false;
}

/* The kernels section's rows, from its rendered JSON: only when its table came from
 * dispatches (stats rows carry no min/max to store). */
static bool collect_kernels(analysis_headline *h, const section_results *r) {
    const section_analysis *an;
    const void *st;
    if (!find_section(r, "kernels", &an, &st)) return true;
    strbuf text = {0};
    jw_out w;
    jw_begin(&w, &text, 0);
    an->render(st, &w);
    if (!strbuf_terminate(&text)) { strbuf_free(&text); return false; }
    json_error_t err;
    json_t *doc = json_loadb(text.data, text.len, JSON_DECODE_INT_AS_REAL, &err);
    strbuf_free(&text);
    if (!doc) return true;            /* null section: nothing to store */
    bool ok = true;
    json_t *rows = json_object_get(doc, "by_name");
    const char *from = json_string_value(json_object_get(doc, "from"));
    size_t n = json_array_size(rows);
    if (from && !strcmp(from, "dispatches") && n) {
        h->kernels = calloc(n, sizeof *h->kernels);
        ok = h->kernels != NULL;
        for (size_t i = 0; ok && i < n; i++) {
            json_t *row = json_array_get(rows, i);
            json_t *name = json_object_get(row, "name"), *mn = json_object_get(row, "min_ns"), *mx = json_object_get(row, "max_ns");
            if (!json_is_string(name) || !json_is_number(mn) || !json_is_number(mx)) { h->kernels_skipped++; continue; }
            size_t len = json_string_length(name);
            char *copy = malloc(len + 1);
            if (!(ok = copy != NULL)) break;
            memcpy(copy, json_string_value(name), len + 1);
            attn_kind attn;
            const char *cls = json_string_value(json_object_get(row, "class"));
            int ci = -1;
            for (int k = 0; cls && k < INGEST_KERNEL_CLASSES; k++)
                if (!strcmp(cls, INGEST_CLASS_KEYS[k])) ci = k;
            h->kernels[h->n_kernels++] = (ingest_kernel){
                .name = copy, .name_len = len,
                .calls = clamp_ns(json_number_value(json_object_get(row, "calls"))),
                .total_ns = clamp_ns(json_number_value(json_object_get(row, "total_ns"))),
                .min_ns = clamp_ns(json_number_value(mn)), .max_ns = clamp_ns(json_number_value(mx)),
                .flags = kernel_classify(copy, len, &attn),
                .kernel_class = ci >= 0 ? INGEST_CLASS_KEYS[ci] : NULL};
        }
    }
    json_decref(doc);
    return ok;
}

bool analysis_headline_collect(analysis_headline *h, const section_results *r) {
    for (int i = 0; i < IG_COUNT; i++) {
        char section[32];
        const char *path;
        double v;
        if (split_name(INGEST_GAUGE_NAMES[i], section, sizeof section, &path) && section_number(r, section, path, &v) &&
            v == v)
            h->gauges[h->n_gauges++] = (ingest_gauge){INGEST_GAUGE_NAMES[i], v};
    }
    return collect_kernels(h, r);
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
