/* Tests (fmtcsv): every CSV format on its fixture files (../shared/fixtures and
 * tests/fixtures/fmtcsv), a huge header cell, and the inputs fuzz_record_formats found a
 * problem with, replayed through the harness's own code. */
#include <dirent.h>

#include "fuzz/fuzz_record_formats.h"
#include "tests/formats_csv_sink.h"

Suite *formats_csv_files_suite(void);

/* Every fixture file is read without a warning and gives records. */
START_TEST(fixtures_read_cleanly) {
    static const struct { const char *dir, *file, *format; size_t records; } F[] = {
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "sdk_kernel_trace.csv", "kernel-trace-csv", 8},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "sdk2024_kernel_trace.csv", "kernel-trace-csv", 7},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "rocprofv1_omniperf_Axes1_mi200_timestamps.csv", "kernel-trace-csv", 167},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "rocprofv1_omniperf_Axes1_mi200_timestamps.csv",
         "rocprof-legacy-results-csv", 167},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "sdk_memory_copy_trace.csv", "rocprof-memory-copy-csv", 4},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "sdk_memory_allocation_trace.csv", "rocprof-memory-allocation-csv", 4},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "sdk_counter_collection.csv", "rocprof-counter-csv", 4},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "sdk2024_hip_api_stats.csv", "rocprof-api-stats-csv", 17},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "sdk_hip_domain_stats.csv", "rocprof-domain-stats-csv", 1},
        {GOBLIN_SHARED_DIR "/fixtures/rocprofv3/", "rocprofv1_batched_gemm_results.stats.csv", "rocprof-kernel-stats-csv", 1},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "4242_hip_api_trace.csv", "rocprof-hip-api-csv", 7},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "4242_hsa_api_trace.csv", "rocprof-hsa-api-csv", 4},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "4242_kernel_trace.csv", "kernel-trace-csv", 3},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "4242_memory_copy_trace.csv", "rocprof-memory-copy-csv", 4},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "4242_kernel_stats.csv", "rocprof-kernel-stats-csv", 2},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "4242_memory_copy_stats.csv", "rocprof-memory-copy-stats-csv", 4},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "report_cuda_gpu_kern_sum.csv", "nsys-cuda-gpu-kern-sum-csv", 3},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "report_cuda_gpu_mem_time_sum.csv", "nsys-cuda-gpu-mem-time-sum-csv", 3},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "report_cuda_gpu_trace.csv", "nsys-cuda-gpu-trace-csv", 5},
        {GOBLIN_SOURCE_DIR "/tests/fixtures/fmtcsv/", "vector_add_nvprof_gpu_trace.csv", "nvprof-gpu-trace-csv", 5},
    };
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s", F[i].dir, F[i].file);
        FILE *fp = fopen(path, "rb");
        ck_assert_msg(fp != NULL, "%s", path);
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        collected c;
        read_facts f;
        diag_list d;
        read_n(F[i].format, buf, n, 4096, ALL_FIELDS, &c, &f, &d);
        ck_assert_msg(c.total == F[i].records, "%s: %zu records, not %zu", F[i].file, c.total, F[i].records);
        ck_assert_msg(d.count == 0, "%s: %s", F[i].file, d.count ? d.items[0] : "");
        /* the format claims its own file */
        const artefact_parser *p = format_named(F[i].format);
        ck_assert_int_ge(p->sniff(F[i].file, (const uint8_t *)buf, n < SNIFF_BYTES ? n : SNIFF_BYTES), 60);
        done(&f, &d);
    }
}
END_TEST

/* A header cell of half a megabyte of short words: column choice by name tokens stays linear
 * in the cell's length (it was quadratic: minutes for a 1 MiB cell; Check's timeout catches
 * a return). */
START_TEST(a_huge_header_cell_is_read_in_linear_time) {
    size_t n = 512 * 1024;
    char *t = malloc(n + 64);
    ck_assert_ptr_nonnull(t);
    size_t k = 0;
    t[k++] = '"';
    for (; k < n; k++) t[k] = "ab Cd 12 "[k % 9];
    memcpy(t + k, "\",Start,End\nx,1,2\n", 17);
    collected c;
    read_facts f;
    diag_list d;
    for (int seed = 0; seed < 2; seed++) {
        read_n(seed ? "nvprof-gpu-trace-csv" : "kernel-trace-csv", t, k + 17, 65536, ALL_FIELDS, &c, &f, &d);
        done(&f, &d);
    }
    free(t);
}
END_TEST

/* Every input fuzz_record_formats found a problem with (tests/regressions/record_formats/),
 * replayed through the harness's own code (its record checks abort on a return of the bug),
 * with every format and chunking. */
START_TEST(fuzz_findings_stay_fixed) {
    const char *dir = GOBLIN_SOURCE_DIR "/tests/regressions/record_formats";
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(path, "rb");
        ck_assert_ptr_nonnull(fp);
        static uint8_t buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        for (int format = 0; format < 32; format++)
            for (int chunking = 0; chunking < 4; chunking++) {
                buf[0] = (uint8_t)format;
                buf[1] = (uint8_t)(chunking * 37 + 1);
                fuzz_record_formats_one(buf, len);
            }
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 1);
}
END_TEST
Suite *formats_csv_files_suite(void) {
    Suite *s = suite_create("formats_csv_files");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, fixtures_read_cleanly);
    tcase_add_test(tc, a_huge_header_cell_is_read_in_linear_time);
    tcase_add_test(tc, fuzz_findings_stay_fixed);
    suite_add_tcase(s, tc);
    return s;
}
