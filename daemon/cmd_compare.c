/* cmd_compare: `goblind compare BASE CANDIDATE`, GET /compare of a daemon printed for people
 * (table), for reports (markdown) or as the body (json): the summary, the step-time verdict with
 * its interval, the kernels and operators that moved most, the classes and the step parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_utf8.h"
#include "daemon/client_opts.h"
#include "daemon/commands.h"

/* name cut at `width` bytes on a UTF-8 boundary (with "…") into out, control characters as
 * spaces and, when md, Markdown's table characters escaped. */
static void name_text(const char *raw, size_t width, bool md, char *out, size_t n) {
    char safe[1024];                       /* (C1 controls and bidi overrides too: text_terminal) */
    const char *s = text_terminal(raw, safe, sizeof safe);
    size_t len = strlen(s), cut = utf8_cut(s, len, width), k = 0;
    for (size_t i = 0; i < cut && k + 4 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (md && strchr("|\\`*_<>[]", c)) out[k++] = '\\';
        out[k++] = c < 0x20 ? ' ' : (char)c;
    }
    if (cut < len && k + 4 < n) memcpy(out + k, "\xe2\x80\xa6", 3), k += 3;
    out[k] = '\0';
}

/* v / unit with prec decimals into out, or "-" when v is not a number. */
static const char *num_text(json_t *v, double unit, int prec, char *out, size_t n) {
    if (json_is_number(v)) snprintf(out, n, "%.*f", prec, json_number_value(v) / unit);
    else snprintf(out, n, "-");
    return out;
}

/* "[low … high]" of a ci95_pct array, or "-". */
static const char *ci_text(json_t *ci, char *out, size_t n) {
    if (json_array_size(ci) == 2)
        snprintf(out, n, "%+.1f … %+.1f", json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)));
    else
        snprintf(out, n, "-");
    return out;
}

/* The kernels / ops rows: name, class, calls and average of each side, Δtotal (ms), Δavg %, the
 * 95 % interval of the change of the mean (%) and the verdict. */
static void name_rows(json_t *rows, const char *title, bool md) {
    if (!json_is_array(rows) || !json_array_size(rows)) return;
    if (md)
        printf("\n### %s\n\n| name | class | base calls | base avg (us) | cand calls | cand avg (us) | \xce\x94total (ms) "
               "| \xce\x94" "avg %% | 95 %% CI %% | verdict |\n|---|---|---:|---:|---:|---:|---:|---:|---|---|\n", title);
    else
        printf("\n%s\n%-48s  %-13s  %10s  %12s  %10s  %12s  %12s  %8s  %17s  %s\n", title, "name", "class", "base calls",
               "base avg us", "cand calls", "cand avg us", "dtotal ms", "davg %", "95% CI %", "verdict");
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        json_t *b = json_object_get(r, "base"), *c = json_object_get(r, "candidate");
        const char *cls = json_string_value(json_object_get(r, "class"));
        const char *verdict = json_string_value(json_object_get(r, "verdict"));
        char name[300], v[8][48];
        name_text(json_string_value(json_object_get(r, "name")), md ? 80 : 48, md, name, sizeof name);
        num_text(json_object_get(b, "calls"), 1, 0, v[0], sizeof v[0]);
        num_text(json_object_get(b, "avg_ns"), 1e3, 3, v[1], sizeof v[1]);
        num_text(json_object_get(c, "calls"), 1, 0, v[2], sizeof v[2]);
        num_text(json_object_get(c, "avg_ns"), 1e3, 3, v[3], sizeof v[3]);
        num_text(json_object_get(r, "delta_total_ns"), 1e6, 3, v[4], sizeof v[4]);
        num_text(json_object_get(r, "delta_avg_pct"), 1, 1, v[5], sizeof v[5]);
        ci_text(json_object_get(r, "ci95_pct"), v[6], sizeof v[6]);
        if (md)
            printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, cls ? cls : "-", v[0], v[1], v[2], v[3],
                   v[4], v[5], v[6], verdict ? verdict : "-");
        else
            printf("%-48s  %-13s  %10s  %12s  %10s  %12s  %12s  %8s  %17s  %s\n", name, cls ? cls : "-", v[0], v[1], v[2],
                   v[3], v[4], v[5], v[6], verdict ? verdict : "-");
    }
}

int cmd_compare(int argc, char **argv) {
    client_opts o;
    int rc = client_parse_opts(argc, argv, &o, "compare");
    if (rc) { free(o.token); return rc; }
    char path[400];
    snprintf(path, sizeof path, "/compare?base=%s&candidate=%s&rows=%s", o.id, o.id2, o.rows ? o.rows : "20");
    int st;
    json_t *doc = client_fetch(&o, path, 200, &st);
    free(o.token);
    if (!doc) return client_refusal_status(st);
    bool md = o.format && !strcmp(o.format, "markdown");
    if (o.json) {
        client_print_json(doc);
        json_decref(doc);
        return 0;
    }
    if (md) printf("## %s → %s\n\n", o.id, o.id2);
    else printf("%s → %s\n", o.id, o.id2);
    text_terminal_put(stdout, json_string_value(json_object_get(doc, "summary")));   /* (it names kernels) */
    putchar('\n');
    json_t *step = json_object_get(doc, "step_time");
    if (json_is_object(step)) {
        char a[48], c[48], ci[48];
        printf("\nstep time, median of %lld and %lld steps: %s ms -> %s ms, 95 %% CI %s %%: %s\n",
               (long long)json_integer_value(json_object_get(step, "base_steps")),
               (long long)json_integer_value(json_object_get(step, "candidate_steps")),
               num_text(json_object_get(step, "base_median_ns"), 1e6, 3, a, sizeof a),
               num_text(json_object_get(step, "candidate_median_ns"), 1e6, 3, c, sizeof c),
               ci_text(json_object_get(step, "ci95_pct"), ci, sizeof ci), json_string_value(json_object_get(step, "verdict")));
    }
    name_rows(json_object_get(doc, "kernels"), "Kernels", md);
    name_rows(json_object_get(doc, "ops"), "CPU operators", md);
    json_decref(doc);
    return 0;
}
