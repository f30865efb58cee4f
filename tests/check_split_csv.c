/* Tests: a kernel trace CSV read in two pieces (a record format: the format's join and
 * the kernel_stats analysis's join) gives exactly what one sequential read gives, at every
 * split offset: the same per-kernel table, read facts and warnings (with line numbers
 * counted from the file's start), whether the join succeeds or declines. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "core/artefact_reader.h"
#include "test_util.h"

typedef struct outcome {
    kernel_summary sum;
    diag_list diag;
    artefact_info info;
} outcome;

/* tail_bytes 0: one sequential read; else a split read offering that tail to this thread. */
static void read_kernels(const char *path, uint64_t tail_bytes, outcome *o) {
    memset(o, 0, sizeof *o);
    tu_read_artefact(path, ARTEFACT_KERNEL_TRACE, tail_bytes, &o->sum, &o->diag, &o->info);
}

static void outcome_free(outcome *o) {
    kernel_summary_free(&o->sum);
    diag_free(&o->diag);
}

static void same_outcome(const outcome *a, const outcome *b, uint64_t tail) {
    ck_assert_msg(kernel_table_equal(&a->sum.kernels, &b->sum.kernels), "kernels differ with a %llu-byte tail",
                  (unsigned long long)tail);
    ck_assert_int_eq(a->sum.complete, b->sum.complete);
    ck_assert_uint_eq(a->sum.facts.rows_used, b->sum.facts.rows_used);
    ck_assert_uint_eq(a->sum.facts.n_columns, b->sum.facts.n_columns);
    for (size_t i = 0; i < a->sum.facts.n_columns; i++)
        ck_assert_str_eq(a->sum.facts.columns[i].column ? a->sum.facts.columns[i].column : "-",
                         b->sum.facts.columns[i].column ? b->sum.facts.columns[i].column : "-");
    ck_assert_uint_eq(a->sum.facts.n_skips, b->sum.facts.n_skips);
    for (size_t i = 0; i < a->sum.facts.n_skips; i++) {
        ck_assert_str_eq(a->sum.facts.skipped[i].reason, b->sum.facts.skipped[i].reason);
        ck_assert_uint_eq(a->sum.facts.skipped[i].rows, b->sum.facts.skipped[i].rows);
    }
    ck_assert_uint_eq(a->info.bytes_parsed, b->info.bytes_parsed);
    ck_assert_msg(a->diag.count == b->diag.count, "warnings differ with a %llu-byte tail", (unsigned long long)tail);
    for (size_t i = 0; i < a->diag.count; i++) ck_assert_str_eq(a->diag.items[i], b->diag.items[i]);
}

/* Every tail length; returns how many reads were joined from two pieces. */
static unsigned check_every_split(const char *csv) {
    char *dir = tu_tempdir();
    tu_write_str(dir, "trace.csv", csv);
    char path[4096];
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    outcome whole;
    read_kernels(path, 0, &whole);
    unsigned joined = 0;
    size_t n = strlen(csv);
    for (uint64_t tail = 1; tail < n; tail++) {
        outcome split;
        read_kernels(path, tail, &split);
        same_outcome(&whole, &split, tail);
        joined += split.info.pieces == 2;
        outcome_free(&split);
    }
    outcome_free(&whole);
    tu_rmrf(dir);
    free(dir);
    return joined;
}

/* Rows of every kind: kept, nameless, untimed, negative, zero-start; names with quotes and
 * newlines inside quotes (a resume point there must be declined), CRLF line ends. */
static char *trace(int rows, const char *eol) {
    strbuf b = {0};
    char line[256];
    int len = snprintf(line, sizeof line, "Kind,Kernel_Name,Start_Timestamp,End_Timestamp%s", eol);
    strbuf_append(&b, line, (size_t)len);
    for (int i = 0; i < rows; i++) {
        switch (i % 6) {
        case 0: len = snprintf(line, sizeof line, "K,gemm_%d,%d,%d%s", i % 3, 100 + i, 190 + i * 3, eol); break;
        case 1: len = snprintf(line, sizeof line, "K,\"flash\nattn \"\"fwd\"\"\",%d,%d%s", i, i + 7, eol); break;
        case 2: len = snprintf(line, sizeof line, "K,,%d,%d%s", i, i + 1, eol); break;
        case 3: len = snprintf(line, sizeof line, "K,bad_%d,x,%d%s", i, i, eol); break;
        case 4: len = snprintf(line, sizeof line, "K,neg,%d,%d%s", i + 5, i, eol); break;
        default: len = snprintf(line, sizeof line, "K,\"epoch,\r\nk\",0,%d%s", i + 1, eol); break;
        }
        strbuf_append(&b, line, (size_t)len);
    }
    strbuf_terminate(&b);
    return b.data;
}

START_TEST(csv_split_equals_sequential) {
    char *t = trace(30, "\n");
    ck_assert_uint_gt(check_every_split(t), 100);
    free(t);
    t = trace(30, "\r\n");
    ck_assert_uint_gt(check_every_split(t), 100);
    size_t n = strlen(t);
    memcpy(t + n - 9, "\"", 1);                        /* the last record ends inside quotes */
    check_every_split(t);
    free(t);
    check_every_split("Kernel_Name,DurationNs\n\nk,5\n\n\nk,6");        /* blank lines, no final newline */
    ck_assert_uint_eq(check_every_split("Name\nk\nk\nk\n"), check_every_split("Name\nk\nk\nk\n"));   /* no timing */
}
END_TEST

Suite *split_csv_suite(void) {
    Suite *s = suite_create("split_csv");
    TCase *tc = tcase_create("kernel trace in two pieces");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, csv_split_equals_sequential);
    suite_add_tcase(s, tc);
    return s;
}
