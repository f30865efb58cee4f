/* config: INI parsing and validation. */
#include "daemon/config.h"

#include "base/url_redact.h"

#include "api/listen_addr.h"
#include "api/prometheus.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void config_defaults(goblind_config *c) {
    memset(c, 0, sizeof *c);
    c->db = strdup("./goblind.db");
    c->listen = strdup(DEFAULT_LISTEN);
    c->settle_ms = 500;
    c->settle_max_ms = 5000;
    c->max_parse_mb = 8192;
    c->kernel_wait_threshold_ns = 50000;
    c->short_kernel_ns = 10000;
    c->analysis_list_rows = 200;
    c->max_parse_s = 120;
    c->quiet_s = 5;
    c->quiet_ms = -1;
    c->scan_interval_s = 30;
    c->fallback_scan_ms = 2000;
    c->max_connections = 1024;
    c->connection_timeout_s = 30;
    c->max_request_kb = 32;
    c->metrics_max_runs = 50;
    c->series_baseline_runs = 5;
    c->log_level = LOG_INFO;
}

void config_free(goblind_config *c) {
    for (size_t i = 0; i < c->n_roots; i++) free(c->roots[i]);
    free(c->db);
    free(c->listen);
    free(c->auth_token_file);
    free(c->tls_cert_file);
    free(c->tls_key_file);
    free(c->tls_client_ca_file);
    free(c->log_file);
    free(c->metrics_labels);
    free(c->npu_reference_dir);
    for (size_t i = 0; i < c->n_webhook_urls; i++) free(c->webhook_urls[i]);
    memset(c, 0, sizeof *c);
}

static bool int_in(const char *v, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) return false;
    *out = (int)x;
    return true;
}

bool config_set(goblind_config *c, const char *key, const char *v, char *err, size_t errlen) {
    int *ip = NULL, lo = 0, hi = 0;
    if (!strcmp(key, "root")) {
        if (!*v) { snprintf(err, errlen, "root: empty path"); return false; }
        if (c->n_roots >= MAX_ROOTS) { snprintf(err, errlen, "root: at most %d roots", MAX_ROOTS); return false; }
        for (size_t i = 0; i < c->n_roots; i++)
            if (!strcmp(c->roots[i], v)) return true;
        c->roots[c->n_roots++] = strdup(v);
        return true;
    }
    if (!strcmp(key, "db")) {
        if (!*v) { snprintf(err, errlen, "db: empty path"); return false; }
        free(c->db);
        c->db = strdup(v);
        return true;
    }
    if (!strcmp(key, "listen")) {
        char host[256];
        int port;
        if (!listen_addr_split(v, host, &port)) {
            snprintf(err, errlen, "listen: expected HOST:PORT, got '%s'", v);
            return false;
        }
        free(c->listen);
        c->listen = strdup(v);
        return true;
    }
    char **path = !strcmp(key, "auth_token_file") ? &c->auth_token_file : !strcmp(key, "tls_cert_file") ? &c->tls_cert_file
                : !strcmp(key, "tls_key_file") ? &c->tls_key_file : !strcmp(key, "tls_client_ca_file") ? &c->tls_client_ca_file
                : !strcmp(key, "log_file") ? &c->log_file
                : NULL;
    if (path) {
        free(*path);
        *path = *v ? strdup(v) : NULL;
        return true;
    }
    if (!strcmp(key, "webhook_url")) {
        if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) {
            char shown[512];
            snprintf(err, errlen, "webhook_url: expected an http:// or https:// URL, got '%s'",
                     url_redact(v, shown, sizeof shown));
            return false;
        }
        if (c->n_webhook_urls >= sizeof c->webhook_urls / sizeof c->webhook_urls[0]) {
            snprintf(err, errlen, "webhook_url: at most 8");
            return false;
        }
        c->webhook_urls[c->n_webhook_urls++] = strdup(v);
        return true;
    }
    if (!strcmp(key, "metrics_labels")) {
        char *rendered, why[400];
        if (!prometheus_labels_render(v, &rendered, why, sizeof why)) {
            snprintf(err, errlen, "metrics_labels: %s", why);
            return false;
        }
        free(c->metrics_labels);
        c->metrics_labels = rendered;
        return true;
    }
    if (!strcmp(key, "npu_reference_dir")) {
        free(c->npu_reference_dir);
        c->npu_reference_dir = *v ? strdup(v) : NULL;
        return true;
    }
    if (!strcmp(key, "watch_mode")) {
        if (strcmp(v, "events") && strcmp(v, "scan")) {
            snprintf(err, errlen, "watch_mode: expected events or scan, got '%s'", v);
            return false;
        }
        c->scan_only = !strcmp(v, "scan");
        return true;
    }
    if (!strcmp(key, "log_level")) {
        if (!log_level_parse(v, &c->log_level)) {
            snprintf(err, errlen, "log_level: expected error, warn, info or debug, got '%s'", v);
            return false;
        }
        return true;
    }
    if (!strcmp(key, "settle_ms")) { ip = &c->settle_ms; lo = 10; hi = 600000; }
    else if (!strcmp(key, "max_parse_mb")) { ip = &c->max_parse_mb; lo = 0; hi = 1 << 24; }
    else if (!strcmp(key, "kernel_wait_threshold_ns")) { ip = &c->kernel_wait_threshold_ns; lo = 0; hi = 1000000000; }
    else if (!strcmp(key, "short_kernel_ns")) { ip = &c->short_kernel_ns; lo = 0; hi = 1000000000; }
    else if (!strcmp(key, "analysis_list_rows")) { ip = &c->analysis_list_rows; lo = 0; hi = 1000000; }
    else if (!strcmp(key, "max_parse_s")) { ip = &c->max_parse_s; lo = 0; hi = 86400; }
    else if (!strcmp(key, "settle_max_ms")) { ip = &c->settle_max_ms; lo = 10; hi = 3600000; }
    else if (!strcmp(key, "quiet_s")) { ip = &c->quiet_s; lo = 0; hi = 86400; }
    else if (!strcmp(key, "quiet_ms")) { ip = &c->quiet_ms; lo = 0; hi = 86400000; }
    else if (!strcmp(key, "scan_interval_s")) { ip = &c->scan_interval_s; lo = 1; hi = 86400; }
    else if (!strcmp(key, "fallback_scan_ms")) { ip = &c->fallback_scan_ms; lo = 100; hi = 600000; }
    else if (!strcmp(key, "max_connections")) { ip = &c->max_connections; lo = 4; hi = 65536; }
    else if (!strcmp(key, "max_event_streams")) { ip = &c->max_event_streams; lo = 0; hi = 65536; }
    else if (!strcmp(key, "connection_timeout_s")) { ip = &c->connection_timeout_s; lo = 1; hi = 3600; }
    else if (!strcmp(key, "max_request_kb")) { ip = &c->max_request_kb; lo = 8; hi = 1024; }
    else if (!strcmp(key, "metrics_max_runs")) { ip = &c->metrics_max_runs; lo = 0; hi = 10000; }
    else if (!strcmp(key, "series_baseline_runs")) { ip = &c->series_baseline_runs; lo = 1; hi = 100; }
    else if (!strcmp(key, "db_max_size_mb")) { ip = &c->db_max_size_mb; lo = 0; hi = 1 << 24; }
    else if (!strcmp(key, "retention_max_runs")) { ip = &c->retention_max_runs; lo = 0; hi = 100000000; }
    else if (!strcmp(key, "retention_max_age_days")) { ip = &c->retention_max_age_days; lo = 0; hi = 36500; }
    else {
        snprintf(err, errlen, "unknown setting '%s'", key);
        return false;
    }
    if (!int_in(v, lo, hi, ip)) {
        snprintf(err, errlen, "%s: expected an integer from %d to %d, got '%s'", key, lo, hi, v);
        return false;
    }
    return true;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

/* Inline comments: a '#' or ';' that follows a blank starts a comment ("root = /x # mine"
 * is /x); one inside a word ("/data/run#3") is part of the value. */
static void strip_inline_comment(char *s) {
    for (char *p = s + 1; *p; p++)
        if ((*p == '#' || *p == ';') && (p[-1] == ' ' || p[-1] == '\t')) { *p = '\0'; return; }
}

bool config_load(goblind_config *c, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return false; }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0;
    bool ok = true;
    while (ok && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (n > 4096) {
            snprintf(err, errlen, "%s:%d: line too long (%zd bytes; at most 4096)", path, lineno, n);
            ok = false;
            break;
        }
        const char *nul = memchr(line, '\0', (size_t)n);
        if (nul) {
            snprintf(err, errlen, "%s:%d: NUL byte at column %d (not a text file?)", path, lineno,
                     (int)(nul - line) + 1);
            ok = false;
            break;
        }
        char *s = line;
        if (lineno == 1 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3;   /* a UTF-8 byte order mark: skipped */
        s = trim(s);
        if (!*s || *s == '#' || *s == ';') continue;
        strip_inline_comment(s);
        s = trim(s);
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e || e[1]) { snprintf(err, errlen, "%s:%d: malformed section header", path, lineno); ok = false; break; }
            *e = '\0';
            const char *name = trim(s + 1);
            if (strcmp(name, "goblind")) {            /* a typo would silently ignore every key under it */
                snprintf(err, errlen, "%s:%d: unknown section [%.64s] (the only section is [goblind])", path, lineno, name);
                ok = false;
                break;
            }
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) { snprintf(err, errlen, "%s:%d: expected key = value", path, lineno); ok = false; break; }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        char why[512];
        if (!config_set(c, key, val, why, sizeof why)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            ok = false;
        }
    }
    free(line);
    fclose(f);
    return ok;
}
