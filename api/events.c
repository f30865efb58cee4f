/* events: the run event log, the SSE streams and the hand-off to webhooks. */
#include "api/events.h"
#include "base/clock.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "api/http_send.h"
#include "api/json_text.h"
#include "api/routes.h"
#include "api/series.h"
#include "api/webhooks.h"

typedef struct event {
    uint64_t id;
    char *text;                 /* the SSE message: id, event and data lines, blank line */
} event;

typedef struct sse_conn {
    events *ev;
    struct MHD_Connection *c;
    uint64_t cursor;            /* id of the last event sent */
    bool suspended, resync, started;
    bool lost;                  /* an event was lost (memory): send a resync before event lost_from */
    uint64_t lost_from;
    int64_t last_write_ms;
    char *pending;              /* text being written */
    size_t pending_len, pending_off;
    struct sse_conn *prev, *next;
} sse_conn;

struct events {
    store *st;
    webhooks *hooks;
    pthread_mutex_t lock;
    json_t *known;              /* run id -> its last event kind */
    event ring[EVENTS_KEPT];
    size_t head, count;         /* ring: oldest at (head - count) */
    uint64_t first_id, next_id;
    uint64_t lost_id;           /* events from this id on may be missing (lost_locked; 0: none) */
    bool known_incomplete;      /* `known` lost an entry: a run missing from it may have been known */
    sse_conn *conns;
    int n_streams, max_streams;  /* open now; beyond max_streams new ones get 503 */
    int baseline_runs;          /* series_baseline_runs, for the regression event */
    series_cache *series;       /* the API's verdict cache (NULL: none) */
    bool stopping;
};

/* The event kind of a stored state. "pending" is never sent as such: a new run's first sight
 * is "created", and a finished run whose files changed again is "running" at once. */
static const char *kind_of(run_status st) {
    switch (st) {
    case RUN_PENDING: return "pending";
    case RUN_COMPLETE: return "complete";
    case RUN_FAILED: return "failed";
    case RUN_EMPTY: return "empty";
    case RUN_GONE: return "gone";
    default: return "running";
    }
}

typedef struct row_copy {
    bool found;
    run_status status;
    int64_t ingest_count;
} row_copy;

static void copy_state(void *user, const run_row *row) {
    row_copy *rc = user;
    rc->found = true;
    rc->status = row->status;
    rc->ingest_count = row->ingest_count;
}

static void remember(void *user, const run_row *row) {
    events *ev = user;
    if (json_object_set_new(ev->known, row->id, json_string(kind_of(row->status))) != 0) ev->known_incomplete = true;
}

events *events_new(store *st, webhooks *hooks, int max_streams, int baseline_runs, series_cache *series) {
    events *ev = calloc(1, sizeof *ev);
    if (!ev) return NULL;
    ev->st = st;
    ev->hooks = hooks;
    ev->series = series;
    ev->known = json_object();
    pthread_mutex_init(&ev->lock, NULL);
    ev->first_id = ev->next_id = (uint64_t)clk_wall_ms() * 1000;
    ev->max_streams = max_streams > 0 ? max_streams : 1;
    ev->baseline_runs = baseline_runs > 0 && baseline_runs <= SERIES_BASELINE_MAX ? baseline_runs : SERIES_BASELINE_DEFAULT;
    store_reader *rd = store_reader_acquire(st);
    char next[300];
    if (!ev->known) ev->known_incomplete = true;
    else if (store_list_runs(rd, -1, 1 << 30, NULL, false, remember, ev, next, sizeof next) < 0 || store_reader_failed(rd))
        ev->known_incomplete = true;
    store_reader_release(st, rd);
    return ev;
}

static void iso_now(char *out, size_t n) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char b[32];
    strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, n, "%s.%03dZ", b, (int)(tv.tv_usec / 1000));
}

/* Caller holds the lock: from the event with this id on, one may be missing: it was lost for
 * lack of memory, or a change could not be read, or the known-runs table lost an entry (its
 * run's next event would be lost). Every open stream, and a replay from before id, is sent a
 * resync instead of a stream with a hole. */
static void lost_locked(events *ev, uint64_t id) {
    if (id > ev->lost_id) ev->lost_id = id;
    for (sse_conn *s = ev->conns; s; s = s->next) {
        if (!s->lost || id < s->lost_from) s->lost_from = id;
        s->lost = true;
        if (s->suspended) {
            s->suspended = false;
            MHD_resume_connection(s->c);
        }
    }
}

/* Caller holds the lock: the event {"id", "event", "run", ...extra, "at"} (extra: its other keys,
 * taken; NULL: status and etag) appended to the ring and queued for the webhooks; wakes every
 * waiting stream. */
static void emit_doc_locked(events *ev, const char *kind, const char *run_id, json_t *extra, const char *status,
                            const char *etag) {
    char at[40];
    iso_now(at, sizeof at);
    uint64_t id = ev->next_id++;
    json_t *doc = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "event", kind, "run", run_id);
    bool whole = doc != NULL;   /* every key set: an event with one missing is lost, not sent */
    if (whole && extra) whole = json_object_update(doc, extra) == 0;
    else if (whole) {           /* (not json_pack's "s*": a string it cannot allocate leaves its key out) */
        if (status) whole = json_object_set_new(doc, "status", json_string(status)) == 0;
        if (whole && etag) whole = json_object_set_new(doc, "etag", json_string(etag)) == 0;
    }
    json_decref(extra);
    if (whole) whole = json_object_set_new(doc, "at", json_string(at)) == 0;
    char *data = whole ? json_text(doc, NULL) : NULL;
    json_decref(doc);
    char *text = NULL;
    if (data && asprintf(&text, "id: %llu\nevent: %s\ndata: %s\n\n", (unsigned long long)id, kind, data) < 0) text = NULL;
    if (data && ev->hooks) webhooks_post(ev->hooks, data);
    free(data);
    if (!text) {
        lost_locked(ev, id);
        return;
    }
    event *slot = &ev->ring[ev->head];
    free(slot->text);
    slot->id = id;
    slot->text = text;
    ev->head = (ev->head + 1) % EVENTS_KEPT;
    if (ev->count < EVENTS_KEPT) ev->count++;
    for (sse_conn *s = ev->conns; s; s = s->next)
        if (s->suspended) {
            s->suspended = false;
            MHD_resume_connection(s->c);
        }
}

static void emit_locked(events *ev, const char *kind, const char *run_id, const char *status, const char *etag) {
    emit_doc_locked(ev, kind, run_id, NULL, status, etag);
}

void events_run_changed(events *ev, const char *run_id) {
    if (!ev) return;
    row_copy rc = {0};
    store_reader *rd = store_reader_acquire(ev->st);
    store_get_run(rd, run_id, copy_state, &rc);
    /* a complete run slower than its series baseline beyond the noise (sent after its complete) */
    json_t *regression = rc.found && rc.status == RUN_COMPLETE ? series_regression_of(rd, run_id, ev->baseline_runs, ev->series) : NULL;
    bool failed = store_reader_failed(rd);
    store_reader_release(ev->st, rd);
    if (failed) {           /* not read (memory, I/O): a resync, rather than "deleted" for a run that is there */
        json_decref(regression);
        pthread_mutex_lock(&ev->lock);
        lost_locked(ev, ev->next_id);
        pthread_mutex_unlock(&ev->lock);
        return;
    }
    pthread_mutex_lock(&ev->lock);
    const char *was = json_string_value(json_object_get(ev->known, run_id));
    if (!rc.found) {
        if (was) {
            emit_locked(ev, "deleted", run_id, NULL, NULL);
            json_object_del(ev->known, run_id);
        } else if (ev->known_incomplete) {
            lost_locked(ev, ev->next_id);   /* maybe a known run's "deleted", not sendable without its entry */
        }
    } else {
        const char *kind = kind_of(rc.status);
        char etag[64];
        snprintf(etag, sizeof etag, "\"%lld-%s\"", (long long)rc.ingest_count, store_run_status_name(rc.status));
        if (!was) emit_locked(ev, "created", run_id, store_run_status_name(rc.status), etag);
        /* pending after a final state: its files changed, a new parse is coming */
        bool pending = rc.status == RUN_PENDING;
        if (pending && was && strcmp(was, "pending") && strcmp(was, "running")) kind = "running", pending = false;
        if (!pending && (!was || strcmp(was, kind))) {
            emit_locked(ev, kind, run_id, store_run_status_name(rc.status), etag);
            if (regression) {
                json_object_del(regression, "run");
                emit_doc_locked(ev, "regression", run_id, regression, NULL, NULL);
                regression = NULL;
            }
        }
        /* "pending": its parse is sent as "running". An entry not kept would lose the run's
         * "deleted": a later change of a run not in the table then says resync. */
        if (json_object_set_new(ev->known, run_id, json_string(kind)) != 0) ev->known_incomplete = true;
    }
    pthread_mutex_unlock(&ev->lock);
    json_decref(regression);
}

void events_tick(events *ev) {
    if (!ev) return;
    int64_t now = clk_wall_ms();
    pthread_mutex_lock(&ev->lock);
    for (sse_conn *s = ev->conns; s; s = s->next)
        if (s->suspended && now - s->last_write_ms >= EVENTS_KEEPALIVE_MS) {
            s->suspended = false;
            MHD_resume_connection(s->c);
        }
    pthread_mutex_unlock(&ev->lock);
}

void events_stop(events *ev) {
    if (!ev) return;
    pthread_mutex_lock(&ev->lock);
    ev->stopping = true;
    for (sse_conn *s = ev->conns; s; s = s->next)
        if (s->suspended) {
            s->suspended = false;
            MHD_resume_connection(s->c);
        }
    pthread_mutex_unlock(&ev->lock);
}

void events_free(events *ev) {
    if (!ev) return;
    for (size_t i = 0; i < EVENTS_KEPT; i++) free(ev->ring[i].text);
    json_decref(ev->known);
    pthread_mutex_destroy(&ev->lock);
    free(ev);
}

/* ---- one stream -------------------------------------------------------------------- */

#define RESYNC_TEXT "event: resync\ndata: {\"event\":\"resync\"}\n\n"

/* Caller holds the lock: the text of the events after s->cursor (NULL when none, or when
 * memory ran out: then the same text is tried again on the next call). */
static char *next_text_locked(events *ev, sse_conn *s) {
    size_t oldest = (ev->head + EVENTS_KEPT - ev->count) % EVENTS_KEPT;
    if (ev->count == EVENTS_KEPT && ev->ring[oldest].id > s->cursor + 1) {
        /* the ring moved on past events this stream never got: a resync (a stream that starts
         * with one has it already), then from the oldest kept */
        s->cursor = ev->ring[oldest].id - 1;
        if (s->started || !s->resync) {
            s->lost = true;
            s->lost_from = ev->ring[oldest].id;
        }
    }
    if (!s->started) {
        char *t = strdup(s->resync ? "retry: 2000\n\n" RESYNC_TEXT : "retry: 2000\n\n");
        s->started = t != NULL;
        return t;
    }
    size_t len = 0, cap = 0;
    char *out = NULL;
    for (size_t i = 0; i < ev->count && len < 65536; i++) {
        const event *e = &ev->ring[(oldest + i) % EVENTS_KEPT];
        if (e->id <= s->cursor) continue;
        if (s->lost && e->id >= s->lost_from) break;   /* the events before the loss first */
        size_t n = strlen(e->text);
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *o = realloc(out, cap);
            if (!o) break;
            out = o;
        }
        memcpy(out + len, e->text, n + 1);
        len += n;
        s->cursor = e->id;
    }
    if (!out && s->lost) {              /* an event this stream should have had was lost */
        out = strdup(RESYNC_TEXT);
        s->lost = out == NULL;
    }
    return out;
}

static ssize_t read_stream(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    sse_conn *s = cls;
    events *ev = s->ev;
    pthread_mutex_lock(&ev->lock);
    if (!s->pending) {
        if (ev->stopping) { pthread_mutex_unlock(&ev->lock); return MHD_CONTENT_READER_END_OF_STREAM; }
        s->pending = next_text_locked(ev, s);
        if (!s->pending && clk_wall_ms() - s->last_write_ms >= EVENTS_KEEPALIVE_MS) s->pending = strdup(": keep-alive\n\n");
        s->pending_len = s->pending ? strlen(s->pending) : 0;
        s->pending_off = 0;
        if (!s->pending) {                              /* nothing to say: sleep until an event */
            s->suspended = true;
            MHD_suspend_connection(s->c);
            pthread_mutex_unlock(&ev->lock);
            return 0;
        }
    }
    size_t n = s->pending_len - s->pending_off;
    if (n > max) n = max;
    memcpy(buf, s->pending + s->pending_off, n);
    s->pending_off += n;
    if (s->pending_off == s->pending_len) {
        free(s->pending);
        s->pending = NULL;
    }
    s->last_write_ms = clk_wall_ms();
    pthread_mutex_unlock(&ev->lock);
    return (ssize_t)n;
}

static void free_stream(void *cls) {
    sse_conn *s = cls;
    events *ev = s->ev;
    pthread_mutex_lock(&ev->lock);
    if (s->prev) s->prev->next = s->next;
    else ev->conns = s->next;
    if (s->next) s->next->prev = s->prev;
    ev->n_streams--;
    pthread_mutex_unlock(&ev->lock);
    free(s->pending);
    free(s);
}

enum MHD_Result events_stream(events *ev, struct MHD_Connection *c, const char *last_event_id) {
    pthread_mutex_lock(&ev->lock);
    if (ev->n_streams >= ev->max_streams) {            /* streams hold only their share of the slots */
        int open = ev->n_streams;
        pthread_mutex_unlock(&ev->lock);
        api_close_after_response();                     /* its slot is free again at once */
        char detail[160];
        snprintf(detail, sizeof detail, "%d event streams are open, the most allowed (max_event_streams); retry later",
                 open);
        return api_send_json(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                             json_pack("{s:s, s:s}", "error", "busy", "detail", detail), NULL, 5);
    }
    sse_conn *s = calloc(1, sizeof *s);
    if (!s) { pthread_mutex_unlock(&ev->lock); return MHD_NO; }
    s->ev = ev;
    s->c = c;
    s->last_write_ms = clk_wall_ms();
    s->cursor = ev->next_id - 1;                        /* from now on ... */
    if (last_event_id) {                                /* ... or from where the client left off */
        char *end;
        errno = 0;
        unsigned long long want = strtoull(last_event_id, &end, 10);
        if (!errno && end != last_event_id && !*end && want < ev->next_id) {
            uint64_t oldest = ev->count ? ev->ring[(ev->head + EVENTS_KEPT - ev->count) % EVENTS_KEPT].id : ev->next_id;
            s->cursor = want;
            /* from before this start, or dropped from the ring since, or past one lost for lack of
             * memory: say so */
            s->resync = want + 1 < ev->first_id || (want + 1 < oldest && ev->count == EVENTS_KEPT) ||
                        want < ev->lost_id;
        } else if (!errno && end != last_event_id && !*end) {
            s->resync = true;                           /* an id not given yet (another daemon's, a forged one) */
        }
    }
    ev->n_streams++;
    s->next = ev->conns;
    if (ev->conns) ev->conns->prev = s;
    ev->conns = s;
    pthread_mutex_unlock(&ev->lock);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, read_stream, s, free_stream);
    if (!r) { free_stream(s); return MHD_NO; }
    MHD_add_response_header(r, "Content-Type", "text/event-stream; charset=utf-8");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    enum MHD_Result ret = http_queue(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}
