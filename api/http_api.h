/* http_api: goblind's REST JSON API on libmicrohttpd (see docs/API.md).
 *
 * MHD runs its own polling thread; handlers only read SQLite through the store's
 * reader pool, so a parse on the worker pool never delays an answer. Long polls
 * (GET /runs/<id>/metrics?wait=N) suspend the connection and are resumed when the
 * tracker reports a change of that run, or at their deadline. */
#ifndef GOBLIN_HTTP_API_H
#define GOBLIN_HTTP_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/counters.h"
#include "storage/store.h"

typedef struct api api;

typedef struct api_options {
    const char *listen;          /* HOST:PORT; port 0 picks a free one */
    int max_connections;
    int max_event_streams;       /* GET /events streams at once (0: max_connections / 4; at most max_connections) */
    int connection_timeout_s;
    int max_request_kb;          /* connection memory: a longer request line or headers get 414/431 */
    goblind_counters *counters;  /* HTTP requests are counted here; /metrics exports it */
    int metrics_max_runs;        /* per-run series in /metrics for the newest N runs */
    int series_baseline_runs;    /* runs pooled into a series baseline (0: SERIES_BASELINE_DEFAULT) */
    const char *version;
    const char *metrics_labels;  /* NULL, or k="v",... added to every /metrics sample (kept by the caller) */
    const char *auth_token_file;     /* NULL: no token */
    /* Called on the HTTP thread after DELETE /runs/<id> forgot a run (NULL: nothing). */
    void (*run_deleted)(void *user, const char *run_id);
    void *user;
    const char *const *webhook_urls;   /* POST every run event here (GET /events has the same JSON) */
    size_t n_webhook_urls;
    const char *tls_cert_file, *tls_key_file, *tls_client_ca_file;   /* NULL: plain HTTP / no client certs */
    int max_parse_mb, max_parse_s;   /* an ingest's bounds, also for the exports that read a run's
                                      * files again (kernels.csv, npu_reference.zip); 0: none */
} api_options;

/* New parse bounds for the exports (SIGHUP reloaded them). */
void api_set_parse_bounds(api *a, int max_parse_mb, int max_parse_s);

/* Loopback needs nothing; any other address needs a bearer token or client certificates.
 * false with *err (caller frees) when the combination must not start. */
bool api_access_ok(const char *listen, const char *token_file, const char *client_ca_file, char **err);

/* The bound on a TLS file's size (certificate chain, key, CA bundle), and on the token file's. */
#define API_TLS_FILE_MAX ((size_t)1 << 20)
#define API_TOKEN_FILE_MAX ((size_t)4096)

/* NULL with *err set (caller frees) when the address cannot be bound. */
api *api_start(const api_options *opt, store *st, char **err);
int api_port(const api *a);
/* /readyz answers 200 once this is set (after the start-up scan). Thread-safe. */
void api_set_ready(api *a, bool ready);
/* Thread-safe: wakes long polls waiting on this run. */
void api_notify_run(api *a, const char *run_id);
/* Called about every 250 ms: resumes long polls past their deadline. */
void api_tick(api *a);
/* Stops accepting, answers waiting long polls, joins the HTTP thread. */
void api_stop(api *a);

#endif
