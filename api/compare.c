/* compare: deltas between two runs. Extreme finite inputs (1e-300 against 1e300) overflow
 * differences and ratios; those saturate to +-DBL_MAX rather than fail the whole body or drop
 * a key, and what is undefined (a ratio to 0, NaN) is null. */
#include "api/compare.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/waste_budget.h"

static const char *const HEADLINE[] = {"tokens_per_sec", "mfu_pct", "hbm_peak_gb", "hbm_avg_gb", "gpu_util_pct", NULL};

static double num(json_t *obj, const char *key) { return json_number_value(json_object_get(obj, key)); }

/* A JSON number for v: an overflow to +-inf saturates to +-DBL_MAX; NaN has no value (null).
 * jansson refuses non-finite reals, which used to make the whole /compare body vanish. */
static json_t *saturated(double v) {
    if (isnan(v)) return json_null();
    if (isinf(v)) v = v > 0 ? DBL_MAX : -DBL_MAX;
    return json_real(v);
}

/* {base, candidate, delta, delta_pct}; a side not measured is null, and so is the delta. */
static json_t *delta(double a, bool ka, double b, bool kb) {
    double d = b - a;
    bool both = ka && kb;
    return json_pack("{s:o, s:o, s:o, s:o}", "base", ka ? saturated(a) : json_null(),
                     "candidate", kb ? saturated(b) : json_null(), "delta", both ? saturated(d) : json_null(),
                     "delta_pct", both && a != 0.0 ? saturated(d / a * 100.0) : json_null());
}

/* Whether headline number `key` (or step_seconds, or a waste bucket) was measured. */
static bool measured(const headline_known *k, const char *key) {
    if (!k) return true;
    if (!strcmp(key, "tokens_per_sec")) return k->tokens_per_sec;
    if (!strcmp(key, "mfu_pct")) return k->mfu_pct;
    if (!strcmp(key, "gpu_util_pct")) return k->gpu_util_pct;
    if (!strcmp(key, "hbm_peak_gb") || !strcmp(key, "hbm_avg_gb")) return k->hbm;
    return k->step_time;                        /* step_seconds and the waste buckets */
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

static double step_of(json_t *m) {
    json_t *wb = json_object_get(m, "waste_budget");
    double s = 0;
    for (int i = 0; i < W_COUNT; i++) s += num(wb, WASTE_BUCKETS[i]);
    return s;
}

json_t *compare_runs(const char *base_id, json_t *base, const headline_known *base_known, const char *cand_id,
                     json_t *cand, const headline_known *cand_known) {
    const headline_known *ka = base_known, *kb = cand_known;
    json_t *head = json_object();
    for (size_t i = 0; HEADLINE[i]; i++)
        json_object_set_new(head, HEADLINE[i], delta(num(base, HEADLINE[i]), measured(ka, HEADLINE[i]),
                                                     num(cand, HEADLINE[i]), measured(kb, HEADLINE[i])));
    json_object_set_new(head, "step_seconds", delta(step_of(base), measured(ka, "step_seconds"), step_of(cand),
                                                    measured(kb, "step_seconds")));
    json_t *waste = json_object();
    json_t *wa = json_object_get(base, "waste_budget"), *wb = json_object_get(cand, "waste_budget");
    for (int i = 0; i < W_COUNT; i++)
        json_object_set_new(waste, WASTE_BUCKETS[i], delta(num(wa, WASTE_BUCKETS[i]), measured(ka, "step_seconds"),
                                                           num(wb, WASTE_BUCKETS[i]), measured(kb, "step_seconds")));
    bool tokens = measured(ka, "tokens_per_sec") && measured(kb, "tokens_per_sec");
    double ta = num(base, "tokens_per_sec"), tb = num(cand, "tokens_per_sec");
    char summary[160];
    if (tokens) compare_summary(ta, tb, summary, sizeof summary);
    else snprintf(summary, sizeof summary, "tokens/s not measured in %s", measured(ka, "tokens_per_sec") ? cand_id : base_id);
    return json_pack("{s:{s:s, s:O}, s:{s:s, s:O}, s:o, s:o, s:o, s:s}",
                     "base", "id", base_id, "metrics", base,
                     "candidate", "id", cand_id, "metrics", cand,
                     "headline", head, "waste_budget", waste,
                     "speedup", tokens && ta > 0 ? saturated(tb / ta) : json_null(), "summary", summary);
}
