/* timeline_render: the `timeline` section's JSON, its report.md part and its numbers by
 * path, from the scopes timeline.c computed in finish (docs/ANALYSIS.md "timeline"). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/sections/timeline.h"

static const char *const SCOPE_KEYS[] = {"span_ns", "busy_ns", "idle_ns", "compute_ns", "communication_ns",
                                         "memcpy_ns", "exposed_communication_ns", "exposed_memcpy_ns",
                                         "host_wait_ns", "kernel_wait_ns", "other_ns", NULL};

/* host_wait is unknown (null) when idle gaps exist but no operation ending one was matched
 * to its launch call: the trace has no launch records, not zero host wait. */
static bool host_wait_known(const tl_scope *o) { return !o->gaps || o->gaps_with_launch; }

/* The value of SCOPE_KEYS[i] of a scope; false when unknown (a scope joined from sources
 * whose retired times overlap knows only its span; one with a source's islands wholly before
 * another's retired time does not know its idle split). */
static bool scope_value(const tl_scope *o, size_t i, int64_t *v) {
    if (o->unknown && i) return false;
    if (o->split_unknown && i >= 8) return false;   /* host_wait, kernel_wait, other */
    switch (i) {
    case 0: *v = o->span; return true;
    case 1: *v = o->busy; return true;
    case 2: *v = o->idle; return true;
    case 3: *v = o->compute; return true;
    case 4: *v = o->comm; return true;
    case 5: *v = o->memcpy; return true;
    case 6: *v = o->exposed_comm; return true;
    case 7: *v = o->exposed_memcpy; return true;
    case 8: *v = o->host_wait; return host_wait_known(o);
    case 9: *v = o->kernel_wait; return true;
    case 10: *v = o->other; return true;
    default: return false;
    }
}

static bool overlap_pct(const tl_scope *o, double *v) {
    if (o->unknown || o->comm <= 0) return false;
    *v = 100.0 * (double)o->comm_overlapped / (double)o->comm;
    return true;
}

/* kind: 0 the run, 1 a device (with `device`), 2 a lane (with `device` and `stream`).
 * n_bins: the length of o->bins (the run's grid). */
static void render_scope(const tl_scope *o, size_t n_bins, jw_out *w, int kind) {
    bool lane = kind == 2;
    jw_object_open(w);
    if (kind) {
        jw_key(w, "rank");
        if (o->rank >= 0) jw_int(w, o->rank);
        else jw_null(w);
        jw_key(w, "device");
        if (o->has_device) jw_int(w, o->device);
        else jw_null(w);
    }
    if (lane) {
        jw_key(w, "stream");
        if (o->has_stream) jw_int(w, o->stream);
        else jw_null(w);
    }
    jw_key(w, "operations");
    jw_int(w, (int64_t)o->ops);
    for (size_t i = 0; SCOPE_KEYS[i]; i++) {
        int64_t v;
        jw_key(w, SCOPE_KEYS[i]);
        if (scope_value(o, i, &v)) jw_int(w, v);
        else jw_null(w);
    }
    double pct;
    jw_key(w, "busy_pct");
    if (o->span > 0 && !o->unknown) jw_number(w, 100.0 * (double)o->busy / (double)o->span);
    else jw_null(w);
    jw_key(w, "overlap_pct");
    if (overlap_pct(o, &pct)) jw_number(w, pct);
    else jw_null(w);
    jw_key(w, "idle_gaps");   /* unknown scope: the sources' gaps are not the union's */
    if (o->unknown || o->split_unknown) jw_null(w);
    else jw_int(w, (int64_t)o->gaps);
    jw_key(w, "idle_gaps_with_launch");
    if (o->unknown || o->split_unknown) jw_null(w);
    else jw_int(w, (int64_t)o->gaps_with_launch);
    jw_key(w, "start_ns");
    jw_int(w, o->first);
    jw_key(w, "end_ns");
    jw_int(w, o->last);
    jw_key(w, "bins");
    if (o->unknown) { jw_null(w); jw_object_close(w); return; }   /* the merged grids only bound it */
    jw_array_open(w);
    for (size_t k = 0; o->bins && k < n_bins; k++) jw_int(w, o->bins[k]);
    jw_array_close(w);
    jw_object_close(w);
}

int64_t timeline_delay_percentile(const tl_state *s, double p) {
    if (!s->delay_count) return 0;
    uint64_t rank = (uint64_t)((p / 100.0) * (double)s->delay_count + 0.999999999);
    if (rank < 1) rank = 1;
    uint64_t seen = 0;
    for (int b = 0; b < TL_HIST_BUCKETS; b++) {
        seen += s->hist[b];
        if (seen < rank) continue;
        int64_t lo, width;
        if (b < 64) lo = b, width = 1;
        else {
            int e = (b - 64) / 32 + 6, sub = (b - 64) % 32;
            lo = (int64_t)(32 + sub) << (e - 5);
            width = (int64_t)1 << (e - 5);
        }
        int64_t v = lo + width / 2;
        if (v < s->delay_min) v = s->delay_min;
        if (v > s->delay_max) v = s->delay_max;
        return v;
    }
    return s->delay_max;
}

static void put_i128(jw_out *w, i128 v) {
    if (v >= (i128)INT64_MIN && v <= (i128)INT64_MAX) jw_int(w, (int64_t)v);
    else jw_number(w, (double)v);
}

static void render_launch_delay(const tl_state *s, jw_out *w) {
    jw_object_open(w);
    jw_key(w, "count");
    jw_int(w, (int64_t)s->delay_count);
    const char *keys[] = {"mean_ns", "p50_ns", "p95_ns", "max_ns"};
    for (int i = 0; i < 4; i++) {
        jw_key(w, keys[i]);
        if (!s->delay_count) { jw_null(w); continue; }
        if (i == 0) jw_number(w, (double)s->delay_sum / (double)s->delay_count);
        else if (i == 3) jw_int(w, s->delay_max);
        else jw_int(w, timeline_delay_percentile(s, i == 1 ? 50 : 95));
    }
    jw_key(w, "outliers");
    jw_int(w, (int64_t)s->delay_outliers);
    jw_key(w, "outlier_threshold_ns");
    jw_int(w, TL_DELAY_OUTLIER_NS);
    jw_key(w, "negative_clamped");
    jw_int(w, (int64_t)s->delay_negative);
    jw_key(w, "unmatched_overflow");
    jw_int(w, (int64_t)s->unmatched_overflow);
    jw_object_close(w);
}

/* `retired`: how the section kept its memory bounded (docs/ANALYSIS.md "timeline", bounded memory). */
static void render_retired(const tl_state *s, jw_out *w) {
    jw_key(w, "retired");
    jw_object_open(w);
    jw_key(w, "times");
    jw_int(w, (int64_t)s->retire_times);
    jw_key(w, "retire_above_islands");
    jw_int(w, (int64_t)(s->retire_above ? s->retire_above : TL_RETIRE_ABOVE));
    jw_key(w, "cut_ns");
    jw_int(w, s->cut);
    jw_key(w, "reach_back_ns");
    jw_int(w, s->reach_back);
    jw_key(w, "late_operations");
    jw_int(w, (int64_t)s->late_ops);
    jw_key(w, "late_launches");
    jw_int(w, (int64_t)s->late_launches);
    jw_key(w, "run_joins");
    jw_int(w, (int64_t)s->run_joins);
    jw_key(w, "inexact_folds");
    jw_int(w, (int64_t)s->inexact_total);
    jw_key(w, "fine_bins");
    jw_int(w, TL_FINE_BINS);
    jw_key(w, "exact");
    jw_bool(w, !s->inexact_total && !s->late_launches);
    jw_object_close(w);
}

void timeline_render_json(const tl_state *s, jw_out *w) {
    if (!s || !s->any || !s->finished || !s->scopes) { jw_null(w); return; }
    jw_object_open(w);
    jw_key(w, "kernel_wait_threshold_ns");
    jw_int(w, s->cfg ? s->cfg->kernel_wait_threshold_ns : 0);
    jw_key(w, "bin_start_ns");
    jw_int(w, s->bin_start);
    jw_key(w, "bin_ns");
    jw_int(w, s->bin_ns);
    jw_key(w, "bin_count");
    jw_int(w, (int64_t)s->n_bins);
    jw_key(w, "run");
    render_scope(&s->scopes[s->n_scopes - 1], s->n_bins, w, 0);
    size_t devices = section_listed(s->cfg, s->n_devices), streams = section_listed(s->cfg, s->n_lane_scopes);
    jw_key(w, "devices");
    jw_array_open(w);
    for (size_t i = 0; i < devices; i++) render_scope(&s->scopes[s->n_lane_scopes + i], s->n_bins, w, 1);
    jw_array_close(w);
    section_render_cut(w, "devices_listed", "devices_unlisted", "devices", devices, s->n_devices);
    jw_key(w, "streams");
    jw_array_open(w);
    for (size_t i = 0; i < streams; i++) render_scope(&s->scopes[i], s->n_bins, w, 2);
    jw_array_close(w);
    section_render_cut(w, "streams_listed", "streams_unlisted", "streams", streams, s->n_lane_scopes);
    jw_key(w, "launch_delay");
    render_launch_delay(s, w);
    jw_key(w, "short_kernels");
    jw_object_open(w);
    jw_key(w, "threshold_ns");
    jw_int(w, s->cfg ? s->cfg->short_kernel_ns : 0);
    jw_key(w, "count");
    jw_int(w, (int64_t)s->short_kernels);
    jw_key(w, "kernels");
    jw_int(w, (int64_t)s->kernels);
    jw_key(w, "total_ns");
    put_i128(w, s->short_ns);
    jw_key(w, "pct_of_kernel_time");
    if (s->kernel_ns > 0) jw_number(w, 100.0 * (double)s->short_ns / (double)s->kernel_ns);
    else jw_null(w);
    jw_object_close(w);
    jw_key(w, "untimed_operations");
    jw_int(w, (int64_t)s->untimed_ops);
    jw_key(w, "dropped_lane_operations");
    jw_int(w, (int64_t)s->dropped_lane_ops);
    jw_key(w, "barrier_packets");
    jw_int(w, (int64_t)s->barrier_packets);
    if (timeline_retired_any(s)) render_retired(s, w);   /* only then: otherwise the document is unchanged */
    jw_object_close(w);
}

static void md(strbuf *out, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) strbuf_append(out, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void timeline_render_md(const tl_state *s, strbuf *out) {
    if (!s || !s->any || !s->finished || !s->scopes) return;
    const tl_scope *o = &s->scopes[s->n_scopes - 1];
    md(out, "## Timeline\n\n| | ms | share of span |\n|---|---:|---:|\n");
    for (size_t i = 0; SCOPE_KEYS[i]; i++) {
        int64_t v;
        size_t len = strlen(SCOPE_KEYS[i]);          /* the row says what, the header the unit: "span", not "span_ns" */
        int name = (int)(len > 3 && !strcmp(SCOPE_KEYS[i] + len - 3, "_ns") ? len - 3 : len);
        if (!scope_value(o, i, &v)) { md(out, "| %.*s | unknown | |\n", name, SCOPE_KEYS[i]); continue; }
        md(out, "| %.*s | %.3f | %.1f%% |\n", name, SCOPE_KEYS[i], (double)v / 1e6,
           o->span > 0 ? 100.0 * (double)v / (double)o->span : 0.0);
    }
    double pct;
    if (overlap_pct(o, &pct)) md(out, "\nCommunication overlapped by compute: %.1f%%.\n", pct);
    md(out, "\n");
}

/* Paths: "run.<key>", "devices.<i>.<key>", "streams.<i>.<key>" (keys of SCOPE_KEYS, plus
 * busy_pct, overlap_pct, operations), "launch_delay.count|mean_ns|p50_ns|p95_ns|max_ns|outliers",
 * "short_kernels.count|total_ns|pct_of_kernel_time". */
bool timeline_number(const tl_state *s, const char *path, double *out) {
    if (!s || !s->any || !s->finished || !s->scopes) return false;
    const tl_scope *o = NULL;
    const char *key = NULL;
    if (!strncmp(path, "run.", 4)) o = &s->scopes[s->n_scopes - 1], key = path + 4;
    else if (!strncmp(path, "devices.", 8) || !strncmp(path, "streams.", 8)) {
        char *end;
        unsigned long i = strtoul(path + 8, &end, 10);
        if (end == path + 8 || *end != '.') return false;
        bool dev = path[0] == 'd';
        if (i >= (dev ? s->n_devices : s->n_lane_scopes)) return false;
        o = &s->scopes[(dev ? s->n_lane_scopes : 0) + i];
        key = end + 1;
    } else if (!strncmp(path, "launch_delay.", 13)) {
        key = path + 13;
        if (!strcmp(key, "count")) { *out = (double)s->delay_count; return true; }
        if (!strcmp(key, "outliers")) { *out = (double)s->delay_outliers; return true; }
        if (!s->delay_count) return false;
        if (!strcmp(key, "mean_ns")) { *out = (double)s->delay_sum / (double)s->delay_count; return true; }
        if (!strcmp(key, "max_ns")) { *out = (double)s->delay_max; return true; }
        if (!strcmp(key, "p50_ns")) { *out = (double)timeline_delay_percentile(s, 50); return true; }
        if (!strcmp(key, "p95_ns")) { *out = (double)timeline_delay_percentile(s, 95); return true; }
        return false;
    } else if (!strncmp(path, "short_kernels.", 14)) {
        key = path + 14;
        if (!strcmp(key, "count")) { *out = (double)s->short_kernels; return true; }
        if (!strcmp(key, "total_ns")) { *out = (double)s->short_ns; return true; }
        if (!strcmp(key, "pct_of_kernel_time") && s->kernel_ns > 0) {
            *out = 100.0 * (double)s->short_ns / (double)s->kernel_ns;
            return true;
        }
        return false;
    } else {
        return false;
    }
    for (size_t i = 0; SCOPE_KEYS[i]; i++) {
        int64_t v;
        if (strcmp(key, SCOPE_KEYS[i])) continue;
        if (!scope_value(o, i, &v)) return false;
        *out = (double)v;
        return true;
    }
    if (!strcmp(key, "operations")) { *out = (double)o->ops; return true; }
    if (!strcmp(key, "busy_pct") && o->span > 0 && !o->unknown) { *out = 100.0 * (double)o->busy / (double)o->span; return true; }
    if (!strcmp(key, "overlap_pct")) return overlap_pct(o, out);
    return false;
}
