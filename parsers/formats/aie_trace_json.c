/* aie_trace_json: mlir-aie core traces (trace*.json) as REC_AIE_EVENT records.
 *
 * mlir-aie's parse_trace.py writes a Perfetto-style JSON array: per traced tile one
 * `process_name` metadata event whose args.name labels the tile ("core_trace for tile2,0",
 * "mem_trace for tile2,1", "shim_trace for tile0,0", "memtile_trace for tile0,1"), then
 * B/E events (INSTR_EVENT_0, INSTR_EVENT_1, LOCK_STALL, PORT_RUNNING_0, ...) whose "ts" is
 * an integer count of core clock cycles. Every B or E event becomes one record: track =
 * the tile label normalised (aie_tile_label: "2,0" for a core tile, "mem 2,1", "shim 0,0",
 * "memtile 0,1" for the others; a label without tile coordinates is kept verbatim, an event
 * whose pid has no process_name in the whole file is on "pid N"), name, phase 'B'/'E', cycles,
 * pid/tid. Labels are resolved after the whole trace is read: an event whose pid has no label
 * yet is held (at most MAX_HELD, then emitted on "pid N" with a warning) and emitted at the end
 * under the label its pid got later; a pid's first process_name is its label.
 *
 * The document is read by the streaming tokenizer (never a tree); a "ts" that is not a
 * non-negative integer skips its event, counted, the first one named by byte offset. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parsers/formats/aie_trace_json.h"
#include "parsers/tokenizers/json_tokenizer.h"

#define CAPTURE_CAP 256u
#define MAX_LABELS 4096u          /* process_name labels kept (a tile array has a few hundred) */
#define MAX_HELD (1u << 18)       /* events held for a label not read yet (48 B each, 12 MiB) */

typedef enum { K_OTHER, K_NAME, K_PH, K_PID, K_TID, K_TS, K_ARGS } ev_key;

typedef struct pid_label {
    int64_t pid;
    char *label;
} pid_label;

/* An event of a pid whose process_name was not read yet: emitted at the end of the file. */
typedef struct held_event {
    i128 cycles;
    int64_t pid, tid;
    uint64_t offset;
    uint32_t name_at, name_len;      /* in state.held_names */
    char ph;
    bool has_tid;
} held_event;

typedef struct state {
    record_sink sink;
    diag_list *diag;
    read_facts *facts;
    const char *label;
    jt_tokenizer jt;
    bool failed, oom, not_array;
    ev_key key;              /* the depth-2 key whose value comes next */
    bool in_args, args_name_next;
    /* the event being read */
    strbuf name, args_name;
    char ph;
    bool has_pid, has_tid, has_ts, ts_bad;
    int64_t pid, tid;
    i128 ts;
    uint64_t offset;
    /* tiles */
    pid_label *pids;
    size_t n_pids, cap_pids;
    strbuf track;
    held_event *held;
    size_t n_held, cap_held;
    strbuf held_names;               /* the held events' names (a repeated name is stored once) */
    uint32_t last_name_at;           /* the latest name in held_names */
    uint64_t events, bad_ts, first_bad_offset, labels_dropped, held_over;
} state;

/* Reads an unsigned decimal integer at *p; false when there is none. */
static bool read_int(const char **p, const char *end, long *out) {
    const char *q = *p;
    long v = 0;
    if (q >= end || *q < '0' || *q > '9') return false;
    while (q < end && *q >= '0' && *q <= '9' && v < 100000000) v = v * 10 + (*q++ - '0');
    *p = q;
    *out = v;
    return true;
}

bool aie_tile_label(const char *label, size_t n, strbuf *out) {
    out->len = 0;
    const char *end = label + n, *t = NULL;
    for (const char *p = label; p + 4 <= end; p++)
        if (!strncasecmp(p, "tile", 4)) { t = p; break; }
    long col = 0, row = 0;
    bool ok = false;
    if (t) {
        const char *p = t + 4;
        while (p < end && (*p == ' ' || *p == '(' || *p == '_' || *p == ':')) p++;
        if (read_int(&p, end, &col)) {
            while (p < end && *p == ' ') p++;
            if (p < end && (*p == ',' || *p == '_' || *p == ' ' || *p == 'x')) {
                p++;
                while (p < end && *p == ' ') p++;
                ok = read_int(&p, end, &row);
            }
        }
    }
    if (!ok) return strbuf_append(out, label, n);
    const char *kind = "";
    strbuf low = {0};
    if (!strbuf_append(&low, label, (size_t)(t - label)) || !strbuf_terminate(&low)) { strbuf_free(&low); return false; }
    for (size_t i = 0; i < low.len; i++)
        if (low.data[i] >= 'A' && low.data[i] <= 'Z') low.data[i] = (char)(low.data[i] + 32);
    if (strstr(low.data, "memtile") || strstr(low.data, "mem_tile")) kind = "memtile ";
    else if (strstr(low.data, "shim")) kind = "shim ";
    else if (strstr(low.data, "mem")) kind = "mem ";
    strbuf_free(&low);
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%s%ld,%ld", kind, col, row);
    return strbuf_append(out, buf, (size_t)len);
}

static const char *pid_track(state *s, int64_t pid) {
    for (size_t i = 0; i < s->n_pids; i++)
        if (s->pids[i].pid == pid) return s->pids[i].label;
    return NULL;
}

static void set_pid_label(state *s, int64_t pid, const char *text, size_t n) {
    strbuf lab = {0};
    if (!aie_tile_label(text, n, &lab) || !strbuf_terminate(&lab)) { strbuf_free(&lab); s->oom = true; return; }
    for (size_t i = 0; i < s->n_pids; i++)   /* a pid's first label stays: one tile, whatever the order */
        if (s->pids[i].pid == pid) { strbuf_free(&lab); return; }
    if (s->n_pids >= MAX_LABELS) { strbuf_free(&lab); s->labels_dropped++; return; }
    if (s->n_pids == s->cap_pids) {
        size_t cap = s->cap_pids ? 2 * s->cap_pids : 8;
        pid_label *np = realloc(s->pids, cap * sizeof *np);
        if (!np) { strbuf_free(&lab); s->oom = true; return; }
        s->pids = np;
        s->cap_pids = cap;
    }
    s->pids[s->n_pids++] = (pid_label){pid, lab.data};
}

/* Emits one B/E event (e's name at `name`) on its pid's label, or on "pid N" / "pid ?". */
static void emit_event(state *s, const held_event *e, bool has_pid, const char *name) {
    const char *track = has_pid ? pid_track(s, e->pid) : NULL;
    if (!track) {
        char buf[40];
        int len = has_pid ? snprintf(buf, sizeof buf, "pid %lld", (long long)e->pid) : snprintf(buf, sizeof buf, "pid ?");
        s->track.len = 0;
        if (!strbuf_append(&s->track, buf, (size_t)len) || !strbuf_terminate(&s->track)) { s->oom = true; return; }
        track = s->track.data;
    }
    record r = {.type = REC_AIE_EVENT, .line = e->offset, .name = name, .name_len = e->name_len, .phase = e->ph,
                .track = track, .track_len = strlen(track), .cycles = e->cycles, .has = RF_CYCLES};
    if (has_pid) r.pid = e->pid, r.tid = e->has_tid ? e->tid : 0, r.has |= RF_PID_TID;
    s->events++;
    if (!record_emit(&s->sink, &r)) s->oom = true;
}

/* Holds e (its name is s->name) until the end of the file. false: no room (MAX_HELD or memory). */
static bool hold(state *s, held_event *e) {
    if (s->n_held >= MAX_HELD) return false;
    if (s->n_held == s->cap_held) {
        size_t cap = s->cap_held ? 2 * s->cap_held : 64;
        held_event *v = realloc(s->held, cap * sizeof *v);
        if (!v) return false;
        s->held = v;
        s->cap_held = cap;
    }
    bool same = s->n_held && s->held[s->n_held - 1].name_len == s->name.len &&
                !memcmp(s->held_names.data + s->last_name_at, s->name.data, s->name.len);
    if (!same) {
        if (s->held_names.len + s->name.len >= UINT32_MAX) return false;
        s->last_name_at = (uint32_t)s->held_names.len;
        if (!strbuf_append(&s->held_names, s->name.data, s->name.len)) return false;
    }
    e->name_at = s->last_name_at;
    s->held[s->n_held++] = *e;
    return true;
}

static void end_event(state *s) {
    const char *name = s->name.data ? s->name.data : "";
    if (s->ph == 'M' && !strcmp(name, "process_name") && s->has_pid && s->args_name.len) {
        set_pid_label(s, s->pid, s->args_name.data, s->args_name.len);
        return;
    }
    if ((s->ph != 'B' && s->ph != 'E') || !s->name.len) return;
    if (!s->has_ts || s->ts_bad) {
        if (!s->bad_ts++) s->first_bad_offset = s->offset;
        return;
    }
    assert(s->name.len <= UINT32_MAX);
    held_event e = {.cycles = s->ts, .pid = s->pid, .tid = s->tid, .offset = s->offset,
                    .name_len = (uint32_t)s->name.len, .ph = s->ph, .has_tid = s->has_tid};
    if (s->has_pid && !pid_track(s, s->pid)) {   /* its label may come later in the file */
        if (hold(s, &e)) return;
        s->held_over++;
    }
    emit_event(s, &e, s->has_pid, name);
}

/* The held events, each on the label its pid got (or "pid N"), in file order. */
static void emit_held(state *s) {
    for (size_t i = 0; i < s->n_held && !s->oom; i++)
        emit_event(s, &s->held[i], true, s->held_names.data + s->held[i].name_at);
    s->n_held = 0;
}

static bool parse_int64(const jt_token *t, int64_t *out) {
    if (t->kind != JT_NUMBER || t->is_float || t->truncated || t->len > 18) return false;
    char buf[24];
    memcpy(buf, t->text, t->len);
    buf[t->len] = 0;
    *out = strtoll(buf, NULL, 10);
    return true;
}

/* The token's text is exactly `word` (token text is not NUL-terminated). */
static bool tok_is(const jt_token *t, const char *word) {
    size_t n = strlen(word);
    return t->len == n && !memcmp(t->text, word, n);
}

static bool on_token(void *user, const jt_token *t) {
    state *s = user;
    if (s->oom) return false;
    if (t->depth == 0) {
        if (t->kind != JT_ARRAY_BEGIN && t->kind != JT_ARRAY_END) s->not_array = true;
        return false;
    }
    if (t->depth == 1) {
        if (t->kind == JT_OBJECT_BEGIN) {
            s->name.len = s->args_name.len = 0;
            s->ph = 0;
            s->has_pid = s->has_tid = s->has_ts = s->ts_bad = s->in_args = false;
            s->offset = t->offset;
            s->key = K_OTHER;
        } else if (t->kind == JT_OBJECT_END) {
            end_event(s);
        }
        return false;
    }
    if (t->depth == 2) {
        if (t->kind == JT_KEY) {
            s->key = tok_is(t, "name") ? K_NAME : tok_is(t, "ph") ? K_PH
                   : tok_is(t, "pid") ? K_PID : tok_is(t, "tid") ? K_TID
                   : tok_is(t, "ts") ? K_TS : tok_is(t, "args") ? K_ARGS : K_OTHER;
            return s->key != K_OTHER;
        }
        switch (s->key) {
        case K_NAME:   /* a key given twice keeps its last value, as a JSON object read into a dict */
            s->name.len = 0;
            if (t->kind == JT_STRING && !strbuf_append(&s->name, t->text, t->len)) s->oom = true;
            if (!strbuf_terminate(&s->name)) s->oom = true;
            break;
        case K_PH: if (t->kind == JT_STRING && t->len == 1) s->ph = t->text[0]; break;
        case K_PID: s->has_pid = parse_int64(t, &s->pid); break;
        case K_TID: s->has_tid = parse_int64(t, &s->tid); break;
        case K_TS: {
            int64_t v;
            s->has_ts = true;
            if (parse_int64(t, &v) && v >= 0) s->ts = v;
            else s->ts_bad = true;
            break;
        }
        case K_ARGS:
            if (t->kind == JT_OBJECT_BEGIN) s->in_args = true;
            else if (t->kind == JT_OBJECT_END) s->in_args = false;
            break;
        default: break;
        }
        return false;
    }
    if (t->depth == 3 && s->in_args) {
        if (t->kind == JT_KEY) return (s->args_name_next = tok_is(t, "name"));
        if (s->args_name_next && t->kind == JT_STRING) {
            s->args_name.len = 0;
            if (!strbuf_append(&s->args_name, t->text, t->len)) s->oom = true;
        }
        s->args_name_next = false;
    }
    return false;
}

static void *at_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->diag = diag;
    s->facts = facts;
    s->label = label;
    if (!jt_init(&s->jt, 3, CAPTURE_CAP, on_token, s)) { free(s); return NULL; }
    return s;
}

static bool at_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    if (s->failed) return false;
    if (!jt_feed(&s->jt, buf, n)) {
        s->failed = true;
        diag_add(s->diag, "%s: byte %llu: %s; events after it are not read", s->label,
                 (unsigned long long)jt_error_offset(&s->jt), jt_error(&s->jt));
        return false;
    }
    if (s->not_array) {
        s->failed = true;
        diag_add(s->diag, "%s: byte 0: not a JSON array of trace events (an AIE trace is a bare array)", s->label);
        return false;
    }
    return !s->oom;
}

static void at_finish(void *st) {
    state *s = st;
    if (!s->failed && !jt_finish(&s->jt))
        diag_add(s->diag, "%s: byte %llu: %s (file cut short?); the events before it are kept", s->label,
                 (unsigned long long)jt_error_offset(&s->jt), jt_error(&s->jt));
    emit_held(s);
    if (s->held_over)
        diag_add(s->diag, "%s: more than %u events of pids whose process_name was not read yet; %llu were read on "
                 "\"pid N\" (their tile's label came later)", s->label, MAX_HELD, (unsigned long long)s->held_over);
    if (s->bad_ts)
        diag_add(s->diag, "%s: byte %llu: event \"ts\" is not a non-negative integer cycle count; %llu event(s) skipped",
                 s->label, (unsigned long long)s->first_bad_offset, (unsigned long long)s->bad_ts);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; AIE events are partial", s->label);
    if (s->labels_dropped)
        diag_add(s->diag, "%s: more than %u process_name labels; %llu more ignored (their events are on \"pid N\")",
                 s->label, MAX_LABELS, (unsigned long long)s->labels_dropped);
    s->facts->rows_used = s->events;
    read_facts_skip(s->facts, "ts not an integer cycle count", s->bad_ts);
}

static void at_close(void *st) {
    state *s = st;
    if (!s) return;
    jt_free(&s->jt);
    strbuf_free(&s->name);
    strbuf_free(&s->args_name);
    strbuf_free(&s->track);
    strbuf_free(&s->held_names);
    free(s->held);
    for (size_t i = 0; i < s->n_pids; i++) free(s->pids[i].label);
    free(s->pids);
    free(s);
}

static const char *const AT_NAMES[] = {"trace*.json", NULL};

static bool head_has(const uint8_t *head, size_t n, const char *word) {
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl <= n; i++)
        if (!memcmp(head + i, word, wl)) return true;
    return false;
}

/* Decisive on AIE content (a tile's trace label or an AIE core event in the first bytes of
 * a bare array), 0 otherwise: a torch chrome trace ("traceEvents", aten ops) never scores. */
static int at_sniff(const char *name, const uint8_t *head, size_t n) {
    size_t i = 0;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    if (i == n || head[i] != '[') return 0;
    bool aie = head_has(head, n, "_trace for tile") || head_has(head, n, "INSTR_EVENT_") ||
               (head_has(head, n, "\"process_name\"") && head_has(head, n, "tile"));
    if (!aie) return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return !strncmp(base, "trace", 5) ? 100 : 95;
}

const artefact_parser aie_trace_json_parser = {
    .name = "aie-trace-json",
    .family = "aie",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .names = AT_NAMES,
    .sniff = at_sniff,
    .open_records = at_open,
    .feed = at_feed,
    .finish = at_finish,
    .close = at_close,
};
