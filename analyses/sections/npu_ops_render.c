/* npu_ops_render: the npu_ops section's JSON value, its report.md part (overview and the
 * per-operator table) and its number hook, from the finished run state (npu_ops.c). */
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section_md.h"
#include "analyses/sections/npu_ops.h"

static void json_sig(jw_out *w, char *const sig[NPU_SIG_FIELDS]) {
    for (int k = 0; k < NPU_SIG_FIELDS; k++) {
        jw_key(w, NPU_SIG_KEYS[k]);
        if (sig[k]) jw_string(w, sig[k]);
        else jw_null(w);
    }
}

/* The operator rows and their total duration, the rows of signatures past NPU_MAX_GROUPS
 * included (they are counted though not grouped). */
static uint64_t npu_totals(const npu_table *t, i128 *total) {
    uint64_t ops = t->ops_dropped;
    *total = t->ops_dropped_ns;
    for (size_t i = 0; i < t->n; i++) *total = i128_add(*total, t->groups[i].sum_ns), ops += t->groups[i].count;
    return ops;
}

/* Signatures without a reference (none without any reference row). */
static size_t npu_missing(const npu_table *t) {
    size_t n = 0;
    for (size_t i = 0; t->n_refs && i < t->n; i++) n += !t->groups[i].has_reference;
    return n;
}

/* Reference signatures given by more than one row. */
static size_t npu_duplicates(const npu_table *t) {
    size_t n = 0;
    for (size_t i = 0; i < t->n_refs; i++) n += t->refs[i].rows > 1;
    return n;
}

/* listed_key: listed and, when rows were left out, unlisted_key: {"signatures": the rows left
 * out (null when signatures past NPU_MAX_GROUPS were not kept), count_key: what they count,
 * "total_us": their total duration when rest_ns is given}. */
static void json_cut(jw_out *w, const char *listed_key, const char *unlisted_key, size_t listed, size_t n,
                     bool unknown_more, const char *count_key, uint64_t count, const i128 *rest_ns) {
    jw_key(w, listed_key);
    jw_u64(w, listed);
    if (listed == n && !unknown_more) return;
    jw_key(w, unlisted_key);
    jw_object_open(w);
    jw_key(w, "signatures");
    if (unknown_more) jw_null(w); else jw_u64(w, n - listed);
    jw_key(w, count_key);
    jw_u64(w, count);
    if (rest_ns) {
        jw_key(w, "total_us");
        jw_number(w, (double)*rest_ns / 1000.0);
    }
    jw_object_close(w);
}

static void json_opt(jw_out *w, const char *key, double v, bool has) {
    jw_key(w, key);
    if (has) jw_number(w, v);
    else jw_null(w);
}

void npu_ops_render(const void *run, jw_out *w) {
    const npu_ops_run *R = run;
    const npu_table *t = &R->t;
    if (!R->any_ops && !t->n_refs) { jw_null(w); return; }
    i128 total;
    uint64_t ops = npu_totals(t, &total);
    jw_object_open(w);
    jw_key(w, "ops");
    jw_u64(w, (uint64_t)ops);
    jw_key(w, "signatures");
    jw_u64(w, (uint64_t)t->n);
    jw_key(w, "total_us");
    jw_number(w, (double)total / 1000.0);
    size_t listed = section_listed(R->cfg, t->n);
    jw_key(w, "items");
    jw_array_open(w);
    for (size_t o = 0; o < listed; o++) {
        const npu_group *g = &t->groups[R->order[o]];
        jw_object_open(w);
        jw_key(w, "op_type");
        jw_string(w, g->op_type);
        json_sig(w, g->sig);
        jw_key(w, "count");
        jw_u64(w, (uint64_t)g->count);
        jw_key(w, "total_us");
        jw_number(w, (double)g->sum_ns / 1000.0);
        jw_key(w, "min_us");
        jw_number(w, (double)g->min_ns / 1000.0);
        jw_key(w, "max_us");
        jw_number(w, (double)g->max_ns / 1000.0);
        jw_key(w, "avg_us");
        jw_number(w, (double)g->sum_ns / (double)g->count / 1000.0);
        json_opt(w, "median_us", g->median_us, g->has_median);
        json_opt(w, "std_us", g->std_us, g->has_std);
        jw_key(w, "counters");
        jw_object_open(w);
        for (size_t c = 0; c < g->n_counter_slots; c++)
            if (g->counter_n[c]) {
                jw_key(w, t->counters[c]);
                jw_number(w, g->counter_sum[c] / (double)g->counter_n[c]);
            }
        jw_object_close(w);
        json_opt(w, "reference_us", g->reference_us, g->has_reference);
        json_opt(w, "ratio", g->has_reference && g->reference_us > 0 ? g->sum_ns / (double)g->count / 1000.0 / g->reference_us : 0,
                 g->has_reference && g->reference_us > 0);
        jw_object_close(w);
    }
    jw_array_close(w);
    uint64_t rest = t->ops_dropped;
    i128 rest_ns = t->ops_dropped_ns;
    for (size_t o = listed; o < t->n; o++) {
        const npu_group *g = &t->groups[R->order[o]];
        rest += g->count, rest_ns = i128_add(rest_ns, g->sum_ns);
    }
    json_cut(w, "listed", "unlisted", listed, t->n, t->ops_dropped > 0, "count", rest, &rest_ns);
    /* reference: null when no reference row was read */
    jw_key(w, "reference");
    if (!t->n_refs) jw_null(w);
    else {
        size_t matched = 0;
        uint64_t rows = 0;
        for (size_t i = 0; i < t->n_refs; i++) matched += t->refs[i].matched, rows += t->refs[i].rows;
        jw_object_open(w);
        jw_key(w, "rows");
        jw_u64(w, (uint64_t)rows);
        jw_key(w, "signatures");
        jw_u64(w, (uint64_t)t->n_refs);
        jw_key(w, "matched");
        jw_u64(w, (uint64_t)matched);
        jw_object_close(w);
    }
    jw_key(w, "missing_reference");
    if (!t->n_refs) jw_null(w);
    else {
        size_t m_listed = section_listed(R->cfg, npu_missing(t)), shown = 0;
        jw_array_open(w);
        for (size_t o = 0; o < t->n && shown < m_listed; o++) {
            const npu_group *g = &t->groups[R->order[o]];
            if (g->has_reference) continue;
            shown++;
            jw_object_open(w);
            jw_key(w, "op_type");
            jw_string(w, g->op_type);
            json_sig(w, g->sig);
            jw_key(w, "count");
            jw_u64(w, (uint64_t)g->count);
            jw_key(w, "avg_us");
            jw_number(w, (double)g->sum_ns / (double)g->count / 1000.0);
            jw_object_close(w);
        }
        jw_array_close(w);
    }
    if (t->n_refs) {    /* beside the list: how much of it is shown */
        size_t missing = npu_missing(t), m_listed = section_listed(R->cfg, missing), shown = 0;
        uint64_t m_rest = 0;
        for (size_t o = 0; o < t->n; o++)
            if (!t->groups[R->order[o]].has_reference && shown++ >= m_listed) m_rest += t->groups[R->order[o]].count;
        json_cut(w, "missing_reference_listed", "missing_reference_unlisted", m_listed, missing, false, "count", m_rest,
                 NULL);
    }
    jw_key(w, "duplicates");
    if (!t->n_refs) jw_null(w);
    else {
        size_t dups = npu_duplicates(t), d_listed = section_listed(R->cfg, dups), shown = 0;
        uint64_t d_rest = 0;
        jw_array_open(w);
        for (size_t i = 0; i < t->n_refs; i++) {
            const npu_ref *r = &t->refs[i];
            if (r->rows < 2) continue;
            if (shown++ >= d_listed) { d_rest += r->rows; continue; }
            jw_object_open(w);
            jw_key(w, "op_type");
            jw_string(w, r->op_type);
            json_sig(w, r->sig);
            jw_key(w, "rows");
            jw_u64(w, (uint64_t)r->rows);
            jw_key(w, "reference_us");
            jw_number(w, (double)r->first_ns / 1000.0);
            jw_key(w, "min_us");
            jw_number(w, (double)r->min_ns / 1000.0);
            jw_key(w, "max_us");
            jw_number(w, (double)r->max_ns / 1000.0);
            jw_object_close(w);
        }
        jw_array_close(w);
        json_cut(w, "duplicates_listed", "duplicates_unlisted", d_listed, dups, false, "rows", d_rest, NULL);
    }
    jw_object_close(w);
}

static void md_sig(strbuf *out, char *const sig[NPU_SIG_FIELDS]) {
    for (int k = 0; k < NPU_SIG_FIELDS; k++) {
        smd_cell(out, sig[k], sig[k] ? strlen(sig[k]) : 0, SMD_NO_LIMIT);
        smd_printf(out, " | ");
    }
}

/* report.md: the overview and the per-operator table. */
void npu_ops_render_md(const void *run, strbuf *out) {
    const npu_ops_run *R = run;
    const npu_table *t = &R->t;
    if (!R->any_ops) return;
    i128 total;
    uint64_t ops = npu_totals(t, &total);
    smd_printf(out, "## Ascend operators: overview\n\n");
    smd_printf(out, "- Operator tasks: %llu\n- Signatures (operator type + shapes, types, formats): %s%zu\n",
              (unsigned long long)ops, t->ops_dropped ? "more than " : "", t->n);
    smd_printf(out, "- Total task duration: %.3f us\n", (double)total / 1000.0);
    if (t->n_refs) smd_printf(out, "- Reference signatures: %zu\n", t->n_refs);
    else smd_printf(out, "- Reference durations: none given\n");
    smd_printf(out, "\n## Ascend operators: per operator\n\n");
    smd_printf(out, "| OP Type | Input Shapes | Input Data Types | Input Formats | Output Shapes | Output Data Types "
                   "| Count | Min (us) | Avg (us) | Median (us) | Std (us) | Reference (us) |\n");
    smd_printf(out, "|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    size_t listed = section_listed(R->cfg, t->n);
    for (size_t o = 0; o < listed; o++) {
        const npu_group *g = &t->groups[R->order[o]];
        smd_printf(out, "| ");
        smd_cell(out, g->op_type, strlen(g->op_type), SMD_NO_LIMIT);
        smd_printf(out, " | ");
        md_sig(out, g->sig);
        smd_printf(out, "%llu | ", (unsigned long long)g->count);
        smd_value(out, (double)g->min_ns / 1000.0, 3, 1);
        smd_printf(out, " | ");
        smd_value(out, (double)g->sum_ns / (double)g->count / 1000.0, 3, 1);
        smd_printf(out, " | ");
        smd_value(out, g->median_us, 3, g->has_median);
        smd_printf(out, " | ");
        smd_value(out, g->std_us, 3, g->has_std);
        smd_printf(out, " | ");
        smd_value(out, g->reference_us, 3, g->has_reference);
        smd_printf(out, " |\n");
    }
    if (listed < t->n || t->ops_dropped) {
        uint64_t rest = t->ops_dropped;
        i128 rest_ns = t->ops_dropped_ns;
        for (size_t o = listed; o < t->n; o++)
            rest += t->groups[R->order[o]].count, rest_ns = i128_add(rest_ns, t->groups[R->order[o]].sum_ns);
        smd_printf(out, "\n%s%zu more signatures (%llu tasks, %.3f us) are not listed (analysis_list_rows).\n",
                   t->ops_dropped ? "More than " : "", t->n - listed, (unsigned long long)rest, (double)rest_ns / 1000.0);
    }
    smd_printf(out, "\n");
}

/* Numbers by path: "ops", "signatures", "total_us", "reference.signatures", "missing_reference". */
bool npu_ops_number(const void *run, const char *path, double *out) {
    const npu_ops_run *R = run;
    const npu_table *t = &R->t;
    if (!R->any_ops && !t->n_refs) return false;
    if (!strcmp(path, "signatures")) { *out = (double)t->n; return true; }
    if (!strcmp(path, "ops") || !strcmp(path, "total_us")) {
        i128 total;
        uint64_t ops = npu_totals(t, &total);
        *out = !strcmp(path, "ops") ? (double)ops : (double)total / 1000.0;
        return true;
    }
    if (!t->n_refs) return false;
    if (!strcmp(path, "reference.signatures")) { *out = (double)t->n_refs; return true; }
    if (!strcmp(path, "missing_reference")) { *out = (double)npu_missing(t); return true; }
    return false;
}

