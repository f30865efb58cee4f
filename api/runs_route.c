/* runs_route: GET /runs (a page of runs, newest first, filtered by status or profile family)
 * and GET /runs/<id> (one run's fields, warnings, artefacts as read, and sources): JSON
 * written straight from the runs' stored rows (docs/API.md). Internal to api/. */
#include "api/routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json_load.h"
#include "base/json_writer.h"
#include "core/run_files.h"
#include "storage/run_detail.h"

/* ms since the epoch as ISO 8601 UTC with milliseconds ("2025-01-31T12:00:00.000Z"). */
static void iso_text(int64_t ms, char *b, size_t n) {
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(b, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

/* ---- /runs ------------------------------------------------------------------------ */

static void opt_number(jw_out *j, const char *key, opt_num v) {
    jw_key(j, key);
    if (v.has) jw_number(j, v.v);
    else jw_null(j);
}

/* "profile": the stored comma-separated families as an array (null: not ingested yet). */
static void profile_field(jw_out *j, const char *profile) {
    jw_key(j, "profile");
    if (!profile) { jw_null(j); return; }
    jw_array_open(j);
    for (const char *p = profile; *p;) {
        size_t n = strcspn(p, ",");
        if (n) jw_string_n(j, p, n);
        p += n + (p[n] == ',');
    }
    jw_array_close(j);
}

/* Member `member` ("sources" or "labels") of the stored headline JSON as key (null when absent
 * or not JSON). Memory running out fails the answer (jw_fail): a null would look like "none". */
static void headline_field(jw_out *j, const char *key, const char *stored, const char *member) {
    jw_key(j, key);
    bool oom = false;
    json_t *doc = stored ? json_load_checked(stored, strlen(stored), 0, NULL, &oom) : NULL;
    if (oom) jw_fail(j);
    json_t *v = json_object_get(doc, member);
    char *text = v && !json_is_null(v) ? json_dumps_checked(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (v && !json_is_null(v) && !text) jw_fail(j);
    if (text) jw_json(j, text, strlen(text));
    else jw_null(j);
    free(text);
    json_decref(doc);
}

/* One /runs entry, written straight to JSON text: a page has up to 1000 of them. */
static void add_list_row(void *user, const run_row *r) {
    jw_out *j = user;
    char t[96];
    jw_object_open(j);
    jw_key(j, "id");
    jw_string(j, r->id);
    jw_key(j, "status");
    jw_string(j, store_run_status_name(r->status));
    jw_key(j, "updated_at");
    iso_text(r->updated_at, t, sizeof t);
    jw_string(j, t);
    /* null until known: not parsed yet, or the artefact that gives it missing (a measured 0,
     * such as an idle GPU's utilisation, is listed as 0) */
    opt_number(j, "tokens_per_sec", r->tokens_per_sec);
    opt_number(j, "mfu_pct", r->mfu_pct);
    opt_number(j, "gpu_util_pct", r->gpu_util_pct);
    opt_number(j, "step_time_seconds", r->step_seconds);
    opt_number(j, "hbm_peak_gb", r->hbm_peak_gb);
    opt_number(j, "hbm_avg_gb", r->hbm_avg_gb);
    profile_field(j, r->profile);
    headline_field(j, "labels", r->headline_json, "labels");
    jw_object_close(j);
}

/* Whether name is one of the fixed families (RUN_PROFILE_FAMILIES). */
static bool profile_family_known(const char *name) {
    size_t n = strlen(name);
    for (const char *p = RUN_PROFILE_FAMILIES; n && *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !memcmp(p, name, n)) return true;
        p += m + (p[m] == ',');
    }
    return false;
}

enum MHD_Result route_runs(api *a, struct MHD_Connection *c) {
    long limit;
    if (!route_int_arg(c, "limit", 1, 1000, 100, &limit))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "limit must be an integer from 1 to 1000");
    int status = -1;
    const char *s = route_arg(c, "status");
    if (s) {
        run_status st;
        if (!store_run_status_parse(s, &st))
            return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request",
                                  "status must be pending, running, complete, failed, empty or gone");
        status = (int)st;
    }
    const char *profile = route_arg(c, "profile");
    if (profile && !profile_family_known(profile))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request",
                              "profile must be one of " RUN_PROFILE_FAMILIES " (docs/API.md)");
    const char *cursor = route_arg(c, "cursor");
    strbuf out = {0};
    jw_out j;
    jw_begin(&j, &out, 0);
    jw_object_open(&j);
    jw_key(&j, "runs");
    jw_array_open(&j);
    char next[300];
    store_reader *rd = store_reader_acquire(api_store(a));
    int n = store_list_runs_profile(rd, status, profile, (int)limit, cursor, false, add_list_row, &j, next, sizeof next);
    if (n >= 0 && store_reader_failed(rd)) n = STORE_READ_FAILED;
    store_reader_release(api_store(a), rd);
    if (n < 0) {
        strbuf_free(&out);
        if (store_corruption(api_store(a))) return route_no_such_run(a, c);
        if (n == STORE_READ_FAILED)       /* memory or I/O: the server's fault, not the cursor's */
            return api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the run list could not be read");
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "cursor is not one this server gave out");
    }
    jw_array_close(&j);
    jw_key(&j, "next_cursor");
    if (next[0]) jw_string(&j, next);
    else jw_null(&j);
    jw_object_close(&j);
    if (!strbuf_terminate(&out)) {           /* lost bytes for lack of memory: no answer */
        strbuf_free(&out);
        return MHD_NO;
    }
    return api_send_owned(c, MHD_HTTP_OK, out.data, out.len, NULL);
}

/* ---- /runs/<id> --------------------------------------------------------------------- */

static void iso_field(jw_out *j, const char *key, int64_t ms) {
    jw_key(j, key);
    if (ms <= 0) { jw_null(j); return; }
    char b[96];
    iso_text(ms, b, sizeof b);
    jw_string(j, b);
}

static void text_or_null(jw_out *j, const char *key, const char *v) {
    jw_key(j, key);
    if (v) jw_string(j, v);
    else jw_null(j);
}

/* The run's own fields, from its row (headline numbers from their columns). */
static void detail_row(void *user, const run_row *row) {
    jw_out *j = user;
    jw_key(j, "id");
    jw_string(j, row->id);
    jw_key(j, "status");
    jw_string(j, store_run_status_name(row->status));
    jw_key(j, "root");
    jw_string(j, row->root);
    jw_key(j, "path");
    jw_string(j, row->path);
    iso_field(j, "created_at", row->created_at);
    iso_field(j, "updated_at", row->updated_at);
    iso_field(j, "completed_at", row->completed_at);
    jw_key(j, "ingest_count");
    jw_int(j, row->ingest_count);
    jw_key(j, "last_parse_ms");
    if (row->ingest_count) jw_number(j, row->parse_ms);
    else jw_null(j);
    text_or_null(j, "error", row->error);
    opt_number(j, "step_time_seconds", row->step_seconds);
    opt_number(j, "tokens_per_sec", row->tokens_per_sec);
    opt_number(j, "mfu_pct", row->mfu_pct);
    opt_number(j, "gpu_util_pct", row->gpu_util_pct);
    opt_number(j, "hbm_peak_gb", row->hbm_peak_gb);
    opt_number(j, "hbm_avg_gb", row->hbm_avg_gb);
    profile_field(j, row->profile);
    headline_field(j, "labels", row->headline_json, "labels");
    /* where each headline number came from: {field: {"source", "rule"} | null} */
    headline_field(j, "headline_sources", row->headline_json, "sources");
}

typedef struct detail_read { jw_out *j; bool found; run_status status; int64_t ingest_count; } detail_read;

static void detail_head(void *user, const run_row *row) {
    detail_read *d = user;
    d->found = true;
    d->status = row->status;
    d->ingest_count = row->ingest_count;
    detail_row(d->j, row);
}

/* One artefact: identity, how it was read (found_by, sniff_score, columns, rows_used,
 * rows_skipped, steps_source, step_time_source; docs/API.md) as storage extracted them. */
static void add_artefact(void *user, const run_artefact_row *a, const char *facts) {
    jw_out *j = user;
    jw_object_open(j);
    jw_key(j, "kind");
    jw_string(j, a->kind);
    jw_key(j, "path");
    jw_string(j, a->path);
    jw_key(j, "present");
    jw_bool(j, a->present);
    /* a file that is not there has no identity, and was not parsed: null, not 0 */
    static const char *const FILE_KEYS[] = {"size", "mtime_ns", "inode", "bytes_parsed"};
    const int64_t file_vals[] = {a->size, a->mtime_ns, a->inode, a->bytes_parsed};
    for (size_t i = 0; i < sizeof FILE_KEYS / sizeof *FILE_KEYS; i++) {
        jw_key(j, FILE_KEYS[i]);
        if (a->present) jw_int(j, file_vals[i]);
        else jw_null(j);
    }
    jw_key(j, "parse_ms");
    if (a->present) jw_number(j, a->parse_ms);
    else jw_null(j);
    text_or_null(j, "format", a->format);
    text_or_null(j, "error", a->error);
    /* the facts object's members, spliced into this one: {"found_by":...} minus its braces */
    size_t n = facts ? strlen(facts) : 0;
    if (n > 2) {
        strbuf_putc(j->buf, ',');
        strbuf_append(j->buf, facts + 1, n - 2);
    }
    jw_object_close(j);
}

enum MHD_Result route_run(api *a, api_request *req, struct MHD_Connection *c, const char *id) {
    long wait;
    if (!route_int_arg(c, "wait", 0, ROUTE_MAX_WAIT_S, 0, &wait))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "wait must be an integer from 0 to 60 (seconds)");
    strbuf out = {0};
    jw_out j;
    jw_begin(&j, &out, 0);
    jw_object_open(&j);
    detail_read d = {.j = &j};
    store_reader *rd = store_reader_acquire(api_store(a));
    store_get_run(rd, id, detail_head, &d);
    char *warnings = d.found ? store_run_warnings(rd, id) : NULL;
    if (warnings) {
        jw_key(&j, "warnings");
        jw_json(&j, warnings, strlen(warnings));
        jw_key(&j, "artefacts");
        jw_array_open(&j);
        store_get_artefact_facts(rd, id, add_artefact, &j);
        jw_array_close(&j);
        char *sources = store_run_sources(rd, id);   /* every file and its format; null: no document */
        jw_key(&j, "sources");
        if (sources) jw_json(&j, sources, strlen(sources));
        else jw_null(&j);
        free(sources);
    }
    bool failed = store_reader_failed(rd);
    store_reader_release(api_store(a), rd);
    jw_object_close(&j);
    if (failed) {
        free(warnings);
        strbuf_free(&out);
        return route_read_failed(a, c);
    }
    if (!d.found || !warnings || store_corruption(api_store(a))) {
        free(warnings);
        strbuf_free(&out);
        if (!d.found && route_wait_for_run(a, req, c, id, wait)) return MHD_YES;   /* not discovered yet */
        return route_no_such_run(a, c);
    }
    free(warnings);
    if (!strbuf_terminate(&out)) {             /* the answer lost bytes for lack of memory */
        strbuf_free(&out);
        return route_read_failed(a, c);
    }
    char etag[64];
    snprintf(etag, sizeof etag, "\"%lld-%s\"", (long long)d.ingest_count, store_run_status_name(d.status));
    return api_send_owned(c, MHD_HTTP_OK, out.data, out.len, etag);
}
