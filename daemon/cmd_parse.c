/* cmd_parse: `goblind parse RUN_DIR ...` prints one RunMetrics JSON object. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_load.h"
#include "core/metrics_json.h"
#include "core/read_facts_json.h"
#include "core/run_headline.h"
#include "core/run_ingest.h"
#include "daemon/commands.h"
#include "daemon/report.h"
#include "base/text_utf8.h"

static bool parse_i64(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return false;
    *out = v;
    return true;
}

/* The run's artefacts as GET /runs/<id> shows them (kind, path, format, error and how each
 * was read), so --explain and `goblind show` print through one function. */
static json_t *artefacts_json(const run_result *r) {
    static const char *const KINDS[] = {"kernel_trace", "torch_profile", "telemetry"};
    _Static_assert(sizeof KINDS / sizeof *KINDS == ARTEFACT_KIND_COUNT, "KINDS: one per artefact kind");
    json_t *list = json_array();
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        const artefact_info *a = &r->info[k];
        json_t *o = json_pack("{s:s, s:o, s:o, s:o}", "kind", KINDS[k],
                              "path", r->files.path[k] ? json_string(r->files.path[k]) : json_null(),
                              "format", a->format ? json_string(a->format) : json_null(),
                              "error", a->error ? json_string(a->error) : json_null());
        if (a->format || k == ARTEFACT_TORCH_PROFILE) {      /* steps come from somewhere even without it */
            strbuf facts = {0};
            read_facts_render(run_result_facts(r, (artefact_kind)k), a->format != NULL, &facts);
            json_t *f = json_load_checked(facts.data, facts.len, JSON_ALLOW_NUL, NULL, NULL);
            json_object_update(o, f);
            json_decref(f);
            strbuf_free(&facts);
        }
        json_array_append_new(list, o);
    }
    return list;
}

/* Which headline numbers r measured, shaped as GET /runs/<id> says it (null: unknown; a failed
 * run's numbers are not a measurement), for the table: it prints "-" for the others, as
 * `goblind show` does. */
static json_t *known_of(const run_result *r, bool failed) {
    headline_known k = run_result_known(r);
    if (failed) k = (headline_known){0};
    const char *steps = r->metrics.steps_source ? r->metrics.steps_source : "default";
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:[{s:s}]}",
                     "tokens_per_sec", k.tokens_per_sec ? json_true() : json_null(),
                     "mfu_pct", k.mfu_pct ? json_true() : json_null(),
                     "gpu_util_pct", k.gpu_util_pct ? json_true() : json_null(),
                     "hbm_peak_gb", k.hbm ? json_true() : json_null(),
                     "hbm_avg_gb", k.hbm_avg ? json_true() : json_null(),
                     "step_time_seconds", k.step_time ? json_real(r->metrics.step_time.v) : json_null(),
                     "status", failed ? "failed" : "complete", "artefacts", "steps_source", steps);
}

/* A directory without goblin_runner's file names: the run as the daemon reads it, whatever profiler
 * wrote it (core/run_ingest, then core/run_headline: the numbers from the analysis and the
 * sidecar). Prints RunMetrics as the daemon stores it; --explain prints the run's profile,
 * where each number came from and the sources. Exit 3 when nothing in it is a profile. */
static int parse_any_profile(const char *dir, run_options opt, bool table, bool explain, int indent) {
    run_sidecar sc;
    diag_list scw;
    diag_init(&scw);
    run_sidecar_read(dir, &sc, &scw);
    if (sc.has_steps && !opt.steps_given) opt.steps_given = true, opt.steps = sc.steps;
    if (sc.precision && !opt.precision) opt.precision = sc.precision;
    run_analysis_options aopt;
    run_analysis_defaults(&aopt);
    aopt.parse = opt.parse;
    run_result r;
    run_analysis an;
    run_headline h;
    if (!run_ingest(dir, &opt, &aopt, &r, &an)) {
        fprintf(stderr, "goblind parse: out of memory\n");
        run_sidecar_free(&sc);
        diag_free(&scw);
        return 1;
    }
    diag_append(&r.metrics.warnings, &scw);
    diag_free(&scw);
    bool ok = run_headline_apply(&r, &opt, &an, &sc, &h);
    run_sidecar_free(&sc);
    int ret = 0;
    if (!ok || h.verdict == RUN_VERDICT_EMPTY) {
        if (ok) fprintf(stderr, "goblind parse: %s: no artefacts found (looked for trace.csv or *kernel_trace.csv, "
                                "torch_profile.json[.gz], amd_smi.csv, and any profile file); nothing to measure\n", dir);
        else fprintf(stderr, "goblind parse: out of memory\n");
        ret = ok ? EXIT_NO_ARTEFACTS : 1;
    } else {
        strbuf out = {0};
        metrics_json_render(&r.metrics, table ? 0 : indent, &out);
        json_t *doc = json_load_checked(out.data, out.len, JSON_ALLOW_NUL, NULL, NULL);
        if (explain) {
            json_t *adoc = json_load_checked(an.json.data, an.json.len, JSON_ALLOW_NUL, NULL, NULL);
            json_t *run = json_pack("{s:O?, s:o}", "sources", json_object_get(adoc, "sources"), "headline_sources",
                                    json_load_checked(h.json.data, h.json.len, JSON_ALLOW_NUL, NULL, NULL));
            json_object_set_new(run, "labels", json_deep_copy(json_object_get(json_object_get(run, "headline_sources"), "labels")));
            json_object_set(run, "headline_sources", json_object_get(json_object_get(run, "headline_sources"), "sources"));
            json_t *prof = json_array();
            for (const char *p = h.profile; *p;) {
                size_t n = strcspn(p, ",");
                json_array_append_new(prof, json_stringn(p, n));
                p += n + (p[n] == ',');
            }
            json_object_set_new(run, "profile", prof);
            printf("run directory %s (any profile: %s%s%s)\n\n", dir, h.verdict == RUN_VERDICT_COMPLETE ? "complete" : "failed",
                   h.error ? ": " : "", h.error ? h.error : "");
            report_sources(stdout, run);
            report_run_sources(stdout, json_object_get(run, "sources"));
            json_t *w = json_object_get(doc, "warnings");
            printf("\n  warnings%s\n", json_array_size(w) ? "" : ": none");
            for (size_t i = 0; i < json_array_size(w); i++) {
                fputs("    - ", stdout);
                text_terminal_put(stdout, json_string_value(json_array_get(w, i)));
                putchar('\n');
            }
            json_decref(run);
            json_decref(adoc);
        } else if (table) {
            char title[4200];
            snprintf(title, sizeof title, "run directory %s", dir);
            json_t *known = known_of(&r, h.verdict == RUN_VERDICT_FAILED);
            report_metrics(stdout, title, doc, known, report_use_unicode());
            json_decref(known);
        } else {
            fwrite(out.data, 1, out.len, stdout);
            fputc('\n', stdout);
        }
        json_decref(doc);
        strbuf_free(&out);
    }
    run_headline_free(&h);
    run_analysis_free(&an);
    run_result_free(&r);
    if (ret) return ret;
    return fflush(stdout) == 0 ? 0 : 1;
}

int cmd_parse(int argc, char **argv) {
    run_options opt = {0};
    const char *dir = NULL;
    int64_t indent = 2;
    bool table = false, explain = false;
    const char *analysis_out = NULL;       /* --analysis FILE: the document too, from the same read */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--precision")) {
            if (!val || (strcmp(val, "fp16") && strcmp(val, "bf16") && strcmp(val, "fp32") && strcmp(val, "fp8"))) {
                fprintf(stderr, "goblind parse: --precision takes fp16, bf16, fp32 or fp8\n");
                return EXIT_USAGE;
            }
            opt.precision = val;
            i++;
        } else if (!strcmp(a, "--steps")) {
            if (!val || !parse_i64(val, &opt.steps)) {
                fprintf(stderr, "goblind parse: --steps takes an integer\n");
                return EXIT_USAGE;
            }
            opt.steps_given = true;
            i++;
        } else if (!strcmp(a, "--compat")) {
            if (!val || strcmp(val, "seed")) {
                fprintf(stderr, "goblind parse: --compat takes 'seed'\n");
                return EXIT_USAGE;
            }
            opt.parse.seed_compat = true;
            i++;
        } else if (!strcmp(a, "--indent")) {
            if (!val || !parse_i64(val, &indent) || indent < 0 || indent > 16) {
                fprintf(stderr, "goblind parse: --indent takes 0..16\n");
                return EXIT_USAGE;
            }
            i++;
        } else if (!strcmp(a, "--format")) {
            if (!val || (strcmp(val, "json") && strcmp(val, "table"))) {
                fprintf(stderr, "goblind parse: --format takes json or table\n");
                return EXIT_USAGE;
            }
            table = !strcmp(val, "table");
            i++;
        } else if (!strcmp(a, "--explain")) {
            explain = true;
        } else if (!strcmp(a, "--analysis")) {
            if (!val) {
                fprintf(stderr, "goblind parse: --analysis takes a file name\n");
                return EXIT_USAGE;
            }
            analysis_out = val;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "goblind parse: unknown option '%s'\n", a);
            return EXIT_USAGE;
        } else if (!dir) {
            dir = a;
        } else {
            fprintf(stderr, "goblind parse: one RUN_DIR only\n");
            return EXIT_USAGE;
        }
    }
    if (!dir) {
        fprintf(stderr, "goblind parse: RUN_DIR is required\n");
        help_usage(stderr);
        return EXIT_USAGE;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "goblind parse: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    closedir(d);
    run_result r;
    run_analysis an = {0};
    if (analysis_out) {                    /* as the daemon's ingest: one read for both */
        run_analysis_options aopt;
        run_analysis_defaults(&aopt);
        aopt.json_indent = 2;
        aopt.parse = opt.parse;
        if (!run_ingest(dir, &opt, &aopt, &r, &an)) {
            fprintf(stderr, "goblind parse: out of memory\n");
            return 1;
        }
        FILE *f = fopen(analysis_out, "w");
        bool written = f && fwrite(an.json.data, 1, an.json.len, f) == an.json.len && fputc('\n', f) != EOF;
        if (f && fclose(f) != 0) written = false;
        run_analysis_free(&an);
        if (!written) {
            fprintf(stderr, "goblind parse: %s: %s\n", analysis_out, strerror(errno));
            run_result_free(&r);
            return 1;
        }
    } else if (!run_parse(dir, &opt, &r)) {
        fprintf(stderr, "goblind parse: out of memory\n");
        return 1;
    }
    if (!run_headline_goblin_named(&r)) {  /* not goblin_runner's files: any other profile (or nothing), as the daemon reads it */
        run_result_free(&r);
        return parse_any_profile(dir, opt, table, explain, (int)indent);
    }
    /* the warnings the daemon's body has too: each number standing for something unknown */
    run_headline_warn_unknown(&r, run_headline_unknown_buckets(&r), true);
    strbuf out = {0};
    metrics_json_render(&r.metrics, table ? 0 : (int)indent, &out);
    if (explain) {
        json_t *doc = json_load_checked(out.data, out.len, JSON_ALLOW_NUL, NULL, NULL);
        json_t *artefacts = artefacts_json(&r);
        printf("run directory %s (%s heuristics)\n\n", dir, opt.parse.seed_compat ? "--compat seed" : "default");
        report_reading(stdout, artefacts, doc, r.metrics.step_time.has ? r.metrics.step_time.v : 0.0);
        json_t *w = json_object_get(doc, "warnings");
        printf("\n  warnings%s\n", json_array_size(w) ? "" : ": none");
        for (size_t i = 0; i < json_array_size(w); i++) {
            fputs("    - ", stdout);
            text_terminal_put(stdout, json_string_value(json_array_get(w, i)));
            putchar('\n');
        }
        json_decref(artefacts);
        json_decref(doc);
    } else if (table) {                    /* one rendering path: the table reads the JSON */
        json_t *doc = json_load_checked(out.data, out.len, JSON_ALLOW_NUL, NULL, NULL);
        char title[4200];
        snprintf(title, sizeof title, "run directory %s", dir);
        json_t *known = known_of(&r, false);      /* (no verdict without the analysis: the daemon gives it) */
        report_metrics(stdout, title, doc, known, report_use_unicode());
        json_decref(known);
        json_decref(doc);
    } else {
        fwrite(out.data, 1, out.len, stdout);
        fputc('\n', stdout);
    }
    strbuf_free(&out);
    run_result_free(&r);
    return fflush(stdout) == 0 ? 0 : 1;
}
