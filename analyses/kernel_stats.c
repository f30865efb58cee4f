/* kernel_stats: kernel dispatch records -> per-kernel-name aggregates (kernel_summary).
 *
 * The heuristics only need sums over kernels grouped by name, so every dispatch folds
 * into kernel_table (one entry per distinct name, classified when first seen). Durations
 * are the file's own (DurationNs) when it has them, else end - start: the format decides
 * which, as the reference does, and sends it as duration_ns. */
#include <stdlib.h>

#include "analyses/analysis.h"

typedef struct state {
    kernel_summary *out;
    diag_list *diag;
    const char *label;
} state;

static void *ks_open(const parse_options *opt, const char *label, void *summary, diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->out = summary;
    s->diag = diag;
    s->label = label;
    *s->out = (kernel_summary){.complete = true};
    kernel_table_init(&s->out->kernels);
    return s;
}

static bool ks_consume(void *st, const record *r) {
    state *s = st;
    return kernel_table_add(&s->out->kernels, r->name, r->name_len, r->duration_ns);
}

static void ks_finish(void *st) {
    state *s = st;
    kernel_summary *o = s->out;
    o->complete = !o->facts.truncated;
    if (o->kernels.overflow.dispatches)
        diag_add(s->diag, "%s: more than %u distinct kernel names (or %u MiB of names): %llu dispatches of further "
                 "names count in every total but are not listed by name", s->label, KT_MAX_NAMES, KT_MAX_NAME_BYTES >> 20,
                 (unsigned long long)o->kernels.overflow.dispatches);
}

static void ks_close(void *st) { free(st); }

static read_facts *ks_facts(void *summary) { return &((kernel_summary *)summary)->facts; }

const analysis kernel_stats_analysis = {
    .name = "kernel-stats",
    .wants = REC_BIT(REC_KERNEL_DISPATCH),
    .kind = ARTEFACT_KERNEL_TRACE,
    .open = ks_open,
    .consume = ks_consume,
    .finish = ks_finish,
    .close = ks_close,
    .facts = ks_facts,
};
