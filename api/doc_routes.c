/* doc_routes: the stored analysis document and report, served as stored.
 *
 * The answer follows /runs/<id>/metrics so an agent polls both the same way: 200 once the run
 * is complete (422 plus Goblind-Run-Status when it failed: its numbers are not a measurement),
 * 202 with Retry-After while it is pending or running, 410 when it was deleted before a
 * document was stored, and ?wait=SECONDS holds the request until one of those changes. What
 * /metrics cannot meet: a final run whose last parse stored no document (a parse before the
 * analysis driver, or none produced) answers 404 no_analysis at once, even with ?wait — nothing
 * will come until the run is parsed again. The ETag is the run's version
 * ("<ingest_count>-<status>"), the same for the document, the report and /metrics. */
#include "api/doc_routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool final_status(run_status s) { return s == RUN_COMPLETE || s == RUN_FAILED || s == RUN_EMPTY || s == RUN_GONE; }

enum MHD_Result route_stored_doc(api *a, api_request *req, struct MHD_Connection *c, const char *id, stored_doc_kind kind) {
    long wait;
    if (!route_int_arg(c, "wait", 0, ROUTE_MAX_WAIT_S, 0, &wait))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "wait must be an integer from 0 to 60 (seconds)");
    stored_doc d;
    store_reader *rd = store_reader_acquire(api_store(a));
    store_get_doc(rd, id, kind, &d);
    bool failed = store_reader_failed(rd);
    store_reader_release(api_store(a), rd);
    if (failed) {
        free(d.text);
        return route_read_failed(a, c);
    }
    if (!d.found || store_corruption(api_store(a))) {
        free(d.text);
        if (!d.found && route_wait_for_run(a, req, c, id, wait)) return MHD_YES;   /* not discovered yet */
        return route_no_such_run(a, c);
    }
    char etag[64];
    snprintf(etag, sizeof etag, "\"%lld-%s\"", (long long)d.ingest_count, store_run_status_name(d.status));
    const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    bool final = final_status(d.status);
    int64_t now = api_now_ms();
    if (wait > 0 && !api_stopping(a)) {
        /* without If-None-Match: until the run is final; with it, until any new version */
        if (!req->waiting) {
            req->waiting = true;
            req->deadline_ms = now + wait * 1000;
        }
        bool answer_now = inm ? !route_etag_matches(inm, etag) : final;
        req->recheck_ms = now + ROUTE_RECHECK_MS;
        if (!answer_now && now < req->deadline_ms && api_wait(a, req, c, id)) {
            free(d.text);
            return MHD_YES;
        }
    }
    const char *what = kind == STORED_REPORT_MD ? "report" : "analysis document";
    char detail[400];
    if (final && d.text) {
        if (route_etag_matches(inm, etag)) {
            free(d.text);
            return api_send_text(c, MHD_HTTP_NOT_MODIFIED, "", 0, etag, 0);
        }
        unsigned code = d.status == RUN_FAILED ? 422u : MHD_HTTP_OK;
        return api_send_typed_owned(c, code, d.text, d.len, etag, store_run_status_name(d.status),
                                    kind == STORED_REPORT_MD ? "text/markdown; charset=utf-8" : "application/json");
    }
    free(d.text);
    if (d.status == RUN_GONE)
        return api_send_error(c, MHD_HTTP_GONE, "gone", "the run directory was deleted before it was parsed");
    if (final) {
        snprintf(detail, sizeof detail, "run %s is %s but its last parse stored no %s; it is produced when the run is "
                 "parsed again", id, store_run_status_name(d.status), what);
        return api_send_error(c, MHD_HTTP_NOT_FOUND, "no_analysis", detail);
    }
    snprintf(detail, sizeof detail, "the run is still being written or parsed; the %s comes when it is complete: "
             "retry, or use ?wait=SECONDS", what);
    return api_send_json(c, MHD_HTTP_ACCEPTED, json_pack("{s:s, s:s}", "status", store_run_status_name(d.status), "detail", detail),
                         etag, ROUTE_RETRY_AFTER_S);
}
