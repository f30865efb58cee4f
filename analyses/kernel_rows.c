/* kernel_rows: the two passes of the per-kernel export (see kernel_rows.h). */
#include "analyses/kernel_rows.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/id_map.h"
#include "analyses/structures/str_pool.h"
#include "analyses/kernel_class_cache.h"
#include "analyses/sections/layers.h"
#include "analyses/sections/ops_frames.h"
#include "analyses/sections/phases.h"

typedef struct kr_launch {
    int64_t start, pid, tid;
    uint64_t ext;            /* 0: none */
    bool has_thread;
} kr_launch;

typedef struct kr_op {
    int64_t start, pid, tid;
    uint32_t name;           /* pool id */
    bool timed;              /* start, pid and tid known */
} kr_op;

typedef struct kr_step {
    int64_t lo, hi;
    int phase;
    bool gpu_lane;
} kr_step;

typedef struct kr_layer {
    uint64_t key;
    int64_t lo, hi;
    uint32_t number;
    bool by_ext;
} kr_layer;

/* What one source file says for the labels (pass 1), read by pass 2. */
typedef struct kr_file {
    size_t index;
    int rank;                /* from the file's "rank" metadata, -1 */
    str_pool pool;
    kr_launch *launches;
    size_t nlaunches, caplaunches;
    id_map launch_by_corr;
    kr_op *ops;
    size_t nops, capops;
    id_map op_by_ext;
    kr_step *steps;
    size_t nsteps, capsteps;
    py_frames frames;
    kr_layer *layers;
    size_t nlayers, caplayers;
    uint64_t dropped;
} kr_file;

struct kernel_rows_ctx {
    kernel_row_fn fn;
    void *user;
    kr_file **files;         /* by source index; NULL: nothing kept */
    size_t nfiles;
    size_t launches, ops, steps, layers, frames, name_bytes;   /* kept over the run (the bounds) */
    uint64_t written, dropped;
    bool write_failed;
};

kernel_rows_ctx *kernel_rows_new(kernel_row_fn fn, void *user) {
    kernel_rows_ctx *c = calloc(1, sizeof *c);
    if (c) c->fn = fn, c->user = user;
    return c;
}

uint64_t kernel_rows_written(const kernel_rows_ctx *c) { return c->written; }
uint64_t kernel_rows_dropped(const kernel_rows_ctx *c) { return c->dropped; }
bool kernel_rows_write_failed(const kernel_rows_ctx *c) { return c->write_failed; }

static void file_free(kr_file *f) {
    if (!f) return;
    str_pool_free(&f->pool);
    free(f->launches);
    id_map_free(&f->launch_by_corr);
    free(f->ops);
    id_map_free(&f->op_by_ext);
    free(f->steps);
    ops_frames_free(&f->frames);
    free(f->layers);
    free(f);
}

void kernel_rows_free(kernel_rows_ctx *c) {
    if (!c) return;
    for (size_t i = 0; i < c->nfiles; i++) file_free(c->files[i]);
    free(c->files);
    free(c);
}

/* Grows *v (n elements of sz, capacity *cap) to hold one more. false on OOM. */
static bool grow(void **v, size_t *cap, size_t n, size_t sz) {
    if (n < *cap) return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *p = realloc(*v, c * sz);
    if (!p) return false;
    *v = p, *cap = c;
    return true;
}

static bool span_of(const record *r, int64_t *a, int64_t *b) {
    if (!(r->has & RF_START)) return false;
    i128 end = (r->has & RF_END) ? r->end_ns : (r->has & RF_DURATION) ? i128_add(r->start_ns, r->duration_ns) : r->start_ns;
    const i128 lim = (i128)INT64_MAX / 2;
    if (r->start_ns < -lim || r->start_ns > lim || end < -lim || end > lim) return false;
    *a = (int64_t)r->start_ns;
    *b = (int64_t)end < *a ? *a : (int64_t)end;
    return true;
}

static bool is_category(const record *r, const char *c) {
    return r->category && r->category_len == strlen(c) && !memcmp(r->category, c, r->category_len);
}

/* ---- pass 1: the labelling tables ---- */

typedef struct labels_run {
    kernel_rows_ctx *ctx;
    diag_list *diag;
} labels_run;

static void *labels_open(const analysis_config *cfg, diag_list *diag) {
    assert(cfg->kernel_rows);
    labels_run *r = calloc(1, sizeof *r);
    if (r) r->ctx = cfg->kernel_rows, r->diag = diag;
    return r;
}

static void *labels_open_source(void *run, const source_ref *src) {
    (void)run;
    kr_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->index = src->index;
    f->rank = -1;
    f->pool.max_bytes = KROWS_MAX_NAME_BYTES;
    f->launch_by_corr.max_entries = KROWS_MAX_LAUNCHES;
    f->op_by_ext.max_entries = KROWS_MAX_OPS;
    return f;
}

static bool labels_consume(void *src, const record *r) {
    kr_file *f = src;
    int64_t a, b;
    int rank, phase;
    uint64_t tokens;
    if (r->type == REC_METADATA) {
        if (record_rank(r, &rank)) f->rank = rank;
        return true;
    }
    if (r->type == REC_API_CALL) {           /* a launch call: its start, thread and operator */
        if (!(r->has & RF_CORRELATION) || !span_of(r, &a, &b)) return true;
        if (!grow((void **)&f->launches, &f->caplaunches, f->nlaunches, sizeof *f->launches)) return false;
        bool ext = (r->has & RF_EXTERNAL) && r->external_id;
        kr_launch l = {a, r->pid, r->tid, ext ? r->external_id : 0, (r->has & RF_PID_TID) != 0};
        return id_map_keep_latest(&f->launch_by_corr, f->launches, &f->nlaunches, r->correlation_id, &l, sizeof l, &f->dropped);
    }
    /* REC_ANNOTATION, REC_CPU_OP: a step annotation, a user Python frame, an operator */
    if (span_of(r, &a, &b) && (r->has & RF_END || r->has & RF_DURATION) && phases_step_name(r->name, r->name_len, &phase, &tokens)) {
        if (f->nsteps >= KROWS_MAX_STEPS) return ++f->dropped, true;
        if (!grow((void **)&f->steps, &f->capsteps, f->nsteps, sizeof *f->steps)) return false;
        bool gpu = r->category && r->category_len >= 4 && !memcmp(r->category, "gpu_", 4);
        f->steps[f->nsteps++] = (kr_step){a, b, phase, gpu};
        return true;
    }
    if (r->type != REC_CPU_OP) return true;
    if (is_category(r, "python_function")) {
        if (!span_of(r, &a, &b) || !(r->has & RF_PID_TID) || !ops_frame_is_user(r->name, r->name_len)) return true;
        uint32_t name = str_pool_intern(&f->pool, r->name, r->name_len);
        if (name == ID_MAP_OOM) return false;
        if (name == ID_MAP_NONE) return ++f->dropped, true;
        return ops_frames_add(&f->frames, (py_frame){a, b, r->pid, r->tid, name});
    }
    if (!(r->has & RF_EXTERNAL) || !r->external_id || !r->name) return true;
    uint32_t name = str_pool_intern(&f->pool, r->name, r->name_len);
    if (name == ID_MAP_OOM) return false;
    if (name == ID_MAP_NONE) return ++f->dropped, true;
    if (!grow((void **)&f->ops, &f->capops, f->nops, sizeof *f->ops)) return false;
    bool timed = span_of(r, &a, &b) && (r->has & RF_PID_TID);
    kr_op o = {timed ? a : 0, r->pid, r->tid, name, timed};
    return id_map_keep_latest(&f->op_by_ext, f->ops, &f->nops, r->external_id, &o, sizeof o, &f->dropped);  /* the latest, as ops */
}

/* Keeps the file's tables within the run's bounds (a table that would pass one is dropped
 * whole: its labels are absent) and files f under its source index, replacing an earlier read's
 * (the driver reads a source again after forgetting a read: run_analysis_job_discard). false on OOM. */
static bool labels_end_source(void *run, void *src) {
    kernel_rows_ctx *c = ((labels_run *)run)->ctx;
    kr_file *f = src;
    kr_file *old = f->index < c->nfiles ? c->files[f->index] : NULL;
    if (old) {   /* a source read again (the driver forgot a read): its earlier tables go */
        c->launches -= old->nlaunches, c->ops -= old->nops, c->steps -= old->nsteps;
        c->frames -= old->frames.n, c->name_bytes -= old->pool.bytes;
        file_free(old);
        c->files[f->index] = NULL;
    }
    if (c->launches + f->nlaunches > KROWS_MAX_LAUNCHES) {
        f->dropped += f->nlaunches, f->nlaunches = 0;
        id_map_free(&f->launch_by_corr);
        free(f->launches), f->launches = NULL, f->caplaunches = 0;
    }
    if (c->ops + f->nops > KROWS_MAX_OPS) {
        f->dropped += f->nops, f->nops = 0;
        id_map_free(&f->op_by_ext);
        free(f->ops), f->ops = NULL, f->capops = 0;
    }
    if (c->steps + f->nsteps > KROWS_MAX_STEPS) f->dropped += f->nsteps, f->nsteps = 0;
    if (c->frames + f->frames.n > KROWS_MAX_FRAMES) {
        f->dropped += f->frames.n;
        ops_frames_free(&f->frames);
    }
    if (c->name_bytes + f->pool.bytes > KROWS_MAX_NAME_BYTES) {   /* the names, and what names them */
        f->dropped += f->nops + f->frames.n, f->nops = 0;
        id_map_free(&f->op_by_ext);
        free(f->ops), f->ops = NULL, f->capops = 0;
        ops_frames_free(&f->frames);
        str_pool_free(&f->pool);
    }
    c->launches += f->nlaunches, c->ops += f->nops, c->steps += f->nsteps;
    c->frames += f->frames.n, c->name_bytes += f->pool.bytes;
    c->dropped += f->dropped + f->frames.dropped;
    if (f->index >= c->nfiles) {
        size_t n = f->index + 1;
        kr_file **v = realloc(c->files, n * sizeof *v);
        if (!v) return file_free(f), false;
        for (size_t i = c->nfiles; i < n; i++) v[i] = NULL;
        c->files = v, c->nfiles = n;
    }
    c->files[f->index] = f;
    return true;
}

/* layers_each callback: a layer goes to its file's table. */
static bool keep_layer(void *user, size_t source, size_t number, uint64_t key, bool by_ext, int64_t lo, int64_t hi) {
    kernel_rows_ctx *c = user;
    if (source >= c->nfiles || !c->files[source]) return true;
    kr_file *f = c->files[source];
    if (c->layers >= KROWS_MAX_LAYERS || number > UINT32_MAX) return ++c->dropped, true;
    if (!grow((void **)&f->layers, &f->caplayers, f->nlayers, sizeof *f->layers)) return false;
    f->layers[f->nlayers++] = (kr_layer){key, lo, hi, (uint32_t)number, by_ext};
    c->layers++;
    return true;
}

static int cmp_step(const void *x, const void *y) {
    const kr_step *a = x, *b = y;
    if (a->gpu_lane != b->gpu_lane) return a->gpu_lane ? 1 : -1;  /* host lane first, as phases */
    return (a->lo > b->lo) - (a->lo < b->lo);
}

static int cmp_layer(const void *x, const void *y) {
    const kr_layer *a = x, *b = y;
    if (a->by_ext != b->by_ext) return a->by_ext ? 1 : -1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Takes the layers section's layers and sorts every table for pass 2's lookups (read only). */
static bool labels_finish(void *run, const section_results *earlier) {
    kernel_rows_ctx *c = ((labels_run *)run)->ctx;
    const void *layers = section_result(earlier, "layers");
    if (layers && !layers_each(layers, keep_layer, c)) return false;
    for (size_t i = 0; i < c->nfiles; i++) {
        kr_file *f = c->files[i];
        if (!f) continue;
        if (f->nsteps > 1) qsort(f->steps, f->nsteps, sizeof *f->steps, cmp_step);
        if (f->nlayers > 1) qsort(f->layers, f->nlayers, sizeof *f->layers, cmp_layer);
        ops_frames_innermost(&f->frames, 0, 0, 0);   /* sorts them now: pass 2 only reads */
        if (f->frames.oom) return false;            /* (out of memory: the export fails) */
    }
    return true;
}

static void labels_render(const void *run, jw_out *w) {
    (void)run;
    jw_null(w);
}

static void labels_close(void *run) { free(run); }

const section_analysis kernel_labels_analysis = {
    .key = "kernel_labels",
    .wants = REC_BIT(REC_API_CALL) | REC_BIT(REC_ANNOTATION) | REC_BIT(REC_CPU_OP) | REC_BIT(REC_METADATA),
    .fields = RF_START | RF_END | RF_DURATION | RF_CORRELATION | RF_EXTERNAL | RF_PID_TID,
    .open = labels_open,
    .open_source = labels_open_source,
    .consume = labels_consume,
    .end_source = labels_end_source,
    .finish = labels_finish,
    .render = labels_render,
    .close = labels_close,
};

/* ---- pass 2: the rows ---- */

typedef struct rows_src {
    kernel_rows_ctx *ctx;
    const kr_file *lab;      /* the file's tables, NULL */
    int rank;
    kernel_class_cache classes;
} rows_src;

static void *rows_open(const analysis_config *cfg, diag_list *diag) {
    (void)diag;
    assert(cfg->kernel_rows);
    return cfg->kernel_rows;   /* the run state is the context (closed by its owner) */
}

static void *rows_open_source(void *run, const source_ref *src) {
    kernel_rows_ctx *c = run;
    rows_src *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ctx = c;
    s->lab = src->index < c->nfiles ? c->files[src->index] : NULL;
    s->rank = s->lab && s->lab->rank >= 0 ? s->lab->rank : src->rank;
    return s;
}

/* The step of lane gpu whose [lo, hi] holds t, or NULL (steps sorted by cmp_step): phases' step_at. */
static const kr_step *step_at(const kr_step *v, size_t n, bool gpu, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].gpu_lane < gpu || (v[mid].gpu_lane == gpu && v[mid].lo <= t)) lo = mid + 1;
        else hi = mid;
    }
    if (!lo || v[lo - 1].gpu_lane != gpu || v[lo - 1].hi < t) return NULL;
    return &v[lo - 1];
}

/* The layer number of the kernel starting at t in group (by_ext, key), -1 when none. */
static int64_t layer_of(const kr_file *f, bool by_ext, uint64_t key, int64_t t) {
    size_t lo = 0, hi = f->nlayers;
    kr_layer k = {.key = key, .lo = INT64_MIN, .by_ext = by_ext};
    while (lo < hi) {   /* the group's first layer */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_layer(&f->layers[mid], &k) < 0) lo = mid + 1;
        else hi = mid;
    }
    int64_t found = -1;
    for (size_t i = lo; i < f->nlayers && f->layers[i].key == key && f->layers[i].by_ext == by_ext; i++)
        if (f->layers[i].lo <= t && t <= f->layers[i].hi) found = f->layers[i].number;  /* the latest start */
    return found;
}

static const char *frame_at(const kr_file *f, int64_t pid, int64_t tid, int64_t t, size_t *len) {
    uint32_t fr = ops_frames_innermost((py_frames *)&f->frames, pid, tid, t);   /* sorted: reads only */
    if (fr == UINT32_MAX) return NULL;
    *len = f->pool.len[fr];
    return f->pool.s[fr];
}

/* Fills the labels of row k (kernel record r) from the file's tables. */
static void label(const kr_file *f, const record *r, krow *k) {
    bool has_ext = (r->has & RF_EXTERNAL) && r->external_id, has_corr = (r->has & RF_CORRELATION) != 0;
    const kr_launch *l = NULL;
    if (has_corr && f->nlaunches) {
        uint32_t i = id_map_get(&f->launch_by_corr, r->correlation_id);
        if (i != ID_MAP_NONE) l = &f->launches[i];
    }
    if (k->has_start && f->nsteps && has_corr) {   /* phases: kernels without a correlation id are unattributed */
        const kr_step *st = l ? step_at(f->steps, f->nsteps, false, l->start) : NULL;
        if (!st) st = step_at(f->steps, f->nsteps, true, k->start_ns);
        if (!st && !l) st = step_at(f->steps, f->nsteps, false, k->start_ns);
        if (st) k->phase = phases_key(st->phase);
    }
    if (k->has_start && (has_ext || has_corr) && f->nlayers)
        k->layer = layer_of(f, has_ext, has_ext ? r->external_id : r->correlation_id, k->start_ns);
    uint32_t op = ID_MAP_NONE;   /* ops: by the kernel's External id, else its launch's */
    if (f->nops && has_ext) op = id_map_get(&f->op_by_ext, r->external_id);
    if (f->nops && op == ID_MAP_NONE && l && l->ext) op = id_map_get(&f->op_by_ext, l->ext);
    if (op != ID_MAP_NONE) {
        const kr_op *o = &f->ops[op];
        k->cpu_op = f->pool.s[o->name], k->cpu_op_len = f->pool.len[o->name];
        k->owner = "operator";
        if (o->timed) k->python_frame = frame_at(f, o->pid, o->tid, o->start, &k->python_frame_len);
    } else if (l && !l->ext && l->has_thread) {   /* a graph replay (a launch without External id): the
                                                  * frame around its launch owns it, as in ops */
        k->python_frame = frame_at(f, l->pid, l->tid, l->start, &k->python_frame_len);
        if (k->python_frame) k->owner = "python_frame";
    }
}

static bool fits(i128 v) { return v >= (i128)INT64_MIN && v <= (i128)INT64_MAX; }

static bool rows_consume(void *src, const record *r) {
    rows_src *s = src;
    kernel_rows_ctx *c = s->ctx;
    i128 d;
    /* the kernels the kernels section counts */
    if (c->write_failed || !r->name || !record_duration(r, &d) || kernel_is_barrier(r->name, r->name_len)) return true;
    krow k = {.rank = s->rank, .name = r->name, .name_len = r->name_len, .phase = "none", .layer = -1};
    k.duration_ns = fits(d) ? (int64_t)d : 0;
    k.has_start = (r->has & RF_START) && fits(r->start_ns);
    if (k.has_start) k.start_ns = (int64_t)r->start_ns;
    i128 end = r->has & RF_END ? r->end_ns : i128_add(r->start_ns, r->duration_ns);
    k.has_end = ((r->has & RF_END) || k.has_start) && fits(end);
    if (k.has_end) k.end_ns = (int64_t)end;
    k.has_device = (r->has & RF_DEVICE) != 0, k.device = r->device;
    k.has_stream = (r->has & RF_STREAM) != 0, k.stream = r->stream;
    k.cls = kernel_class_key(kcc_class_of(&s->classes, r->name, r->name_len));
    if (s->lab) label(s->lab, r, &k);
    c->written++;
    if (!c->fn(c->user, &k)) c->write_failed = true;
    return true;
}

static bool rows_end_source(void *run, void *src) {
    (void)run;
    rows_src *s = src;
    kcc_free(&s->classes);
    free(s);
    return true;
}

static bool rows_finish(void *run, const section_results *earlier) {
    (void)run, (void)earlier;
    return true;
}

static void rows_close(void *run) { (void)run; }

const section_analysis kernel_rows_analysis = {
    .key = "kernel_rows",
    .wants = REC_BIT(REC_KERNEL_DISPATCH),
    .fields = RF_START | RF_END | RF_DURATION | RF_CORRELATION | RF_EXTERNAL | RF_DEVICE | RF_STREAM,
    .open = rows_open,
    .open_source = rows_open_source,
    .consume = rows_consume,
    .end_source = rows_end_source,
    .finish = rows_finish,
    .render = labels_render,
    .close = rows_close,
};

const section_analysis kernel_rows_host_analysis = {
    .key = "kernel_rows",
    .wants = REC_BIT(REC_KERNEL_DISPATCH),
    .fields = RF_START | RF_END | RF_DURATION | RF_CORRELATION | RF_EXTERNAL | RF_DEVICE | RF_STREAM,
    .host_clock = true,       /* the host trace's kernels, as ops, phases and layers take them */
    .open = rows_open,
    .open_source = rows_open_source,
    .consume = rows_consume,
    .end_source = rows_end_source,
    .finish = rows_finish,
    .render = labels_render,
    .close = rows_close,
};
