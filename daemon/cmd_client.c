/* cmd_client: `goblind runs`, `goblind show <id>`, `goblind kernels <id>`, `goblind forget <id>`,
 * `goblind analysis <id>` and `goblind report <id>`, which ask a daemon over HTTP or HTTPS
 * (http_client.c, libcurl). A daemon's 400 is a usage error (exit 2), any other refusal exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/json_text.h"
#include "base/json_load.h"
#include "daemon/client_opts.h"
#include "daemon/commands.h"
#include "daemon/config.h"
#include "daemon/http_client.h"
#include "daemon/report.h"
#include "base/text_utf8.h"

#define EXIT_RUN_FAILED 3        /* goblind show: the run failed (its metrics were shown) */


/* The token: --token-file, else $GOBLIND_TOKEN, else the file $GOBLIND_TOKEN_FILE. */
static char *read_token(const char *path) {
    if (!path) {
        const char *env = getenv("GOBLIND_TOKEN");
        if (env && *env) return strdup(env);
        path = getenv("GOBLIND_TOKEN_FILE");
        if (!path || !*path) return NULL;
    }
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char b[512] = "";
    if (!fgets(b, sizeof b, f)) b[0] = '\0';
    fclose(f);
    b[strcspn(b, "\r\n")] = '\0';
    return strdup(b);
}

/* Whether s is a decimal integer from lo to hi. */
static bool int_text_in(const char *s, long lo, long hi) {
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v >= lo && v <= hi;
}

/* want: "runs" (no id), "series" (an optional key, --limit, --format), "show" (id, --wait, --format),
 * "kernels" (id, --sort, --limit, --format),
 * "forget" (id), "analysis" and "report" (id, --wait). */
int client_parse_opts(int argc, char **argv, client_opts *o, const char *want) {
    memset(o, 0, sizeof *o);
    bool runs = !strcmp(want, "runs"), show = !strcmp(want, "show"), series = !strcmp(want, "series");
    bool with_id = !runs && !series;             /* series: the key is optional */
    bool kernels = !strcmp(want, "kernels"), compare = !strcmp(want, "compare");
    bool waits = show || !strcmp(want, "analysis") || !strcmp(want, "report");
    o->url = getenv("GOBLIND_URL") && *getenv("GOBLIND_URL") ? getenv("GOBLIND_URL") : DEFAULT_LISTEN;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = !strcmp(a, "--url") ? &o->url : !strcmp(a, "--token-file") ? &o->token_file
                         : !strcmp(a, "--cacert") ? &o->cacert : !strcmp(a, "--cert") ? &o->cert
                         : !strcmp(a, "--key") ? &o->key : NULL;
        if (!dst && runs)
            dst = !strcmp(a, "--status") ? &o->status : !strcmp(a, "--profile") ? &o->profile : !strcmp(a, "--limit") ? &o->limit
                : !strcmp(a, "--cursor") ? &o->cursor : NULL;
        if (!dst && kernels) dst = !strcmp(a, "--sort") ? &o->sort : !strcmp(a, "--limit") ? &o->limit : NULL;
        if (!dst && series && !strcmp(a, "--limit")) dst = &o->limit;
        if (!dst && compare && !strcmp(a, "--rows")) dst = &o->rows;
        if (!dst && (runs || show || kernels || compare || series) && !strcmp(a, "--format")) dst = &o->format;
        if (dst) {
            if (i + 1 >= argc) { fprintf(stderr, "goblind %s: %s needs a value\n", want, a); return EXIT_USAGE; }
            *dst = argv[++i];
        } else if (waits && !strcmp(a, "--wait")) {
            o->wait = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "goblind %s: unknown option '%s' (goblind %s --help)\n", want, a, want);
            return EXIT_USAGE;
        } else if ((with_id || series) && !o->id) {
            o->id = a;
        } else if (compare && !o->id2) {
            o->id2 = a;
        } else {
            fprintf(stderr, "goblind %s: unexpected argument '%s'\n", want, a);
            return EXIT_USAGE;
        }
    }
    if (with_id && !o->id) { fprintf(stderr, "goblind %s: a run id is required\n", want); return EXIT_USAGE; }
    if (compare && !o->id2) { fprintf(stderr, "goblind compare: BASE and CANDIDATE run ids are required\n"); return EXIT_USAGE; }
    if (o->format && strcmp(o->format, "json") && strcmp(o->format, "table") && !(compare && !strcmp(o->format, "markdown"))) {
        fprintf(stderr, "goblind %s: --format takes table%s or json\n", want, compare ? ", markdown" : "");
        return EXIT_USAGE;
    }
    if (o->rows && !int_text_in(o->rows, 1, 1000)) {
        fprintf(stderr, "goblind %s: --rows takes an integer from 1 to 1000, got '%s'\n", want, o->rows);
        return EXIT_USAGE;
    }
    if (o->limit && !int_text_in(o->limit, 1, runs || series ? 1000 : 100000)) {
        fprintf(stderr, "goblind %s: --limit takes an integer from 1 to %d, got '%s'\n", want, runs || series ? 1000 : 100000,
                o->limit);
        return EXIT_USAGE;
    }
    if (o->status && strcmp(o->status, "pending") && strcmp(o->status, "running") && strcmp(o->status, "complete")
        && strcmp(o->status, "failed") && strcmp(o->status, "empty") && strcmp(o->status, "gone")) {
        fprintf(stderr, "goblind %s: --status takes pending, running, complete, failed, empty or gone\n", want);
        return EXIT_USAGE;
    }
    if (o->sort && strcmp(o->sort, "total_ns") && strcmp(o->sort, "calls") && strcmp(o->sort, "avg_ns")
        && strcmp(o->sort, "max_ns") && strcmp(o->sort, "name")) {
        fprintf(stderr, "goblind %s: --sort takes total_ns, calls, avg_ns, max_ns or name\n", want);
        return EXIT_USAGE;
    }
    if (!o->cert != !o->key) { fprintf(stderr, "goblind %s: --cert and --key go together\n", want); return EXIT_USAGE; }
    o->json = o->format && !strcmp(o->format, "json");
    o->token = read_token(o->token_file);
    const char *env_file = getenv("GOBLIND_TOKEN_FILE");
    const char *named = o->token_file ? o->token_file
                        : !(getenv("GOBLIND_TOKEN") && *getenv("GOBLIND_TOKEN")) && env_file && *env_file ? env_file : NULL;
    if (named && !o->token) {                        /* a named file that cannot be read: say so, not 401 */
        fprintf(stderr, "goblind %s: cannot read the token file %s%s\n", want, named,
                o->token_file ? "" : " ($GOBLIND_TOKEN_FILE)");
        return EXIT_USAGE;
    }
    return 0;
}

static void get(const client_opts *o, const char *path, http_reply *r) {
    http_target t = {o->url, o->token, o->cacert, o->cert, o->key};
    http_client_get(&t, path, r);
}

/* The exit status of a daemon's refusal: its 400 says the request was malformed (usage). */
int client_refusal_status(int http_status) { return http_status == 400 ? EXIT_USAGE : 1; }

/* GET path; prints the daemon's error and returns NULL on anything but `ok` (*http_status: the
 * answer's status, 0 when there was none). */
json_t *client_fetch(const client_opts *o, const char *path, int ok, int *http_status) {
    http_reply r;
    get(o, path, &r);
    *http_status = r.status;
    if (!r.status) { fprintf(stderr, "goblind: %s\n", r.error); return NULL; }
    json_t *doc = json_load_checked(r.body, r.len, JSON_ALLOW_NUL, NULL, NULL);
    if (r.status != ok) {
        const char *detail = json_string_value(json_object_get(doc, "detail"));
        fprintf(stderr, "goblind: %s: HTTP %d%s%s\n", path, r.status, detail ? ": " : "", detail ? detail : "");
        json_decref(doc);
        doc = NULL;
    } else if (!doc) {
        fprintf(stderr, "goblind: %s: the reply is not JSON\n", path);
    }
    free(r.body);
    return doc;
}

/* Prints a jansson document as JSON with shortest round-trip numbers (as the daemon does). */
void client_print_json(json_t *doc) {
    char *s = json_text(doc, NULL);
    if (s) puts(s);
    free(s);
}

int cmd_runs(int argc, char **argv) {
    client_opts o;
    int rc = client_parse_opts(argc, argv, &o, "runs");
    if (rc) { free(o.token); return rc; }
    char path[512];
    snprintf(path, sizeof path, "/runs?limit=%s%s%s%s%s%s%s", o.limit ? o.limit : "100", o.status ? "&status=" : "",
             o.status ? o.status : "", o.profile ? "&profile=" : "", o.profile ? o.profile : "", o.cursor ? "&cursor=" : "",
             o.cursor ? o.cursor : "");
    int st;
    json_t *doc = client_fetch(&o, path, 200, &st);
    free(o.token);
    if (!doc) return client_refusal_status(st);
    if (o.json) client_print_json(doc);
    else report_runs(stdout, doc);
    json_decref(doc);
    return 0;
}

int cmd_show(int argc, char **argv) {
    client_opts o;
    int rc = client_parse_opts(argc, argv, &o, "show");
    if (rc) { free(o.token); return rc; }
    char path[300];
    /* --wait: long polls until the run is final (200 complete or empty, 422 failed), however long
     * it takes; a run not discovered yet is waited for by the daemon (?wait) before a 404 */
    http_reply r = {0};
    snprintf(path, sizeof path, "/runs/%s/metrics%s", o.id, o.wait ? "?wait=60" : "");
    for (;;) {
        get(&o, path, &r);
        if (!o.wait || r.status != 202) break;
        free(r.body);
    }
    if (!r.status) { fprintf(stderr, "goblind: %s\n", r.error); free(o.token); return 1; }
    snprintf(path, sizeof path, "/runs/%s", o.id);
    int st;
    json_t *run = client_fetch(&o, path, 200, &st);          /* after the wait: the final state */
    free(o.token);
    if (!run) { free(r.body); return client_refusal_status(st); }
    bool has_metrics = r.status == 200 || r.status == 422;
    json_t *m = has_metrics ? json_load_checked(r.body, r.len, JSON_ALLOW_NUL, NULL, NULL) : NULL;
    bool failed = r.status == 422;
    if (o.json) {
        json_t *both = json_pack("{s:O, s:O?}", "run", run, "metrics", m);
        client_print_json(both);
        json_decref(both);
    } else {
        char eb[384];
        const char *err = json_string_value(json_object_get(run, "error"));
        if (err) err = text_terminal(err, eb, sizeof eb);
        char title[512];
        snprintf(title, sizeof title, "run %s  %s  updated %s%s%s%s", o.id, json_string_value(json_object_get(run, "status")),
                 json_string_value(json_object_get(run, "updated_at")), err ? "  (" : "", err ? err : "", err ? ")" : "");
        if (m) report_metrics(stdout, title, m, run, report_use_unicode());
        else printf("%s\n\n  no metrics yet (HTTP %d): the run is still being written or parsed\n", title, r.status);
        fputc('\n', stdout);
        report_sources(stdout, run);
        if (report_is_goblin(run))               /* goblin_runner's three files: how each was read */
            report_reading(stdout, json_object_get(run, "artefacts"), m,
                           json_number_value(json_object_get(run, "step_time_seconds")));
        else                                     /* another profiler's files: what read each */
            report_run_sources(stdout, json_object_get(run, "sources"));
    }
    json_decref(m);
    json_decref(run);
    free(r.body);
    return failed ? EXIT_RUN_FAILED : 0;
}

int cmd_forget(int argc, char **argv) {
    client_opts o;
    int rc = client_parse_opts(argc, argv, &o, "forget");
    if (rc) { free(o.token); return rc; }
    char path[300];
    snprintf(path, sizeof path, "/runs/%s", o.id);
    http_target t = {o.url, o.token, o.cacert, o.cert, o.key};
    http_reply r;
    http_client_delete(&t, path, &r);
    free(o.token);
    if (!r.status) { fprintf(stderr, "goblind: %s\n", r.error); return 1; }
    json_t *doc = json_load_checked(r.body, r.len, JSON_ALLOW_NUL, NULL, NULL);
    int ret = 0;
    if (r.status == 200) {
        printf("forgot run %s\n", o.id);
    } else {
        const char *detail = json_string_value(json_object_get(doc, "detail"));
        fprintf(stderr, "goblind: DELETE %s: HTTP %d%s%s\n", path, r.status, detail ? ": " : "", detail ? detail : "");
        ret = client_refusal_status(r.status);
    }
    json_decref(doc);
    free(r.body);
    return ret;
}

/* goblind analysis|report RUN_ID: the stored analysis document (JSON) or report (Markdown) on
 * stdout, byte for byte as the daemon serves it. --wait long polls until the run is final. Exit
 * 0, 3 when the run failed (the document is still printed), 1 when there is none or no daemon. */
static int print_stored_doc(int argc, char **argv, const char *want, const char *endpoint) {
    client_opts o;
    int rc = client_parse_opts(argc, argv, &o, want);
    if (rc) { free(o.token); return rc; }
    char path[300];
    snprintf(path, sizeof path, "/runs/%s/%s%s", o.id, endpoint, o.wait ? "?wait=60" : "");
    http_reply r = {0};
    for (;;) {
        get(&o, path, &r);
        if (!o.wait || r.status != 202) break;
        free(r.body);
    }
    free(o.token);
    if (!r.status) { fprintf(stderr, "goblind: %s\n", r.error); return 1; }
    int ret = 0;
    if (r.status == 200 || r.status == 422) {
        fwrite(r.body, 1, r.len, stdout);
        if (r.len && r.body[r.len - 1] != '\n') fputc('\n', stdout);
        ret = r.status == 422 ? EXIT_RUN_FAILED : 0;
    } else {
        json_t *doc = json_load_checked(r.body, r.len, JSON_ALLOW_NUL, NULL, NULL);
        const char *detail = json_string_value(json_object_get(doc, "detail"));
        fprintf(stderr, "goblind: %s: HTTP %d%s%s\n", path, r.status, detail ? ": " : "", detail ? detail : "");
        json_decref(doc);
        ret = client_refusal_status(r.status);
    }
    free(r.body);
    return ret;
}

int cmd_analysis(int argc, char **argv) { return print_stored_doc(argc, argv, "analysis", "analysis"); }
int cmd_report(int argc, char **argv) { return print_stored_doc(argc, argv, "report", "report.md"); }

/* A number of nanoseconds in unit (1e6: ms, 1e3: us), or "-" when the row does not have it. */
static void put_ns(FILE *out, json_t *v, double unit) {
    if (json_is_number(v)) fprintf(out, " %11.3f", json_number_value(v) / unit);
    else fprintf(out, " %11s", "-");
}

/* goblind kernels RUN_ID: GET /runs/<id>/kernels as a table (or the body as JSON). */
int cmd_kernels(int argc, char **argv) {
    client_opts o;
    int rc = client_parse_opts(argc, argv, &o, "kernels");
    if (rc) { free(o.token); return rc; }
    char path[400];
    snprintf(path, sizeof path, "/runs/%s/kernels?limit=%s%s%s", o.id, o.limit ? o.limit : "100", o.sort ? "&sort=" : "",
             o.sort ? o.sort : "");
    int st;
    json_t *doc = client_fetch(&o, path, 200, &st);
    free(o.token);
    if (!doc) return client_refusal_status(st);
    if (o.json) {
        client_print_json(doc);
    } else {
        json_t *rows = json_object_get(doc, "kernels");
        const char *source = json_string_value(json_object_get(doc, "source"));
        printf("run %s: %zu kernel%s%s%s\n\n", o.id, json_array_size(rows), json_array_size(rows) == 1 ? "" : "s",
               source ? " from " : "", source ? source : "");
        printf("%10s %11s %11s %7s  %-13s %s\n", "calls", "total ms", "avg us", "time %", "class", "name");
        size_t i;
        json_t *k;
        json_array_foreach(rows, i, k) {
            printf("%10lld", (long long)json_integer_value(json_object_get(k, "calls")));
            put_ns(stdout, json_object_get(k, "total_ns"), 1e6);
            put_ns(stdout, json_object_get(k, "avg_ns"), 1e3);
            json_t *pct = json_object_get(k, "pct_time");
            if (json_is_number(pct)) printf(" %7.2f", json_number_value(pct));
            else printf(" %7s", "-");
            const char *cls = json_string_value(json_object_get(k, "class"));
            printf("  %-13s ", cls ? cls : "-");
            text_terminal_put(stdout, json_string_value(json_object_get(k, "name")));
            putchar('\n');
        }
    }
    json_decref(doc);
    return 0;
}
