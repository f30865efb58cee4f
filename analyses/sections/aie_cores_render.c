/* aie_cores_render: the `aie_cores` section as JSON and as report.md's per-core details, with
 * what mlir-aie's trace post-processor reports per core: the lock-stall boundaries, the expected
 * iteration count (warm-up + performance), the performance window, each iteration's absolute
 * first start and last end, and the best and worst iteration. The analysis is aie_cores.c. */
#include <stdio.h>
#include <string.h>

#include "analyses/sections/aie_cores.h"
#include "analyses/structures/name_agg.h"
#include "analyses/section_md.h"

/* What a core's iterations say as a whole (docs/ANALYSIS.md ## aie_cores, item 7). */
typedef struct core_summary {
    bool has_expected, has_window, has_best;
    uint64_t expected;
    size_t window_first, window_last;
    size_t best, worst;                /* iteration indices */
} core_summary;

/* Whether iteration it takes part in the performance window: `perf`, or every iteration when
 * none is labelled (no aie_run.json: all `unlabelled`). */
static bool in_window(const aie_iter *it, bool labelled) {
    return labelled ? it->label == AIE_LABEL_PERF : true;
}

static core_summary summarise(const aie_cores_run *R, const aie_core *c) {
    core_summary s = {0};
    if (R->cfg.has[AIE_ITERATIONS]) {
        s.has_expected = true;
        s.expected = (uint64_t)R->cfg.v[AIE_ITERATIONS] + (R->cfg.has[AIE_WARMUP] ? (uint64_t)R->cfg.v[AIE_WARMUP] : 0);
    }
    bool labelled = false;
    for (size_t j = 0; j < c->n_iters; j++) labelled |= c->iters[j].label != AIE_LABEL_UNLABELLED;
    for (size_t j = 0; j < c->n_iters; j++) {
        const aie_iter *it = &c->iters[j];
        if (!in_window(it, labelled)) continue;
        if (!s.has_window) s.window_first = j, s.has_window = true;
        s.window_last = j;
        if (!s.has_best) { s.best = s.worst = j; s.has_best = true; continue; }
        if (it->span_cycles < c->iters[s.best].span_cycles) s.best = j;       /* ties: the first */
        if (it->span_cycles > c->iters[s.worst].span_cycles) s.worst = j;
    }
    return s;
}

/* {index, runtime_cycles} of iteration j, or null. */
static void iteration_ref(jw_out *w, const char *key, const aie_core *c, bool has, size_t j) {
    jw_key(w, key);
    if (!has) { jw_null(w); return; }
    jw_object_open(w);
    jw_key(w, "index");
    jw_int(w, (int64_t)j);
    jw_key(w, "runtime_cycles");
    jw_int(w, c->iters[j].span_cycles);
    jw_object_close(w);
}

static void summary_json(jw_out *w, const aie_core *c, const core_summary *s) {
    jw_key(w, "lock_stall_boundaries");
    jw_u64(w, c->lock_stall_boundaries);
    jw_key(w, "expected_iterations");
    if (s->has_expected) jw_u64(w, s->expected); else jw_null(w);
    jw_key(w, "performance_window");
    if (s->has_window) {
        jw_array_open(w);
        jw_int(w, (int64_t)s->window_first);
        jw_int(w, (int64_t)s->window_last);
        jw_array_close(w);
    } else {
        jw_null(w);
    }
    iteration_ref(w, "best_iteration", c, s->has_best, s->best);
    iteration_ref(w, "worst_iteration", c, s->has_best, s->worst);
}

/* The section as JSON (an array by tile, or null without cores). */
void aie_cores_render(const aie_cores_run *R, jw_out *w) {
    if (!R->n) { jw_null(w); return; }
    jw_array_open(w);
    for (size_t i = 0; i < section_listed(R->settings, R->n); i++) {   /* "cores" (number) counts them all */
        const aie_core *c = &R->cores[i];
        jw_object_open(w);
        jw_key(w, "tile");
        jw_string(w, c->tile);
        jw_key(w, "kernels");
        jw_u64(w, (uint64_t)c->pairs);
        jw_key(w, "median_cycles");
        if (c->has_median) jw_number(w, c->median_cycles);
        else jw_null(w);
        jw_key(w, "dropped_duplicates");
        jw_u64(w, (uint64_t)c->duplicates);
        jw_key(w, "dropped_outliers");
        jw_u64(w, (uint64_t)c->outliers);
        jw_key(w, "orphans");
        jw_u64(w, (uint64_t)c->orphans);
        core_summary sum = summarise(R, c);
        summary_json(w, c, &sum);
        size_t listed = section_listed(R->settings, c->n_iters);
        jw_key(w, "iterations");
        jw_array_open(w);
        for (size_t j = 0; j < listed; j++) {
            const aie_iter *it = &c->iters[j];
            jw_object_open(w);
            jw_key(w, "index");
            jw_int(w, (int64_t)j);
            jw_key(w, "label");
            jw_string(w, aie_label_name(it->label));
            jw_key(w, "kernels");
            jw_u64(w, (uint64_t)it->kernels);
            jw_key(w, "avg_cycles");
            jw_number(w, it->avg_cycles);
            jw_key(w, "min_cycles");
            jw_int(w, it->min_cycles);
            jw_key(w, "max_cycles");
            jw_int(w, it->max_cycles);
            jw_key(w, "span_cycles");
            jw_int(w, it->span_cycles);
            jw_key(w, "first_start");
            jw_int(w, it->first_start);
            jw_key(w, "last_end");
            jw_int(w, it->last_end);
            jw_key(w, "gmacs");
            if (it->has_gmacs) jw_number(w, it->gmacs);
            else jw_null(w);
            jw_object_close(w);
        }
        jw_array_close(w);
        section_render_cut(w, "iterations_listed", "iterations_unlisted", "iterations", listed, c->n_iters);
        jw_key(w, "note");
        if (c->note[0]) jw_string(w, c->note);
        else if (R->note[0]) jw_string(w, R->note);
        else jw_null(w);
        jw_object_close(w);
    }
    jw_array_close(w);
}

/* report.md: per core, its counts, the post-processor's summary line and one table of iterations. */
void aie_cores_render_md(const aie_cores_run *R, strbuf *out) {
    if (!R->n) return;
    smd_printf(out, "## AIE cores\n\n");
    if (R->note[0]) { smd_printf(out, "Note: "); smd_text(out, R->note); smd_printf(out, ".\n\n"); }
    size_t tiles = section_listed(R->settings, R->n);
    if (tiles < R->n) smd_printf(out, "The first %zu of %zu tiles (analysis_list_rows).\n\n", tiles, R->n);
    for (size_t i = 0; i < tiles; i++) {
        const aie_core *c = &R->cores[i];
        smd_printf(out, "### Tile ");
        smd_cell(out, c->tile, strlen(c->tile), SMD_NO_LIMIT);
        smd_printf(out, "\n\n%llu kernels paired", (unsigned long long)c->pairs);
        if (c->has_median) smd_printf(out, ", median %.1f cycles", c->median_cycles);
        smd_printf(out, "; dropped %llu duplicate markers, %llu outliers; %llu orphan markers ignored.\n\n",
                  (unsigned long long)c->duplicates, (unsigned long long)c->outliers, (unsigned long long)c->orphans);
        if (c->note[0]) { smd_printf(out, "Note: "); smd_text(out, c->note); smd_printf(out, ".\n\n"); }
        core_summary sum = summarise(R, c);
        smd_printf(out, "Lock-stall boundaries: %llu. Iterations: %zu detected", (unsigned long long)c->lock_stall_boundaries,
                   c->n_iters);
        if (sum.has_expected) smd_printf(out, ", %llu expected (warm-up + performance)", (unsigned long long)sum.expected);
        if (sum.has_window) smd_printf(out, "; performance window %zu..%zu", sum.window_first, sum.window_last);
        if (sum.has_best)
            smd_printf(out, "; best iteration %zu (%lld cycles), worst %zu (%lld cycles)", sum.best,
                       (long long)c->iters[sum.best].span_cycles, sum.worst, (long long)c->iters[sum.worst].span_cycles);
        smd_printf(out, ".\n\n");
        if (!c->n_iters) continue;
        smd_printf(out, "| Iteration | Label | Kernels | Avg (cycles) | Min | Max | First start | Last end | Span (cycles) | GMAC/s |\n");
        smd_printf(out, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        size_t listed = section_listed(R->settings, c->n_iters);
        for (size_t j = 0; j < listed; j++) {
            const aie_iter *it = &c->iters[j];
            smd_printf(out, "| %zu | %s | %llu | %.1f | %lld | %lld | %lld | %lld | %lld | ", j, aie_label_name(it->label),
                      (unsigned long long)it->kernels, it->avg_cycles, (long long)it->min_cycles,
                      (long long)it->max_cycles, (long long)it->first_start, (long long)it->last_end,
                      (long long)it->span_cycles);
            smd_value(out, it->gmacs, 3, it->has_gmacs);
            smd_printf(out, " |\n");
        }
        if (listed < c->n_iters) smd_printf(out, "\n%zu more iterations (analysis_list_rows).\n", c->n_iters - listed);
        smd_printf(out, "\n");
    }
}

