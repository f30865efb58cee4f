/* routes: the dispatch of every endpoint; GET /healthz, /readyz, /runs/<id>/metrics,
 * /runs/<id>/kernels, /compare, /metrics, DELETE /runs/<id> (/runs and /runs/<id>:
 * runs_route.c; /runs/<id>/analysis and /report.md: doc_routes.c; /series: series_route.c).
 * Every answer is JSON; errors are {"error": code, "detail": text}. */
#include "api/routes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compare.h"
#include "api/compare_diff.h"
#include "api/doc_routes.h"
#include "api/events.h"
#include "api/kernels_body.h"
#include "storage/run_gauges.h"
#include "base/json_writer.h"
#include "core/run_files.h"
#include "storage/retention.h"
#include "api/npu_reference_route.h"
#include "storage/run_analysis.h"

const char *route_arg(struct MHD_Connection *c, const char *key) {
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

/* Integer query argument in [lo, hi]; dflt when absent. false when malformed: digits only
 * (strtol alone would take "%205", " 5", "+5" and "5\n"). */
bool route_int_arg(struct MHD_Connection *c, const char *key, long lo, long hi, long dflt, long *out) {
    const char *v = route_arg(c, key);
    if (!v) { *out = dflt; return true; }
    if (!*v || strspn(v, "0123456789") != strlen(v)) return false;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) return false;
    *out = x;
    return true;
}

/* See routes.h: a long poll for a run not discovered yet. */
bool route_wait_for_run(api *a, api_request *req, struct MHD_Connection *c, const char *id, long wait) {
    if (wait <= 0 || api_stopping(a) || store_corruption(api_store(a))) return false;
    int64_t now = api_now_ms();
    if (!req->waiting) {
        req->waiting = true;
        req->deadline_ms = now + wait * 1000;
    }
    req->recheck_ms = now + ROUTE_RECHECK_MS;
    return now < req->deadline_ms && api_wait(a, req, c, id);
}

/* 404, unless the read that found nothing is the one that found the database corrupt. */
enum MHD_Result route_no_such_run(api *a, struct MHD_Connection *c) {
    const char *corrupt = store_corruption(api_store(a));
    if (corrupt) return api_send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "database_corrupt", corrupt);
    return api_send_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no run with this id");
}

typedef struct paths_copy {
    route_run_paths *p;
    bool oom;
} paths_copy;

static void copy_paths(void *user, const run_row *row) {
    paths_copy *pc = user;
    pc->p->found = true;
    pc->p->path = row->path ? strdup(row->path) : NULL;
    pc->p->root = row->root ? strdup(row->root) : NULL;
    pc->oom = (row->path && !pc->p->path) || (row->root && !pc->p->root);
}

bool route_get_run_paths(api *a, const char *id, route_run_paths *p) {
    memset(p, 0, sizeof *p);
    paths_copy pc = {p, false};
    store_reader *rd = store_reader_acquire(api_store(a));
    store_get_run(rd, id, copy_paths, &pc);
    bool ok = !store_reader_failed(rd) && !pc.oom;
    store_reader_release(api_store(a), rd);
    if (!ok) {
        free(p->path), free(p->root);
        memset(p, 0, sizeof *p);
    }
    return ok;
}

enum MHD_Result route_read_failed(api *a, struct MHD_Connection *c) {
    const char *corrupt = store_corruption(api_store(a));
    if (corrupt) return api_send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "database_corrupt", corrupt);
    return api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
                          "the store could not be read whole (out of memory or an I/O error); try again");
}

/* ---- /runs/<id> --------------------------------------------------------------------- */

typedef struct run_copy {
    bool found;
    bool oom;                    /* the metrics body could not be copied */
    run_status status;
    int64_t ingest_count;
    char *metrics_json;
} run_copy;

static void etag_of(const run_copy *r, char *out, size_t n) {
    snprintf(out, n, "\"%lld-%s\"", (long long)r->ingest_count, store_run_status_name(r->status));
}

static void copy_row(void *user, const run_row *row) {
    run_copy *rc = user;
    rc->found = true;
    rc->status = row->status;
    rc->ingest_count = row->ingest_count;
    rc->metrics_json = row->metrics_json ? strdup(row->metrics_json) : NULL;
    rc->oom = row->metrics_json && !rc->metrics_json;
}

/* ---- /runs/<id>/metrics ------------------------------------------------------------- */

bool route_etag_matches(const char *inm, const char *etag) {
    if (!inm) return false;
    if (!strcmp(inm, "*")) return true;
    const char *p = strstr(inm, etag);                 /* a list of tags, possibly weak */
    return p != NULL;
}

static enum MHD_Result get_metrics(api *a, api_request *req, struct MHD_Connection *c, const char *id) {
    long wait;
    if (!route_int_arg(c, "wait", 0, ROUTE_MAX_WAIT_S, 0, &wait))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "wait must be an integer from 0 to 60 (seconds)");
    run_copy rc = {0};
    cached_run hit;
    if (metrics_cache_get(api_cache(a), id, &hit)) {            /* the common case: no SQLite */
        rc = (run_copy){.found = true, .status = hit.status, .ingest_count = hit.ingest_count, .metrics_json = hit.body};
    } else {
        uint64_t version = metrics_cache_version(api_cache(a), id);   /* before the read: see metrics_cache.h */
        store_reader *rd = store_reader_acquire(api_store(a));
        store_get_run(rd, id, copy_row, &rc);
        bool failed = store_reader_failed(rd) || rc.oom;
        store_reader_release(api_store(a), rd);
        if (failed) {
            free(rc.metrics_json);
            return route_read_failed(a, c);
        }
        /* Only final answers are kept: a pending or running run's next state is written by the
         * status writer before the tracker's notification drops the entry, and in between
         * /runs/<id> (read from the store) would already say what a cached 202 does not. */
        if (rc.found && rc.metrics_json &&
            (rc.status == RUN_COMPLETE || rc.status == RUN_FAILED || rc.status == RUN_EMPTY || rc.status == RUN_GONE)) {
            cached_run put = {rc.status, rc.ingest_count, rc.metrics_json, rc.metrics_json ? strlen(rc.metrics_json) : 0};
            metrics_cache_put(api_cache(a), id, &put, version);
        }
    }
    if (!rc.found) {
        free(rc.metrics_json);
        if (route_wait_for_run(a, req, c, id, wait)) return MHD_YES;             /* not discovered yet */
        return route_no_such_run(a, c);
    }
    char etag[64];
    etag_of(&rc, etag, sizeof etag);
    const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    bool final = (rc.status == RUN_COMPLETE || rc.status == RUN_FAILED || rc.status == RUN_EMPTY || rc.status == RUN_GONE) &&
                 rc.metrics_json;
    int64_t now = api_now_ms();
    if (wait > 0 && !api_stopping(a)) {
        /* Without If-None-Match the poll waits for a final answer; with it, for any new
         * version. Either way one request replaces the agent's polling loop. */
        if (!req->waiting) {
            req->waiting = true;
            req->deadline_ms = now + wait * 1000;
        }
        /* gone without metrics: nothing will ever come, so 410 now rather than at the deadline */
        bool answer_now = inm ? !route_etag_matches(inm, etag) : final || rc.status == RUN_GONE;
        req->recheck_ms = now + ROUTE_RECHECK_MS;
        if (!answer_now && now < req->deadline_ms && api_wait(a, req, c, id)) {
            free(rc.metrics_json);
            return MHD_YES;
        }
    }
    enum MHD_Result ret;
    if (final) {
        if (route_etag_matches(inm, etag)) ret = api_send_text(c, MHD_HTTP_NOT_MODIFIED, "", 0, etag, 0);
        else {
            /* A failed run's RunMetrics is still sent (its warnings say why), but not as 200:
             * its numbers are not a measurement. 422 plus Goblind-Run-Status (docs/API.md). */
            unsigned code = rc.status == RUN_FAILED ? 422u : MHD_HTTP_OK;
            ret = api_send_run_owned(c, code, rc.metrics_json, strlen(rc.metrics_json), etag, store_run_status_name(rc.status));
            rc.metrics_json = NULL;                   /* the response owns it now */
        }
    } else if (rc.status == RUN_GONE) {
        ret = api_send_error(c, MHD_HTTP_GONE, "gone", "the run directory was deleted before it was parsed");
    } else {
        ret = api_send_json(c, MHD_HTTP_ACCEPTED,
                            json_pack("{s:s, s:s}", "status", store_run_status_name(rc.status), "detail",
                                      "the run is still being written or parsed; retry, or use ?wait=SECONDS"),
                            etag, ROUTE_RETRY_AFTER_S);
    }
    free(rc.metrics_json);
    return ret;
}

/* ---- /runs/<id>/kernels ------------------------------------------------------------- */

/* Above this many rows the body is streamed from a cursor (api/body_stream.h); below, it is a
 * few hundred kilobytes at most and is built in memory. */
#define STREAM_ABOVE_ROWS 1000

static void add_kernel(void *user, const kernel_row *k) { kernels_body_row(user, k); }

static enum MHD_Result get_kernels(api *a, struct MHD_Connection *c, const char *id) {
    static const struct { const char *name; kernel_sort sort; } SORTS[] = {
        {"total_ns", KSORT_TOTAL}, {"calls", KSORT_CALLS}, {"avg_ns", KSORT_AVG}, {"max_ns", KSORT_MAX}, {"name", KSORT_NAME}};
    long limit;
    if (!route_int_arg(c, "limit", 1, 100000, 100, &limit))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "limit must be an integer from 1 to 100000");
    kernel_sort sort = KSORT_TOTAL;
    const char *s = route_arg(c, "sort");
    if (s) {
        size_t i = 0;
        for (; i < sizeof SORTS / sizeof SORTS[0] && strcmp(SORTS[i].name, s); i++) {}
        if (i == sizeof SORTS / sizeof SORTS[0])
            return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request",
                                  "sort must be total_ns, calls, avg_ns, max_ns or name");
        sort = SORTS[i].sort;
    }
    run_copy rc = {0};
    store_reader *rd = store_reader_acquire(api_store(a));
    store_get_run(rd, id, copy_row, &rc);
    free(rc.metrics_json);
    if (store_reader_failed(rd) || rc.oom) {
        store_reader_release(api_store(a), rd);
        return route_read_failed(a, c);
    }
    if (!rc.found || store_corruption(api_store(a))) {
        store_reader_release(api_store(a), rd);
        return route_no_such_run(a, c);
    }
    char source[32], formats[256];                    /* where the rows came from */
    store_kernels_source(rd, id, source, sizeof source, formats, sizeof formats);
    if (store_reader_failed(rd)) {
        store_reader_release(api_store(a), rd);
        return route_read_failed(a, c);
    }
    if (limit > STREAM_ABOVE_ROWS) {                  /* large: streamed, never whole in memory */
        store_reader_release(api_store(a), rd);
        kernels_job *job = kernels_job_new(api_store(a), id, sort, (int)limit, source, formats);
        struct MHD_Response *r = job ? body_stream_start(api_streams(a), c, kernels_body_produce, job, kernels_job_free) : NULL;
        if (!r) {
            api_close_after_response();
            return api_send_json(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                                 json_pack("{s:s, s:s}", "error", "busy", "detail",
                                           "too many large answers are being sent now; retry, or ask for limit <= 1000"),
                                 NULL, ROUTE_RETRY_AFTER_S);
        }
        return api_send_response(c, MHD_HTTP_OK, r);
    }
    strbuf out = {0};
    jw_out j;
    jw_begin(&j, &out, 0);
    jw_object_open(&j);
    kernels_body_head(&j, id, source, formats);
    jw_array_open(&j);
    int rows = store_run_kernels(rd, id, sort, (int)limit, add_kernel, &j);
    if (store_reader_failed(rd)) rows = -1;
    store_reader_release(api_store(a), rd);
    if (rows < 0) {
        strbuf_free(&out);
        return api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the kernel table could not be read");
    }
    jw_array_close(&j);
    jw_object_close(&j);
    if (!strbuf_terminate(&out)) {           /* lost bytes for lack of memory: no answer */
        strbuf_free(&out);
        return MHD_NO;
    }
    return api_send_owned(c, MHD_HTTP_OK, out.data, out.len, NULL);
}

/* ---- /compare ---------------------------------------------------------------------- */

typedef struct compare_read { compare_side side; bool found, ok; run_status status; stored_doc doc; } compare_read;

static void compare_row(void *user, const run_row *row) {
    compare_read *r = user;
    r->found = true;
    r->status = row->status;
    r->ok = compare_side_from_row(&r->side, row);
}

static enum MHD_Result compare(api *a, struct MHD_Connection *c) {
    const char *ids[2] = {route_arg(c, "base"), route_arg(c, "candidate")};
    for (int i = 0; i < 2; i++)
        if (!ids[i] || !run_id_valid(ids[i]))
            return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request",
                                  "base and candidate must both be run ids ([A-Za-z0-9._-]{1,128})");
    size_t rows = COMPARE_DIFF_ROWS_DEFAULT;
    const char *rows_arg = route_arg(c, "rows");
    if (rows_arg) {
        char *end;
        unsigned long v = strtoul(rows_arg, &end, 10);
        if (!*rows_arg || *end || rows_arg[0] == '-' || v < 1 || v > COMPARE_DIFF_ROWS_MAX)
            return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "rows must be a whole number from 1 to 1000");
        rows = v;
    }
    compare_read rc[2];
    memset(rc, 0, sizeof rc);
    store_reader *rd = store_reader_acquire(api_store(a));
    for (int i = 0; i < 2; i++) {
        store_get_run(rd, ids[i], compare_row, &rc[i]);
        if (rc[i].found && rc[i].ok) {
            store_run_gauges(rd, ids[i], rc[i].side.gauge);   /* unknown when unreadable */
            store_get_doc(rd, ids[i], STORED_ANALYSIS_JSON, &rc[i].doc);   /* no text: its side is unknown */
        }
    }
    bool failed = store_reader_failed(rd);
    store_reader_release(api_store(a), rd);
    enum MHD_Result ret;
    char detail[300];
    if (failed) {
        ret = route_read_failed(a, c);
    } else if ((!rc[0].found || !rc[1].found) && store_corruption(api_store(a))) {
        ret = route_no_such_run(a, c);
    } else if (!rc[0].found || !rc[1].found) {
        snprintf(detail, sizeof detail, "no run with id %s", rc[0].found ? ids[1] : ids[0]);
        ret = api_send_error(c, MHD_HTTP_NOT_FOUND, "not_found", detail);
    } else if (rc[0].status != RUN_COMPLETE || rc[1].status != RUN_COMPLETE) {
        int i = rc[0].status != RUN_COMPLETE ? 0 : 1;
        snprintf(detail, sizeof detail, "run %s is %s; only complete runs are compared", ids[i], store_run_status_name(rc[i].status));
        ret = api_send_error(c, MHD_HTTP_CONFLICT, "not_complete", detail);
    } else if (!rc[0].ok || !rc[1].ok || !rc[0].side.metrics_json || !rc[1].side.metrics_json) {
        ret = api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "stored metrics are not readable");
    } else {
        strbuf out = {0};
        compare_diff *diff = compare_diff_new(rc[0].doc.text, rc[0].doc.len, rc[1].doc.text, rc[1].doc.len, rows);
        if (diff) compare_runs(&rc[0].side, &rc[1].side, diff, &out);
        compare_diff_free(diff);
        if (!diff) {                          /* out of memory: no answer rather than one missing its deltas */
            ret = route_read_failed(a, c);
        } else if (strbuf_terminate(&out)) {
            ret = api_send_owned(c, MHD_HTTP_OK, out.data, out.len, NULL);      /* the response owns it */
        } else {
            strbuf_free(&out);
            ret = MHD_NO;
        }
    }
    compare_side_free(&rc[0].side);
    compare_side_free(&rc[1].side);
    free(rc[0].doc.text);
    free(rc[1].doc.text);
    return ret;
}

/* ---- /metrics (Prometheus) ----------------------------------------------------------- */

static enum MHD_Result prometheus_metrics(api *a, struct MHD_Connection *c) {
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    bool om = accept && strstr(accept, "application/openmetrics-text");
    strbuf out = {0};
    if (!api_prometheus(a, om, &out)) {       /* a scrape missing runs, or a count read as 0, would look real */
        strbuf_free(&out);
        return api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the metrics could not be read");
    }
    enum MHD_Result ret = api_send_body(c, MHD_HTTP_OK, out.data ? out.data : "", out.len,
        om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4; charset=utf-8");
    strbuf_free(&out);
    return ret;
}

/* ---- routing ------------------------------------------------------------------------ */

extern const char DASHBOARD_HTML[];
extern const size_t DASHBOARD_HTML_LEN;
extern const char OPENAPI_JSON[];          /* api/openapi.json, embedded at build time */
extern const size_t OPENAPI_JSON_LEN;

/* ---- DELETE /runs/<id> ------------------------------------------------------------- */

static enum MHD_Result delete_run(api *a, struct MHD_Connection *c, const char *id) {
    bool found = false;
    if (retention_forget(api_store(a), id, api_now_ms(), "DELETE /runs/<id>", &found) != 0) {
        char detail[400], err[256];
        snprintf(detail, sizeof detail, "the database refused the delete: %s", store_last_error(api_store(a), err, sizeof err));
        return api_send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "unavailable", detail);
    }
    if (!found) return api_send_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no run with this id");
    api_report_deleted(a, id);
    return api_send_json(c, MHD_HTTP_OK, json_pack("{s:s, s:b}", "id", id, "deleted", 1), NULL, 0);
}

enum MHD_Result routes_dispatch(api *a, api_request *req, struct MHD_Connection *c, const char *url) {
    if (req->is_delete && strncmp(url, "/runs/", 6)) return api_send_not_allowed(c, "GET, HEAD");
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return api_send_body(c, MHD_HTTP_OK, DASHBOARD_HTML, DASHBOARD_HTML_LEN, "text/html; charset=utf-8");
    if (!strcmp(url, "/openapi.json"))
        return api_send_body(c, MHD_HTTP_OK, OPENAPI_JSON, OPENAPI_JSON_LEN, "application/json");
    if (!strcmp(url, "/healthz"))
        return api_send_json(c, MHD_HTTP_OK, json_pack("{s:s}", "status", "ok"), NULL, 0);
    /* A corrupt database: not ready, and no data answer (a 404 or [] would look real). */
    const char *corrupt = store_corruption(api_store(a));
    if (!strcmp(url, "/readyz")) {
        bool ready = api_ready(a) && !corrupt;
        json_t *body = json_pack("{s:b}", "ready", ready);
        if (corrupt) json_object_set_new(body, "reason", json_string(corrupt));
        return api_send_json(c, ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, body, NULL, 0);
    }
    if (corrupt) return api_send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "database_corrupt", corrupt);
    if (!strcmp(url, "/metrics")) return prometheus_metrics(a, c);
    if (!strcmp(url, "/events"))
        return events_stream(api_events(a), c, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID"));
    if (!strcmp(url, "/compare")) return compare(a, c);
    if (!strcmp(url, "/series") || !strncmp(url, "/series/", 8)) return route_series(a, c, url);
    if (!strcmp(url, "/runs") || !strcmp(url, "/runs/")) return route_runs(a, c);
    if (!strncmp(url, "/runs/", 6)) {
        const char *rest = url + 6;
        const char *slash = strchr(rest, '/');
        size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
        char id[130];
        if (n == 0 || n > 128) return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "invalid run id");
        memcpy(id, rest, n);
        id[n] = '\0';
        if (!run_id_valid(id))
            return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request",
                                  "invalid run id: it must match [A-Za-z0-9._-]{1,128}");
        const char *sub = slash ? slash : "";
        if (req->is_delete) {
            if (!*sub || !strcmp(sub, "/")) return delete_run(a, c, id);
            return api_send_not_allowed(c, "GET, HEAD");
        }
        if (!*sub || !strcmp(sub, "/")) return route_run(a, req, c, id);
        if (!strcmp(sub, "/metrics")) return get_metrics(a, req, c, id);
        if (!strcmp(sub, "/kernels")) return get_kernels(a, c, id);
        if (!strcmp(sub, "/kernels.csv") || !strcmp(sub, "/kernels.jsonl")) return route_kernel_export(a, c, id, sub[9] == 'j');
        if (!strcmp(sub, "/analysis")) return route_stored_doc(a, req, c, id, STORED_ANALYSIS_JSON);
        if (!strcmp(sub, "/report.md")) return route_stored_doc(a, req, c, id, STORED_REPORT_MD);
        if (!strcmp(sub, "/npu_reference.zip")) return route_npu_reference_zip(a, c, id);
    }
    return api_send_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such endpoint; see docs/API.md");
}
