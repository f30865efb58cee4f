/* rocprof_v1_json: legacy rocprof's (rocprofiler v1) results.json chrome trace -> records.
 *
 * tblextr.py / sqlitedb.py write `{ "traceEvents":[{}` then one process_name "M" event per
 * lane (pid 0 "Markers and Ranges", 1 "COPY", 2 "CPU HIP API", 3 "CPU HSA API", 4 "CPU KFD
 * API", 6 + n "GPU<n>"), then "X" events whose values are strings: "ts" and "dur" are
 * integer microseconds (BeginNs/1000 - start, integer division) and "args" repeats the
 * database row, BeginNs and EndNs included (exact nanoseconds), and "otherData" last. The
 * lanes are known from the process_name events (fixed pids when a file has none). Events
 * are streamed: each becomes a record when its object closes.
 *
 *   GPU<n> lane   -> REC_KERNEL_DISPATCH (device n; queue-id as stream). Kernel events from
 *                    results.txt (args carry KernelName) are written before HIP activity
 *                    ones (args carry proc-id) for the same dispatches: the kind read first
 *                    is kept and the other skipped and counted (in either order), so nothing
 *                    counts twice.
 *   COPY lane     -> REC_MEMORY_COPY (direction from the name; no byte count in the file),
 *                    except `FillBuffer`, a fill: REC_MEMSET
 *   CPU HIP/HSA/KFD API -> REC_API_CALL (HIP, HSA, other)
 *   Markers       -> REC_ANNOTATION
 * Start/end come from args.BeginNs/EndNs when present, else ts/dur x 1000 (µs precision,
 * and the start then is relative to the trace's first timestamp, as rocprof wrote it). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/copy_kind.h"
#include "parsers/tokenizers/csv_rows.h"
#include "parsers/tokenizers/json_tokenizer.h"

#define CAPTURE_CAP (64u * 1024u)
#define MAX_LANES 256

typedef enum { L_UNKNOWN, L_GPU, L_COPY, L_HIP, L_HSA, L_KFD, L_MARKER } lane_kind;
typedef struct lane { int64_t pid; lane_kind kind; int64_t device; } lane;
/* Where a file's kernels come from: results.txt events (args carry KernelName) or HIP activity. */
typedef enum { KS_NONE, KS_RESULTS, KS_ACTIVITY } kernel_source;

typedef struct event {
    char ph;
    bool has_pid, has_tid, has_ts, has_dur, has_begin, has_end, has_queue, kernel_name_arg;
    int64_t pid, tid, queue;
    i128 ts_ns, dur_ns, begin, end;
    strbuf name, label;
    uint64_t offset;
} event;

typedef struct state {
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    jt_tokenizer json;
    char key1[24], key3[24], key4[24];
    bool saw_events, oom;
    lane lanes[MAX_LANES];
    size_t n_lanes;
    event ev;
    bool in_event;
    kernel_source kernels_from;      /* which kind of kernel event was read first */
    uint64_t used, bad_times, unknown_lane, duplicate_kernels, first_bad;
} state;

static void copy_key(char *dst, size_t cap, const jt_token *t) {
    size_t n = t->len < cap - 1 ? t->len : cap - 1;
    memcpy(dst, t->text, n);
    dst[n] = 0;
}

/* A number written as a JSON number or a string ("12", "3.5", "1.5e3"): `scale` x its value,
 * in integer units (ns from µs: 1000; ns: 1), exactly from its decimal text and rounded half
 * away from zero ("12.7" µs is 12,700 ns; integer() first had truncated it to 12,000); a value
 * past 64 bits is refused, never wrapped. */
static bool tok_scaled(const jt_token *t, int64_t scale, i128 *out) {
    assert(scale == 1 || scale == 1000);
    if (t->truncated || (t->kind != JT_NUMBER && t->kind != JT_STRING) || !t->len) return false;
    return csv_rows_decimal_scaled(t->text, t->len, scale == 1000 ? 3 : 0, out);
}

static bool tok_int(const jt_token *t, int64_t *out) {
    i128 v;
    if (!tok_scaled(t, 1, &v) || v < INT64_MIN || v > INT64_MAX) return false;
    *out = (int64_t)v;
    return true;
}

static lane_kind lane_of_label(const char *l, int64_t *device) {
    if (!strncmp(l, "GPU", 3)) {
        char *end;
        long long d = strtoll(l + 3, &end, 10);
        if (end != l + 3 && !*end && d >= 0) { *device = d; return L_GPU; }
    }
    if (!strcmp(l, "COPY")) return L_COPY;
    if (!strcmp(l, "CPU HIP API")) return L_HIP;
    if (!strcmp(l, "CPU HSA API")) return L_HSA;
    if (!strcmp(l, "CPU KFD API")) return L_KFD;
    if (!strcmp(l, "Markers and Ranges")) return L_MARKER;
    return L_UNKNOWN;
}

/* The lane of a pid: from the process_name events, else tblextr.py's fixed pids. */
static lane_kind lane_of_pid(const state *s, int64_t pid, int64_t *device) {
    for (size_t i = 0; i < s->n_lanes; i++)
        if (s->lanes[i].pid == pid) { *device = s->lanes[i].device; return s->lanes[i].kind; }
    if (s->n_lanes) return L_UNKNOWN;
    static const lane_kind FIXED[] = {L_MARKER, L_COPY, L_HIP, L_HSA, L_KFD, L_UNKNOWN};
    if (pid >= 6) { *device = pid - 6; return L_GPU; }
    return pid >= 0 ? FIXED[pid] : L_UNKNOWN;
}

static void event_end(state *s) {
    event *e = &s->ev;
    if (e->ph == 'M') {
        if (e->has_pid && e->label.len && s->n_lanes < MAX_LANES && strbuf_terminate(&e->label)) {
            lane *l = &s->lanes[s->n_lanes++];
            l->pid = e->pid;
            l->device = 0;
            l->kind = lane_of_label(e->label.data, &l->device);
        }
        return;
    }
    if (e->ph != 'X') return;
    int64_t dev = 0;
    lane_kind k = e->has_pid ? lane_of_pid(s, e->pid, &dev) : L_UNKNOWN;
    if (k == L_UNKNOWN) { s->unknown_lane++; return; }
    i128 start, end;
    if (e->has_begin && e->has_end) start = e->begin, end = e->end;
    else if (e->has_ts && e->has_dur) start = e->ts_ns, end = e->ts_ns + e->dur_ns;
    else start = 1, end = 0;
    if (end < start || (k == L_GPU && end == start && e->has_begin)) {
        if (!s->bad_times++) s->first_bad = e->offset;
        return;
    }
    strbuf_terminate(&e->name);
    const char *name = e->name.len ? e->name.data : NULL;
    if (k == L_GPU && !name) { if (!s->bad_times++) s->first_bad = e->offset; return; }
    if (k == L_GPU) {                  /* the first kind of kernel event read wins, whichever it is */
        kernel_source src = e->kernel_name_arg ? KS_RESULTS : KS_ACTIVITY;
        if (s->kernels_from == KS_NONE) s->kernels_from = src;
        else if (src != s->kernels_from) { s->duplicate_kernels++; return; }
    }
    record r = {.line = e->offset, .has = RF_START | RF_END | RF_DURATION, .start_ns = start, .end_ns = end,
                .duration_ns = end - start, .name = name, .name_len = e->name.len};
    switch (k) {
    case L_GPU: r.type = REC_KERNEL_DISPATCH; r.device = dev; r.has |= RF_DEVICE; break;
    case L_COPY:
        if (name && e->name.len == 10 && !memcmp(name, "FillBuffer", 10)) { r.type = REC_MEMSET; break; }
        r.type = REC_MEMORY_COPY;
        r.copy = name ? copy_kind_of_name(name, strlen(name)) : COPY_UNKNOWN;
        break;
    case L_HIP: r.type = REC_API_CALL; r.domain = API_HIP; break;
    case L_HSA: r.type = REC_API_CALL; r.domain = API_HSA; break;
    case L_KFD: r.type = REC_API_CALL; r.domain = API_OTHER; break;
    default: r.type = REC_ANNOTATION; break;
    }
    if (k == L_GPU && e->has_queue) r.stream = e->queue, r.has |= RF_STREAM;
    s->used++;
    if (!record_emit(&s->sink, &r)) s->oom = true;
}

static bool on_token(void *user, const jt_token *t) {
    state *s = user;
    unsigned d = t->depth;
    if (t->kind == JT_KEY) {
        if (d == 1) {
            copy_key(s->key1, sizeof s->key1, t);
            bool events = !strcmp(s->key1, "traceEvents");
            s->saw_events |= events;
            return events;                      /* otherData: validated, not read */
        }
        if (d == 3) copy_key(s->key3, sizeof s->key3, t);
        if (d == 4) copy_key(s->key4, sizeof s->key4, t);
        return true;
    }
    if (strcmp(s->key1, "traceEvents") || d < 2) return true;
    event *e = &s->ev;
    if (d == 2 && t->kind == JT_OBJECT_BEGIN) {
        strbuf n = e->name, l = e->label;
        memset(e, 0, sizeof *e);
        e->name = n, e->label = l;
        e->name.len = e->label.len = 0;
        e->offset = t->offset;
        s->in_event = true;
        return true;
    }
    if (d == 2 && t->kind == JT_OBJECT_END) { if (s->in_event) event_end(s); s->in_event = false; return true; }
    if (!s->in_event || t->kind == JT_OBJECT_BEGIN || t->kind == JT_ARRAY_BEGIN || t->kind == JT_OBJECT_END ||
        t->kind == JT_ARRAY_END)
        return true;
    if (d == 3) {
        if (!strcmp(s->key3, "ph") && t->kind == JT_STRING && t->len == 1) e->ph = t->text[0];
        else if (!strcmp(s->key3, "name") && t->kind == JT_STRING) { e->name.len = 0; strbuf_append(&e->name, t->text, t->len); }
        else if (!strcmp(s->key3, "pid")) e->has_pid = tok_int(t, &e->pid);
        else if (!strcmp(s->key3, "tid")) e->has_tid = tok_int(t, &e->tid);
        else if (!strcmp(s->key3, "ts")) e->has_ts = tok_scaled(t, 1000, &e->ts_ns);
        else if (!strcmp(s->key3, "dur")) e->has_dur = tok_scaled(t, 1000, &e->dur_ns);
    } else if (d == 4 && !strcmp(s->key3, "args")) {
        if (!strcmp(s->key4, "BeginNs")) e->has_begin = tok_scaled(t, 1, &e->begin);
        else if (!strcmp(s->key4, "EndNs")) e->has_end = tok_scaled(t, 1, &e->end);
        else if (!strcmp(s->key4, "KernelName")) e->kernel_name_arg = true;
        else if (!strcmp(s->key4, "queue-id")) e->has_queue = tok_int(t, &e->queue);
        else if (!strcmp(s->key4, "name") && t->kind == JT_STRING) { e->label.len = 0; strbuf_append(&e->label, t->text, t->len); }
    }
    return true;
}

static void *v1j_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                      diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    if (!jt_init(&s->json, 5, CAPTURE_CAP, on_token, s)) { jt_free(&s->json); free(s); return NULL; }
    read_facts_column(facts, "start", "args.BeginNs, else ts (µs)");
    read_facts_column(facts, "end", "args.EndNs, else ts + dur (µs)");
    return s;
}

static bool v1j_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    return jt_feed(&s->json, buf, n) && !s->oom;
}

static void v1j_finish(void *st) {
    state *s = st;
    bool ok = !s->oom && jt_finish(&s->json);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; records are partial", s->label);
    else if (!ok) {
        diag_add(s->diag, "%s: byte %llu: invalid JSON: %s", s->label, (unsigned long long)jt_error_offset(&s->json),
                 jt_error(&s->json));
        s->facts->truncated = true;
    }
    if (!s->saw_events) diag_add(s->diag, "%s: not a rocprof results.json (no \"traceEvents\" array)", s->label);
    if (s->bad_times)
        diag_add(s->diag, "%s: %llu events without a usable time or kernel name ignored (first at byte %llu)", s->label,
                 (unsigned long long)s->bad_times, (unsigned long long)s->first_bad);
    if (s->duplicate_kernels)
        diag_add(s->diag, "%s: %llu %s kernel events skipped: the same dispatches came from %s", s->label,
                 (unsigned long long)s->duplicate_kernels,
                 s->kernels_from == KS_RESULTS ? "HIP activity" : "results.txt",
                 s->kernels_from == KS_RESULTS ? "results.txt" : "HIP activity events read first");
    s->facts->rows_used = s->used;
    read_facts_skip(s->facts, "no usable time, or a kernel without name", s->bad_times);
    read_facts_skip(s->facts, "lane (pid) not a rocprof lane", s->unknown_lane);
    read_facts_skip(s->facts, "kernel already read from the other kind of kernel event", s->duplicate_kernels);
}

static void v1j_close(void *st) {
    state *s = st;
    if (!s) return;
    jt_free(&s->json);
    strbuf_free(&s->ev.name);
    strbuf_free(&s->ev.label);
    free(s);
}

static const char *const V1J_NAMES[] = {"results.json", "*/results.json", NULL};

/* sqlitedb.py's open_json() writes exactly `{ "traceEvents":[{}`. */
static int v1j_sniff(const char *name, const uint8_t *head, size_t n) {
    static const char START[] = "{ \"traceEvents\":[{}";
    if (n >= sizeof START - 1 && !memcmp(head, START, sizeof START - 1)) return 95;
    return !strcmp(name, "results.json") ? 30 : 0;
}

const artefact_parser rocprof_v1_json_parser = {
    .name = "rocprof-v1-json",
    .family = "rocprof",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .kernels = KERNELS_DEVICE_CLOCK,
    .names = V1J_NAMES,
    .sniff = v1j_sniff,
    .open_records = v1j_open,
    .feed = v1j_feed,
    .finish = v1j_finish,
    .close = v1j_close,
};
