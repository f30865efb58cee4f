/* torch_trace_both: one read of a torch profile for two consumers, from one tokenizer: the
 * typed records of torch_trace_records.c (the analysis document's sections) and the
 * REC_TRACE_EVENT records of torch_trace_events.c (RunMetrics' torch_stats summary).
 *
 * torch_trace_json.c hands this state out to a sink naming REC_TRACE_EVENT and typed types:
 * the daemon's ingest, where core/source_read fans the run driver's sink and RunMetrics'
 * passenger out of one format state (core/run_ingest), so the trace is tokenized once.
 *
 * The typed state's tokenizer (emit depth 12) calls both states' token callbacks, and each
 * state sees exactly the tokens its own tokenizer would report to it: tokens deeper than its
 * emit depth (the events state's is 3) are held back, and so is the value of a key it
 * declined while the other state wanted it (the tokenizer skips a value only when both
 * decline). Both tokenizers capture the same 64 KiB of a text, so texts and truncation flags
 * are the same; validation and error offsets are the tokenizer's own, not the callbacks'.
 *
 * A document whose first non-blank byte is not '{' (a bare array of events, which the typed
 * state reads by restarting its tokenizer inside an implied object; a BOM; not JSON) is read
 * by the two states apart, each through its own tokenizer: rare, and the same as two reads. */
#include "parsers/formats/torch_trace_both.h"

#include <assert.h>
#include <stdlib.h>

#include "parsers/formats/torch_trace_events.h"
#include "parsers/formats/torch_trace_records.h"

enum { MODE_UNKNOWN, MODE_SHARED, MODE_APART };

/* One consumer of the shared tokenizer's tokens: its own callback and what it is not shown. */
typedef struct side {
    jt_callback cb;
    void *user;
    unsigned emit_depth;     /* its own tokenizer's: deeper tokens are not its */
    bool skipping;           /* it declined a key the other side wanted: the value is held back */
    unsigned skip_at;        /* ... the key's depth (the value's first and last tokens are there) */
} side;

typedef struct both {
    unsigned magic;          /* TORCH_BOTH_MAGIC */
    void *rec, *ev;          /* torch_trace_records.c's and torch_trace_events.c's states */
    side r, e;
    int mode;
    bool rec_done, ev_done;  /* read apart: that state wants no more */
} both;

/* What one side makes of token t: -1 held back from it, else its callback's answer. */
static inline __attribute__((always_inline)) int side_see(side *s, const jt_token *t) {
    if (s->skipping) {
        /* the declined value: its first token, everything deeper, and a container's end */
        if (t->depth == s->skip_at && t->kind != JT_OBJECT_BEGIN && t->kind != JT_ARRAY_BEGIN) s->skipping = false;
        return -1;
    }
    if (t->depth > s->emit_depth) return -1;
    return s->cb(s->user, t) ? 1 : 0;
}

/* The shared tokenizer's callback: a key's value is reported while either side wants it. */
static bool mux_token(void *user, const jt_token *t) {
    both *b = user;
    /* below the events state's depth (an event's args: most tokens), only the typed state's */
    if (t->depth > b->e.emit_depth && !b->r.skipping) return b->r.cb(b->r.user, t);
    int r = side_see(&b->r, t), e = side_see(&b->e, t);
    if (t->kind != JT_KEY) return true;
    if (r <= 0 && e <= 0) return false;       /* the tokenizer skips it: neither is shown it */
    if (r == 0) { b->r.skipping = true; b->r.skip_at = t->depth; }
    if (e == 0) { b->e.skipping = true; b->e.skip_at = t->depth; }
    return true;
}

static side side_of(jt_tokenizer *j) { return (side){.cb = j->cb, .user = j->user, .emit_depth = j->emit_depth}; }

/* The two states, the typed one's tokenizer calling both; NULL (both closed) when one is NULL. */
static both *both_new(void *rec, void *ev, int mode) {
    both *b = rec && ev ? calloc(1, sizeof *b) : NULL;
    if (!b) {
        if (rec) torch_records_close(rec);
        if (ev) torch_events_close(ev);
        return NULL;
    }
    b->magic = TORCH_BOTH_MAGIC;
    b->rec = rec;
    b->ev = ev;
    b->mode = mode;
    jt_tokenizer *rj = torch_records_tokenizer(rec);
    b->r = side_of(rj);
    b->e = side_of(torch_events_tokenizer(ev));
    rj->cb = mux_token;
    rj->user = b;
    return b;
}

void *torch_both_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                      diag_list *diag) {
    return both_new(torch_records_open(opt, label, sink, facts, diag), torch_events_open(opt, label, sink, NULL, diag),
                    MODE_UNKNOWN);
}

void *torch_both_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                              read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                              size_t head_n) {
    /* (a resume point is inside the root object's "traceEvents": shared from the start) */
    return both_new(torch_records_open_resumed(opt, label, sink, facts, diag, offset, head, head_n),
                    torch_events_open_resumed(opt, label, sink, NULL, diag, offset, head, head_n), MODE_SHARED);
}

/* The document's first non-blank byte is known: shared, or each state its own tokenizer. */
static void decide(both *b, bool shared) {
    b->mode = shared ? MODE_SHARED : MODE_APART;
    if (shared) return;
    jt_tokenizer *rj = torch_records_tokenizer(b->rec);
    rj->cb = b->r.cb;
    rj->user = b->r.user;
}

static bool feed_apart(both *b, const uint8_t *buf, size_t n) {
    if (!b->rec_done && !torch_records_feed(b->rec, buf, n)) b->rec_done = true;
    if (!b->ev_done && !torch_events_feed(b->ev, buf, n)) b->ev_done = true;
    return !(b->rec_done && b->ev_done);
}

bool torch_both_feed(void *st, const uint8_t *buf, size_t n) {
    both *b = st;
    if (b->mode == MODE_UNKNOWN) {
        size_t i = 0;
        while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t')) i++;
        if (i == n) return feed_apart(b, buf, n);   /* blanks: no token yet, both tokenizers take them */
        decide(b, buf[i] == '{');
    }
    if (b->mode == MODE_APART) return feed_apart(b, buf, n);
    /* (a '{' document: the typed state's shape check has nothing to do, its tokenizer is fed) */
    bool ok = jt_feed(torch_records_tokenizer(b->rec), buf, n);
    return ok && !(torch_records_stopped(b->rec) && torch_events_stopped(b->ev));
}

bool torch_both_join(void *fst, void *snd) {
    both *a = fst, *b = snd;
    if (a->mode != MODE_SHARED || b->mode != MODE_SHARED || a->r.skipping || a->e.skipping) return false;
    /* the typed state's join checks the shared tokenizer stands where b began */
    return torch_records_join(a->rec, b->rec) && torch_events_join_state(a->ev, b->ev);
}

void torch_both_finish(void *st) {
    both *b = st;
    if (b->mode == MODE_UNKNOWN) decide(b, false);     /* blanks only, or nothing */
    torch_records_finish(b->rec);
    if (b->mode == MODE_SHARED) torch_events_finish_with(b->ev, torch_records_tokenizer(b->rec));
    else torch_events_finish(b->ev);
}

void torch_both_close(void *st) {
    both *b = st;
    if (!b) return;
    assert(b->magic == TORCH_BOTH_MAGIC);
    torch_records_close(b->rec);
    torch_events_close(b->ev);
    free(b);
}
