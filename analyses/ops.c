/* ops: GPU kernel time attributed to the CPU operator that launched it (section "ops").
 *
 * A kernel names its operator through torch's External id (kernel, launch call and the
 * innermost enclosing cpu_op carry the same one); a kernel without one goes through its
 * correlation id to the runtime launch call and that call's External id. Per operator
 * name: calls (operator instances that launched at least one kernel), kernels, kernels
 * per call, kernel time as the union of its kernels' intervals (TraceLens's
 * total_direct_kernel_time), the most frequent input shapes as recorded, and for the top
 * operators the innermost user Python frame (python_function) enclosing one of its calls
 * on the same thread.
 *
 * Joins happen per file (External and correlation ids are per process): a kernel whose
 * operator is already known is attributed at once; the rest wait in a bounded pending list
 * and are joined when the file (both pieces of a split read) is complete. Bounds, and what
 * happens beyond them, are in docs/ANALYSIS.md "ops". */
#include <stdlib.h>
#include <string.h>

#include "analyses/id_map.h"
#include "analyses/ns_intervals.h"
#include "analyses/ops_frames.h"
#include "analyses/section.h"

#define MAX_OPS_PER_FILE ((size_t)1 << 17)      /* operator instances with an External id */
#define MAX_LAUNCHES_PER_FILE ((size_t)1 << 16) /* launch calls (correlation -> External id) */
#define MAX_PENDING ((size_t)1 << 16)           /* kernels waiting for their operator */
#define MAX_PENDING_NO_OPS ((size_t)1 << 16)    /* ... while the file has shown no operator yet */
#define MAX_NAME_BYTES ((size_t)16 << 20)       /* operator names and shapes, per pool */
#define MAX_SPANS_TOTAL ((size_t)1 << 21)       /* kernel-time spans over all operator names */
#define TIME_RETIRE_ABOVE ((size_t)1 << 13)  /* kernel-time spans kept per name before the older
                                                 * half is folded into its total (ns_intervals) */
#define MAX_TAIL ((size_t)1 << 20)              /* second-piece kernels kept for the join (56 B each) */
#define MAX_SHAPES 4                            /* distinct input shapes kept per name */
#define TOP_LISTED 50
#define TOP_FRAMES 10

typedef struct op_inst {
    uint64_t ext;            /* its External id */
    uint32_t name, args;     /* str_pool ids (args ID_MAP_NONE when absent) */
    int64_t start, pid, tid;
    bool has_thread, counted;
} op_inst;

typedef struct launch {
    uint64_t corr, ext;
} launch;

typedef struct pending_kernel {
    uint64_t ext, corr;
    int64_t start, end;
    bool has_ext, has_corr;
} pending_kernel;

/* A kernel of the second piece of a split read, kept in file order to be attributed at the
 * join exactly where one sequential pass would have attributed it (see tail_resolve). What
 * the piece alone saw when it arrived: op, the piece's operator by External id (ID_MAP_NONE:
 * none yet); launch, the piece's launch call by correlation id, and launch_op that call's
 * operator in the piece; nops, the piece's operators so far. */
typedef struct tail_kernel {
    uint64_t ext, corr;
    int64_t start, end;
    uint32_t op, launch, launch_op, nops;
    bool has_ext, has_corr, any_op;
} tail_kernel;

typedef struct shape_count {
    uint32_t args;
    uint64_t calls;
} shape_count;

typedef struct name_agg {
    uint64_t calls, kernels;
    ns_intervals time;
    shape_count shapes[MAX_SHAPES];
    uint64_t other_shapes;   /* calls whose shape is not among the kept ones */
    bool has_rep;            /* a representative call, for the Python frame */
    int64_t rep_start, rep_pid, rep_tid;
    uint32_t frame;          /* str_pool id of its Python frame, ID_MAP_NONE */
} name_agg;

/* Everything one file says (both pieces of a split read end in one). */
typedef struct ops_file {
    size_t index;
    str_pool pool;
    op_inst *ops;
    size_t nops, capops;
    launch *launches;
    size_t nlaunches, caplaunches;
    id_map op_by_ext, launch_by_corr;
    pending_kernel *pending;
    size_t npending, cappending;
    name_agg *agg;           /* by name id of pool */
    size_t capagg;
    py_frames frames;
    uint64_t kernels, no_id, pending_dropped, ops_dropped, time_dropped;
    uint64_t pending_dropped_no_ops;  /* of pending_dropped: before the file's first operator */
    size_t spans;
    bool any_op, oom;
    bool second;             /* the second piece of a split read: kernels wait in tail */
    bool tail_full;          /* more than MAX_TAIL kernels: the pieces do not join (ops_split_exact) */
    tail_kernel *tail;
    size_t ntail, captail;
    uint32_t *first;         /* second piece: launches[i]'s correlation id first seen at launch first[i] */
    size_t capfirst;
} ops_file;

typedef struct ops_run {
    diag_list *diag;
    ops_file *acc;           /* the file being joined */
    str_pool pool;
    name_agg *agg;
    size_t capagg;
    uint64_t kernels, unattributed, pending_dropped, ops_dropped, time_dropped, frames_dropped;
    uint64_t pending_dropped_no_ops;  /* of pending_dropped: hit MAX_PENDING_NO_OPS, not MAX_PENDING */
    size_t spans;
    bool any_op, oom;
    size_t *order;           /* finish: name ids by kernel time, descending */
    size_t norder;
} ops_run;

static void agg_init(name_agg *a) {
    memset(a, 0, sizeof *a);
    a->frame = ID_MAP_NONE;
    a->time.retire_above = TIME_RETIRE_ABOVE;
    for (int i = 0; i < MAX_SHAPES; i++) a->shapes[i].args = ID_MAP_NONE;
}

/* Makes agg[id] exist (zeroed) in an array of capacity *cap. */
static bool agg_reserve(name_agg **agg, size_t *cap, size_t id) {
    if (id < *cap) return true;
    size_t c = *cap ? *cap : 64;
    while (c <= id) c *= 2;
    name_agg *v = realloc(*agg, c * sizeof *v);
    if (!v) return false;
    for (size_t i = *cap; i < c; i++) agg_init(&v[i]);
    *agg = v;
    *cap = c;
    return true;
}

static void aggs_free(name_agg *agg, size_t cap) {
    for (size_t i = 0; i < cap; i++) nsi_free(&agg[i].time);
    free(agg);
}

static void file_free(ops_file *f) {
    if (!f) return;
    str_pool_free(&f->pool);
    free(f->ops);
    free(f->launches);
    id_map_free(&f->op_by_ext);
    id_map_free(&f->launch_by_corr);
    free(f->pending);
    free(f->tail);
    free(f->first);
    aggs_free(f->agg, f->capagg);
    py_frames_free(&f->frames);
    free(f);
}

static void *ops_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg;
    ops_run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->diag = diag;
    r->pool.max_bytes = MAX_NAME_BYTES;
    return r;
}

static void *ops_open_source(void *run, const source_ref *src) {
    (void)run;
    ops_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->index = src->index;
    f->second = src->piece == 1;
    f->pool.max_bytes = MAX_NAME_BYTES;
    f->op_by_ext.max_entries = MAX_OPS_PER_FILE;
    /* the second piece keeps every launch: the join decides which one pass would have kept */
    f->launch_by_corr.max_entries = f->second ? MAX_TAIL : MAX_LAUNCHES_PER_FILE;
    return f;
}

/* Grows an array of n elements of size sz to hold one more. */
static bool grow_one(void **v, size_t *cap, size_t n, size_t sz) {
    if (n < *cap) return true;
    size_t c = *cap ? *cap + *cap / 2 : 256;
    void *nv = realloc(*v, c * sz);
    if (!nv) return false;
    *v = nv;
    *cap = c;
    return true;
}

/* Adds `calls` observations of shape `args` to a name's kept shapes. */
static void add_shape(name_agg *a, uint32_t args, uint64_t calls) {
    for (int i = 0; i < MAX_SHAPES; i++) {
        if (a->shapes[i].args == args) {
            a->shapes[i].calls += calls;
            return;
        }
        if (a->shapes[i].args == ID_MAP_NONE) {
            a->shapes[i] = (shape_count){args, calls};
            return;
        }
    }
    a->other_shapes += calls;
}

/* Attributes the kernel [start, end) to operator instance op of file f. */
static bool attribute(ops_file *f, uint32_t op, int64_t start, int64_t end) {
    op_inst *o = &f->ops[op];
    if (!agg_reserve(&f->agg, &f->capagg, o->name)) return false;
    name_agg *a = &f->agg[o->name];
    a->kernels++;
    if (!o->counted) {
        o->counted = true;
        a->calls++;
        if (o->args != ID_MAP_NONE) add_shape(a, o->args, 1);
        if (!a->has_rep && o->has_thread) {
            a->has_rep = true;
            a->rep_start = o->start, a->rep_pid = o->pid, a->rep_tid = o->tid;
        }
    }
    if (f->spans >= MAX_SPANS_TOTAL) {
        f->time_dropped++;
        return true;
    }
    size_t before = a->time.n;
    if (!nsi_add(&a->time, start, end)) return false;
    f->spans += a->time.n - before;
    return true;
}

/* The operator instance of kernel k: by its External id, else through its launch call. */
static uint32_t op_of(const ops_file *f, const pending_kernel *k) {
    if (k->has_ext) {
        uint32_t op = id_map_get(&f->op_by_ext, k->ext);
        if (op != ID_MAP_NONE) return op;
    }
    if (k->has_corr) {
        uint32_t l = id_map_get(&f->launch_by_corr, k->corr);
        if (l != ID_MAP_NONE) return id_map_get(&f->op_by_ext, f->launches[l].ext);
    }
    return ID_MAP_NONE;
}

static bool is_category(const record *r, const char *c) {
    return r->category && r->category_len == strlen(c) && !memcmp(r->category, c, r->category_len);
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

static bool consume_op(ops_file *f, const record *r) {
    int64_t a, b;
    if (is_category(r, "python_function")) {
        if (!span_of(r, &a, &b) || !(r->has & RF_PID_TID) || !py_frame_is_user(r->name, r->name_len)) return true;
        uint32_t name = str_pool_intern(&f->pool, r->name, r->name_len);
        if (name == ID_MAP_NONE) return true;
        return py_frames_add(&f->frames, (py_frame){a, b, r->pid, r->tid, name});
    }
    f->any_op = true;
    if (!(r->has & RF_EXTERNAL) || !r->external_id || !r->name) return true;
    uint32_t name = str_pool_intern(&f->pool, r->name, r->name_len);
    uint32_t args = r->args && r->args_len ? str_pool_intern(&f->pool, r->args, r->args_len) : ID_MAP_NONE;
    if (name == ID_MAP_NONE) {
        f->ops_dropped++;
        return true;
    }
    if (!grow_one((void **)&f->ops, &f->capops, f->nops, sizeof *f->ops)) return false;
    bool timed = span_of(r, &a, &b);
    f->ops[f->nops] = (op_inst){r->external_id, name, args, timed ? a : 0, r->pid, r->tid,
                                timed && (r->has & RF_PID_TID), false};
    uint32_t got = id_map_put(&f->op_by_ext, r->external_id, (uint32_t)f->nops);
    if (got == ID_MAP_OOM) return false;
    if (got == ID_MAP_FULL) f->ops_dropped++;
    else f->nops++;
    return true;
}

/* The second piece keeps every timed kernel with what the piece alone knows of its operator;
 * the join attributes them in file order (tail_resolve). */
static bool tail_add(ops_file *f, const pending_kernel *k) {
    if (f->ntail >= MAX_TAIL) {
        f->tail_full = true;
        return true;
    }
    if (!grow_one((void **)&f->tail, &f->captail, f->ntail, sizeof *f->tail)) return false;
    tail_kernel t = {k->ext, k->corr, k->start, k->end, ID_MAP_NONE, ID_MAP_NONE, ID_MAP_NONE, (uint32_t)f->nops,
                     k->has_ext, k->has_corr, f->any_op};
    if (k->has_ext) t.op = id_map_get(&f->op_by_ext, k->ext);
    if (t.op == ID_MAP_NONE && k->has_corr && (t.launch = id_map_get(&f->launch_by_corr, k->corr)) != ID_MAP_NONE)
        t.launch_op = id_map_get(&f->op_by_ext, f->launches[t.launch].ext);
    f->tail[f->ntail++] = t;
    return true;
}

static bool ops_consume(void *src, const record *r) {
    ops_file *f = src;
    if (r->type == REC_CPU_OP) return consume_op(f, r);
    if (r->type == REC_API_CALL) {
        if (!(r->has & RF_CORRELATION) || !(r->has & RF_EXTERNAL) || !r->external_id) return true;
        if (!grow_one((void **)&f->launches, &f->caplaunches, f->nlaunches, sizeof *f->launches)) return false;
        f->launches[f->nlaunches] = (launch){r->correlation_id, r->external_id};
        uint32_t prev = ID_MAP_NONE;
        if (f->second) {
            prev = id_map_get(&f->launch_by_corr, r->correlation_id);
            size_t c = f->capfirst;
            if (!grow_one((void **)&f->first, &c, f->nlaunches, sizeof *f->first)) return false;
            f->capfirst = c;
        }
        uint32_t got = id_map_put(&f->launch_by_corr, r->correlation_id, (uint32_t)f->nlaunches);
        if (got == ID_MAP_OOM) return false;
        if (got == ID_MAP_FULL) f->tail_full |= f->second;
        else {
            if (f->second) f->first[f->nlaunches] = prev == ID_MAP_NONE ? (uint32_t)f->nlaunches : f->first[prev];
            f->nlaunches++;
        }
        return true;
    }
    /* REC_KERNEL_DISPATCH */
    int64_t a, b;
    f->kernels++;
    pending_kernel k = {.ext = r->external_id, .corr = r->correlation_id,
                        .has_ext = (r->has & RF_EXTERNAL) && r->external_id, .has_corr = r->has & RF_CORRELATION};
    if ((!k.has_ext && !k.has_corr) || !span_of(r, &a, &b)) {
        f->no_id++;
        return true;
    }
    k.start = a, k.end = b;
    if (f->second) return tail_add(f, &k);
    uint32_t op = op_of(f, &k);
    if (op != ID_MAP_NONE) return attribute(f, op, a, b);
    if (f->npending >= (f->any_op ? MAX_PENDING : MAX_PENDING_NO_OPS)) {
        f->pending_dropped++;
        if (!f->any_op) f->pending_dropped_no_ops++;
        return true;
    }
    if (!grow_one((void **)&f->pending, &f->cappending, f->npending, sizeof *f->pending)) return false;
    f->pending[f->npending++] = k;
    return true;
}

/* Re-interns src's strings into dst's pool: map[i] is src id i's id in dst. */
static uint32_t *remap_pool(str_pool *dst, const str_pool *src) {
    uint32_t *map = malloc((src->n + 1) * sizeof *map);
    if (!map) return NULL;
    for (size_t i = 0; i < src->n; i++) map[i] = str_pool_intern(dst, src->s[i], src->len[i]);
    return map;
}

static uint32_t mapped(const uint32_t *map, uint32_t id) { return id == ID_MAP_NONE ? ID_MAP_NONE : map[id]; }

/* Folds name aggregate s (ids by map) into d; time spans up to *spans < limit. */
static bool agg_fold(name_agg *d, const name_agg *s, const uint32_t *map, size_t *spans, uint64_t *time_dropped) {
    d->calls += s->calls;
    d->kernels += s->kernels;
    if (*spans + s->time.n > MAX_SPANS_TOTAL) {
        *time_dropped += s->kernels;
    } else {
        size_t before = d->time.n;
        if (!nsi_merge(&d->time, &s->time)) return false;
        *spans += d->time.n - before;
    }
    for (int i = 0; i < MAX_SHAPES && s->shapes[i].args != ID_MAP_NONE; i++) {
        uint32_t id = mapped(map, s->shapes[i].args);
        if (id == ID_MAP_NONE) d->other_shapes += s->shapes[i].calls;
        else add_shape(d, id, s->shapes[i].calls);
    }
    d->other_shapes += s->other_shapes;
    if (!d->has_rep && s->has_rep) d->has_rep = true, d->rep_start = s->rep_start, d->rep_pid = s->rep_pid, d->rep_tid = s->rep_tid;
    if (d->frame == ID_MAP_NONE) d->frame = mapped(map, s->frame);
    return true;
}

/* The operator one sequential pass finds for the second piece's kernel t when it arrives:
 * the first piece's (acc, the second not folded in yet) plus the second piece's operators
 * and launches before t. acc's op index, base + the piece's op index, or ID_MAP_NONE. Exact
 * because neither piece lost an operator or a launch to a bound (ops_split_exact). */
static uint32_t tail_resolve(const ops_file *acc, const ops_file *f, const tail_kernel *t, uint32_t base,
                             const bool *kept) {
    if (t->op != ID_MAP_NONE) return base + t->op;          /* by External id, in the piece: the latest */
    if (t->has_ext) {                                       /* none in the piece before t */
        uint32_t o = id_map_get(&acc->op_by_ext, t->ext);
        if (o != ID_MAP_NONE) return o;
    }
    if (!t->has_corr) return ID_MAP_NONE;
    if (t->launch != ID_MAP_NONE && !kept[t->launch]) return ID_MAP_NONE;   /* one pass had none */
    if (t->launch != ID_MAP_NONE)                           /* the piece's launch is the latest */
        return t->launch_op != ID_MAP_NONE ? base + t->launch_op
                                           : id_map_get(&acc->op_by_ext, f->launches[t->launch].ext);
    uint32_t l = id_map_get(&acc->launch_by_corr, t->corr);
    if (l == ID_MAP_NONE) return ID_MAP_NONE;
    uint64_t e = acc->launches[l].ext;
    uint32_t o = id_map_get(&f->op_by_ext, e);              /* the piece's latest with e ... */
    if (o != ID_MAP_NONE && o >= t->nops) {                 /* ... came after t: an earlier one? */
        o = ID_MAP_NONE;
        for (uint32_t i = t->nops; i-- > 0;)
            if (f->ops[i].ext == e) { o = i; break; }
    }
    return o != ID_MAP_NONE ? base + o : id_map_get(&acc->op_by_ext, e);
}

/* The second piece of a split read joins the first (acc, which has read exactly the bytes
 * before it): its kernels are resolved against what one pass would have known when each
 * arrived, its operators and launches appended, then its kernels attributed or put in the
 * pending list in file order, with the pending bound counted as one pass counts it. The
 * result is that of one sequential pass (ops_split_exact refuses the join otherwise). */
static bool merge_piece(ops_file *acc, ops_file *f) {
    uint32_t base = (uint32_t)acc->nops;
    bool any_op1 = acc->any_op;
    /* kept[i]: one pass kept the piece's launch i: its correlation id was in the first
     * piece's map, else among the first new ones while the map had room (a key refused once
     * is refused ever after, a key kept stays) */
    bool *kept = malloc(f->nlaunches + 1);
    if (!kept) return false;
    size_t room = acc->launch_by_corr.n < MAX_LAUNCHES_PER_FILE ? MAX_LAUNCHES_PER_FILE - acc->launch_by_corr.n : 0;
    for (size_t i = 0; i < f->nlaunches; i++) {
        if (f->first[i] != i) kept[i] = kept[f->first[i]];
        else if (id_map_get(&acc->launch_by_corr, f->launches[i].corr) != ID_MAP_NONE) kept[i] = true;
        else if ((kept[i] = room > 0)) room--;
    }
    for (size_t i = 0; i < f->ntail; i++) f->tail[i].op = tail_resolve(acc, f, &f->tail[i], base, kept);
    free(kept);
    uint32_t *map = remap_pool(&acc->pool, &f->pool);
    if (!map) return false;
    bool ok = true;
    for (size_t i = 0; ok && i < f->nops; i++) {
        op_inst o = f->ops[i];
        o.name = mapped(map, o.name), o.args = mapped(map, o.args);
        if (o.name == ID_MAP_NONE) continue;
        ok = grow_one((void **)&acc->ops, &acc->capops, acc->nops, sizeof *acc->ops);
        if (!ok) break;
        acc->ops[acc->nops] = o;
        uint32_t got = id_map_put(&acc->op_by_ext, o.ext, (uint32_t)acc->nops);
        if (got == ID_MAP_OOM) ok = false;
        else if (got == ID_MAP_FULL) acc->ops_dropped++;
        else acc->nops++;
    }
    for (size_t i = 0; ok && i < f->nlaunches; i++) {
        ok = grow_one((void **)&acc->launches, &acc->caplaunches, acc->nlaunches, sizeof *acc->launches);
        if (!ok) break;
        acc->launches[acc->nlaunches] = f->launches[i];
        uint32_t got = id_map_put(&acc->launch_by_corr, f->launches[i].corr, (uint32_t)acc->nlaunches);
        if (got == ID_MAP_OOM) ok = false;
        else if (got != ID_MAP_FULL) acc->nlaunches++;
    }
    for (size_t i = 0; ok && i < f->frames.n; i++) {
        py_frame fr = f->frames.v[i];
        fr.name = mapped(map, fr.name);
        if (fr.name != ID_MAP_NONE) ok = py_frames_add(&acc->frames, fr);
    }
    acc->frames.dropped += f->frames.dropped;
    for (size_t i = 0; ok && i < f->ntail; i++) {   /* in file order, as one pass would */
        const tail_kernel *t = &f->tail[i];
        if (t->op != ID_MAP_NONE && t->op < acc->nops) {
            ok = attribute(acc, t->op, t->start, t->end);
            continue;
        }
        bool any_op = any_op1 || t->any_op;
        if (acc->npending >= (any_op ? MAX_PENDING : MAX_PENDING_NO_OPS)) {
            acc->pending_dropped++;
            if (!any_op) acc->pending_dropped_no_ops++;
            continue;
        }
        ok = grow_one((void **)&acc->pending, &acc->cappending, acc->npending, sizeof *acc->pending);
        if (ok) acc->pending[acc->npending++] = (pending_kernel){t->ext, t->corr, t->start, t->end, t->has_ext, t->has_corr};
    }
    acc->kernels += f->kernels, acc->no_id += f->no_id;
    acc->ops_dropped += f->ops_dropped;
    acc->any_op |= f->any_op;
    free(map);
    return ok;
}

/* Whether the second piece (second) folded into the first gives exactly one sequential
 * pass's result: neither piece lost an operator or a name to a bound and the two together
 * stay under them; the second piece kept every kernel and launch (MAX_TAIL). The launch
 * bound is counted at the join as one pass counts it (merge_piece). */
static bool ops_split_exact(const void *first, const void *second) {
    const ops_file *a = first, *b = second;
    return !b->tail_full && !a->ops_dropped && !b->ops_dropped && a->op_by_ext.n + b->op_by_ext.n < MAX_OPS_PER_FILE &&
           a->pool.bytes + b->pool.bytes <= MAX_NAME_BYTES;
}

/* Joins the file's waiting kernels, names the Python frames, folds it into the run. */
static bool resolve_file(ops_run *r, ops_file *f) {
    uint64_t unresolved = 0;
    for (size_t i = 0; i < f->npending; i++) {
        uint32_t op = op_of(f, &f->pending[i]);
        if (op == ID_MAP_NONE) unresolved++;
        else if (!attribute(f, op, f->pending[i].start, f->pending[i].end)) return false;
    }
    for (size_t i = 0; i < f->capagg && i < f->pool.n; i++) {
        name_agg *a = &f->agg[i];
        if (a->kernels && a->has_rep && a->frame == ID_MAP_NONE && f->frames.n) {
            uint32_t fr = py_frames_innermost(&f->frames, a->rep_pid, a->rep_tid, a->rep_start);
            a->frame = fr == UINT32_MAX ? ID_MAP_NONE : fr;
        }
    }
    uint32_t *map = remap_pool(&r->pool, &f->pool);
    if (!map) return false;
    for (size_t i = 0; i < f->capagg && i < f->pool.n; i++) {
        if (!f->agg[i].kernels) continue;
        if (map[i] == ID_MAP_NONE) {
            unresolved += f->agg[i].kernels;
            continue;
        }
        if (!agg_reserve(&r->agg, &r->capagg, map[i]) || !agg_fold(&r->agg[map[i]], &f->agg[i], map, &r->spans, &r->time_dropped)) {
            free(map);
            return false;
        }
    }
    free(map);
    r->kernels += f->kernels;
    r->unattributed += unresolved + f->no_id + f->pending_dropped;
    r->pending_dropped += f->pending_dropped;
    r->pending_dropped_no_ops += f->pending_dropped_no_ops;
    r->ops_dropped += f->ops_dropped;
    r->time_dropped += f->time_dropped;
    r->frames_dropped += f->frames.dropped;
    r->any_op |= f->any_op;
    return true;
}

static bool ops_end_source(void *run, void *src) {
    ops_run *r = run;
    ops_file *f = src;
    bool ok = true;
    if (r->acc && r->acc->index == f->index) {
        ok = merge_piece(r->acc, f);
        file_free(f);
    } else {
        if (r->acc) ok = resolve_file(r, r->acc);
        file_free(r->acc);
        r->acc = f;
    }
    if (!ok) r->oom = true;
    return ok;
}

static const ops_run *sort_run;
static int cmp_time(const void *x, const void *y) {
    const name_agg *a = &sort_run->agg[*(const size_t *)x], *b = &sort_run->agg[*(const size_t *)y];
    int64_t ta = nsi_total(&a->time), tb = nsi_total(&b->time);
    if (ta != tb) return ta > tb ? -1 : 1;
    return strcmp(sort_run->pool.s[*(const size_t *)x], sort_run->pool.s[*(const size_t *)y]);
}

static bool ops_finish(void *run, const section_results *earlier) {
    (void)earlier;
    ops_run *r = run;
    if (r->acc) {
        bool ok = resolve_file(r, r->acc);
        file_free(r->acc);
        r->acc = NULL;
        if (!ok) return !(r->oom = true);
    }
    r->order = malloc((r->pool.n + 1) * sizeof *r->order);
    if (!r->order) return !(r->oom = true);
    for (size_t i = 0; i < r->pool.n && i < r->capagg; i++)
        if (r->agg[i].kernels) r->order[r->norder++] = i;
    sort_run = r;  /* finish runs on the driver thread, one analysis at a time */
    if (r->norder > 1) qsort(r->order, r->norder, sizeof *r->order, cmp_time);
    sort_run = NULL;
    /* the limit actually hit: MAX_PENDING_NO_OPS while a file had shown no operator yet, else MAX_PENDING */
    uint64_t after_ops = r->pending_dropped - r->pending_dropped_no_ops;
    if (r->pending_dropped_no_ops && r->any_op)
        diag_add(r->diag, "ops: more than %zu kernels waited for their operator before the file's first operator; "
                 "%llu are counted as unattributed", MAX_PENDING_NO_OPS, (unsigned long long)r->pending_dropped_no_ops);
    if (after_ops && r->any_op)
        diag_add(r->diag, "ops: more than %zu kernels waited for their operator in one file; %llu are counted as "
                 "unattributed", MAX_PENDING, (unsigned long long)after_ops);
    if (r->ops_dropped)
        diag_add(r->diag, "ops: more than %zu operator calls (or %zu MiB of names) in one file; kernels of %llu "
                 "further calls are unattributed", MAX_OPS_PER_FILE, MAX_NAME_BYTES >> 20,
                 (unsigned long long)r->ops_dropped);
    uint64_t inexact = 0;
    for (size_t i = 0; i < r->norder; i++) inexact += r->agg[r->order[i]].time.inexact;
    if (inexact)
        diag_add(r->diag, "ops: %llu kernels reached back before the %zu latest kernel-time spans of their operator "
                 "name; kernel_time_ns counts them without the union and may overcount",
                 (unsigned long long)inexact, TIME_RETIRE_ABOVE);
    if (r->time_dropped)
        diag_add(r->diag, "ops: more than %zu separate kernel-time spans; %llu kernels count in calls and kernels "
                 "but not in kernel_time_ns", MAX_SPANS_TOTAL, (unsigned long long)r->time_dropped);
    return true;
}

static uint64_t attributed(const ops_run *r) {
    uint64_t n = 0;
    for (size_t i = 0; i < r->norder; i++) n += r->agg[r->order[i]].kernels;
    return n;
}

static void ops_render(const void *run, jw_out *w) {
    const ops_run *r = run;
    if (!r->any_op || r->oom) {
        jw_null(w);
        return;
    }
    jw_object_open(w);
    jw_key(w, "complete");
    jw_bool(w, !r->pending_dropped && !r->ops_dropped && !r->time_dropped);  /* any_op holds here */
    jw_key(w, "kernels");
    jw_int(w, (int64_t)r->kernels);
    jw_key(w, "attributed_kernels");
    jw_int(w, (int64_t)attributed(r));
    jw_key(w, "unattributed_kernels");
    jw_int(w, (int64_t)r->unattributed);
    jw_key(w, "operators");
    jw_int(w, (int64_t)r->norder);
    jw_key(w, "by_op");
    jw_array_open(w);
    for (size_t i = 0; i < r->norder && i < TOP_LISTED; i++) {
        const name_agg *a = &r->agg[r->order[i]];
        jw_object_open(w);
        jw_key(w, "name");
        jw_string(w, r->pool.s[r->order[i]]);
        jw_key(w, "calls");
        jw_int(w, (int64_t)a->calls);
        jw_key(w, "kernels");
        jw_int(w, (int64_t)a->kernels);
        jw_key(w, "kernels_per_call");
        jw_number(w, a->calls ? (double)a->kernels / (double)a->calls : 0);
        jw_key(w, "kernel_time_ns");
        jw_int(w, nsi_total(&a->time));
        jw_key(w, "input_shapes");
        jw_array_open(w);
        for (int s = 0; s < MAX_SHAPES && a->shapes[s].args != ID_MAP_NONE; s++) {
            jw_object_open(w);
            jw_key(w, "shapes");
            jw_string(w, r->pool.s[a->shapes[s].args]);
            jw_key(w, "calls");
            jw_int(w, (int64_t)a->shapes[s].calls);
            jw_object_close(w);
        }
        jw_array_close(w);
        if (i < TOP_FRAMES) {
            jw_key(w, "python_frame");
            if (a->frame != ID_MAP_NONE) jw_string(w, r->pool.s[a->frame]);
            else jw_null(w);
        }
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_object_close(w);
}

/* "kernels", "attributed_kernels", "unattributed_kernels", "operators", "top.kernel_time_ns". */
static bool ops_number(const void *run, const char *path, double *out) {
    const ops_run *r = run;
    if (!r->any_op || r->oom) return false;
    if (!strcmp(path, "kernels")) return *out = (double)r->kernels, true;
    if (!strcmp(path, "attributed_kernels")) return *out = (double)attributed(r), true;
    if (!strcmp(path, "unattributed_kernels")) return *out = (double)r->unattributed, true;
    if (!strcmp(path, "operators")) return *out = (double)r->norder, true;
    if (!strcmp(path, "top.kernel_time_ns") && r->norder) return *out = (double)nsi_total(&r->agg[r->order[0]].time), true;
    return false;
}

static void ops_close(void *run) {
    ops_run *r = run;
    if (!r) return;
    file_free(r->acc);
    str_pool_free(&r->pool);
    aggs_free(r->agg, r->capagg);
    free(r->order);
    free(r);
}

const section_analysis ops_analysis = {
    .key = "ops",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_API_CALL) | REC_BIT(REC_CPU_OP),
    .fields = RF_START | RF_END | RF_DURATION | RF_CORRELATION | RF_EXTERNAL | RF_PID_TID,
    .splittable = true,
    .split_exact = ops_split_exact,
    .host_clock = true,           /* joins kernels to the host trace's operators, launches and steps */
    .open = ops_open,
    .open_source = ops_open_source,
    .consume = ops_consume,
    .end_source = ops_end_source,
    .finish = ops_finish,
    .render = ops_render,
    .number = ops_number,
    .close = ops_close,
};
