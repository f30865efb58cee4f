/* ops_state: the ops section's per-file state (analyses/sections/ops.c), shared with the split-read
 * join of its two pieces (analyses/sections/ops_split.c), the graph replays' owners (ops_replay.c)
 * and the output (ops_render.c). Bounds: docs/ANALYSIS.md "ops". */
#ifndef GOBLIN_OPS_STATE_H
#define GOBLIN_OPS_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/i128.h"
#include "analyses/structures/id_map.h"
#include "analyses/structures/str_pool.h"
#include "analyses/structures/ns_intervals.h"
#include "analyses/sections/ops_frames.h"
#include "analyses/structures/piece_log.h"
#include "analyses/section.h"

#define MAX_OPS_PER_FILE ((size_t)1 << 17)      /* operator instances with an External id */
#define MAX_LAUNCHES_PER_FILE ((size_t)1 << 16) /* launch calls (correlation -> External id) */
#define MAX_PENDING ((size_t)1 << 16)           /* kernels waiting for their operator */
#define MAX_PENDING_NO_OPS ((size_t)1 << 16)    /* ... while the file has shown no operator yet */
#define MAX_NAME_BYTES ((size_t)24 << 20)       /* operator names and shapes, per pool (with
                                                 * STR_POOL_ENTRY_BYTES a string: ~150,000 of 100 B) */
#define MAX_SPANS_TOTAL ((size_t)1 << 21)       /* kernel-time spans over all operator names */
#define TIME_RETIRE_ABOVE ((size_t)1 << 13)  /* kernel-time spans kept per name before the older
                                                 * half is folded into its total (ns_intervals) */
/* The second piece of a split read keeps at most these (past one, it stops keeping and the
 * join is refused: the file is read again in one piece). docs/ANALYSIS.md "pieces". */
#define MAX_TAIL ((size_t)1 << 17)              /* second-piece kernels kept for the join (56 B, ~17 in the log) */
#define MAX_PIECE_OPS ((size_t)1 << 16)         /* its operator calls (every call kept: ids may repeat) */
#define MAX_PIECE_LAUNCHES ((size_t)1 << 17)    /* its launch calls (likewise) */
#define MAX_REPLAYS_PER_FILE ((size_t)1 << 16) /* launch calls without an External id (graph launches) */
#define MAX_SHAPES 4                            /* distinct input shapes kept per name */
#define TOP_LISTED 50
#define TOP_FRAMES 10

typedef struct op_inst {
    uint64_t ext;            /* its External id */
    uint32_t name, args;     /* str_pool ids (args ID_MAP_NONE when absent) */
    int64_t start, pid, tid;
    int64_t ktime;           /* Σ of the durations of the kernels attributed to it so far (saturating) */
    bool has_thread, counted;
} op_inst;

typedef struct launch {
    uint64_t corr, ext;
} launch;

/* A launch call without an External id (a CUDA/HIP graph launch): where it was made, for the
 * Python frame that owns its kernels when they have no operator (ops_replay.c). */
typedef struct replay_launch {
    int64_t start, pid, tid;
    bool counted;            /* its kernels have counted it in their frame's calls */
} replay_launch;

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
    /* per call (operator instance): Σ of its kernel time and Σ of its square, kept exact as the
     * kernels arrive (a call's square grows by 2·k·d + d² when a kernel of d ns joins its k ns),
     * so the sums join in any order; an operator row's call_mean_ns / call_stddev_ns */
    i128 call_sum, call_sq;
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
    piece_log pending;       /* pending_kernel entries (read once, by resolve_file; delta-coded:
                              * ~15 B a kernel where the array took 40) */
    name_agg *agg;           /* by name id of pool */
    size_t capagg;
    py_frames frames;
    replay_launch *replays;  /* launch calls without an External id, by correlation id */
    size_t nreplays, capreplays;
    id_map replay_by_corr;
    name_agg *fagg;          /* kernels owned by a Python frame (no operator), by frame name id of pool */
    size_t capfagg;
    uint64_t kernels, no_id, pending_dropped, ops_dropped, time_dropped;
    uint64_t pending_dropped_no_ops;  /* of pending_dropped: before the file's first operator */
    size_t spans;
    bool any_op, oom;
    bool second;             /* the second piece of a split read: kernels wait in tail */
    bool tail_full;          /* second piece past its budget (MAX_TAIL kernels, MAX_PIECE_OPS
                              * operator calls, MAX_PIECE_LAUNCHES launch calls, MAX_REPLAYS_PER_FILE
                              * graph launches): the pieces do not join (ops_split_exact) */
    piece_log tail;          /* tail_kernel entries */
    /* second piece: launches[i]'s correlation id (ops[i]'s External id) first seen at
     * launch (operator) first_launch[i] (first_op[i]): the join decides per id which ones
     * one pass would have kept under its bounds */
    uint32_t *first_launch, *first_op;
    size_t cap_first_launch, cap_first_op;
    /* A first piece after the join (ops_merge_piece): the second piece, kept whole and read
     * only, extends its operators and launches (operator OPS_PIECE2 | i is p2->ops[i]) and
     * its maps are looked up before this file's (ops_op_by_ext): nothing is copied or
     * re-hashed at the join. In the second piece: which operators and launches one pass kept. */
    struct ops_file *p2;
    bool *okept, *lkept;
} ops_file;

#define OPS_PIECE2 0x80000000u   /* operator index: the joined second piece's operator i is OPS_PIECE2 | i */

/* Operator instance op of f (OPS_PIECE2 | i: the joined second piece's i). */
static inline op_inst *ops_inst(ops_file *f, uint32_t op) {
    return op & OPS_PIECE2 ? &f->p2->ops[op & ~OPS_PIECE2] : &f->ops[op];
}

/* f's operator with External id e as one pass over the whole file holds it (the latest kept
 * one): a joined second piece's operator with e, when it has one, is the latest (and when
 * one pass refused it, e is in neither map: ID_MAP_NONE); else f's own. ID_MAP_NONE: none. */
static inline uint32_t ops_op_by_ext(const ops_file *f, uint64_t e) {
    if (f->p2) {
        uint32_t o = id_map_get(&f->p2->op_by_ext, e);
        if (o != ID_MAP_NONE) return f->p2->okept[o] ? OPS_PIECE2 | o : ID_MAP_NONE;
    }
    return id_map_get(&f->op_by_ext, e);
}

/* f's operator reached through the launch call with correlation id corr (the latest kept
 * launch, the joined second piece's first, as ops_op_by_ext), ID_MAP_NONE. */
static inline uint32_t ops_op_by_corr(const ops_file *f, uint64_t corr) {
    if (f->p2) {
        uint32_t l = id_map_get(&f->p2->launch_by_corr, corr);
        if (l != ID_MAP_NONE) return f->p2->lkept[l] ? ops_op_by_ext(f, f->p2->launches[l].ext) : ID_MAP_NONE;
    }
    uint32_t l = id_map_get(&f->launch_by_corr, corr);
    return l == ID_MAP_NONE ? ID_MAP_NONE : ops_op_by_ext(f, f->launches[l].ext);
}

typedef struct ops_run {
    diag_list *diag;
    const analysis_config *cfg;  /* list_rows, read at render */
    ops_file *acc;           /* the file being joined */
    str_pool pool;
    name_agg *agg;
    size_t capagg;
    name_agg *fagg;          /* kernels owned by a Python frame (graph replays), by frame name id */
    size_t capfagg;
    uint64_t kernels, unattributed, pending_dropped, ops_dropped, time_dropped, frames_dropped;
    uint64_t pending_dropped_no_ops;  /* of pending_dropped: hit MAX_PENDING_NO_OPS, not MAX_PENDING */
    /* why the unattributed kernels are (they sum to unattributed with pending_dropped): no id or
     * no time; ids naming no operator kept (also those of operators past the bounds); an
     * operator name the run's name pool could not take */
    uint64_t no_id, no_operator, name_bound;
    size_t spans;
    bool any_op, oom;
    size_t *order;           /* finish: name ids (OPS_FRAME_ROW | id: a Python frame's) by kernel time, descending */
    size_t norder;
} ops_run;

#define OPS_FRAME_ROW ((size_t)1 << (sizeof(size_t) * 8 - 1))   /* ops_run.order: a frame's row */

/* The aggregate of row code c of r->order (OPS_FRAME_ROW | id: a Python frame's), and its name. */
static inline const name_agg *ops_row_agg(const ops_run *r, size_t c) {
    return c & OPS_FRAME_ROW ? &r->fagg[c & ~OPS_FRAME_ROW] : &r->agg[c];
}
static inline const char *ops_row_name(const ops_run *r, size_t c) { return r->pool.s[c & ~OPS_FRAME_ROW]; }

/* ops_render.c: section_analysis.render and .number of ops, from what ops_finish left (r->order). */
void ops_render(const void *run, jw_out *w);
/* "kernels", "attributed_kernels", "attributed_by.{operator,python_frame}", "unattributed_kernels",
 * "operators", "top.kernel_time_ns"; false when unknown. */
bool ops_number(const void *run, const char *path, double *out);

/* ops_replay.c: the Python frame as the owner of a kernel without operator (a graph replay).
 * Keeps launch call r (a REC_API_CALL with a correlation id and no External id) of f. */
bool ops_replay_add(ops_file *f, const record *r);
/* Puts the second piece's kept launches into acc, in file order, as one pass would. */
bool ops_replay_merge(ops_file *acc, const ops_file *f);
/* Kernel k has no operator: when its launch call was kept and lies in a user Python frame,
 * attributes it to the innermost one (f->fagg) and sets *owned. false on OOM. */
bool ops_replay_attribute(ops_file *f, const pending_kernel *k, bool *owned);
/* Makes agg[id] exist (zeroed) in an array of capacity *cap (ops.c). false on OOM. */
bool ops_agg_reserve(name_agg **agg, size_t *cap, size_t id);

/* Grows an array of n elements of size sz to hold one more. false on OOM. */
bool ops_grow_one(void **v, size_t *cap, size_t n, size_t sz);
/* Attributes the kernel [start, end) to operator instance op of file f (ops_inst). false on OOM. */
bool ops_attribute(ops_file *f, uint32_t op, int64_t start, int64_t end);
/* Re-interns src's strings into dst's pool: map[i] is src id i's id in dst (malloc'd). */
uint32_t *ops_remap_pool(str_pool *dst, const str_pool *src);
static inline uint32_t ops_mapped(const uint32_t *map, uint32_t id) { return id == ID_MAP_NONE ? ID_MAP_NONE : map[id]; }

/* Puts kernel k at the end of f's pending list (f->pending). false on OOM. */
bool ops_pending_add(ops_file *f, const pending_kernel *k);
/* ops_split.c: the second piece of a split read keeps kernel k for the join. false on OOM. */
bool ops_tail_add(ops_file *f, const pending_kernel *k);
/* Folds the second piece f into the first (acc) as one pass would have read both; acc then
 * owns f (acc->p2), unless out of memory before that (acc->p2 != f: the caller frees f).
 * false on OOM. */
bool ops_merge_piece(ops_file *acc, ops_file *f);
/* section_analysis.split_exact of ops. */
bool ops_split_exact(const void *first, const void *second);

#endif
