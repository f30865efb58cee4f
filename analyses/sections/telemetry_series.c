/* telemetry_series: a GPU's telemetry over time in at most TS_MAX_POINTS power-of-two-wide
 * buckets, re-binned by doubling as the time range grows (the method is in
 * telemetry_series.h and docs/ANALYSIS.md "telemetry"). */
#include "analyses/sections/telemetry_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TS_TIME_LIMIT ((int64_t)1 << 62)

/* floor(x / 2^k) for any sign of x (|x| <= 2^62, 0 <= k < 63). */
static int64_t floor_shift(int64_t x, int k) {
    return x >= 0 ? x >> k : -(((-x) - 1) >> k) - 1;
}

/* The smallest shift >= at_least whose buckets hold [lo, hi] in TS_MAX_POINTS. */
static int fitting_shift(int64_t lo, int64_t hi, int at_least) {
    int k = at_least;
    while (k < 62 && floor_shift(hi, k) - floor_shift(lo, k) + 1 > TS_MAX_POINTS) k++;
    return k;
}

static void acc_merge(ts_acc *to, const ts_acc *from) {
    if (!from->n) return;
    if (!to->n || from->max > to->max) to->max = from->max;
    to->n += from->n;
    to->sum += from->sum;
}

static void bucket_merge(ts_bucket *to, const ts_bucket *from) {
    to->samples += from->samples;
    for (int q = 0; q < TS_QUANTITIES; q++) acc_merge(&to->q[q], &from->q[q]);
}

/* Makes s's buckets cover [lo, hi] with a width of at least 2^min_shift, moving its
 * buckets to the new grid. false on OOM (s unchanged). */
static bool rebin(telemetry_series *s, int64_t lo, int64_t hi, int min_shift) {
    int shift = fitting_shift(lo, hi, s->b && s->shift > min_shift ? s->shift : min_shift);
    int64_t base = floor_shift(lo, shift);
    if (s->b && shift == s->shift && base == s->base) return true;
    ts_bucket *nb = calloc(TS_MAX_POINTS, sizeof *nb);
    if (!nb) return false;
    for (size_t j = 0; s->b && j < TS_MAX_POINTS; j++) {
        if (!s->b[j].samples) continue;
        int64_t i = floor_shift(s->base + (int64_t)j, shift - s->shift) - base;
        if (i >= 0 && i < TS_MAX_POINTS) bucket_merge(&nb[i], &s->b[j]);
    }
    free(s->b);
    s->b = nb;
    s->shift = shift;
    s->base = base;
    return true;
}

bool ts_add(telemetry_series *s, int64_t t, const double v[TS_QUANTITIES], const bool has[TS_QUANTITIES]) {
    if (t < -TS_TIME_LIMIT || t > TS_TIME_LIMIT) return true;
    int64_t lo = s->any && s->t_min < t ? s->t_min : t, hi = s->any && s->t_max > t ? s->t_max : t;
    int64_t i = s->b ? floor_shift(t, s->shift) - s->base : -1;
    if (i < 0 || i >= TS_MAX_POINTS) {
        if (!rebin(s, lo, hi, 0)) return false;
        i = floor_shift(t, s->shift) - s->base;
    }
    s->t_min = lo, s->t_max = hi, s->any = true;
    ts_bucket *b = &s->b[i];
    b->samples++;
    for (int q = 0; q < TS_QUANTITIES; q++) {
        if (!has[q] || !isfinite(v[q])) continue;
        ts_acc *a = &b->q[q];
        if (!a->n || v[q] > a->max) a->max = v[q];
        a->n++;
        a->sum += v[q];
    }
    return true;
}

bool ts_merge(telemetry_series *dst, const telemetry_series *src) {
    if (!src->any) return true;
    int64_t lo = dst->any && dst->t_min < src->t_min ? dst->t_min : src->t_min;
    int64_t hi = dst->any && dst->t_max > src->t_max ? dst->t_max : src->t_max;
    if (!rebin(dst, lo, hi, src->shift)) return false;
    for (size_t j = 0; j < TS_MAX_POINTS; j++) {
        if (!src->b[j].samples) continue;
        int64_t i = floor_shift(src->base + (int64_t)j, dst->shift - src->shift) - dst->base;
        if (i >= 0 && i < TS_MAX_POINTS) bucket_merge(&dst->b[i], &src->b[j]);
    }
    dst->t_min = lo, dst->t_max = hi, dst->any = true;
    return true;
}

/* One array of the rendered series: per non-empty bucket, the mean or max of quantity q. */
static void render_column(const telemetry_series *s, jw_out *w, const char *key, int q, bool mean) {
    jw_key(w, key);
    jw_array_open(w);
    for (size_t j = 0; j < TS_MAX_POINTS; j++) {
        const ts_bucket *b = &s->b[j];
        if (!b->samples) continue;
        if (!b->q[q].n) jw_null(w);
        else jw_number(w, mean ? b->q[q].sum / (double)b->q[q].n : b->q[q].max);
    }
    jw_array_close(w);
}

void ts_render(const telemetry_series *s, jw_out *w) {
    if (!s->any || !s->b) { jw_null(w); return; }
    int64_t width = (int64_t)1 << s->shift;
    jw_object_open(w);
    jw_key(w, "bucket_ns");
    jw_int(w, width);
    jw_key(w, "t_ns");
    jw_array_open(w);
    for (size_t j = 0; j < TS_MAX_POINTS; j++)
        if (s->b[j].samples) jw_int(w, (s->base + (int64_t)j) * width);
    jw_array_close(w);
    jw_key(w, "samples");
    jw_array_open(w);
    for (size_t j = 0; j < TS_MAX_POINTS; j++)
        if (s->b[j].samples) jw_int(w, (int64_t)s->b[j].samples);
    jw_array_close(w);
    render_column(s, w, "util_mean_pct", TS_UTIL, true);
    render_column(s, w, "util_max_pct", TS_UTIL, false);
    render_column(s, w, "vram_mean_bytes", TS_VRAM, true);
    render_column(s, w, "vram_max_bytes", TS_VRAM, false);
    render_column(s, w, "power_mean_w", TS_POWER, true);
    render_column(s, w, "power_max_w", TS_POWER, false);
    jw_object_close(w);
}

void ts_free(telemetry_series *s) {
    free(s->b);
    memset(s, 0, sizeof *s);
}
