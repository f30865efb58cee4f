/* steps: the TensorBoard profiler plugin's step-time breakdown (section "steps").
 *
 * Every ProfilerStep#N range (REC_ANNOTATION, or REC_CPU_OP in older traces that file it
 * as an operator) is split by priority kernel > memcpy > memset > communication > runtime
 * > dataloader > CPU exec > other: each part counts only the time inside the step's wall
 * interval covered by its records and by no higher part, so the eight parts sum exactly
 * to the step's wall time. The run as a whole (first to last timed record) is split the
 * same way, so a kernel outside every step counts in `run` and in no step.
 *
 * Bounded memory: records arrive in file order, not time order, so each part keeps a
 * merged interval set (one span per busy stretch, ns_intervals) and the steps' ranges
 * (few); the split is done at finish. Multi-rank runs keep one set per rank (the
 * source's rank, or its REC_METADATA "rank"): the top-level answer is the lowest rank's,
 * `ranks[]` has every rank's summary. docs/ANALYSIS.md "steps" has the definitions.
 *
 * This file fills the state (open, consume, fold, finish); steps_render.c writes the section,
 * its report.md part and its numbers; steps_retire.c bounds its memory; steps_ranks.c holds
 * the numbers over every rank. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/kernel_class_cache.h"
#include "analyses/structures/ns_intervals.h"
#include "analyses/section.h"
#include "analyses/section_md.h"
#include "analyses/sections/steps_render.h"
#include "analyses/sections/steps_retire.h"

#define MAX_SPANS_PER_PART ((size_t)1 << 20)  /* 16 MiB per part per rank at most */
#define MAX_STEPS 65536
#define MAX_STEP_NAME_BYTES ((size_t)4 << 20)  /* their names per rank (65,536 of 16 KiB were 1 GiB) */

typedef struct steps_src {
    steps_run *run;
    int source_rank, metadata_rank;   /* -1 when unknown */
    size_t index;
    unsigned piece;
    rank_data d;
    kernel_class_cache classes;
} steps_src;

static void rank_data_init(rank_data *d, int rank) {
    memset(d, 0, sizeof *d);
    d->rank = rank;
    for (int p = 0; p < P_TIMED; p++) d->part[p].max_spans = MAX_SPANS_PER_PART;
}

static void rank_data_free(rank_data *d) {
    for (int p = 0; p < P_TIMED; p++) nsi_free(&d->part[p]);
    nsi_free(&d->retired);
    for (size_t i = 0; i < d->nsteps; i++) free(d->steps[i].name);
    free(d->steps);
    free(d->step_parts);
}

static void *steps_open(const analysis_config *cfg, diag_list *diag) {
    steps_run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->diag = diag;
    r->cfg = cfg;
    r->last_index = (size_t)-1;
    r->last_metadata_rank = -1;
    return r;
}

static void *steps_open_source(void *run, const source_ref *src) {
    steps_src *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->run = run;
    s->source_rank = src->rank;
    s->metadata_rank = -1;
    s->index = src->index;
    s->piece = src->piece;
    rank_data_init(&s->d, src->rank);
    s->d.origin = (uint32_t)(src->index * 256u + src->piece);
    return s;
}

/* Whether s (n bytes) starts with p. The first byte is compared inline: every host record
 * is asked for five prefixes, and most differ at once (no memcmp call). */
static inline bool has_prefix(const char *s, size_t n, const char *p) {
    size_t k = strlen(p);
    return s && n >= k && s[0] == p[0] && !memcmp(s, p, k);
}

/* The TB plugin's DataLoader rule: enumerate(DataLoader)#...  or enumerate(DataPipe)#... */
static bool is_dataloader(const record *r) {
    return has_prefix(r->name, r->name_len, "enumerate(DataLoader)#") ||
           has_prefix(r->name, r->name_len, "enumerate(DataPipe)#");
}

/* Host-side collective operators (torch's record_function names for NCCL/Gloo calls). */
static bool is_comm_op(const record *r) {
    return has_prefix(r->name, r->name_len, "nccl:") || has_prefix(r->name, r->name_len, "gloo:") ||
           has_prefix(r->name, r->name_len, "c10d::");
}

/* A record's [start, end) in int64 ns; false when it has no time or does not fit. */
static bool record_span(const record *r, int64_t *a, int64_t *b, bool *out_of_range) {
    if (!(r->has & RF_START)) return false;
    i128 end;
    if (r->has & RF_END) end = r->end_ns;
    else if (r->has & RF_DURATION) end = i128_add(r->start_ns, r->duration_ns);
    else return false;
    const i128 lim = (i128)INT64_MAX / 2;
    if (r->start_ns < -lim || r->start_ns > lim || end < -lim || end > lim) {
        *out_of_range = true;
        return false;
    }
    *a = (int64_t)r->start_ns;
    *b = (int64_t)end < *a ? *a : (int64_t)end;
    return true;
}

/* Adds a step range (its running parts and origin from `from`, or zero and d's own). */
static bool add_step_from(rank_data *d, const char *name, size_t len, int64_t a, int64_t b, const step_mark *from) {
    if (d->nsteps >= MAX_STEPS || len >= MAX_STEP_NAME_BYTES - d->name_bytes) {
        d->steps_dropped++;
        return true;
    }
    if (d->nsteps == d->cap) {
        size_t c = d->cap ? d->cap * 2 : 16;
        step_mark *v = realloc(d->steps, c * sizeof *v);
        if (!v) return false;
        d->steps = v;
        d->cap = c;
    }
    char *n = malloc(len + 1);
    if (!n) return false;
    memcpy(n, name, len);
    n[len] = 0;
    d->name_bytes += len + 1;
    step_mark m = {.name = n, .start = a, .end = b, .origin = d->origin};
    if (from) {
        memcpy(m.parts, from->parts, sizeof m.parts);
        m.origin = from->origin;
    }
    d->steps[d->nsteps++] = m;
    return true;
}

static bool add_step(rank_data *d, const char *name, size_t len, int64_t a, int64_t b) {
    return add_step_from(d, name, len, a, b, NULL);
}

static bool steps_consume(void *src, const record *r) {
    steps_src *s = src;
    rank_data *d = &s->d;
    if (r->type == REC_METADATA) {
        int rank;
        if (record_rank(r, &rank)) s->metadata_rank = rank;
        return true;
    }
    int64_t a, b;
    bool oor = false;
    if (!record_span(r, &a, &b, &oor)) {
        if (oor) d->out_of_range++;
        return true;
    }
    int part;
    switch (r->type) {
    case REC_KERNEL_DISPATCH: {
        kernel_class c = kcc_class_of(&s->classes, r->name, r->name_len);
        if (c == KC_BARRIER) return true;   /* a queue waiting on a barrier packet: no GPU work */
        part = c == KC_COMMUNICATION ? P_COMM : P_KERNEL;
        break;
    }
    case REC_MEMORY_COPY: part = P_MEMCPY; break;
    case REC_MEMSET: part = P_MEMSET; break;
    case REC_API_CALL: part = P_RUNTIME; break;
    case REC_ANNOTATION:
    case REC_CPU_OP:
        /* GPU-lane copies of user annotations describe device time already counted. */
        if (has_prefix(r->category, r->category_len, "gpu_")) return true;
        if (has_prefix(r->name, r->name_len, "ProfilerStep#")) {
            if (!d->any || a < d->lo) d->lo = a;
            if (!d->any || b > d->hi) d->hi = b;
            d->any = true;
            steps_note(d, a, b);
            return add_step(d, r->name, r->name_len, a, b);
        }
        if (r->type == REC_ANNOTATION && steps_is_range_step(r->name, r->name_len)) {
            d->range_count++;
            d->range_sum_ns += b - a;
        }
        part = is_dataloader(r) ? P_DATALOADER : is_comm_op(r) ? P_COMM : P_CPU;
        break;
    default: return true;
    }
    if (!d->any || a < d->lo) d->lo = a;
    if (!d->any || b > d->hi) d->hi = b;
    d->any = true;
    steps_note(d, a, b);
    return nsi_add(&d->part[part], a, b) && steps_maybe_retire(d);
}

/* Folds src's data into the run's data of the same rank. */
static bool fold_into(rank_data *dst, rank_data *src) {
    if (!steps_fold_retired(dst, src)) return false;
    for (int p = 0; p < P_TIMED; p++)
        if (!nsi_move(&dst->part[p], &src->part[p])) return false;
    for (size_t i = 0; i < src->nsteps; i++) {
        if (!add_step_from(dst, src->steps[i].name, strlen(src->steps[i].name), src->steps[i].start,
                           src->steps[i].end, &src->steps[i]))
            return false;
    }
    if (src->any) {
        if (!dst->any || src->lo < dst->lo) dst->lo = src->lo;
        if (!dst->any || src->hi > dst->hi) dst->hi = src->hi;
        dst->any = true;
    }
    dst->out_of_range += src->out_of_range;
    dst->steps_dropped += src->steps_dropped;
    dst->range_count += src->range_count;
    dst->range_sum_ns += src->range_sum_ns;
    return true;
}

static bool steps_end_source(void *run, void *src) {
    steps_run *r = run;
    steps_src *s = src;
    if (s->metadata_rank < 0 && s->piece > 0 && s->index == r->last_index) s->metadata_rank = r->last_metadata_rank;
    r->last_index = s->index;
    r->last_metadata_rank = s->metadata_rank;
    int rank = s->metadata_rank >= 0 ? s->metadata_rank : s->source_rank;
    bool ok = true;
    if (s->d.any || s->d.out_of_range) {
        size_t i = 0;
        while (i < r->n && r->ranks[i].rank != rank) i++;
        if (i == r->n) {
            rank_data *v = realloc(r->ranks, (r->n + 1) * sizeof *v);
            if (!v) ok = false;
            else {
                r->ranks = v;
                rank_data_init(&r->ranks[r->n++], rank);
            }
        }
        if (ok) ok = fold_into(&r->ranks[i], &s->d);
    }
    rank_data_free(&s->d);
    kcc_free(&s->classes);
    free(s);
    if (!ok) r->oom = true;
    return ok;
}

static int cmp_step(const void *x, const void *y) {
    const step_mark *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_rank(const void *x, const void *y) {
    const rank_data *a = x, *b = y;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The mean over n steps of each part, rounded to integer ns by the largest-remainder
 * method so that the mean parts sum exactly to the mean wall time (sum of walls / n,
 * rounded down). */
static void mean_parts(rank_data *d) {
    size_t n = d->nsteps;
    i128 wall = 0, sum[N_PARTS] = {0};
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < N_PARTS; p++) {
            sum[p] += d->step_parts[i][p];
            wall += d->step_parts[i][p];
        }
    d->mean_wall = (int64_t)(wall / (i128)n);
    int64_t used = 0, rem[N_PARTS];
    for (int p = 0; p < N_PARTS; p++) {
        d->mean_parts[p] = (int64_t)(sum[p] / (i128)n);
        rem[p] = (int64_t)(sum[p] % (i128)n);
        used += d->mean_parts[p];
    }
    for (int64_t left = d->mean_wall - used; left > 0; left--) {
        int best = 0;
        for (int p = 1; p < N_PARTS; p++)
            if (rem[p] > rem[best]) best = p;
        d->mean_parts[best]++;
        rem[best] = -1;
    }
}

/* The time already credited to a step by retirement. */
static int64_t credited(const step_mark *m) {
    int64_t t = 0;
    for (int p = 0; p < N_PARTS; p++) t += m->parts[p];
    return t;
}

static bool finish_rank(rank_data *d) {
    if (d->nsteps > 1) qsort(d->steps, d->nsteps, sizeof *d->steps, cmp_step);
    size_t k = 0;  /* drop exact duplicates (one step filed twice), keeping the one credited most */
    for (size_t i = 0; i < d->nsteps; i++) {
        if (k && !cmp_step(&d->steps[k - 1], &d->steps[i])) {
            if (credited(&d->steps[i]) > credited(&d->steps[k - 1]))
                memcpy(d->steps[k - 1].parts, d->steps[i].parts, sizeof d->steps[i].parts);
            free(d->steps[i].name);
        } else {
            d->steps[k++] = d->steps[i];
        }
    }
    d->nsteps = k;
    if (d->nsteps) {
        d->step_parts = calloc(d->nsteps, sizeof *d->step_parts);
        if (!d->step_parts) return false;
    }
    /* The run's split is additive over a partition of [lo, hi): while the steps (sorted) do
     * not overlap, it is the sum of their live splits and of the gaps' between them, so the
     * spans are swept once, not twice (steps usually tile the run: #n+1 starts where #n ends). */
    int64_t run_live[N_PARTS] = {0}, at = d->lo;
    bool tiled = true;
    for (size_t i = 0; i < d->nsteps; i++) {
        step_mark *m = &d->steps[i];
        if (!steps_split_live(d, m->start, m->end, d->step_parts[i])) return false;
        if (tiled && m->start >= at) {
            int64_t gap[N_PARTS];
            if (!steps_split_live(d, at, m->start, gap)) return false;
            for (int p = 0; p < N_PARTS; p++) run_live[p] += gap[p] + d->step_parts[i][p];
            at = m->end;
        } else {
            tiled = false;
        }
        /* retired time of the step that its own source did not credit (another source
         * retired it): counted as other, and the answer is not exact */
        int64_t uncredited = nsi_total_within(&d->retired, m->start, m->end) - credited(m);
        for (int p = 0; p < N_PARTS; p++) d->step_parts[i][p] += m->parts[p];
        if (uncredited > 0) d->step_parts[i][P_OTHER] += uncredited, d->inexact++;
        if (d->steps[i].end - d->steps[i].start > d->steps[d->slowest].end - d->steps[d->slowest].start) d->slowest = i;
    }
    if (d->nsteps) mean_parts(d);
    if (tiled && d->nsteps) {
        if (!steps_split_live(d, at, d->hi, d->run_parts)) return false;
        for (int p = 0; p < N_PARTS; p++) d->run_parts[p] += run_live[p];
    } else if (!steps_split_live(d, d->lo, d->hi, d->run_parts)) {
        return false;
    }
    for (int p = 0; p < N_PARTS; p++) d->run_parts[p] += d->retired_run[p];
    return true;
}

static bool steps_finish(void *run, const section_results *earlier) {
    (void)earlier;
    steps_run *r = run;
    if (r->n > 1) qsort(r->ranks, r->n, sizeof *r->ranks, cmp_rank);
    /* Sources of unknown rank (a kernel trace without rank) belong to the run's only rank. */
    if (r->n == 2 && r->ranks[0].rank < 0) {
        if (!fold_into(&r->ranks[1], &r->ranks[0])) {
            r->oom = true;
            return false;
        }
        rank_data_free(&r->ranks[0]);
        r->ranks[0] = r->ranks[1];
        r->n = 1;
    }
    for (size_t i = 0; i < r->n; i++) {
        rank_data *d = &r->ranks[i];
        if (!finish_rank(d)) {
            r->oom = true;
            return false;
        }
        char who[32];   /* "rank 3", or "unknown rank" for a trace that does not say (-1) */
        if (d->rank >= 0) snprintf(who, sizeof who, "rank %d", d->rank);
        else snprintf(who, sizeof who, "unknown rank");
        uint64_t dropped = 0;
        for (int p = 0; p < P_TIMED; p++) dropped += d->part[p].dropped;
        if (dropped)
            diag_add(r->diag, "steps: %s: more than %zu separate busy stretches in one part; %llu intervals "
                     "were not kept and count as other", who, MAX_SPANS_PER_PART, (unsigned long long)dropped);
        if (d->steps_dropped)
            diag_add(r->diag, "steps: %s: more than %d ProfilerStep ranges (or %zu MiB of their names); %llu further "
                     "steps are not listed", who, MAX_STEPS, MAX_STEP_NAME_BYTES >> 20,
                     (unsigned long long)d->steps_dropped);
        int64_t in_steps = 0;
        for (size_t k = 0; k < d->nsteps; k++) in_steps += d->step_parts[k][P_KERNEL] + d->step_parts[k][P_COMM];
        if (d->nsteps && !in_steps && (d->run_parts[P_KERNEL] || d->run_parts[P_COMM]))
            diag_add(r->diag, "steps: %s: no kernel time falls inside any ProfilerStep range although the "
                     "run has kernels: the steps and the kernels may come from files on different clocks",
                     who);
        if (d->out_of_range)
            diag_add(r->diag, "steps: %s: %llu records with timestamps beyond 2^62 ns were ignored", who,
                     (unsigned long long)d->out_of_range);
        if (d->inexact)
            diag_add(r->diag, "steps: %s: %llu records or sources reached back into time already split (more "
                     "than %zu spans of disorder, or sources overlapping in time): the parts are not exact "
                     "(exact: false)", who, (unsigned long long)d->inexact, STEPS_RETIRE_ABOVE);
    }
    return true;
}

static void steps_close(void *run) {
    steps_run *r = run;
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) rank_data_free(&r->ranks[i]);
    free(r->ranks);
    free(r);
}

const section_analysis steps_analysis = {
    .key = "steps",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_MEMORY_COPY) | REC_BIT(REC_MEMSET) | REC_BIT(REC_API_CALL) |
             REC_BIT(REC_ANNOTATION) | REC_BIT(REC_CPU_OP) | REC_BIT(REC_METADATA),
    .fields = RF_START | RF_END | RF_DURATION,
    .splittable = true,
    .host_clock = true,           /* joins kernels to the host trace's operators, launches and steps */
    .open = steps_open,
    .open_source = steps_open_source,
    .consume = steps_consume,
    .end_source = steps_end_source,
    .finish = steps_finish,
    .render = steps_render,
    .render_md = steps_render_md,
    .number = steps_number,
    .close = steps_close,
};
