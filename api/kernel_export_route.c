/* kernel_export_route: GET /runs/<id>/kernels.csv and /runs/<id>/kernels.jsonl, the per-kernel
 * export (core/kernel_export.h) of a run the daemon knows, read again from the run's directory
 * on request and streamed as it is written (api/body_stream.h): never held whole. The exports
 * running at once are bounded apart from other streamed bodies (api_export_streams: each holds
 * its labelling tables); beyond the bound the answer is 503 with Retry-After. ?kernels=host: the host
 * trace's kernels rather than the kernels section's (goblind export --host-trace). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/routes.h"
#include "core/kernel_export.h"
#include "storage/store.h"

#define EXPORT_RETRY_S 5

typedef struct export_job {
    parse_limits lim;        /* the ingest's bounds when the request came (api_export_limits) */
    char *path, *root;
    kexport_format fmt;
    bool host;               /* ?kernels=host: the host trace's kernels */
} export_job;

static void export_job_free(void *arg) {
    export_job *j = arg;
    if (!j) return;
    free(j->path);
    free(j->root);
    free(j);
}

static bool to_stream(void *user, const char *data, size_t len) { return body_stream_write(user, data, len); }

/* The body_producer: the export, the run's files confined to its root as at ingest. */
static bool produce(body_stream *s, void *arg) {
    export_job *j = arg;
    run_analysis_options opt;
    run_analysis_defaults(&opt);
    opt.parse.confine_root = j->root;
    parse_limits lim = j->lim;
    lim.cancel = body_stream_cancel_flag(s);   /* (the client gone or shutdown: cancelled at once) */
    opt.parse.limits = &lim;
    diag_list diag;
    diag_init(&diag);
    kexport_result res;
    bool ok = kernel_export(j->path, &opt, j->fmt, j->host, to_stream, s, &res, &diag) && !res.cut;
    diag_free(&diag);
    return ok;                         /* false: the transfer is broken off, never a short body that parses */
}

enum MHD_Result route_kernel_export(api *a, struct MHD_Connection *c, const char *id, bool jsonl) {
    const char *from = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "kernels");
    if (from && strcmp(from, "host") && strcmp(from, "section"))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "kernels must be section or host");
    route_run_paths f;
    if (!route_get_run_paths(a, id, &f)) return route_read_failed(a, c);
    if (!f.found || store_corruption(api_store(a))) {
        free(f.path), free(f.root);
        return route_no_such_run(a, c);
    }
    struct stat st;
    if (!f.path || stat(f.path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(f.path), free(f.root);
        return api_send_error(c, MHD_HTTP_GONE, "gone", "the run's directory is no longer there to be read");
    }
    export_job *j = calloc(1, sizeof *j);
    if (!j) {
        free(f.path), free(f.root);
        return MHD_NO;
    }
    api_export_limits(a, &j->lim);
    j->path = f.path, j->root = f.root, j->fmt = jsonl ? KEXPORT_JSONL : KEXPORT_CSV;
    j->host = from && !strcmp(from, "host");
    struct MHD_Response *r = body_stream_start(api_export_streams(a), c, produce, j, export_job_free);
    if (!r) {
        api_close_after_response();
        return api_send_json(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                             json_pack("{s:s, s:s}", "error", "busy", "detail",
                                       "too many per-kernel exports are being sent now; retry"),
                             NULL, EXPORT_RETRY_S);
    }
    return api_send_response_typed(c, MHD_HTTP_OK, r, jsonl ? "application/x-ndjson" : "text/csv; charset=utf-8");
}
