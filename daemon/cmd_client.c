/* cmd_client: `goblind runs`, `goblind show <id>`, `goblind forget <id>`, `goblind analysis <id>`
 * and `goblind report <id>`, which ask a daemon over HTTP or HTTPS (http_client.c, libcurl). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/json_text.h"
#include "daemon/commands.h"
#include "daemon/http_client.h"
#include "daemon/report.h"

#define EXIT_RUN_FAILED 3        /* goblind show: the run failed (its metrics were shown) */

typedef struct client_opts {
    const char *url, *status, *profile, *limit, *cursor, *token_file, *cacert, *cert, *key, *format, *id;
    bool wait, json;
    char *token;
} client_opts;

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

/* want: "runs" (no id), "show" (id, --wait, --format), "forget" (id), "analysis" and "report"
 * (id, --wait). */
static int parse_opts(int argc, char **argv, client_opts *o, const char *want) {
    memset(o, 0, sizeof *o);
    bool runs = !strcmp(want, "runs"), show = !strcmp(want, "show"), with_id = !runs;
    bool waits = show || !strcmp(want, "analysis") || !strcmp(want, "report");
    o->url = getenv("GOBLIND_URL") && *getenv("GOBLIND_URL") ? getenv("GOBLIND_URL") : "127.0.0.1:9477";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = !strcmp(a, "--url") ? &o->url : !strcmp(a, "--token-file") ? &o->token_file
                         : !strcmp(a, "--cacert") ? &o->cacert : !strcmp(a, "--cert") ? &o->cert
                         : !strcmp(a, "--key") ? &o->key : NULL;
        if (!dst && runs)
            dst = !strcmp(a, "--status") ? &o->status : !strcmp(a, "--profile") ? &o->profile : !strcmp(a, "--limit") ? &o->limit
                : !strcmp(a, "--cursor") ? &o->cursor : NULL;
        if (!dst && (runs || show) && !strcmp(a, "--format")) dst = &o->format;
        if (dst) {
            if (i + 1 >= argc) { fprintf(stderr, "goblind %s: %s needs a value\n", want, a); return EXIT_USAGE; }
            *dst = argv[++i];
        } else if (waits && !strcmp(a, "--wait")) {
            o->wait = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "goblind %s: unknown option '%s' (goblind %s --help)\n", want, a, want);
            return EXIT_USAGE;
        } else if (with_id && !o->id) {
            o->id = a;
        } else {
            fprintf(stderr, "goblind %s: unexpected argument '%s'\n", want, a);
            return EXIT_USAGE;
        }
    }
    if (with_id && !o->id) { fprintf(stderr, "goblind %s: a run id is required\n", want); return EXIT_USAGE; }
    if (o->format && strcmp(o->format, "json") && strcmp(o->format, "table")) {
        fprintf(stderr, "goblind %s: --format takes table or json\n", want);
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
    http_get(&t, path, r);
}

/* GET path; prints the daemon's error and returns NULL on anything but `ok`. */
static json_t *fetch(const client_opts *o, const char *path, int ok) {
    http_reply r;
    get(o, path, &r);
    if (!r.status) { fprintf(stderr, "goblind: %s\n", r.error); return NULL; }
    json_t *doc = json_loadb(r.body, r.len, 0, NULL);
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
static void print_json(json_t *doc) {
    char *s = json_text(doc, NULL);
    if (s) puts(s);
    free(s);
}

int cmd_runs(int argc, char **argv) {
    client_opts o;
    int rc = parse_opts(argc, argv, &o, "runs");
    if (rc) { free(o.token); return rc; }
    char path[512];
    snprintf(path, sizeof path, "/runs?limit=%s%s%s%s%s%s%s", o.limit ? o.limit : "100", o.status ? "&status=" : "",
             o.status ? o.status : "", o.profile ? "&profile=" : "", o.profile ? o.profile : "", o.cursor ? "&cursor=" : "",
             o.cursor ? o.cursor : "");
    json_t *doc = fetch(&o, path, 200);
    free(o.token);
    if (!doc) return 1;
    if (o.json) print_json(doc);
    else report_runs(stdout, doc);
    json_decref(doc);
    return 0;
}

int cmd_show(int argc, char **argv) {
    client_opts o;
    int rc = parse_opts(argc, argv, &o, "show");
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
    json_t *run = fetch(&o, path, 200);                       /* after the wait: the final state */
    free(o.token);
    if (!run) { free(r.body); return 1; }
    bool has_metrics = r.status == 200 || r.status == 422;
    json_t *m = has_metrics ? json_loadb(r.body, r.len, 0, NULL) : NULL;
    bool failed = r.status == 422;
    if (o.json) {
        json_t *both = json_pack("{s:O, s:O?}", "run", run, "metrics", m);
        print_json(both);
        json_decref(both);
    } else {
        const char *err = json_string_value(json_object_get(run, "error"));
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
    int rc = parse_opts(argc, argv, &o, "forget");
    if (rc) { free(o.token); return rc; }
    char path[300];
    snprintf(path, sizeof path, "/runs/%s", o.id);
    http_target t = {o.url, o.token, o.cacert, o.cert, o.key};
    http_reply r;
    http_delete(&t, path, &r);
    free(o.token);
    if (!r.status) { fprintf(stderr, "goblind: %s\n", r.error); return 1; }
    json_t *doc = json_loadb(r.body, r.len, 0, NULL);
    int ret = 0;
    if (r.status == 200) {
        printf("forgot run %s\n", o.id);
    } else {
        const char *detail = json_string_value(json_object_get(doc, "detail"));
        fprintf(stderr, "goblind: DELETE %s: HTTP %d%s%s\n", path, r.status, detail ? ": " : "", detail ? detail : "");
        ret = 1;
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
    int rc = parse_opts(argc, argv, &o, want);
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
        json_t *doc = json_loadb(r.body, r.len, 0, NULL);
        const char *detail = json_string_value(json_object_get(doc, "detail"));
        fprintf(stderr, "goblind: %s: HTTP %d%s%s\n", path, r.status, detail ? ": " : "", detail ? detail : "");
        json_decref(doc);
        ret = 1;
    }
    free(r.body);
    return ret;
}

int cmd_analysis(int argc, char **argv) { return print_stored_doc(argc, argv, "analysis", "analysis"); }
int cmd_report(int argc, char **argv) { return print_stored_doc(argc, argv, "report", "report.md"); }
