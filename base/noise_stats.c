/* noise_stats: bootstrap and Welch intervals for "is this change more than noise?" (see the
 * header; the method and its calibration are in docs/ANALYSIS.md "Comparing two runs"). */
#include "base/noise_stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *ns_verdict_name(ns_verdict v) {
    switch (v) {
    case NS_FASTER: return "faster";
    case NS_SLOWER: return "slower";
    case NS_WITHIN_NOISE: return "within_noise";
    case NS_UNKNOWN: break;
    }
    return "unknown";
}

/* The k-th smallest of v[0..n) (Hoare's selection; v is reordered). */
static double select_kth(double *v, size_t n, size_t k) {
    assert(k < n);
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                double t = v[i]; v[i] = v[j]; v[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return v[k];
    }
    return v[k];
}

double ns_median(double *v, size_t n) {
    assert(n > 0);
    double hi = select_kth(v, n, n / 2);
    if (n % 2) return hi;
    /* the lower middle is the largest of the part below n/2 */
    double lo = v[0];
    for (size_t i = 1; i < n / 2; i++) if (v[i] > lo) lo = v[i];
    return (lo + hi) / 2.0;
}

/* splitmix64: the bootstrap's generator (its state is the caller's, so ingests in parallel
 * never share it). */
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The median of n values drawn with replacement from sorted[0..n): the draws are counted per
 * position (counts, n entries) and the middle found by a running sum, O(n) without moving values. */
static double resampled_median(const double *sorted, size_t n, uint32_t *counts, uint64_t *state) {
    memset(counts, 0, n * sizeof *counts);
    for (size_t i = 0; i < n; i++) counts[(size_t)(((unsigned __int128)next_random(state) * n) >> 64)]++;
    size_t lo_rank = (n - 1) / 2, hi_rank = n / 2, seen = 0;     /* 0-based ranks of the middle pair */
    double lo = 0;
    for (size_t i = 0; i < n; i++) {
        seen += counts[i];
        if (seen > lo_rank && lo_rank != SIZE_MAX) { lo = sorted[i]; lo_rank = SIZE_MAX; }
        if (seen > hi_rank) return (lo + sorted[i]) / 2.0;
    }
    assert(!"the counts add up to n");
    return lo;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The q-quantile of sorted s[0..n) with linear interpolation between order statistics. */
static double sorted_quantile(const double *s, size_t n, double q) {
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n) return s[n - 1];
    return s[i] + (pos - (double)i) * (s[i + 1] - s[i]);
}

/* The verdict of an interval of a duration's change: wholly below 0 is faster. */
static ns_verdict interval_verdict(double low, double high) {
    if (high < 0) return NS_FASTER;
    if (low > 0) return NS_SLOWER;
    return NS_WITHIN_NOISE;
}

/* Whether every value of a and b is the same one (resampling cannot move the medians). */
static bool all_equal(const double *a, size_t na, const double *b, size_t nb) {
    double v = na ? a[0] : b[0];
    for (size_t i = 0; i < na; i++) if (a[i] != v) return false;
    for (size_t i = 0; i < nb; i++) if (b[i] != v) return false;
    return true;
}

bool ns_median_diff(const double *a, size_t na, const double *b, size_t nb, ns_result *out,
                    double *med_a, double *med_b, bool *has_med) {
    memset(out, 0, sizeof *out);
    has_med[0] = na > 0, has_med[1] = nb > 0;
    size_t most = na > nb ? na : nb;
    double *sa = malloc((na ? na : 1) * sizeof *sa), *sb = malloc((nb ? nb : 1) * sizeof *sb);
    double *diffs = malloc(NS_BOOTSTRAP_ROUNDS * sizeof *diffs);
    uint32_t *counts = malloc((most ? most : 1) * sizeof *counts);
    bool ok = sa && sb && diffs && counts;
    if (!ok) goto out;
    if (na) memcpy(sa, a, na * sizeof *a);   /* an empty side may be NULL (a run without per-step times) */
    if (nb) memcpy(sb, b, nb * sizeof *b);
    qsort(sa, na, sizeof *sa, cmp_double);
    qsort(sb, nb, sizeof *sb, cmp_double);
    if (na) *med_a = (sa[(na - 1) / 2] + sa[na / 2]) / 2.0;
    if (nb) *med_b = (sb[(nb - 1) / 2] + sb[nb / 2]) / 2.0;
    if (na && nb) out->delta = *med_b - *med_a;
    if (na < NS_MIN_STEPS || nb < NS_MIN_STEPS || *med_a == 0.0) {
        out->verdict = NS_UNKNOWN;
        goto out;
    }
    out->delta_pct = out->delta / *med_a * 100.0;
    out->has_ci = true;
    if (all_equal(a, na, b, nb)) {                 /* no spread at all: the interval is [0, 0] */
        out->verdict = NS_WITHIN_NOISE;
        goto out;
    }
    uint64_t state = NS_BOOTSTRAP_SEED;
    for (size_t r = 0; r < NS_BOOTSTRAP_ROUNDS; r++) {
        double ma = resampled_median(sa, na, counts, &state);
        diffs[r] = resampled_median(sb, nb, counts, &state) - ma;
    }
    qsort(diffs, NS_BOOTSTRAP_ROUNDS, sizeof *diffs, cmp_double);
    out->ci_low_pct = sorted_quantile(diffs, NS_BOOTSTRAP_ROUNDS, 0.025) / *med_a * 100.0;
    out->ci_high_pct = sorted_quantile(diffs, NS_BOOTSTRAP_ROUNDS, 0.975) / *med_a * 100.0;
    out->verdict = interval_verdict(out->ci_low_pct, out->ci_high_pct);
out:
    free(sa);
    free(sb);
    free(diffs);
    free(counts);
    return ok;
}

/* The continued fraction of the regularized incomplete beta I_x(a, b) (modified Lentz). */
static double beta_fraction(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + num * d; if (fabs(d) < tiny) d = tiny;
        c = 1.0 + num / c; if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d; h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + num * d; if (fabs(d) < tiny) d = tiny;
        c = 1.0 + num / c; if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < 1e-15) break;
    }
    return h;
}

/* I_x(a, b), the regularized incomplete beta function, for x in [0, 1]. */
static double incomplete_beta(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
    return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

/* P(|T| > t) for Student's t with df degrees of freedom, t >= 0. */
static double t_two_tail(double t, double df) {
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double ns_t_quantile(double alpha, double df) {
    assert(alpha > 0 && alpha < 1 && df > 0);
    double lo = 0.0, hi = 1.0;
    while (t_two_tail(hi, df) > alpha && hi < 1e12) hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
        double mid = (lo + hi) / 2.0;
        if (t_two_tail(mid, df) > alpha) lo = mid; else hi = mid;
    }
    return (lo + hi) / 2.0;
}

void ns_welch(uint64_t na, double mean_a, double sd_a, uint64_t nb, double mean_b, double sd_b,
              double alpha, ns_result *out) {
    memset(out, 0, sizeof *out);
    out->delta = mean_b - mean_a;
    if (na < NS_MIN_CALLS || nb < NS_MIN_CALLS || mean_a == 0.0 || !isfinite(sd_a) || !isfinite(sd_b)) {
        out->verdict = NS_UNKNOWN;
        return;
    }
    double va = sd_a * sd_a / (double)na, vb = sd_b * sd_b / (double)nb;
    if (!isfinite(va + vb) || !isfinite(va * va + vb * vb)) {   /* a deviation whose square overflows (a
                                                                 * file's 1e300): no interval, and no NaN
                                                                 * degrees of freedom for the t quantile */
        out->verdict = NS_UNKNOWN;
        return;
    }
    double se = sqrt(va + vb), half = 0.0;
    if (se > 0.0) {
        double df = (va + vb) * (va + vb) /
                    (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
        half = ns_t_quantile(alpha, df) * se;
    }
    out->delta_pct = out->delta / mean_a * 100.0;
    out->ci_low_pct = (out->delta - half) / mean_a * 100.0;
    out->ci_high_pct = (out->delta + half) / mean_a * 100.0;
    if (!isfinite(out->ci_low_pct) || !isfinite(out->ci_high_pct) || !isfinite(out->delta_pct)) {
        out->verdict = NS_UNKNOWN;          /* (means far apart relative to mean_a) no interval, unknown */
        return;
    }
    out->has_ci = true;
    out->verdict = interval_verdict(out->ci_low_pct, out->ci_high_pct);
}
