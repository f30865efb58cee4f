/* check_run_gauges: the analysis headline numbers and kernel rows the store keeps.
 *
 * - the fixed gauge names agree with the kernel-class table and the sections' number paths;
 * - run_analyze on a run directory holding only the rocprofv3 JSON fixture collects exactly the
 *   numbers its own rendered document shows, and the kernels section's rows (compact or
 *   indented document alike); kernel names awkward for JSON (invalid UTF-8, quotes, tabs, DEL)
 *   and large timestamps give the rows the document's JSON gives back;
 * - ingest_doc_attach_analysis hands the analysis's rows to the store only when RunMetrics has
 *   none, and says so;
 * - storage: the numbers are stored as given (absent stays absent), replaced by the next parse,
 *   deleted with the run; the kernel rows keep their class and source. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/kernel_class.h"
#include "core/ingest_doc.h"
#include "core/run_analysis.h"
#include "storage/retention.h"
#include "storage/run_gauges.h"
#include "storage/store.h"

#ifndef GOBLIN_SHARED_DIR
#define GOBLIN_SHARED_DIR "../shared"
#endif

START_TEST(gauge_names_match_the_class_table) {
    ck_assert_int_eq(INGEST_KERNEL_CLASSES, KC_COUNT);
    for (int k = 0; k < KC_COUNT; k++) {
        ck_assert_str_eq(INGEST_CLASS_KEYS[k], kernel_class_key((kernel_class)k));
        char want[96];
        snprintf(want, sizeof want, "classes.by_class.%s.total_ns", kernel_class_key((kernel_class)k));
        ck_assert_str_eq(INGEST_GAUGE_NAMES[IG_CLASS_FIRST + k], want);
    }
    for (int i = 0; i < IG_COUNT; i++) {
        ck_assert_ptr_nonnull(INGEST_GAUGE_NAMES[i]);
        ck_assert_int_eq(ingest_gauge_index(INGEST_GAUGE_NAMES[i]), i);
    }
    ck_assert_int_eq(ingest_gauge_index("timeline.run.nope_ns"), -1);
    ck_assert_int_eq(ingest_gauge_index(NULL), -1);
}
END_TEST

/* A temporary run directory holding a copy of the rocprofv3 JSON fixture. */
static char *json_only_run(void) {
    char tmpl[] = "/tmp/check_run_gauges.XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    char *cmd = NULL;
    ck_assert(asprintf(&cmd, "cp %s/fixtures/rocprofv3/rocprofv3_908_results.json.gz %s/908_results.json.gz",
                       GOBLIN_SHARED_DIR, d) > 0);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    return strdup(d);
}

/* The value at a dotted path of the document, or NULL. */
static json_t *at(json_t *doc, const char *path) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *v = doc;
    for (char *save = NULL, *p = strtok_r(buf, ".", &save); v && p; p = strtok_r(NULL, ".", &save)) {
        if (json_is_array(v)) {          /* by_class.<class>: the element whose class is p */
            json_t *hit = NULL, *e;
            size_t i;
            json_array_foreach(v, i, e) {
                const char *c = json_string_value(json_object_get(e, "class"));
                if (c && !strcmp(c, p)) hit = e;
            }
            v = hit;
        } else {
            v = json_object_get(v, p);
        }
    }
    return v;
}

/* A run directory with a rocprofv3 kernel trace whose names are awkward for JSON: invalid
 * UTF-8, a tab, quotes, a backslash, DEL, a NUL; and timestamps near 2^62. */
static char *awkward_names_run(void) {
    char tmpl[] = "/tmp/check_run_gauges.XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    char *path = NULL;
    ck_assert(asprintf(&path, "%s/kernel_trace.csv", d) > 0);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Name\",\"Correlation_Id\","
          "\"Start_Timestamp\",\"End_Timestamp\"\n", f);
#define NAME(lit) {lit, sizeof lit - 1}      /* (the literal's bytes, a NUL inside included) */
    static const struct { const char *s; size_t n; } NAMES[] = {
        NAME("gemm_\xff\xfe_bad"), NAME("tab\there"), NAME("say \"\"hi\"\""), NAME("back\\slash"), NAME("del\x7f"),
        NAME("plain_kernel"), NAME("nul\0inside")};
#undef NAME
    long long t = 4611686018427387904LL;    /* 2^62 */
    int id = 1;
    for (int rep = 0; rep < 3; rep++)
        for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++, id++) {
            long long dur = 1000 + 37 * (long long)i + 11 * rep;
            fprintf(f, "\"KERNEL_DISPATCH\",\"1\",\"1\",\"7\",\"%d\",\"", id);
            ck_assert_uint_eq(fwrite(NAMES[i].s, 1, NAMES[i].n, f), NAMES[i].n);
            fprintf(f, "\",\"%d\",\"%lld\",\"%lld\"\n", id, t, t + dur);
            t += dur + 5;
        }
    fclose(f);
    free(path);
    return strdup(d);
}

/* The rows the store keeps are the document's by_name rows as its JSON gives them back
 * (jansson here: the names as the document shows them, the numbers as doubles). */
START_TEST(kernel_rows_are_the_documents) {
    char *dir = awkward_names_run();
    run_analysis_options opt;
    run_analysis_defaults(&opt);
    run_analysis a;
    ck_assert(run_analyze(dir, &opt, &a));
    json_t *doc = json_loads(a.json.data, JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(json_string_value(at(doc, "kernels.from")), "dispatches");
    json_t *rows = at(doc, "kernels.by_name");
    ck_assert_uint_eq(json_array_size(rows), 7);
    ck_assert_uint_eq(a.headline.n_kernels, 7);       /* the name holding a NUL is stored too */
    ck_assert_uint_eq(a.headline.kernels_skipped, 0);
    for (size_t i = 0; i < a.headline.n_kernels; i++) {
        const ingest_kernel *k = &a.headline.kernels[i];
        json_t *r = json_array_get(rows, i);
        json_t *name = json_object_get(r, "name");
        ck_assert_uint_eq(k->name_len, json_string_length(name));
        ck_assert(!memcmp(k->name, json_string_value(name), k->name_len));
        ck_assert_str_eq(k->kernel_class, json_string_value(json_object_get(r, "class")));
        ck_assert_int_eq(k->calls, (int64_t)json_number_value(json_object_get(r, "calls")));
        ck_assert_int_eq(k->total_ns, (int64_t)json_number_value(json_object_get(r, "total_ns")));
        ck_assert_int_eq(k->min_ns, (int64_t)json_number_value(json_object_get(r, "min_ns")));
        ck_assert_int_eq(k->max_ns, (int64_t)json_number_value(json_object_get(r, "max_ns")));
    }
    /* the invalid bytes became U+FFFD, as the document shows them */
    bool replaced = false;
    for (size_t i = 0; i < a.headline.n_kernels; i++)
        replaced |= !strcmp(a.headline.kernels[i].name, "gemm_\xef\xbf\xbd\xef\xbf\xbd_bad");
    ck_assert(replaced);
    bool nul_kept = false;
    for (size_t i = 0; i < a.headline.n_kernels; i++)
        nul_kept |= a.headline.kernels[i].name_len == 10 && !memcmp(a.headline.kernels[i].name, "nul\0inside", 10);
    ck_assert(nul_kept);
    json_decref(doc);
    run_analysis_free(&a);
    char *cmd = NULL;
    ck_assert(asprintf(&cmd, "rm -rf %s", dir) > 0);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(dir);
}
END_TEST

START_TEST(collects_what_the_document_shows) {
    char *dir = json_only_run();
    run_analysis_options opt;
    run_analysis_defaults(&opt);
    run_analysis a;
    ck_assert(run_analyze(dir, &opt, &a));
    json_t *doc = json_loads(a.json.data, JSON_DECODE_INT_AS_REAL, NULL);
    ck_assert_ptr_nonnull(doc);
    bool seen[IG_COUNT] = {0};
    for (size_t i = 0; i < a.headline.n_gauges; i++) {
        const ingest_gauge *g = &a.headline.gauges[i];
        int idx = ingest_gauge_index(g->name);
        ck_assert_int_ge(idx, 0);
        seen[idx] = true;
        json_t *v = at(doc, g->name);
        if (idx >= IG_CLASS_FIRST && !v) {
            ck_assert(g->value == 0);           /* a class with no kernel: a measured 0, not listed */
            continue;
        }
        ck_assert_msg(json_is_number(v), "%s", g->name);
        ck_assert_msg(fabs(json_number_value(v) - g->value) <= 1e-9 * fabs(g->value) + 1e-9, "%s", g->name);
    }
    /* this run has a timeline and classes but no ProfilerStep: the mean step is absent, not 0 */
    ck_assert(seen[IG_BUSY_NS] && seen[IG_IDLE_NS] && seen[IG_SPAN_NS] && seen[IG_CLASS_FIRST + KC_GEMM]);
    ck_assert(!seen[IG_STEP_MEAN_WALL_NS]);
    json_t *rows = at(doc, "kernels.by_name");
    ck_assert_uint_eq(a.headline.n_kernels, json_array_size(rows));
    uint64_t calls = 0;
    for (size_t i = 0; i < a.headline.n_kernels; i++) {
        const ingest_kernel *k = &a.headline.kernels[i];
        json_t *r = json_array_get(rows, i);
        ck_assert_str_eq(k->name, json_string_value(json_object_get(r, "name")));
        ck_assert_str_eq(k->kernel_class, json_string_value(json_object_get(r, "class")));
        ck_assert(k->min_ns <= k->max_ns && k->calls > 0);
        calls += (uint64_t)k->calls;
    }
    ck_assert_uint_eq(calls, (uint64_t)json_number_value(at(doc, "kernels.total_calls")));
    ck_assert_str_eq(a.headline.kernel_formats.data, "rocprofv3-json");
    json_decref(doc);
    /* the same rows from an indented document (goblind analyze's) */
    run_analysis_options pretty = opt;
    pretty.json_indent = 2;
    run_analysis b;
    ck_assert(run_analyze(dir, &pretty, &b));
    ck_assert_uint_eq(b.headline.n_kernels, a.headline.n_kernels);
    for (size_t i = 0; i < b.headline.n_kernels; i++)
        ck_assert(!strcmp(b.headline.kernels[i].name, a.headline.kernels[i].name) &&
                  b.headline.kernels[i].total_ns == a.headline.kernels[i].total_ns);
    run_analysis_free(&b);

    /* the handoff: no RunMetrics rows -> the analysis's, with their source */
    ingest_doc d = {0};
    ingest_doc_attach_analysis(&d, &a);
    ck_assert_ptr_eq(d.analysis_json, a.json.data);
    ck_assert_uint_eq(d.n_gauges, a.headline.n_gauges);
    ck_assert_str_eq(d.kernels_source, "analysis");
    ck_assert_str_eq(d.kernels_formats, "rocprofv3-json");
    ingest_kernel k;
    ck_assert(d.kernel_at(&d, 0, &k) && !strcmp(k.name, a.headline.kernels[0].name));
    ck_assert(!d.kernel_at(&d, a.headline.n_kernels, &k));
    run_analysis_free(&a);
    char *cmd = NULL;
    ck_assert(asprintf(&cmd, "rm -rf %s", dir) > 0);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(dir);
}
END_TEST

static bool one_row(const ingest_doc *d, size_t i, ingest_kernel *k) {
    (void)d;
    if (i) return false;
    *k = (ingest_kernel){.name = "gemm_a", .name_len = 6, .calls = 2, .total_ns = 10, .min_ns = 4, .max_ns = 6,
                         .kernel_class = "gemm"};
    return true;
}

START_TEST(runmetrics_rows_win) {
    run_analysis a;
    memset(&a, 0, sizeof a);
    ingest_kernel other = {.name = "x", .name_len = 1, .calls = 1};
    a.headline.kernels = &other;
    a.headline.n_kernels = 1;
    ingest_doc d = {.kernel_at = one_row, .kernels_source = "run_metrics"};
    ingest_doc_attach_analysis(&d, &a);
    ck_assert_str_eq(d.kernels_source, "run_metrics");
    ingest_kernel k;
    ck_assert(d.kernel_at(&d, 0, &k) && !strcmp(k.name, "gemm_a"));
}
END_TEST

static char *temp_db(void) {
    char tmpl[] = "/tmp/check_run_gauges_db.XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    char *db = NULL;
    ck_assert(asprintf(&db, "%s/g.db", d) > 0);
    return db;
}

static void ingest(store *st, const char *id, const ingest_gauge *g, size_t n) {
    ingest_doc doc = {.metrics_json = "{}", .gauges = g, .n_gauges = n, .kernel_at = one_row,
                      .kernels_source = "analysis", .kernels_formats = "rocprofv3-json,nsys-cuda-gpu-trace"};
    ingest_record rec = {.id = id, .root = "/r", .path = "/r/x", .status = RUN_COMPLETE, .now_ms = 1000, .doc = &doc,
                         .metrics_json = doc.metrics_json, .parse_ms = 1.0};
    ck_assert_int_eq(store_ingest(st, &rec), 0);
}

static void kernel_seen(void *user, const kernel_row *k) {
    ck_assert_str_eq(k->name, "gemm_a");
    ck_assert_str_eq(k->kernel_class, "gemm");
    (*(int *)user)++;
}

static void count_gauge(void *user, const char *run, int g, double v) {
    (void)run, (void)g, (void)v;
    (*(int *)user)++;
}

START_TEST(stored_replaced_deleted) {
    char *db = temp_db(), *err = NULL;
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ck_assert_int_eq(retention_init(st), 0);
    ingest_gauge g[] = {{INGEST_GAUGE_NAMES[IG_BUSY_NS], 123456789.0}, {INGEST_GAUGE_NAMES[IG_CLASS_FIRST], 0.0},
                        {"not.of.the.set", 5.0}};
    ingest(st, "a", g, 3);
    store_reader *rd = store_reader_acquire(st);
    opt_num v[IG_COUNT];
    ck_assert(store_run_gauges(rd, "a", v));
    ck_assert(v[IG_BUSY_NS].has && v[IG_BUSY_NS].v == 123456789.0);
    ck_assert(v[IG_CLASS_FIRST].has && v[IG_CLASS_FIRST].v == 0.0);      /* a measured 0 stays 0 */
    ck_assert(!v[IG_IDLE_NS].has);                                       /* unknown stays unknown */
    int n = 0;
    ck_assert_int_eq(store_run_kernels(rd, "a", KSORT_TOTAL, 10, kernel_seen, &n), 1);
    char src[32], fmts[256];
    ck_assert(store_kernels_source(rd, "a", src, sizeof src, fmts, sizeof fmts));
    ck_assert_str_eq(src, "analysis");
    ck_assert_str_eq(fmts, "rocprofv3-json,nsys-cuda-gpu-trace");
    store_reader_release(st, rd);

    ingest(st, "a", g, 1);                        /* the next parse replaces them */
    rd = store_reader_acquire(st);
    ck_assert(store_run_gauges(rd, "a", v));
    ck_assert(v[IG_BUSY_NS].has && !v[IG_CLASS_FIRST].has);
    n = 0;
    ck_assert_int_eq(store_newest_gauges(rd, 10, count_gauge, &n), 1);
    ck_assert_int_eq(n, 1);
    store_reader_release(st, rd);

    bool found = false;
    ck_assert_int_eq(retention_forget(st, "a", 2000, "test", &found), 0);
    ck_assert(found);
    rd = store_reader_acquire(st);
    n = 0;
    ck_assert_int_eq(store_newest_gauges(rd, 10, count_gauge, &n), 0);
    ck_assert(store_run_gauges(rd, "a", v) && !v[IG_BUSY_NS].has);
    store_reader_release(st, rd);
    store_close(st);
    free(db);
}
END_TEST

int main(void) {
    Suite *s = suite_create("run_gauges");
    TCase *t = tcase_create("gauges");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, gauge_names_match_the_class_table);
    tcase_add_test(t, collects_what_the_document_shows);
    tcase_add_test(t, kernel_rows_are_the_documents);
    tcase_add_test(t, runmetrics_rows_win);
    tcase_add_test(t, stored_replaced_deleted);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
