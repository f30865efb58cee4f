/* layers: transformer layers found as kernel groups (section "layers").
 *
 * A group is the kernels sharing one torch External id (one operator call), or, for
 * kernels without one, one launch correlation id (a CUDA/HIP graph launch runs hundreds of
 * kernels under one id). A group is a layer when it has at least LAYER_MIN_KERNELS kernels
 * and holds both attention-class and GEMM-class work (analyses/kernel_class.h). A group that
 * meets attention work again after attention and GEMM work (a graph launch of a whole
 * model) is cut there: each layer is then its attention kernels and the work after them up
 * to the next attention (the first holds what came before too, the last what comes after),
 * and each such segment with attention and GEMM work is a layer whatever its size. Layers are numbered in time order (first kernel start) per file. Per layer: kernels, span
 * (first start to last end), kernel time (sum of durations), attention and GEMM time.
 * null when no group qualifies. Joins are per file, as in ops. docs/ANALYSIS.md "layers". */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/kernel_class_cache.h"
#include "analyses/structures/kernel_groups.h"
#include "analyses/sections/layers.h"
#include "analyses/structures/piece_log.h"
#include "analyses/section.h"

#define LAYER_MIN_KERNELS 8
#define LAYER_GROUPS ((size_t)1 << 14)       /* groups held per file before compaction */
#define LAYER_FINISHED_NS ((int64_t)200000000) /* a group idle 200 ms before the newest kernel is over */
#define MAX_LAYERS 65536
#define LISTED_LAYERS 1024
#define MAX_TAIL ((size_t)1 << 17)           /* second-piece kernels kept for the join (32 B, ~11 in the
                                              * log; past it the join is refused, docs/ANALYSIS.md "pieces") */

/* A kernel of the second piece of a split read, kept to be added at the join (layers_end_source)
 * exactly where one pass adds it: compaction, cuts and bounds depend on everything before. */
typedef struct tail_kernel {
    uint64_t key;
    int64_t a, b;
    uint8_t cls;             /* kernel_class */
    bool by_ext;
} tail_kernel;

typedef struct layer {
    size_t source;
    kgroup g;
} layer;

typedef struct layers_file {
    size_t index;
    kgroups by_ext, by_corr;
    int64_t newest;          /* the latest kernel start seen */
    int64_t retry_after;     /* no compaction before the newest start passes this */
    kernel_class_cache classes;
    kgroup *cut;             /* segments cut off a group at its next attention kernel */
    size_t ncut, capcut;
    uint64_t cut_dropped;
    bool second;             /* the second piece of a split read: kernels wait in tail */
    bool tail_full;          /* more than MAX_TAIL: the pieces do not join (layers_split_exact) */
    piece_log tail;          /* tail_kernel entries */
} layers_file;

typedef struct layers_run {
    diag_list *diag;
    const analysis_config *cfg;  /* list_rows, read at render */
    layers_file *acc;
    layer *v;
    size_t n, cap;
    uint64_t dropped_layers, dropped_kernels;
    bool oom;
} layers_run;

static void *layers_open(const analysis_config *cfg, diag_list *diag) {
    layers_run *r = calloc(1, sizeof *r);
    if (r) r->diag = diag, r->cfg = cfg;
    return r;
}

static void *layers_open_source(void *run, const source_ref *src) {
    (void)run;
    layers_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->index = src->index;
    f->second = src->piece == 1;
    _Static_assert(PIECE_LOG_FITS(tail_kernel), "piece_log entry");
    f->tail.size = sizeof(tail_kernel);
    f->tail.span = offsetof(tail_kernel, b);   /* b is coded as a duration (piece_log.h) */
    f->by_ext.max_groups = f->by_corr.max_groups = LAYER_GROUPS;
    f->newest = f->retry_after = INT64_MIN;
    return f;
}

static void file_free(layers_file *f) {
    if (!f) return;
    kgroups_free(&f->by_ext);
    kgroups_free(&f->by_corr);
    free(f->cut);
    plog_free(&f->tail);
    kcc_free(&f->classes);
    free(f);
}

/* The end time before which a group is finished: LAYER_FINISHED_NS before the newest start. */
static int64_t finished_before(int64_t newest) {
    return newest > INT64_MIN + LAYER_FINISHED_NS ? newest - LAYER_FINISHED_NS : INT64_MIN;
}

/* A layer: attention and GEMM work, and at least LAYER_MIN_KERNELS kernels unless the group was
 * cut at attention kernels (a graph launch of a whole model: each segment, the rest after the
 * last cut included, is one layer whatever its size — a small model's layers are small). */
static bool qualifies(const kgroup *k) {
    return k->attention && k->gemm && (k->segment || k->kernels >= LAYER_MIN_KERNELS);
}

/* A group that meets an attention kernel after attention and then GEMM work spans several
 * layers (a graph launch of a whole model): the segment so far is cut off as one (kept when
 * it qualifies) and the group starts again with this kernel. Attention split in several
 * kernels (split-KV and combine) stays in one segment: no GEMM between them. */
static bool cut_at_attention(layers_file *f, kgroups *g, uint64_t key) {
    uint32_t i = id_map_get(&g->index, key);
    if (i == ID_MAP_NONE || !g->v[i].gemm_since_attention) return true;
    g->v[i].segment = true;   /* the group is cut: the segment so far is one layer */
    if (qualifies(&g->v[i])) {
        if (f->ncut >= MAX_LAYERS) {
            f->cut_dropped++;
        } else {
            if (f->ncut == f->capcut) {
                size_t c = f->capcut ? f->capcut * 2 : 64;
                kgroup *v = realloc(f->cut, c * sizeof *v);
                if (!v) return false;
                f->cut = v, f->capcut = c;
            }
            f->cut[f->ncut] = g->v[i];
            f->cut[f->ncut++].by_ext = g == &f->by_ext;
        }
    }
    g->v[i] = (kgroup){.key = key, .lo = INT64_MAX, .hi = INT64_MIN, .segment = true};
    return true;
}

/* Adds kernel [a, end) of class c under key to group table by_ext or by_corr of f. */
static bool add_kernel(layers_file *f, bool by_ext, uint64_t key, kernel_class c, int64_t a, int64_t end) {
    kgroups *g = by_ext ? &f->by_ext : &f->by_corr;
    if (a > f->newest) f->newest = a;
    if (g->n >= g->max_groups && f->newest >= f->retry_after) {  /* drop finished groups too small to be layers */
        bool oom = false;
        size_t removed = kgroups_compact(g, LAYER_MIN_KERNELS, finished_before(f->newest), &oom);
        if (oom) return false;
        /* little went: wait for time to move on rather than sweep the table on every kernel */
        if (removed < g->max_groups / 4) f->retry_after = f->newest + LAYER_FINISHED_NS / 4;
    }
    if (c == KC_ATTENTION && !cut_at_attention(f, g, key)) return false;
    return kgroups_add(g, key, c, a, end);
}

static bool layers_consume(void *src, const record *r) {
    layers_file *f = src;
    if (!(r->has & RF_START) || !(r->has & (RF_END | RF_DURATION))) return true;
    i128 end = (r->has & RF_END) ? r->end_ns : i128_add(r->start_ns, r->duration_ns);
    const i128 lim = (i128)INT64_MAX / 2;
    if (r->start_ns < -lim || r->start_ns > lim || end < r->start_ns || end > lim) return true;
    bool by_ext = (r->has & RF_EXTERNAL) && r->external_id;
    if (!by_ext && !(r->has & RF_CORRELATION)) return true;
    kernel_class c = kcc_class_of(&f->classes, r->name, r->name_len);
    uint64_t key = by_ext ? r->external_id : r->correlation_id;
    if (!f->second) return add_kernel(f, by_ext, key, c, (int64_t)r->start_ns, (int64_t)end);
    if (f->tail.n >= MAX_TAIL) return f->tail_full = true;   /* (the join is refused) */
    tail_kernel t;
    memset(&t, 0, sizeof t);   /* zero padding codes in one byte */
    t.key = key, t.a = (int64_t)r->start_ns, t.b = (int64_t)end, t.cls = (uint8_t)c, t.by_ext = by_ext;
    return plog_put(&f->tail, &t);
}

/* Whether the second piece folds exactly: it kept every kernel (MAX_TAIL). */
static bool layers_split_exact(const void *first, const void *second) {
    (void)first;
    return !((const layers_file *)second)->tail_full;
}

/* by_ext: 1 or 0 for the by_ext or by_corr table's groups, -1 for the cut segments (each says). */
static bool collect_list(layers_run *r, const layers_file *f, const kgroup *list, size_t n, int by_ext) {
    for (size_t i = 0; i < n; i++) {
        const kgroup *k = &list[i];
        if (!qualifies(k)) continue;
        if (r->n >= MAX_LAYERS) {
            r->dropped_layers++;
            continue;
        }
        if (r->n == r->cap) {
            size_t c = r->cap ? r->cap * 2 : 64;
            layer *v = realloc(r->v, c * sizeof *v);
            if (!v) return false;
            r->v = v;
            r->cap = c;
        }
        r->v[r->n] = (layer){f->index, *k};
        if (by_ext >= 0) r->v[r->n].g.by_ext = by_ext;
        r->n++;
    }
    return true;
}

/* Every layer of a finished file: its cut segments and its qualifying groups. */
static bool collect(layers_run *r, const layers_file *f) {
    r->dropped_kernels += f->by_ext.dropped + f->by_corr.dropped;
    r->dropped_layers += f->cut_dropped;
    return collect_list(r, f, f->cut, f->ncut, -1) && collect_list(r, f, f->by_ext.v, f->by_ext.n, 1) &&
           collect_list(r, f, f->by_corr.v, f->by_corr.n, 0);
}

static bool layers_end_source(void *run, void *src) {
    layers_run *r = run;
    layers_file *f = src;
    bool ok = true;
    if (r->acc && r->acc->index == f->index) {
        /* the second piece: its kernels added in file order to the first's state, which has
         * read exactly the bytes before it: one pass's result */
        tail_kernel t;
        while (ok && plog_take(&f->tail, &t)) ok = add_kernel(r->acc, t.by_ext, t.key, (kernel_class)t.cls, t.a, t.b);
        file_free(f);
    } else {
        if (r->acc) ok = collect(r, r->acc);
        file_free(r->acc);
        r->acc = f;
    }
    if (!ok) r->oom = true;
    return ok;
}

static int cmp_layer(const void *x, const void *y) {
    const layer *a = x, *b = y;
    if (a->source != b->source) return a->source < b->source ? -1 : 1;
    if (a->g.lo != b->g.lo) return a->g.lo < b->g.lo ? -1 : 1;
    return (a->g.key > b->g.key) - (a->g.key < b->g.key);
}

static bool layers_finish(void *run, const section_results *earlier) {
    (void)earlier;
    layers_run *r = run;
    if (r->acc) {
        bool ok = collect(r, r->acc);
        file_free(r->acc);
        r->acc = NULL;
        if (!ok) return !(r->oom = true);
    }
    if (r->n > 1) qsort(r->v, r->n, sizeof *r->v, cmp_layer);
    if (r->dropped_kernels)
        diag_add(r->diag, "layers: more than %zu unfinished launch groups in one file; %llu kernels were not "
                 "grouped", LAYER_GROUPS, (unsigned long long)r->dropped_kernels);
    return true;
}

static void layers_render(const void *run, jw_out *w) {
    const layers_run *r = run;
    if (!r->n || r->oom) {
        jw_null(w);
        return;
    }
    int64_t total = 0;
    for (size_t i = 0; i < r->n; i++) total += r->v[i].g.sum_ns;
    jw_object_open(w);
    jw_key(w, "complete");
    jw_bool(w, !r->dropped_kernels && !r->dropped_layers);
    jw_key(w, "min_kernels");
    jw_int(w, LAYER_MIN_KERNELS);
    jw_key(w, "count");
    jw_int(w, (int64_t)r->n);
    jw_key(w, "kernel_time_ns");
    jw_int(w, total);
    jw_key(w, "mean_kernel_time_ns");
    jw_int(w, total / (int64_t)r->n);
    jw_key(w, "items");
    jw_array_open(w);
    size_t number = 0;
    size_t listed = section_listed(r->cfg, r->n < LISTED_LAYERS ? r->n : LISTED_LAYERS);
    for (size_t i = 0; i < listed; i++) {
        const kgroup *g = &r->v[i].g;
        number = i && r->v[i].source == r->v[i - 1].source ? number + 1 : 0;
        jw_object_open(w);
        jw_key(w, "layer");
        jw_int(w, (int64_t)number);
        jw_key(w, "source");
        jw_int(w, (int64_t)r->v[i].source);
        jw_key(w, "start_ns");
        jw_int(w, g->lo);
        jw_key(w, "span_ns");
        jw_int(w, g->hi - g->lo);
        jw_key(w, "kernels");
        jw_int(w, (int64_t)g->kernels);
        jw_key(w, "kernel_time_ns");
        jw_int(w, g->sum_ns);
        jw_key(w, "attention_kernels");
        jw_int(w, (int64_t)g->attention);
        jw_key(w, "gemm_kernels");
        jw_int(w, (int64_t)g->gemm);
        jw_key(w, "attention_ns");
        jw_int(w, g->attention_ns);
        jw_key(w, "gemm_ns");
        jw_int(w, g->gemm_ns);
        jw_object_close(w);
    }
    jw_array_close(w);
    section_render_cut(w, "listed", "unlisted", "layers", listed, r->n);
    jw_object_close(w);
}

/* "count", "kernel_time_ns", "mean_kernel_time_ns". */
static bool layers_number(const void *run, const char *path, double *out) {
    const layers_run *r = run;
    if (!r->n || r->oom) return false;
    int64_t total = 0;
    for (size_t i = 0; i < r->n; i++) total += r->v[i].g.sum_ns;
    if (!strcmp(path, "count")) return *out = (double)r->n, true;
    if (!strcmp(path, "kernel_time_ns")) return *out = (double)total, true;
    if (!strcmp(path, "mean_kernel_time_ns")) return *out = (double)(total / (int64_t)r->n), true;
    return false;
}

bool layers_each(const void *run, layer_fn fn, void *user) {
    const layers_run *r = run;
    if (!r || r->oom) return true;
    size_t number = 0;
    for (size_t i = 0; i < r->n; i++) {     /* numbered as the document numbers them */
        const kgroup *g = &r->v[i].g;
        number = i && r->v[i].source == r->v[i - 1].source ? number + 1 : 0;
        if (!fn(user, r->v[i].source, number, g->key, g->by_ext, g->lo, g->hi)) return false;
    }
    return true;
}

static void layers_close(void *run) {
    layers_run *r = run;
    if (!r) return;
    file_free(r->acc);
    free(r->v);
    free(r);
}

const section_analysis layers_analysis = {
    .key = "layers",
    .wants = REC_BIT(REC_KERNEL_DISPATCH),
    .fields = RF_START | RF_END | RF_DURATION | RF_CORRELATION | RF_EXTERNAL,
    .splittable = true,
    .split_exact = layers_split_exact,
    .host_clock = true,           /* joins kernels to the host trace's operators, launches and steps */
    .open = layers_open,
    .open_source = layers_open_source,
    .consume = layers_consume,
    .end_source = layers_end_source,
    .finish = layers_finish,
    .render = layers_render,
    .number = layers_number,
    .close = layers_close,
};
