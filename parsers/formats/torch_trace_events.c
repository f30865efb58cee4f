/* torch_trace_events: a torch.profiler chrome trace as the reference's read_torch() reads
 * it, as REC_TRACE_EVENT records (see record.h TE_*), for the torch_stats analysis.
 *
 * Only three places in the document matter to the reference: root keys "traceEvents" and
 * "metadata" (each value replaces the earlier one, as in a Python dict), each event's
 * name/cat/ts/dur, and the metadata values. This state reports exactly those, in file
 * order, and computes nothing: which events are steps or kernels, the sums, spans and
 * metadata rules are analyses/summaries/torch_stats.c's. The tokenizer reports nothing below depth
 * 3, so an event's args cost only validation. Numbers are read the reference's way
 * (number(): bools, numeric strings); non-finite and over-long ones are absent and counted
 * in the TE_END record, which also says whether the whole document was valid JSON.
 *
 * A split read (artefact_parser.join) starts the second piece at an event boundary inside
 * "traceEvents"; the join checks the first piece ended exactly there and adds its counts. */
#include "parsers/formats/torch_trace_events.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/py_number.h"
#include "base/strbuf.h"
#include "parsers/tokenizers/json_tokenizer.h"

#define CAPTURE_CAP (64u * 1024u)   /* analyses/summaries/torch_stats.c's warnings name this size */

enum { TOP_OTHER, TOP_EVENTS, TOP_METADATA };
enum { EV_OTHER, EV_NAME, EV_CAT, EV_TS, EV_DUR };

typedef struct state {
    unsigned magic;          /* TORCH_EVENTS_MAGIC (torch_trace_json.c dispatches on it) */
    jt_tokenizer json;
    record_sink sink;
    bool stopped;            /* the sink refused a record */
    int root;                /* 0 unknown, 1 object, 2 other */
    int top;                 /* which root key the current value belongs to */
    bool events_is_list, meta_is_dict;
    /* the event being read */
    bool in_event;
    int ev_key;
    unsigned ev_flags;       /* TE_TS, TE_DUR, TE_NAME_STR, TE_NAME_LONG */
    bool cat_str;
    uint64_t ev_offset;
    strbuf name, cat;
    double ts, dur;
    record ev;               /* the TE_EVENT record, zeroed once: only its event fields change */
    /* the metadata value being read */
    strbuf meta_key, meta_str;
    bool meta_container, meta_nonempty;
    uint64_t meta_offset;
    uint64_t nonfinite, first_nonfinite_off, long_numbers;
    /* a second piece, started at start_offset */
    uint64_t start_offset;
} state;

static void emit(state *s, const record *r) {
    if (!s->stopped && !record_emit(&s->sink, r)) s->stopped = true;
}

/* number(v) for a scalar token. Non-finite or over-long input is absent, and counted in
 * the state's totals, or with meta set flagged in *meta instead (TE_NONFINITE, TE_LONG_NUMBER). */
static bool token_number(state *s, const jt_token *t, double *out, unsigned *meta) {
    double v;
    switch (t->kind) {
    case JT_TRUE: *out = 1.0; return true;
    case JT_FALSE: *out = 0.0; return true;
    case JT_NUMBER:
        if (t->truncated) {
            if (meta) *meta |= TE_LONG_NUMBER;
            else s->long_numbers++;
            return false;
        }
        v = jt_strtod(t->text, t->len);
        break;
    case JT_STRING:
        if (t->truncated || !py_float(t->text, t->len, &v)) return false;
        break;
    case JT_NAN: case JT_INFINITY: case JT_NEG_INFINITY:
        v = NAN;
        break;
    default:
        return false;
    }
    if (!isfinite(v)) {
        if (meta) *meta |= TE_NONFINITE;
        else if (!s->nonfinite++) s->first_nonfinite_off = t->offset;
        return false;
    }
    *out = v;
    return true;
}

/* Python's bool() of a scalar token. */
static bool token_truthy(const jt_token *t) {
    switch (t->kind) {
    case JT_STRING: return t->len > 0;
    case JT_TRUE: case JT_NAN: case JT_INFINITY: case JT_NEG_INFINITY: return true;
    case JT_NUMBER: return t->truncated || jt_strtod(t->text, t->len) != 0.0;
    default: return false;
    }
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

/* The token's text as valid UTF-8 in b (false on allocation failure); NUL-terminated when
 * `terminate` (a metadata key, compared as a C string). */
static bool keep_text(strbuf *b, const jt_token *t, bool terminate) {
    b->len = 0;
    return utf8_sanitize((const uint8_t *)t->text, t->len, b) && (!terminate || strbuf_terminate(b));
}

/* The event's record (every event of a trace: its record is reused, not zeroed each time). */
static void event_end(state *s) {
    s->in_event = false;
    record *r = &s->ev;
    r->line = s->ev_offset;
    r->trace.flags = TE_EVENT | s->ev_flags;
    bool named = s->ev_flags & TE_NAME_STR;
    r->name = named ? (s->name.data ? s->name.data : "") : NULL;
    r->name_len = named ? s->name.len : 0;
    r->category = s->cat_str ? (s->cat.data ? s->cat.data : "") : NULL;
    r->category_len = s->cat_str ? s->cat.len : 0;
    r->has = s->ev_flags & (TE_TS | TE_DUR) ? RF_US_FLOAT : 0;
    r->ts_us = s->ev_flags & TE_TS ? s->ts : 0.0;
    r->dur_us = s->ev_flags & TE_DUR ? s->dur : 0.0;
    emit(s, r);
}

/* A value of the current event's current key (depth 3): the last one of a key wins. */
static void event_value(state *s, const jt_token *t) {
    bool scalar = t->kind != JT_OBJECT_BEGIN && t->kind != JT_ARRAY_BEGIN;
    switch (s->ev_key) {
    case EV_NAME:
        s->ev_flags &= ~(unsigned)(TE_NAME_STR | TE_NAME_LONG);
        if (t->kind == JT_STRING && keep_text(&s->name, t, false)) s->ev_flags |= TE_NAME_STR | (t->truncated ? TE_NAME_LONG : 0);
        break;
    case EV_CAT: s->cat_str = t->kind == JT_STRING && keep_text(&s->cat, t, false); break;
    case EV_TS:
        s->ev_flags &= ~(unsigned)TE_TS;
        if (scalar && token_number(s, t, &s->ts, NULL)) s->ev_flags |= TE_TS;
        break;
    case EV_DUR:
        s->ev_flags &= ~(unsigned)TE_DUR;
        if (scalar && token_number(s, t, &s->dur, NULL)) s->ev_flags |= TE_DUR;
        break;
    }
    s->ev_key = EV_OTHER;
}

/* One metadata key's value: a scalar now, a container at its end (TE_TRUTHY if non-empty). */
static void meta_emit(state *s, const jt_token *t) {
    record r = {0};
    r.type = REC_TRACE_EVENT;
    r.trace.flags = TE_META;
    r.line = s->meta_offset;             /* the key's offset; a scalar's own below */
    r.key = s->meta_key.data ? s->meta_key.data : "";
    if (!t) {
        if (s->meta_nonempty) r.trace.flags |= TE_TRUTHY;
    } else {
        r.line = t->offset;                  /* (where a non-finite value is) */
        if (token_number(s, t, &r.number, &r.trace.flags)) r.has |= RF_VALUE;
        if (token_truthy(t)) r.trace.flags |= TE_TRUTHY;
        if (t->kind == JT_STRING && keep_text(&s->meta_str, t, false)) {
            r.trace.flags |= TE_STRING;
            r.value = s->meta_str.data ? s->meta_str.data : "";
            r.value_len = s->meta_str.len;
        }
    }
    emit(s, &r);
}

/* A root key's value begins (depth 1): a new "traceEvents" or "metadata" replaces the old. */
static void top_value(state *s, const jt_token *t) {
    record r = {0};
    r.type = REC_TRACE_EVENT;
    r.line = t->offset;
    if (s->top == TOP_EVENTS) {
        s->events_is_list = t->kind == JT_ARRAY_BEGIN;
        r.trace.flags = TE_EVENTS | (s->events_is_list ? TE_LIST : 0);
    } else {
        s->meta_is_dict = t->kind == JT_OBJECT_BEGIN;
        r.trace.flags = TE_META_OPEN | (s->meta_is_dict ? TE_DICT : 0);
    }
    emit(s, &r);
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
        if (t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END && s->top != TOP_OTHER) top_value(s, t);
        return true;
    }
    if (s->top == TOP_EVENTS && s->events_is_list) {
        if (t->depth == 2) {
            if (t->kind == JT_OBJECT_BEGIN) {
                s->in_event = true;
                s->ev_key = EV_OTHER;
                s->ev_flags = 0;
                s->cat_str = false;
                s->ev_offset = t->offset;
            } else if (t->kind == JT_OBJECT_END && s->in_event) event_end(s);
        } else if (t->depth == 3 && s->in_event) {
            if (t->kind == JT_KEY) return (s->ev_key = event_key(t->text, t->len)) != EV_OTHER;
            if (t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END) event_value(s, t);
        }
    } else if (s->top == TOP_METADATA && s->meta_is_dict) {
        if (t->depth == 2) {
            if (t->kind == JT_KEY) {
                s->meta_offset = t->offset;
                s->meta_container = false;
                /* (a key with a NUL byte cannot be a C string: it is no key a consumer reads) */
                return !memchr(t->text, 0, t->len) && keep_text(&s->meta_key, t, true);
            }
            if (t->kind == JT_OBJECT_BEGIN || t->kind == JT_ARRAY_BEGIN) { s->meta_container = true; s->meta_nonempty = false; }
            else if (t->kind == JT_OBJECT_END || t->kind == JT_ARRAY_END) { if (s->meta_container) meta_emit(s, NULL); }
            else meta_emit(s, t);
        } else if (t->depth == 3 && t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END) {
            s->meta_nonempty = true;             /* the container value has an element */
        }
    }
    return true;
}

static state *state_new(const record_sink *sink, const char *open, uint64_t offset) {
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = TORCH_EVENTS_MAGIC;
    s->sink = *sink;
    s->ev.type = REC_TRACE_EVENT;
    bool ok = open ? jt_init_resumed(&s->json, 3, CAPTURE_CAP, on_token, s, open, offset)
                   : jt_init(&s->json, 3, CAPTURE_CAP, on_token, s);
    if (!ok) { jt_free(&s->json); free(s); return NULL; }
    return s;
}

void *torch_events_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                        diag_list *diag) {
    (void)opt; (void)label; (void)facts; (void)diag;   /* the analysis writes facts and warnings */
    return state_new(sink, NULL, 0);
}

void *torch_events_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                                read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                                size_t head_n) {
    (void)opt; (void)label; (void)facts; (void)diag; (void)head; (void)head_n;
    /* what a resume point implies: before an event of the root object's "traceEvents" list */
    state *s = state_new(sink, "{[", offset);
    if (!s) return NULL;
    s->root = 1;
    s->top = TOP_EVENTS;
    s->events_is_list = true;
    s->start_offset = offset;
    return s;
}

bool torch_events_join(void *fst, void *snd) {
    state *a = fst;
    return jt_is_at(&a->json, "{[", ((state *)snd)->start_offset) && torch_events_join_state(fst, snd);
}

bool torch_events_join_state(void *fst, void *snd) {
    state *a = fst, *b = snd;
    if (a->stopped || b->stopped || a->root != 1 || a->top != TOP_EVENTS || !a->events_is_list || a->in_event)
        return false;
    if (a->nonfinite) b->first_nonfinite_off = a->first_nonfinite_off;
    b->nonfinite += a->nonfinite;
    b->long_numbers += a->long_numbers;
    return true;
}

jt_tokenizer *torch_events_tokenizer(void *st) { return &((state *)st)->json; }

bool torch_events_stopped(const void *st) { return ((const state *)st)->stopped; }

bool torch_events_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    return jt_feed(&s->json, buf, n) && !s->stopped;
}

void torch_events_finish(void *st) { torch_events_finish_with(st, &((state *)st)->json); }

void torch_events_finish_with(void *st, jt_tokenizer *json) {
    state *s = st;
    record r = {0};
    r.type = REC_TRACE_EVENT;
    r.trace.flags = TE_END;
    if (jt_finish(json)) r.trace.flags |= TE_VALID;
    else { r.line = jt_error_offset(json); r.value = jt_error(json); r.value_len = strlen(r.value); }
    if (s->root == 1) r.trace.flags |= TE_ROOT_OBJECT;
    if (s->name.failed || s->cat.failed || s->meta_key.failed || s->meta_str.failed) r.trace.flags |= TE_OUT_OF_MEMORY;
    r.trace.nonfinite = s->nonfinite;
    r.trace.first_nonfinite_at = s->first_nonfinite_off;
    r.trace.long_numbers = s->long_numbers;
    emit(s, &r);
}

void torch_events_close(void *st) {
    state *s = st;
    if (!s) return;
    jt_free(&s->json);
    strbuf_free(&s->name);
    strbuf_free(&s->cat);
    strbuf_free(&s->meta_key);
    strbuf_free(&s->meta_str);
    free(s);
}
