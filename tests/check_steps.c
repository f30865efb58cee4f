/* Tests of the steps section (analyses/sections/steps.c) on hand-built record streams with known
 * answers: the parts of every step sum to its wall time within 0 ns, the priority order
 * in overlapping cases, kernels outside every step counted for the run only, a random
 * stress test against a brute-force per-nanosecond labelling, the mean's rounding, ranks. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/section_drive.h"

static const char *const PARTS[8] = {"kernel_ns",  "memcpy_ns",     "memset_ns",   "communication_ns",
                                     "runtime_ns", "dataloader_ns", "cpu_exec_ns", "other_ns"};

static int64_t part(json_t *obj, const char *key) {
    json_t *p = json_object_get(json_object_get(obj, "parts"), key);
    ck_assert_msg(json_is_integer(p), "no part %s", key);
    return json_integer_value(p);
}

/* Asserts that obj's parts sum exactly to its wall_ns. */
static void assert_sums(json_t *obj) {
    int64_t sum = 0;
    for (int i = 0; i < 8; i++) {
        ck_assert_int_ge(part(obj, PARTS[i]), 0);
        sum += part(obj, PARTS[i]);
    }
    ck_assert_int_eq(sum, json_integer_value(json_object_get(obj, "wall_ns")));
}

START_TEST(priority_and_outside_kernel) {
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    record rs[] = {
        rec_span(REC_KERNEL_DISPATCH, "Cijk_Ailk_Bljk", 2100, 2300),   /* outside the step, listed first */
        rec_span(REC_CPU_OP, "aten::mm", 0, 1000),
        rec_span(REC_KERNEL_DISPATCH, "Cijk_Ailk_Bljk", 100, 300),
        rec_span(REC_MEMORY_COPY, "CopyHostToDevice", 200, 400),
        rec_span(REC_API_CALL, "hipLaunchKernel", 0, 150),
        rec_span(REC_ANNOTATION, "ProfilerStep#7", 0, 1000),
        rec_span(REC_KERNEL_DISPATCH, "ncclKernel_AllReduce_RING", 250, 500),
        rec_span(REC_CPU_OP, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 900, 1000),
        rec_span(REC_MEMSET, "memset", 950, 980),
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) drive_record(&d, &rs[i]);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    json_t *items = json_object_get(j, "items");
    ck_assert_int_eq(json_array_size(items), 1);
    json_t *s = json_array_get(items, 0);
    ck_assert_str_eq(json_string_value(json_object_get(s, "name")), "ProfilerStep#7");
    ck_assert_int_eq(json_integer_value(json_object_get(s, "wall_ns")), 1000);
    ck_assert_int_eq(part(s, "kernel_ns"), 200);         /* [100,300) */
    ck_assert_int_eq(part(s, "memcpy_ns"), 100);         /* [300,400) */
    ck_assert_int_eq(part(s, "memset_ns"), 30);          /* [950,980) */
    ck_assert_int_eq(part(s, "communication_ns"), 100);  /* [400,500): the rest under kernel/memcpy */
    ck_assert_int_eq(part(s, "runtime_ns"), 100);        /* [0,100) */
    ck_assert_int_eq(part(s, "dataloader_ns"), 70);      /* [900,950) + [980,1000) */
    ck_assert_int_eq(part(s, "cpu_exec_ns"), 400);       /* [500,900) */
    ck_assert_int_eq(part(s, "other_ns"), 0);
    assert_sums(s);
    json_t *run = json_object_get(j, "run");
    ck_assert_int_eq(json_integer_value(json_object_get(run, "wall_ns")), 2300);
    ck_assert_int_eq(part(run, "kernel_ns"), 400);  /* the outside kernel counts for the run */
    ck_assert_int_eq(part(run, "other_ns"), 1100);  /* [1000,2100) */
    assert_sums(run);
    assert_sums(json_object_get(j, "mean"));
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "slowest"), "name")), "ProfilerStep#7");
    double v;
    ck_assert(d.an->number(d.run, "mean.parts.dataloader_ns", &v));
    ck_assert_int_eq((int64_t)v, 70);
    ck_assert(d.an->number(d.run, "run.wall_ns", &v));
    ck_assert_int_eq((int64_t)v, 2300);
    ck_assert(!d.an->number(d.run, "mean.parts.bogus_ns", &v));
    strbuf md = {0};
    d.an->render_md(d.run, &md);
    strbuf_terminate(&md);
    ck_assert(strstr(md.data, "| dataloader | 0.000 | 7.0 % |") != NULL);
    ck_assert(strstr(md.data, "slowest ProfilerStep#7") != NULL);
    strbuf_free(&md);
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* GPU-lane copies of annotations are not steps; no records at all renders null. */
START_TEST(null_and_gpu_annotations) {
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert(json_is_null(j));
    json_decref(j);
    drive_close(&d);

    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    record g = rec_span(REC_ANNOTATION, "ProfilerStep#1", 0, 100);
    g.category = "gpu_user_annotation";
    g.category_len = strlen(g.category);
    drive_record(&d, &g);
    record k = rec_span(REC_KERNEL_DISPATCH, "k", 0, 50);
    drive_record(&d, &k);
    drive_end_source(&d);
    j = drive_finish(&d);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), 0);
    ck_assert(json_is_null(json_object_get(j, "mean")));
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "run"), "wall_ns")), 50);
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* The mean over steps: parts rounded so that they still sum to the mean wall. */
START_TEST(mean_rounding) {
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    record rs[] = {
        rec_span(REC_ANNOTATION, "ProfilerStep#0", 0, 10), rec_span(REC_ANNOTATION, "ProfilerStep#1", 10, 21),
        rec_span(REC_ANNOTATION, "ProfilerStep#2", 21, 33), rec_span(REC_KERNEL_DISPATCH, "k", 0, 1),
        rec_span(REC_KERNEL_DISPATCH, "k", 10, 12), rec_span(REC_API_CALL, "hipLaunchKernel", 21, 22),
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) drive_record(&d, &rs[i]);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    json_t *mean = json_object_get(j, "mean");
    ck_assert_int_eq(json_integer_value(json_object_get(mean, "wall_ns")), 11);
    assert_sums(mean);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "slowest"), "name")), "ProfilerStep#2");
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* Random overlapping records of every kind against a per-nanosecond labelling. */
START_TEST(random_vs_brute_force) {
    enum { DOMAIN = 3000, NREC = 60 };
    static const record_type TYPES[] = {REC_KERNEL_DISPATCH, REC_KERNEL_DISPATCH, REC_MEMORY_COPY, REC_MEMSET,
                                        REC_API_CALL,        REC_CPU_OP,          REC_CPU_OP,      REC_ANNOTATION};
    /* the label of each record kind, in part order (0 kernel .. 6 cpu_exec) */
    static const char *const CPU_NAMES[] = {"aten::add", "enumerate(DataLoader)#_It.__next__", "nccl:all_reduce"};
    static const int CPU_LABEL[] = {6, 5, 3};
    srand(12345);
    for (int trial = 0; trial < 200; trial++) {
        static unsigned char label[DOMAIN];
        memset(label, 7, sizeof label);
        drive d;
        drive_open(&d, "steps");
        drive_source(&d, 0, -1, 0);
        int64_t lo = DOMAIN, hi = 0;
        int64_t st[3][2];
        for (int s = 0; s < 3; s++) {  /* three disjoint steps */
            int64_t a = s * 1000 + rand() % 300, b = a + 100 + rand() % 600;
            st[s][0] = a, st[s][1] = b;
            char name[32];
            snprintf(name, sizeof name, "ProfilerStep#%d", s);
            record r = rec_span(REC_ANNOTATION, name, a, b);
            drive_record(&d, &r);
            lo = a < lo ? a : lo, hi = b > hi ? b : hi;
        }
        for (int i = 0; i < NREC; i++) {
            record_type t = TYPES[rand() % 8];
            int64_t a = rand() % DOMAIN, b = a + rand() % 400;
            if (b > DOMAIN) b = DOMAIN;
            const char *name = "k";
            int lab;
            switch (t) {
            case REC_KERNEL_DISPATCH:
                if (rand() % 2) name = "ncclDevKernel_Generic", lab = 3;
                else name = "Cijk_gemm", lab = 0;
                break;
            case REC_MEMORY_COPY: lab = 1; break;
            case REC_MEMSET: lab = 2; break;
            case REC_API_CALL: lab = 4; break;
            default: {
                int c = rand() % 3;
                name = CPU_NAMES[c], lab = CPU_LABEL[c];
            }
            }
            record r = rec_span(t, name, a, b);
            drive_record(&d, &r);
            for (int64_t x = a; x < b; x++)
                if (lab < label[x]) label[x] = (unsigned char)lab;
            lo = a < lo ? a : lo, hi = b > hi ? b : hi;
        }
        drive_end_source(&d);
        json_t *j = drive_finish(&d);
        json_t *items = json_object_get(j, "items");
        ck_assert_int_eq(json_array_size(items), 3);
        for (int s = 0; s < 4; s++) {
            int64_t a = s < 3 ? st[s][0] : lo, b = s < 3 ? st[s][1] : hi;
            int64_t want[8] = {0};
            for (int64_t x = a; x < b; x++) want[label[x]]++;
            json_t *obj = s < 3 ? json_array_get(items, (size_t)s) : json_object_get(j, "run");
            ck_assert_int_eq(json_integer_value(json_object_get(obj, "wall_ns")), b - a);
            for (int p = 0; p < 8; p++)
                ck_assert_msg(part(obj, PARTS[p]) == want[p], "trial %d step %d %s: %lld, brute force %lld", trial, s,
                              PARTS[p], (long long)part(obj, PARTS[p]), (long long)want[p]);
            assert_sums(obj);
        }
        json_decref(j);
        drive_close(&d);
    }
}
END_TEST

/* Two ranks (one from source_ref, one from REC_METADATA, carried to the second piece of a
 * split read): the top level is rank 0's, ranks[] has both. */
START_TEST(ranks_and_split_pieces) {
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, 0, 0);
    record a = rec_span(REC_ANNOTATION, "ProfilerStep#1", 0, 100), k = rec_span(REC_KERNEL_DISPATCH, "k", 10, 60);
    drive_record(&d, &a);
    drive_record(&d, &k);
    drive_end_source(&d);
    drive_source(&d, 1, -1, 0);
    record m = rec_meta("rank", "1");
    record b = rec_span(REC_ANNOTATION, "ProfilerStep#1", 5, 305);
    drive_record(&d, &m);
    drive_record(&d, &b);
    drive_end_source(&d);
    drive_source(&d, 1, -1, 1);  /* the second piece of the same file: no metadata in it */
    record k2 = rec_span(REC_KERNEL_DISPATCH, "k", 100, 200);
    drive_record(&d, &k2);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "rank")), 0);
    json_t *ranks = json_object_get(j, "ranks");
    ck_assert_int_eq(json_array_size(ranks), 2);
    json_t *r1 = json_array_get(ranks, 1);
    ck_assert_int_eq(json_integer_value(json_object_get(r1, "rank")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(r1, "count")), 1);
    ck_assert_int_eq(part(json_object_get(r1, "mean"), "kernel_ns"), 100);
    ck_assert_int_eq(part(json_object_get(j, "mean"), "kernel_ns"), 50);
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* Steps and kernels that never meet (two clocks): a warning, not a silent zero. */
START_TEST(clock_mismatch_warning) {
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    record s = rec_span(REC_ANNOTATION, "ProfilerStep#1", 1000, 2000), k = rec_span(REC_KERNEL_DISPATCH, "k", 5000000, 5000100);
    drive_record(&d, &s);
    drive_record(&d, &k);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(d.diag.count, 1);
    ck_assert(strstr(d.diag.items[0], "different clocks") != NULL);
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* Step names are bounded in bytes per rank (4 MiB), not only 65,536 steps of up to 16 KiB each
 * (1 GiB): 300 ProfilerStep ranges with 16 KiB names keep the first 255 (4 MiB / (16 KiB + NUL)),
 * the rest are counted as not listed and warned. */
START_TEST(step_names_are_bounded) {
    enum { LEN = 16 * 1024, N = 300 };
    char *name = malloc(LEN);
    ck_assert_ptr_nonnull(name);
    memset(name, 'x', LEN);
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    for (int i = 0; i < N; i++) {
        int n = snprintf(name, 32, "ProfilerStep#%d", i);
        name[n] = '_';
        record st = rec_span(REC_ANNOTATION, NULL, 1000 * (int64_t)i, 1000 * (int64_t)i + 900);
        st.name = name, st.name_len = LEN;
        drive_record(&d, &st);
    }
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), (4 << 20) / (LEN + 1));
    bool warned = false;
    for (size_t i = 0; i < d.diag.count; i++) warned |= strstr(d.diag.items[i], "45 further steps are not listed") != NULL;
    ck_assert(warned);
    json_decref(j);
    drive_close(&d);
    free(name);
}
END_TEST

/* A kernel trace of unknown rank and a torch profile of rank 0: one rank, the kernels in its steps. */
START_TEST(unknown_rank_joins_the_only_rank) {
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    record k = rec_span(REC_KERNEL_DISPATCH, "Cijk", 10, 60);
    drive_record(&d, &k);
    drive_end_source(&d);
    drive_source(&d, 1, -1, 0);
    record m = rec_meta("rank", "0"), s = rec_span(REC_ANNOTATION, "ProfilerStep#3", 0, 100);
    drive_record(&d, &m);
    drive_record(&d, &s);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "rank")), 0);
    ck_assert_int_eq(json_array_size(json_object_get(j, "ranks")), 0);
    ck_assert_int_eq(part(json_array_get(json_object_get(j, "items"), 0), "kernel_ns"), 50);
    json_decref(j);
    drive_close(&d);
}
END_TEST

Suite *steps_suite(void) {
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("steps");
    tcase_add_test(tc, priority_and_outside_kernel);
    tcase_add_test(tc, null_and_gpu_annotations);
    tcase_add_test(tc, mean_rounding);
    tcase_add_test(tc, random_vs_brute_force);
    tcase_add_test(tc, ranks_and_split_pieces);
    tcase_add_test(tc, clock_mismatch_warning);
    tcase_add_test(tc, unknown_rank_joins_the_only_rank);
    tcase_add_test(tc, step_names_are_bounded);
    suite_add_tcase(s, tc);
    return s;
}
