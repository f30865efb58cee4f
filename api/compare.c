/* compare: deltas between two runs, from their stored headline columns (the RunMetrics text
 * of each side is embedded as stored, never parsed here). Extreme finite inputs (1e-300 against
 * 1e300) overflow differences and ratios; those saturate to +-DBL_MAX rather than fail the whole
 * body or drop a key, and what is undefined (a ratio to 0, NaN) is null. */
#include "api/compare.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compare_diff.h"
#include "base/json_writer.h"

bool compare_side_from_row(compare_side *s, const run_row *r) {
    memset(s, 0, sizeof *s);
    s->id = strdup(r->id);
    s->metrics_json = r->metrics_json ? strdup(r->metrics_json) : NULL;
    s->tokens_per_sec = r->tokens_per_sec;
    s->mfu_pct = r->mfu_pct;
    s->hbm_peak_gb = r->hbm_peak_gb;
    s->hbm_avg_gb = r->hbm_avg_gb;
    s->gpu_util_pct = r->gpu_util_pct;
    s->step_seconds = r->step_seconds;
    memcpy(s->waste, r->waste, sizeof s->waste);
    return s->id && (s->metrics_json || !r->metrics_json);
}

void compare_side_free(compare_side *s) {
    free(s->id);
    free(s->metrics_json);
    memset(s, 0, sizeof *s);
}

/* A JSON number for v: an overflow to +-inf saturates to +-DBL_MAX; NaN has no value (null). */
static void saturated(jw_out *j, double v) {
    if (isnan(v)) { jw_null(j); return; }
    if (isinf(v)) v = v > 0 ? DBL_MAX : -DBL_MAX;
    jw_number(j, v);
}

static void opt_value(jw_out *j, const char *key, bool known, double v) {
    jw_key(j, key);
    if (known) saturated(j, v);
    else jw_null(j);
}

void compare_delta_object(jw_out *j, const char *key, opt_num a, opt_num b) {
    double d = b.v - a.v;
    bool both = a.has && b.has;
    jw_key(j, key);
    jw_object_open(j);
    opt_value(j, "base", a.has, a.v);
    opt_value(j, "candidate", b.has, b.v);
    opt_value(j, "delta", both, d);
    opt_value(j, "delta_pct", both && a.v != 0.0, d / a.v * 100.0);
    jw_object_close(j);
}

static void short_number(double v, char *out, size_t n) {
    if (fabs(v) >= 1e15) snprintf(out, n, "%.3g", v);           /* %.0f of 1e300 would be cut off */
    else if (fabs(v) >= 100 || v == floor(v)) snprintf(out, n, "%.0f", v);
    else snprintf(out, n, "%.3g", v);
}

void compare_summary(double a, double b, char *out, size_t n) {
    char x[32], y[32];
    short_number(a, x, sizeof x);
    short_number(b, y, sizeof y);
    if (a > 0 && isfinite(b / a)) snprintf(out, n, "tokens/s %s \xe2\x86\x92 %s (%.2f\xc3\x97)", x, y, b / a);
    else snprintf(out, n, "tokens/s %s \xe2\x86\x92 %s", x, y);
}

/* A waste bucket, known when the side's step time and the bucket's inputs are. */
static opt_num bucket(const compare_side *s, int b) {
    return (opt_num){s->step_seconds.has && s->waste[b].has, s->waste[b].has ? s->waste[b].v : 0.0};
}

static void side(jw_out *j, const char *key, const compare_side *s) {
    jw_key(j, key);
    jw_object_open(j);
    jw_key(j, "id");
    jw_string(j, s->id);
    jw_key(j, "metrics");
    if (s->metrics_json) jw_json(j, s->metrics_json, strlen(s->metrics_json));
    else jw_null(j);
    jw_object_close(j);
}

/* An analysis number of both sides, scaled (ns to seconds): the delta object. */
static void gauge_delta(jw_out *j, const char *key, const compare_side *a, const compare_side *b, int g, double scale) {
    opt_num x = a->gauge[g], y = b->gauge[g];
    x.v *= scale;
    y.v *= scale;
    compare_delta_object(j, key, x, y);
}

/* The analysis's timeline and kernel-class numbers side by side. A class's object adds
 * `ratio` (candidate / base; null when the base spent no time in that class). */
static void analysis_deltas(jw_out *j, const compare_side *a, const compare_side *b, const compare_diff *diff) {
    jw_key(j, "timeline");
    jw_object_open(j);
    gauge_delta(j, "span_seconds", a, b, IG_SPAN_NS, 1e-9);
    gauge_delta(j, "busy_seconds", a, b, IG_BUSY_NS, 1e-9);
    gauge_delta(j, "idle_seconds", a, b, IG_IDLE_NS, 1e-9);
    gauge_delta(j, "compute_seconds", a, b, IG_COMPUTE_NS, 1e-9);
    gauge_delta(j, "communication_seconds", a, b, IG_COMMUNICATION_NS, 1e-9);
    gauge_delta(j, "exposed_communication_seconds", a, b, IG_EXPOSED_COMMUNICATION_NS, 1e-9);
    gauge_delta(j, "overlap_pct", a, b, IG_OVERLAP_PCT, 1.0);
    gauge_delta(j, "mean_step_wall_seconds", a, b, IG_STEP_MEAN_WALL_NS, 1e-9);
    if (diff) compare_diff_timeline(diff, j);
    jw_object_close(j);
    jw_key(j, "kernel_classes");
    jw_object_open(j);
    for (int k = 0; k < INGEST_KERNEL_CLASSES; k++) {
        opt_num x = a->gauge[IG_CLASS_FIRST + k], y = b->gauge[IG_CLASS_FIRST + k];
        x.v *= 1e-9;
        y.v *= 1e-9;
        double d = y.v - x.v;
        bool both = x.has && y.has;
        jw_key(j, INGEST_CLASS_KEYS[k]);
        jw_object_open(j);
        opt_value(j, "base_seconds", x.has, x.v);
        opt_value(j, "candidate_seconds", y.has, y.v);
        opt_value(j, "delta_seconds", both, d);
        opt_value(j, "ratio", both && x.v != 0.0, y.v / x.v);
        jw_object_close(j);
    }
    jw_object_close(j);
}

void compare_runs(const compare_side *a, const compare_side *b, const compare_diff *diff, strbuf *out) {
    jw_out j;
    jw_begin(&j, out, 0);
    jw_object_open(&j);
    side(&j, "base", a);
    side(&j, "candidate", b);
    jw_key(&j, "headline");
    jw_object_open(&j);
    compare_delta_object(&j, "tokens_per_sec", a->tokens_per_sec, b->tokens_per_sec);
    compare_delta_object(&j, "mfu_pct", a->mfu_pct, b->mfu_pct);
    compare_delta_object(&j, "hbm_peak_gb", a->hbm_peak_gb, b->hbm_peak_gb);
    compare_delta_object(&j, "hbm_avg_gb", a->hbm_avg_gb, b->hbm_avg_gb);
    compare_delta_object(&j, "gpu_util_pct", a->gpu_util_pct, b->gpu_util_pct);
    /* the stored step time (/runs' step_time_seconds), not the buckets' sum: that is larger
     * when the waste exceeds the step and useful_gpu is clamped to 0 */
    compare_delta_object(&j, "step_seconds", a->step_seconds, b->step_seconds);
    jw_object_close(&j);
    jw_key(&j, "waste_budget");
    jw_object_open(&j);
    for (int i = 0; i < INGEST_WASTE_BUCKETS; i++) compare_delta_object(&j, INGEST_WASTE_KEYS[i], bucket(a, i), bucket(b, i));
    jw_object_close(&j);
    analysis_deltas(&j, a, b, diff);
    if (diff) compare_diff_write(diff, &j);
    bool tokens = a->tokens_per_sec.has && b->tokens_per_sec.has;
    double ta = a->tokens_per_sec.v, tb = b->tokens_per_sec.v;
    jw_key(&j, "speedup");
    if (tokens && ta > 0) saturated(&j, tb / ta);
    else jw_null(&j);
    char summary[800], tokens_text[200];
    if (tokens) compare_summary(ta, tb, tokens_text, sizeof tokens_text);
    else snprintf(tokens_text, sizeof tokens_text, "tokens/s not measured in %s", a->tokens_per_sec.has ? b->id : a->id);
    if (diff) {
        compare_diff_summary(diff, summary, sizeof summary - sizeof tokens_text - 4);
        size_t used = strlen(summary);
        snprintf(summary + used, sizeof summary - used, "; %s", tokens_text);
    } else {
        snprintf(summary, sizeof summary, "%s", tokens_text);
    }
    jw_key(&j, "summary");
    jw_string(&j, summary);
    jw_object_close(&j);
}
