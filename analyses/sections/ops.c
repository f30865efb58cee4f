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
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/id_map.h"
#include "analyses/structures/str_pool.h"
#include "analyses/structures/ns_intervals.h"
#include "analyses/sections/ops_frames.h"
#include "analyses/sections/ops_state.h"
#include "analyses/section.h"

static void agg_init(name_agg *a) {
    memset(a, 0, sizeof *a);
    a->frame = ID_MAP_NONE;
    a->time.retire_above = TIME_RETIRE_ABOVE;
    for (int i = 0; i < MAX_SHAPES; i++) a->shapes[i].args = ID_MAP_NONE;
}

bool ops_agg_reserve(name_agg **agg, size_t *cap, size_t id) {
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
    plog_free(&f->pending);
    plog_free(&f->tail);
    free(f->first_launch);
    free(f->first_op);
    aggs_free(f->agg, f->capagg);
    aggs_free(f->fagg, f->capfagg);
    free(f->replays);
    id_map_free(&f->replay_by_corr);
    ops_frames_free(&f->frames);
    file_free(f->p2);
    free(f->okept);
    free(f->lkept);
    free(f);
}

static void *ops_open(const analysis_config *cfg, diag_list *diag) {
    ops_run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->diag = diag;
    r->cfg = cfg;
    r->pool.max_bytes = MAX_NAME_BYTES;
    return r;
}

static void *ops_open_source(void *run, const source_ref *src) {
    (void)run;
    ops_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->index = src->index;
    f->second = src->piece == 1;
    _Static_assert(PIECE_LOG_FITS(tail_kernel) && PIECE_LOG_FITS(pending_kernel), "piece_log entries");
    f->tail.size = sizeof(tail_kernel);
    f->tail.span = offsetof(tail_kernel, end);   /* end is coded as a duration (piece_log.h) */
    f->pending.size = sizeof(pending_kernel);
    f->pending.span = offsetof(pending_kernel, end);
    f->pool.max_bytes = MAX_NAME_BYTES;
    /* the second piece keeps every operator and launch up to its budget (past it the join
     * is refused): the join decides which ones one pass would have kept */
    f->op_by_ext.max_entries = f->second ? MAX_PIECE_OPS : MAX_OPS_PER_FILE;
    f->launch_by_corr.max_entries = f->second ? MAX_PIECE_LAUNCHES : MAX_LAUNCHES_PER_FILE;
    return f;
}

/* Grows an array of n elements of size sz to hold one more. Doubling: the operator and launch
 * arrays reach megabytes, below the mmap threshold (base/mem_tune.c), so each realloc copies
 * and first-touches fresh heap; growing by half again copied twice the final size. */
bool ops_grow_one(void **v, size_t *cap, size_t n, size_t sz) {
    if (n < *cap) return true;
    size_t c = *cap ? *cap * 2 : 256;
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

/* A call's kernel time k grows by d: the name's Σ and Σ of squares follow (saturating). */
static void call_time_add(name_agg *a, op_inst *o, int64_t d) {
    i128 k = o->ktime, twice_kd, d2;
    if (__builtin_mul_overflow((i128)2 * k, (i128)d, &twice_kd)) twice_kd = (i128)(((unsigned __int128)1 << 127) - 1);
    d2 = (i128)d * d;                                   /* < 2^126: no overflow */
    a->call_sum = i128_add(a->call_sum, d);
    a->call_sq = i128_add(a->call_sq, i128_add(twice_kd, d2));
    if (__builtin_add_overflow(o->ktime, d, &o->ktime)) o->ktime = INT64_MAX;
}

/* Attributes the kernel [start, end) to operator instance op of file f. */
bool ops_attribute(ops_file *f, uint32_t op, int64_t start, int64_t end) {
    op_inst *o = ops_inst(f, op);
    if (!ops_agg_reserve(&f->agg, &f->capagg, o->name)) return false;
    name_agg *a = &f->agg[o->name];
    a->kernels++;
    int64_t d = 0;                                     /* its duration (an end before its start: 0) */
    if (end > start && __builtin_sub_overflow(end, start, &d)) d = INT64_MAX;
    call_time_add(a, o, d);
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

/* The operator instance of kernel k: by its External id, else through its launch call
 * (both pieces of a split read once joined: ops_op_by_ext). */
static uint32_t op_of(const ops_file *f, const pending_kernel *k) {
    if (k->has_ext) {
        uint32_t op = ops_op_by_ext(f, k->ext);
        if (op != ID_MAP_NONE) return op;
    }
    return k->has_corr ? ops_op_by_corr(f, k->corr) : ID_MAP_NONE;
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
        if (!span_of(r, &a, &b) || !(r->has & RF_PID_TID) || !ops_frame_is_user(r->name, r->name_len)) return true;
        uint32_t name = str_pool_intern(&f->pool, r->name, r->name_len);
        if (name == ID_MAP_OOM) return false;
        if (name == ID_MAP_NONE) return true;
        return ops_frames_add(&f->frames, (py_frame){a, b, r->pid, r->tid, name});
    }
    f->any_op = true;
    if (!(r->has & RF_EXTERNAL) || !r->external_id || !r->name) return true;
    uint32_t name = str_pool_intern(&f->pool, r->name, r->name_len);
    uint32_t args = r->args && r->args_len ? str_pool_intern(&f->pool, r->args, r->args_len) : ID_MAP_NONE;
    if (name == ID_MAP_OOM || args == ID_MAP_OOM) return false;
    if (name == ID_MAP_NONE) {
        f->ops_dropped++;
        return true;
    }
    if (f->second && f->nops >= MAX_PIECE_OPS) {   /* instances, not only ids: read in one piece */
        f->tail_full = true;
        return true;
    }
    if (!ops_grow_one((void **)&f->ops, &f->capops, f->nops, sizeof *f->ops)) return false;
    bool timed = span_of(r, &a, &b);
    op_inst inst = {r->external_id, name, args, timed ? a : 0, r->pid, r->tid, 0, timed && (r->has & RF_PID_TID), false};
    if (!f->second) return id_map_keep_latest(&f->op_by_ext, f->ops, &f->nops, r->external_id, &inst, sizeof inst,
                                          &f->ops_dropped);
    f->ops[f->nops] = inst;
    uint32_t prev = id_map_get(&f->op_by_ext, r->external_id);
    if (!ops_grow_one((void **)&f->first_op, &f->cap_first_op, f->nops, sizeof *f->first_op)) return false;
    uint32_t got = id_map_put(&f->op_by_ext, r->external_id, (uint32_t)f->nops);
    if (got == ID_MAP_OOM) return false;
    if (got == ID_MAP_FULL) {
        f->ops_dropped++;
        f->tail_full = true;
    } else {
        f->first_op[f->nops] = prev == ID_MAP_NONE ? (uint32_t)f->nops : f->first_op[prev];
        f->nops++;
    }
    return true;
}

static bool ops_consume(void *src, const record *r) {
    ops_file *f = src;
    if (r->type == REC_CPU_OP) return consume_op(f, r);
    if (r->type == REC_API_CALL) {
        if (!(r->has & RF_CORRELATION)) return true;
        if (!(r->has & RF_EXTERNAL) || !r->external_id) return ops_replay_add(f, r);   /* a graph launch */
        if (f->second && f->nlaunches >= MAX_PIECE_LAUNCHES) {
            f->tail_full = true;
            return true;
        }
        if (!ops_grow_one((void **)&f->launches, &f->caplaunches, f->nlaunches, sizeof *f->launches)) return false;
        launch l = {r->correlation_id, r->external_id};
        uint64_t unused = 0;
        if (!f->second)   /* one pass: an id seen again takes its entry again (id_map_keep_latest) */
            return id_map_keep_latest(&f->launch_by_corr, f->launches, &f->nlaunches, r->correlation_id, &l, sizeof l,
                                      &unused);
        f->launches[f->nlaunches] = l;
        uint32_t prev = id_map_get(&f->launch_by_corr, r->correlation_id);
        if (!ops_grow_one((void **)&f->first_launch, &f->cap_first_launch, f->nlaunches, sizeof *f->first_launch))
            return false;
        uint32_t got = id_map_put(&f->launch_by_corr, r->correlation_id, (uint32_t)f->nlaunches);
        if (got == ID_MAP_OOM) return false;
        if (got == ID_MAP_FULL) f->tail_full = true;
        else {
            f->first_launch[f->nlaunches] = prev == ID_MAP_NONE ? (uint32_t)f->nlaunches : f->first_launch[prev];
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
    if (f->second) return ops_tail_add(f, &k);
    uint32_t op = op_of(f, &k);
    if (op != ID_MAP_NONE) return ops_attribute(f, op, a, b);
    if (f->pending.n >= (f->any_op ? MAX_PENDING : MAX_PENDING_NO_OPS)) {
        f->pending_dropped++;
        if (!f->any_op) f->pending_dropped_no_ops++;
        return true;
    }
    return ops_pending_add(f, &k);
}

bool ops_pending_add(ops_file *f, const pending_kernel *k) {
    pending_kernel z;   /* padding zeroed: it codes in one byte (piece_log.h) */
    memset(&z, 0, sizeof z);
    z.ext = k->ext, z.corr = k->corr, z.start = k->start, z.end = k->end;
    z.has_ext = k->has_ext, z.has_corr = k->has_corr;
    return plog_put(&f->pending, &z);
}

/* Re-interns src's strings into dst's pool: map[i] is src id i's id in dst. */
uint32_t *ops_remap_pool(str_pool *dst, const str_pool *src) {
    uint32_t *map = malloc((src->n + 1) * sizeof *map);
    if (!map) return NULL;
    for (size_t i = 0; i < src->n; i++)
        if ((map[i] = str_pool_intern(dst, src->s[i], src->len[i])) == ID_MAP_OOM) { free(map); return NULL; }
    return map;
}


/* Folds name aggregate s (ids by map) into d; time spans up to *spans < limit. */
static bool agg_fold(name_agg *d, const name_agg *s, const uint32_t *map, size_t *spans, uint64_t *time_dropped) {
    d->calls += s->calls;
    d->kernels += s->kernels;
    d->call_sum = i128_add(d->call_sum, s->call_sum);
    d->call_sq = i128_add(d->call_sq, s->call_sq);
    if (*spans + s->time.n > MAX_SPANS_TOTAL) {
        *time_dropped += s->kernels;
    } else {
        size_t before = d->time.n;
        if (!nsi_merge(&d->time, &s->time)) return false;
        *spans += d->time.n - before;
    }
    for (int i = 0; i < MAX_SHAPES && s->shapes[i].args != ID_MAP_NONE; i++) {
        uint32_t id = ops_mapped(map, s->shapes[i].args);
        if (id == ID_MAP_NONE) d->other_shapes += s->shapes[i].calls;
        else add_shape(d, id, s->shapes[i].calls);
    }
    d->other_shapes += s->other_shapes;
    if (!d->has_rep && s->has_rep) d->has_rep = true, d->rep_start = s->rep_start, d->rep_pid = s->rep_pid, d->rep_tid = s->rep_tid;
    if (d->frame == ID_MAP_NONE) d->frame = ops_mapped(map, s->frame);
    return true;
}

/* Joins the file's waiting kernels, names the Python frames, folds it into the run. */
static bool resolve_file(ops_run *r, ops_file *f) {
    uint64_t unresolved = 0, unmapped = 0;
    pending_kernel k;
    while (plog_take(&f->pending, &k)) {   /* read once: its blocks are freed as read */
        uint32_t op = op_of(f, &k);
        bool owned = false;                /* else by the Python frame around its launch (ops_replay.c) */
        if (op == ID_MAP_NONE && !ops_replay_attribute(f, &k, &owned)) return false;
        if (op == ID_MAP_NONE) unresolved += !owned;
        else if (!ops_attribute(f, op, k.start, k.end)) return false;
    }
    for (size_t i = 0; i < f->capagg && i < f->pool.n; i++) {
        name_agg *a = &f->agg[i];
        if (a->kernels && a->has_rep && a->frame == ID_MAP_NONE && f->frames.n) {
            uint32_t fr = ops_frames_innermost(&f->frames, a->rep_pid, a->rep_tid, a->rep_start);
            a->frame = fr == UINT32_MAX ? ID_MAP_NONE : fr;
        }
    }
    uint32_t *map = ops_remap_pool(&r->pool, &f->pool);
    if (!map) return false;
    for (size_t i = 0; i < f->capagg && i < f->pool.n; i++) {
        if (!f->agg[i].kernels) continue;
        if (map[i] == ID_MAP_NONE) {
            unmapped += f->agg[i].kernels;
            continue;
        }
        if (!ops_agg_reserve(&r->agg, &r->capagg, map[i]) || !agg_fold(&r->agg[map[i]], &f->agg[i], map, &r->spans, &r->time_dropped)) {
            free(map);
            return false;
        }
    }
    for (size_t i = 0; i < f->capfagg && i < f->pool.n; i++) {   /* the Python frames' rows */
        if (!f->fagg[i].kernels) continue;
        if (map[i] == ID_MAP_NONE) {
            unmapped += f->fagg[i].kernels;
            continue;
        }
        if (!ops_agg_reserve(&r->fagg, &r->capfagg, map[i]) ||
            !agg_fold(&r->fagg[map[i]], &f->fagg[i], map, &r->spans, &r->time_dropped)) {
            free(map);
            return false;
        }
    }
    free(map);
    r->kernels += f->kernels;
    r->unattributed += unresolved + unmapped + f->no_id + f->pending_dropped;
    r->no_id += f->no_id, r->no_operator += unresolved, r->name_bound += unmapped;
    r->pending_dropped += f->pending_dropped;
    r->pending_dropped_no_ops += f->pending_dropped_no_ops;
    r->ops_dropped += f->ops_dropped;
    r->time_dropped += f->time_dropped;
    r->frames_dropped += f->frames.dropped;
    if (f->frames.oom) r->oom = true;            /* frames not named for lack of memory */
    r->any_op |= f->any_op;
    return true;
}

static bool ops_end_source(void *run, void *src) {
    ops_run *r = run;
    ops_file *f = src;
    bool ok = true;
    if (r->acc && r->acc->index == f->index) {
        if (r->acc->p2) {              /* a file is read in two pieces at most */
            file_free(f);
            ok = false;
        } else {
            ok = ops_merge_piece(r->acc, f);   /* r->acc owns f now (when not out of memory first) */
            if (r->acc->p2 != f) file_free(f);
        }
    } else {
        if (r->acc) ok = resolve_file(r, r->acc);
        file_free(r->acc);
        r->acc = f;
    }
    if (!ok) r->oom = true;
    return ok;
}

/* Most kernel time first, ties by name, then operators before frames (qsort_r with the run as
 * context: the daemon finishes several ingests at once, so no file-scope sort state). */
static int cmp_time(const void *x, const void *y, void *ctx) {
    const ops_run *r = ctx;
    size_t cx = *(const size_t *)x, cy = *(const size_t *)y;
    int64_t ta = nsi_total(&ops_row_agg(r, cx)->time), tb = nsi_total(&ops_row_agg(r, cy)->time);
    if (ta != tb) return ta > tb ? -1 : 1;
    int c = strcmp(ops_row_name(r, cx), ops_row_name(r, cy));
    return c ? c : (cx > cy) - (cx < cy);
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
    r->order = malloc((2 * r->pool.n + 1) * sizeof *r->order);
    if (!r->order) return !(r->oom = true);
    for (size_t i = 0; i < r->pool.n && i < r->capagg; i++)
        if (r->agg[i].kernels) r->order[r->norder++] = i;
    for (size_t i = 0; i < r->pool.n && i < r->capfagg; i++)
        if (r->fagg[i].kernels) r->order[r->norder++] = i | OPS_FRAME_ROW;
    if (r->norder > 1) qsort_r(r->order, r->norder, sizeof *r->order, cmp_time, r);
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
    for (size_t i = 0; i < r->norder; i++) inexact += ops_row_agg(r, r->order[i])->time.inexact;
    if (inexact)
        diag_add(r->diag, "ops: %llu kernels reached back before the %zu latest kernel-time spans of their operator "
                 "name; kernel_time_ns counts them without the union and may overcount",
                 (unsigned long long)inexact, TIME_RETIRE_ABOVE);
    if (r->time_dropped)
        diag_add(r->diag, "ops: more than %zu separate kernel-time spans; %llu kernels count in calls and kernels "
                 "but not in kernel_time_ns", MAX_SPANS_TOTAL, (unsigned long long)r->time_dropped);
    return true;
}

static void ops_close(void *run) {
    ops_run *r = run;
    if (!r) return;
    file_free(r->acc);
    str_pool_free(&r->pool);
    aggs_free(r->agg, r->capagg);
    aggs_free(r->fagg, r->capfagg);
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
