/* torch_trace_json: the reference's read_torch() as a stream consumer.
 *
 * Only three places in the document matter: root keys "traceEvents" and "metadata"
 * (the last occurrence wins, as in a Python dict), each event's name/cat/ts/dur, and
 * the metadata numbers. The tokenizer reports nothing below depth 3, so an event's
 * args cost only validation. The summary is committed only when the whole document
 * is valid JSON: the reference discards everything on any decode error.
 *
 * Large traces are read in two pieces (see artefact_parser.join): the second piece
 * starts at an event boundary inside "traceEvents". Its minima and maxima fold in
 * exactly, but float sums depend on their order, so the second piece keeps the terms of
 * its two sums and the join adds them onto the first piece's sums one by one, as one
 * sequential read would: results stay bit-identical. Terms are bounded (REPLAY_MAX);
 * a piece with more declines the join and the first piece reads on alone. */
#include "parsers/torch_trace_json.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/json_tokenizer.h"
#include "parsers/torch_trace_records.h"
#include "base/py_number.h"

#define CAPTURE_CAP (64u * 1024u)
#define REPLAY_MAX (256u * 1024u)   /* sum terms a second piece keeps: 2 MiB */

enum { TOP_OTHER, TOP_EVENTS, TOP_METADATA };
enum { EV_OTHER, EV_NAME, EV_CAT, EV_TS, EV_DUR };
enum { M_OTHER, M_TOKENS, M_MFU, M_PYTORCH, M_TORCH, M_STEP, M_HOST, M_NSTEPS, M_COUNT };

typedef struct meta_value {
    bool seen;
    opt_num num;             /* number(value) */
    bool truthy;
    bool is_str;
    char *str;
} meta_value;

typedef struct terms {
    double *v;
    size_t n, cap;
} terms;

typedef struct state {
    unsigned magic;          /* 0: this summary state; TORCH_RECORDS_MAGIC: a records state */
    jt_tokenizer json;
    torch_summary *out;
    diag_list *diag;
    const char *label;
    bool seed_compat;
    _Atomic bool *kernel_rows_seen;  /* parse_options.kernel_rows_seen */
    int root;                /* 0 unknown, 1 object, 2 other */
    int top;                 /* which root key the current value belongs to */
    /* traceEvents (of the last "traceEvents" key) */
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
    /* the event being read */
    bool in_event;
    int ev_key;
    bool name_is_step, cat_cpu_op;
    bool name_is_str, name_kept, cat_seen, cat_kernel, cat_gpu_copy;
    strbuf name;             /* the event's name, when it may be needed (a step or a kernel) */
    opt_num ts, dur;
    /* metadata (of the last "metadata" key) */
    bool meta_is_dict;
    int meta_key;
    meta_value meta[M_COUNT];
    uint64_t nonfinite, first_nonfinite_off, long_numbers;
    /* a second piece, started at start_offset (see the top of the file) */
    bool resumed;
    uint64_t start_offset;
    bool events_restarted;   /* a later "traceEvents" value replaced the list it began in */
    bool meta_seen;          /* it has read a "metadata" value of its own */
    bool terms_full;         /* more than REPLAY_MAX terms: it cannot be joined */
    terms step_terms, cpu_terms;
} state;

static void terms_push(state *s, terms *t, double v) {
    if (s->terms_full) return;
    if (s->step_terms.n + s->cpu_terms.n >= REPLAY_MAX) { s->terms_full = true; return; }
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 1024;
        double *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv) { s->terms_full = true; return; }
        t->v = nv;
        t->cap = nc;
    }
    t->v[t->n++] = v;
}

static void terms_free(terms *t) { free(t->v); memset(t, 0, sizeof *t); }

static void meta_reset(state *s) {
    for (int i = 0; i < M_COUNT; i++) { free(s->meta[i].str); memset(&s->meta[i], 0, sizeof s->meta[i]); }
}

/* number(v) for a scalar token; non-finite input counts as missing, with a warning. */
static opt_num token_number(state *s, const jt_token *t) {
    opt_num r = {0};
    double v;
    switch (t->kind) {
    case JT_TRUE: r.has = true; r.v = 1.0; return r;
    case JT_FALSE: r.has = true; r.v = 0.0; return r;
    case JT_NUMBER:
        if (t->truncated) { s->long_numbers++; return r; }
        v = jt_strtod(t->text, t->len);
        break;
    case JT_STRING:
        if (t->truncated || !py_float(t->text, t->len, &v)) return r;
        break;
    case JT_NAN: case JT_INFINITY: case JT_NEG_INFINITY:
        v = NAN;
        break;
    default:
        return r;
    }
    if (!isfinite(v)) {
        if (!s->nonfinite++) s->first_nonfinite_off = t->offset;
        return r;
    }
    r.has = true;
    r.v = v;
    return r;
}

static bool token_truthy(const jt_token *t) {
    switch (t->kind) {
    case JT_STRING: return t->len > 0;
    case JT_TRUE: case JT_NAN: case JT_INFINITY: case JT_NEG_INFINITY: return true;
    case JT_NUMBER: return t->truncated || jt_strtod(t->text, t->len) != 0.0;
    default: return false;
    }
}

static int key_id(const char *k, size_t n, const char *const *names, const size_t *lens, int count) {
    for (int i = 1; i < count; i++)
        if (lens[i] == n && memcmp(names[i], k, n) == 0) return i;
    return 0;
}

/* Event keys are compared millions of times: constant-size compares inline. */
static int event_key(const char *k, size_t n) {
    switch (n) {
    case 2: return k[0] == 't' && k[1] == 's' ? EV_TS : EV_OTHER;
    case 3:
        if (k[0] == 'c' && k[1] == 'a' && k[2] == 't') return EV_CAT;
        return k[0] == 'd' && k[1] == 'u' && k[2] == 'r' ? EV_DUR : EV_OTHER;
    case 4: return k[0] == 'n' && k[1] == 'a' && k[2] == 'm' && k[3] == 'e' ? EV_NAME : EV_OTHER;
    default: return EV_OTHER;
    }
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

static const char *const META_KEYS[M_COUNT] = {"", "tokens_per_sec", "mfu_pct", "pytorch_version",
    "torch_version", "step_time_seconds", "host_busy_fraction", "n_steps"};
static const size_t META_KEY_LENS[M_COUNT] = {0, 14, 7, 15, 13, 17, 18, 7};

static void event_begin(state *s) {
    s->in_event = true;
    s->name_is_step = s->cat_cpu_op = false;
    s->name_is_str = s->name_kept = s->cat_seen = s->cat_kernel = s->cat_gpu_copy = false;
    s->ts.has = s->dur.has = false;
    s->ev_key = EV_OTHER;
}

/* A GPU kernel event (default mode): name.strip(), floor(dur * 1000 + 0.5) ns. */
static void add_kernel_event(state *s) {
    if (!s->name_kept) { s->kernel_names_missed++; return; }
    const char *name = s->name.data;
    size_t len = s->name.len;
    py_strip(&name, &len);
    double x = s->dur.v * 1000.0 + 0.5;
    i128 ns = isfinite(x) ? py_trunc(floor(x)) : 0;
    if (len == 0 || ns <= 0) return;
    if (!kernel_table_add(&s->kernels, name, len, ns)) s->oom = true;
}

static void event_end(state *s) {
    s->in_event = false;
    bool keep_terms = s->resumed && !s->events_restarted;
    /* default mode: the GPU-side copy of ProfilerStep#N (gpu_user_annotation) is not a step */
    if (s->name_is_step && s->dur.has && !s->seed_compat && s->cat_gpu_copy) s->gpu_step_copies++;
    if (s->name_is_step && s->dur.has && (s->seed_compat || !s->cat_gpu_copy)) {
        s->n_steps_seen++;
        s->steps_sum += s->dur.v / 1e6;
        if (keep_terms) terms_push(s, &s->step_terms, s->dur.v / 1e6);
        if (!s->seed_compat && !s->name_kept) s->steps_unnamed++;         /* a name beyond CAPTURE_CAP */
        else if (!s->seed_compat && !kernel_table_add(&s->step_names, s->name.data, s->name.len, 1)) s->oom = true;
    }
    if (s->cat_kernel && s->name_is_str && s->dur.has && kernels_wanted(s)) add_kernel_event(s);
    if (!s->ts.has || !s->dur.has) { s->events_untimed++; return; }
    s->events_timed++;
    double end = s->ts.v + s->dur.v;
    if (!s->have_span) { s->lo = s->ts.v; s->hi = end; s->have_span = true; }
    else {
        if (s->ts.v < s->lo) s->lo = s->ts.v;
        if (end > s->hi) s->hi = end;
    }
    if (s->cat_cpu_op) {
        s->cpu += s->dur.v;
        if (keep_terms) terms_push(s, &s->cpu_terms, s->dur.v);
    }
}

/* A value of the current event's current key (depth 3). */
static void event_value(state *s, const jt_token *t) {
    bool scalar = t->kind != JT_OBJECT_BEGIN && t->kind != JT_ARRAY_BEGIN;
    switch (s->ev_key) {
    case EV_NAME:
        s->name_is_str = t->kind == JT_STRING;
        s->name_is_step = s->name_is_str && t->len >= 12 && memcmp(t->text, "ProfilerStep", 12) == 0;
        s->name_kept = false;
        /* kept only when it may count: a step name, or a kernel's (cat kernel or not yet seen) */
        if (s->name_is_str && !t->truncated && !s->seed_compat &&
            (s->name_is_step || ((!s->cat_seen || s->cat_kernel) && kernels_wanted(s)))) {
            s->name.len = 0;
            s->name_kept = utf8_sanitize((const uint8_t *)t->text, t->len, &s->name);
        }
        break;
    case EV_CAT: {
        bool str = t->kind == JT_STRING;
        s->cat_seen = true;
        s->cat_cpu_op = str && (has_cpu_op(t->text, t->len) || (!s->seed_compat && is_operator_cat(t->text, t->len)));
        s->cat_kernel = str && !s->seed_compat && is_kernel_cat(t->text, t->len);
        s->cat_gpu_copy = str && t->len == 19 && memcmp(t->text, "gpu_user_annotation", 19) == 0;
        break;
    }
    case EV_TS: s->ts = scalar ? token_number(s, t) : (opt_num){0}; break;
    case EV_DUR: s->dur = scalar ? token_number(s, t) : (opt_num){0}; break;
    }
    s->ev_key = EV_OTHER;
}

static void meta_value_set(state *s, const jt_token *t) {
    meta_value *m = &s->meta[s->meta_key];
    free(m->str);
    memset(m, 0, sizeof *m);
    m->seen = true;
    if (t->kind == JT_OBJECT_BEGIN || t->kind == JT_ARRAY_BEGIN) return;  /* truthy if non-empty: see on_token */
    m->num = token_number(s, t);
    m->truthy = token_truthy(t);
    if (t->kind == JT_STRING) {
        m->is_str = true;
        m->str = strndup(t->text, t->len);
    }
}

/* Returns false for a key whose value does not matter (it is then only validated). */
static bool on_token(void *user, const jt_token *t) {
    state *s = user;
    if (t->depth == 0) {
        if (t->kind == JT_OBJECT_BEGIN) s->root = 1;
        else if (t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END) s->root = 2;
        return true;
    }
    if (s->root != 1) return false;
    if (t->depth == 1) {
        if (t->kind == JT_KEY) {
            s->top = t->len == 11 && memcmp(t->text, "traceEvents", 11) == 0 ? TOP_EVENTS
                   : t->len == 8 && memcmp(t->text, "metadata", 8) == 0 ? TOP_METADATA : TOP_OTHER;
            return s->top != TOP_OTHER;
        }
        if (t->kind == JT_OBJECT_END || t->kind == JT_ARRAY_END) return true;
        if (s->top == TOP_EVENTS) {                 /* a new traceEvents value replaces the old */
            s->events_is_list = t->kind == JT_ARRAY_BEGIN;
            s->n_steps_seen = 0;
            s->steps_sum = 0.0;
            s->have_span = false;
            s->cpu = 0.0;
            kernel_table_free(&s->step_names);
            kernel_table_free(&s->kernels);
            kernel_table_init(&s->step_names);
            kernel_table_init(&s->kernels);
            s->kernel_names_missed = s->steps_unnamed = s->events_timed = s->events_untimed = s->gpu_step_copies = 0;
            if (s->resumed) { s->events_restarted = true; terms_free(&s->step_terms); terms_free(&s->cpu_terms); }
        } else if (s->top == TOP_METADATA) {
            meta_reset(s);
            s->meta_seen = true;
            s->meta_is_dict = t->kind == JT_OBJECT_BEGIN;
        }
        return true;
    }
    if (s->top == TOP_EVENTS && s->events_is_list) {
        if (t->depth == 2) {
            if (t->kind == JT_OBJECT_BEGIN) event_begin(s);
            else if (t->kind == JT_OBJECT_END && s->in_event) event_end(s);
        } else if (t->depth == 3 && s->in_event) {
            if (t->kind == JT_KEY) return (s->ev_key = event_key(t->text, t->len)) != EV_OTHER;
            if (t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END) event_value(s, t);
        }
    } else if (s->top == TOP_METADATA && s->meta_is_dict) {
        if (t->depth == 2) {
            if (t->kind == JT_KEY) return (s->meta_key = key_id(t->text, t->len, META_KEYS, META_KEY_LENS, M_COUNT)) != M_OTHER;
            if (t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END) meta_value_set(s, t);
        } else if (t->depth == 3) {
            s->meta[s->meta_key].truthy = true;    /* the container value has an element */
        }
    }
    return true;
}

/* A state at the start of the document (open NULL) or before a value inside `open`. */
static state *state_new(const parse_options *opt, const char *label, void *out, diag_list *diag, const char *open,
                        uint64_t offset) {
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->seed_compat = opt->seed_compat;
    s->kernel_rows_seen = opt->kernel_rows_seen;
    kernel_table_init(&s->step_names);
    kernel_table_init(&s->kernels);
    s->out = out;
    s->diag = diag;
    s->label = label;
    bool ok = open ? jt_init_resumed(&s->json, 3, CAPTURE_CAP, on_token, s, open, offset)
                   : jt_init(&s->json, 3, CAPTURE_CAP, on_token, s);
    if (!ok) { jt_free(&s->json); kernel_table_free(&s->step_names); kernel_table_free(&s->kernels); free(s); return NULL; }
    return s;
}

static void *tj_open(const parse_options *opt, const char *label, void *out, diag_list *diag) {
    state *s = state_new(opt, label, out, diag, NULL, 0);
    if (s) memset(s->out, 0, sizeof *s->out);     /* (a summary is freed before it is read again) */
    return s;
}

static void *tj_open_resumed(const parse_options *opt, const char *label, void *out, diag_list *diag, uint64_t offset) {
    /* what a resume point implies: before an event of the root object's "traceEvents" list */
    state *s = state_new(opt, label, out, diag, "{[", offset);
    if (!s) return NULL;
    s->root = 1;
    s->top = TOP_EVENTS;
    s->events_is_list = true;
    s->resumed = true;
    s->start_offset = offset;
    return s;
}

/* A '{' after ",<blanks with a newline>": how trace writers start each event (",\n{" or
 * "},\n  {"). Elsewhere (deeper, or in another list) the join finds out and declines. */
static size_t tj_resume_point(const uint8_t *buf, size_t n) {
    const uint8_t *nl = buf, *end = buf + n;
    while ((nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL) {
        const uint8_t *before = nl, *after = nl + 1;
        while (before > buf && (before[-1] == ' ' || before[-1] == '\t' || before[-1] == '\r')) before--;
        while (after < end && (*after == ' ' || *after == '\t' || *after == '\r' || *after == '\n')) after++;
        if (before > buf && before[-1] == ',' && after < end && *after == '{') return (size_t)(after - buf);
        nl = after;
        if (nl >= end) break;
    }
    return n;
}

/* The records state (open_records, torch_trace_records.c) shares feed/finish/close/join. */
static bool is_records(const void *st) { return *(const unsigned *)st == TORCH_RECORDS_MAGIC; }

static bool tj_join(void *fst, void *snd) {
    if (is_records(fst) != is_records(snd)) return false;
    if (is_records(fst)) return torch_records_join(fst, snd);
    state *a = fst, *b = snd;
    if (b->terms_full || a->root != 1 || a->top != TOP_EVENTS || !a->events_is_list || a->in_event ||
        !jt_is_at(&a->json, "{[", b->start_offset))
        return false;
    if (!b->events_restarted && (!kernel_table_can_append(&a->step_names, &b->step_names) ||
                                 !kernel_table_can_append(&a->kernels, &b->kernels)))
        return false;
    if (!b->events_restarted) {                 /* a's part of the list, then b's, in order */
        /* the tables: a's, then b's dispatches after them (a's tables end up in b) */
        kernel_table t;
        if (!kernel_table_append(&a->step_names, &b->step_names) || !kernel_table_append(&a->kernels, &b->kernels))
            b->oom = true;                      /* reported in finish */
        t = b->step_names; b->step_names = a->step_names; a->step_names = t;
        t = b->kernels; b->kernels = a->kernels; a->kernels = t;
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
            else {                              /* the earlier value wins a tie, as in min()/max() */
                b->lo = b->lo < a->lo ? b->lo : a->lo;
                b->hi = b->hi > a->hi ? b->hi : a->hi;
            }
        }
    }
    if (!b->meta_seen) {                        /* the metadata a read before the split stands */
        memcpy(b->meta, a->meta, sizeof b->meta);
        memset(a->meta, 0, sizeof a->meta);
        b->meta_is_dict = a->meta_is_dict;
    }
    if (a->nonfinite) b->first_nonfinite_off = a->first_nonfinite_off;
    b->nonfinite += a->nonfinite;
    b->long_numbers += a->long_numbers;
    return true;
}

static bool tj_feed(void *st, const uint8_t *buf, size_t n) {
    if (is_records(st)) return torch_records_feed(st, buf, n);
    state *s = st;
    return jt_feed(&s->json, buf, n) && !s->terms_full;
}

static void tj_finish(void *st) {
    if (is_records(st)) { torch_records_finish(st); return; }
    state *s = st;
    torch_summary *o = s->out;
    if (!jt_finish(&s->json)) {
        diag_add(s->diag, "%s: unreadable JSON at byte %llu: %s", s->label,
                 (unsigned long long)jt_error_offset(&s->json), jt_error(&s->json));
        return;
    }
    if (s->root != 1) {
        diag_add(s->diag, "%s: the JSON document is not an object (a bare event array has no metadata; "
                 "nothing is taken from it)", s->label);
        return;
    }
    o->complete = true;
    if (s->nonfinite)
        diag_add(s->diag, "%s: %llu non-finite numbers (NaN, Infinity, overflow) taken as missing (first at byte %llu)",
                 s->label, (unsigned long long)s->nonfinite, (unsigned long long)s->first_nonfinite_off);
    if (s->long_numbers)
        diag_add(s->diag, "%s: %llu numbers longer than %u characters taken as missing", s->label,
                 (unsigned long long)s->long_numbers, CAPTURE_CAP);
    if (s->meta_is_dict) {
        o->tokens_per_sec = s->meta[M_TOKENS].num;
        o->mfu_pct = s->meta[M_MFU].num;
        meta_value *v = s->meta[M_PYTORCH].truthy ? &s->meta[M_PYTORCH] : &s->meta[M_TORCH];
        if (v->truthy && v->is_str) o->pytorch_version = strdup(v->str);
        o->step_time_seconds = s->meta[M_STEP].num;
        o->host_busy_fraction = s->meta[M_HOST].num;
        opt_num n = s->meta[M_NSTEPS].num;
        if (n.has && n.v > 0) o->n_steps = n.v >= 9.2e18 ? INT64_MAX : (int64_t)n.v;
    }
    read_facts *fa = &o->facts;
    fa->step_time_source = o->step_time_seconds.has ? "metadata" : "none";
    if (s->events_is_list) {
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
        o->kernels = s->kernels;                /* moved: the summary owns it now */
        kernel_table_init(&s->kernels);
        if (s->oom) diag_add(s->diag, "%s: out of memory; the step count or the GPU kernel events are partial", s->label);
        if (s->kernel_names_missed)
            diag_add(s->diag, "%s: %llu GPU kernel events not taken as kernels: name longer than %u bytes, or "
                     "before a repeated \"cat\" key", s->label, (unsigned long long)s->kernel_names_missed, CAPTURE_CAP);
        if (!o->host_busy_fraction.has && s->have_span && s->hi > s->lo) {
            double f = s->cpu / (s->hi - s->lo);
            o->host_busy_fraction = (opt_num){true, f < 1.0 ? f : 1.0};
        }
    }
}

static void tj_close(void *st) {
    state *s = st;
    if (!s) return;
    if (is_records(st)) { torch_records_close(st); return; }
    jt_free(&s->json);
    kernel_table_free(&s->step_names);
    kernel_table_free(&s->kernels);
    strbuf_free(&s->name);
    meta_reset(s);
    terms_free(&s->step_terms);
    terms_free(&s->cpu_terms);
    free(s);
}

static const char *const TJ_NAMES[] = {"torch_profile.json", "torch_profile.json.gz", NULL};

/* JSON starts with '{' or '[' after blanks; the gzipped profile is only known by its name. */
static int tj_sniff(const char *name, const uint8_t *head, size_t n) {
    size_t l = strlen(name);
    if (l >= 3 && !strcmp(name + l - 3, ".gz")) return 50;
    for (size_t i = 0; i < n; i++) {
        if (head[i] == '{' || head[i] == '[') return 80;
        if (head[i] != ' ' && head[i] != '\n' && head[i] != '\t' && head[i] != '\r' && head[i] < 0x80) return 0;
    }
    return 50;
}

const artefact_parser torch_trace_json_parser = {
    .name = "torch-trace-json",
    .kind = ARTEFACT_TORCH_PROFILE,
    .names = TJ_NAMES,
    .sniff = tj_sniff,
    .open = tj_open,                 /* RunMetrics' summary (bit-identical to the reference) */
    .open_records = torch_records_open,  /* the analysis document's records */
    .feed = tj_feed,
    .finish = tj_finish,
    .close = tj_close,
    .resume_point = tj_resume_point,
    .open_resumed = tj_open_resumed,
    .join = tj_join,
    .open_records_resumed = torch_records_open_resumed,
};
