/* npu_hotspots: duration-gap hotspots of Ascend operators against reference durations,
 * the `npu_hotspots` section (derived from npu_ops' finished result).
 *
 * A signature is a hotspot when profiled / reference (its average over the reference's
 * Average Duration) lies outside [0.8, 1.2]. Beside it, the original tool's comparison: the
 * run's minimum over the reference's `Profiling Average Duration(us)` (when the reference row
 * has that column), with the same band. The array lists the signatures outside the band by
 * either: goblind's hotspots first, sorted by how far off they are, max(ratio, 1/ratio)
 * descending (a 2x slower and a 2x faster operator rank alike; ties by total profiled time,
 * descending), then those outside by the original's comparison only, by its own max(r, 1/r)
 * descending. null when npu_ops did not run,
 * saw no operator, or no reference was given. Its report.md part lists the hotspots, the
 * signatures missing from the reference and the duplicated reference signatures. */
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section_md.h"
#include "analyses/sections/npu_ops.h"

#define BAND_LOW 0.8
#define BAND_HIGH 1.2

typedef struct hot {
    size_t group;
    double ratio, off;               /* goblind's: average / Average Duration */
    bool average_hot;                /* outside the band by goblind's comparison */
    bool has_original;               /* the reference row has a positive Profiling Average */
    double original_ratio, original_off;   /* minimum / Profiling Average Duration */
    bool original_hot;
} hot;

typedef struct hotspots_run {
    const npu_ops_run *ops;          /* npu_ops' result, NULL when absent */
    diag_list *diag;
    hot *items;
    size_t n;                        /* items: outside the band by either comparison */
    size_t n_average;                /* of which outside by goblind's (the number `count`) */
} hotspots_run;

static void *nh_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg;                       /* npu_ops' (the same settings) is read at render */
    hotspots_run *H = calloc(1, sizeof *H);
    if (H) H->diag = diag;
    return H;
}

static double avg_us(const npu_group *g) { return (double)g->sum_ns / (double)g->count / 1000.0; }

/* How far off a ratio is: max(r, 1/r) (a huge number for 0). */
static double off_by(double r) { return r >= 1 ? r : (r > 0 ? 1 / r : 1e300); }

/* Farthest off first; ties by total time, then key (qsort_r: runs finish on several threads). */
static int cmp_off(const void *a, const void *b, void *ctx) {
    const npu_ops_run *cmp_ops = ctx;
    const hot *x = a, *y = b;
    if (x->average_hot != y->average_hot) return x->average_hot ? -1 : 1;
    double ox = x->average_hot ? x->off : x->original_off, oy = y->average_hot ? y->off : y->original_off;
    if (ox != oy) return ox > oy ? -1 : 1;
    const npu_group *gx = &cmp_ops->t.groups[x->group], *gy = &cmp_ops->t.groups[y->group];
    if (gx->sum_ns != gy->sum_ns) return gx->sum_ns > gy->sum_ns ? -1 : 1;
    return strcmp(gx->key, gy->key);
}

static bool nh_finish(void *run, const section_results *earlier) {
    hotspots_run *H = run;
    const npu_ops_run *ops = section_result(earlier, "npu_ops");
    if (!ops || !ops->any_ops || !ops->t.n_refs) return true;
    H->ops = ops;
    H->items = malloc((ops->t.n ? ops->t.n : 1) * sizeof *H->items);
    if (!H->items) return false;
    for (size_t i = 0; i < ops->t.n; i++) {
        const npu_group *g = &ops->t.groups[i];
        if (!g->has_reference) continue;
        hot h = {.group = i};
        if (g->reference_us > 0) {
            h.ratio = avg_us(g) / g->reference_us;
            h.off = off_by(h.ratio);
            h.average_hot = h.ratio < BAND_LOW || h.ratio > BAND_HIGH;
        }
        if (g->has_reference_profiling && g->reference_profiling_us > 0) {
            h.has_original = true;
            h.original_ratio = (double)g->min_ns / 1000.0 / g->reference_profiling_us;
            h.original_off = off_by(h.original_ratio);
            h.original_hot = h.original_ratio < BAND_LOW || h.original_ratio > BAND_HIGH;
        }
        if (h.average_hot) H->n_average++;
        if (h.average_hot || h.original_hot) H->items[H->n++] = h;
    }
    if (H->n > 1) qsort_r(H->items, H->n, sizeof *H->items, cmp_off, (void *)ops);
    if (section_listed(ops->cfg, H->n) < H->n)      /* the section is an array: say it here */
        diag_add(H->diag, "npu_hotspots: %zu hotspots; the document lists the %zu farthest off (analysis_list_rows)",
                 H->n, section_listed(ops->cfg, H->n));
    return true;
}

static void opt_number(jw_out *w, const char *key, double v, bool has) {
    jw_key(w, key);
    if (has) jw_number(w, v);
    else jw_null(w);
}

static void nh_render(const void *run, jw_out *w) {
    const hotspots_run *H = run;
    if (!H->ops) { jw_null(w); return; }
    jw_array_open(w);
    for (size_t i = 0; i < section_listed(H->ops->cfg, H->n); i++) {
        const npu_group *g = &H->ops->t.groups[H->items[i].group];
        jw_object_open(w);
        jw_key(w, "op_type");
        jw_string(w, g->op_type);
        for (int k = 0; k < NPU_SIG_FIELDS; k++) {
            jw_key(w, NPU_SIG_KEYS[k]);
            if (g->sig[k]) jw_string(w, g->sig[k]);
            else jw_null(w);
        }
        jw_key(w, "count");
        jw_u64(w, (uint64_t)g->count);
        const hot *h = &H->items[i];
        bool has_ratio = g->reference_us > 0;
        jw_key(w, "profiled_us");
        jw_number(w, avg_us(g));
        jw_key(w, "reference_us");
        jw_number(w, g->reference_us);
        opt_number(w, "ratio", h->ratio, has_ratio);
        opt_number(w, "off_by", h->off, has_ratio);
        jw_key(w, "direction");
        if (has_ratio) jw_string(w, h->ratio > 1 ? "slower" : "faster");
        else jw_null(w);
        jw_key(w, "average_hotspot");
        jw_bool(w, h->average_hot);
        /* the original tool's comparison: the run's minimum against Profiling Average Duration */
        jw_key(w, "profiled_min_us");
        jw_number(w, (double)g->min_ns / 1000.0);
        opt_number(w, "reference_profiling_avg_us", g->reference_profiling_us, g->has_reference_profiling);
        opt_number(w, "original_ratio", h->original_ratio, h->has_original);
        opt_number(w, "original_off_by", h->original_off, h->has_original);
        jw_key(w, "original_hotspot");
        if (h->has_original) jw_bool(w, h->original_hot);
        else jw_null(w);
        jw_object_close(w);
    }
    jw_array_close(w);
}

static void md_row_start(strbuf *out, const char *op_type, char *const sig[NPU_SIG_FIELDS]) {
    smd_printf(out, "| ");
    smd_cell(out, op_type, strlen(op_type), SMD_NO_LIMIT);
    for (int k = 0; k < NPU_SIG_FIELDS; k++) {
        smd_printf(out, " | ");
        smd_cell(out, sig[k], sig[k] ? strlen(sig[k]) : 0, SMD_NO_LIMIT);
    }
    smd_printf(out, " | ");
}

/* Ends a table cut by analysis_list_rows: how many rows it left out. */
static void md_more(strbuf *out, size_t more) {
    if (more) smd_printf(out, "\n%zu more signatures are not listed (analysis_list_rows).\n", more);
    smd_printf(out, "\n");
}

#define SIG_HEAD "| OP Type | Input Shapes | Input Data Types | Input Formats | Output Shapes | Output Data Types "
#define SIG_RULE "|---|---|---|---|---|---"

/* report.md: hotspots, missing shapes, duplicates. */
static void nh_render_md(const void *run, strbuf *out) {
    const hotspots_run *H = run;
    if (!H->ops) return;
    const npu_table *t = &H->ops->t;
    smd_printf(out, "## Ascend operators: hotspots\n\n");
    smd_printf(out, "Signatures whose profiled / reference ratio lies outside [%.1f, %.1f] by either comparison: "
                   "goblind's (the profiled average over the reference's `Average Duration(us)`, Ratio) and the "
                   "original tool's (the profiled minimum over the reference's `Profiling Average Duration(us)`, "
                   "Original ratio; - when the reference has no such column). goblind's hotspots first, farthest "
                   "first.\n\n",
              BAND_LOW, BAND_HIGH);
    if (!H->n) smd_printf(out, "None.\n\n");
    else {
        smd_printf(out, SIG_HEAD "| Count | Profiled (us) | Reference (us) | Ratio | Min (us) | Ref. profiling avg (us) "
                   "| Original ratio |\n" SIG_RULE "|---:|---:|---:|---:|---:|---:|---:|\n");
        size_t listed = section_listed(H->ops->cfg, H->n);
        for (size_t i = 0; i < listed; i++) {
            const hot *h = &H->items[i];
            const npu_group *g = &t->groups[h->group];
            md_row_start(out, g->op_type, g->sig);
            smd_printf(out, "%llu | %.3f | %.3f | ", (unsigned long long)g->count, avg_us(g), g->reference_us);
            smd_value(out, h->ratio, 3, g->reference_us > 0);
            smd_printf(out, " | %.3f | ", (double)g->min_ns / 1000.0);
            smd_value(out, g->reference_profiling_us, 3, g->has_reference_profiling);
            smd_printf(out, " | ");
            smd_value(out, h->original_ratio, 3, h->has_original);
            smd_printf(out, " |\n");
        }
        md_more(out, H->n - listed);
    }
    smd_printf(out, "## Ascend operators: missing shapes\n\nProfiled signatures the reference does not have.\n\n");
    size_t missing = 0;
    for (size_t o = 0; o < t->n; o++) missing += !t->groups[H->ops->order[o]].has_reference;
    if (!missing) smd_printf(out, "None.\n\n");
    else {
        smd_printf(out, SIG_HEAD "| Count | Avg (us) |\n" SIG_RULE "|---:|---:|\n");
        size_t listed = section_listed(H->ops->cfg, missing), shown = 0;
        for (size_t o = 0; o < t->n && shown < listed; o++) {
            const npu_group *g = &t->groups[H->ops->order[o]];
            if (g->has_reference) continue;
            shown++;
            md_row_start(out, g->op_type, g->sig);
            smd_printf(out, "%llu | %.3f |\n", (unsigned long long)g->count, avg_us(g));
        }
        md_more(out, missing - listed);
    }
    smd_printf(out, "## Ascend operators: duplicates\n\nReference signatures given by more than one row (the first "
                   "row's duration is used).\n\n");
    size_t dups = 0;
    for (size_t i = 0; i < t->n_refs; i++) dups += t->refs[i].rows > 1;
    if (!dups) smd_printf(out, "None.\n\n");
    else {
        smd_printf(out, SIG_HEAD "| Rows | Used (us) | Min (us) | Max (us) |\n" SIG_RULE "|---:|---:|---:|---:|\n");
        size_t listed = section_listed(H->ops->cfg, dups), shown = 0;
        for (size_t i = 0; i < t->n_refs && shown < listed; i++) {
            const npu_ref *r = &t->refs[i];
            if (r->rows < 2) continue;
            shown++;
            md_row_start(out, r->op_type, r->sig);
            smd_printf(out, "%llu | %.3f | %.3f | %.3f |\n", (unsigned long long)r->rows, (double)r->first_ns / 1000.0,
                      (double)r->min_ns / 1000.0, (double)r->max_ns / 1000.0);
        }
        md_more(out, dups - listed);
    }
}

/* Numbers by path: "count" (goblind's hotspots), "worst_off_by" (the first one's max(r,
 * 1/r)), "original_count" (outside the band by the original tool's comparison). */
static bool nh_number(const void *run, const char *path, double *out) {
    const hotspots_run *H = run;
    if (!H->ops) return false;
    if (!strcmp(path, "count")) { *out = (double)H->n_average; return true; }
    if (!strcmp(path, "worst_off_by") && H->n_average) { *out = H->items[0].off; return true; }
    if (!strcmp(path, "original_count")) {
        size_t n = 0;
        for (size_t i = 0; i < H->n; i++) n += H->items[i].original_hot;
        *out = (double)n;
        return true;
    }
    return false;
}

static void nh_close(void *run) {
    hotspots_run *H = run;
    if (!H) return;
    free(H->items);
    free(H);
}

const section_analysis npu_hotspots_analysis = {
    .key = "npu_hotspots",
    .wants = 0,
    .open = nh_open,
    .finish = nh_finish,
    .render = nh_render,
    .render_md = nh_render_md,
    .number = nh_number,
    .close = nh_close,
};
