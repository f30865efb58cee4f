/* Tests: a torch profile read in two pieces (artefact_read_begin/end) gives exactly what
 * one sequential read gives, at every split offset: the same summary to the bit and the
 * same warnings, whether the join succeeds or declines and the head reads on alone. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/artefact_reader.h"
#include "base/text_utf8.h"
#include "test_util.h"

typedef struct outcome {
    torch_summary sum;
    diag_list diag;
    artefact_info info;
} outcome;

/* tail_bytes 0: one sequential read; else a split read offering that tail to this thread. */
static void read_torch(const char *path, uint64_t tail_bytes, outcome *o) {
    memset(o, 0, sizeof *o);
    tu_read_artefact(path, ARTEFACT_TORCH_PROFILE, tail_bytes, &o->sum, &o->diag, &o->info);
}

static void outcome_free(outcome *o) {
    torch_summary_free(&o->sum);
    diag_free(&o->diag);
}

static void same_num(opt_num a, opt_num b, const char *what, uint64_t at) {
    ck_assert_msg(a.has == b.has && memcmp(&a.v, &b.v, sizeof a.v) == 0,
                  "%s differs when split at %llu: %d %.17g vs %d %.17g", what, (unsigned long long)at, a.has, a.v, b.has, b.v);
}

static void same_outcome(const outcome *a, const outcome *b, uint64_t at) {
    same_num(a->sum.tokens_per_sec, b->sum.tokens_per_sec, "tokens_per_sec", at);
    same_num(a->sum.mfu_pct, b->sum.mfu_pct, "mfu_pct", at);
    same_num(a->sum.step_time_seconds, b->sum.step_time_seconds, "step_time_seconds", at);
    same_num(a->sum.host_busy_fraction, b->sum.host_busy_fraction, "host_busy_fraction", at);
    ck_assert_int_eq(a->sum.n_steps, b->sum.n_steps);
    ck_assert_int_eq(a->sum.profiled_steps, b->sum.profiled_steps);
    ck_assert_int_eq(a->sum.complete, b->sum.complete);
    ck_assert_int_eq(a->sum.step_time_is_span, b->sum.step_time_is_span);
    ck_assert_uint_eq(a->sum.step_events, b->sum.step_events);
    ck_assert_msg(kernel_table_equal(&a->sum.kernels, &b->sum.kernels), "GPU kernel events differ when split at %llu",
                  (unsigned long long)at);
    ck_assert_uint_eq(a->sum.facts.rows_used, b->sum.facts.rows_used);
    ck_assert_uint_eq(a->sum.facts.n_skips, b->sum.facts.n_skips);
    for (size_t i = 0; i < a->sum.facts.n_skips; i++) ck_assert_uint_eq(a->sum.facts.skipped[i].rows, b->sum.facts.skipped[i].rows);
    ck_assert_str_eq(a->sum.pytorch_version ? a->sum.pytorch_version : "(none)",
                     b->sum.pytorch_version ? b->sum.pytorch_version : "(none)");
    if (a->sum.complete) ck_assert_uint_eq(a->info.bytes_parsed, b->info.bytes_parsed);   /* after an error: where reading stopped */
    ck_assert_msg(a->diag.count == b->diag.count, "warnings differ when split at %llu", (unsigned long long)at);
    for (size_t i = 0; i < a->diag.count; i++) ck_assert_str_eq(a->diag.items[i], b->diag.items[i]);
}

/* Writes doc as a torch profile and compares a split read at every offset with one
 * sequential read. Returns how many of those reads were joined from two pieces, to show
 * that the join was exercised and not only declined. */
static unsigned check_every_split(const char *doc) {
    unsigned joined = 0;
    char *dir = tu_tempdir();
    tu_write_str(dir, "torch_profile.json", doc);
    char path[4096];
    snprintf(path, sizeof path, "%s/torch_profile.json", dir);
    outcome whole;
    read_torch(path, 0, &whole);
    size_t n = strlen(doc);
    for (uint64_t at = 1; at < n; at++) {
        outcome split;
        read_torch(path, at, &split);
        same_outcome(&whole, &split, at);
        joined += split.info.pieces == 2;
        outcome_free(&split);
    }
    outcome_free(&whole);
    tu_rmrf(dir);
    free(dir);
    return joined;
}

/* Events written the way torch does, with awkward durations so that a different
 * summation order would show in the last bits; steps under several names and their GPU-side
 * copies, GPU kernels under several names, and 2021 Kineto "Operator" host events. */
static const char *const CATS[6][2] = {{"user_annotation", "ProfilerStep#%d"}, {"cpu_op", "aten::mm"},
    {"cpu_op", "aten::mm"}, {"kernel", "gemm_k%d"}, {"gpu_user_annotation", "ProfilerStep#1"}, {"Operator", "aten::add"}};
static char *events(const char *sep, int count, const char *extra_root_keys_after) {
    strbuf b = {0};
    const char *head = "{\"schemaVersion\": 1, \"deviceProperties\": [\n{\"id\": 0},\n{\"id\": 1}],\n"
                       "\"metadata\": {\"pytorch_version\": \"2.5\", \"n_steps\": 3},\n\"traceEvents\": [\n";
    strbuf_append(&b, head, strlen(head));
    for (int i = 0; i < count; i++) {
        char ev[512], name[64];
        snprintf(name, sizeof name, CATS[i % 6][1], i % 4);
        int len = snprintf(ev, sizeof ev,
            "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"ts\": %d.1, \"dur\": %s, "
            "\"args\": {\"Input Dims\": [[8, 4096], []], \"list\": [\n{\"a\": 1},\n{\"b\": 2}]}}",
            i ? sep : "", CATS[i % 6][0], name, i * 7, i % 5 == 4 ? "\"nan\"" : i % 2 ? "0.1" : "1.7");
        strbuf_append(&b, ev, (size_t)len);
    }
    strbuf_append(&b, "]", 1);
    if (extra_root_keys_after) strbuf_append(&b, extra_root_keys_after, strlen(extra_root_keys_after));
    strbuf_append(&b, "}\n", 2);
    strbuf_terminate(&b);
    return b.data;
}

START_TEST(split_equals_sequential) {
    char *d = events(",\n", 24, NULL);
    ck_assert_uint_gt(check_every_split(d), 100);
    free(d);
    d = events(",\n  ", 24, ", \"metadata\": {\"tokens_per_sec\": 12.5, \"torch_version\": \"2.6\"}");   /* metadata in the tail */
    ck_assert_uint_gt(check_every_split(d), 100);
    free(d);
    d = events(",\n", 24, ", \"traceEvents\": [\n{\"name\": \"ProfilerStep#9\", \"ts\": 1, \"dur\": 3},\n{\"cat\": \"cpu_op\", \"ts\": 2, \"dur\": 1}]");
    ck_assert_uint_gt(check_every_split(d), 100);                          /* a later list replaces the first */
    free(d);
    d = events(", ", 24, NULL);                                              /* no newlines between events: never split */
    ck_assert_uint_eq(check_every_split(d), 0);
    free(d);
}
END_TEST

START_TEST(split_with_errors) {
    char *d = events(",\n", 24, NULL);
    size_t n = strlen(d);
    d[n / 3] = '#';                                                          /* an error in the head ... */
    check_every_split(d);
    free(d);
    d = events(",\n", 24, NULL);
    n = strlen(d);
    memcpy(d + n * 3 / 4, "\x01", 1);                                        /* ... in the tail */
    check_every_split(d);
    d[n - 4] = '\0';                                                         /* truncated */
    check_every_split(d);
    free(d);
    check_every_split("[\n{\"name\": \"ProfilerStep#1\", \"dur\": 5},\n{\"name\": \"x\"}]");   /* bare array */
}
END_TEST

/* More sum terms than the tail may keep: the join declines, the head reads on, and the
 * result is still the sequential one. */
START_TEST(split_beyond_the_term_limit) {
    strbuf b = {0};
    const char *head = "{\"traceEvents\": [\n{\"cat\": \"cpu_op\", \"ts\": 0, \"dur\": 0.3}";
    strbuf_append(&b, head, strlen(head));
    for (int i = 0; i < 270000; i++) {
        static const char ev[] = ",\n{\"cat\": \"cpu_op\", \"ts\": 1, \"dur\": 0.1}";
        strbuf_append(&b, ev, sizeof ev - 1);
    }
    strbuf_append(&b, "]}", 2);
    strbuf_terminate(&b);
    char *dir = tu_tempdir();
    tu_write_str(dir, "torch_profile.json", b.data);
    char path[4096];
    snprintf(path, sizeof path, "%s/torch_profile.json", dir);
    outcome whole, split;
    read_torch(path, 0, &whole);
    read_torch(path, b.len - 100, &split);              /* nearly all of it in the tail */
    same_outcome(&whole, &split, 100);
    ck_assert_uint_eq(split.info.pieces, 1);
    outcome_free(&whole);
    outcome_free(&split);
    tu_rmrf(dir);
    free(dir);
    strbuf_free(&b);
}
END_TEST

/* A torch profile that cannot be opened: one warning, as from a sequential read. */
START_TEST(split_of_an_unreadable_file) {
    char *dir = tu_tempdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/torch_profile.json", dir);
    for (int i = 0; i < 2; i++) {
        if (i == 1) ck_assert_int_eq(mkdir(path, 0755), 0);          /* missing, then a directory */
        outcome whole, split;
        read_torch(path, 0, &whole);
        read_torch(path, 1000, &split);
        ck_assert_uint_eq(whole.diag.count, 1);
        same_outcome(&whole, &split, 1000);
        outcome_free(&whole);
        outcome_free(&split);
    }
    tu_rmrf(dir);
    free(dir);
}
END_TEST

Suite *split_suite(void) {
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("torch profile in two pieces");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, split_equals_sequential);
    tcase_add_test(tc, split_with_errors);
    tcase_add_test(tc, split_beyond_the_term_limit);
    tcase_add_test(tc, split_of_an_unreadable_file);
    suite_add_tcase(s, tc);
    return s;
}
