/* torch_stats: REC_TRACE_EVENT records -> RunMetrics' torch_summary, the reference's
 * read_torch() rules (see docs/ANALYSIS.md and docs/HEURISTICS.md).
 *
 *   - a later "traceEvents" list replaces the earlier one (TE_EVENTS), and a later
 *     "metadata" object the earlier one (TE_META_OPEN), as in a Python dict;
 *   - a JSON error anywhere, or a root that is not an object, drops the whole profile (TE_END);
 *   - ProfilerStep* events with a dur are steps (default mode: not their GPU-side copy in
 *     gpu_user_annotation; the step count is the number of distinct step names); the mean
 *     step time is their float sum of dur / 1e6 in file order over their number;
 *   - events with ts and dur make the span [min ts, max ts + dur]; those whose cat contains
 *     "cpu_op" case-insensitively (default mode: or is "operator") sum dur, in file order,
 *     into the host busy time;
 *   - default mode: cat "kernel" events (name.strip(), floor(dur * 1000 + 0.5) ns) make a
 *     kernel table, used when the kernel trace has none (collected only until it has rows);
 *   - metadata numbers with number(), pytorch_version / torch_version by Python truthiness.
 *
 * Split reads (core/format_pipe): the second piece's state gets the records after the
 * first's. Minima, maxima, counts and first-seen tables join exactly; float sums depend on
 * order, so until its first TE_EVENTS the second piece keeps the terms of its two sums and
 * the join adds them onto the first piece's sums one by one, as one sequential pass would:
 * results stay bit-identical. Terms are bounded (REPLAY_MAX); past that the state refuses
 * records, can_join declines, and the first piece reads on alone. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "base/py_number.h"
#include "base/text_utf8.h"

#define CAPTURE_CAP (64u * 1024u)      /* what the format keeps of a text (parsers/formats/torch_trace_events.c) */
#define REPLAY_MAX (256u * 1024u)      /* sum terms a second piece keeps: 2 MiB */

enum { M_OTHER, M_TOKENS, M_MFU, M_PYTORCH, M_TORCH, M_STEP, M_HOST, M_NSTEPS, M_COUNT };

static const char *const META_KEYS[M_COUNT] = {"", "tokens_per_sec", "mfu_pct", "pytorch_version",
    "torch_version", "step_time_seconds", "host_busy_fraction", "n_steps"};

typedef struct meta_value {
    opt_num num;             /* number(value) */
    bool truthy, is_str;
    char *str;
} meta_value;

typedef struct terms {
    double *v;
    size_t n, cap;
} terms;

typedef struct state {
    torch_summary *out;
    diag_list *diag;
    const char *label;
    bool seed_compat;
    _Atomic bool *kernel_rows_seen;  /* parse_options.kernel_rows_seen */
    /* traceEvents (of the last "traceEvents" key) */
    bool events_seen;        /* a TE_EVENTS record came (a second piece: its list was replaced) */
    bool events_is_list;
    uint64_t n_steps_seen;   /* ProfilerStep events counted (every rank's copy) */
    double steps_sum;
    kernel_table step_names; /* default mode: distinct ProfilerStep names (the step count) */
    kernel_table kernels;    /* default mode: GPU kernel events, unless the kernel trace has rows */
    uint64_t kernel_names_missed;
    uint64_t steps_unnamed;  /* counted step events whose name was too long to keep: each counts as one */
    uint64_t events_timed, events_untimed, gpu_step_copies;   /* for read_facts */
    bool oom;                /* a table could not grow: step count or kernels are partial */
    bool have_span;
    double lo, hi, cpu;
    /* metadata (of the last "metadata" key) */
    bool meta_seen, meta_is_dict;
    meta_value meta[M_COUNT];
    /* non-finite / over-long metadata numbers (events' are in the TE_END record) */
    uint64_t meta_nonfinite, meta_first_nonfinite, meta_long;
    /* the end of the document */
    bool ended;
    record end;              /* its TE_END record (value copied to end_error) */
    char *end_error;
    /* a second piece's sum terms (see the top of the file) */
    bool terms_full;
    terms step_terms, cpu_terms;
} state;

static bool terms_push(state *s, terms *t, double v) {
    if (s->step_terms.n + s->cpu_terms.n >= REPLAY_MAX) return false;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 1024;
        double *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv) return false;
        t->v = nv;
        t->cap = nc;
    }
    t->v[t->n++] = v;
    return true;
}

static void terms_free(terms *t) { free(t->v); memset(t, 0, sizeof *t); }

static void meta_reset(state *s) {
    for (int i = 0; i < M_COUNT; i++) { free(s->meta[i].str); memset(&s->meta[i], 0, sizeof s->meta[i]); }
}

/* "cpu_op" in s.lower(): only ASCII letters can lower to c, p, u or o, so an ASCII
 * case-insensitive search on the UTF-8 bytes is exact for this needle. */
static bool has_cpu_op(const char *s, size_t n) {
    static const char needle[] = "cpu_op";
    for (size_t i = 0; i + 6 <= n; i++) {
        size_t k = 0;
        while (k < 6 && (s[i + k] | (s[i + k] >= 'A' && s[i + k] <= 'Z' ? 0x20 : 0)) == needle[k]) k++;
        if (k == 6) return true;
    }
    return false;
}

static bool ascii_ieq(const char *s, const char *lower, size_t n) {
    for (size_t i = 0; i < n; i++)
        if ((s[i] | (s[i] >= 'A' && s[i] <= 'Z' ? 0x20 : 0)) != lower[i]) return false;
    return true;
}

/* cat.lower() == "kernel": ASCII, or the KELVIN SIGN (U+212A, which lowers to 'k') first. */
static bool is_kernel_cat(const char *s, size_t n) {
    if (n == 6) return ascii_ieq(s, "kernel", 6);
    return n == 8 && (uint8_t)s[0] == 0xE2 && (uint8_t)s[1] == 0x84 && (uint8_t)s[2] == 0xAA && ascii_ieq(s + 3, "ernel", 5);
}

/* cat.lower() == "operator" (the 2021 Kineto host category; no non-ASCII letter lowers to these). */
static bool is_operator_cat(const char *s, size_t n) { return n == 8 && ascii_ieq(s, "operator", 8); }

/* Whether GPU kernel events are still worth collecting: not in seed mode, and only until the
 * kernel trace (read at the same time) yields a row, after which they would go unused. */
static bool kernels_wanted(const state *s) {
    return !s->seed_compat && !(s->kernel_rows_seen && atomic_load_explicit(s->kernel_rows_seen, memory_order_relaxed));
}

/* A GPU kernel event (default mode): name.strip(), floor(dur * 1000 + 0.5) ns. */
static void add_kernel_event(state *s, const record *r) {
    if (r->trace.flags & TE_NAME_LONG) { s->kernel_names_missed++; return; }
    const char *name = r->name;
    size_t len = r->name_len;
    utf8_strip(&name, &len);
    double x = r->dur_us * 1000.0 + 0.5;
    i128 ns = isfinite(x) ? py_trunc(floor(x)) : 0;
    if (len == 0 || ns <= 0) return;
    if (!kernel_table_add(&s->kernels, name, len, ns)) s->oom = true;
}

/* One event of the current list. false: a second piece's terms are full. */
static bool on_event(state *s, const record *r) {
    unsigned f = r->trace.flags;
    bool keep_terms = !s->events_seen;      /* a second piece, still in the list it began in */
    bool name_str = f & TE_NAME_STR, has_dur = f & TE_DUR, has_ts = f & TE_TS;
    bool step = name_str && r->name_len >= 12 && memcmp(r->name, "ProfilerStep", 12) == 0;
    const char *cat = r->category;
    bool gpu_copy = cat && r->category_len == 19 && memcmp(cat, "gpu_user_annotation", 19) == 0;
    /* default mode: the GPU-side copy of ProfilerStep#N (gpu_user_annotation) is not a step */
    if (step && has_dur && !s->seed_compat && gpu_copy) s->gpu_step_copies++;
    if (step && has_dur && (s->seed_compat || !gpu_copy)) {
        s->n_steps_seen++;
        s->steps_sum += r->dur_us / 1e6;
        if (keep_terms && !terms_push(s, &s->step_terms, r->dur_us / 1e6)) return false;
        if (!s->seed_compat && (f & TE_NAME_LONG)) s->steps_unnamed++;     /* a name beyond CAPTURE_CAP */
        else if (!s->seed_compat && !kernel_table_add(&s->step_names, r->name, r->name_len, 1)) s->oom = true;
    }
    if (cat && name_str && has_dur && !s->seed_compat && is_kernel_cat(cat, r->category_len) && kernels_wanted(s))
        add_kernel_event(s, r);
    if (!has_ts || !has_dur) { s->events_untimed++; return true; }
    s->events_timed++;
    double end = r->ts_us + r->dur_us;
    if (!s->have_span) { s->lo = r->ts_us; s->hi = end; s->have_span = true; }
    else {
        if (r->ts_us < s->lo) s->lo = r->ts_us;
        if (end > s->hi) s->hi = end;
    }
    if (cat && (has_cpu_op(cat, r->category_len) || (!s->seed_compat && is_operator_cat(cat, r->category_len)))) {
        s->cpu += r->dur_us;
        if (keep_terms && !terms_push(s, &s->cpu_terms, r->dur_us)) return false;
    }
    return true;
}

/* A new "traceEvents" value: everything read of the earlier one is forgotten. */
static void on_events(state *s, const record *r) {
    s->events_seen = true;
    s->events_is_list = (r->trace.flags & TE_LIST) != 0;
    s->n_steps_seen = 0;
    s->steps_sum = 0.0;
    s->have_span = false;
    s->cpu = 0.0;
    kernel_table_free(&s->step_names);
    kernel_table_free(&s->kernels);
    kernel_table_init(&s->step_names);
    kernel_table_init(&s->kernels);
    s->kernel_names_missed = s->steps_unnamed = s->events_timed = s->events_untimed = s->gpu_step_copies = 0;
    terms_free(&s->step_terms);
    terms_free(&s->cpu_terms);
}

/* One key of the metadata object: the reference reads only META_KEYS. */
static void on_meta(state *s, const record *r) {
    int k = 0;
    for (int i = 1; i < M_COUNT && !k; i++)
        if (!strcmp(r->key, META_KEYS[i])) k = i;
    if (!k) return;
    unsigned f = r->trace.flags;
    if ((f & TE_NONFINITE) && !s->meta_nonfinite++) s->meta_first_nonfinite = r->line;
    if (f & TE_LONG_NUMBER) s->meta_long++;
    meta_value *m = &s->meta[k];
    free(m->str);
    memset(m, 0, sizeof *m);
    m->num = (opt_num){(r->has & RF_VALUE) != 0, (r->has & RF_VALUE) ? r->number : 0.0};
    m->truthy = (f & TE_TRUTHY) != 0;
    if (f & TE_STRING) {
        m->is_str = true;
        if (!(m->str = strndup(r->value, r->value_len))) s->oom = true;
    }
}

static bool tst_consume(void *st, const record *r) {
    state *s = st;
    unsigned f = r->trace.flags;
    if (f & TE_EVENT) {                       /* (the format sends only a list's events) */
        if (!on_event(s, r)) { s->terms_full = true; return false; }
    } else if (f & TE_EVENTS) on_events(s, r);
    else if (f & TE_META_OPEN) {
        meta_reset(s);
        s->meta_seen = true;
        s->meta_is_dict = (f & TE_DICT) != 0;
    } else if (f & TE_META) {
        if (s->meta_is_dict) on_meta(s, r);
    } else if (f & TE_END) {
        s->ended = true;
        s->end = *r;
        free(s->end_error);
        s->end_error = r->value ? strndup(r->value, r->value_len) : NULL;
        if ((f & TE_OUT_OF_MEMORY) || (r->value && !s->end_error)) s->oom = true;
    }
    return true;
}

static void *tst_open(const parse_options *opt, const char *label, void *summary, diag_list *diag) {
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->out = summary;
    s->diag = diag;
    s->label = label;
    s->seed_compat = opt->seed_compat;
    s->kernel_rows_seen = opt->kernel_rows_seen;
    kernel_table_init(&s->step_names);
    kernel_table_init(&s->kernels);
    memset(s->out, 0, sizeof *s->out);        /* (a summary is freed before it is read again) */
    return s;
}

/* Warnings, the summary and the read facts, from the whole document's records. */
/* The summary from what the records said (tst_finish warns of memory after it, whichever way it
 * ends). */
static void finish_summary(state *s) {
    torch_summary *o = s->out;
    if (!s->ended) return;                    /* the format stopped early: nothing is taken */
    unsigned ef = s->end.trace.flags;
    if (!(ef & TE_VALID)) {
        diag_add(s->diag, "%s: unreadable JSON at byte %llu: %s", s->label, (unsigned long long)s->end.line,
                 s->end_error ? s->end_error : "");
        return;
    }
    if (!(ef & TE_ROOT_OBJECT)) {
        diag_add(s->diag, "%s: the JSON document is not an object (a bare event array has no metadata; "
                 "nothing is taken from it)", s->label);
        return;
    }
    o->complete = true;
    /* events' and metadata's: the first in the file is the one at the smaller offset */
    uint64_t nonfinite = s->end.trace.nonfinite + s->meta_nonfinite;
    uint64_t first = s->end.trace.nonfinite ? s->end.trace.first_nonfinite_at : s->meta_first_nonfinite;
    if (s->end.trace.nonfinite && s->meta_nonfinite && s->meta_first_nonfinite < first) first = s->meta_first_nonfinite;
    if (nonfinite)
        diag_add(s->diag, "%s: %llu non-finite numbers (NaN, Infinity, overflow) taken as missing (first at byte %llu)",
                 s->label, (unsigned long long)nonfinite, (unsigned long long)first);
    uint64_t long_numbers = s->end.trace.long_numbers + s->meta_long;
    if (long_numbers)
        diag_add(s->diag, "%s: %llu numbers longer than %u characters taken as missing", s->label,
                 (unsigned long long)long_numbers, CAPTURE_CAP);
    if (s->meta_is_dict) {
        o->tokens_per_sec = s->meta[M_TOKENS].num;
        o->mfu_pct = s->meta[M_MFU].num;
        meta_value *v = s->meta[M_PYTORCH].truthy ? &s->meta[M_PYTORCH] : &s->meta[M_TORCH];
        if (v->truthy && v->is_str && v->str && !(o->pytorch_version = strdup(v->str))) s->oom = true;
        o->step_time_seconds = s->meta[M_STEP].num;
        o->host_busy_fraction = s->meta[M_HOST].num;
        opt_num n = s->meta[M_NSTEPS].num;
        if (n.has && n.v > 0) o->n_steps = n.v >= 9.2e18 ? INT64_MAX : (int64_t)n.v;
    }
    read_facts *fa = &o->facts;
    fa->step_time_source = o->step_time_seconds.has ? "metadata" : "none";
    if (!s->events_is_list) return;
    static const char *const keys[][2] = {{"name", "name"}, {"category", "cat"}, {"start", "ts"}, {"duration", "dur"}};
    for (size_t k = 0; k < 4; k++) read_facts_column(fa, keys[k][0], keys[k][1]);
    fa->rows_used = s->events_timed;
    read_facts_skip(fa, "no numeric ts or dur", s->events_untimed);
    read_facts_skip(fa, "GPU-side ProfilerStep copy (gpu_user_annotation)", s->gpu_step_copies);
    o->step_events = s->n_steps_seen;
    /* default mode: distinct step names (a merged multi-rank trace has each once per rank) */
    if (s->n_steps_seen) o->profiled_steps = s->seed_compat ? (int64_t)s->n_steps_seen
                                                            : (int64_t)(s->step_names.count + s->step_names.overflow.dispatches + s->steps_unnamed);
    if (!o->step_time_seconds.has) {
        if (s->n_steps_seen) {
            o->step_time_seconds = (opt_num){true, s->steps_sum / (double)s->n_steps_seen};
            fa->step_time_source = "profiler_steps";
        } else if (s->have_span && s->hi > s->lo) {
            o->step_time_seconds = (opt_num){true, (s->hi - s->lo) / 1e6};
            o->step_time_is_span = !s->seed_compat;
            fa->step_time_source = "span";
        }
    }
    kernel_table_free(&o->kernels);
    o->kernels = s->kernels;                  /* moved: the summary owns it now */
    kernel_table_init(&s->kernels);
    if (s->kernel_names_missed)
        diag_add(s->diag, "%s: %llu GPU kernel events not taken as kernels: name longer than %u bytes", s->label,
                 (unsigned long long)s->kernel_names_missed, CAPTURE_CAP);
    if (!o->host_busy_fraction.has && s->have_span && s->hi > s->lo) {
        double f = s->cpu / (s->hi - s->lo);
        o->host_busy_fraction = (opt_num){true, f < 1.0 ? f : 1.0};
    }
}

static void tst_finish(void *st) {
    state *s = st;
    finish_summary(s);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; the step count, the metadata or the GPU kernel events are partial",
                         s->label);
}

static void tst_close(void *st) {
    state *s = st;
    if (!s) return;
    kernel_table_free(&s->step_names);
    kernel_table_free(&s->kernels);
    meta_reset(s);
    terms_free(&s->step_terms);
    terms_free(&s->cpu_terms);
    free(s->end_error);
    free(s);
}

static read_facts *tst_facts(void *summary) { return &((torch_summary *)summary)->facts; }

/* Exact unless the second piece ran out of terms, or its tables cannot take the first's. */
static bool tst_can_join(const void *first, const void *second) {
    const state *a = first, *b = second;
    if (b->terms_full || a->ended) return false;
    return b->events_seen || (kernel_table_can_append(&a->step_names, &b->step_names) &&
                              kernel_table_can_append(&a->kernels, &b->kernels));
}

/* first's records came before second's: second ends up standing for both, in file order. */
static bool tst_join(void *first, void *second) {
    state *a = first, *b = second;
    bool ok = true;
    if (!b->events_seen) {                    /* a's part of the list, then b's, in order */
        if (!kernel_table_append(&a->step_names, &b->step_names) || !kernel_table_append(&a->kernels, &b->kernels))
            ok = false, b->oom = true;        /* reported in finish */
        kernel_table t = b->step_names; b->step_names = a->step_names; a->step_names = t;
        t = b->kernels; b->kernels = a->kernels; a->kernels = t;
        b->events_seen = a->events_seen;
        b->events_is_list = a->events_is_list;
        b->kernel_names_missed += a->kernel_names_missed;
        b->steps_unnamed += a->steps_unnamed;
        b->oom |= a->oom;
        b->events_timed += a->events_timed;
        b->events_untimed += a->events_untimed;
        b->gpu_step_copies += a->gpu_step_copies;
        double steps = a->steps_sum, cpu = a->cpu;
        for (size_t i = 0; i < b->step_terms.n; i++) steps += b->step_terms.v[i];
        for (size_t i = 0; i < b->cpu_terms.n; i++) cpu += b->cpu_terms.v[i];
        b->steps_sum = steps;
        b->cpu = cpu;
        b->n_steps_seen += a->n_steps_seen;
        if (a->have_span) {
            if (!b->have_span) { b->lo = a->lo; b->hi = a->hi; b->have_span = true; }
            else {                            /* the earlier value wins a tie, as in min()/max() */
                b->lo = b->lo < a->lo ? b->lo : a->lo;
                b->hi = b->hi > a->hi ? b->hi : a->hi;
            }
        }
        terms_free(&b->step_terms);
        terms_free(&b->cpu_terms);
    }
    if (!b->meta_seen) {                      /* the metadata a read before the split stands */
        memcpy(b->meta, a->meta, sizeof b->meta);
        memset(a->meta, 0, sizeof a->meta);
        b->meta_is_dict = a->meta_is_dict;
        b->meta_seen = a->meta_seen;
    }
    if (a->meta_nonfinite) b->meta_first_nonfinite = a->meta_first_nonfinite;
    b->meta_nonfinite += a->meta_nonfinite;
    b->meta_long += a->meta_long;
    return ok;
}

const analysis torch_stats_analysis = {
    .name = "torch-stats",
    .wants = REC_BIT(REC_TRACE_EVENT),
    .kind = ARTEFACT_TORCH_PROFILE,
    .open = tst_open,
    .consume = tst_consume,
    .finish = tst_finish,
    .close = tst_close,
    .facts = tst_facts,
    .can_join = tst_can_join,
    .join = tst_join,
};
