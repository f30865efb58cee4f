/* torch_trace_records: a torch.profiler (Kineto) chrome trace as typed records, for the
 * analysis document.
 *
 * RunMetrics reads the profile through torch_trace_events.c's REC_TRACE_EVENT state (and
 * analyses/summaries/torch_stats.c); this state is what the same format's open_records returns to
 * every other sink (record_sink.types not naming REC_TRACE_EVENT), and, for a sink naming
 * both, shares its tokenizer with the events state (torch_trace_both.c). It walks every event of the root object's
 * "traceEvents" list (or of a document that is a bare array of events) and emits, at the
 * event's end (in file order):
 *   cat kernel, mtia_ccp_events         -> REC_KERNEL_DISPATCH
 *   (categories compare case-insensitively; 2021 Kineto's Memcpy/Memset/Runtime/Operator too)
 *   cat gpu_memcpy                      -> REC_MEMORY_COPY (direction from the name / args.kind)
 *   cat gpu_memset                      -> REC_MEMSET
 *   cat cuda_runtime, cuda_driver, hip_*, mtia_runtime -> REC_API_CALL (domain from the name)
 *   cat cpu_op / operator               -> REC_CPU_OP (args = {"Input Dims", "Input type"} JSON)
 *   cat python_function                 -> REC_CPU_OP, category "python_function"
 *   cat user_annotation / gpu_user_annotation, or a ProfilerStep#N name -> REC_ANNOTATION
 *   a device's [memory] instant event   -> REC_ALLOCATION, category "total" (torch_memory.h)
 * and REC_METADATA for deviceProperties (per device), the tracer/runtime versions, the
 * goblin "metadata" dict's pytorch version and distributedInfo's rank and world size: the
 * document around the events is torch_trace_meta.c's (the state both share:
 * torch_trace_records_state.h).
 *
 * Times: ns are computed from the decimal text of ts/dur (microseconds) in fixed point,
 * never through a double; the file's own doubles ride along as RF_US_FLOAT. Only args keys
 * a record uses are reported by the tokenizer; every other value is only validated. */
#include "parsers/formats/torch_trace_records.h"
#include "parsers/formats/torch_trace_records_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/tokenizers/copy_kind.h"
#include "parsers/tokenizers/json_tokenizer.h"
#include "parsers/formats/torch_keys.h"
#include "parsers/formats/torch_memory.h"
#include "parsers/formats/torch_values.h"

/* The record field each args key fills (0: always read). */
static const unsigned ARG_FIELD[] = {
    [A_OTHER] = 0, [A_DEVICE] = RF_DEVICE, [A_STREAM] = RF_STREAM, [A_CORR] = RF_CORRELATION,
    [A_EXTERNAL] = RF_EXTERNAL, [A_GRID] = RF_GRID, [A_BLOCK] = RF_GRID, [A_DIMS] = 0, [A_TYPES] = 0,
    [A_BYTES] = RF_BYTES, [A_KIND] = 0, [A_DEVICE_ID] = RF_VALUE, [A_DEVICE_TYPE] = RF_VALUE,
    [A_TOTAL_ALLOCATED] = RF_VALUE, [A_TOTAL_RESERVED] = RF_VALUE};
#define TR_ARGS_FIELDS (RF_DEVICE | RF_STREAM | RF_CORRELATION | RF_EXTERNAL | RF_GRID | RF_BYTES | RF_VALUE)

/* ts or dur: ns in fixed point; the file's double too when a consumer asks (RF_US_FLOAT). */
static inline __attribute__((always_inline)) void token_time(tr_num *r, const jt_token *t, bool want_double) {
    int64_t ns;
    r->has = false;
    if ((t->kind != JT_NUMBER && t->kind != JT_STRING) || t->truncated) return;
    if (torch_us_short_ns(t->text, t->len, &ns)) r->ns = ns;
    else if (!torch_us_text_ns(t->text, t->len, &r->ns)) return;
    if (want_double) r->us = jt_strtod(t->text, t->len);
    r->has = true;
}

static void args_token(tr_state *s, const jt_token *t) {
    strbuf *b = &s->args;
    unsigned d = s->arg_depth;
    if (b->len > TR_ARGS_MAX) return;   /* too long to keep: dropped at the event's end (bounded memory) */
    bool close = t->kind == JT_OBJECT_END || t->kind == JT_ARRAY_END;
    if (!close && d <= TR_EMIT_DEPTH && s->args_need_comma[d]) sb_putc(b, ',');
    if (!close && d <= TR_EMIT_DEPTH) s->args_need_comma[d] = true;
    switch (t->kind) {
    case JT_OBJECT_BEGIN: case JT_ARRAY_BEGIN:
        sb_putc(b, t->kind == JT_OBJECT_BEGIN ? '{' : '[');
        s->arg_depth++;
        if (s->arg_depth <= TR_EMIT_DEPTH) s->args_need_comma[s->arg_depth] = false;
        break;
    case JT_OBJECT_END: case JT_ARRAY_END:
        sb_putc(b, t->kind == JT_OBJECT_END ? '}' : ']');
        if (s->arg_depth) s->arg_depth--;
        break;
    case JT_KEY:
        torch_json_string(b, t->text, t->len);
        sb_putc(b, ':');
        s->args_need_comma[d] = false;
        break;
    case JT_STRING: torch_json_string(b, t->text, t->len); break;
    case JT_NUMBER: sb_put(b, t->text, t->len); break;
    case JT_TRUE: sb_put(b, "true", 4); break;
    case JT_FALSE: sb_put(b, "false", 5); break;
    default: sb_put(b, "null", 4); break;     /* null, NaN, Infinity: not JSON */
    }
}

static __attribute__((noinline)) void event_begin(tr_state *s, uint64_t offset) {
    s->in_event = true;
    s->hot = true;           /* (called for the events list only, never once stopped) */
    s->ev_key = K_OTHER;
    s->arg_key = A_OTHER;
    s->cat = C_OTHER;
    s->ev_offset = offset;
    s->name.len = s->args.len = s->kind.len = s->cat_len = 0;
    s->ts.has = s->dur.has = false;
    s->ph = 0;
    s->has_pid = s->has_tid = s->has_device = s->has_stream = s->has_corr = s->has_ext = false;
    s->has_bytes = s->has_grid = s->has_block = false;
    s->grid_n = s->block_n = 0;
    s->mem.has_id = s->mem.has_type = s->mem.has_allocated = s->mem.has_reserved = false;
    s->args_comma = false;
}

static api_domain domain_of(int cat, const char *name, size_t n) {
    if (n >= 3 && !memcmp(name, "hip", 3)) return API_HIP;
    if (n >= 3 && !memcmp(name, "hsa", 3)) return API_HSA;
    if (cat == C_DRIVER || (n >= 2 && !memcmp(name, "cu", 2) && (n < 4 || memcmp(name, "cuda", 4)))) return API_CUDA_DRIVER;
    if (n >= 4 && !memcmp(name, "cuda", 4)) return API_CUDA_RUNTIME;
    return API_OTHER;
}

/* A [memory] event: its allocator totals as a REC_ALLOCATION (torch_memory.h) when it is a
 * device's and the sink takes them; false when it gives nothing. */
static bool memory_event(tr_state *s) {
    record r = {.line = s->ev_offset, .name = s->name.data, .name_len = s->name.len, .phase = s->ph};
    if (!s->ts.has || !record_sink_wants(&s->sink, REC_ALLOCATION) || !torch_memory_record(&s->mem, &r)) return false;
    r.has |= RF_START | (s->has_pid && s->has_tid ? RF_PID_TID : 0u);
    r.start_ns = s->ts.ns;
    r.pid = s->pid, r.tid = s->tid;
    tr_emit(s, &r);
    return true;
}

static __attribute__((noinline)) void event_end(tr_state *s) {
    s->in_event = s->hot = false;
    bool step = s->name.len >= 13 && !memcmp(s->name.data, "ProfilerStep#", 13);
    int cat = s->cat;
    record_type type;
    switch (cat) {
    case C_KERNEL: type = REC_KERNEL_DISPATCH; break;
    case C_MEMCPY: type = REC_MEMORY_COPY; break;
    case C_MEMSET: type = REC_MEMSET; break;
    case C_RUNTIME: case C_DRIVER: type = REC_API_CALL; break;
    case C_CPU_OP: case C_PYTHON: type = REC_CPU_OP; break;
    case C_ANNOT: case C_GPU_ANNOT: type = REC_ANNOTATION; break;
    default:
        if (!step) {
            if (!torch_is_memory_event(s->name.data, s->name.len) || !memory_event(s)) s->other_cat++;
            return;
        }
        type = REC_ANNOTATION;
    }
    if (!s->ts.has || (s->ph != 'i' && s->ph != 'I' && !s->dur.has)) { s->untimed++; return; }
    /* s->rec: zero from calloc, and every field an event sets is set on each one (a value or
     * 0, what `record r = {0}` gave): zeroing the 464-byte record per event was a rep stos,
     * ~half of this function's time. */
    record *r = &s->rec;
    r->type = type;
    r->line = s->ev_offset;
    r->name = s->name.len ? s->name.data : NULL;
    r->name_len = s->name.len;
    r->category = s->cat_len ? s->cat_text : NULL;
    r->category_len = s->cat_len;
    r->phase = s->ph;
    unsigned has = RF_START | (s->sink.fields & RF_US_FLOAT);
    r->start_ns = s->ts.ns;
    r->ts_us = s->ts.us;
    if (s->dur.has) {
        has |= RF_END | RF_DURATION;
        r->duration_ns = s->dur.ns;
        r->end_ns = s->ts.ns + s->dur.ns;
        r->dur_us = s->dur.us;
    } else {
        r->duration_ns = r->end_ns = 0;
        r->dur_us = 0;
    }
    bool pt = s->has_pid && s->has_tid;
    has |= (pt ? RF_PID_TID : 0) | (s->has_device ? RF_DEVICE : 0) | (s->has_stream ? RF_STREAM : 0) |
           (s->has_corr ? RF_CORRELATION : 0) | (s->has_ext ? RF_EXTERNAL : 0) | (s->has_bytes ? RF_BYTES : 0);
    r->pid = pt ? s->pid : 0;
    r->tid = pt ? s->tid : 0;
    r->device = s->has_device ? s->device : 0;
    r->stream = s->has_stream ? s->stream : 0;
    r->correlation_id = s->has_corr ? s->corr : 0;
    r->external_id = s->has_ext ? s->ext : 0;
    r->bytes = s->has_bytes ? s->bytes : 0;
    if (s->grid_n == 3 && s->block_n == 3) {
        has |= RF_GRID;
        memcpy(r->grid, s->grid, sizeof r->grid);
        memcpy(r->workgroup, s->block, sizeof r->workgroup);
    } else {
        memset(r->grid, 0, sizeof r->grid);
        memset(r->workgroup, 0, sizeof r->workgroup);
    }
    r->has = has;
    r->copy = (copy_kind)0;
    if (type == REC_MEMORY_COPY) {
        r->copy = copy_kind_of_name(s->name.data, s->name.len);
        if (r->copy == COPY_UNKNOWN && s->kind.len) r->copy = copy_kind_of_name(s->kind.data, s->kind.len);
    }
    r->domain = type == REC_API_CALL ? domain_of(cat, s->name.data, s->name.len) : (api_domain)0;
    r->args = NULL;
    r->args_len = 0;
    if (type == REC_CPU_OP && s->args.len && s->args.len < TR_ARGS_MAX) {
        strbuf_putc(&s->args, '}');
        r->args = s->args.data;
        r->args_len = s->args.len;
    }
    tr_emit(s, r);
}

/* The tokens inside an event object (depth 3 and deeper), one small function per kind so
 * that on_token stays a few tests and a tail call (one function holding all of them spilled
 * every callee-saved register on each of the ~25 tokens an event reports). */

/* A member key of the event object: whether its value is wanted (false: the tokenizer
 * skips it unreported; fields no consumer reads are only validated, record_sink.fields). */
static __attribute__((noinline)) bool ev_key_token(tr_state *s, const jt_token *t) {
    int k = event_key(t->text, t->len);
    if ((k == K_PID || k == K_TID) && !(s->sink.fields & RF_PID_TID)) k = K_OTHER;
    if (k == K_ARGS && !(s->sink.fields & TR_ARGS_FIELDS) && s->cat != C_CPU_OP && s->cat != C_MEMCPY && s->cat_len)
        k = K_OTHER;                              /* (a CPU op's shapes and a copy's kind are always read) */
    s->ev_key = k;
    return k != K_OTHER;
}

/* A member value of the event object, one handler per key (on_token calls the one of
 * s->ev_key; each then forgets the key). The end of a container value comes to v_other,
 * except args' own end (v_args: ev_key stays K_ARGS until the next key). */
typedef bool (*value_fn)(tr_state *s, const jt_token *t);
static bool v_other(tr_state *s, const jt_token *t) { (void)t; s->ev_key = K_OTHER; return true; }
static bool v_name(tr_state *s, const jt_token *t) {
    if (t->kind == JT_STRING) {              /* valid text (nearly every name): one copy, no calls */
        s->name.len = 0;
        if (utf8_valid((const uint8_t *)t->text, t->len)) sb_put(&s->name, t->text, t->len);
        else utf8_sanitize((const uint8_t *)t->text, t->len, &s->name);
    }
    s->ev_key = K_OTHER;
    return true;
}
static bool v_cat(tr_state *s, const jt_token *t) {
    if (t->kind == JT_STRING) {
        const char *lit;
        s->cat = cat_id(t->text, t->len, &lit);
        if (lit) { s->cat_text = lit; s->cat_len = t->len; }
        else { put_text(&s->catname, t); s->cat_text = s->catname.data; s->cat_len = s->catname.len; }
    }
    s->ev_key = K_OTHER;
    return true;
}
static bool v_ts(tr_state *s, const jt_token *t) {
    token_time(&s->ts, t, s->sink.fields & RF_US_FLOAT);
    s->ev_key = K_OTHER;
    return true;
}
static bool v_dur(tr_state *s, const jt_token *t) {
    token_time(&s->dur, t, s->sink.fields & RF_US_FLOAT);
    s->ev_key = K_OTHER;
    return true;
}
static bool v_ph(tr_state *s, const jt_token *t) {
    s->ph = t->kind == JT_STRING && t->len == 1 ? t->text[0] : 0;
    s->ev_key = K_OTHER;
    return true;
}
static bool v_pid(tr_state *s, const jt_token *t) { s->has_pid = torch_i64(t, &s->pid); s->ev_key = K_OTHER; return true; }
static bool v_tid(tr_state *s, const jt_token *t) { s->has_tid = torch_i64(t, &s->tid); s->ev_key = K_OTHER; return true; }
static bool v_args(tr_state *s, const jt_token *t) {
    if (t->kind != JT_OBJECT_BEGIN && t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END)
        s->ev_key = K_OTHER;                       /* (args not an object) */
    return true;
}
static const value_fn VALUE_FN[] = {[K_OTHER] = v_other, [K_NAME] = v_name, [K_CAT] = v_cat, [K_TS] = v_ts,
                                    [K_DUR] = v_dur, [K_PH] = v_ph, [K_PID] = v_pid, [K_TID] = v_tid, [K_ARGS] = v_args};

/* A key of the event's args object: whether its value is wanted. The operator shapes keys
 * start their member of the args text. */
static inline bool arg_key_token(tr_state *s, const jt_token *t) {
    int k = args_key(t->text, t->len);
    if (k != A_OTHER && k != A_DIMS && k != A_TYPES && k != A_KIND && !(s->sink.fields & ARG_FIELD[k])) k = A_OTHER;
    s->arg_key = k;
    if ((k == A_DIMS || k == A_TYPES) && s->args.len <= TR_ARGS_MAX) {
        sb_putc(&s->args, s->args.len ? ',' : '{');
        torch_json_string(&s->args, t->text, t->len);
        sb_putc(&s->args, ':');
        s->arg_depth = 0;
        s->args_need_comma[0] = false;
    }
    return k != A_OTHER;
}

/* A token of the event's args object itself (depth 4): a key, a wanted key's value, or the
 * object's end. (kind is read here, apart from depth: a test of both at once in on_token
 * was compiled to one 8-byte load of the two 4-byte fields the tokenizer had just stored,
 * which the CPU cannot forward from those stores: a stall on every args token.) */
static __attribute__((noinline)) bool arg4_token(tr_state *s, const jt_token *t) {
    int64_t v;
    if (t->kind == JT_KEY) return arg_key_token(s, t);
    if (t->kind == JT_OBJECT_END) return true;
    switch (s->arg_key) {
    case A_DEVICE: s->has_device = torch_i64(t, &s->device); break;
    case A_STREAM: s->has_stream = torch_i64(t, &s->stream); break;
    case A_CORR: if ((s->has_corr = torch_i64(t, &v) && v >= 0)) s->corr = (uint64_t)v; break;
    case A_EXTERNAL: if ((s->has_ext = torch_i64(t, &v) && v >= 0)) s->ext = (uint64_t)v; break;
    case A_BYTES: if ((s->has_bytes = torch_i64(t, &v) && v >= 0)) s->bytes = (uint64_t)v; break;
    case A_KIND: put_text(&s->kind, t); break;
    case A_DEVICE_ID: case A_DEVICE_TYPE: case A_TOTAL_ALLOCATED: case A_TOTAL_RESERVED:
        torch_memory_arg(&s->mem, s->arg_key, t);
        break;
    case A_DIMS: case A_TYPES: args_token(s, t); break;
    default: break;
    }
    return true;
}

/* A token inside a value of the event's args object (depth 5 and deeper). */
static __attribute__((noinline)) bool arg_deep_token(tr_state *s, const jt_token *t) {
    int64_t v;
    /* deeper: inside an args value */
    if (s->arg_key == A_DIMS || s->arg_key == A_TYPES) { args_token(s, t); return true; }
    if (t->depth == 5 && (s->arg_key == A_GRID || s->arg_key == A_BLOCK)) {
        uint32_t *dst = s->arg_key == A_GRID ? s->grid : s->block;
        unsigned *n = s->arg_key == A_GRID ? &s->grid_n : &s->block_n;
        if (t->kind == JT_ARRAY_END) return true;
        if (*n < 3 && torch_i64(t, &v) && v >= 0 && v <= UINT32_MAX) dst[(*n)++] = (uint32_t)v;
        else *n = 4;                              /* not three sizes: no grid */
    }
    return true;
}

/* A token inside an event object (depth 3 and deeper); for a JT_KEY, whether its value is
 * wanted. */
static inline __attribute__((always_inline)) bool event_token(tr_state *s, const jt_token *t) {
    if (t->depth == 3) return t->kind == JT_KEY ? ev_key_token(s, t) : VALUE_FN[s->ev_key](s, t);
    if (s->ev_key != K_ARGS) return true;
    return t->depth == 4 ? arg4_token(s, t) : arg_deep_token(s, t);
}

/* Every token outside the events (and the events' own when on_token's hot path does not
 * apply): the document's root, its top-level keys, deviceProperties, metadata. */
static __attribute__((noinline)) bool on_token_other(tr_state *s, const jt_token *t) {
    if (s->stopped) return false;
    if (t->depth == 0) {
        if (t->kind == JT_OBJECT_BEGIN) s->root = 1;
        else if (t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END) s->root = 2;
        return true;
    }
    if (s->root != 1) return false;
    if (t->depth == 1) return torch_records_root_token(s, t);
    switch (s->top) {
    case T_EVENTS:
        if (!s->events_is_list) return false;
        if (t->depth == 2) {
            if (t->kind == JT_OBJECT_BEGIN) event_begin(s, t->offset);
            else if (t->kind == JT_OBJECT_END && s->in_event) event_end(s);
            return true;
        }
        return s->in_event ? event_token(s, t) : true;
    default:
        return torch_records_doc_token(s, t);
    }
}

/* The tokenizer's callback. The tokens of the events' list (nearly all of a trace) take a
 * short path: two tests, then event_token inline; everything else goes to on_token_other. */
static bool on_token(void *user, const jt_token *t) {
    tr_state *s = user;
    if (t->depth > 2 && s->hot) return event_token(s, t);
    if (t->depth == 2 && s->list) {          /* an event's bounds (what on_token_other does there) */
        if (t->kind == JT_OBJECT_BEGIN) event_begin(s, t->offset);
        else if (t->kind == JT_OBJECT_END && s->in_event) event_end(s);
        return true;
    }
    return on_token_other(s, t);
}

void *torch_records_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                         diag_list *diag) {
    (void)opt;
    tr_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = TORCH_RECORDS_MAGIC;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    if (!jt_init(&s->json, TR_EMIT_DEPTH, TR_CAPTURE_CAP, on_token, s)) { jt_free(&s->json); free(s); return NULL; }
    return s;
}

void *torch_records_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                                 read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                                 size_t head_n) {
    (void)opt; (void)head; (void)head_n;
    tr_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = TORCH_RECORDS_MAGIC;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    /* what a resume point implies: before an event of the root object's "traceEvents" list */
    if (!jt_init_resumed(&s->json, TR_EMIT_DEPTH, TR_CAPTURE_CAP, on_token, s, "{[", offset)) {
        jt_free(&s->json);
        free(s);
        return NULL;
    }
    s->root = 1;
    s->top = T_EVENTS;
    s->events_is_list = s->list = true;
    s->resumed = true;
    s->start_offset = offset;
    return s;
}

bool torch_records_join(void *first, void *second) {
    tr_state *a = first, *b = second;
    if (a->stopped || a->root != 1 || a->top != T_EVENTS || !a->events_is_list || a->in_event ||
        !jt_is_at(&a->json, "{[", b->start_offset))
        return false;
    b->bare_array = a->bare_array;    /* (the implied root's end is then second's to add) */
    b->emitted += a->emitted;
    b->untimed += a->untimed;
    b->other_cat += a->other_cat;
    b->facts = a->facts;              /* the second state now writes the file's facts */
    a->facts = NULL;
    return true;
}

/* Before the first non-blank byte: a '[' there makes the document a bare array of events,
 * read as if it were the value of a root object's "traceEvents" (the tokenizer restarts
 * there inside an implied '{', so offsets stay the file's and a split read's pieces join as
 * for an object). */
static bool see_shape(tr_state *s, const uint8_t *buf, size_t n, size_t *skip) {
    size_t i = 0;
    *skip = 0;
    while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t')) i++;
    if (i == n) { s->fed += n; return true; }
    s->shape_known = true;
    if (buf[i] != '[') return true;
    jt_free(&s->json);
    if (!jt_init_resumed(&s->json, TR_EMIT_DEPTH, TR_CAPTURE_CAP, on_token, s, "{", s->fed + i)) {
        s->stopped = true;
        return false;
    }
    s->bare_array = true;
    s->root = 1;
    s->top = T_EVENTS;
    *skip = i;
    return true;
}

jt_tokenizer *torch_records_tokenizer(void *st) { return &((tr_state *)st)->json; }

bool torch_records_stopped(const void *st) { return ((const tr_state *)st)->stopped; }

bool torch_records_feed(void *st, const uint8_t *buf, size_t n) {
    tr_state *s = st;
    size_t skip = 0;
    if (!s->shape_known && !s->resumed && !see_shape(s, buf, n, &skip)) return false;
    return jt_feed(&s->json, buf + skip, n - skip) && !s->stopped;
}

void torch_records_finish(void *st) {
    tr_state *s = st;
    if (s->bare_array && !s->stopped) jt_feed(&s->json, (const uint8_t *)"}", 1);   /* the implied root's end */
    bool lost = s->name.failed || s->catname.failed || s->args.failed || s->kind.failed;  /* a text cut short */
    for (size_t k = 0; k < TR_DEVICE_PROPS; k++) lost |= s->dp_value[k].failed;
    if (s->stopped) diag_oom(s->diag, "%s: out of memory; records after byte %llu are missing", s->label,
                             (unsigned long long)s->ev_offset);
    else if (lost) diag_oom(s->diag, "%s: out of memory; some events' names or arguments are cut", s->label);
    if (s->stopped) {
    } else if (!jt_finish(&s->json)) {
        diag_add(s->diag, "%s: unreadable JSON at byte %llu: %s; the records before it were kept", s->label,
                 (unsigned long long)jt_error_offset(&s->json), jt_error(&s->json));
        if (s->facts) s->facts->truncated = true;
    } else if (s->root != 1)
        diag_add(s->diag, "%s: the JSON document is neither an object nor an array of events; no records", s->label);
    if (!s->facts) return;
    s->facts->rows_used = s->emitted;
    read_facts_skip(s->facts, "no numeric ts or dur", s->untimed);
    read_facts_skip(s->facts, "category not analysed", s->other_cat);
}

void torch_records_close(void *st) {
    tr_state *s = st;
    if (!s) return;
    jt_free(&s->json);
    strbuf_free(&s->name);
    strbuf_free(&s->catname);
    strbuf_free(&s->args);
    strbuf_free(&s->kind);
    for (size_t k = 0; k < TR_DEVICE_PROPS; k++) strbuf_free(&s->dp_value[k]);
    free(s);
}
