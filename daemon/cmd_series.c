/* cmd_series: `goblind series [KEY]`, GET /series (every series, the one with the newest run
 * first) or GET /series/<KEY> (its runs in order with their verdicts against the previous run and
 * the baseline) of a daemon, as a table or as the body (json). Exit status 3 when a listed
 * series' latest complete run with per-step times is a regression. Unknown values print "-". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/client_opts.h"
#include "daemon/commands.h"
#include "base/text_utf8.h"

/* key percent-encoded into out (every byte but A-Z a-z 0-9 - . _ ~). */
static void encode(const char *key, char *out, size_t n) {
    static const char HEX[] = "0123456789ABCDEF";
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)key; *p && k + 4 < n; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
            out[k++] = (char)*p;
        } else {
            out[k++] = '%', out[k++] = HEX[*p >> 4], out[k++] = HEX[*p & 15];
        }
    }
    out[k] = '\0';
}

/* s for a table cell: "-" when absent, control characters (a newline or an escape sequence in a
 * sidecar's series label or a directory name; C1 controls and bidi overrides too: text_terminal) as
 * spaces, so a cell can neither break the table's lines nor drive the terminal. */
static const char *cell(json_t *v, char *out, size_t n) { return text_terminal(json_string_value(v), out, n); }

/* v with prec decimals, or "-" when it is not a number. */
static const char *num(json_t *v, int prec, char *out, size_t n) {
    if (json_is_number(v)) snprintf(out, n, "%.*f", prec, json_number_value(v));
    else snprintf(out, n, "-");
    return out;
}

/* "+4.2 % [+1.0 .. +7.3] slower" of a verdict object, the verdict alone when its change is not
 * known ("unknown": too few steps), or "-" when there is none. */
static const char *verdict_text(json_t *v, char *out, size_t n) {
    if (!json_is_object(v)) { snprintf(out, n, "-"); return out; }
    const char *word = json_string_value(json_object_get(v, "verdict"));
    if (!json_is_number(json_object_get(v, "delta_pct"))) { snprintf(out, n, "%s", word ? word : "-"); return out; }
    char d[32], ci[64] = "";
    num(json_object_get(v, "delta_pct"), 1, d, sizeof d);
    json_t *c = json_object_get(v, "ci95_pct");
    if (json_array_size(c) == 2)
        snprintf(ci, sizeof ci, " [%+.1f .. %+.1f]", json_number_value(json_array_get(c, 0)),
                 json_number_value(json_array_get(c, 1)));
    snprintf(out, n, "%s%s %%%s %s", d[0] == '-' || d[0] == '0' ? "" : "+", d, ci, word ? word : "-");
    return out;
}

/* Whether the series' latest judged run is a regression: as GET /series has it, the newest
 * complete run with per-step times (a failed or empty run after it, or one without steps, is not
 * judged and changes nothing). */
static bool latest_is_regression(json_t *doc) {
    bool regression = false;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "runs"), i, r) {
        const char *st = json_string_value(json_object_get(r, "status"));
        if (st && !strcmp(st, "complete") && json_integer_value(json_object_get(r, "steps")) > 0)
            regression = json_is_true(json_object_get(r, "regression"));
    }
    return regression;
}

/* Every series: key, where the key came from, runs, the newest run, its verdict. */
static bool print_list(json_t *doc) {
    bool regression = false;
    printf("%-40s  %-11s  %5s  %-32s  %-12s  %s\n", "series", "key source", "runs", "latest run", "vs baseline", "regression");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(doc, "series"), i, s) {
        char k[520], src[32], run[520], v[32];
        bool reg = json_is_true(json_object_get(s, "regression"));
        regression |= reg;
        printf("%-40s  %-11s  %5lld  %-32s  %-12s  %s\n", cell(json_object_get(s, "key"), k, sizeof k),
               cell(json_object_get(s, "key_source"), src, sizeof src), (long long)json_integer_value(json_object_get(s, "runs")),
               cell(json_object_get(s, "latest_run"), run, sizeof run), cell(json_object_get(s, "latest_verdict"), v, sizeof v),
               reg ? "REGRESSION" : "-");
    }
    return regression;
}

/* One series: its runs in order with step time, tokens/s, busy %, and both verdicts. */
static bool print_series(json_t *doc) {
    char k[520], src[32];
    printf("series %s (%s), baseline: the last %lld complete runs\n", cell(json_object_get(doc, "key"), k, sizeof k),
           cell(json_object_get(doc, "key_source"), src, sizeof src),
           (long long)json_integer_value(json_object_get(doc, "baseline_runs")));
    printf("%-32s  %-9s  %10s  %10s  %6s  %-36s  %-36s  %s\n", "run", "status", "step ms", "tokens/s", "busy %",
           "vs previous (95% CI)", "vs baseline (95% CI)", "regression");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "runs"), i, r) {
        char id[520], st[32], a[32], b[32], c[32], p[120], q[120];
        bool reg = json_is_true(json_object_get(r, "regression"));
        printf("%-32s  %-9s  %10s  %10s  %6s  %-36s  %-36s  %s\n", cell(json_object_get(r, "id"), id, sizeof id),
               cell(json_object_get(r, "status"), st, sizeof st), num(json_object_get(r, "step_time_ms"), 3, a, sizeof a),
               num(json_object_get(r, "tokens_per_s"), 0, b, sizeof b), num(json_object_get(r, "busy_pct"), 1, c, sizeof c),
               verdict_text(json_object_get(r, "vs_previous"), p, sizeof p),
               verdict_text(json_object_get(r, "vs_baseline"), q, sizeof q), reg ? "REGRESSION" : "-");
    }
    return latest_is_regression(doc);
}

int cmd_series(int argc, char **argv) {
    client_opts o;
    int rc = client_parse_opts(argc, argv, &o, "series");
    if (rc) { free(o.token); return rc; }
    char key[400], path[520];
    if (o.id) {
        encode(o.id, key, sizeof key);
        snprintf(path, sizeof path, "/series/%s?limit=%s", key, o.limit ? o.limit : "50");
    } else {
        snprintf(path, sizeof path, "/series?limit=%s", o.limit ? o.limit : "50");
    }
    int st;
    json_t *doc = client_fetch(&o, path, 200, &st);
    free(o.token);
    if (!doc) return client_refusal_status(st);
    bool regression;
    if (o.json) {
        client_print_json(doc);
        regression = false;
        if (o.id) {
            regression = latest_is_regression(doc);
        } else {
            json_t *s;
            size_t i;
            json_array_foreach(json_object_get(doc, "series"), i, s) regression |= json_is_true(json_object_get(s, "regression"));
        }
    } else {
        regression = o.id ? print_series(doc) : print_list(doc);
    }
    json_decref(doc);
    return regression ? 3 : 0;
}
