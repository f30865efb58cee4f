/* fuzz_common: drives one artefact parser over a fuzzer input the way the reader does,
 * in chunks whose size the input's first byte picks (so chunk boundaries fall
 * everywhere), then runs the heuristics and the JSON rendering on the result. */
#ifndef GOBLIN_FUZZ_COMMON_H
#define GOBLIN_FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "core/metrics_json.h"
#include "core/waste_budget.h"
#include "parsers/artefact.h"
#include "parsers/gunzip.h"

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

/* Parses data with p (through gunzip when gz), then computes and renders RunMetrics. */
static void fuzz_one(const artefact_parser *p, const uint8_t *data, size_t size, bool gz) {
    if (size == 0) return;
    size_t chunk = CHUNKS[data[0] & 7];
    parse_options opt = {.seed_compat = (data[0] & 8) != 0};
    data++;
    size--;
    fuzz_run r;
    memset(&r, 0, sizeof r);
    diag_init(&r.diag);
    void *state = p->open(&opt, "fuzz", fuzz_summary(&r, p->kind), &r.diag);
    if (!state) return;
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
    if (ok) p->finish(state);
    p->close(state);
    run_metrics m;
    memset(&m, 0, sizeof m);
    waste_inputs in = {.kernels = &r.k, .torch = &r.t, .telemetry = &r.s, .seed_compat = opt.seed_compat};
    run_metrics_compute(&in, &m);
    m.warnings = r.diag;
    strbuf out = {0};
    metrics_json_render(&m, 0, &out);
    strbuf_free(&out);
    diag_free(&r.diag);
    kernel_summary_free(&r.k);
    torch_summary_free(&r.t);
    telemetry_summary_free(&r.s);
}

#endif
