/* http_api: MHD daemon lifecycle, request routing, responses and long polls. */
#include "api/events.h"
#include "base/clock.h"
#include "base/json_load.h"
#include "api/json_text.h"
#include "api/series.h"
#include "api/webhooks.h"
#include "api/http_api.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "api/body_budget.h"
#include "api/body_stream.h"
#include "api/conn_guard.h"
#include "api/http_send.h"
#include "api/listen_addr.h"
#include "api/log_rate.h"
#include "api/prometheus.h"
#include "api/secret_file.h"
#include "api/routes.h"
#include "core/run_files.h"

struct api {
    struct MHD_Daemon *d;
    store *st;
    goblind_counters *counters;
    int metrics_max_runs;
    int series_baseline_runs;
    const char *version;
    const char *metrics_labels;  /* rendered static labels for /metrics, or NULL */
    void (*run_deleted)(void *user, const char *run_id);
    void *user;
    events *events;             /* GET /events and webhooks */
    webhooks *hooks;
    char *token;                /* bearer token, NULL when not required */
    bool client_certs;          /* TLS client certificates are required */
    char *tls_mem[3];           /* cert, key, trust PEMs (kept for the daemon's lifetime) */
    metrics_cache *cache;
    series_cache *verdicts;     /* the series verdicts computed so far (api/series_cache.h) */
    atomic_bool ready;
    pthread_mutex_t lock;       /* guards the waiter list */
    api_request *waiters;
    atomic_bool stopping;       /* set under lock; long polls are answered at once from then on */
    atomic_int polls_open;      /* long polls suspended at least once and not yet completed */
    int waiting, max_waiting;   /* suspended long polls now (under lock), and their share of the slots */
    conn_guard *guard;          /* header deadlines and the reserved slots */
    body_streams *streams;      /* large bodies produced on threads of their own */
    body_streams *exports;      /* per-kernel exports (kernels.csv): each re-reads a run's files */
    atomic_int max_parse_mb, max_parse_s;   /* their bounds, as an ingest's (api_options; SIGHUP) */
    body_budget bodies;         /* bytes of in-memory bodies held until sent */
    int port;
    log_rate mhd_lines;         /* libmicrohttpd's messages, one per kind per minute */
};

void api_report_deleted(api *a, const char *run_id) {
    api_notify_run(a, run_id);                 /* drops its cached body; waiting polls answer 404 */
    if (a->run_deleted) a->run_deleted(a->user, run_id);
}

int64_t api_now_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

store *api_store(api *a) { return a->st; }
metrics_cache *api_cache(api *a) { return a->cache; }
events *api_events(api *a) { return a->events; }
int api_series_baseline(api *a) { return a->series_baseline_runs; }
series_cache *api_series_cache(api *a) { return a->verdicts; }
body_streams *api_streams(api *a) { return a->streams; }
body_streams *api_export_streams(api *a) { return a->exports; }

void api_export_limits(api *a, struct parse_limits *lim) {
    *lim = (parse_limits){.max_bytes = (uint64_t)atomic_load(&a->max_parse_mb) << 20,
                          .max_seconds = atomic_load(&a->max_parse_s)};
}

void api_set_parse_bounds(api *a, int max_parse_mb, int max_parse_s) {
    atomic_store(&a->max_parse_mb, max_parse_mb > 0 ? max_parse_mb : 0);
    atomic_store(&a->max_parse_s, max_parse_s > 0 ? max_parse_s : 0);
}

bool api_prometheus(api *a, bool openmetrics, strbuf *out) {
    prometheus_source src = {a->st, a->counters, a->metrics_max_runs, a->version, a->metrics_labels, a->hooks,
                             a->series_baseline_runs, a->verdicts};
    return prometheus_render(&src, openmetrics, out);
}

bool api_ready(api *a) { return atomic_load(&a->ready); }
void api_set_ready(api *a, bool ready) { atomic_store(&a->ready, ready); }
bool api_stopping(api *a) { return atomic_load(&a->stopping); }

/* ---- long polls ------------------------------------------------------------------- */

bool api_wait(api *a, api_request *req, struct MHD_Connection *c, const char *run_id) {
    pthread_mutex_lock(&a->lock);
    /* stopping: api_stop has resumed every waiter already; full: long polls may hold only
     * their share of the slots, the others are answered at once (202 + Retry-After) */
    if (atomic_load(&a->stopping) || req->reserved || a->waiting >= a->max_waiting) {
        pthread_mutex_unlock(&a->lock);
        api_close_after_response();                   /* its answer frees the slot, too */
        return false;
    }
    if (!req->poll_counted) {
        req->poll_counted = true;
        atomic_fetch_add(&a->polls_open, 1);
    }
    snprintf(req->wait_run, sizeof req->wait_run, "%s", run_id);
    req->conn = c;
    req->suspended = true;
    req->next = a->waiters;
    req->prev = NULL;
    if (a->waiters) a->waiters->prev = req;
    a->waiters = req;
    a->waiting++;
    MHD_suspend_connection(c);
    pthread_mutex_unlock(&a->lock);
    return true;
}

static void unlink_waiter(api *a, api_request *w) {
    a->waiting--;
    if (w->prev) w->prev->next = w->next;
    else a->waiters = w->next;
    if (w->next) w->next->prev = w->prev;
    w->prev = w->next = NULL;
}

/* Resumes waiters on run_id (all when NULL; only those past their deadline or due for a
 * re-check when due_only). Caller holds the lock. */
static void resume_locked(api *a, const char *run_id, bool due_only) {
    int64_t now = api_now_ms();
    for (api_request *w = a->waiters, *nx; w; w = nx) {
        nx = w->next;
        if (run_id && strcmp(w->wait_run, run_id)) continue;
        if (due_only && now < w->deadline_ms && now < w->recheck_ms) continue;
        unlink_waiter(a, w);
        w->suspended = false;
        MHD_resume_connection(w->conn);
    }
}

void api_notify_run(api *a, const char *run_id) {
    if (!a) return;
    metrics_cache_drop(a->cache, run_id);          /* before waiters re-read it */
    events_run_changed(a->events, run_id);
    pthread_mutex_lock(&a->lock);
    resume_locked(a, run_id, false);
    pthread_mutex_unlock(&a->lock);
}

void api_tick(api *a) {
    if (!a) return;
    events_tick(a->events);
    conn_guard_sweep(a->guard);                       /* slow headers and idle keep-alives lose their slot */
    pthread_mutex_lock(&a->lock);
    resume_locked(a, NULL, true);
    pthread_mutex_unlock(&a->lock);
}

/* ---- access control ----------------------------------------------------------------- */

bool api_access_ok(const char *listen, const char *token_file, const char *client_ca_file, char **err) {
    char host[256];
    int port;
    if (!listen_addr_split(listen, host, &port)) {
        *err = strdup("listen: expected HOST:PORT");
        return false;
    }
    if (token_file || client_ca_file || listen_addr_is_loopback(host)) return true;
    char e[768], shown[INET6_ADDRSTRLEN + 8] = "";
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | AI_PASSIVE}, *ai = NULL;
    if (getaddrinfo(host, "0", &hints, &ai) == 0 && ai) {      /* name what it resolved to */
        char ip[INET6_ADDRSTRLEN] = "";
        const void *raw = ai->ai_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr
                                                    : (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr;
        if (inet_ntop(ai->ai_family, raw, ip, sizeof ip) && strcmp(ip, host)) snprintf(shown, sizeof shown, " (= %s)", ip);
        freeaddrinfo(ai);
    }
    snprintf(e, sizeof e, "refusing to listen on %s%s without access control: set auth_token_file (a bearer token) "
             "or tls_cert_file + tls_key_file + tls_client_ca_file (client certificates), or listen on loopback; "
             "see docs/OPERATIONS.md", listen, shown);
    *err = strdup(e);
    return false;
}

/* Constant-time comparison, so the token cannot be guessed byte by byte from timings. */
static bool same_secret(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++) d |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
    return d == 0;
}

static bool client_cert_ok(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (!ci || !ci->tls_session) return false;
    gnutls_session_t sess = (gnutls_session_t)ci->tls_session;
    unsigned status = 0, n = 0;
    if (!gnutls_certificate_get_peers(sess, &n) || n == 0) return false;
    return gnutls_certificate_verify_peers2(sess, &status) == GNUTLS_E_SUCCESS && status == 0;
}

/* false when the request may proceed; true when a refusal was queued (in *ret). */
static bool refuse(api *a, struct MHD_Connection *c, const char *url, enum MHD_Result *ret) {
    /* liveness stays open, and so does the dashboard page: it holds no data, and asks for
     * the token itself before it reads the API */
    if (!strcmp(url, "/healthz") || !strcmp(url, "/") || !strcmp(url, "/index.html") || !strcmp(url, "/openapi.json"))
        return false;
    if (a->client_certs && !client_cert_ok(c)) {
        *ret = api_send_error(c, MHD_HTTP_FORBIDDEN, "forbidden", "a client certificate signed by the configured CA is required");
        return true;
    }
    if (a->token) {
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (!h || strncmp(h, "Bearer ", 7) || !same_secret(h + 7, a->token)) {
            json_t *body = json_pack("{s:s, s:s}", "error", "unauthorized", "detail", "Authorization: Bearer <token> is required");
            char *s = json_dumps_checked(body, JSON_COMPACT);
            json_decref(body);
            struct MHD_Response *r = s ? MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE) : NULL;
            if (!r) { free(s); *ret = MHD_NO; return true; }
            http_common_headers(r);
            MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"goblind\"");
            http_note_status(MHD_HTTP_UNAUTHORIZED);
            *ret = http_queue(c, MHD_HTTP_UNAUTHORIZED, r);
            MHD_destroy_response(r);
            return true;
        }
    }
    return false;
}

/* ---- MHD callbacks ---------------------------------------------------------------- */

/* Whether url is /runs/<id> itself, the one path that also takes DELETE. */
static bool is_run_path(const char *url) {
    if (strncmp(url, "/runs/", 6)) return false;
    const char *id = url + 6;
    return *id && !strchr(id, '/');
}

static enum MHD_Result method_not_allowed(api_request *req, struct MHD_Connection *c, const char *url) {
    json_t *body = json_pack("{s:s, s:s}", "error", "method_not_allowed", "detail",
                             "only GET and HEAD are served (and DELETE on /runs/<id>)");
    char *s = json_dumps_checked(body, JSON_COMPACT);
    json_decref(body);
    if (!s) return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE);
    if (!r) { free(s); return MHD_NO; }
    http_common_headers(r);
    MHD_add_response_header(r, "Allow", is_run_path(url) ? "GET, HEAD, DELETE" : "GET, HEAD");
    req->status = MHD_HTTP_METHOD_NOT_ALLOWED;
    enum MHD_Result ret = http_queue(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls) {
    (void)version; (void)upload;
    api *a = cls;
    api_request *req = *con_cls;
    if (!req) {
        req = calloc(1, sizeof *req);
        if (!req) return MHD_NO;
        req->api = a;
        req->t0 = clk_mono_s();
        req->reserved = conn_guard_request_begins(c);
        *con_cls = req;
        /* Refusals before any work (a body is not read, a long poll not begun); they close the
         * connection, which is what a refused client deserves. */
        req->is_delete = !strcmp(method, "DELETE");             /* routes.c allows it on /runs/<id> only */
        if (strcmp(method, "GET") && strcmp(method, "HEAD") && !req->is_delete) return method_not_allowed(req, c, url);
        http_send_begin(NULL);
        enum MHD_Result ret;
        bool refused = refuse(a, c, url, &ret);
        unsigned st = http_send_end();
        if (refused) {
            if (st) req->status = st;
            return ret;
        }
        /* Answer from the next call: a response queued in the first one makes
         * libmicrohttpd close the connection, and clients lose keep-alive. */
        return MHD_YES;
    }
    if (*upload_size) { *upload_size = 0; return MHD_YES; }   /* a body is never needed: drop it */
    http_send_begin(&a->bodies);
    enum MHD_Result ret;
    if (req->reserved && strcmp(url, "/healthz") && strcmp(url, "/readyz")) {
        api_close_after_response();                               /* the reserved slot is free again at once */
        ret = api_send_json(c, MHD_HTTP_SERVICE_UNAVAILABLE,
            json_pack("{s:s, s:s}", "error", "busy", "detail",
                      "every connection slot is in use; the reserved ones answer /healthz and /readyz only"), NULL, 1);
    } else if (!refuse(a, c, url, &ret)) {
        ret = routes_dispatch(a, req, c, url);
    }
    unsigned st = http_send_end();
    if (st) req->status = st;
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)toe;
    api *a = cls;
    api_request *req = *con_cls;
    if (!req) return;
    conn_guard_request_ends(a->guard, c);             /* the next request's headers are due from now */
    if (req->waiting) {                               /* only long polls ever join the waiter list */
        pthread_mutex_lock(&a->lock);
        if (req->suspended) unlink_waiter(a, req);
        pthread_mutex_unlock(&a->lock);
    }
    if (req->poll_counted) atomic_fetch_sub(&a->polls_open, 1);   /* answered (or its client left) */
    if (req->status) {                                /* long polls are counted, not timed */
        if (req->waiting) counters_http_count(a->counters, req->status);
        else counters_http(a->counters, req->status, clk_mono_s() - req->t0);
    }
    free(req);
    *con_cls = NULL;
}

/* Percent-decoding that keeps "%00" as it is: a NUL would silently cut the path (and
 * "/runs/%00" would read as "/runs/"); kept literal, it fails id validation instead. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s) {
    (void)cls; (void)c;
    char *w = s;
    for (char *r = s; *r;) {
        if (r[0] == '%' && isxdigit((unsigned char)r[1]) && isxdigit((unsigned char)r[2]) && !(r[1] == '0' && r[2] == '0')) {
            char hex[3] = {r[1], r[2], 0};
            *w++ = (char)strtol(hex, NULL, 16);
            r += 3;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

#define MHD_LOG_WINDOW_S 60.0

/* libmicrohttpd's messages, rate-limited per format string: each plain-HTTP probe of the TLS
 * port, each reset connection is one message, and a client can make them in a loop. */
static void mhd_log(void *cls, const char *fmt, va_list ap) {
    api *a = cls;
    uint64_t left_out = 0;
    if (!log_rate_admit(&a->mhd_lines, fmt, clk_mono_s(), &left_out)) return;
    char b[512];
    vsnprintf(b, sizeof b, fmt, ap);
    size_t n = strlen(b);
    while (n && (b[n - 1] == '\n' || b[n - 1] == '\r')) b[--n] = '\0';
    if (left_out)
        fprintf(stderr, "goblind http: %s (%llu similar lines suppressed in the last %.0f s)\n", b,
                (unsigned long long)left_out, MHD_LOG_WINDOW_S);
    else fprintf(stderr, "goblind http: %s\n", b);
}

/* Whether the listening socket, as bound, is a loopback address (getsockname of MHD's fd). */
static bool bound_to_loopback(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *fd = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (!fd || getsockname(fd->listen_fd, (struct sockaddr *)&ss, &len) != 0) return false;
    return listen_addr_sockaddr_loopback((struct sockaddr *)&ss);
}

/* Slots beyond max_connections kept for /healthz and /readyz, and their header deadline. */
#define RESERVED_SLOTS 16
#define RESERVE_TIMEOUT_S 2.0
/* Large bodies sent at once (each buffers at most BODY_STREAM_BUFFER bytes); more get 503. */
#define MAX_STREAMS 4
/* Per-kernel exports at once (each holds its labelling tables, up to ~64 MB: PERFORMANCE.md); more get 503. */
#define MAX_EXPORTS 2
/* In-memory bodies held at once, over all connections; bodies under the small size always pass. */
#define BODY_BUDGET_BYTES ((size_t)64 << 20)
#define BODY_BUDGET_SMALL ((size_t)64 << 10)

api *api_start(const api_options *opt, store *st, char **err) {
    char host[256];
    int port;
    char e[512];
    if (!listen_addr_split(opt->listen, host, &port)) {
        snprintf(e, sizeof e, "listen: expected HOST:PORT, got '%s'", opt->listen);
        *err = strdup(e);
        return NULL;
    }
    api *a = calloc(1, sizeof *a);
    if (!a) { *err = strdup("out of memory"); return NULL; }
    log_rate_init(&a->mhd_lines, MHD_LOG_WINDOW_S);
    if (opt->auth_token_file) {
        a->token = secret_file_read("auth_token_file", opt->auth_token_file, SECRET_TOKEN, API_TOKEN_FILE_MAX, e, sizeof e, NULL, 0);
        if (a->token) a->token[strcspn(a->token, "\r\n")] = '\0';
        if (!a->token || strlen(a->token) < 16) {
            if (a->token) snprintf(e, sizeof e, "%s: the token must be at least 16 characters", opt->auth_token_file);
            goto fail_early;
        }
    }
    if ((opt->tls_cert_file != NULL) != (opt->tls_key_file != NULL) || (opt->tls_client_ca_file && !opt->tls_cert_file)) {
        snprintf(e, sizeof e, "TLS needs tls_cert_file and tls_key_file (and them too for tls_client_ca_file)");
        goto fail_early;
    }
    const char *tls_paths[3] = {opt->tls_cert_file, opt->tls_key_file, opt->tls_client_ca_file};
    static const char *const TLS_KEYS[3] = {"tls_cert_file", "tls_key_file", "tls_client_ca_file"};
    for (int i = 0; i < 3; i++)
        if (tls_paths[i] && !(a->tls_mem[i] = secret_file_read(TLS_KEYS[i], tls_paths[i], i == 1 ? SECRET_PRIVATE_KEY : SECRET_PUBLIC,
                                                               API_TLS_FILE_MAX, e, sizeof e, NULL, 0)))
            goto fail_early;
    a->client_certs = a->tls_mem[2] != NULL;
    if (!(a->cache = metrics_cache_new(4096))) { snprintf(e, sizeof e, "out of memory"); goto fail_early; }
    a->hooks = webhooks_start(opt->webhook_urls, opt->n_webhook_urls);
    int streams = opt->max_event_streams > 0 ? opt->max_event_streams : opt->max_connections / 4;
    if (streams > opt->max_connections) streams = opt->max_connections;
    a->series_baseline_runs = opt->series_baseline_runs > 0 && opt->series_baseline_runs <= SERIES_BASELINE_MAX
                                  ? opt->series_baseline_runs : SERIES_BASELINE_DEFAULT;
    if (!(a->verdicts = series_cache_new(SERIES_CACHE_ENTRIES))) { snprintf(e, sizeof e, "out of memory"); goto fail_early; }
    if (!(a->events = events_new(st, a->hooks, streams > 0 ? streams : 1, a->series_baseline_runs, a->verdicts))) { snprintf(e, sizeof e, "out of memory"); goto fail_early; }
    /* a request's headers are due within connection_timeout_s of opening or of the previous
     * answer, however slowly they trickle; reserved slots get RESERVE_TIMEOUT_S */
    double header_s = opt->connection_timeout_s > 0 ? opt->connection_timeout_s : 30;
    if (!(a->guard = conn_guard_new(opt->max_connections, header_s, header_s < RESERVE_TIMEOUT_S ? header_s : RESERVE_TIMEOUT_S))) {
        snprintf(e, sizeof e, "out of memory");
        goto fail_early;
    }
    a->max_waiting = opt->max_connections / 2 > 0 ? opt->max_connections / 2 : 1;
    body_budget_init(&a->bodies, BODY_BUDGET_BYTES, BODY_BUDGET_SMALL);
    if (!(a->streams = body_streams_new(MAX_STREAMS))) { snprintf(e, sizeof e, "out of memory"); goto fail_early; }
    if (!(a->exports = body_streams_new(MAX_EXPORTS))) { snprintf(e, sizeof e, "out of memory"); goto fail_early; }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | AI_PASSIVE}, *ai = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int gai = getaddrinfo(host, ps, &hints, &ai);
    if (gai != 0) {
        snprintf(e, sizeof e, "listen %s: %s", opt->listen, gai_strerror(gai));
        goto fail_early;
    }
    a->st = st;
    a->counters = opt->counters;
    a->metrics_max_runs = opt->metrics_max_runs;
    a->version = opt->version;
    atomic_init(&a->max_parse_mb, opt->max_parse_mb > 0 ? opt->max_parse_mb : 0);
    atomic_init(&a->max_parse_s, opt->max_parse_s > 0 ? opt->max_parse_s : 0);
    a->metrics_labels = opt->metrics_labels;
    a->run_deleted = opt->run_deleted;
    a->user = opt->user;
    pthread_mutex_init(&a->lock, NULL);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
    if (a->tls_mem[0]) flags |= MHD_USE_TLS;
    struct MHD_OptionItem tls_opts[4] = {{MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL},
                                         {MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}};
    if (a->tls_mem[0]) {
        tls_opts[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, a->tls_mem[0]};
        tls_opts[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, a->tls_mem[1]};
        if (a->tls_mem[2]) tls_opts[2] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, a->tls_mem[2]};
    }
    /* the logger first: libmicrohttpd warns (on stderr, unformatted) when it is not */
    a->d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, a,
                            MHD_OPTION_EXTERNAL_LOGGER, mhd_log, a,
                            MHD_OPTION_ARRAY, tls_opts,
                            MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)(opt->max_connections + RESERVED_SLOTS),
                            MHD_OPTION_NOTIFY_CONNECTION, conn_guard_notify, a->guard,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)opt->connection_timeout_s,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                            (size_t)(opt->max_request_kb > 0 ? opt->max_request_kb : 32) * 1024,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, a,
                            MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
                            MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!a->d) {
        snprintf(e, sizeof e, "cannot listen on %s (address in use, not permitted, or bad TLS files?)", opt->listen);
        pthread_mutex_destroy(&a->lock);
        goto fail_early;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(a->d, MHD_DAEMON_INFO_BIND_PORT);
    a->port = info ? info->port : port;
    if (!a->token && !a->client_certs && !bound_to_loopback(a->d)) {   /* the address as bound decides */
        snprintf(e, sizeof e, "refusing to serve %s without access control: the socket is bound to a non-loopback "
                 "address; set auth_token_file or client certificates (docs/OPERATIONS.md)", opt->listen);
        MHD_stop_daemon(a->d);
        pthread_mutex_destroy(&a->lock);
        goto fail_early;
    }
    return a;
fail_early:
    *err = strdup(e);
    conn_guard_free(a->guard);
    body_streams_free(a->streams);
    body_streams_free(a->exports);
    log_rate_destroy(&a->mhd_lines);
    metrics_cache_free(a->cache);
    events_free(a->events);
    series_cache_free(a->verdicts);
    webhooks_stop(a->hooks);
    free(a->token);
    for (int i = 0; i < 3; i++) free(a->tls_mem[i]);
    free(a);
    return NULL;
}

int api_port(const api *a) { return a->port; }

/* How long shutdown waits for resumed long polls to be answered before it closes them. */
#define STOP_DRAIN_S 5.0

void api_stop(api *a) {
    if (!a) return;
    MHD_socket s = MHD_quiesce_daemon(a->d);          /* stop accepting */
    events_stop(a->events);                           /* event streams end */
    pthread_mutex_lock(&a->lock);
    atomic_store(&a->stopping, true);                 /* no poll suspends from now on (api_wait) */
    resume_locked(a, NULL, false);                    /* waiting polls answer now */
    pthread_mutex_unlock(&a->lock);
    /* Every poll is answered before the connections close: wait for each one's completion
     * (its answer sent, or its client gone), however busy the HTTP thread is, up to a bound. */
    double t0 = clk_mono_s();
    while (atomic_load(&a->polls_open) > 0 && clk_mono_s() - t0 < STOP_DRAIN_S) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    int left = atomic_load(&a->polls_open);
    if (left > 0)
        fprintf(stderr, "goblind http: %d long polls still unanswered after %.0f s; closing them\n", left, STOP_DRAIN_S);
    body_streams_stop(a->streams, STOP_DRAIN_S);      /* streamed bodies are broken off, their threads end */
    body_streams_stop(a->exports, STOP_DRAIN_S);
    MHD_stop_daemon(a->d);
    if (s != MHD_INVALID_SOCKET) close(s);
    uint64_t left_out = log_rate_take_suppressed(&a->mhd_lines);
    if (left_out) fprintf(stderr, "goblind http: %llu similar lines suppressed before shutdown\n", (unsigned long long)left_out);
    log_rate_destroy(&a->mhd_lines);
    conn_guard_free(a->guard);
    body_streams_free(a->streams);
    body_streams_free(a->exports);
    pthread_mutex_destroy(&a->lock);
    metrics_cache_free(a->cache);
    events_free(a->events);
    series_cache_free(a->verdicts);
    webhooks_stop(a->hooks);
    free(a->token);
    for (int i = 0; i < 3; i++) free(a->tls_mem[i]);
    free(a);
}
