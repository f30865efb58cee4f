/* cmd_serve: `goblind serve`. Wires config, store, tracker (loop thread + worker pool)
 * and the HTTP API (its own thread), and shuts them down in order on SIGTERM/SIGINT:
 * stop accepting, let in-flight ingests commit, close the database, exit 0. */
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "api/http_api.h"
#include "daemon/commands.h"
#include "daemon/config.h"
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
    uv_signal_t sigterm, sigint;
    bool shutting_down;
} server;

static void on_run_changed(void *user, const char *run_id) {
    server *s = user;
    api_notify_run(s->http, run_id);
}

/* DELETE /runs/<id> (HTTP thread): the log line. */
static void on_run_deleted(void *user, const char *run_id) {
    (void)user;
    run_log_deleted(run_id, "DELETE /runs/<id>");
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
    retention_timer_stop(s->retention);
    uv_close((uv_handle_t *)&s->watchdog, NULL);
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
}

static void on_signal(uv_signal_t *h, int signum) {
    server *s = h->data;
    if (s->shutting_down) return;
    s->shutting_down = true;
    log_info("%s: shutting down (finishing in-flight ingests)", signum == SIGTERM ? "SIGTERM" : "SIGINT");
    sd_notify_send("STOPPING=1");
    api_stop(s->http);                  /* no new requests; waiting long polls are answered */
    s->http = NULL;
    tracker_stop(s->trk, on_tracker_stopped, s);
}

static int usage_error(const char *msg) {
    fprintf(stderr, "goblind serve: %s\n", msg);
    usage(stderr);
    return EXIT_USAGE;
}

/* Flags: --config FILE first (anywhere on the line), then every other flag over it. */
static int load_settings(goblind_config *c, int argc, char **argv) {
    char err[600];
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 >= argc) return usage_error("--config needs a file");
            if (!config_load(c, argv[i + 1], err, sizeof err)) {
                fprintf(stderr, "goblind serve: %s\n", err);
                return EXIT_USAGE;
            }
        }
    static const struct { const char *flag, *key; } FLAGS[] = {
        {"--root", "root"}, {"--db", "db"}, {"--listen", "listen"}, {"--settle-ms", "settle_ms"},
        {"--quiet-s", "quiet_s"}, {"--scan-interval-s", "scan_interval_s"}, {"--fallback-scan-ms", "fallback_scan_ms"},
        {"--max-connections", "max_connections"}, {"--connection-timeout-s", "connection_timeout_s"},
        {"--log-level", "log_level"}, {"--watch-mode", "watch_mode"}, {"--metrics-max-runs", "metrics_max_runs"},
        {"--metrics-labels", "metrics_labels"},
        {"--auth-token-file", "auth_token_file"}, {"--tls-cert-file", "tls_cert_file"}, {"--tls-key-file", "tls_key_file"},
        {"--tls-client-ca-file", "tls_client_ca_file"},
        {"--db-max-size-mb", "db_max_size_mb"}, {"--retention-max-runs", "retention_max_runs"},
        {"--retention-max-age-days", "retention_max_age_days"}, {"--webhook-url", "webhook_url"}, {"--max-request-kb", "max_request_kb"},
    };
    bool roots_from_flags = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config")) { i++; continue; }
        size_t f = 0;
        for (; f < sizeof FLAGS / sizeof FLAGS[0] && strcmp(argv[i], FLAGS[f].flag); f++) {}
        if (f == sizeof FLAGS / sizeof FLAGS[0]) {
            snprintf(err, sizeof err, "unknown argument '%s'", argv[i]);
            return usage_error(err);
        }
        if (i + 1 >= argc) {
            snprintf(err, sizeof err, "%s needs a value", argv[i]);
            return usage_error(err);
        }
        if (!strcmp(FLAGS[f].key, "root") && !roots_from_flags) {   /* flags replace the file's roots */
            roots_from_flags = true;
            for (size_t r = 0; r < c->n_roots; r++) free(c->roots[r]);
            c->n_roots = 0;
        }
        char why[512];
        if (!config_set(c, FLAGS[f].key, argv[++i], why, sizeof why)) {
            snprintf(err, sizeof err, "%s: %s", argv[i - 1], why);
            return usage_error(err);
        }
    }
    if (c->n_roots == 0) config_set(c, "root", "./runs", err, sizeof err);
    return 0;
}

int cmd_serve(int argc, char **argv) {
    server s;
    memset(&s, 0, sizeof s);
    config_defaults(&s.cfg);
    int rc = load_settings(&s.cfg, argc, argv);
    if (rc) { config_free(&s.cfg); return rc; }
    log_set_level(s.cfg.log_level);
    signal(SIGPIPE, SIG_IGN);
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
    s.st = store_open(s.cfg.db, s.cfg.db_max_size_mb, &err);
    if (!s.st) {
        log_error("database %s: %s", s.cfg.db, err);
        free(err);
        config_free(&s.cfg);
        return 1;
    }
    if (retention_init(s.st) != 0) {
        log_error("database %s: cannot create the retention tables: %s", s.cfg.db, store_last_error(s.st));
        store_close(s.st);
        config_free(&s.cfg);
        return 1;
    }
    counters_init(&s.counters);
    api_options ao = {.listen = s.cfg.listen, .max_connections = s.cfg.max_connections,
                      .connection_timeout_s = s.cfg.connection_timeout_s, .max_request_kb = s.cfg.max_request_kb,
                      .counters = &s.counters,
                      .metrics_max_runs = s.cfg.metrics_max_runs, .version = GOBLIND_VERSION,
                      .metrics_labels = s.cfg.metrics_labels, .run_deleted = on_run_deleted, .user = &s,
                      .webhook_urls = (const char *const *)s.cfg.webhook_urls, .n_webhook_urls = s.cfg.n_webhook_urls,
                      .auth_token_file = s.cfg.auth_token_file, .tls_cert_file = s.cfg.tls_cert_file,
                      .tls_key_file = s.cfg.tls_key_file, .tls_client_ca_file = s.cfg.tls_client_ca_file};
    s.http = api_start(&ao, s.st, &err);
    if (!s.http) {
        log_error("%s", err);
        free(err);
        store_close(s.st);
        config_free(&s.cfg);
        return 1;
    }
    uv_loop_init(&s.loop);
    s.trk = tracker_new(&s.loop, s.st, &s.cfg, &s.counters, on_run_changed, &s);
    uv_timer_init(&s.loop, &s.tick);
    s.tick.data = &s;
    uv_timer_start(&s.tick, on_tick, 250, 250);
    uv_timer_init(&s.loop, &s.watchdog);
    uint64_t wd = sd_watchdog_usec();
    if (wd) uv_timer_start(&s.watchdog, on_watchdog, wd / 2000, wd / 2000);
    uv_signal_init(&s.loop, &s.sigterm);
    uv_signal_init(&s.loop, &s.sigint);
    s.sigterm.data = s.sigint.data = &s;
    uv_signal_start(&s.sigterm, on_signal, SIGTERM);
    uv_signal_start(&s.sigint, on_signal, SIGINT);

    char host[256] = "";
    const char *colon = strrchr(s.cfg.listen, ':');
    snprintf(host, sizeof host, "%.*s", (int)(colon - s.cfg.listen), s.cfg.listen);
    printf("goblind %s listening on %s://%s:%d/ (database %s, %zu root%s)\n", GOBLIND_VERSION,
           s.cfg.tls_cert_file ? "https" : "http", host,
           api_port(s.http), s.cfg.db, s.cfg.n_roots, s.cfg.n_roots == 1 ? "" : "s");
    fflush(stdout);
    for (size_t i = 0; i < s.cfg.n_roots; i++) log_info("watching root %s", s.cfg.roots[i]);

    retention_policy rp = {s.cfg.retention_max_runs, s.cfg.retention_max_age_days, s.cfg.db_max_size_mb, false};
    s.retention = retention_timer_start(&s.loop, s.st, &rp, s.http, &s.counters);
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
    config_free(&s.cfg);
    log_info("stopped");
    return 0;
}
