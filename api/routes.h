/* routes: the endpoints of the API and the helpers they share with http_api.c.
 * Internal to api/. */
#ifndef GOBLIN_ROUTES_H
#define GOBLIN_ROUTES_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdint.h>

#include "api/body_stream.h"
#include "api/http_api.h"
#include "api/metrics_cache.h"
#include "api/series_cache.h"
#include "base/text_utf8.h"

/* Per-request state (MHD's con_cls); lives from the first call to completion. */
typedef struct api_request {
    api *api;
    double t0;                   /* monotonic seconds at the first call */
    unsigned status;             /* status of the response queued */
    bool is_delete;              /* method DELETE (allowed on /runs/<id> only) */
    /* long poll */
    bool waiting, suspended;
    bool poll_counted;           /* counted in the api's open long polls (until completion) */
    bool reserved;               /* on a slot kept for /healthz and /readyz (conn_guard.h) */
    char wait_run[130];
    int64_t deadline_ms, recheck_ms;
    struct MHD_Connection *conn;
    struct api_request *prev, *next;
} api_request;

/* Helpers the route files share (routes.c). */
#define ROUTE_MAX_WAIT_S 60          /* ?wait= at most (seconds) */
#define ROUTE_RECHECK_MS 2000        /* a long poll looks again this often */
#define ROUTE_RETRY_AFTER_S 2        /* Retry-After of a busy or not-yet answer */
/* Query argument key, NULL when absent. */
const char *route_arg(struct MHD_Connection *c, const char *key);
/* Integer query argument key in [lo, hi] (dflt when absent); false when malformed. */
bool route_int_arg(struct MHD_Connection *c, const char *key, long lo, long hi, long dflt, long *out);
/* Whether an If-None-Match value (a tag list, or *) names etag. */
bool route_etag_matches(const char *inm, const char *etag);
/* 404 for an unknown run, or 503 when the read that found nothing found the database corrupt. */
enum MHD_Result route_no_such_run(api *a, struct MHD_Connection *c);
/* The store could not be read whole for this request (store_reader_failed), so "not found" or
 * a partial answer would be wrong: 503 when the database is corrupt (as route_no_such_run),
 * else 500 (memory, I/O). */
enum MHD_Result route_read_failed(api *a, struct MHD_Connection *c);
/* A run's directory and root as stored (the caller frees both). */
typedef struct route_run_paths {
    bool found;
    char *path, *root;
} route_run_paths;
/* Reads run id's paths into *p; false when the store could not be read or the copies failed
 * (memory): the caller answers route_read_failed, not "not found" or "gone". */
bool route_get_run_paths(api *a, const char *id, route_run_paths *p);
/* ?wait=N for a run not discovered yet: true when the request now waits (suspended until the
 * run's first change or the recheck; the handler runs again), false when the wait is over (or
 * was 0) and the caller answers 404. */
bool route_wait_for_run(api *a, api_request *req, struct MHD_Connection *c, const char *id, long wait);

/* GET /runs: a page of runs, newest first (runs_route.c). */
enum MHD_Result route_runs(api *a, struct MHD_Connection *c);
/* GET /runs/<id>: the run's fields, warnings, artefacts and sources (runs_route.c). */
enum MHD_Result route_run(api *a, api_request *req, struct MHD_Connection *c, const char *id);
/* GET /series and /series/<key> (series_route.c). */
enum MHD_Result route_series(api *a, struct MHD_Connection *c, const char *url);
/* series_baseline_runs: how many runs a series baseline pools. */
int api_series_baseline(api *a);
/* The series verdicts computed so far, shared by every request (series_cache.h). */
series_cache *api_series_cache(api *a);
enum MHD_Result routes_dispatch(api *a, api_request *req, struct MHD_Connection *c, const char *url);

/* http_api.c */
int64_t api_now_ms(void);
store *api_store(api *a);
metrics_cache *api_cache(api *a);
struct events *api_events(api *a);
bool api_ready(api *a);
bool api_stopping(api *a);
enum MHD_Result api_send_json(struct MHD_Connection *c, unsigned status, json_t *body, const char *etag, int retry_after);
enum MHD_Result api_send_text(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
                              const char *etag, int retry_after);
enum MHD_Result api_send_body(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
                              const char *content_type);
/* The /metrics exposition text into out; false when it could not be read whole (prometheus_render). */
bool api_prometheus(api *a, bool openmetrics, strbuf *out);
/* After a DELETE forgot a run: drops its cache entry, wakes its long polls, logs. */
void api_report_deleted(api *a, const char *run_id);
/* The next response queued on this thread closes its connection (Connection: close). */
void api_close_after_response(void);
/* The set of streamed bodies (api/body_stream.h). */
body_streams *api_streams(api *a);
/* The set of per-kernel export bodies (api/kernel_export_route.c), bounded apart. */
struct parse_limits;
body_streams *api_export_streams(api *a);
/* The bounds of an export that reads a run's files again, as the ingest's are now:
 * max_parse_mb, and max_parse_s in max_seconds with no deadline set (the export starts its
 * clock where it reads without writing to the client: a slow client's reading is not
 * parsing) and no cancel (the caller's stream gives it: the client gone, the daemon stopping). */
void api_export_limits(api *a, struct parse_limits *lim);
/* Queues a response built by the caller (common headers added) and releases it. */
enum MHD_Result api_send_response(struct MHD_Connection *c, unsigned status, struct MHD_Response *r);
/* Same, with Content-Type content_type. */
enum MHD_Result api_send_response_typed(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
                                        const char *content_type);
/* api/kernel_export_route.c: GET /runs/<id>/kernels.csv (jsonl false) and kernels.jsonl. */
enum MHD_Result route_kernel_export(api *a, struct MHD_Connection *c, const char *id, bool jsonl);
/* Sends a malloc'd body and frees it. */
enum MHD_Result api_send_owned(struct MHD_Connection *c, unsigned status, char *body, size_t len, const char *etag);
/* Same, with a `Goblind-Run-Status: <run_status>` header: the state of the run whose
 * RunMetrics the body is, so an agent need not read the warnings to know it failed. */
enum MHD_Result api_send_run_owned(struct MHD_Connection *c, unsigned status, char *body, size_t len, const char *etag,
                                   const char *run_status);
/* A malloc'd body of content_type (e.g. text/markdown) with its ETag and Goblind-Run-Status. */
enum MHD_Result api_send_typed_owned(struct MHD_Connection *c, unsigned status, char *body, size_t len, const char *etag,
                                     const char *run_status, const char *content_type);
enum MHD_Result api_send_error(struct MHD_Connection *c, unsigned status, const char *error, const char *detail);
/* 405 with an Allow header (allow: the methods the path takes). */
enum MHD_Result api_send_not_allowed(struct MHD_Connection *c, const char *allow);
/* Suspends the connection until api_notify_run(run_id), its deadline, or a re-check. false
 * (nothing suspended) when the server is stopping, when long polls already hold their share of
 * the connection slots, or on a reserved slot: the caller answers now. */
bool api_wait(api *a, api_request *req, struct MHD_Connection *c, const char *run_id);

#endif
