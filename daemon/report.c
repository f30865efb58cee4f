/* report: text rendering of metrics and run lists. */
#include "daemon/report.h"

#include <langinfo.h>
#include <locale.h>
#include <string.h>

#include "core/ingest_doc.h"   /* INGEST_WASTE_KEYS: the waste buckets, without the heuristics header */
#include "base/text_utf8.h"

#define BAR_WIDTH 40

bool report_use_unicode(void) {
    setlocale(LC_CTYPE, "");
    const char *cs = nl_langinfo(CODESET);
    return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

static double num(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }
static const char *str(json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void bar(FILE *out, double frac, bool unicode) {
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    int full = (int)(frac * BAR_WIDTH + 0.5);
    for (int i = 0; i < BAR_WIDTH; i++) fputs(i < full ? (unicode ? "\xe2\x96\x88" : "#") : (unicode ? "\xe2\x96\x91" : "."), out);
}

/* m's number `key` with `fmt`, or "-" when `known` says it was not measured (null). */
static const char *headline(char *buf, size_t n, const char *fmt, json_t *m, json_t *known, const char *key,
                            const char *known_key) {
    json_t *k = known ? json_object_get(known, known_key ? known_key : key) : NULL;
    if (known && (!k || json_is_null(k))) return "-";
    snprintf(buf, n, fmt, num(m, key));
    return buf;
}

/* Whether m's `steps` is a count the run gave: not when `known` (GET /runs/<id>) says the run
 * failed or its torch profile's steps came from the default (RunMetrics' 10 or 1 placeholder). */
static bool steps_known(json_t *known) {
    if (!known) return true;
    if (!strcmp(str(known, "status"), "failed")) return false;
    json_t *arts = json_object_get(known, "artefacts");
    for (size_t i = 0; i < json_array_size(arts); i++) {
        json_t *src = json_object_get(json_array_get(arts, i), "steps_source");
        if (json_is_string(src)) return strcmp(json_string_value(src), "default") != 0;
    }
    return true;
}

/* Whether a warning of m names waste bucket `key` unknown ("host_gap unknown (...): reported as 0"). */
static bool bucket_unknown(json_t *m, const char *key) {
    json_t *w = json_object_get(m, "warnings");
    size_t n = strlen(key);
    for (size_t i = 0; i < json_array_size(w); i++) {
        const char *t = json_string_value(json_array_get(w, i));
        if (t && !strncmp(t, key, n) && !strncmp(t + n, " unknown", 8)) return true;
    }
    return false;
}

/* The waste budget as bars, or one line saying it is unknown: without a step time (`known`'s
 * step_time_seconds null, or a failed run) every bucket is RunMetrics' 0 placeholder, and a bucket a
 * warning calls unknown prints "-" with no bar (unknown is not 0). */
static void report_waste(FILE *out, json_t *m, json_t *known, bool unicode) {
    json_t *step = known ? json_object_get(known, "step_time_seconds") : NULL;
    if (known && (!json_is_number(step) || !strcmp(str(known, "status"), "failed"))) {
        fprintf(out, "  waste budget unknown (%s)\n",
                !strcmp(str(known, "status"), "failed") ? "the run failed: its numbers are not a measurement"
                                                         : "no step time: every bucket needs one");
        return;
    }
    json_t *wb = json_object_get(m, "waste_budget");
    double total = 0;
    for (int b = 0; b < INGEST_WASTE_BUCKETS; b++)
        if (!bucket_unknown(m, INGEST_WASTE_KEYS[b])) total += num(wb, INGEST_WASTE_KEYS[b]);
    fprintf(out, "  waste budget (seconds per step; total %.6g s of the known buckets)\n", total);
    for (int b = 0; b < INGEST_WASTE_BUCKETS; b++) {
        if (bucket_unknown(m, INGEST_WASTE_KEYS[b])) {
            fprintf(out, "    %-16s %10s %7s  unknown\n", INGEST_WASTE_KEYS[b], "-", "-");
            continue;
        }
        double v = num(wb, INGEST_WASTE_KEYS[b]);
        fprintf(out, "    %-16s %10.6f %6.1f%%  ", INGEST_WASTE_KEYS[b], v, total > 0 ? v / total * 100 : 0.0);
        bar(out, total > 0 ? v / total : 0, unicode);
        fputc('\n', out);
    }
}

void report_metrics(FILE *out, const char *title, json_t *m, json_t *known, bool unicode) {
    char t[32], f[32], u[32], p[32], a[32];
    if (title) fprintf(out, "%s\n\n", title);
    fprintf(out, "  tokens/s     %-14s MFU %6s %%   GPU util %6s %%\n",
            headline(t, sizeof t, "%.2f", m, known, "tokens_per_sec", NULL),
            headline(f, sizeof f, "%.2f", m, known, "mfu_pct", NULL),
            headline(u, sizeof u, "%.2f", m, known, "gpu_util_pct", NULL));
    char st[32] = "-";
    if (steps_known(known)) snprintf(st, sizeof st, "%lld", (long long)json_integer_value(json_object_get(m, "steps")));
    fprintf(out, "  HBM          peak %s GB, mean %s GB      steps %s\n",
            headline(p, sizeof p, "%.2f", m, known, "hbm_peak_gb", NULL),
            headline(a, sizeof a, "%.2f", m, known, "hbm_avg_gb", NULL),
            st);
    fprintf(out, "  attention    %-14s ROCm %s   PyTorch %s\n\n", str(m, "attention_kernel_loaded"), str(m, "rocm_version"),
            str(m, "pytorch_version"));
    report_waste(out, m, known, unicode);
    json_t *top = json_object_get(m, "top_kernels");
    fprintf(out, "\n  top kernels (%% of kernel time)\n");
    if (!json_array_size(top)) fprintf(out, "    (none)\n");
    for (size_t i = 0; i < json_array_size(top); i++) {
        json_t *k = json_array_get(top, i);
        const char *name = str(k, "name");
        char nb[101];
        fprintf(out, "    %6.2f%%  %s%s\n", num(k, "pct_time"), text_terminal(name, nb, sizeof nb), strlen(name) > 100 ? "..." : "");
    }
    json_t *w = json_object_get(m, "warnings");
    fprintf(out, "\n  warnings%s\n", json_array_size(w) ? "" : ": none");
    for (size_t i = 0; i < json_array_size(w); i++) {
        fputs("    - ", out);
        text_terminal_put(out, json_string_value(json_array_get(w, i)));
        fputc('\n', out);
    }
}

static const char *const SOURCE_TEXT[][2] = {
    {"flag", "the --steps flag"}, {"metadata", "the profile's metadata"},
    {"profiler_steps", "the ProfilerStep events"}, {"default", "the default (no step count anywhere)"},
    {"span", "the whole trace span (no ProfilerStep events)"},
    {"span_per_step", "the trace span divided by the steps (no ProfilerStep events)"},
    {"none", "nowhere (unknown: no metadata, ProfilerStep events or span)"}};

static const char *source_text(const char *s) {
    for (size_t i = 0; s && i < sizeof SOURCE_TEXT / sizeof SOURCE_TEXT[0]; i++)
        if (!strcmp(s, SOURCE_TEXT[i][0])) return SOURCE_TEXT[i][1];
    return s ? s : "-";
}

/* Where steps and the step time came from (the torch profile's entry, read or not). */
static void report_steps(FILE *out, json_t *a, json_t *metrics, double step_time_s) {
    if (!json_is_string(json_object_get(a, "steps_source"))) return;
    fprintf(out, "      steps         ");
    if (!strcmp(str(a, "steps_source"), "default")) fprintf(out, "unknown, ");   /* RunMetrics' placeholder */
    else if (metrics) fprintf(out, "%lld, ", (long long)json_integer_value(json_object_get(metrics, "steps")));
    fprintf(out, "from %s\n", source_text(str(a, "steps_source")));
    fprintf(out, "      step time     ");
    if (step_time_s > 0) fprintf(out, "%.6g s, ", step_time_s);
    fprintf(out, "from %s\n", source_text(str(a, "step_time_source")));
}

void report_reading(FILE *out, json_t *artefacts, json_t *metrics, double step_time_s) {
    fprintf(out, "  how each file was read\n");
    for (size_t i = 0; i < json_array_size(artefacts); i++) {
        json_t *a = json_array_get(artefacts, i);
        char tb[4096];
        fprintf(out, "    %s: %s\n", str(a, "kind"), *str(a, "path") ? text_terminal(str(a, "path"), tb, sizeof tb) : "(no file)");
        if (!json_is_string(json_object_get(a, "format"))) {
            fprintf(out, "      not read%s%s\n", json_is_string(json_object_get(a, "error")) ? ": " : "",
                    text_terminal(str(a, "error"), tb, sizeof tb));
            report_steps(out, a, metrics, step_time_s);
            continue;
        }
        fprintf(out, "      format        %s (sniff score %lld", str(a, "format"),
                (long long)json_integer_value(json_object_get(a, "sniff_score")));
        if (json_is_string(json_object_get(a, "found_by"))) fprintf(out, "; found as %s", str(a, "found_by"));
        fprintf(out, ")\n");
        json_t *cols = json_object_get(a, "columns");
        const char *q;
        json_t *v;
        fprintf(out, "      columns      ");
        if (!json_object_size(cols)) fprintf(out, " (none)");
        json_object_foreach(cols, q, v)
            fprintf(out, " %s = %s;", q, json_is_string(v) ? text_terminal(json_string_value(v), tb, sizeof tb) : "(none)");
        fprintf(out, "\n      rows used     %lld\n", (long long)json_integer_value(json_object_get(a, "rows_used")));
        json_t *sk = json_object_get(a, "rows_skipped");
        fprintf(out, "      rows skipped ");
        if (!json_object_size(sk)) fprintf(out, " none");
        json_object_foreach(sk, q, v) fprintf(out, " %s: %lld;", q, (long long)json_integer_value(v));
        fputc('\n', out);
        report_steps(out, a, metrics, step_time_s);
        if (json_is_string(json_object_get(a, "error")))
            fprintf(out, "      first warning %s\n", text_terminal(str(a, "error"), tb, sizeof tb));
    }
}

/* A run's profile (an array of family names) as "kineto,smi"; "-" when none or not known. */
static void profile_text(json_t *profile, char *out, size_t n) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < json_array_size(profile) && used < n; i++) {
        int w = snprintf(out + used, n - used, "%s%s", i ? "," : "", json_string_value(json_array_get(profile, i)));
        if (w < 0) break;
        used += (size_t)w;
    }
    if (!out[0]) snprintf(out, n, "-");
}

void report_sources(FILE *out, json_t *run) {
    char prof[160];
    profile_text(json_object_get(run, "profile"), prof, sizeof prof);
    fprintf(out, "  profile      %s\n", prof);
    json_t *labels = json_object_get(run, "labels");
    const char *k;
    json_t *v;
    if (json_object_size(labels)) {
        fprintf(out, "  labels      ");
        json_object_foreach(labels, k, v) {
            char kb[256], vb[1024];
            if (json_is_string(v)) fprintf(out, " %s=%s", text_terminal(k, kb, sizeof kb), text_terminal(json_string_value(v), vb, sizeof vb));
            else fprintf(out, " %s=%g", text_terminal(k, kb, sizeof kb), json_is_boolean(v) ? (double)json_is_true(v) : json_number_value(v));
        }
        fputc('\n', out);
    }
    json_t *src = json_object_get(run, "headline_sources");
    if (!json_is_object(src)) return;
    fprintf(out, "  where each number comes from\n");
    json_object_foreach(src, k, v) {
        if (json_is_object(v)) fprintf(out, "    %-18s %s (%s)\n", k, str(v, "rule"), str(v, "source"));
        else fprintf(out, "    %-18s - (unknown)\n", k);
    }
    fputc('\n', out);
}

bool report_is_goblin(json_t *run) {
    json_t *p = json_object_get(run, "profile");
    for (size_t i = 0; i < json_array_size(p); i++)
        if (!strcmp(json_string_value(json_array_get(p, i)) ? json_string_value(json_array_get(p, i)) : "", "goblin"))
            return true;
    return false;
}

void report_run_sources(FILE *out, json_t *sources) {
    fprintf(out, "  sources (each file read and its format; the analysis document has the rest)\n");
    if (!json_array_size(sources)) fprintf(out, "    (none)\n");
    for (size_t i = 0; i < json_array_size(sources); i++) {
        json_t *s = json_array_get(sources, i);
        const char *fmt = json_string_value(json_object_get(s, "format"));
        char pb[4096];
        fprintf(out, "    %s  %s%s\n", text_terminal(str(s, "path"), pb, sizeof pb), fmt ? fmt : "(no format)",
                json_is_true(json_object_get(s, "read")) ? "" : "  (not read)");
    }
}

void report_runs(FILE *out, json_t *body) {
    json_t *runs = json_object_get(body, "runs");
    fprintf(out, "%-32s %-9s %-24s %12s %7s %7s %10s  %s\n", "RUN", "STATUS", "UPDATED", "TOKENS/S", "MFU%", "UTIL%",
            "STEP S", "PROFILE");
    for (size_t i = 0; i < json_array_size(runs); i++) {
        json_t *r = json_array_get(runs, i);
        char t[24] = "-", m[16] = "-", u[16] = "-", s[24] = "-";
        if (json_is_number(json_object_get(r, "tokens_per_sec"))) snprintf(t, sizeof t, "%.2f", num(r, "tokens_per_sec"));
        if (json_is_number(json_object_get(r, "mfu_pct"))) snprintf(m, sizeof m, "%.1f", num(r, "mfu_pct"));
        if (json_is_number(json_object_get(r, "gpu_util_pct"))) snprintf(u, sizeof u, "%.1f", num(r, "gpu_util_pct"));
        if (json_is_number(json_object_get(r, "step_time_seconds"))) snprintf(s, sizeof s, "%.4f", num(r, "step_time_seconds"));
        char prof[160];
        profile_text(json_object_get(r, "profile"), prof, sizeof prof);
        fprintf(out, "%-32s %-9s %-24s %12s %7s %7s %10s  %s\n", str(r, "id"), str(r, "status"), str(r, "updated_at"), t, m,
                u, s, prof);
    }
    if (!json_array_size(runs)) fprintf(out, "(no runs)\n");
    if (json_is_string(json_object_get(body, "next_cursor"))) fprintf(out, "(more: --limit or --cursor %s)\n", str(body, "next_cursor"));
}
