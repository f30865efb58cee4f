/* aie_aggregate: the system view of an mlir-aie run, the `aie_aggregate` section (derived
 * from aie_cores' finished result).
 *
 * Over the perf iterations present on every core (iteration j = each core's j-th perf
 * iteration, j below the smallest perf count; "unlabelled" iterations count as perf when
 * there is no aie_run.json; cores without any kernel pair are left out, with a note): the
 * runtime of iteration j is the slowest core's span, and its throughput
 * GMAC/s = M*K*N * clock_ghz / runtime_cycles (clock 1.25 GHz unless aie_run.json says).
 * runtime_cycles is the mean of the runtimes; gmacs_avg is the throughput at that mean
 * runtime, gmacs_best at the shortest runtime and gmacs_worst at the longest. GMAC/s are
 * null without M, K and N. peak_gmacs = macs_per_cycle (64 unless given) * clock * cores
 * (rows * cols when given, else the cores with pairs); efficiency_pct = gmacs_avg / peak.
 * null when aie_cores found no core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/sections/aie_cores.h"
#include "analyses/structures/name_agg.h"
#include "analyses/section_md.h"

typedef struct agg_iter {
    int64_t runtime;
    const char *slowest;
} agg_iter;

typedef struct aggregate_run {
    bool present;
    const analysis_config *settings; /* list_rows, read at render */
    size_t cores, common;
    agg_iter *iters;
    double runtime_avg, macs, clock;
    double peak;                     /* macs_per_cycle * clock * cores configured (GMAC/s) */
    int64_t runtime_min, runtime_max;
    bool has_macs;
    char note[256];
} aggregate_run;

static void *ag_open(const analysis_config *cfg, diag_list *diag) {
    (void)diag;
    aggregate_run *A = calloc(1, sizeof *A);
    if (A) A->settings = cfg;
    return A;
}

static bool is_perf(const aie_iter *it) { return it->label == AIE_LABEL_PERF || it->label == AIE_LABEL_UNLABELLED; }

/* The idx-th perf iteration of core c, or NULL. */
static const aie_iter *perf_iter(const aie_core *c, size_t idx) {
    for (size_t j = 0; j < c->n_iters; j++)
        if (is_perf(&c->iters[j]) && idx-- == 0) return &c->iters[j];
    return NULL;
}

static size_t perf_count(const aie_core *c) {
    size_t n = 0;
    for (size_t j = 0; j < c->n_iters; j++) n += is_perf(&c->iters[j]);
    return n;
}

static bool ag_finish(void *run, const section_results *earlier) {
    aggregate_run *A = run;
    const aie_cores_run *C = section_result(earlier, "aie_cores");
    if (!C || !C->n) return true;
    A->present = true;
    const aie_cfg *cfg = &C->cfg;
    A->clock = cfg->has[AIE_CLOCK_GHZ] ? cfg->v[AIE_CLOCK_GHZ] : 1.25;
    A->has_macs = cfg->has[AIE_M] && cfg->has[AIE_K] && cfg->has[AIE_N];
    if (A->has_macs) A->macs = cfg->v[AIE_M] * cfg->v[AIE_K] * cfg->v[AIE_N];
    double per_core = cfg->has[AIE_MACS_PER_CYCLE] ? cfg->v[AIE_MACS_PER_CYCLE] : 64.0;
    size_t min_perf = SIZE_MAX, max_perf = 0, skipped = 0;
    for (size_t i = 0; i < C->n; i++) {
        if (!C->cores[i].n_iters) { skipped++; continue; }
        size_t n = perf_count(&C->cores[i]);
        A->cores++;
        if (n < min_perf) min_perf = n;
        if (n > max_perf) max_perf = n;
    }
    A->common = A->cores ? min_perf : 0;
    double n_cores = cfg->has[AIE_ROWS] && cfg->has[AIE_COLS] ? cfg->v[AIE_ROWS] * cfg->v[AIE_COLS] : (double)A->cores;
    A->peak = per_core * A->clock * n_cores;
    int len = 0;
    if (skipped) len = snprintf(A->note, sizeof A->note, "%zu core(s) without kernel pairs left out", skipped);
    if (A->cores && min_perf != max_perf && len >= 0 && (size_t)len < sizeof A->note)
        len += snprintf(A->note + len, sizeof A->note - (size_t)len,
                        "%sperf iterations differ between cores (%zu to %zu): the first %zu, present on every core, "
                        "are aggregated", len ? "; " : "", min_perf, max_perf, min_perf);
    if (!A->has_macs && len >= 0 && (size_t)len < sizeof A->note)
        snprintf(A->note + len, sizeof A->note - (size_t)len, "%sM, K, N unknown (no aie_run.json?): GMAC/s null",
                 len ? "; " : "");
    if (!A->common) return true;
    A->iters = calloc(A->common, sizeof *A->iters);
    if (!A->iters) return false;
    double sum = 0;
    for (size_t j = 0; j < A->common; j++) {
        agg_iter *it = &A->iters[j];
        for (size_t i = 0; i < C->n; i++) {
            const aie_iter *ci = C->cores[i].n_iters ? perf_iter(&C->cores[i], j) : NULL;
            if (ci && (!it->slowest || ci->span_cycles > it->runtime)) it->runtime = ci->span_cycles, it->slowest = C->cores[i].tile;
        }
        sum += (double)it->runtime;
        if (!j || it->runtime < A->runtime_min) A->runtime_min = it->runtime;
        if (!j || it->runtime > A->runtime_max) A->runtime_max = it->runtime;
    }
    A->runtime_avg = sum / (double)A->common;
    return true;
}

/* GMAC/s at runtime `cycles`, or null. */
static void json_gmacs(const aggregate_run *A, jw_out *w, const char *key, double cycles) {
    jw_key(w, key);
    if (A->has_macs && A->common && cycles > 0) jw_number(w, A->macs * A->clock / cycles);
    else jw_null(w);
}

static void ag_render(const void *run, jw_out *w) {
    const aggregate_run *A = run;
    if (!A->present) { jw_null(w); return; }
    jw_object_open(w);
    jw_key(w, "cores");
    jw_u64(w, (uint64_t)A->cores);
    jw_key(w, "perf_iterations");
    jw_u64(w, (uint64_t)A->common);
    jw_key(w, "clock_ghz");
    jw_number(w, A->clock);
    jw_key(w, "macs");
    if (A->has_macs) jw_number(w, A->macs);
    else jw_null(w);
    size_t listed = section_listed(A->settings, A->common);
    jw_key(w, "iterations");
    jw_array_open(w);
    for (size_t j = 0; j < listed; j++) {
        jw_object_open(w);
        jw_key(w, "index");
        jw_int(w, (int64_t)j);
        jw_key(w, "runtime_cycles");
        jw_int(w, A->iters[j].runtime);
        jw_key(w, "slowest_tile");
        jw_string(w, A->iters[j].slowest);
        json_gmacs(A, w, "gmacs", (double)A->iters[j].runtime);
        jw_object_close(w);
    }
    jw_array_close(w);
    section_render_cut(w, "iterations_listed", "iterations_unlisted", "iterations", listed, A->common);
    jw_key(w, "runtime_cycles");
    if (A->common) jw_number(w, A->runtime_avg);
    else jw_null(w);
    jw_key(w, "runtime_min_cycles");
    if (A->common) jw_int(w, A->runtime_min);
    else jw_null(w);
    jw_key(w, "runtime_max_cycles");
    if (A->common) jw_int(w, A->runtime_max);
    else jw_null(w);
    json_gmacs(A, w, "gmacs_avg", A->runtime_avg);
    json_gmacs(A, w, "gmacs_best", (double)A->runtime_min);
    json_gmacs(A, w, "gmacs_worst", (double)A->runtime_max);
    jw_key(w, "peak_gmacs");
    if (A->peak > 0) jw_number(w, A->peak);
    else jw_null(w);
    jw_key(w, "efficiency_pct");
    if (A->peak > 0 && A->has_macs && A->common && A->runtime_avg > 0)
        jw_number(w, 100.0 * A->macs * A->clock / A->runtime_avg / A->peak);
    else jw_null(w);
    jw_key(w, "note");
    if (A->note[0]) jw_string(w, A->note);
    else jw_null(w);
    jw_object_close(w);
}

static void ag_render_md(const void *run, strbuf *out) {
    const aggregate_run *A = run;
    if (!A->present) return;
    smd_printf(out, "## AIE aggregate\n\n");
    smd_printf(out, "%zu core(s), %zu perf iteration(s) present on every core, clock %.3f GHz.\n\n", A->cores, A->common,
              A->clock);
    if (A->note[0]) { smd_printf(out, "Note: "); smd_text(out, A->note); smd_printf(out, ".\n\n"); }
    if (!A->common) return;
    smd_printf(out, "| Iteration | Runtime (cycles) | Slowest tile | GMAC/s |\n|---:|---:|---|---:|\n");
    size_t listed = section_listed(A->settings, A->common);
    for (size_t j = 0; j < listed; j++) {
        smd_printf(out, "| %zu | %lld | ", j, (long long)A->iters[j].runtime);
        smd_cell(out, A->iters[j].slowest, strlen(A->iters[j].slowest), SMD_NO_LIMIT);
        smd_printf(out, " | ");
        smd_value(out, A->has_macs ? A->macs * A->clock / (double)A->iters[j].runtime : 0, 3, A->has_macs && A->iters[j].runtime > 0);
        smd_printf(out, " |\n");
    }
    if (listed < A->common) smd_printf(out, "\n%zu more iterations (analysis_list_rows).\n", A->common - listed);
    smd_printf(out, "\n| | Runtime (cycles) | GMAC/s |\n|---|---:|---:|\n");
    const char *names[3] = {"Average", "Best", "Worst"};
    double rt[3] = {A->runtime_avg, (double)A->runtime_min, (double)A->runtime_max};
    for (int k = 0; k < 3; k++) {
        smd_printf(out, "| %s | %.1f | ", names[k], rt[k]);
        smd_value(out, A->has_macs && rt[k] > 0 ? A->macs * A->clock / rt[k] : 0, 3, A->has_macs && rt[k] > 0);
        smd_printf(out, " |\n");
    }
    if (A->peak > 0 && A->has_macs && A->runtime_avg > 0)
        smd_printf(out, "\nPeak %.3f GMAC/s (MACs per cycle x clock x cores); average efficiency %.2f%%.\n",
                  A->peak, 100.0 * A->macs * A->clock / A->runtime_avg / A->peak);
    smd_printf(out, "\n");
}

/* Numbers by path: "runtime_cycles", "gmacs_avg", "gmacs_best", "gmacs_worst", "cores",
 * "perf_iterations", "peak_gmacs", "efficiency_pct". */
static bool ag_number(const void *run, const char *path, double *out) {
    const aggregate_run *A = run;
    if (!A->present) return false;
    if (!strcmp(path, "cores")) { *out = (double)A->cores; return true; }
    if (!strcmp(path, "perf_iterations")) { *out = (double)A->common; return true; }
    if (!strcmp(path, "peak_gmacs") && A->peak > 0) { *out = A->peak; return true; }
    if (!strcmp(path, "efficiency_pct") && A->peak > 0 && A->has_macs && A->common && A->runtime_avg > 0) {
        *out = 100.0 * A->macs * A->clock / A->runtime_avg / A->peak;
        return true;
    }
    if (!A->common) return false;
    if (!strcmp(path, "runtime_cycles")) { *out = A->runtime_avg; return true; }
    double rt = !strcmp(path, "gmacs_avg") ? A->runtime_avg : !strcmp(path, "gmacs_best") ? (double)A->runtime_min
              : !strcmp(path, "gmacs_worst") ? (double)A->runtime_max : 0;
    if (!(rt > 0) || !A->has_macs) return false;
    *out = A->macs * A->clock / rt;
    return true;
}

static void ag_close(void *run) {
    aggregate_run *A = run;
    if (!A) return;
    free(A->iters);
    free(A);
}

const section_analysis aie_aggregate_analysis = {
    .key = "aie_aggregate",
    .wants = 0,
    .open = ag_open,
    .finish = ag_finish,
    .render = ag_render,
    .render_md = ag_render_md,
    .number = ag_number,
    .close = ag_close,
};
