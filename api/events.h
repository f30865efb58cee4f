/* events: run state changes as Server-Sent Events (GET /events) and webhooks.
 *
 * Every change the tracker reports (api_notify_run) is compared with the run's last known
 * state; a new state becomes one event — created, running, complete, failed, gone or deleted —
 * with the run id and its ETag (a run that completes slower than its series baseline beyond the
 * noise is followed by a `regression` event, api/series.h), numbered with increasing ids (the daemon's start time in ms ×
 * 1000 + a sequence, so ids also increase across restarts). The newest EVENTS_KEPT events are
 * kept in memory: a client reconnecting with Last-Event-ID gets the ones it missed (or a
 * `resync` event when they are no longer kept, or when the id is one not given yet). An open
 * stream is sent `resync` too where it would otherwise have a hole: an event lost for lack of
 * memory, a change that could not be read, or events that left the ring before a slow client
 * got them. One connection watches every run; a stream
 * waiting for events is a suspended connection (no thread), resumed by the next event or by
 * a keep-alive comment every EVENTS_KEEPALIVE_MS. Each event is also queued for the webhooks
 * (webhooks.c), which never block the caller. */
#ifndef GOBLIN_EVENTS_H
#define GOBLIN_EVENTS_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/series_cache.h"
#include "storage/store.h"

#define EVENTS_KEPT 4096
#define EVENTS_KEEPALIVE_MS 15000

typedef struct events events;
typedef struct webhooks webhooks;

/* Loads every stored run's state (so a run already complete at start is not "created").
 * baseline_runs: series_baseline_runs (0: the default); series: the API's verdict cache (NULL:
 * none), which the regression check of each completed run also fills.
 * hooks may be NULL. At most max_streams streams are open at once (max_event_streams): a
 * stream holds a connection slot for as long as its client stays, so beyond that share of
 * the slots GET /events is answered 503 with Retry-After and the connection closes. */
events *events_new(store *st, webhooks *hooks, int max_streams, int baseline_runs, series_cache *series);
/* Thread-safe: re-reads the run and emits an event when its state changed. */
void events_run_changed(events *ev, const char *run_id);
/* Every ~250 ms: resumes idle streams due for a keep-alive. */
void events_tick(events *ev);
/* Ends every stream (resumed, end of stream); call before MHD_stop_daemon. */
void events_stop(events *ev);
void events_free(events *ev);

/* GET /events: queues the stream response on c (last_event_id: the Last-Event-ID header or NULL). */
enum MHD_Result events_stream(events *ev, struct MHD_Connection *c, const char *last_event_id);

#endif
