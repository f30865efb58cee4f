/* waste_budget: RunMetrics from summaries, bucket by bucket as the reference computes them.
 *
 * Kernel sums are exact 128-bit integers (Python ints); floating-point expressions keep
 * the reference's evaluation order so results match it to the last bit in practice. */
#include "core/waste_budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HBM_TOTAL_GB 192.0
#define HBM_HEALTHY_TARGET 0.70

const char *const WASTE_BUCKETS[W_COUNT] = {"useful_gpu", "data_wait", "host_gap", "comm_excess",
    "memory_headroom", "precision_path", "kernel_shape"};

static int by_time(const void *a, const void *b, void *table) {
    const kernel_table *t = table;
    const kernel_stat *x = &t->items[*(const size_t *)a], *y = &t->items[*(const size_t *)b];
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    return x->first_seen < y->first_seen ? -1 : x->first_seen > y->first_seen;
}

/* Kernel indices ordered by total time (desc), ties by first appearance; caller frees. */
static size_t *waste_kernels_by_time(const kernel_table *t) {
    size_t *idx = malloc((t->count ? t->count : 1) * sizeof *idx);
    if (!idx) return NULL;
    for (size_t i = 0; i < t->count; i++) idx[i] = i;
    /* first_seen is unique, so the order is total: a plain sort is deterministic */
    qsort_r(idx, t->count, sizeof *idx, by_time, (void *)t);
    return idx;
}

typedef struct kernel_sums {
    i128 total, collective, gemm, generic_gemm, f16, b16;
} kernel_sums;

/* Adds ns to the total and to every family its flags put it in (saturating). */
static void add_family(kernel_sums *s, unsigned flags, unsigned gemm_flag, i128 ns) {
    s->total = i128_add(s->total, ns);
    if (flags & KF_COLLECTIVE) s->collective = i128_add(s->collective, ns);
    if (flags & gemm_flag) {
        s->gemm = i128_add(s->gemm, ns);
        if (flags & KF_GENERIC) s->generic_gemm = i128_add(s->generic_gemm, ns);
    }
    if (flags & KF_FP16) s->f16 = i128_add(s->f16, ns);
    if (flags & KF_BF16) s->b16 = i128_add(s->b16, ns);
}

static kernel_sums sum_kernels(const kernel_table *t, bool seed_compat) {
    kernel_sums s = {0};
    unsigned gemm_flag = seed_compat ? KF_GEMM_SEED : KF_GEMM_WIDE;
    for (size_t i = 0; i < t->count; i++) {
        const kernel_stat *k = &t->items[i];
        add_family(&s, k->flags, gemm_flag, k->total_ns);
    }
    const kernel_overflow *o = &t->overflow;         /* names beyond the table's caps */
    for (unsigned f = 0; f < 64; f++)
        if (o->ns_by_flags[f]) add_family(&s, f, gemm_flag, o->ns_by_flags[f]);
    return s;
}

static const char *attention_of(const kernel_table *t) {
    const kernel_stat *first = NULL;
    for (size_t i = 0; i < t->count; i++)
        if (t->items[i].attn != ATTN_NONE && (!first || t->items[i].first_seen < first->first_seen))
            first = &t->items[i];
    attn_kind a = first ? first->attn : ATTN_NONE;
    if (t->overflow.attn != ATTN_NONE && (!first || t->overflow.attn_seen < first->first_seen)) a = t->overflow.attn;
    if (a != ATTN_NONE) return a == ATTN_FLASH_ROCM ? "flash_rocm" : a == ATTN_FLASH ? "flash" : "sdpa";
    return t->dispatches ? "eager" : "unknown";
}

static double opt_or(opt_num n, double dflt) { return n.has && n.v != 0.0 ? n.v : dflt; }

void waste_budget_compute(const waste_inputs *in, run_metrics *m) {
    const kernel_table *kt = &in->kernels->kernels;
    const torch_summary *tr = in->torch;
    const telemetry_summary *sm = in->telemetry;
    kernel_sums ks = sum_kernels(kt, in->seed_compat);

    /* default mode, no ProfilerStep events or metadata step time: the span covers every
     * step, and without a step count it is one step (not the original's guess of 10) */
    bool span_only = tr->step_time_is_span && !in->seed_compat;
    m->steps = in->steps_given ? in->steps : tr->n_steps ? tr->n_steps : tr->profiled_steps ? tr->profiled_steps
             : span_only ? 1 : 10;
    m->steps_source = in->steps_given ? "flag" : tr->n_steps ? "metadata" : tr->profiled_steps ? "profiler_steps" : "default";
    m->step_time_source = tr->facts.step_time_source ? tr->facts.step_time_source : "none";
    m->span_is_steps = span_only;
    opt_num step_time = tr->step_time_seconds;
    if (span_only) {
        double per = step_time.v / (double)m->steps;        /* the reference divides; 0 steps has no answer */
        step_time = isfinite(per) ? (opt_num){true, per} : (opt_num){0};
        m->step_time_source = "span_per_step";
    }
    m->step_time = step_time;
    /* steps for per-step sums: the profiled steps, else the metadata's, else the answer above */
    int64_t profiled = in->seed_compat ? 1 : tr->profiled_steps ? tr->profiled_steps : tr->n_steps ? tr->n_steps : m->steps;
    m->tokens_per_sec = opt_or(tr->tokens_per_sec, 0.0);
    m->mfu_pct = opt_or(tr->mfu_pct, 0.0);
    m->hbm_peak_gb = opt_or(sm->hbm_peak_gb, 0.0);
    m->hbm_avg_gb = opt_or(sm->hbm_avg_gb, 0.0);

    double gpu_util = 0.0;
    m->gpu_util_known = true;
    if (sm->gpu_util_pct.has) gpu_util = sm->gpu_util_pct.v;
    else if (!(kt->dispatches && step_time.has && step_time.v != 0.0)) m->gpu_util_known = false;
    else {
        /* default mode: kernel time over all profiled steps' time, not one step's */
        double u = (double)ks.total / (step_time.v * (double)profiled * 1e9) * 100.0;
        gpu_util = u < 100.0 ? u : 100.0;
    }
    m->gpu_util_pct = gpu_util;

    /* top kernels */
    size_t *idx = waste_kernels_by_time(kt);
    if (!idx) diag_oom(&m->warnings, "top_kernels: out of memory ordering %zu kernels", kt->count);
    double total = ks.total ? (double)ks.total : 1.0;
    m->n_top = 0;
    for (size_t i = 0; idx && i < kt->count && i < TOP_KERNELS; i++) {
        const kernel_stat *k = &kt->items[idx[i]];
        m->top[m->n_top++] = (top_kernel){k->name, k->name_len, (double)k->total_ns / total * 100.0};
    }
    free(idx);
    m->attention = attention_of(kt);

    /* waste budget, seconds per step */
    memset(m->waste, 0, sizeof m->waste);
    double step = opt_or(step_time, 0.0);
    if (step > 0) {
        int64_t comm_steps = profiled < 1 ? 1 : profiled;
        double gu = gpu_util / 100.0;
        double hb = opt_or(tr->host_busy_fraction, 0.0);
        double data_wait = gu < 0.30 && hb > 0.5 ? step * (1 - gu) * hb : 0.0;
        double host_gap = step * (1 - gu) * (1 - hb);
        double comm = (double)ks.collective / 1e9 / (double)comm_steps;
        double gemm_ns = ks.gemm ? (double)ks.gemm : 1.0;
        double kernel_shape = (double)ks.generic_gemm / gemm_ns * step * gu;
        double precision_path = 0.0;
        const char *pr = in->precision;
        if (!pr || !strcmp(pr, "fp16") || !strcmp(pr, "fp32")) {
            i128 halves = i128_add(ks.f16, ks.b16);
            if (halves > 0) precision_path = (double)ks.f16 / (double)halves * step * gu * 0.10;
        }
        double headroom = 0.0;
        double peak = sm->hbm_peak_gb.has ? sm->hbm_peak_gb.v : 0.0;
        if (peak > 0 && peak / HBM_TOTAL_GB < HBM_HEALTHY_TARGET) {
            double slack = (HBM_HEALTHY_TARGET - peak / HBM_TOTAL_GB) / HBM_HEALTHY_TARGET;
            headroom = slack * step * 0.05;
        }
        double spent = data_wait + host_gap + comm + kernel_shape + precision_path + headroom;
        double useful = step - spent;
        m->waste[W_USEFUL_GPU] = useful > 0.0 ? useful : 0.0;
        m->waste[W_DATA_WAIT] = data_wait;
        m->waste[W_HOST_GAP] = host_gap;
        m->waste[W_COMM_EXCESS] = comm;
        m->waste[W_MEMORY_HEADROOM] = headroom;
        m->waste[W_PRECISION_PATH] = precision_path;
        m->waste[W_KERNEL_SHAPE] = kernel_shape;
    }
    m->rocm_version = sm->rocm_version ? sm->rocm_version : "unknown";
    m->pytorch_version = tr->pytorch_version ? tr->pytorch_version : "unknown";
}

/* Clamps *v into [lo, hi] (hi < 0: no upper bound), warning with the field's name. */
static void clamp(run_metrics *m, const char *field, double *v, double lo, double hi) {
    if (isnan(*v) || *v >= lo) {
        if (hi < 0 || !(*v > hi)) return;
        diag_add_reserved(&m->warnings, "%s was %.17g, above the schema's maximum; reported as %g", field, *v, hi);
        *v = hi;
        return;
    }
    diag_add_reserved(&m->warnings, "%s was %.17g, below the schema's minimum; reported as %g", field, *v, lo);
    *v = lo;
}

void waste_budget_clamp(run_metrics *m) {
    if (m->steps < 0) {
        diag_add_reserved(&m->warnings, "steps was %lld, below the schema's minimum; reported as 0", (long long)m->steps);
        m->steps = 0;
    }
    clamp(m, "tokens_per_sec", &m->tokens_per_sec, 0, -1);
    clamp(m, "mfu_pct", &m->mfu_pct, 0, -1);
    clamp(m, "hbm_peak_gb", &m->hbm_peak_gb, 0, -1);
    clamp(m, "hbm_avg_gb", &m->hbm_avg_gb, 0, -1);
    clamp(m, "gpu_util_pct", &m->gpu_util_pct, 0, 100);
    for (size_t i = 0; i < m->n_top; i++) clamp(m, "top_kernels.pct_time", &m->top[i].pct_time, 0, 100);
    for (int b = 0; b < W_COUNT; b++) clamp(m, WASTE_BUCKETS[b], &m->waste[b], 0, -1);
}
