/* config: goblind serve settings from an INI file, then command-line flags over it.
 * Every key is documented in config/goblind.conf. */
#ifndef GOBLIN_CONFIG_H
#define GOBLIN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/log.h"

/* Where the daemon listens and the clients connect unless told otherwise. */
#define DEFAULT_LISTEN "127.0.0.1:9477"
#define MAX_ROOTS 64

typedef struct goblind_config {
    char *roots[MAX_ROOTS];
    size_t n_roots;
    char *db;
    int db_max_size_mb;         /* 0: unlimited; else writes fail (and are retried) beyond it */
    char *listen;               /* HOST:PORT */
    int settle_ms;              /* debounce after the last file event before parsing */
    int settle_max_ms;          /* ...but parse at most this long after the first unparsed event */
    int max_parse_mb;           /* bytes one artefact may feed its parser (after inflation); 0: none */
    int max_parse_s;            /* seconds one parse may take; 0: none */
    int quiet_s;                /* no change for this long after a good parse = complete */
    int quiet_ms;               /* >= 0: the quiet period in ms instead of quiet_s (sub-second); -1: unset */
    int scan_interval_s;        /* safety-net rescan of roots and runs */
    int fallback_scan_ms;       /* rescan period once inotify watches run out */
    bool scan_only;             /* watch_mode = scan: no inotify at all (NFS, tests) */
    int max_connections;
    int max_event_streams;      /* GET /events streams open at once; 0: a quarter of max_connections */
    int connection_timeout_s;
    int max_request_kb;         /* per-connection memory: bounds request line + headers */
    int metrics_max_runs;       /* runs exported with per-run series on /metrics */
    int series_baseline_runs;   /* runs before a run pooled into its series baseline (1..100) */
    char *metrics_labels;
    int retention_max_runs;     /* 0: keep every run; else evict the oldest finished runs beyond it */
    int retention_max_age_days; /* 0: keep forever; else evict finished runs not updated for this long */
    char *webhook_urls[8];      /* webhook_url (repeatable): POST each run event there */
    size_t n_webhook_urls;       /* static labels for /metrics, rendered k="v",... (NULL: none) */
    char *auth_token_file;      /* bearer token required on every endpoint but /healthz */
    char *tls_cert_file, *tls_key_file;   /* HTTPS */
    char *tls_client_ca_file;   /* require client certificates signed by this CA */
    /* the analysis document (core/run_analysis, analyses/section.h's analysis_config) */
    int kernel_wait_threshold_ns;   /* timeline: an idle gap shorter than this is kernel_wait */
    int short_kernel_ns;            /* timeline: a kernel shorter than this is short */
    int analysis_list_rows;         /* per-name tables of the analysis document list this many rows (0: all) */
    char *npu_reference_dir;        /* msprof reference durations; NULL: <run>/reference */
    log_level log_level;
    char *log_file;             /* NULL: stderr (journald); else appended to, reopened on SIGHUP */
} goblind_config;

/* Every key at its default (docs/OPERATIONS.md, config/goblind.conf). */
void config_defaults(goblind_config *c);
/* Frees the strings and lists c owns. */
void config_free(goblind_config *c);
/* Sets one key. false with a message in err (size errlen) when the key or value is bad.
 * Each "root" adds a root (cmd_serve.c clears the file's roots before the first --root flag). */
bool config_set(goblind_config *c, const char *key, const char *value, char *err, size_t errlen);
/* Reads an INI file: keys before any section or under [goblind]; any other section is an
 * error (a misspelt header would hide every key). '#' and ';' start a comment at the start
 * of a line or after a blank; a UTF-8 BOM is skipped; a NUL byte or a line over 4096 bytes is
 * an error naming the line. */
bool config_load(goblind_config *c, const char *path, char *err, size_t errlen);

#endif
