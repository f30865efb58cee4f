/* ops_render: the ops section's output from the state its finish leaves (analyses/sections/ops.c:
 * r->order, the rows by kernel time): the JSON section (section_analysis.render) and the numbers
 * other sections and the headline read (number). Reads the state only. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyses/sections/ops_state.h"
#include "analyses/section.h"

/* An operator row's call_mean_ns and call_stddev_ns: the mean and sample standard deviation of
 * its calls' kernel time (Σ of the durations of each call's kernels), from the exact sums; null
 * for a Python frame's row and (stddev) for one call. */
static void call_stats(jw_out *w, const name_agg *a, bool frame) {
    bool known = !frame && a->calls > 0;
    long double n = (long double)a->calls, sum = (long double)a->call_sum;
    jw_key(w, "call_mean_ns");
    if (known) jw_number(w, (double)(sum / n));
    else jw_null(w);
    jw_key(w, "call_stddev_ns");
    i128 nsq, s2, diff;                                 /* exact n·Σx² − (Σx)² when it fits */
    bool exact = !__builtin_mul_overflow((i128)a->calls, a->call_sq, &nsq) &&
                 !__builtin_mul_overflow(a->call_sum, a->call_sum, &s2) && !__builtin_sub_overflow(nsq, s2, &diff);
    long double var = exact ? (long double)diff / (n * (n - 1)) : ((long double)a->call_sq - sum * sum / n) / (n - 1);
    if (!known || a->calls < 2) jw_null(w);
    else jw_number(w, (double)sqrtl(var > 0 ? var : 0));
}

/* Kernels attributed to an operator (frames false) or to a Python frame (frames true). */
static uint64_t attributed_to(const ops_run *r, bool frames) {
    uint64_t n = 0;
    for (size_t i = 0; i < r->norder; i++)
        if (((r->order[i] & OPS_FRAME_ROW) != 0) == frames) n += ops_row_agg(r, r->order[i])->kernels;
    return n;
}

/* Rows of operators (frames false) or of Python frames owning graph replays (true). */
static size_t rows_of_kind(const ops_run *r, bool frames) {
    size_t n = 0;
    for (size_t i = 0; i < r->norder; i++) n += ((r->order[i] & OPS_FRAME_ROW) != 0) == frames;
    return n;
}

static uint64_t attributed(const ops_run *r) { return attributed_to(r, false) + attributed_to(r, true); }

void ops_render(const void *run, jw_out *w) {
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
    jw_key(w, "attributed_by");   /* the two kinds of owner: they sum to attributed_kernels */
    jw_object_open(w);
    jw_key(w, "operator");
    jw_int(w, (int64_t)attributed_to(r, false));
    jw_key(w, "python_frame");
    jw_int(w, (int64_t)attributed_to(r, true));
    jw_object_close(w);
    jw_key(w, "unattributed_kernels");
    jw_int(w, (int64_t)r->unattributed);
    jw_key(w, "unattributed");   /* why: the four sum to unattributed_kernels */
    jw_object_open(w);
    jw_key(w, "no_id");
    jw_int(w, (int64_t)r->no_id);
    jw_key(w, "no_operator");
    jw_int(w, (int64_t)r->no_operator);
    jw_key(w, "pending_bound");
    jw_int(w, (int64_t)r->pending_dropped);
    jw_key(w, "name_bound");
    jw_int(w, (int64_t)r->name_bound);
    jw_object_close(w);
    jw_key(w, "operators");
    jw_int(w, (int64_t)rows_of_kind(r, false));
    jw_key(w, "python_frames");
    jw_int(w, (int64_t)rows_of_kind(r, true));
    jw_key(w, "by_op");
    jw_array_open(w);
    size_t listed = section_listed(r->cfg, r->norder < TOP_LISTED ? r->norder : TOP_LISTED);
    for (size_t i = 0; i < listed; i++) {
        const name_agg *a = ops_row_agg(r, r->order[i]);
        jw_object_open(w);
        jw_key(w, "name");
        jw_string(w, ops_row_name(r, r->order[i]));
        jw_key(w, "kind");
        jw_string(w, r->order[i] & OPS_FRAME_ROW ? "python_frame" : "operator");
        jw_key(w, "calls");
        jw_int(w, (int64_t)a->calls);
        jw_key(w, "kernels");
        jw_int(w, (int64_t)a->kernels);
        jw_key(w, "kernels_per_call");
        jw_number(w, a->calls ? (double)a->kernels / (double)a->calls : 0);
        jw_key(w, "kernel_time_ns");
        jw_int(w, nsi_total(&a->time));
        call_stats(w, a, r->order[i] & OPS_FRAME_ROW);
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
    section_render_cut(w, "listed", "unlisted", "operators", listed, r->norder);   /* (frames' rows too) */
    jw_object_close(w);
}

/* "kernels", "attributed_kernels", "attributed_by.{operator,python_frame}", "unattributed_kernels",
 * "operators", "top.kernel_time_ns". */
bool ops_number(const void *run, const char *path, double *out) {
    const ops_run *r = run;
    if (!r->any_op || r->oom) return false;
    if (!strcmp(path, "kernels")) return *out = (double)r->kernels, true;
    if (!strcmp(path, "attributed_kernels")) return *out = (double)attributed(r), true;
    if (!strcmp(path, "unattributed_kernels")) return *out = (double)r->unattributed, true;
    if (!strcmp(path, "operators")) return *out = (double)rows_of_kind(r, false), true;
    if (!strcmp(path, "attributed_by.operator")) return *out = (double)attributed_to(r, false), true;
    if (!strcmp(path, "attributed_by.python_frame")) return *out = (double)attributed_to(r, true), true;
    if (!strcmp(path, "top.kernel_time_ns") && r->norder) return *out = (double)nsi_total(&ops_row_agg(r, r->order[0])->time), true;
    return false;
}
