/* fuzz_common: drives one artefact parser over a fuzzer input the way the reader does,
 * in chunks whose size the input's first byte picks (so chunk boundaries fall
 * everywhere), then runs the heuristics and the JSON rendering on the result. */
#ifndef GOBLIN_FUZZ_COMMON_H
#define GOBLIN_FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "core/format_pipe.h"
#include "core/metrics_json.h"
#include "core/waste_budget.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/gunzip.h"

static const size_t CHUNKS[8] = {1, 2, 3, 7, 64, 4096, 65536, 1 << 20};

typedef struct fuzz_run {
    kernel_summary k;
    torch_summary t;
    telemetry_summary s;
    diag_list diag;
} fuzz_run;

static void *fuzz_summary(fuzz_run *r, artefact_kind kind) {
    return kind == ARTEFACT_KERNEL_TRACE ? (void *)&r->k : kind == ARTEFACT_TORCH_PROFILE ? (void *)&r->t : (void *)&r->s;
}

static bool fuzz_sink(void *user, const uint8_t *buf, size_t n) {
    void **ctx = user;
    const artefact_parser *p = ctx[0];
    return p->feed(ctx[1], buf, n);
}

/* Parses data with p (through gunzip when gz; records through the kind's analysis, as the
 * reader does), then computes and renders RunMetrics. */
static void fuzz_one(const artefact_parser *p, const uint8_t *data, size_t size, bool gz) {
    if (size == 0) return;
    size_t chunk = CHUNKS[data[0] & 7];
    parse_options opt = {.seed_compat = (data[0] & 8) != 0};
    data++;
    size--;
    fuzz_run r;
    memset(&r, 0, sizeof r);
    diag_init(&r.diag);
    format_pipe pipe;
    if (!format_pipe_open(&pipe, p, p->kind, &opt, "fuzz", fuzz_summary(&r, p->kind), &r.diag)) return;
    void *state = pipe.fmt;
    bool ok = true;
    if (gz) {
        void *ctx[2] = {(void *)p, state};
        gunzip *g = gunzip_new(fuzz_sink, ctx);
        for (size_t i = 0; g && ok && i < size; i += chunk) ok = gunzip_feed(g, data + i, size - i < chunk ? size - i : chunk);
        ok = g && ok && gunzip_finish(g);
        gunzip_free(g);
    } else {
        for (size_t i = 0; i < size && ok; i += chunk) ok = p->feed(state, data + i, size - i < chunk ? size - i : chunk);
        ok = true;
    }
    if (ok) format_pipe_finish(&pipe);
    format_pipe_close(&pipe);
    run_metrics m;
    memset(&m, 0, sizeof m);
    waste_inputs in = {.kernels = &r.k, .torch = &r.t, .telemetry = &r.s, .seed_compat = opt.seed_compat};
    waste_budget_compute(&in, &m);
    m.warnings = r.diag;
    waste_budget_clamp(&m);
    /* every body within the schema's ranges (non-finite values are rendered as 0) */
    bool in_range = m.steps >= 0 && !(m.tokens_per_sec < 0) && !(m.mfu_pct < 0) && !(m.hbm_peak_gb < 0) &&
                    !(m.hbm_avg_gb < 0) && !(m.gpu_util_pct < 0) && !(m.gpu_util_pct > 100);
    for (int b = 0; b < W_COUNT; b++) in_range = in_range && !(m.waste[b] < 0);
    for (size_t i = 0; i < m.n_top; i++) in_range = in_range && !(m.top[i].pct_time < 0) && !(m.top[i].pct_time > 100);
    if (!in_range) abort();
    r.diag = m.warnings;
    strbuf out = {0};
    metrics_json_render(&m, 0, &out);
    strbuf_free(&out);
    diag_free(&r.diag);
    kernel_summary_free(&r.k);
    torch_summary_free(&r.t);
    telemetry_summary_free(&r.s);
}

/* The resume point of p at or after `from` inside data, or 0 when there is none worth a split. */
static inline size_t fuzz_split_point(const artefact_parser *p, const uint8_t *data, size_t size, size_t from) {
    size_t at = from + p->resume_point(data + from, size - from);
    return at >= size ? 0 : at;
}

/* Empty sequential (one) and split (two) results, and the tail's own warning list. */
static inline void fuzz_runs_init(fuzz_run *one, fuzz_run *two, diag_list *tail_diag) {
    memset(one, 0, sizeof *one);
    memset(two, 0, sizeof *two);
    diag_init(&one->diag);
    diag_init(&two->diag);
    diag_init(tail_diag);
}

/* The same warnings, in the same order. */
static inline bool fuzz_same_warnings(const diag_list *a, const diag_list *b) {
    if (a->count != b->count) return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->items[i], b->items[i])) return false;
    return true;
}

/* A torch profile read sequentially and read as a head and a tail from a resume point at
 * or after `from`, joined the way the reader joins them (core/format_pipe: the format's
 * join and the torch_stats analysis's, with its replayed float terms), must give the same
 * summary to the bit and the same warnings. Aborts (a finding) when they differ. */
static inline void fuzz_split_equal(const artefact_parser *p, const uint8_t *data, size_t size, size_t from) {
    if (!p->resume_point || !p->open_records_resumed || from >= size) return;
    size_t at = fuzz_split_point(p, data, size, from);
    if (!at) return;
    parse_options opt = {0};
    fuzz_run one, two;
    diag_list tail_diag;
    fuzz_runs_init(&one, &two, &tail_diag);
    format_pipe whole, head, tail;
    bool w = format_pipe_open(&whole, p, p->kind, &opt, "fuzz", fuzz_summary(&one, p->kind), &one.diag);
    bool h = format_pipe_open(&head, p, p->kind, &opt, "fuzz", fuzz_summary(&two, p->kind), &two.diag);
    bool t = h && format_pipe_open_resumed(&tail, p, p->kind, &opt, "fuzz", fuzz_summary(&two, p->kind), &tail_diag,
                                           at, data, size);
    if (w && h) {
        p->feed(whole.fmt, data, size);
        format_pipe_finish(&whole);
        bool head_whole = p->feed(head.fmt, data, at);
        bool tail_ok = t && (p->feed(tail.fmt, data + at, size - at), true);
        if (tail_ok && head_whole && format_pipe_join(&head, &tail)) {
            format_pipe_finish(&tail);
            diag_move(&two.diag, &tail_diag);
        } else {
            if (head_whole) p->feed(head.fmt, data + at, size - at);
            format_pipe_finish(&head);
        }
        const opt_num *a[] = {&one.t.tokens_per_sec, &one.t.mfu_pct, &one.t.step_time_seconds, &one.t.host_busy_fraction};
        const opt_num *b[] = {&two.t.tokens_per_sec, &two.t.mfu_pct, &two.t.step_time_seconds, &two.t.host_busy_fraction};
        bool same = fuzz_same_warnings(&one.diag, &two.diag) && one.t.complete == two.t.complete &&
                    one.t.n_steps == two.t.n_steps && one.t.profiled_steps == two.t.profiled_steps &&
                    !one.t.pytorch_version == !two.t.pytorch_version &&
                    (!one.t.pytorch_version || strcmp(one.t.pytorch_version, two.t.pytorch_version) == 0);
        for (size_t i = 0; same && i < 4; i++) same = a[i]->has == b[i]->has && memcmp(&a[i]->v, &b[i]->v, sizeof a[i]->v) == 0;
        same = same && one.t.step_time_is_span == two.t.step_time_is_span && one.t.step_events == two.t.step_events &&
               kernel_table_equal(&one.t.kernels, &two.t.kernels) && one.t.facts.rows_used == two.t.facts.rows_used;
        if (!same) abort();
    }
    if (w) format_pipe_close(&whole);
    if (h) format_pipe_close(&head);
    if (t) format_pipe_close(&tail);
    diag_free(&tail_diag);
    diag_free(&one.diag);
    diag_free(&two.diag);
    torch_summary_free(&one.t);
    torch_summary_free(&two.t);
}

/* The same for a kernel-trace record format (core/format_pipe: the format's join and the
 * kernel_stats analysis's): the kernel table, read facts and warnings of a read in two
 * pieces must equal the sequential read's, or the harness aborts. */
static inline void fuzz_split_equal_kernels(const artefact_parser *p, const uint8_t *data, size_t size, size_t from) {
    if (!p->resume_point || !p->open_records_resumed || from >= size) return;
    size_t at = fuzz_split_point(p, data, size, from);
    if (!at) return;
    parse_options opt = {0};
    fuzz_run one, two;
    diag_list tail_diag;
    fuzz_runs_init(&one, &two, &tail_diag);
    format_pipe whole, head, tail;
    bool w = format_pipe_open(&whole, p, p->kind, &opt, "fuzz", &one.k, &one.diag);
    bool h = format_pipe_open(&head, p, p->kind, &opt, "fuzz", &two.k, &two.diag);
    bool t = h && format_pipe_open_resumed(&tail, p, p->kind, &opt, "fuzz", &two.k, &tail_diag, at, data, size);
    if (w && h) {
        p->feed(whole.fmt, data, size);
        format_pipe_finish(&whole);
        bool head_whole = p->feed(head.fmt, data, at);
        if (t) p->feed(tail.fmt, data + at, size - at);
        if (t && head_whole && format_pipe_join(&head, &tail)) {
            format_pipe_finish(&tail);
            diag_move(&two.diag, &tail_diag);
        } else {
            if (head_whole) p->feed(head.fmt, data + at, size - at);
            format_pipe_finish(&head);
        }
        const read_facts *a = &one.k.facts, *b = &two.k.facts;
        bool same = kernel_table_equal(&one.k.kernels, &two.k.kernels) && one.k.complete == two.k.complete &&
                    a->rows_used == b->rows_used && a->n_skips == b->n_skips && a->n_columns == b->n_columns &&
                    fuzz_same_warnings(&one.diag, &two.diag);
        for (size_t i = 0; same && i < a->n_skips; i++) same = a->skipped[i].rows == b->skipped[i].rows;
        if (!same) abort();
    }
    if (w) format_pipe_close(&whole);
    if (h) format_pipe_close(&head);
    if (t) format_pipe_close(&tail);
    diag_free(&tail_diag);
    diag_free(&one.diag);
    diag_free(&two.diag);
    kernel_summary_free(&one.k);
    kernel_summary_free(&two.k);
}

#endif
