/* npu_hotspots: duration-gap hotspots of Ascend operators against reference durations,
 * the `npu_hotspots` section (derived from npu_ops' finished result).
 *
 * A signature is a hotspot when profiled / reference (its average over the reference's
 * Average Duration) lies outside [0.8, 1.2]. Hotspots are sorted by how far off they are,
 * max(ratio, 1/ratio) descending (a 2x slower and a 2x faster operator rank alike; ties by
 * total profiled time, descending), and render as an array. null when npu_ops did not run,
 * saw no operator, or no reference was given. Its report.md part lists the hotspots, the
 * signatures missing from the reference and the duplicated reference signatures. */
#include <stdlib.h>
#include <string.h>

#include "analyses/name_agg.h"
#include "analyses/section_md.h"
#include "analyses/npu_ops.h"

#define BAND_LOW 0.8
#define BAND_HIGH 1.2

typedef struct hot {
    size_t group;
    double ratio, off;
} hot;

typedef struct hotspots_run {
    const npu_ops_run *ops;          /* npu_ops' result, NULL when absent */
    diag_list *diag;
    hot *items;
    size_t n;
} hotspots_run;

static void *nh_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg;                       /* npu_ops' (the same settings) is read at render */
    hotspots_run *H = calloc(1, sizeof *H);
    if (H) H->diag = diag;
    return H;
}

static double avg_us(const npu_group *g) { return (double)g->sum_ns / (double)g->count / 1000.0; }

/* Farthest off first; ties by total time, then key (qsort_r: runs finish on several threads). */
static int cmp_off(const void *a, const void *b, void *ctx) {
    const npu_ops_run *cmp_ops = ctx;
    const hot *x = a, *y = b;
    if (x->off != y->off) return x->off > y->off ? -1 : 1;
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
        if (!g->has_reference || !(g->reference_us > 0)) continue;
        double r = avg_us(g) / g->reference_us;
        if (r >= BAND_LOW && r <= BAND_HIGH) continue;
        double off = r >= 1 ? r : (r > 0 ? 1 / r : 1e300);
        H->items[H->n++] = (hot){i, r, off};
    }
    if (H->n > 1) qsort_r(H->items, H->n, sizeof *H->items, cmp_off, (void *)ops);
    if (section_listed(ops->cfg, H->n) < H->n)      /* the section is an array: say it here */
        diag_add(H->diag, "npu_hotspots: %zu hotspots; the document lists the %zu farthest off (analysis_list_rows)",
                 H->n, section_listed(ops->cfg, H->n));
    return true;
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
        jw_key(w, "profiled_us");
        jw_number(w, avg_us(g));
        jw_key(w, "reference_us");
        jw_number(w, g->reference_us);
        jw_key(w, "ratio");
        jw_number(w, H->items[i].ratio);
        jw_key(w, "off_by");
        jw_number(w, H->items[i].off);
        jw_key(w, "direction");
        jw_string(w, H->items[i].ratio > 1 ? "slower" : "faster");
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
    smd_printf(out, "Signatures whose profiled / reference average lies outside [%.1f, %.1f], farthest first.\n\n",
              BAND_LOW, BAND_HIGH);
    if (!H->n) smd_printf(out, "None.\n\n");
    else {
        smd_printf(out, SIG_HEAD "| Count | Profiled (us) | Reference (us) | Ratio |\n" SIG_RULE "|---:|---:|---:|---:|\n");
        size_t listed = section_listed(H->ops->cfg, H->n);
        for (size_t i = 0; i < listed; i++) {
            const npu_group *g = &t->groups[H->items[i].group];
            md_row_start(out, g->op_type, g->sig);
            smd_printf(out, "%llu | %.3f | %.3f | %.3f |\n", (unsigned long long)g->count, avg_us(g), g->reference_us,
                      H->items[i].ratio);
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

/* Numbers by path: "count" (hotspots), "worst_off_by" (the first hotspot's max(r, 1/r)). */
static bool nh_number(const void *run, const char *path, double *out) {
    const hotspots_run *H = run;
    if (!H->ops) return false;
    if (!strcmp(path, "count")) { *out = (double)H->n; return true; }
    if (!strcmp(path, "worst_off_by") && H->n) { *out = H->items[0].off; return true; }
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
