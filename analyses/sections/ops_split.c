/* ops_split: the join of the two pieces of a split read for the ops section (analyses/sections/ops.c).
 *
 * The second piece attributes nothing while it reads: it keeps each kernel in file order with
 * what the piece alone knew of its operator when it arrived, and every launch call. The join
 * resolves each kept kernel against exactly what one sequential pass knew at its arrival (the
 * first piece's state, which has read exactly the bytes before the cut, plus the second's
 * operators and launches before the kernel), then attributes it or puts it in the pending
 * list in file order, bounds counted as one pass counts them. docs/ANALYSIS.md "ops". */
#include <stdlib.h>
#include <string.h>

#include "analyses/sections/ops_state.h"

/* The second piece keeps every timed kernel with what the piece alone knows of its operator;
 * the join attributes them in file order (tail_resolve). Past MAX_TAIL it keeps no more and
 * the join is refused (tail_full). */
bool ops_tail_add(ops_file *f, const pending_kernel *k) {
    if (f->tail.n >= MAX_TAIL) {
        f->tail_full = true;
        return true;
    }
    tail_kernel t;
    memset(&t, 0, sizeof t);   /* zero padding codes in one byte (piece_log.h) */
    t.ext = k->ext, t.corr = k->corr, t.start = k->start, t.end = k->end;
    t.op = t.launch = t.launch_op = ID_MAP_NONE, t.nops = (uint32_t)f->nops;
    t.has_ext = k->has_ext, t.has_corr = k->has_corr, t.any_op = f->any_op;
    if (k->has_ext) t.op = id_map_get(&f->op_by_ext, k->ext);
    if (k->has_corr && (t.launch = id_map_get(&f->launch_by_corr, k->corr)) != ID_MAP_NONE)
        t.launch_op = id_map_get(&f->op_by_ext, f->launches[t.launch].ext);
    return plog_put(&f->tail, &t);
}

/* kept[i] for the n ids of a piece's list (first[i]: where the id was first seen in the
 * piece; in_first(i): the id is in the first piece's map): whether one pass kept entry i.
 * An id in the first piece's map stays; a new one gets in while the map has room (`room`
 * entries); an id refused once is refused ever after. Returns how many were refused. */
static size_t keep_ids(bool *kept, const uint32_t *first, size_t n, size_t room, const id_map *m,
                       uint64_t (*id_of)(const ops_file *, size_t), const ops_file *f) {
    size_t refused = 0;
    for (size_t i = 0; i < n; i++) {
        if (first[i] != i) kept[i] = kept[first[i]];
        else if (id_map_get(m, id_of(f, i)) != ID_MAP_NONE) kept[i] = true;
        else if ((kept[i] = room > 0)) room--;
        refused += !kept[i];
    }
    return refused;
}
static uint64_t launch_corr(const ops_file *f, size_t i) { return f->launches[i].corr; }
static uint64_t op_ext(const ops_file *f, size_t i) { return f->ops[i].ext; }

/* The second piece's operators before a kernel, swept in file order (tail_resolve): by_ext
 * holds each External id's latest piece operator among the first `next` ones. Kernels come in
 * file order, so their operator counts (tail_kernel.nops) never decrease and the sweep passes
 * each operator once: "the piece's latest operator with e before kernel t" is one lookup, not
 * a backwards scan per kernel (quadratic with many such kernels). */
typedef struct op_sweep {
    id_map by_ext;
    size_t next;
    bool oom;
} op_sweep;

/* The piece's latest operator with External id e among its first `upto` (ID_MAP_NONE). */
static uint32_t sweep_latest(op_sweep *s, const ops_file *f, size_t upto, uint64_t e) {
    for (; s->next < upto; s->next++)
        if (id_map_put(&s->by_ext, f->ops[s->next].ext, (uint32_t)s->next) >= ID_MAP_OOM) s->oom = true;
    return id_map_get(&s->by_ext, e);
}

/* The operator one sequential pass finds for the second piece's kernel t when it arrives:
 * the first piece's (acc, the second not folded in yet) plus the second piece's operators
 * and launches before t that one pass kept (okept, lkept). acc's op index, OPS_PIECE2 | the
 * piece's op index, or ID_MAP_NONE. An id one pass refused is in neither map then. The
 * kernels are resolved in file order (sw sweeps the piece's operators along with them). */
static uint32_t tail_resolve(const ops_file *acc, const ops_file *f, const tail_kernel *t, const bool *okept,
                             const bool *lkept, op_sweep *sw) {
    if (t->op != ID_MAP_NONE && okept[t->op]) return OPS_PIECE2 | t->op;  /* by External id, the latest */
    if (t->has_ext && t->op == ID_MAP_NONE) {               /* none in the piece before t */
        uint32_t o = id_map_get(&acc->op_by_ext, t->ext);
        if (o != ID_MAP_NONE) return o;
    }
    if (!t->has_corr) return ID_MAP_NONE;
    if (t->launch != ID_MAP_NONE) {                         /* the piece's launch is the latest */
        if (!lkept[t->launch]) return ID_MAP_NONE;
        if (t->launch_op != ID_MAP_NONE) return okept[t->launch_op] ? OPS_PIECE2 | t->launch_op : ID_MAP_NONE;
        return id_map_get(&acc->op_by_ext, f->launches[t->launch].ext);
    }
    uint32_t l = id_map_get(&acc->launch_by_corr, t->corr);
    if (l == ID_MAP_NONE) return ID_MAP_NONE;
    uint64_t e = acc->launches[l].ext;
    uint32_t o = id_map_get(&f->op_by_ext, e);              /* the piece's latest with e ... */
    if (o != ID_MAP_NONE && o >= t->nops)                   /* ... came after t: an earlier one? */
        o = sweep_latest(sw, f, t->nops, e);
    if (o != ID_MAP_NONE) return okept[o] ? OPS_PIECE2 | o : ID_MAP_NONE;
    return id_map_get(&acc->op_by_ext, e);
}

/* The second piece of a split read joins the first (acc, which has read exactly the bytes
 * before it): which of its operators and launches one pass would have kept under the
 * bounds, then its kernels resolved against what one pass knew when each arrived, and
 * attributed or put in the pending list in file order, the pending bound counted as one pass
 * counts it: one sequential pass's result (ops_split_exact refuses the join when this cannot
 * hold). The piece itself becomes acc's extension (acc->p2): its kept operators and launches
 * are not copied into acc's arrays and maps but looked up in its own (ops_op_by_ext), its
 * names re-interned in place. A copy moved ~2 MB into grown arrays and re-hashed acc's
 * operator map, ~14 ms of page faults and copies on the 208 MB run while the other core idled. */
bool ops_merge_piece(ops_file *acc, ops_file *f) {
    bool any_op1 = acc->any_op;
    f->okept = malloc(f->nops + 1), f->lkept = malloc(f->nlaunches + 1);
    uint32_t *map = f->okept && f->lkept ? ops_remap_pool(&acc->pool, &f->pool) : NULL;
    if (!map) return false;
    size_t nm = acc->op_by_ext.n, nl = acc->launch_by_corr.n;
    acc->ops_dropped += keep_ids(f->okept, f->first_op, f->nops, nm < MAX_OPS_PER_FILE ? MAX_OPS_PER_FILE - nm : 0,
                                 &acc->op_by_ext, op_ext, f);
    keep_ids(f->lkept, f->first_launch, f->nlaunches, nl < MAX_LAUNCHES_PER_FILE ? MAX_LAUNCHES_PER_FILE - nl : 0,
             &acc->launch_by_corr, launch_corr, f);
    acc->p2 = f;                /* its lookups need okept and lkept: from here on */
    bool ok = true;
    for (size_t i = 0; ok && i < f->nops; i++) {   /* the piece's names as acc's pool ids */
        op_inst *o = &f->ops[i];
        o->name = ops_mapped(map, o->name), o->args = ops_mapped(map, o->args);
        if (o->name == ID_MAP_NONE && f->okept[i]) ok = false;   /* out of memory (the pools fit: split_exact) */
    }
    for (size_t i = 0; ok && i < f->frames.n; i++) {
        py_frame fr = f->frames.v[i];
        fr.name = ops_mapped(map, fr.name);
        if (fr.name != ID_MAP_NONE) ok = ops_frames_add(&acc->frames, fr);
    }
    acc->frames.dropped += f->frames.dropped;
    if (ok) ok = ops_replay_merge(acc, f);   /* the graph launches, for the Python frame owners */
    /* The kernels in file order, as one pass would, in one sweep over the kept log: each
     * resolved against what one pass knew at its arrival (tail_resolve reads acc's and the
     * piece's own maps, never acc->p2 nor what attributing earlier kernels changes), then
     * attributed (OPS_PIECE2 | i: ops_inst finds it in acc->p2) or put in the pending list. */
    op_sweep sw = {.by_ext = {.max_entries = f->nops + 1}};
    tail_kernel tk;
    for (const tail_kernel *t = &tk; ok && plog_take(&f->tail, &tk);) {
        uint32_t op = tail_resolve(acc, f, t, f->okept, f->lkept, &sw);
        if (sw.oom) ok = false;
        else if (op != ID_MAP_NONE) ok = ops_attribute(acc, op, t->start, t->end);
        else {
            bool any_op = any_op1 || t->any_op;
            if (acc->pending.n >= (any_op ? MAX_PENDING : MAX_PENDING_NO_OPS)) {
                acc->pending_dropped++;
                if (!any_op) acc->pending_dropped_no_ops++;
                continue;
            }
            pending_kernel k = {t->ext, t->corr, t->start, t->end, t->has_ext, t->has_corr};
            ok = ops_pending_add(acc, &k);
        }
    }
    id_map_free(&sw.by_ext);
    acc->kernels += f->kernels, acc->no_id += f->no_id;
    acc->ops_dropped += f->ops_dropped;
    acc->any_op |= f->any_op;
    free(map);
    return ok;
}

/* Whether the second piece (second) folded into the first gives exactly one sequential
 * pass's result: the second piece kept every kernel, operator and launch (within its budget:
 * MAX_TAIL, MAX_PIECE_OPS, MAX_PIECE_LAUNCHES) and
 * neither piece lost a name to the pool's bound (the two pools together stay under it); the
 * operator and launch bounds are counted at the join as one pass counts them. */
bool ops_split_exact(const void *first, const void *second) {
    const ops_file *a = first, *b = second;
    return !b->tail_full && !b->ops_dropped && a->pool.bytes + b->pool.bytes <= MAX_NAME_BYTES;
}
