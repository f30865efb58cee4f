/* check_run_ingest: one read per ingest (core/run_ingest).
 *
 * RunMetrics from run_ingest() — its three summary readings riding on the run driver's reads
 * (artefact_passenger) — must equal run_parse()'s byte for byte (JSON, warnings, read facts),
 * also when the driver reads a file in two pieces on two threads (the passenger then reads two
 * pieces and joins them), when the pieces of the records do not join (both read again), and
 * for files the driver does not read. tests/oneread.py checks the same through the CLI on
 * generated runs, fixtures and mutations. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/run_ingest.h"
#include "tests/test_util.h"

/* A splittable test-only section: counts dispatches, so the driver may split any file. */
typedef struct count_run { uint64_t dispatches, pieces; } count_run;
typedef struct count_src { uint64_t dispatches; } count_src;
static void *count_open(const analysis_config *c, diag_list *d) { (void)c; (void)d; return calloc(1, sizeof(count_run)); }
static void *count_open_source(void *run, const source_ref *s) { (void)run; (void)s; return calloc(1, sizeof(count_src)); }
static bool count_consume(void *src, const record *r) { (void)r; ((count_src *)src)->dispatches++; return true; }
static bool count_end_source(void *run, void *src) {
    ((count_run *)run)->dispatches += ((count_src *)src)->dispatches;
    ((count_run *)run)->pieces++;
    free(src);
    return true;
}
static bool count_finish(void *run, const section_results *e) { (void)run; (void)e; return true; }
static void count_render(const void *run, jw_out *w) { jw_int(w, (int64_t)((const count_run *)run)->dispatches); }
static void count_close(void *run) { free(run); }
static const section_analysis COUNT = {
    .key = "count", .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_CPU_OP), .splittable = true,
    .open = count_open, .open_source = count_open_source, .consume = count_consume, .end_source = count_end_source,
    .finish = count_finish, .render = count_render, .close = count_close};
static const section_analysis *const SPLITTABLE[] = {&COUNT, NULL};

/* run_ingest's RunMetrics equals run_parse's; returns the ingest's pieces of `kind`. */
static unsigned compare(const char *dir, const section_analysis *const *sections, uint64_t split_min) {
    run_options opt = {0};
    opt.parse.split_min_bytes = split_min;
    run_result want, got;
    ck_assert(run_parse(dir, &opt, &want));
    run_analysis_options aopt;
    run_analysis_defaults(&aopt);
    aopt.sections = sections;
    aopt.parse.split_min_bytes = split_min;
    run_analysis an;
    ck_assert(run_ingest(dir, &opt, &aopt, &got, &an));
    char *a = tu_metrics_text(&want), *b = tu_metrics_text(&got);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    unsigned pieces = got.info[ARTEFACT_KERNEL_TRACE].pieces * 10 + got.info[ARTEFACT_TORCH_PROFILE].pieces;
    run_result_free(&want);
    run_result_free(&got);
    run_analysis_free(&an);
    return pieces;
}

START_TEST(ingest_equals_parse_whole) {
    char *d = tu_goblin_run(12000, 9000, false);
    ck_assert_uint_eq(compare(d, NULL, 0), 11);        /* the registry's sections: one piece each */
    tu_rmrf(d);
    free(d);
}
END_TEST

static void remove_file(const char *dir, const char *name) {
    char *p = NULL;
    ck_assert(asprintf(&p, "%s/%s", dir, name) > 0);
    ck_assert_int_eq(remove(p), 0);
    free(p);
}

START_TEST(ingest_equals_parse_split) {
    char *d = tu_goblin_run(12000, 9000, false);
    /* every section splittable, pieces from 64 KiB: with both large files the driver reads
     * them side by side (one piece each); a large file read alone is split in two pieces and
     * the passenger follows (two pieces, joined) */
    compare(d, SPLITTABLE, 64 << 10);
    char *k = tu_tempdir(), *t = tu_tempdir();
    char *cmd = NULL;
    ck_assert(asprintf(&cmd, "cp '%s'/* '%s'/ && cp '%s'/* '%s'/", d, k, d, t) > 0);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    remove_file(k, "torch_profile.json");
    remove_file(t, "trace.csv");
    ck_assert_uint_eq(compare(k, SPLITTABLE, 64 << 10) / 10, 2);   /* the kernel trace in two pieces */
    ck_assert_uint_eq(compare(t, SPLITTABLE, 64 << 10) % 10, 2);   /* the torch profile in two pieces */
    tu_rmrf(k);
    tu_rmrf(t);
    free(k);
    free(t);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* max_parse_mb stopping the torch profile's tail piece (the limit at three quarters of the
 * file, the cut near half-way): RunMetrics from the ingest says what goblind parse says (the
 * passenger checks the limit at the piece's file offset, not at the bytes both pieces have
 * fed so far, which depend on how far the head thread has come), and the run fails with it.
 * Five rounds: the threads' timing differs from one to the next (the check against the bytes
 * fed so far failed this test 3 times in 3 runs, a race on how far the head had come). */
START_TEST(ingest_equals_parse_split_limited) {
    char *d = tu_goblin_run(12000, 9000, false);
    remove_file(d, "trace.csv");
    char *path = NULL;
    ck_assert(asprintf(&path, "%s/torch_profile.json", d) > 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    free(path);
    parse_limits lim = {.max_bytes = (uint64_t)st.st_size * 3 / 4};
    for (int round = 0; round < 5; round++) {
        run_options opt = {0};
        opt.parse.split_min_bytes = 64 << 10;
        opt.parse.limits = &lim;
        run_result want, got;
        ck_assert(run_parse(d, &opt, &want));
        run_analysis_options aopt;
        run_analysis_defaults(&aopt);
        aopt.sections = SPLITTABLE;
        aopt.parse.split_min_bytes = 64 << 10;
        aopt.parse.limits = &lim;
        run_analysis an;
        ck_assert(run_ingest(d, &opt, &aopt, &got, &an));
        ck_assert_uint_eq(got.info[ARTEFACT_TORCH_PROFILE].pieces, 1);   /* (the driver split it; RunMetrics dropped it) */
        /* the dropped file's bytes_parsed is the one difference (docs/ARCHITECTURE.md "Reading"):
         * goblind parse's head reads on alone to the bound, the ingest's failed passenger is not
         * fed the driver's re-read */
        got.info[ARTEFACT_TORCH_PROFILE].bytes_parsed = want.info[ARTEFACT_TORCH_PROFILE].bytes_parsed;
        char *a = tu_metrics_text(&want), *b = tu_metrics_text(&got);
        ck_assert_str_eq(a, b);
        ck_assert_ptr_nonnull(strstr(b, "torch_profile.json: not parsed: more than 0 MiB of content (after inflation); "
                                        "max_parse_mb bounds a parse"));
        ck_assert_ptr_nonnull(run_result_outcome(&got).limited);
        free(a);
        free(b);
        run_result_free(&want);
        run_result_free(&got);
        run_analysis_free(&an);
    }
    tu_rmrf(d);
    free(d);
}
END_TEST

/* A kernel trace read in two pieces whose header earns warnings (no timing column): in the
 * ingest, RunMetrics' half of the head piece's pair state keeps them apart from the
 * passenger's own warnings until the join, then puts them where its own read would. */
START_TEST(ingest_equals_parse_split_header_warnings) {
    char *d = tu_tempdir();
    strbuf csv = {0};
    const char *hdr = "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Correlation_Id\"\n";
    strbuf_append(&csv, hdr, strlen(hdr));
    for (int i = 0; i < 20000; i++) {
        char line[128];
        int n = snprintf(line, sizeof line, "\"KERNEL_DISPATCH\",1,\"kernel_%d\",%d\n", i % 5, i);
        strbuf_append(&csv, line, (size_t)n);
    }
    tu_write(d, "trace.csv", csv.data, csv.len);
    strbuf_free(&csv);
    tu_write_str(d, "amd_smi.csv", "timestamp,gpu,vram_used,gfx_activity\n1,0,65536 MB,80\n2,0,70000 MB,90\n");
    ck_assert_uint_eq(compare(d, SPLITTABLE, 64 << 10) / 10, 2);   /* the kernel trace in two pieces */
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(ingest_equals_parse_bad_json) {
    char *d = tu_goblin_run(12000, 9000, true);                       /* invalid JSON: RunMetrics drops the profile */
    compare(d, SPLITTABLE, 64 << 10);
    compare(d, NULL, 0);
    remove_file(d, "trace.csv");                     /* the torch profile alone: read in two pieces */
    ck_assert_uint_eq(compare(d, SPLITTABLE, 64 << 10) % 10, 2);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* The driver's two pieces of the torch profile join, RunMetrics' do not: 133,500 distinct GPU
 * kernel names, twice over (the cut is near the middle), fit one pass's table but not the two
 * pieces' (KT_MAX_NAMES), so torch_stats declines the join and the records passenger reads the
 * file apart (artefact_passenger_read_apart): RunMetrics still equals run_parse's, from one
 * piece, while the document's torch source was read in two. */
START_TEST(ingest_passenger_reads_apart) {
    char *d = tu_tempdir();
    strbuf js = {0};
    const char *head = "{\"metadata\": {\"pytorch_version\": \"2.5.1\"},\n \"traceEvents\": [\n";
    strbuf_append(&js, head, strlen(head));
    for (int i = 0; i < 267000; i++) {
        char line[128];
        int n = snprintf(line, sizeof line, " {\"cat\": \"kernel\", \"name\": \"k%06d\", \"ts\": %d, \"dur\": 3},\n",
                         i % 133500, i);
        strbuf_append(&js, line, (size_t)n);
    }
    const char *tail = " {\"name\": \"last\", \"ts\": 1, \"dur\": 1}\n ]\n}\n";
    strbuf_append(&js, tail, strlen(tail));
    tu_write(d, "torch_profile.json", js.data, js.len);
    strbuf_free(&js);
    /* run_parse in one piece (the same result as its own split, which would decline too) */
    run_options popt = {0}, opt = {0};
    popt.parse.split_min_bytes = (uint64_t)1 << 40;
    run_result want, got;
    ck_assert(run_parse(d, &popt, &want));
    run_analysis_options aopt;
    run_analysis_defaults(&aopt);
    aopt.sections = SPLITTABLE;
    aopt.parse.split_min_bytes = 64 << 10;
    run_analysis an;
    ck_assert(run_ingest(d, &opt, &aopt, &got, &an));
    char *a = tu_metrics_text(&want), *b = tu_metrics_text(&got);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    ck_assert_uint_eq(got.info[ARTEFACT_TORCH_PROFILE].pieces, 1);       /* RunMetrics: read apart, one piece */
    ck_assert_ptr_nonnull(strstr(an.json.data, "\"pieces\":2"));        /* the driver's read: two pieces, joined */
    run_result_free(&want);
    run_result_free(&got);
    run_analysis_free(&an);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(ingest_missing_and_extra_files) {
    char *d = tu_goblin_run(12000, 9000, false);
    char *p = NULL;
    remove_file(d, "trace.csv");                     /* not found: run_parse's warning, torch kernels */
    compare(d, NULL, 0);
    size_t n;
    ck_assert(asprintf(&p, "%s/torch_profile.json", d) > 0);
    char *js = tu_read(p, &n);
    free(p);
    tu_write(d, "rank1.pt.trace.json", js, n);       /* a source RunMetrics does not read */
    free(js);
    compare(d, SPLITTABLE, 64 << 10);
    tu_rmrf(d);
    free(d);
}
END_TEST

int main(void) {
    Suite *s = suite_create("run_ingest");
    TCase *tc = tcase_create("one read");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ingest_equals_parse_whole);
    tcase_add_test(tc, ingest_equals_parse_split_header_warnings);
    tcase_add_test(tc, ingest_equals_parse_split);
    tcase_add_test(tc, ingest_equals_parse_split_limited);
    tcase_add_test(tc, ingest_equals_parse_bad_json);
    tcase_add_test(tc, ingest_missing_and_extra_files);
    tcase_add_test(tc, ingest_passenger_reads_apart);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
