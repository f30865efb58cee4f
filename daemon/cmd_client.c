/* cmd_client: `goblind runs` and `goblind show <id>`, which ask the local daemon. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/commands.h"
#include "daemon/http_client.h"
#include "daemon/report.h"

typedef struct client_opts {
    const char *url, *status, *limit, *cursor, *token_file, *id;
} client_opts;

static int parse_opts(int argc, char **argv, client_opts *o, bool want_id) {
    memset(o, 0, sizeof *o);
    o->url = getenv("GOBLIND_URL") ? getenv("GOBLIND_URL") : "127.0.0.1:9477";
    for (int i = 1; i < argc; i++) {
        const char **dst = !strcmp(argv[i], "--url") ? &o->url : !strcmp(argv[i], "--status") ? &o->status
                         : !strcmp(argv[i], "--limit") ? &o->limit : !strcmp(argv[i], "--cursor") ? &o->cursor
                         : !strcmp(argv[i], "--token-file") ? &o->token_file : NULL;
        if (dst) {
            if (i + 1 >= argc) { fprintf(stderr, "goblind %s: %s needs a value\n", argv[0], argv[i]); return EXIT_USAGE; }
            *dst = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "goblind %s: unknown option '%s'\n", argv[0], argv[i]);
            return EXIT_USAGE;
        } else if (want_id && !o->id) {
            o->id = argv[i];
        } else {
            fprintf(stderr, "goblind %s: unexpected argument '%s'\n", argv[0], argv[i]);
            return EXIT_USAGE;
        }
    }
    if (want_id && !o->id) { fprintf(stderr, "goblind show: a run id is required\n"); return EXIT_USAGE; }
    return 0;
}

static char *read_token(const char *path) {
    if (!path) return NULL;
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char b[512] = "";
    if (!fgets(b, sizeof b, f)) b[0] = '\0';
    fclose(f);
    b[strcspn(b, "\r\n")] = '\0';
    return strdup(b);
}

/* GET path; prints the daemon's error and returns NULL on anything but 200. */
static json_t *fetch(const client_opts *o, const char *path) {
    char *token = read_token(o->token_file);
    http_reply r;
    http_get(o->url, path, token, &r);
    free(token);
    if (!r.status) { fprintf(stderr, "goblind: %s\n", r.error); return NULL; }
    json_t *doc = json_loadb(r.body, r.len, 0, NULL);
    if (r.status != 200) {
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

int cmd_runs(int argc, char **argv) {
    client_opts o;
    int rc = parse_opts(argc, argv, &o, false);
    if (rc) return rc;
    char path[512];
    snprintf(path, sizeof path, "/runs?limit=%s%s%s%s%s", o.limit ? o.limit : "100", o.status ? "&status=" : "",
             o.status ? o.status : "", o.cursor ? "&cursor=" : "", o.cursor ? o.cursor : "");
    json_t *doc = fetch(&o, path);
    if (!doc) return 1;
    report_runs(stdout, doc);
    json_decref(doc);
    return 0;
}

int cmd_show(int argc, char **argv) {
    client_opts o;
    int rc = parse_opts(argc, argv, &o, true);
    if (rc) return rc;
    char path[300];
    snprintf(path, sizeof path, "/runs/%s", o.id);
    json_t *run = fetch(&o, path);
    if (!run) return 1;
    char title[512];
    snprintf(title, sizeof title, "run %s  %s  updated %s%s%s", o.id, json_string_value(json_object_get(run, "status")),
             json_string_value(json_object_get(run, "updated_at")), json_is_string(json_object_get(run, "error")) ? "  (" : "",
             json_is_string(json_object_get(run, "error")) ? json_string_value(json_object_get(run, "error")) : "");
    if (json_is_string(json_object_get(run, "error"))) strncat(title, ")", sizeof title - strlen(title) - 1);
    snprintf(path, sizeof path, "/runs/%s/metrics", o.id);
    char *token = read_token(o.token_file);
    http_reply r;
    http_get(o.url, path, token, &r);
    free(token);
    json_t *m = r.status == 200 ? json_loadb(r.body, r.len, 0, NULL) : NULL;
    if (m) report_metrics(stdout, title, m, report_use_unicode());
    else printf("%s\n\n  no metrics yet (HTTP %d): the run is still being written or parsed\n", title, r.status);
    fputc('\n', stdout);
    report_reading(stdout, json_object_get(run, "artefacts"), m, json_number_value(json_object_get(run, "step_time_seconds")));
    json_decref(m);
    json_decref(run);
    free(r.body);
    return 0;
}
