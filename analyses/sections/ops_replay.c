/* ops_replay: the innermost user Python frame as the owner of a kernel that has no CPU operator
 * (section "ops"). A CUDA/HIP graph replay runs its kernels under one launch call that carries no
 * External id, so no operator names them; as the wafer-core trace loader does, such a kernel is
 * attributed to the innermost user Python frame (python_function, ops_frames.h) enclosing its
 * launch call on the call's thread, and counted apart from the operators' (by_op rows of kind
 * "python_frame"). Bounded: MAX_REPLAYS_PER_FILE launch calls per file (past it their kernels stay
 * unattributed, no_operator). docs/ANALYSIS.md "ops". */
#include <stdlib.h>

#include "analyses/sections/ops_state.h"

bool ops_replay_add(ops_file *f, const record *r) {
    if (!(r->has & RF_START) || !(r->has & RF_PID_TID)) return true;
    const i128 lim = (i128)INT64_MAX / 2;
    if (r->start_ns < -lim || r->start_ns > lim) return true;
    if (!f->replay_by_corr.max_entries) f->replay_by_corr.max_entries = MAX_REPLAYS_PER_FILE;
    if (f->second && f->nreplays >= MAX_REPLAYS_PER_FILE) {   /* calls, not only ids: read in one piece */
        f->tail_full = true;
        return true;
    }
    if (!ops_grow_one((void **)&f->replays, &f->capreplays, f->nreplays, sizeof *f->replays)) return false;
    replay_launch call = {(int64_t)r->start_ns, r->pid, r->tid, false};
    uint64_t unused = 0;
    if (!f->second) return id_map_keep_latest(&f->replay_by_corr, f->replays, &f->nreplays, r->correlation_id, &call,
                                              sizeof call, &unused);
    f->replays[f->nreplays] = call;
    uint32_t got = id_map_put(&f->replay_by_corr, r->correlation_id, (uint32_t)f->nreplays);
    if (got == ID_MAP_OOM) return false;
    if (got == ID_MAP_FULL) f->tail_full = true;   /* a second piece past it: read in one piece */
    else f->nreplays++;
    return true;
}

bool ops_replay_merge(ops_file *acc, const ops_file *f) {
    if (!acc->replay_by_corr.max_entries) acc->replay_by_corr.max_entries = MAX_REPLAYS_PER_FILE;
    /* in file order (index order: a replaced id's slot points to its latest call) */
    for (size_t i = 0; i < f->nreplays; i++) {
        if (!ops_grow_one((void **)&acc->replays, &acc->capreplays, acc->nreplays + i, sizeof *acc->replays)) return false;
        acc->replays[acc->nreplays + i] = f->replays[i];
    }
    for (size_t s = 0; s < f->replay_by_corr.cap; s++) {
        uint64_t id;
        uint32_t val;
        if (!id_map_at(&f->replay_by_corr, s, &id, &val)) continue;
        /* appended at acc->nreplays + val; the latest call per id wins, as in one pass */
        uint32_t got = id_map_put(&acc->replay_by_corr, id, (uint32_t)(acc->nreplays + val));
        if (got == ID_MAP_OOM) return false;
    }
    acc->nreplays += f->nreplays;
    return true;
}

bool ops_replay_attribute(ops_file *f, const pending_kernel *k, bool *owned) {
    *owned = false;
    if (!k->has_corr || !f->nreplays || !f->frames.n) return true;
    uint32_t l = id_map_get(&f->replay_by_corr, k->corr);
    if (l == ID_MAP_NONE) return true;
    replay_launch *rl = &f->replays[l];
    uint32_t fr = ops_frames_innermost(&f->frames, rl->pid, rl->tid, rl->start);
    if (fr == UINT32_MAX) return true;
    if (!ops_agg_reserve(&f->fagg, &f->capfagg, fr)) return false;
    name_agg *a = &f->fagg[fr];
    a->kernels++;
    a->frame = fr;
    if (!rl->counted) rl->counted = true, a->calls++;   /* calls: the graph launches */
    *owned = true;
    if (f->spans >= MAX_SPANS_TOTAL) {
        f->time_dropped++;
        return true;
    }
    size_t before = a->time.n;
    if (!nsi_add(&a->time, k->start, k->end)) return false;
    f->spans += a->time.n - before;
    return true;
}
