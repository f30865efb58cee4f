/* aie_cores: per-core kernel timing of an mlir-aie run, the `aie_cores` section.
 *
 * Input: REC_AIE_EVENT records (aie-trace-json) and the aie.* REC_METADATA of aie_run.json.
 * Per core tile, kernel starts are INSTR_EVENT_0 'B' markers and kernel ends INSTR_EVENT_1
 * 'E' markers, paired robustly (docs/ANALYSIS.md ## aie_cores):
 *   1. pair in time order: an end closes the latest start not yet closed; at equal
 *      timestamps an end comes before a start (it closes the previous kernel); a start
 *      followed by another start without an end between is an orphan (ring-buffer wrap
 *      or a lost end) and is ignored, as is an end with no start;
 *   2. m = the median duration of those pairs; markers closer than m/4 to the previous kept
 *      marker of the same kind are duplicates and dropped (the first is kept); pair again;
 *   3. m = the median of the new pairs; pairs outside [m/3, 3m] are outliers and dropped;
 *   4. iteration boundaries: a LOCK_STALL (B..E on the tile) lasting at least 20m; the
 *      kernels between two boundaries form one iteration (empty stretches are not
 *      iterations); a kernel starting exactly at a stall's end belongs to the iteration
 *      before the boundary (mlir-aie's post-processor's rule);
 *   5. labels: with aie_run.json's warmup W and iterations P, n >= W+P detected iterations
 *      are W warmup, P perf, the rest extra; n < W+P are labelled from the end (the trace
 *      lost its beginning): the last P perf, up to W before them warmup. A note says when
 *      n != W+P. Without aie_run.json every iteration is "unlabelled".
 * All thresholds are compared in integers (twice the median), never through rounding.
 * Tracks that carry no INSTR_EVENT_0/1 marker (memory, shim tiles) are not cores.
 * Memory: the marker timestamps of each tile, at most AIE_MAX_EVENTS per kind, at most
 * AIE_MAX_MARKERS in all, on at most AIE_MAX_TILES tiles (beyond: not read, and noted). */
#include "analyses/sections/aie_cores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section_md.h"

/* The run description's keys (aie_run.json, aie.* metadata), indexed by AIE_M ... */
static const char *const AIE_CFG_KEYS[AIE_CFG_COUNT] = {"M", "K", "N", "m", "k", "n", "rows", "cols", "warmup", "iterations",
                                                 "clock_ghz", "macs_per_cycle"};

const char *aie_label_name(aie_label l) {
    static const char *const NAMES[] = {"warmup", "perf", "extra", "unlabelled"};
    return NAMES[l];
}

static bool list_push(i128_list *l, i128 v) {
    if (l->capped) return true;
    if (l->n >= AIE_MAX_EVENTS) { l->capped = true; return true; }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        i128 *nv = realloc(l->v, cap * sizeof *nv);
        if (!nv) return false;
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = v;
    return true;
}

static bool list_append(i128_list *dst, const i128_list *src) {
    for (size_t i = 0; i < src->n; i++)
        if (!list_push(dst, src->v[i])) return false;
    dst->capped |= src->capped;
    return true;
}

static void core_free(aie_core *c) {
    free(c->tile);
    free(c->starts.v);
    free(c->ends.v);
    free(c->stall_b.v);
    free(c->stall_e.v);
    free(c->iters);
}

/* The core of `tile` (created when new); NULL on OOM, or (tiles_capped set) past AIE_MAX_TILES. */
static aie_core *core_named(aie_cores_run *r, const char *tile, size_t n) {
    for (size_t i = 0; i < r->n; i++)
        if (strlen(r->cores[i].tile) == n && !memcmp(r->cores[i].tile, tile, n)) return &r->cores[i];
    if (r->n >= AIE_MAX_TILES) { r->tiles_capped = true; return NULL; }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        aie_core *c = realloc(r->cores, cap * sizeof *c);
        if (!c) return NULL;
        r->cores = c;
        r->cap = cap;
    }
    aie_core *c = &r->cores[r->n];
    memset(c, 0, sizeof *c);
    if (!(c->tile = strndup(tile, n))) return NULL;
    r->n++;
    return c;
}

static void *ac_open(const analysis_config *cfg, diag_list *diag) {
    aie_cores_run *r = calloc(1, sizeof *r);
    if (r) r->diag = diag, r->settings = cfg;
    return r;
}

static void *ac_open_source(void *run, const source_ref *src) {
    (void)run;
    (void)src;
    return calloc(1, sizeof(aie_cores_run));
}

static bool name_is(const record *r, const char *s) {
    size_t n = strlen(s);
    return r->name_len == n && !memcmp(r->name, s, n);
}

static bool ac_consume(void *st, const record *r) {
    aie_cores_run *s = st;
    if (r->type == REC_METADATA) {
        if (!r->key || strncmp(r->key, "aie.", 4) || !r->value) return true;
        for (int k = 0; k < AIE_CFG_COUNT; k++)
            if (!strcmp(r->key + 4, AIE_CFG_KEYS[k])) {
                char buf[64];
                size_t n = r->value_len < sizeof buf - 1 ? r->value_len : sizeof buf - 1;
                memcpy(buf, r->value, n);
                buf[n] = 0;
                char *end;
                double v = strtod(buf, &end);
                bool counts = k == AIE_WARMUP || k == AIE_ITERATIONS;   /* 0 of them is a valid count */
                bool valid = n && !*end && (v > 0 || (counts && v == 0));
                s->cfg.any = true;
                if (valid && !s->cfg.has[k]) s->cfg.v[k] = v, s->cfg.has[k] = true;
                else if (!valid)
                    snprintf(s->note, sizeof s->note, "aie_run.json: %s = '%s' is not a %s number; ignored",
                             AIE_CFG_KEYS[k], buf, counts ? "non-negative" : "positive");
            }
        return true;
    }
    if (!(r->has & RF_CYCLES) || !r->track || !r->name) return true;
    bool start = r->phase == 'B' && name_is(r, "INSTR_EVENT_0"), end = r->phase == 'E' && name_is(r, "INSTR_EVENT_1");
    bool stall = name_is(r, "LOCK_STALL") && (r->phase == 'B' || r->phase == 'E');
    if (!start && !end && !stall) return true;
    if (s->markers >= AIE_MAX_MARKERS) { s->markers_capped = true; return true; }
    aie_core *c = core_named(s, r->track, r->track_len);
    if (!c) return s->tiles_capped;
    s->any_events = true;
    s->markers++;
    i128_list *l = start ? &c->starts : end ? &c->ends : r->phase == 'B' ? &c->stall_b : &c->stall_e;
    return list_push(l, r->cycles);
}

static bool ac_end_source(void *run, void *st) {
    aie_cores_run *R = run, *s = st;
    bool ok = true;
    for (size_t i = 0; ok && i < s->n; i++) {
        const aie_core *sc = &s->cores[i];
        uint64_t n = sc->starts.n + sc->ends.n + sc->stall_b.n + sc->stall_e.n;
        if (R->markers + n > AIE_MAX_MARKERS) { R->markers_capped = true; continue; }
        aie_core *c = core_named(R, sc->tile, strlen(sc->tile));
        if (!c) { ok = R->tiles_capped; continue; }
        R->markers += n;
        ok = list_append(&c->starts, &sc->starts) && list_append(&c->ends, &sc->ends) &&
             list_append(&c->stall_b, &sc->stall_b) && list_append(&c->stall_e, &sc->stall_e);
    }
    R->markers_capped |= s->markers_capped;
    R->tiles_capped |= s->tiles_capped;
    for (int k = 0; k < AIE_CFG_COUNT; k++)
        if (s->cfg.has[k] && !R->cfg.has[k]) R->cfg.v[k] = s->cfg.v[k], R->cfg.has[k] = true;
    R->cfg.any |= s->cfg.any;
    R->any_events |= s->any_events;
    if (s->note[0] && !R->note[0]) memcpy(R->note, s->note, sizeof R->note);
    for (size_t i = 0; i < s->n; i++) core_free(&s->cores[i]);
    free(s->cores);
    free(s);
    return ok;
}

static int cmp_i128(const void *a, const void *b) {
    i128 x = *(const i128 *)a, y = *(const i128 *)b;
    return (x > y) - (x < y);
}

static void sort_list(i128_list *l) {
    if (l->n > 1) qsort(l->v, l->n, sizeof *l->v, cmp_i128);
}

typedef struct pair { i128 s, e; } pair;

/* Pairs sorted starts and ends (step 1). out has room for min(nS, nE) pairs. */
static size_t pair_up(const i128 *S, size_t nS, const i128 *E, size_t nE, pair *out, uint64_t *orphans) {
    size_t i = 0, j = 0, n = 0;
    bool open = false;
    i128 at = 0;
    uint64_t orph = 0;
    while (i < nS || j < nE) {
        if (j < nE && (i >= nS || E[j] <= S[i])) {
            if (open) out[n++] = (pair){at, E[j]}, open = false;
            else orph++;
            j++;
        } else {
            if (open) orph++;
            open = true;
            at = S[i++];
        }
    }
    if (open) orph++;
    if (orphans) *orphans = orph;
    return n;
}

/* Twice the median of the pairs' durations (an integer). n > 0. */
static i128 twice_median(const pair *p, size_t n, i128 *scratch) {
    for (size_t i = 0; i < n; i++) scratch[i] = p[i].e - p[i].s;
    qsort(scratch, n, sizeof *scratch, cmp_i128);
    return n % 2 ? 2 * scratch[n / 2] : scratch[n / 2 - 1] + scratch[n / 2];
}

/* Drops markers closer than m/4 to the previous kept one (8 * gap < 2m); returns the kept count. */
static size_t dedupe(i128 *v, size_t n, i128 m2, uint64_t *dropped) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && 8 * (v[i] - v[k - 1]) < m2) { (*dropped)++; continue; }
        v[k++] = v[i];
    }
    return k;
}

static void label_iterations(aie_core *c, const aie_cfg *cfg) {
    size_t n = c->n_iters;
    if (!cfg->has[AIE_ITERATIONS]) {
        for (size_t i = 0; i < n; i++) c->iters[i].label = AIE_LABEL_UNLABELLED;
        return;
    }
    size_t W = cfg->has[AIE_WARMUP] ? (size_t)cfg->v[AIE_WARMUP] : 0, P = (size_t)cfg->v[AIE_ITERATIONS];
    if (n >= W + P) {
        for (size_t i = 0; i < n; i++)
            c->iters[i].label = i < W ? AIE_LABEL_WARMUP : i < W + P ? AIE_LABEL_PERF : AIE_LABEL_EXTRA;
    } else {
        size_t perf = n < P ? n : P;
        for (size_t i = 0; i < n; i++) c->iters[i].label = i >= n - perf ? AIE_LABEL_PERF : AIE_LABEL_WARMUP;
    }
    if (n != W + P)
        snprintf(c->note, sizeof c->note, "detected %zu iterations, expected %zu (%zu warmup + %zu perf)%s", n, W + P, W,
                 P, n < W + P ? "; labelled from the end (the trace lost its beginning?)" : "; the rest are extra");
}

/* Steps 1-5 for one core. false on OOM. */
static bool analyse_core(aie_core *c, const aie_cfg *cfg) {
    sort_list(&c->starts);
    sort_list(&c->ends);
    sort_list(&c->stall_b);
    sort_list(&c->stall_e);
    size_t cap = (c->starts.n < c->ends.n ? c->starts.n : c->ends.n) + 1;
    size_t scap = (c->stall_b.n < c->stall_e.n ? c->stall_b.n : c->stall_e.n) + 1;
    pair *p = malloc(cap * sizeof *p), *st = malloc(scap * sizeof *st);
    i128 *scratch = malloc(cap * sizeof *scratch);
    bool ok = p && st && scratch;
    if (!ok) goto out;
    size_t n = pair_up(c->starts.v, c->starts.n, c->ends.v, c->ends.n, p, NULL);
    if (!n) {
        snprintf(c->note, sizeof c->note, "no kernel pairs (%zu INSTR_EVENT_0 starts, %zu INSTR_EVENT_1 ends)",
                 c->starts.n, c->ends.n);
        goto out;
    }
    i128 m2 = twice_median(p, n, scratch);
    c->starts.n = dedupe(c->starts.v, c->starts.n, m2, &c->duplicates);
    c->ends.n = dedupe(c->ends.v, c->ends.n, m2, &c->duplicates);
    n = pair_up(c->starts.v, c->starts.n, c->ends.v, c->ends.n, p, &c->orphans);
    if (!n) { snprintf(c->note, sizeof c->note, "no kernel pairs after dropping duplicate markers"); goto out; }
    m2 = twice_median(p, n, scratch);
    c->median_cycles = (double)m2 / 2.0;
    c->has_median = true;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        i128 d = p[i].e - p[i].s;
        if (6 * d < m2 || 2 * d > 3 * m2) { c->outliers++; continue; }
        p[k++] = p[i];
    }
    n = k;
    c->pairs = n;
    size_t ns = pair_up(c->stall_b.v, c->stall_b.n, c->stall_e.v, c->stall_e.n, st, NULL);
    /* long stalls: duration >= 20 m, i.e. >= 10 * (2m) */
    size_t nl = 0;
    for (size_t i = 0; i < ns; i++)
        if (st[i].e - st[i].s >= 10 * m2) st[nl++] = st[i];
    c->lock_stall_boundaries = nl;
    c->iters = calloc(n ? n : 1, sizeof *c->iters);
    if (!c->iters) { ok = false; goto out; }
    size_t b = 0;               /* long stalls ending at or before the current kernel's start */
    long cur = -1;              /* boundary count of the open iteration */
    i128 first = 0, last = 0, sum = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n)
            while (b < nl && st[b].e < p[i].s) b++;   /* a kernel starting at a stall's end is before it */
        if (cur >= 0 && (i == n || (long)b != cur)) {      /* close the open iteration */
            aie_iter *it = &c->iters[c->n_iters - 1];
            it->avg_cycles = (double)sum / (double)it->kernels;
            it->span_cycles = (int64_t)(last - first);
            it->first_start = (int64_t)first;
            it->last_end = (int64_t)last;
            if (cfg->has[AIE_m] && cfg->has[AIE_k] && cfg->has[AIE_n] && it->span_cycles > 0) {
                double clock = cfg->has[AIE_CLOCK_GHZ] ? cfg->v[AIE_CLOCK_GHZ] : 1.25;
                it->gmacs = (double)it->kernels * cfg->v[AIE_m] * cfg->v[AIE_k] * cfg->v[AIE_n] * clock /
                            (double)it->span_cycles;
                it->has_gmacs = true;
            }
            cur = -1;
        }
        if (i == n) break;
        int64_t d = (int64_t)(p[i].e - p[i].s);
        if (cur < 0) {
            aie_iter *it = &c->iters[c->n_iters++];
            memset(it, 0, sizeof *it);
            it->min_cycles = it->max_cycles = d;
            first = p[i].s;
            sum = 0;
            cur = (long)b;
        }
        aie_iter *it = &c->iters[c->n_iters - 1];
        it->kernels++;
        sum += d;
        if (d < it->min_cycles) it->min_cycles = d;
        if (d > it->max_cycles) it->max_cycles = d;
        last = p[i].e;
    }
    label_iterations(c, cfg);
out:
    if (c->starts.capped || c->ends.capped || c->stall_b.capped || c->stall_e.capped)
        snprintf(c->note + strlen(c->note), sizeof c->note - strlen(c->note), "%smore than %u events of one kind: "
                 "the rest were not read", c->note[0] ? "; " : "", AIE_MAX_EVENTS);
    free(p);
    free(st);
    free(scratch);
    return ok;
}

static int cmp_tile(const void *a, const void *b) {
    return strverscmp(((const aie_core *)a)->tile, ((const aie_core *)b)->tile);
}

static bool ac_finish(void *run, const section_results *earlier) {
    (void)earlier;
    aie_cores_run *R = run;
    size_t k = 0;                                   /* tracks without kernel markers are not cores */
    for (size_t i = 0; i < R->n; i++) {
        if (!R->cores[i].starts.n && !R->cores[i].ends.n) { core_free(&R->cores[i]); continue; }
        R->cores[k++] = R->cores[i];
    }
    R->n = k;
    if (R->n > 1) qsort(R->cores, R->n, sizeof *R->cores, cmp_tile);
    for (size_t i = 0; i < R->n; i++)
        if (!analyse_core(&R->cores[i], &R->cfg)) return false;
    size_t len = strlen(R->note);
    if (R->n && !R->cfg.any && len < sizeof R->note)
        len += (size_t)snprintf(R->note + len, sizeof R->note - len, "%sno aie_run.json: iterations are unlabelled and "
                                "GMAC/s unknown", len ? "; " : "");
    if ((R->markers_capped || R->tiles_capped) && len < sizeof R->note)
        snprintf(R->note + len, sizeof R->note - len, "%smore than %u markers or %u tiles: the rest were not read",
                 len ? "; " : "", AIE_MAX_MARKERS, AIE_MAX_TILES);
    if (R->markers_capped || R->tiles_capped)
        diag_add(R->diag, "aie_cores: more than %u kernel/stall markers or %u tiles; the rest were not read",
                 AIE_MAX_MARKERS, AIE_MAX_TILES);
    if (section_listed(R->settings, R->n) < R->n)      /* the section is an array: say it here */
        diag_add(R->diag, "aie_cores: %zu tiles; the document lists the first %zu (analysis_list_rows)", R->n,
                 section_listed(R->settings, R->n));
    return true;
}

static void ac_render(const void *run, jw_out *w) {
    aie_cores_render(run, w);
}

static void ac_render_md(const void *run, strbuf *out) {
    aie_cores_render_md(run, out);
}

/* Numbers by path: "cores" (tiles with kernel markers), "kernels" (pairs kept, all cores). */
static bool ac_number(const void *run, const char *path, double *out) {
    const aie_cores_run *R = run;
    if (!R->n) return false;
    if (!strcmp(path, "cores")) { *out = (double)R->n; return true; }
    if (!strcmp(path, "kernels")) {
        double k = 0;
        for (size_t i = 0; i < R->n; i++) k += (double)R->cores[i].pairs;
        *out = k;
        return true;
    }
    return false;
}

static void ac_close(void *run) {
    aie_cores_run *R = run;
    if (!R) return;
    for (size_t i = 0; i < R->n; i++) core_free(&R->cores[i]);
    free(R->cores);
    free(R);
}

/* Only aie-run-json emits the aie.* metadata it reads (and the AIE events come from
 * aie-trace-json): another format's pieces leave its state empty. */
static bool ac_split_ok(const source_ref *src) {
    return strcmp(src->format, "aie-run-json") && strcmp(src->format, "aie-trace-json");
}

const section_analysis aie_cores_analysis = {
    .key = "aie_cores",
    .wants = REC_BIT(REC_AIE_EVENT) | REC_BIT(REC_METADATA),
    .fields = RF_CYCLES,
    .splittable = false,
    .split_ok = ac_split_ok,
    .open = ac_open,
    .open_source = ac_open_source,
    .consume = ac_consume,
    .end_source = ac_end_source,
    .finish = ac_finish,
    .render = ac_render,
    .render_md = ac_render_md,
    .number = ac_number,
    .close = ac_close,
};
