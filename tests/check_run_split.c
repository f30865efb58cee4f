/* Split reads of a torch trace through the run driver (core/run_analysis): the analysis
 * document of two threads, where the torch trace is read in two pieces (alone, or its head
 * after a smaller kernel trace on one thread), is the document of one thread, past the ops
 * section's pending bound (2^16 kernels waiting for their operator) and when the kernel
 * trace turns out to hold no dispatch (the torch trace is then read again with its kernels). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run_analysis.h"
#include "tests/test_util.h"

/* A torch trace of 70,000 kernels, each written 1000 events before its launch call and
 * operator (so every one waits: past the bound, in both pieces of a split), a third of them
 * found only through their launch call. */
static void write_torch(const char *dir) {
    strbuf b = {0};
    const char *head = "{\"traceEvents\": [\n";
    strbuf_append(&b, head, strlen(head));
    char ev[320];
    for (int i = 1; i <= 71000; i++) {
        int n = 0;
        if (i <= 70000)
            n = i % 3 ? snprintf(ev, sizeof ev, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Cijk_%d\", \"pid\": 0, "
                                 "\"tid\": 1, \"ts\": %d.5, \"dur\": 2.25, \"args\": {\"device\": 0, \"stream\": 7, "
                                 "\"correlation\": %d, \"External id\": %d}},\n", i % 5, i * 4, i, i)
                      : snprintf(ev, sizeof ev, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Cijk_%d\", \"pid\": 0, "
                                 "\"tid\": 1, \"ts\": %d.5, \"dur\": 2.25, \"args\": {\"device\": 0, \"stream\": 7, "
                                 "\"correlation\": %d}},\n", i % 5, i * 4, i);
        strbuf_append(&b, ev, (size_t)n);
        int k = i - 1000;
        if (k < 1) continue;
        n = snprintf(ev, sizeof ev, "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                     "\"pid\": 1, \"tid\": 2, \"ts\": %d.0, \"dur\": 1.0, \"args\": {\"correlation\": %d, "
                     "\"External id\": %d}},\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", "
                     "\"pid\": 1, \"tid\": 2, \"ts\": %d.0, \"dur\": 3.0, \"args\": {\"External id\": %d}},\n",
                     k * 4, k, k, k % 7, k * 4, k);
        strbuf_append(&b, ev, (size_t)n);
    }
    const char *tail = "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"last\", \"ts\": 1, \"dur\": 1}\n]}\n";
    strbuf_append(&b, tail, strlen(tail));
    tu_write(dir, "torch_profile.json", b.data, b.len);
    strbuf_free(&b);
}

/* A rocprofv3 kernel trace of `rows` dispatches (0: the header alone). */
static void write_csv(const char *dir, int rows) {
    strbuf b = {0};
    const char *hdr = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n";
    strbuf_append(&b, hdr, strlen(hdr));
    for (int i = 0; i < rows; i++) {
        char line[200];
        int n = snprintf(line, sizeof line, "\"KERNEL_DISPATCH\",1,%d,\"Cijk_%d\",%d,%lld,%lld\n", i % 2, i % 5, i + 1,
                         1000000LL + i * 4000LL, 1000000LL + i * 4000LL + 2250);
        strbuf_append(&b, line, (size_t)n);
    }
    tu_write(dir, "trace.csv", b.data, b.len);
    strbuf_free(&b);
}

/* The document from "device" on (the sources section has timings and piece counts) and the
 * warnings, with `threads`; *torch_pieces: the torch trace's pieces. The cut of a split read
 * is placed before the read (split_cut_first), so whether there is one does not depend on
 * timing; with cut_first false the cut is left to the read. */
static char *analyze_cut(const char *dir, int threads, int *torch_pieces, bool cut_first) {
    run_analysis_options o;
    run_analysis_defaults(&o);
    o.threads = threads;
    o.parse.split_min_bytes = 1;
    o.parse.split_cut_first = cut_first;
    run_analysis a;
    ck_assert(run_analyze(dir, &o, &a));
    const char *t = strstr(a.json.data, "\"path\":\"torch_profile.json\"");
    ck_assert_ptr_nonnull(t);
    const char *p = strstr(t, "\"pieces\":");
    ck_assert_ptr_nonnull(p);
    *torch_pieces = atoi(p + 9);
    const char *dev = strstr(a.json.data, "\"device\":");
    ck_assert_ptr_nonnull(dev);
    strbuf out = {0};
    strbuf_append(&out, dev, strlen(dev));
    for (size_t i = 0; i < a.diag.count; i++) {
        strbuf_putc(&out, '\n');
        strbuf_append(&out, a.diag.items[i], strlen(a.diag.items[i]));
    }
    strbuf_terminate(&out);
    run_analysis_free(&a);
    return out.data;
}
static char *analyze(const char *dir, int threads, int *torch_pieces) {
    return analyze_cut(dir, threads, torch_pieces, true);
}

/* ck_abort_msg when documents one and two differ (where they part: they are too long for
 * check's message). */
static void same_text(const char *one, const char *two) {
    size_t at = 0;
    while (one[at] && one[at] == two[at]) at++;
    if (one[at] != two[at])
        ck_abort_msg("documents differ at %zu: one thread \"%.160s\" two \"%.160s\"", at, one + (at > 60 ? at - 60 : 0),
                     two + (at > 60 ? at - 60 : 0));
}

/* The documents of one and two threads are equal; the torch trace had `pieces` on two. */
static void same_both_ways(const char *dir, int pieces) {
    int p1, p2;
    char *one = analyze(dir, 1, &p1), *two = analyze(dir, 2, &p2);
    ck_assert_int_eq(p1, 1);
    ck_assert_int_eq(p2, pieces);
    ck_assert_ptr_nonnull(strstr(one, "waited for their operator"));   /* the bound was hit */
    same_text(one, two);
    free(one);
    free(two);
}

START_TEST(torch_alone_is_one_piece) {
    char *d = tu_tempdir();
    write_torch(d);
    same_both_ways(d, 1);   /* alone: its kernels are the run's, timeline takes them: one piece */
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(torch_beside_a_kernel_trace_splits) {
    char *d = tu_tempdir();
    write_torch(d);
    write_csv(d, 20000);    /* the device trace's kernels are chosen: the torch trace splits,
                             * its head read after trace.csv on one thread */
    same_both_ways(d, 2);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* The cut chosen while the head is read (the default: after trace.csv, half of what the head
 * has not claimed yet): wherever it falls, or when there is none (the head got too far),
 * the document is one thread's. Several reads, as the cut moves with timing. */
START_TEST(torch_cut_while_read_is_one_pass) {
    char *d = tu_tempdir();
    write_torch(d);
    write_csv(d, 20000);
    int p1, p2, split = 0;
    char *one = analyze(d, 1, &p1);
    for (int k = 0; k < 4; k++) {
        char *two = analyze_cut(d, 2, &p2, false);
        ck_assert(p2 == 1 || p2 == 2);
        split += p2 == 2;
        same_text(one, two);
        free(two);
    }
    fprintf(stderr, "cut while read: %d of 4 reads in two pieces\n", split);
    free(one);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(torch_read_again_when_the_kernel_trace_is_empty) {
    char *d = tu_tempdir();
    write_torch(d);
    write_csv(d, 0);        /* no dispatch: the torch trace's kernels are the run's after all */
    same_both_ways(d, 1);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* A torch trace of 280,000 kernels and nothing else: its second piece holds more kernels than
 * the ops section's budget for it (MAX_TAIL, 2^17), so the pieces do not join and the driver
 * reads the file again in one piece: the document is still one thread's. */
START_TEST(torch_past_the_piece_budget_is_read_again) {
    char *d = tu_tempdir();
    strbuf b = {0};
    const char *head = "{\"traceEvents\": [\n";
    strbuf_append(&b, head, strlen(head));
    char ev[200];
    for (int i = 1; i <= 280000; i++) {
        int n = snprintf(ev, sizeof ev, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K%d\",\"pid\":0,\"tid\":1,\"ts\":%d,"
                         "\"dur\":1,\"args\":{\"correlation\":%d,\"External id\":%d}},\n", i % 3, i * 2, i, i);
        strbuf_append(&b, ev, (size_t)n);
    }
    const char *tail = "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"last\", \"ts\": 1, \"dur\": 1}\n]}\n";
    strbuf_append(&b, tail, strlen(tail));
    tu_write(d, "torch_profile.json", b.data, b.len);
    strbuf_free(&b);
    write_csv(d, 20000);
    same_both_ways(d, 1);   /* would split beside trace.csv; refused: one piece */
    tu_rmrf(d);
    free(d);
}
END_TEST

Suite *run_split_suite(void);
Suite *run_split_suite(void) {
    Suite *s = suite_create("run_split");
    TCase *tc = tcase_create("torch split");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, torch_alone_is_one_piece);
    tcase_add_test(tc, torch_beside_a_kernel_trace_splits);
    tcase_add_test(tc, torch_cut_while_read_is_one_pass);
    tcase_add_test(tc, torch_read_again_when_the_kernel_trace_is_empty);
    tcase_add_test(tc, torch_past_the_piece_budget_is_read_again);
    suite_add_tcase(s, tc);
    return s;
}
