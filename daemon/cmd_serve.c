/* cmd_serve: `goblind serve`. Wires config, store, tracker (loop thread + worker pool)
 * and the HTTP API (its own thread), and shuts them down in order on SIGTERM/SIGINT:
 * stop accepting, cancel in-flight parses (within a chunk), let writes commit, close the database, exit 0. SIGHUP reloads
 * the configuration (the live part; see reload_config) and never exits. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "api/http_api.h"
#include "api/secret_file.h"
#include "daemon/commands.h"
#include "daemon/config.h"
#include "daemon/db_lock.h"
#include "daemon/log.h"
#include "daemon/retention_timer.h"
#include "daemon/run_log.h"
#include "daemon/run_tracker.h"
#include "daemon/sd_notify.h"
#include "storage/store.h"

typedef struct server {
    uv_loop_t loop;
    goblind_config cfg;
    store *st;
    api *http;
    tracker *trk;
    goblind_counters counters;
    retention_timer *retention;
    uv_timer_t tick, watchdog;
    uv_signal_t sigterm, sigint, sighup;
    bool shutting_down;
    int argc;                   /* kept for SIGHUP: the configuration is read again from them */
    char **argv;
} server;

static void on_run_changed(void *user, const char *run_id) {
    server *s = user;
    api_notify_run(s->http, run_id);
}

/* DELETE /runs/<id> (HTTP thread): the log line, and the tracker learns of it (a parse in
 * flight or pending must not bring the run back). */
static void on_run_deleted(void *user, const char *run_id) {
    server *s = user;
    run_log_deleted(run_id, "DELETE /runs/<id>");
    tracker_run_deleted(s->trk, run_id);
}

static void on_tick(uv_timer_t *h) {
    server *s = h->data;
    api_tick(s->http);
}

/* Proves to systemd that the loop still turns (WatchdogSec=). */
static void on_watchdog(uv_timer_t *h) {
    (void)h;
    sd_notify_send("WATCHDOG=1");
}

static void on_tracker_stopped(void *arg) {
    server *s = arg;
    uv_close((uv_handle_t *)&s->tick, NULL);
    uv_close((uv_handle_t *)&s->watchdog, NULL);
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    uv_close((uv_handle_t *)&s->sighup, NULL);
}

static void on_signal(uv_signal_t *h, int signum) {
    server *s = h->data;
    if (s->shutting_down) return;
    s->shutting_down = true;
    log_info("%s: shutting down (cancelling in-flight parses)", signum == SIGTERM ? "SIGTERM" : "SIGINT");
    sd_notify_send("STOPPING=1");
    retention_timer_stop(s->retention); /* before api_stop: a pass in flight tells the API no more */
    s->retention = NULL;
    api_stop(s->http);                  /* no new requests; waiting long polls are answered */
    s->http = NULL;
    tracker_stop(s->trk, on_tracker_stopped, s);
}

/* Like ssh with a private key: the token and TLS files are checked (api/secret_file.h: a
 * regular file of goblind's user or root, a private key chmod 600, a token not readable by
 * every user, bounded, never blocking on a FIFO) at start-up and at SIGHUP. Logs each problem
 * (when: "" or "SIGHUP: "); false when one is refused. */
static bool secret_files_ok(const goblind_config *c, const char *when) {
    const struct { const char *key, *path; secret_kind kind; size_t max; } FILES[] = {
        {"auth_token_file", c->auth_token_file, SECRET_TOKEN, API_TOKEN_FILE_MAX},
        {"tls_cert_file", c->tls_cert_file, SECRET_PUBLIC, API_TLS_FILE_MAX},
        {"tls_key_file", c->tls_key_file, SECRET_PRIVATE_KEY, API_TLS_FILE_MAX},
        {"tls_client_ca_file", c->tls_client_ca_file, SECRET_PUBLIC, API_TLS_FILE_MAX},
    };
    bool ok = true;
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        if (!FILES[i].path) continue;
        char err[1200], warn[1200];
        char *body = secret_file_read(FILES[i].key, FILES[i].path, FILES[i].kind, FILES[i].max, err, sizeof err, warn,
                                      sizeof warn);
        if (body) {
            memset(body, 0, strlen(body));     /* the copy api_start keeps is the only one */
            free(body);
        }
        if (warn[0]) log_warn("%s%s", when, warn);
        if (!body) {
            log_error("%s%s%s", when, err, *when ? " (the running daemon keeps what it read at start; a restart would fail)" : "");
            ok = false;
        }
    }
    return ok;
}

static int usage_error(const char *msg) {
    fprintf(stderr, "goblind serve: %s\n", msg);
    help_usage(stderr);
    return EXIT_USAGE;
}

/* Flags: --config FILE first (anywhere on the line), then every other flag over it.
 * false with the reason in err; *is_usage tells a command-line mistake from a file's. */
static bool read_settings(goblind_config *c, int argc, char **argv, char *err, size_t errlen, bool *is_usage) {
    *is_usage = true;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 >= argc) { snprintf(err, errlen, "--config needs a file"); return false; }
            if (!config_load(c, argv[i + 1], err, errlen)) { *is_usage = false; return false; }
        }
    static const struct { const char *flag, *key; } FLAGS[] = {
        {"--root", "root"}, {"--db", "db"}, {"--listen", "listen"}, {"--settle-ms", "settle_ms"}, {"--settle-max-ms", "settle_max_ms"}, {"--max-parse-mb", "max_parse_mb"}, {"--max-parse-s", "max_parse_s"},
        {"--quiet-s", "quiet_s"}, {"--quiet-ms", "quiet_ms"}, {"--scan-interval-s", "scan_interval_s"}, {"--fallback-scan-ms", "fallback_scan_ms"},
        {"--max-connections", "max_connections"}, {"--max-event-streams", "max_event_streams"}, {"--connection-timeout-s", "connection_timeout_s"},
        {"--log-level", "log_level"}, {"--log-file", "log_file"}, {"--watch-mode", "watch_mode"}, {"--metrics-max-runs", "metrics_max_runs"},
        {"--metrics-labels", "metrics_labels"},
        {"--auth-token-file", "auth_token_file"}, {"--tls-cert-file", "tls_cert_file"}, {"--tls-key-file", "tls_key_file"},
        {"--tls-client-ca-file", "tls_client_ca_file"},
        {"--db-max-size-mb", "db_max_size_mb"}, {"--retention-max-runs", "retention_max_runs"},
        {"--retention-max-age-days", "retention_max_age_days"}, {"--webhook-url", "webhook_url"}, {"--max-request-kb", "max_request_kb"},
        {"--kernel-wait-threshold-ns", "kernel_wait_threshold_ns"}, {"--short-kernel-ns", "short_kernel_ns"},
        {"--analysis-list-rows", "analysis_list_rows"},
        {"--npu-reference-dir", "npu_reference_dir"},
    };
    bool roots_from_flags = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config")) { i++; continue; }
        size_t f = 0;
        for (; f < sizeof FLAGS / sizeof FLAGS[0] && strcmp(argv[i], FLAGS[f].flag); f++) {}
        if (f == sizeof FLAGS / sizeof FLAGS[0]) {
            snprintf(err, errlen, "unknown argument '%s'", argv[i]);
            return false;
        }
        if (i + 1 >= argc) {
            snprintf(err, errlen, "%s needs a value", argv[i]);
            return false;
        }
        if (!strcmp(FLAGS[f].key, "root") && !roots_from_flags) {   /* flags replace the file's roots */
            roots_from_flags = true;
            for (size_t r = 0; r < c->n_roots; r++) free(c->roots[r]);
            c->n_roots = 0;
        }
        char why[512];
        if (!config_set(c, FLAGS[f].key, argv[++i], why, sizeof why)) {
            snprintf(err, errlen, "%s: %s", argv[i - 1], why);
            return false;
        }
    }
    if (c->n_roots == 0) config_set(c, "root", "./runs", err, errlen);
    return true;
}

static int load_settings(goblind_config *c, int argc, char **argv) {
    char err[700];
    bool is_usage;
    if (read_settings(c, argc, argv, err, sizeof err, &is_usage)) return 0;
    if (is_usage) return usage_error(err);
    fprintf(stderr, "goblind serve: %s\n", err);
    return EXIT_USAGE;
}

/* SIGHUP: read the configuration file and flags again. What the loop reads each time it
 * uses it (log level, settle, quiet, scan periods) changes at once; what was bound or
 * opened at start (roots, database, listen address, HTTP limits, TLS, token, watch mode,
 * Prometheus run count) is reported as needing a restart. A broken file changes nothing.
 * The log file (log_file) is reopened, so logrotate can move it; without one, logs go to
 * stderr (journald) and there is nothing to reopen. Never exits. */
static void reload_config(server *s) {
    goblind_config n;
    config_defaults(&n);
    char err[700];
    bool is_usage;
    if (!read_settings(&n, s->argc, s->argv, err, sizeof err, &is_usage)) {
        log_error("SIGHUP: configuration not reloaded, keeping the running one: %s", err);
        config_free(&n);
        return;
    }
    char changed[600] = "";
    size_t len = 0;
#define LIVE_INT(field) \
    if (n.field != s->cfg.field) { \
        len += (size_t)snprintf(changed + len, len < sizeof changed ? sizeof changed - len : 0, \
                                "%s%s %d -> %d", len ? ", " : "", #field, s->cfg.field, n.field); \
        s->cfg.field = n.field; \
    }
    LIVE_INT(settle_ms) LIVE_INT(settle_max_ms) LIVE_INT(max_parse_mb) LIVE_INT(max_parse_s) LIVE_INT(quiet_s) LIVE_INT(quiet_ms) LIVE_INT(scan_interval_s) LIVE_INT(fallback_scan_ms)
    LIVE_INT(kernel_wait_threshold_ns) LIVE_INT(short_kernel_ns) LIVE_INT(analysis_list_rows)
#undef LIVE_INT
    if (s->http) api_set_parse_bounds(s->http, s->cfg.max_parse_mb, s->cfg.max_parse_s);   /* (the exports' too) */
    if (n.log_level != s->cfg.log_level) {
        len += (size_t)snprintf(changed + len, len < sizeof changed ? sizeof changed - len : 0, "%slog_level", len ? ", " : "");
        s->cfg.log_level = n.log_level;
        log_set_level(n.log_level);
    }
    bool roots_same = n.n_roots == s->cfg.n_roots;
    for (size_t i = 0; roots_same && i < n.n_roots; i++) roots_same = !strcmp(n.roots[i], s->cfg.roots[i]);
    bool hooks_same = n.n_webhook_urls == s->cfg.n_webhook_urls;
    for (size_t i = 0; hooks_same && i < n.n_webhook_urls; i++) hooks_same = !strcmp(n.webhook_urls[i], s->cfg.webhook_urls[i]);
#define SAME_STR(a, b) ((!(a) && !(b)) || ((a) && (b) && !strcmp((a), (b))))
    const char *restart = !roots_same ? "root"
        : !SAME_STR(n.db, s->cfg.db) ? "db" : !SAME_STR(n.listen, s->cfg.listen) ? "listen"
        : n.max_connections != s->cfg.max_connections ? "max_connections"
        : n.max_event_streams != s->cfg.max_event_streams ? "max_event_streams"
        : n.connection_timeout_s != s->cfg.connection_timeout_s ? "connection_timeout_s"
        : n.max_request_kb != s->cfg.max_request_kb ? "max_request_kb"
        : !SAME_STR(n.npu_reference_dir, s->cfg.npu_reference_dir) ? "npu_reference_dir"
        : n.db_max_size_mb != s->cfg.db_max_size_mb ? "db_max_size_mb"
        : n.retention_max_runs != s->cfg.retention_max_runs ? "retention_max_runs"
        : n.retention_max_age_days != s->cfg.retention_max_age_days ? "retention_max_age_days"
        : !hooks_same ? "webhook_url"
        : n.metrics_max_runs != s->cfg.metrics_max_runs ? "metrics_max_runs"
        : n.series_baseline_runs != s->cfg.series_baseline_runs ? "series_baseline_runs"
        : !SAME_STR(n.metrics_labels, s->cfg.metrics_labels) ? "metrics_labels"
        : n.scan_only != s->cfg.scan_only ? "watch_mode"
        : !SAME_STR(n.auth_token_file, s->cfg.auth_token_file) ? "auth_token_file"
        : !SAME_STR(n.tls_cert_file, s->cfg.tls_cert_file) || !SAME_STR(n.tls_key_file, s->cfg.tls_key_file)
          || !SAME_STR(n.tls_client_ca_file, s->cfg.tls_client_ca_file) ? "tls_*" : NULL;
#undef SAME_STR
    char log_err[600];                         /* reopened even when unchanged: logrotate moved it */
    if (!log_reopen(n.log_file, log_err, sizeof log_err)) log_error("SIGHUP: %s; logging where it did", log_err);
    else {
        free(s->cfg.log_file);
        s->cfg.log_file = n.log_file ? strdup(n.log_file) : NULL;
    }
    tracker_config_changed(s->trk);
    secret_files_ok(&n, "SIGHUP: ");           /* a key made readable since start is said now, not at the next restart */
    log_info("SIGHUP: configuration reloaded (%s)", len ? changed : "no live setting changed");
    if (restart) log_warn("SIGHUP: %s changed; it takes effect after a restart (systemctl restart goblind)", restart);
    config_free(&n);
}

static void on_sighup(uv_signal_t *h, int signum) {
    (void)signum;
    server *s = h->data;
    if (!s->shutting_down) reload_config(s);
}

int cmd_serve(int argc, char **argv) {
    server s;
    memset(&s, 0, sizeof s);
    s.argc = argc;
    s.argv = argv;
    config_defaults(&s.cfg);
    int rc = load_settings(&s.cfg, argc, argv);
    if (rc) { config_free(&s.cfg); return rc; }
    log_set_level(s.cfg.log_level);
    char log_err[600];
    if (s.cfg.log_file && !log_reopen(s.cfg.log_file, log_err, sizeof log_err)) {
        fprintf(stderr, "goblind serve: %s\n", log_err);
        config_free(&s.cfg);
        return EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);                   /* until the loop handles it: a reload never kills */
    struct rlimit rl;                          /* connections and watched files need descriptors */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    setenv("UV_THREADPOOL_SIZE", "2", 0);     /* parses are CPU-bound; the node is busy training */

    char *err = NULL;
    if (!api_access_ok(s.cfg.listen, s.cfg.auth_token_file, s.cfg.tls_client_ca_file, &err)) {
        log_error("%s", err);                   /* before anything is opened: a clear refusal */
        free(err);
        config_free(&s.cfg);
        return EXIT_USAGE;
    }
    char lock_err[1200];
    if (!secret_files_ok(&s.cfg, "")) {
        config_free(&s.cfg);
        return EXIT_USAGE;
    }
    int lock_fd = db_lock_take(s.cfg.db, lock_err, sizeof lock_err);   /* one daemon per database */
    if (lock_fd < 0) {
        log_error("%s", lock_err);
        config_free(&s.cfg);
        return 1;
    }
    s.st = store_open(s.cfg.db, s.cfg.db_max_size_mb, &err);
    if (!s.st) {
        log_error("database %s: %s", s.cfg.db, err);
        free(err);
        close(lock_fd);
        config_free(&s.cfg);
        return 1;
    }
    if (retention_init(s.st) != 0) {
        char err[256];
        log_error("database %s: cannot create the retention tables: %s", s.cfg.db, store_last_error(s.st, err, sizeof err));
        store_close(s.st);
        config_free(&s.cfg);
        return 1;
    }
    counters_init(&s.counters);
    api_options ao = {.listen = s.cfg.listen, .max_connections = s.cfg.max_connections,
                      .max_event_streams = s.cfg.max_event_streams,
                      .connection_timeout_s = s.cfg.connection_timeout_s, .max_request_kb = s.cfg.max_request_kb,
                      .counters = &s.counters,
                      .metrics_max_runs = s.cfg.metrics_max_runs,
                      .series_baseline_runs = s.cfg.series_baseline_runs, .version = GOBLIND_VERSION,
                      .metrics_labels = s.cfg.metrics_labels, .run_deleted = on_run_deleted, .user = &s,
                      .webhook_urls = (const char *const *)s.cfg.webhook_urls, .n_webhook_urls = s.cfg.n_webhook_urls,
                      .auth_token_file = s.cfg.auth_token_file, .tls_cert_file = s.cfg.tls_cert_file,
                      .tls_key_file = s.cfg.tls_key_file, .tls_client_ca_file = s.cfg.tls_client_ca_file,
                      .max_parse_mb = s.cfg.max_parse_mb, .max_parse_s = s.cfg.max_parse_s};
    uv_loop_init(&s.loop);                     /* the tracker first: DELETEs reach it from the start */
    s.trk = tracker_new(&s.loop, s.st, &s.cfg, &s.counters, on_run_changed, &s);
    s.http = api_start(&ao, s.st, &err);
    if (!s.http) {
        log_error("%s", err);
        free(err);
        tracker_free(s.trk);
        uv_loop_close(&s.loop);
        store_close(s.st);
        close(lock_fd);
        config_free(&s.cfg);
        return 1;
    }
    uv_timer_init(&s.loop, &s.tick);
    s.tick.data = &s;
    uv_timer_start(&s.tick, on_tick, 250, 250);
    uv_timer_init(&s.loop, &s.watchdog);
    uint64_t wd = sd_watchdog_usec();
    if (wd) uv_timer_start(&s.watchdog, on_watchdog, wd / 2000, wd / 2000);
    uv_signal_init(&s.loop, &s.sigterm);
    uv_signal_init(&s.loop, &s.sigint);
    uv_signal_init(&s.loop, &s.sighup);
    s.sigterm.data = s.sigint.data = s.sighup.data = &s;
    uv_signal_start(&s.sigterm, on_signal, SIGTERM);
    uv_signal_start(&s.sigint, on_signal, SIGINT);
    uv_signal_start(&s.sighup, on_sighup, SIGHUP);

    char host[256] = "";
    const char *colon = strrchr(s.cfg.listen, ':');
    snprintf(host, sizeof host, "%.*s", (int)(colon - s.cfg.listen), s.cfg.listen);
    printf("goblind %s listening on %s://%s:%d/ (database %s, %zu root%s)\n", GOBLIND_VERSION,
           s.cfg.tls_cert_file ? "https" : "http", host,
           api_port(s.http), s.cfg.db, s.cfg.n_roots, s.cfg.n_roots == 1 ? "" : "s");
    fflush(stdout);
    for (size_t i = 0; i < s.cfg.n_roots; i++) log_info("watching root %s", s.cfg.roots[i]);

    retention_policy rp = {.max_runs = s.cfg.retention_max_runs, .max_age_days = s.cfg.retention_max_age_days,
                           .max_size_mb = s.cfg.db_max_size_mb};
    s.retention = retention_timer_start(&s.loop, s.st, &rp, s.http);
    tracker_start(s.trk);
    api_set_ready(s.http, true);
    char status[160];
    snprintf(status, sizeof status, "READY=1\nSTATUS=serving on port %d", api_port(s.http));
    sd_notify_send(status);
    uv_run(&s.loop, UV_RUN_DEFAULT);

    if (s.http) api_stop(s.http);
    tracker_free(s.trk);
    uv_loop_close(&s.loop);
    store_close(s.st);
    close(lock_fd);                            /* after the last write */
    config_free(&s.cfg);
    log_info("stopped");
    return 0;
}
