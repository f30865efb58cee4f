/* kernel_stats: kernel dispatch records -> per-kernel-name aggregates (kernel_summary).
 *
 * The heuristics only need sums over kernels grouped by name, so every dispatch folds
 * into kernel_table (one entry per distinct name, classified when first seen). Durations
 * are the file's own (DurationNs) when it has them, else end - start: the format decides
 * which, as the reference does, and sends it as duration_ns.
 *
 * The table is the state's own until finish() moves it into the summary, so the two
 * pieces of a split read count apart; integer sums and first-seen order make their join
 * exact (kernel_table_append), unless a piece overflowed the table's caps. */
#include <stdlib.h>

#include "analyses/analysis.h"

typedef struct state {
    kernel_summary *out;
    kernel_table table;
    diag_list *diag;
    const char *label;
    bool oom;
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
    kernel_table_init(&s->table);
    return s;
}

static bool ks_consume(void *st, const record *r) {
    state *s = st;
    return kernel_table_add(&s->table, r->name, r->name_len, r->duration_ns);
}

static void ks_finish(void *st) {
    state *s = st;
    kernel_summary *o = s->out;
    kernel_table_free(&o->kernels);
    o->kernels = s->table;
    kernel_table_init(&s->table);
    o->complete = !o->facts.truncated;
    if (s->oom) diag_oom(s->diag, "%s: out of memory joining the two pieces; kernel statistics are partial", s->label);
    if (o->kernels.overflow.dispatches)
        diag_add(s->diag, "%s: more than %u distinct kernel names (or %u MiB of names): %llu dispatches of further "
                 "names count in every total but are not listed by name", s->label, KT_MAX_NAMES, KT_MAX_NAME_BYTES >> 20,
                 (unsigned long long)o->kernels.overflow.dispatches);
}

static void ks_close(void *st) {
    state *s = st;
    if (!s) return;
    kernel_table_free(&s->table);
    free(s);
}

static bool ks_can_join(const void *first, const void *second) {
    return kernel_table_can_append(&((const state *)first)->table, &((const state *)second)->table);
}

/* first's dispatches came before second's: first's table, then second's appended, ends
 * up in second. */
static bool ks_join(void *first, void *second) {
    state *a = first, *b = second;
    bool ok = kernel_table_append(&a->table, &b->table);
    kernel_table t = b->table;
    b->table = a->table;
    a->table = t;
    if (!ok) b->oom = true;
    return ok;
}

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
    .can_join = ks_can_join,
    .join = ks_join,
};
