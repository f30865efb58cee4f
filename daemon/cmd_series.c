/* cmd_series: `goblind series [KEY]`, GET /series (every series, the one with the newest run
 * first) or GET /series/<KEY> (its runs in order with their verdicts against the previous run and
 * the baseline) of a daemon, as a table or as the body (json). Exit status 3 when a listed
 * series' latest complete run is a regression. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/client_opts.h"
#include "daemon/commands.h"

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

/* v with prec decimals, or "-" when it is not a number. */
static const char *num(json_t *v, int prec, char *out, size_t n) {
    if (json_is_number(v)) snprintf(out, n, "%.*f", prec, json_number_value(v));
    else snprintf(out, n, "-");
    return out;
}

/* "+4.2 % [+1.0 .. +7.3] slower" of a verdict object, or "-" when there is none. */
static const char *verdict_text(json_t *v, char *out, size_t n) {
    if (!json_is_object(v)) { snprintf(out, n, "-"); return out; }
    char d[32], ci[64] = "";
    num(json_object_get(v, "delta_pct"), 1, d, sizeof d);
    json_t *c = json_object_get(v, "ci95_pct");
    if (json_array_size(c) == 2)
        snprintf(ci, sizeof ci, " [%+.1f .. %+.1f]", json_number_value(json_array_get(c, 0)),
                 json_number_value(json_array_get(c, 1)));
    snprintf(out, n, "%s%s %%%s %s", d[0] == '-' || d[0] == '0' ? "" : "+", d, ci,
             json_string_value(json_object_get(v, "verdict")) ? json_string_value(json_object_get(v, "verdict")) : "-");
    return out;
}

/* Every series: key, where the key came from, runs, the newest run, its verdict. */
static bool print_list(json_t *doc) {
    bool regression = false;
    printf("%-40s  %-11s  %5s  %-32s  %-12s  %s\n", "series", "key source", "runs", "latest run", "vs baseline", "regression");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(doc, "series"), i, s) {
        bool reg = json_is_true(json_object_get(s, "regression"));
        const char *v = json_string_value(json_object_get(s, "latest_verdict"));
        regression |= reg;
        printf("%-40s  %-11s  %5lld  %-32s  %-12s  %s\n", json_string_value(json_object_get(s, "key")),
               json_string_value(json_object_get(s, "key_source")), (long long)json_integer_value(json_object_get(s, "runs")),
               json_string_value(json_object_get(s, "latest_run")), v ? v : "-", reg ? "REGRESSION" : "-");
    }
    return regression;
}

/* One series: its runs in order with step time, tokens/s, busy %, and both verdicts. */
static bool print_series(json_t *doc) {
    printf("series %s (%s), baseline: the last %lld complete runs\n", json_string_value(json_object_get(doc, "key")),
           json_string_value(json_object_get(doc, "key_source")),
           (long long)json_integer_value(json_object_get(doc, "baseline_runs")));
    printf("%-32s  %-9s  %10s  %10s  %6s  %-36s  %-36s  %s\n", "run", "status", "step ms", "tokens/s", "busy %",
           "vs previous (95% CI)", "vs baseline (95% CI)", "regression");
    size_t i;
    json_t *r;
    bool last_regression = false;
    json_array_foreach(json_object_get(doc, "runs"), i, r) {
        char a[32], b[32], c[32], p[120], q[120];
        bool reg = json_is_true(json_object_get(r, "regression"));
        printf("%-32s  %-9s  %10s  %10s  %6s  %-36s  %-36s  %s\n", json_string_value(json_object_get(r, "id")),
               json_string_value(json_object_get(r, "status")), num(json_object_get(r, "step_time_ms"), 3, a, sizeof a),
               num(json_object_get(r, "tokens_per_s"), 0, b, sizeof b), num(json_object_get(r, "busy_pct"), 1, c, sizeof c),
               verdict_text(json_object_get(r, "vs_previous"), p, sizeof p),
               verdict_text(json_object_get(r, "vs_baseline"), q, sizeof q), reg ? "REGRESSION" : "-");
        if (json_is_object(json_object_get(r, "vs_baseline"))) last_regression = reg;   /* the latest judged run */
    }
    return last_regression;
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
            json_t *runs = json_object_get(doc, "runs"), *r;
            size_t i;
            json_array_foreach(runs, i, r) if (json_is_object(json_object_get(r, "vs_baseline")))
                regression = json_is_true(json_object_get(r, "regression"));
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
