/* npu_ops: Ascend operator statistics, the `npu_ops` section of the analysis document.
 *
 * REC_NPU_OP records (msprof-op-csv rows) are grouped by operator type and signature
 * (input shapes, input data types, input formats, output shapes, output data types): per
 * group the count, total, minimum, exact median, average and sample standard deviation
 * (n-1) of the durations, and the average of every counter column present (cells that are
 * not numbers are left out of that counter's average). Reference rows (category
 * "reference", msprof-reference-csv) are kept apart, keyed by the canonical operator type
 * (aliases folded: npu_canonical_type) and the signature; each group looks its reference
 * up, and npu_hotspots (derived) ranks the gaps. Signatures without a reference, and
 * reference signatures given more than once ("duplicates"), are listed here.
 *
 * Memory: one entry per group (at most NPU_MAX_GROUPS; further rows are counted in the totals
 * and dropped with a warning) holding its durations for the exact median (at most NPU_MAX_DURS
 * per group and NPU_MAX_DURS_TOTAL per table; beyond, the group's median is unknown: null). Not splittable (sorted medians and float
 * counter sums are folded per source, in source order). Rendering: npu_ops_render.c. */
#include "analyses/sections/npu_ops.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"
#include "parsers/formats/msprof_csv.h"

const char *const NPU_SIG_KEYS[NPU_SIG_FIELDS] = {"input_shapes", "input_data_types", "input_formats", "output_shapes",
                                                  "output_data_types"};

/* The operator type aliases fold into for reference lookups: MatMulV2, MatMulV3 and
 * MatMulCommon (and MatMul) are one operator; any other type is itself. */
static const char *npu_canonical_type(const char *op_type) {
    static const char *const MATMUL[] = {"MatMul", "MatMulV2", "MatMulV3", "MatMulCommon", NULL};
    for (size_t i = 0; MATMUL[i]; i++)
        if (!strcmp(op_type, MATMUL[i])) return "MatMul";
    return op_type;
}

/* op type and signature joined: \x1f between parts, \x1e for an absent part. */
static char *make_key(const char *type, size_t type_len, const char *const sig[NPU_SIG_FIELDS],
                      const size_t sig_len[NPU_SIG_FIELDS]) {
    strbuf b = {0};
    bool ok = strbuf_append(&b, type, type_len);
    for (int i = 0; i < NPU_SIG_FIELDS; i++) {
        ok = ok && strbuf_putc(&b, '\x1f');
        ok = ok && (sig[i] ? strbuf_append(&b, sig[i], sig_len[i]) : strbuf_putc(&b, '\x1e'));
    }
    if (!ok || !strbuf_terminate(&b)) { strbuf_free(&b); return NULL; }
    return b.data;
}

/* Finds key in an open-addressing index (values: position + 1); grows it to keep it half empty. */
static bool index_find(uint32_t **slots, size_t *n_slots, const char *key, char *(*key_at)(const void *, size_t),
                       const void *items, size_t n_items, size_t *pos, bool *found) {
    if (2 * (n_items + 1) > *n_slots) {
        size_t ns = *n_slots ? 2 * *n_slots : 64;
        uint32_t *s = calloc(ns, sizeof *s);
        if (!s) return false;
        for (size_t i = 0; i < n_items; i++) {
            const char *k = key_at(items, i);
            size_t h = (size_t)str_hash_n(k, strlen(k), 0) & (ns - 1);
            while (s[h]) h = (h + 1) & (ns - 1);
            s[h] = (uint32_t)(i + 1);
        }
        free(*slots);
        *slots = s;
        *n_slots = ns;
    }
    size_t h = (size_t)str_hash_n(key, strlen(key), 0) & (*n_slots - 1);   /* keyed: no chosen collisions */
    while ((*slots)[h]) {
        if (!strcmp(key_at(items, (*slots)[h] - 1), key)) { *pos = (*slots)[h] - 1; *found = true; return true; }
        h = (h + 1) & (*n_slots - 1);
    }
    *pos = h;
    *found = false;
    return true;
}
static char *group_key_at(const void *items, size_t i) { return ((const npu_group *)items)[i].key; }
static char *ref_key_at(const void *items, size_t i) { return ((const npu_ref *)items)[i].key; }

static bool copy_sig(char *dst[NPU_SIG_FIELDS], const char *const sig[NPU_SIG_FIELDS], const size_t len[NPU_SIG_FIELDS]) {
    for (int i = 0; i < NPU_SIG_FIELDS; i++)
        if (sig[i] && !(dst[i] = strndup(sig[i], len[i]))) return false;
    return true;
}

/* The group of key (created when new); NULL on OOM (*oom set) or past NPU_MAX_GROUPS. */
static npu_group *group_of(npu_table *t, char *key, const char *type, size_t type_len,
                           const char *const sig[NPU_SIG_FIELDS], const size_t sig_len[NPU_SIG_FIELDS], bool *oom) {
    size_t pos;
    bool found;
    if (!index_find(&t->slots, &t->n_slots, key, group_key_at, t->groups, t->n, &pos, &found)) {
        *oom = true;
        free(key);                     /* (owned from the call on, whatever the outcome) */
        return NULL;
    }
    if (found) { free(key); return &t->groups[pos]; }
    size_t cost = strlen(key) + 1 + type_len + 1;
    for (int i = 0; i < NPU_SIG_FIELDS; i++) cost += sig[i] ? sig_len[i] + 1 : 0;
    if (t->n >= NPU_MAX_GROUPS || cost > NPU_MAX_TEXT_BYTES - t->text_bytes) {   /* the caller counts the rows */
        free(key);
        return NULL;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        npu_group *g = realloc(t->groups, cap * sizeof *g);
        if (!g) { *oom = true; free(key); return NULL; }
        t->groups = g;
        t->cap = cap;
    }
    npu_group *g = &t->groups[t->n];
    memset(g, 0, sizeof *g);
    g->key = key;
    if (!(g->op_type = strndup(type, type_len)) || !copy_sig(g->sig, sig, sig_len)) {
        *oom = true;
        for (int i = 0; i < NPU_SIG_FIELDS; i++) free(g->sig[i]);
        free(g->op_type);
        free(key);
        return NULL;
    }
    t->slots[pos] = (uint32_t)(t->n + 1);
    t->n++;
    t->text_bytes += cost;
    return g;
}

/* Group g of t keeps no more durations: its median is unknown (null); t's count of kept
 * durations gives its own back. */
static void cap_durations(npu_table *t, npu_group *g) {
    assert(t->durs_kept >= g->n_durs);
    t->durs_kept -= g->n_durs;
    g->durs_capped = true;
    free(g->durs);
    g->durs = NULL;
    g->n_durs = g->cap_durs = 0;
}

/* One row's duration d in group g of t: counted, and kept for the exact median while the group
 * holds fewer than NPU_MAX_DURS and the table fewer than its max_durs (past either, the
 * group's median is unknown: a file of millions of rows over many signatures is bounded too). */
static bool add_duration(npu_table *t, npu_group *g, i128 d) {
    if (g->count == 0 || d < g->min_ns) g->min_ns = d;
    if (g->count == 0 || d > g->max_ns) g->max_ns = d;
    g->count++;
    g->sum_ns = i128_add(g->sum_ns, d);
    if (g->durs_capped) return true;
    if (g->n_durs >= NPU_MAX_DURS || t->durs_kept >= t->max_durs) {
        cap_durations(t, g);
        return true;
    }
    if (g->n_durs == g->cap_durs) {
        size_t cap = g->cap_durs ? 2 * g->cap_durs : 8;
        i128 *d2 = realloc(g->durs, cap * sizeof *d2);
        if (!d2) return false;
        g->durs = d2;
        g->cap_durs = cap;
    }
    g->durs[g->n_durs++] = d;
    t->durs_kept++;
    return true;
}

#define COUNTER_OOM (-3)   /* counter_index: memory ran out (never cached: the record fails) */

/* The index of counter `name` in t (added when new); -1 past NPU_MAX_COUNTERS, COUNTER_OOM
 * when memory ran out. */
static long counter_index(npu_table *t, const char *name) {
    for (size_t i = 0; i < t->n_counters; i++)
        if (!strcmp(t->counters[i], name)) return (long)i;
    if (t->n_counters >= NPU_MAX_COUNTERS) return -1;
    char **c = realloc(t->counters, (t->n_counters + 1) * sizeof *c);
    if (!c) return COUNTER_OOM;
    t->counters = c;
    if (!(c[t->n_counters] = strdup(name))) return COUNTER_OOM;
    return (long)t->n_counters++;
}

static bool add_counter(npu_group *g, size_t idx, double sum, uint64_t n) {
    if (idx >= g->n_counter_slots) {
        size_t ns = idx + 1;
        double *s = realloc(g->counter_sum, ns * sizeof *s);
        if (!s) return false;
        g->counter_sum = s;
        uint64_t *c = realloc(g->counter_n, ns * sizeof *c);
        if (!c) return false;
        g->counter_n = c;
        for (size_t i = g->n_counter_slots; i < ns; i++) s[i] = 0, c[i] = 0;
        g->n_counter_slots = ns;
    }
    g->counter_sum[idx] += sum;
    g->counter_n[idx] += n;
    return true;
}

/* A counter cell as a number: a plain decimal (no NaN, no infinities). */
static bool cell_number(const char *p, size_t n, double *out) {
    char buf[64];
    if (!n || n >= sizeof buf) return false;
    memcpy(buf, p, n);
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.' || buf[i] == '-' || buf[i] == '+' || buf[i] == 'e' ||
              buf[i] == 'E'))
            return false;
    char *end;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v)) return false;
    *out = v;
    return true;
}

static bool is_sig_key(const char *key, int *which) {
    for (int i = 0; i < NPU_SIG_FIELDS; i++)
        if (!strcmp(key, NPU_SIG_KEYS[i])) { *which = i; return true; }
    return false;
}

/* The identity columns the format passes through that are not counters. */
static bool is_identity_key(const char *key) {
    static const char *const IDS[] = {"op_name", "task_type", "task_id", "model_id", "block_num", "mix_block_num",
                                      "op_state", "step_id", "wait_us", "context_id", "hf32_eligible", "stream_id",
                                      NULL};
    for (size_t i = 0; IDS[i]; i++)
        if (!strcmp(key, IDS[i])) return true;
    return false;
}

/* The identity columns a group keeps the first value of, and the reference's second
 * duration: their field classes (below -2). */
enum { CLS_OP_STATE = -3, CLS_TASK_TYPE = -4, CLS_OUTPUT_FORMATS = -5, CLS_PROFILING_AVG = -6 };
static int kept_class(const char *key) {
    if (!strcmp(key, "op_state")) return CLS_OP_STATE;
    if (!strcmp(key, "task_type")) return CLS_TASK_TYPE;
    if (!strcmp(key, "output_formats")) return CLS_OUTPUT_FORMATS;
    if (!strcmp(key, "profiling_average_us")) return CLS_PROFILING_AVG;
    return 0;
}

static void free_group(npu_group *g) {
    free(g->op_state);
    free(g->task_type);
    free(g->output_formats);
    free(g->key);
    free(g->op_type);
    for (int i = 0; i < NPU_SIG_FIELDS; i++) free(g->sig[i]);
    free(g->durs);
    free(g->counter_sum);
    free(g->counter_n);
}

static void free_ref(npu_ref *r) {
    free(r->key);
    free(r->op_type);
    for (int i = 0; i < NPU_SIG_FIELDS; i++) free(r->sig[i]);
}

static void table_free(npu_table *t) {
    for (size_t i = 0; i < t->n; i++) free_group(&t->groups[i]);
    for (size_t i = 0; i < t->n_refs; i++) free_ref(&t->refs[i]);
    for (size_t i = 0; i < t->n_counters; i++) free(t->counters[i]);
    free(t->groups);
    free(t->slots);
    free(t->refs);
    free(t->ref_slots);
    free(t->counters);
    memset(t, 0, sizeof *t);
}

/* Adds one reference row (first one of a key wins; later ones count as duplicates). */
static bool add_ref(npu_table *t, const char *type, const char *const sig[NPU_SIG_FIELDS],
                    const size_t sig_len[NPU_SIG_FIELDS], i128 first, i128 mn, i128 mx, uint64_t rows,
                    bool has_profiling, i128 profiling) {
    const char *canon = npu_canonical_type(type);
    char *key = make_key(canon, strlen(canon), sig, sig_len);
    if (!key) return false;
    size_t pos;
    bool found;
    if (!index_find(&t->ref_slots, &t->n_ref_slots, key, ref_key_at, t->refs, t->n_refs, &pos, &found)) {
        free(key);
        return false;
    }
    if (found) {
        npu_ref *r = &t->refs[pos];
        r->rows += rows;
        if (mn < r->min_ns) r->min_ns = mn;
        if (mx > r->max_ns) r->max_ns = mx;
        free(key);
        return true;
    }
    size_t cost = strlen(key) + 1 + strlen(type) + 1;
    for (int i = 0; i < NPU_SIG_FIELDS; i++) cost += sig[i] ? sig_len[i] + 1 : 0;
    if (t->n_refs >= NPU_MAX_GROUPS || cost > NPU_MAX_TEXT_BYTES - t->text_bytes) {   /* counted with the dropped rows, warned */
        free(key);
        t->rows_dropped += rows;
        return true;
    }
    if (t->n_refs == t->cap_refs) {
        size_t cap = t->cap_refs ? 2 * t->cap_refs : 16;
        npu_ref *r = realloc(t->refs, cap * sizeof *r);
        if (!r) { free(key); return false; }
        t->refs = r;
        t->cap_refs = cap;
    }
    npu_ref *r = &t->refs[t->n_refs];
    memset(r, 0, sizeof *r);
    r->key = key;
    r->first_ns = first, r->min_ns = mn, r->max_ns = mx, r->rows = rows;
    r->has_profiling = has_profiling, r->profiling_ns = profiling;
    if (!(r->op_type = strdup(type)) || !copy_sig(r->sig, sig, sig_len)) { free_ref(r); return false; }
    t->text_bytes += cost;
    t->ref_slots[pos] = (uint32_t)(t->n_refs + 1);
    t->n_refs++;
    return true;
}

static void *no_open(const analysis_config *cfg, diag_list *diag) {
    npu_ops_run *r = calloc(1, sizeof *r);
    if (r) r->diag = diag, r->cfg = cfg, r->t.max_durs = NPU_MAX_DURS_TOTAL;
    return r;
}

static void *no_open_source(void *run, const source_ref *src) {
    (void)run;
    (void)src;
    npu_table *t = calloc(1, sizeof *t);
    if (t) t->max_durs = NPU_MAX_DURS_TOTAL;
    return t;
}

/* What field i of a record is (signature column w >= 0, -1 identity, -2 counter with its
 * index in *counter, -1 when past NPU_MAX_COUNTERS, CLS_* for the kept identity columns),
 * cached by position. */
static int field_class(npu_table *t, size_t i, const char *key, long *counter) {
    bool cacheable = i < NPU_POS_CACHE && strlen(key) < sizeof t->pos_key[0];
    if (cacheable && t->pos_key[i][0] && !strcmp(t->pos_key[i], key)) {
        *counter = t->pos_counter[i];
        return t->pos_class[i];
    }
    int w, kept = kept_class(key);
    int cls = is_sig_key(key, &w) ? w : kept ? kept : is_identity_key(key) ? -1 : -2;
    *counter = cls == -2 ? counter_index(t, key) : -1;
    if (cacheable && *counter != COUNTER_OOM) {
        strcpy(t->pos_key[i], key);
        t->pos_class[i] = cls;
        t->pos_counter[i] = *counter;
    }
    return cls;
}

static bool no_consume(void *st, const record *r) {
    npu_table *t = st;
    if (!(r->has & RF_DURATION) || !r->name || !r->name_len || r->duration_ns < 0) return true;
    const char *sig[NPU_SIG_FIELDS] = {0};
    size_t sig_len[NPU_SIG_FIELDS] = {0};
    const record_field *kept[4] = {0};     /* op_state, task_type, output_formats, profiling_average_us */
    for (size_t i = 0; i < r->n_fields; i++) {
        long c;
        int w = field_class(t, i, r->fields[i].key, &c);
        if (c == COUNTER_OOM) return false;
        if (w >= 0) sig[w] = r->fields[i].value, sig_len[w] = r->fields[i].value_len;
        else if (w <= CLS_OP_STATE) kept[CLS_OP_STATE - w] = &r->fields[i];
    }
    size_t tl = r->name_len;
    if (r->category && r->category_len == 9 && !memcmp(r->category, "reference", 9)) {
        i128 prof = 0;
        bool has_prof = kept[3] && msprof_us_to_ns(kept[3]->value, kept[3]->value_len, &prof);
        char *type = strndup(r->name, tl);
        bool ok = type && add_ref(t, type, sig, sig_len, r->duration_ns, r->duration_ns, r->duration_ns, 1, has_prof,
                                  prof);
        free(type);
        return ok;
    }
    char *key = make_key(r->name, tl, sig, sig_len);
    if (!key) return false;
    bool oom = false;
    npu_group *g = group_of(t, key, r->name, tl, sig, sig_len, &oom);
    if (!g && !oom) {
        t->rows_dropped++, t->ops_dropped++;
        t->ops_dropped_ns = i128_add(t->ops_dropped_ns, r->duration_ns);
    }
    if (!g) return !oom;
    if (!add_duration(t, g, r->duration_ns)) return false;
    char **first[3] = {&g->op_state, &g->task_type, &g->output_formats};
    for (int k = 0; k < 3; k++) {   /* (past the table's text bound: not kept, unknown, counted) */
        if (!kept[k] || *first[k]) continue;
        if (kept[k]->value_len >= NPU_MAX_TEXT_BYTES - t->text_bytes) {
            t->cells_dropped++;
            continue;
        }
        if (!(*first[k] = strndup(kept[k]->value, kept[k]->value_len))) return false;
        t->text_bytes += kept[k]->value_len + 1;
    }
    for (size_t i = 0; i < r->n_fields; i++) {
        long idx;
        double v;
        const record_field *f = &r->fields[i];
        if (field_class(t, i, f->key, &idx) != -2 || idx == COUNTER_OOM) {
            if (idx == COUNTER_OOM) return false;
            continue;
        }
        if (idx < 0 || !cell_number(f->value, f->value_len, &v)) continue;
        if (!add_counter(g, (size_t)idx, v, 1)) return false;
    }
    return true;
}

/* Folds a source's groups and references into the run, in source order. */
static bool no_end_source(void *run, void *st) {
    npu_ops_run *R = run;
    npu_table *s = st, *t = &R->t;
    bool ok = true;
    if (!t->n && !t->n_refs && !t->n_counters && !t->rows_dropped) {
        /* the first source: its table becomes the run's as it is (no second copy of up to
         * NPU_MAX_GROUPS groups while folding) */
        free(t->groups), free(t->slots), free(t->refs), free(t->ref_slots), free(t->counters);
        *t = *s;
        R->any_ops |= t->n > 0 || t->ops_dropped > 0;
        free(s);
        return true;
    }
    for (size_t i = 0; ok && i < s->n; i++) {
        npu_group *sg = &s->groups[i];
        const char *sig[NPU_SIG_FIELDS];
        size_t len[NPU_SIG_FIELDS];
        for (int k = 0; k < NPU_SIG_FIELDS; k++) sig[k] = sg->sig[k], len[k] = sg->sig[k] ? strlen(sg->sig[k]) : 0;
        char *key = strdup(sg->key);
        bool oom = false;
        npu_group *g = key ? group_of(t, key, sg->op_type, strlen(sg->op_type), sig, len, &oom) : NULL;
        if (!key || oom) { ok = false; break; }
        R->any_ops = true;
        if (!g) {
            t->rows_dropped += sg->count, t->ops_dropped += sg->count;
            t->ops_dropped_ns = i128_add(t->ops_dropped_ns, sg->sum_ns);
            continue;
        }
        if (g->count == 0) g->min_ns = sg->min_ns, g->max_ns = sg->max_ns;
        if (sg->min_ns < g->min_ns) g->min_ns = sg->min_ns;
        if (sg->max_ns > g->max_ns) g->max_ns = sg->max_ns;
        uint64_t before = g->count;
        g->count += sg->count;
        g->sum_ns = i128_add(g->sum_ns, sg->sum_ns);
        if (sg->durs_capped || g->durs_capped || g->n_durs + sg->n_durs > NPU_MAX_DURS ||
            t->durs_kept + sg->n_durs > t->max_durs) {
            if (!g->durs_capped) cap_durations(t, g);
        } else if (sg->n_durs) {
            i128 *d = realloc(g->durs, (g->n_durs + sg->n_durs) * sizeof *d);
            if (!d) { ok = false; break; }
            memcpy(d + g->n_durs, sg->durs, sg->n_durs * sizeof *d);
            g->durs = d;
            g->n_durs += sg->n_durs;
            g->cap_durs = g->n_durs;
            t->durs_kept += sg->n_durs;
        }
        (void)before;
        char **mine[3] = {&g->op_state, &g->task_type, &g->output_formats};
        char **theirs[3] = {&sg->op_state, &sg->task_type, &sg->output_formats};
        for (int k = 0; k < 3; k++) {   /* the first source's value wins (within the run's text bound) */
            size_t n = *theirs[k] ? strlen(*theirs[k]) + 1 : 0;
            if (*mine[k] || !n) continue;
            if (n > NPU_MAX_TEXT_BYTES - t->text_bytes) {
                t->cells_dropped++;
                continue;
            }
            *mine[k] = *theirs[k], *theirs[k] = NULL;
            t->text_bytes += n;
        }
        for (size_t c = 0; ok && c < sg->n_counter_slots; c++) {
            if (!sg->counter_n[c]) continue;
            long idx = counter_index(t, s->counters[c]);
            if (idx >= 0) ok = add_counter(g, (size_t)idx, sg->counter_sum[c], sg->counter_n[c]);
        }
    }
    for (size_t i = 0; ok && i < s->n_refs; i++) {
        npu_ref *r = &s->refs[i];
        const char *sig[NPU_SIG_FIELDS];
        size_t len[NPU_SIG_FIELDS];
        for (int k = 0; k < NPU_SIG_FIELDS; k++) sig[k] = r->sig[k], len[k] = r->sig[k] ? strlen(r->sig[k]) : 0;
        ok = add_ref(t, r->op_type, sig, len, r->first_ns, r->min_ns, r->max_ns, r->rows, r->has_profiling,
                     r->profiling_ns);
    }
    t->rows_dropped += s->rows_dropped;
    t->cells_dropped += s->cells_dropped;
    t->ops_dropped += s->ops_dropped;
    t->ops_dropped_ns = i128_add(t->ops_dropped_ns, s->ops_dropped_ns);
    R->any_ops |= s->ops_dropped > 0;
    table_free(s);
    free(s);
    return ok;
}

static int cmp_i128(const void *a, const void *b) {
    i128 x = *(const i128 *)a, y = *(const i128 *)b;
    return (x > y) - (x < y);
}

/* Largest total first, ties by key (qsort_r: runs finish on several threads). */
static int cmp_total(const void *a, const void *b, void *ctx) {
    const npu_ops_run *sort_ctx = ctx;
    const npu_group *x = &sort_ctx->t.groups[*(const size_t *)a], *y = &sort_ctx->t.groups[*(const size_t *)b];
    if (x->sum_ns != y->sum_ns) return x->sum_ns > y->sum_ns ? -1 : 1;
    return strcmp(x->key, y->key);
}

static bool no_finish(void *run, const section_results *earlier) {
    (void)earlier;
    npu_ops_run *R = run;
    npu_table *t = &R->t;
    for (size_t i = 0; i < t->n; i++) {
        npu_group *g = &t->groups[i];
        double mean_ns = (double)g->sum_ns / (double)g->count;
        if (!g->durs_capped && g->n_durs == g->count) {
            qsort(g->durs, g->n_durs, sizeof *g->durs, cmp_i128);
            size_t n = g->n_durs;
            i128 twice = n % 2 ? 2 * g->durs[n / 2] : g->durs[n / 2 - 1] + g->durs[n / 2];
            g->median_us = (double)twice / 2000.0;
            g->has_median = true;
            if (n >= 2) {
                double ss = 0;
                for (size_t k = 0; k < n; k++) {
                    double d = (double)g->durs[k] - mean_ns;
                    ss += d * d;
                }
                g->std_us = sqrt(ss / (double)(n - 1)) / 1000.0;
                g->has_std = true;
            }
        }
        if (t->n_refs) {
            const char *canon = npu_canonical_type(g->op_type);
            const char *sig[NPU_SIG_FIELDS];
            size_t len[NPU_SIG_FIELDS];
            for (int k = 0; k < NPU_SIG_FIELDS; k++) sig[k] = g->sig[k], len[k] = g->sig[k] ? strlen(g->sig[k]) : 0;
            char *key = make_key(canon, strlen(canon), sig, len);
            if (!key) return false;
            size_t pos;
            bool found;
            bool ok = index_find(&t->ref_slots, &t->n_ref_slots, key, ref_key_at, t->refs, t->n_refs, &pos, &found);
            free(key);
            if (!ok) return false;
            if (found) {
                g->has_reference = true;
                g->reference_us = (double)t->refs[pos].first_ns / 1000.0;
                g->has_reference_profiling = t->refs[pos].has_profiling;
                g->reference_profiling_us = (double)t->refs[pos].profiling_ns / 1000.0;
                t->refs[pos].matched = true;
            }
        }
    }
    R->order = malloc((t->n ? t->n : 1) * sizeof *R->order);
    if (!R->order) return false;
    for (size_t i = 0; i < t->n; i++) R->order[i] = i;
    if (t->n > 1) qsort_r(R->order, t->n, sizeof *R->order, cmp_total, R);
    if (t->rows_dropped)
        diag_add(R->diag, "npu_ops: more than %u operator (or reference) signatures (or %u MiB of their text); %llu "
                 "row(s) of further signatures left out",
                 NPU_MAX_GROUPS, NPU_MAX_TEXT_BYTES >> 20, (unsigned long long)t->rows_dropped);
    if (t->cells_dropped)
        diag_add(R->diag, "npu_ops: %llu op_state, task_type or output_formats cell(s) not kept past %u MiB of "
                 "signature text; those fields are unknown (null)", (unsigned long long)t->cells_dropped,
                 NPU_MAX_TEXT_BYTES >> 20);
    size_t capped = 0;
    for (size_t i = 0; i < t->n; i++) capped += t->groups[i].durs_capped;
    if (capped)
        diag_add(R->diag, "npu_ops: %zu signature(s) past %u durations each or %zu in all; their median_us and std_us "
                 "are unknown (null)", capped, NPU_MAX_DURS, t->max_durs);
    return true;
}

static void no_close(void *run) {
    npu_ops_run *R = run;
    if (!R) return;
    table_free(&R->t);
    free(R->order);
    free(R);
}

const section_analysis npu_ops_analysis = {
    .key = "npu_ops",
    .wants = REC_BIT(REC_NPU_OP),
    .fields = RF_DURATION,
    .splittable = false,
    .open = no_open,
    .open_source = no_open_source,
    .consume = no_consume,
    .end_source = no_end_source,
    .finish = no_finish,
    .render = npu_ops_render,
    .render_md = npu_ops_render_md,
    .number = npu_ops_number,
    .close = no_close,
};
