/* phases: prefill vs decode kernel time of an inference trace (section "phases").
 *
 * vLLM names each model step with a range annotation. Two spellings are read:
 *   execute_context_<C>(<ctx tokens>)_generation_<G>(<gen tokens>)
 *   execute_<N>_context_<C>(sq<ctx tokens>sk...)_generation_<G>(sq<gen tokens>sk...)
 * where C and G are the numbers of context (prefill) and generation (decode) requests. A
 * step is prefill when C > 0 and G = 0, decode when C = 0 and G > 0, mixed when both (and
 * idle when neither). A kernel belongs to the step whose host annotation holds the start of
 * the runtime call that launched it (correlation id; a graph launch's kernels all follow
 * its one call), else to the annotation (GPU lane first) holding the kernel's own start.
 * Per phase: steps, wall time of its annotations, tokens, kernels and kernel time (sum of
 * durations). null when the trace has no such annotation. Joins are per file (ids are per
 * process), groups by correlation id bound the memory (kernel_groups). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/kernel_groups.h"
#include "analyses/sections/phases.h"
#include "analyses/structures/piece_log.h"
#include "analyses/section.h"

enum { PH_PREFILL, PH_DECODE, PH_MIXED, PH_IDLE, N_PHASES };
static const char *const PHASE_KEYS[N_PHASES] = {"prefill", "decode", "mixed", "idle"};

#define MAX_STEPS ((size_t)1 << 17)
#define MAX_LAUNCHES ((size_t)1 << 19)
#define EARLY_LIMIT ((size_t)1 << 14)   /* launches and groups kept before a step annotation is seen */

typedef struct phase_step {
    int64_t lo, hi;
    uint64_t tokens;
    int phase;
    bool gpu_lane;
} phase_step;

#define MAX_TAIL ((size_t)1 << 18)   /* second-piece events kept for the join (32 B, ~11 in the log; past it
                                      * the join is refused, docs/ANALYSIS.md "pieces") */

/* A launch, kernel or step of the second piece of a split read, kept to be applied at the
 * join exactly where one pass applies it (the bounds change at the file's first step). */
enum { EV_LAUNCH, EV_KERNEL, EV_STEP };
typedef struct tail_event {
    int64_t lo, hi;          /* launch: its start; kernel, step: its span */
    uint64_t v;              /* launch, kernel: correlation id; step: tokens */
    uint8_t kind, phase;
    bool gpu_lane;
} tail_event;

typedef struct phases_file {
    size_t index;
    bool second;             /* the second piece of a split read: events wait in tail */
    bool tail_full;          /* more than MAX_TAIL: the pieces do not join (phases_split_exact) */
    piece_log tail;          /* tail_event entries */
    phase_step *steps;
    size_t nsteps, cap;
    int64_t *launch_start;
    size_t nlaunch, caplaunch;
    id_map launch_by_corr;
    kgroups by_corr;
    uint64_t no_corr_kernels, dropped;
} phases_file;

typedef struct phase_sum {
    uint64_t steps, tokens, kernels;
    int64_t wall_ns, kernel_time_ns;
} phase_sum;

typedef struct phases_run {
    diag_list *diag;
    phases_file *acc;
    phase_sum sum[N_PHASES];
    uint64_t annotations, unattributed, dropped;
    bool oom;
} phases_run;

static void *phases_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg;
    phases_run *r = calloc(1, sizeof *r);
    if (r) r->diag = diag;
    return r;
}

static void *phases_open_source(void *run, const source_ref *src) {
    (void)run;
    phases_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->index = src->index;
    f->second = src->piece == 1;
    _Static_assert(PIECE_LOG_FITS(tail_event), "piece_log entry");
    f->tail.size = sizeof(tail_event);
    f->tail.span = offsetof(tail_event, hi);   /* hi is coded as a duration (piece_log.h) */
    f->launch_by_corr.max_entries = EARLY_LIMIT;
    f->by_corr.max_groups = EARLY_LIMIT;
    return f;
}

static void file_free(phases_file *f) {
    if (!f) return;
    free(f->steps);
    plog_free(&f->tail);
    free(f->launch_start);
    id_map_free(&f->launch_by_corr);
    kgroups_free(&f->by_corr);
    free(f);
}

/* Reads an unsigned decimal at *p (before end); false when there is none. */
static bool read_uint(const char **p, const char *end, uint64_t *out) {
    const char *s = *p;
    uint64_t v = 0;
    while (s < end && *s >= '0' && *s <= '9' && v < UINT64_MAX / 10) v = v * 10 + (uint64_t)(*s++ - '0');
    if (s == *p) return false;
    *p = s, *out = v;
    return true;
}

static bool skip(const char **p, const char *end, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n)) return false;
    *p += n;
    return true;
}

/* `<reqs>(<tokens>...)` or `<reqs>(sq<tokens>...)`, up to the closing parenthesis. */
static bool read_part(const char **p, const char *end, uint64_t *reqs, uint64_t *tokens) {
    if (!read_uint(p, end, reqs) || !skip(p, end, "(")) return false;
    skip(p, end, "sq");
    if (!read_uint(p, end, tokens)) return false;
    const char *close = memchr(*p, ')', (size_t)(end - *p));
    if (!close) return false;
    *p = close + 1;
    return true;
}

/* Parses a vLLM step annotation name (see the top comment). */
static bool parse_step_name(const char *name, size_t len, int *phase, uint64_t *tokens) {
    const char *p = name, *end = name + len;
    uint64_t n, ctx, ctx_tok, gen, gen_tok;
    if (!name || !skip(&p, end, "execute_")) return false;
    if (!skip(&p, end, "context_")) {
        if (!read_uint(&p, end, &n) || !skip(&p, end, "_context_")) return false;
    }
    if (!read_part(&p, end, &ctx, &ctx_tok) || !skip(&p, end, "_generation_") || !read_part(&p, end, &gen, &gen_tok))
        return false;
    *phase = ctx && !gen ? PH_PREFILL : !ctx && gen ? PH_DECODE : ctx && gen ? PH_MIXED : PH_IDLE;
    *tokens = (ctx ? ctx_tok : 0) + (gen ? gen_tok : 0);
    return true;
}

bool phases_step_name(const char *name, size_t len, int *phase, uint64_t *tokens) {
    return parse_step_name(name, len, phase, tokens);
}

const char *phases_key(int phase) {
    return phase >= 0 && phase < N_PHASES ? PHASE_KEYS[phase] : NULL;
}

static bool span_of(const record *r, int64_t *a, int64_t *b) {
    if (!(r->has & RF_START) || !(r->has & (RF_END | RF_DURATION))) return false;
    i128 end = (r->has & RF_END) ? r->end_ns : i128_add(r->start_ns, r->duration_ns);
    const i128 lim = (i128)INT64_MAX / 2;
    if (r->start_ns < -lim || r->start_ns > lim || end < r->start_ns || end > lim) return false;
    *a = (int64_t)r->start_ns, *b = (int64_t)end;
    return true;
}

/* Records a launch call (correlation id corr, starting at a): its start by correlation id,
 * so the kernels with that id go to the step holding the call's start. A correlation id seen
 * before takes its slot again (lookups find the latest call), so the starts are bounded by
 * the distinct ids, not the calls. Past the map's bound (EARLY_LIMIT before the file's first
 * step, MAX_LAUNCHES after) it is counted dropped. false on OOM. */
static bool add_launch(phases_file *f, uint64_t corr, int64_t a) {
    if (f->nlaunch == f->caplaunch) {
        size_t c = f->caplaunch ? f->caplaunch * 2 : 256;
        int64_t *v = realloc(f->launch_start, c * sizeof *v);
        if (!v) return false;
        f->launch_start = v, f->caplaunch = c;
    }
    return id_map_keep_latest(&f->launch_by_corr, f->launch_start, &f->nlaunch, corr, &a, sizeof a, &f->dropped);
}

/* Records a step annotation; the first one raises the launch and group bounds to what a
 * step file's joins need (before it they stay small: most traces have no step). Past
 * MAX_STEPS it is counted dropped. false on OOM. */
static bool add_step(phases_file *f, phase_step st) {
    if (f->nsteps >= MAX_STEPS) {
        f->dropped++;
        return true;
    }
    if (f->nsteps == f->cap) {
        size_t c = f->cap ? f->cap * 2 : 64;
        phase_step *v = realloc(f->steps, c * sizeof *v);
        if (!v) return false;
        f->steps = v, f->cap = c;
    }
    f->launch_by_corr.max_entries = MAX_LAUNCHES;  /* a step file: keep what joins need */
    f->by_corr.max_groups = KGROUPS_MAX;
    f->steps[f->nsteps++] = st;
    return true;
}

/* Applies one kept second-piece event to f (the join, in file order). */
static bool apply_event(phases_file *f, const tail_event *e) {
    if (e->kind == EV_LAUNCH) return add_launch(f, e->v, e->lo);
    if (e->kind == EV_KERNEL) return kgroups_add(&f->by_corr, e->v, KC_OTHER, e->lo, e->hi);
    return add_step(f, (phase_step){e->lo, e->hi, e->v, e->phase, e->gpu_lane});
}

/* Keeps an event of the second piece for the join; or applies it (first piece, one piece). */
static bool take(phases_file *f, tail_event e) {
    if (!f->second) return apply_event(f, &e);
    if (f->tail.n >= MAX_TAIL) return f->tail_full = true;   /* (the join is refused) */
    tail_event z;   /* padding zeroed and a launch's unused hi set to its lo: both code in one byte */
    memset(&z, 0, sizeof z);
    z.lo = e.lo, z.hi = e.kind == EV_LAUNCH ? e.lo : e.hi, z.v = e.v;
    z.kind = e.kind, z.phase = e.phase, z.gpu_lane = e.gpu_lane;
    return plog_put(&f->tail, &z);
}

static bool phases_consume(void *src, const record *r) {
    phases_file *f = src;
    int64_t a, b;
    if (r->type == REC_API_CALL) {
        if (!(r->has & RF_CORRELATION) || !(r->has & RF_START) || !span_of(r, &a, &b)) return true;
        return take(f, (tail_event){.lo = a, .v = r->correlation_id, .kind = EV_LAUNCH});
    }
    if (r->type == REC_KERNEL_DISPATCH) {
        if (!span_of(r, &a, &b)) return true;
        if (!(r->has & RF_CORRELATION)) {
            f->no_corr_kernels++;
            return true;
        }
        return take(f, (tail_event){.lo = a, .hi = b, .v = r->correlation_id, .kind = EV_KERNEL});
    }
    /* REC_ANNOTATION, REC_CPU_OP */
    int phase;
    uint64_t tokens;
    if (!span_of(r, &a, &b) || !parse_step_name(r->name, r->name_len, &phase, &tokens)) return true;
    bool gpu = r->category && r->category_len >= 4 && !memcmp(r->category, "gpu_", 4);
    return take(f, (tail_event){a, b, tokens, EV_STEP, (uint8_t)phase, gpu});
}

/* Whether the second piece folds exactly: it kept every event (MAX_TAIL). */
static bool phases_split_exact(const void *first, const void *second) {
    (void)first;
    return !((const phases_file *)second)->tail_full;
}

static int cmp_step(const void *x, const void *y) {
    const phase_step *a = x, *b = y;
    if (a->gpu_lane != b->gpu_lane) return a->gpu_lane ? 1 : -1;  /* host lane first */
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The step of lane `gpu` whose [lo, hi] holds t, or NULL (steps sorted by cmp_step). */
static const phase_step *step_at(const phase_step *v, size_t n, bool gpu, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {  /* first index past (gpu, t) */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].gpu_lane < gpu || (v[mid].gpu_lane == gpu && v[mid].lo <= t)) lo = mid + 1;
        else hi = mid;
    }
    if (!lo || v[lo - 1].gpu_lane != gpu || v[lo - 1].hi < t) return NULL;
    return &v[lo - 1];
}

static void resolve_file(phases_run *r, phases_file *f) {
    r->dropped += f->dropped + f->by_corr.dropped;
    r->unattributed += f->no_corr_kernels + f->by_corr.dropped;
    if (!f->nsteps) {  /* no step annotation in this file: its kernels are not counted anywhere */
        for (size_t i = 0; i < f->by_corr.n; i++) r->unattributed += f->by_corr.v[i].kernels;
        return;
    }
    if (f->nsteps > 1) qsort(f->steps, f->nsteps, sizeof *f->steps, cmp_step);
    for (size_t i = 0; i < f->nsteps; i++) {
        if (f->steps[i].gpu_lane) continue;  /* a GPU-lane copy is the same step again */
        phase_sum *s = &r->sum[f->steps[i].phase];
        s->steps++, s->tokens += f->steps[i].tokens, s->wall_ns += f->steps[i].hi - f->steps[i].lo;
        r->annotations++;
    }
    for (size_t i = 0; i < f->by_corr.n; i++) {
        const kgroup *g = &f->by_corr.v[i];
        uint32_t l = id_map_get(&f->launch_by_corr, g->key);
        const phase_step *st = l != ID_MAP_NONE ? step_at(f->steps, f->nsteps, false, f->launch_start[l]) : NULL;
        if (!st) st = step_at(f->steps, f->nsteps, true, g->lo);
        if (!st && l == ID_MAP_NONE) st = step_at(f->steps, f->nsteps, false, g->lo);
        if (!st) {
            r->unattributed += g->kernels;
            continue;
        }
        r->sum[st->phase].kernels += g->kernels;
        r->sum[st->phase].kernel_time_ns += g->sum_ns;
    }
}

static bool phases_end_source(void *run, void *src) {
    phases_run *r = run;
    phases_file *f = src;
    if (r->acc && r->acc->index == f->index) {
        /* the second piece: its events applied in file order to the first's state, which
         * has read exactly the bytes before it: one pass's result */
        phases_file *a = r->acc;
        bool ok = true;
        tail_event e;
        while (ok && plog_take(&f->tail, &e)) ok = apply_event(a, &e);
        a->no_corr_kernels += f->no_corr_kernels, a->dropped += f->dropped;
        file_free(f);
        if (!ok) r->oom = true;
        return ok;
    }
    if (r->acc) resolve_file(r, r->acc);
    file_free(r->acc);
    r->acc = f;
    return true;
}

static bool phases_finish(void *run, const section_results *earlier) {
    (void)earlier;
    phases_run *r = run;
    if (r->acc) resolve_file(r, r->acc);
    file_free(r->acc);
    r->acc = NULL;
    if (r->dropped && r->annotations)
        diag_add(r->diag, "phases: more than %zu step annotations or launch groups in one file; %llu were not "
                 "counted", MAX_STEPS, (unsigned long long)r->dropped);
    return true;
}

static void phases_render(const void *run, jw_out *w) {
    const phases_run *r = run;
    if (!r->annotations || r->oom) {
        jw_null(w);
        return;
    }
    jw_object_open(w);
    jw_key(w, "complete");
    jw_bool(w, !r->dropped);
    jw_key(w, "steps");
    jw_int(w, (int64_t)r->annotations);
    for (int p = 0; p < N_PHASES; p++) {
        const phase_sum *s = &r->sum[p];
        jw_key(w, PHASE_KEYS[p]);
        jw_object_open(w);
        jw_key(w, "steps");
        jw_int(w, (int64_t)s->steps);
        jw_key(w, "wall_ns");
        jw_int(w, s->wall_ns);
        jw_key(w, "tokens");
        jw_int(w, (int64_t)s->tokens);
        jw_key(w, "kernels");
        jw_int(w, (int64_t)s->kernels);
        jw_key(w, "kernel_time_ns");
        jw_int(w, s->kernel_time_ns);
        jw_object_close(w);
    }
    jw_key(w, "unattributed_kernels");
    jw_int(w, (int64_t)r->unattributed);
    jw_object_close(w);
}

/* "<phase>.{steps,wall_ns,tokens,kernels,kernel_time_ns}", "unattributed_kernels". */
static bool phases_number(const void *run, const char *path, double *out) {
    const phases_run *r = run;
    if (!r->annotations || r->oom) return false;
    if (!strcmp(path, "unattributed_kernels")) return *out = (double)r->unattributed, true;
    for (int p = 0; p < N_PHASES; p++) {
        size_t k = strlen(PHASE_KEYS[p]);
        if (strncmp(path, PHASE_KEYS[p], k) || path[k] != '.') continue;
        const char *f = path + k + 1;
        const phase_sum *s = &r->sum[p];
        if (!strcmp(f, "steps")) return *out = (double)s->steps, true;
        if (!strcmp(f, "wall_ns")) return *out = (double)s->wall_ns, true;
        if (!strcmp(f, "tokens")) return *out = (double)s->tokens, true;
        if (!strcmp(f, "kernels")) return *out = (double)s->kernels, true;
        if (!strcmp(f, "kernel_time_ns")) return *out = (double)s->kernel_time_ns, true;
    }
    return false;
}

static void phases_close(void *run) {
    phases_run *r = run;
    if (!r) return;
    file_free(r->acc);
    free(r);
}

const section_analysis phases_analysis = {
    .key = "phases",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_API_CALL) | REC_BIT(REC_ANNOTATION) | REC_BIT(REC_CPU_OP),
    .fields = RF_START | RF_END | RF_DURATION | RF_CORRELATION,
    .splittable = true,
    .split_exact = phases_split_exact,
    .host_clock = true,           /* joins kernels to the host trace's operators, launches and steps */
    .open = phases_open,
    .open_source = phases_open_source,
    .consume = phases_consume,
    .end_source = phases_end_source,
    .finish = phases_finish,
    .render = phases_render,
    .number = phases_number,
    .close = phases_close,
};
