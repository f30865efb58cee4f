/* Tests: each artefact parser on the real fixtures and on every error path, through
 * run_parse() on temporary run directories. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/text_utf8.h"
#include "tests/test_util.h"

static uint64_t dispatches(const run_result *r) { return r->kernels.kernels.dispatches; }

/* ---- kernel trace ------------------------------------------------------------ */

START_TEST(kernel_trace_fixtures) {
    static const struct { const char *file; uint64_t rows; } F[] = {
        {"rocprofv3/sdk_kernel_trace.csv", 8},
        {"rocprofv3/sdk2024_kernel_trace.csv", 7},
        {"rocprofv3/sdk_counter_collection.csv", 4},
        {"rocprofv3/rocprofv1_omniperf_Axes1_mi200_timestamps.csv", 167},
    };
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        char *d = tu_tempdir();
        tu_copy_fixture(F[i].file, d, "trace.csv");
        run_result r;
        tu_parse(d, false, &r);
        ck_assert_msg(dispatches(&r) == F[i].rows, "%s: %llu", F[i].file, (unsigned long long)dispatches(&r));
        ck_assert_uint_gt(r.metrics.n_top, 0);
        ck_assert_str_eq(r.metrics.attention, "eager");
        run_result_free(&r);
        tu_rmrf(d);
        free(d);
    }
}
END_TEST

START_TEST(kernel_trace_without_kernel_columns) {
    static const char *const F[] = {"rocprofv3/sdk_memory_copy_trace.csv", "rocprofv3/sdk_memory_allocation_trace.csv"};
    for (size_t i = 0; i < 2; i++) {
        char *d = tu_tempdir();
        tu_copy_fixture(F[i], d, "trace.csv");
        run_result r;
        tu_parse(d, false, &r);
        ck_assert_uint_eq(dispatches(&r), 0);
        ck_assert(tu_warned(&r, "trace.csv: line 1: no kernel-name column"));
        ck_assert_str_eq(r.metrics.attention, "unknown");
        run_result_free(&r);
        tu_rmrf(d);
        free(d);
    }
}
END_TEST

START_TEST(kernel_trace_header_generations) {
    /* rocpd export (Guid first, Agent_Id as "Agent 4"), ROCm 7 names, legacy E-notation. */
    char *d = tu_tempdir();
    tu_write_str(d, "trace.csv",
        "\"Guid\",\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
        "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\","
        "\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\"\n"
        "\"a1\",\"KERNEL_DISPATCH\",\"Agent 4\",1,0,9,1,3,\"gemm_a, \"\"q\"\"\",7,9007199254740993,9007199254740995,0,0,8,0,16\n"
        "\"a1\",\"KERNEL_DISPATCH\",\"Agent 4\",1,0,9,2,3,\"gemm_a, \"\"q\"\"\",8,9007199254741000,9007199254741010,0,0,8,0,16\n");
    run_result r;
    tu_parse(d, false, &r);
    ck_assert_uint_eq(dispatches(&r), 2);
    ck_assert_str_eq(r.kernels.kernels.items[0].name, "gemm_a, \"q\"");
    ck_assert(r.kernels.kernels.items[0].total_ns == 12);        /* exact beyond 2^53 */
    run_result_free(&r);
    tu_write_str(d, "trace.csv",
        "Index,KernelName,gpu-id,DispatchNs,BeginNs,EndNs,CompleteNs\n"
        "0,\"k1\",0,8.1097E+14,8.1097E+14,8.1098E+14,8.1099E+14\n"
        "1,\"k2\",0,1,10,5,20\n");
    tu_parse(d, false, &r);
    ck_assert_uint_eq(dispatches(&r), 1);
    ck_assert(r.kernels.kernels.items[0].total_ns == 10000000000LL);
    ck_assert(tu_warned(&r, "zero or negative duration"));          /* reversed timestamps */
    run_result_free(&r);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(kernel_trace_crlf_bom_equal_lf) {
    size_t n;
    char *src = tu_read(tu_fixture("rocprofv3/sdk_kernel_trace.csv"), &n);
    ck_assert_ptr_nonnull(src);
    strbuf crlf = {0};
    strbuf_append(&crlf, "\xef\xbb\xbf", 3);
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '\n') strbuf_putc(&crlf, '\r');
        strbuf_putc(&crlf, src[i]);
    }
    char *a = tu_tempdir(), *b = tu_tempdir();
    tu_write(a, "trace.csv", src, n);
    tu_write(b, "trace.csv", crlf.data, crlf.len);
    run_result ra, rb;
    tu_parse(a, false, &ra);
    tu_parse(b, false, &rb);
    ck_assert_uint_eq(dispatches(&ra), dispatches(&rb));
    ck_assert_uint_eq(ra.metrics.n_top, rb.metrics.n_top);
    for (size_t i = 0; i < ra.metrics.n_top; i++) {
        ck_assert_str_eq(ra.metrics.top[i].name, rb.metrics.top[i].name);
        ck_assert_double_eq(ra.metrics.top[i].pct_time, rb.metrics.top[i].pct_time);
    }
    run_result_free(&ra);
    run_result_free(&rb);
    strbuf_free(&crlf);
    free(src);
    tu_rmrf(a); tu_rmrf(b);
    free(a); free(b);
}
END_TEST

START_TEST(kernel_trace_truncated_everywhere) {
    size_t n;
    char *src = tu_read(tu_fixture("rocprofv3/sdk_kernel_trace.csv"), &n);
    char *d = tu_tempdir();
    uint64_t last = 0;
    for (size_t cut = 0; cut <= n; cut += 7) {
        tu_write(d, "trace.csv", src, cut);
        run_result r;
        tu_parse(d, false, &r);
        ck_assert_uint_le(dispatches(&r), 8);
        ck_assert_uint_ge(dispatches(&r) + 1, last);             /* never loses rows it had */
        last = dispatches(&r);
        if (cut == 0) ck_assert(tu_warned(&r, "empty kernel trace"));
        run_result_free(&r);
    }
    free(src);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(kernel_trace_hostile_bytes) {
    char *d = tu_tempdir();
    /* header only */
    tu_write_str(d, "trace.csv", "Kind,Kernel_Name,Start_Timestamp,End_Timestamp\n");
    run_result r;
    tu_parse(d, false, &r);
    ck_assert_uint_eq(dispatches(&r), 0);
    ck_assert_str_eq(r.metrics.attention, "unknown");
    run_result_free(&r);
    /* NUL bytes, invalid UTF-8 and garbage */
    const char rows[] = "Kernel_Name,Start_Timestamp,End_Timestamp\n"
                        "\"k\0x\xff\",1,5\n\x01\x02,\xfe\xfe,\n\"unterminated,1,2\n";
    tu_write(d, "trace.csv", rows, sizeof rows - 1);
    tu_parse(d, false, &r);
    ck_assert_uint_eq(dispatches(&r), 1);
    ck_assert_mem_eq(r.kernels.kernels.items[0].name, "k\0x\xef\xbf\xbd", 6);
    ck_assert(tu_warned(&r, "inside a quoted field"));
    run_result_free(&r);
    /* one 8 MB line: capped, not held whole */
    size_t big = 8u << 20;
    char *line = malloc(big + 64);
    int h = sprintf(line, "Kernel_Name,DurationNs\n\"");
    memset(line + h, 'a', big);
    strcpy(line + h + big, "\",100\n");
    tu_write(d, "trace.csv", line, strlen(line));
    tu_parse(d, false, &r);
    ck_assert_uint_eq(dispatches(&r), 1);
    ck_assert(tu_warned(&r, "kernel names longer than"));
    ck_assert_uint_eq(r.kernels.kernels.items[0].name_len, 1u << 20);
    run_result_free(&r);
    free(line);
    /* random bytes */
    srand(7);
    char junk[65536];
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < sizeof junk; i++) junk[i] = (char)(rand() % (round < 10 ? 256 : 8) + (round < 10 ? 0 : ','));
        tu_write(d, "trace.csv", junk, sizeof junk);
        tu_parse(d, false, &r);
        run_result_free(&r);
    }
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(kernel_trace_discovery) {
    char *d = tu_tempdir();
    char *sub = NULL;
    ck_assert(asprintf(&sub, "%s/node7", d) > 0);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", sub, "4242_kernel_trace.csv");
    run_result r;
    tu_parse(d, false, &r);
    ck_assert_uint_eq(dispatches(&r), 8);
    ck_assert(strstr(r.files.path[ARTEFACT_KERNEL_TRACE], "node7/4242_kernel_trace.csv") != NULL);
    run_result_free(&r);
    tu_copy_fixture("rocprofv3/sdk2024_kernel_trace.csv", d, "1_kernel_trace.csv");
    tu_parse(d, false, &r);
    ck_assert(strstr(r.files.path[ARTEFACT_KERNEL_TRACE], "/1_kernel_trace.csv") != NULL);
    run_result_free(&r);
    free(sub);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* ---- torch profile ----------------------------------------------------------- */

START_TEST(torch_fixtures_parse) {
    static const char *const F[] = {
        "torch_profiler/hta_amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json",
        "torch_profiler/kineto_docs__traces__after_fix_trace.json",
        "torch_profiler/kineto_docs__traces__before_fix_trace.json",
        "torch_profiler/hta_cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
        "torch_profiler/hta_critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz",
        "torch_profiler/hta_triton_example__triton_example.json.gz",
        "torch_profiler/tracelens_inference__vllm_decode_full__graph_execution.json.gz",
        "torch_profiler/tracelens_mi300__gaunernst_bert-small-uncased__1016001.json.gz",
        "torch_profiler/kineto_tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
    };
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        char *d = tu_tempdir();
        bool gz = strstr(F[i], ".gz") != NULL;
        tu_copy_fixture(F[i], d, gz ? "torch_profile.json.gz" : "torch_profile.json");
        run_result r;
        tu_parse(d, false, &r);
        ck_assert_msg(!tu_warned(&r, "torch_profile"), "%s: %s", F[i],
                      r.metrics.warnings.count ? r.metrics.warnings.items[0] : "");
        ck_assert_msg(r.torch.complete, "%s", F[i]);
        ck_assert_msg(r.torch.step_time_seconds.has, "%s has a span", F[i]);
        run_result_free(&r);
        tu_rmrf(d);
        free(d);
    }
}
END_TEST

START_TEST(torch_metadata_and_types) {
    char *d = tu_tempdir();
    tu_write_str(d, "torch_profile.json",
        "{\"metadata\": {\"tokens_per_sec\": \"142.5\", \"mfu_pct\": true, \"pytorch_version\": \"\","
        " \"torch_version\": \"2.5.1\", \"n_steps\": 7.9, \"step_time_seconds\": null},"
        " \"traceEvents\": {\"not\": \"a list\"}}");
    run_result r;
    tu_parse(d, false, &r);
    ck_assert_double_eq(r.metrics.tokens_per_sec, 142.5);
    ck_assert_double_eq(r.metrics.mfu_pct, 1.0);
    ck_assert_str_eq(r.metrics.pytorch_version, "2.5.1");
    ck_assert_int_eq(r.metrics.steps, 7);
    ck_assert(!r.torch.step_time_seconds.has);
    run_result_free(&r);
    /* the last duplicate key wins; ts/dur as strings, ints, floats; non-finite numbers are missing */
    tu_write_str(d, "torch_profile.json",
        "{\"traceEvents\": [{\"name\": \"ProfilerStep#1\", \"ts\": 0, \"dur\": 5000000}],"
        " \"traceEvents\": [{\"name\": \"ProfilerStep#2\", \"ts\": \"10\", \"dur\": 2000000.0, \"cat\": \"CPU_OP\"},"
        "  {\"name\": \"x\", \"ts\": 1e400, \"dur\": 1}, 5, [1], {\"name\": 7, \"dur\": NaN},"
        "  {\"name\": \"ProfilerStep#3\", \"name\": \"other\", \"ts\": 3, \"dur\": 4},"
        "  {\"name\": \"z\", \"ts\": -0, \"dur\": -0.0}],"
        " \"metadata\": [1, 2]}");
    tu_parse(d, false, &r);
    ck_assert_int_eq(r.torch.profiled_steps, 1);
    ck_assert_double_eq(r.torch.step_time_seconds.v, 2.0);
    ck_assert_double_eq(r.torch.host_busy_fraction.v, 2000000.0 / 2000010.0);  /* cpu_op time / span (-0 starts it) */
    ck_assert(tu_warned(&r, "non-finite"));
    ck_assert_double_eq(r.metrics.tokens_per_sec, 0.0);
    run_result_free(&r);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(torch_not_an_object_or_broken) {
    char *d = tu_tempdir();
    run_result r;
    tu_write_str(d, "torch_profile.json", "[{\"name\": \"ProfilerStep#1\", \"ts\": 0, \"dur\": 5}]");
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "not an object"));
    ck_assert(!r.torch.step_time_seconds.has);
    run_result_free(&r);
    static const char *const BAD[] = {"", "{", "{\"metadata\": {\"tokens_per_sec\": 5}", "nul\0l",
        "{\"metadata\": {\"tokens_per_sec\": 5}} trailing", "{\"a\": \"\xff\"}"};
    static const size_t LEN[] = {0, 1, 34, 5, 44, 10};
    for (size_t i = 0; i < 6; i++) {
        tu_write(d, "torch_profile.json", BAD[i], LEN[i]);
        tu_parse(d, false, &r);
        ck_assert_msg(tu_warned(&r, "torch_profile.json: unreadable JSON at byte"), "case %zu", i);
        ck_assert_double_eq(r.metrics.tokens_per_sec, 0.0);       /* nothing from a broken document */
        run_result_free(&r);
    }
    /* a real trace cut at many offsets: never a crash, always a warning with a byte offset */
    size_t n;
    char *src = tu_read(tu_fixture("torch_profiler/kineto_docs__traces__after_fix_trace.json"), &n);
    for (size_t cut = 1; cut + 2 < n; cut += n / 37) {
        tu_write(d, "torch_profile.json", src, cut);
        tu_parse(d, false, &r);
        ck_assert(tu_warned(&r, "unreadable JSON at byte"));
        run_result_free(&r);
    }
    free(src);
    tu_rmrf(d);
    free(d);
}
END_TEST

static void write_gzip(const char *dir, const char *name, const char *data, size_t n, size_t keep) {
    char *p = NULL;
    ck_assert(asprintf(&p, "%s/%s", dir, name) > 0);
    gzFile g = gzopen(p, "wb");
    gzwrite(g, data, (unsigned)n);
    gzclose(g);
    if (keep) ck_assert_int_eq(truncate(p, (off_t)keep), 0);
    free(p);
}

START_TEST(torch_gzip) {
    char *d = tu_tempdir();
    const char *doc = "{\"metadata\": {\"tokens_per_sec\": 318.0, \"pytorch_version\": \"2.5.1+rocm6.2\"}}";
    write_gzip(d, "torch_profile.json.gz", doc, strlen(doc), 0);
    run_result r;
    tu_parse(d, false, &r);
    ck_assert_double_eq(r.metrics.tokens_per_sec, 318.0);
    ck_assert_str_eq(r.metrics.pytorch_version, "2.5.1+rocm6.2");
    run_result_free(&r);
    write_gzip(d, "torch_profile.json.gz", doc, strlen(doc), 20);   /* truncated member */
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "gzip data truncated"));
    ck_assert_double_eq(r.metrics.tokens_per_sec, 0.0);
    run_result_free(&r);
    tu_write_str(d, "torch_profile.json.gz", "not gzip at all");
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "invalid gzip data"));
    run_result_free(&r);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* ---- amd-smi ----------------------------------------------------------------- */

START_TEST(amd_smi_watch_output) {
    char *d = tu_tempdir();
    tu_write_str(d, "amd_smi.csv",
        "'CTRL' + 'C' to stop watching output:\n"
        "gpu,timestamp,power_usage,gfx_util,vram_used,rocm_version\n"
        "0,1,500,80,81920, 6.2.0 \n\n"
        "gpu,timestamp,power_usage,gfx_util,vram_used,rocm_version\n"
        "0,2,510,N/A,\"[0, 0]\",7.0\n"
        "gpu,timestamp,power_usage,gfx_util,vram_used,rocm_version\r\n"
        "0,3,520,120,40960,\n");
    run_result r;
    tu_parse(d, false, &r);
    ck_assert_double_eq(r.metrics.hbm_peak_gb, 80.0);
    ck_assert_double_eq(r.metrics.hbm_avg_gb, 60.0);
    ck_assert_double_eq(r.metrics.gpu_util_pct, 80.0);              /* 120 is no percentage: skipped */
    ck_assert_str_eq(r.metrics.rocm_version, "6.2.0");
    ck_assert(tu_warned(&r, "outside [0, 100] in utilisation column 'gfx_util'"));
    run_result_free(&r);
    tu_parse(d, true, &r);
    ck_assert_double_eq(r.metrics.gpu_util_pct, 90.0);              /* seed: 80 and min(100, 120) */
    run_result_free(&r);
    tu_write_str(d, "amd_smi.csv", "timestamp,gpu,xcp,power_usage,vram_used\n1,0,0,350,1024\n");
    tu_parse(d, true, &r);                                           /* seed: power_usage ~ usage */
    ck_assert_double_eq(r.metrics.gpu_util_pct, 100.0);
    run_result_free(&r);
    tu_parse(d, false, &r);                                          /* fixed: watts are not a utilisation */
    ck_assert_double_eq(r.metrics.gpu_util_pct, 0.0);
    ck_assert_double_eq(r.metrics.hbm_peak_gb, 1.0);
    run_result_free(&r);
    tu_copy_fixture("amd_smi/amd-smi_metric_watch_csv_InferenceX_gpu_metrics_EXCERPT.csv", d, "amd_smi.csv");
    tu_parse(d, false, &r);
    ck_assert(!tu_warned(&r, "amd_smi.csv"));
    ck_assert_uint_gt(r.telemetry.samples, 0);
    run_result_free(&r);
    tu_write_str(d, "amd_smi.csv", "no header here\njust text\n");
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "amd_smi.csv: no recognisable telemetry header in 2 lines"));
    run_result_free(&r);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(million_distinct_kernel_names) {
    char *d = tu_tempdir();
    char *p = NULL;
    ck_assert(asprintf(&p, "%s/trace.csv", d) > 0);
    FILE *f = fopen(p, "w");
    fprintf(f, "Kernel_Name,DurationNs\n");
    for (int i = 0; i < 1000000; i++) fprintf(f, "k%d%s,%d\n", i, i % 10 == 0 ? "_nccl_x" : "", 10 + i % 7);
    fprintf(f, "flash_attn_rocm_late,5\n");
    fclose(f);
    free(p);
    run_result r;
    tu_parse(d, false, &r);
    ck_assert_uint_eq(r.kernels.kernels.count, KT_MAX_NAMES);                 /* bounded */
    ck_assert_uint_eq(r.kernels.kernels.dispatches, 1000001);
    ck_assert(tu_warned(&r, "more than 262144 distinct kernel names"));
    ck_assert_str_eq(r.metrics.attention, "flash_rocm");                      /* seen past the cap */
    /* totals still count every dispatch: the collective share matches the whole file */
    i128 total = 0, coll = 0;
    for (int i = 0; i < 1000000; i++) { total += 10 + i % 7; if (i % 10 == 0) coll += 10 + i % 7; }
    total += 5;
    ck_assert_double_eq_tol(r.metrics.top[0].pct_time, 16.0 / (double)total * 100.0, 1e-12);
    (void)coll;
    run_result_free(&r);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(amd_smi_error_paths) {
    char *d = tu_tempdir();
    run_result r;
    tu_write_str(d, "amd_smi.csv", "");
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "amd_smi.csv: no recognisable telemetry header in 0 lines"));
    run_result_free(&r);
    tu_write_str(d, "amd_smi.csv", "gpu,timestamp,gfx_util,vram_used\n");   /* header only */
    tu_parse(d, false, &r);
    ck_assert_double_eq(r.metrics.hbm_peak_gb, 0.0);
    ck_assert_uint_eq(r.telemetry.samples, 0);
    run_result_free(&r);
    /* the fixture cut at many offsets, and with NUL bytes and garbage spliced in */
    size_t n;
    char *src = tu_read(tu_fixture("amd_smi/amd-smi_metric_watch_csv_InferenceX_gpu_metrics_EXCERPT.csv"), &n);
    for (size_t cut = 0; cut < n; cut += n / 23) {
        tu_write(d, "amd_smi.csv", src, cut);
        tu_parse(d, false, &r);
        run_result_free(&r);
    }
    for (size_t i = 0; i < n; i += 97) src[i] = (char)(i % 3 == 0 ? 0 : i % 3 == 1 ? 0xff : '"');
    tu_write(d, "amd_smi.csv", src, n);
    tu_parse(d, false, &r);
    run_result_free(&r);
    free(src);
    /* a 3 MB line is cut at 1 MiB, with a warning; the samples around it still count */
    size_t big = 3u << 20;
    char *line = malloc(big + 128);
    int h = sprintf(line, "gpu,vram_used\n0,2048\n0,");
    memset(line + h, '7', big);
    strcpy(line + h + big, "\n0,4096\n");
    tu_write(d, "amd_smi.csv", line, strlen(line));
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "lines longer than"));
    ck_assert_double_eq(r.metrics.hbm_peak_gb, 4.0);
    run_result_free(&r);
    free(line);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(torch_very_long_values) {
    char *d = tu_tempdir();
    size_t big = 5u << 20;                                          /* a 5 MB event name on one line */
    char *doc = malloc(big + 256);
    int h = sprintf(doc, "{\"traceEvents\": [{\"name\": \"ProfilerStep#1");
    memset(doc + h, 'x', big);
    strcpy(doc + h + big, "\", \"ts\": 1, \"dur\": 2000000, \"cat\": \"cpu_op\"}], \"metadata\": {\"mfu_pct\": 12}}");
    tu_write(d, "torch_profile.json", doc, strlen(doc));
    run_result r;
    tu_parse(d, false, &r);
    ck_assert(r.torch.complete);
    ck_assert_int_eq(r.torch.profiled_steps, 1);                   /* the prefix is enough to see the step */
    ck_assert_double_eq(r.metrics.mfu_pct, 12.0);
    run_result_free(&r);
    free(doc);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(stats_csv_as_kernel_trace) {
    static const char *const F[] = {"rocprofv3/rocprofv1_batched_gemm_results.stats.csv",
                                    "rocprofv3/sdk2024_hip_api_stats.csv", "rocprofv3/sdk_hip_domain_stats.csv"};
    for (size_t i = 0; i < 3; i++) {
        char *d = tu_tempdir();
        tu_copy_fixture(F[i], d, "trace.csv");
        run_result r;
        tu_parse(d, false, &r);
        /* like the reference, TotalDurationNs matches the DurationNs candidate by token: one
         * "dispatch" per stats row, weighted by its total time */
        ck_assert_uint_gt(dispatches(&r), 0);
        ck_assert(!tu_warned(&r, "trace.csv"));
        run_result_free(&r);
        tu_rmrf(d);
        free(d);
    }
}
END_TEST

/* ---- files that are not regular files ---------------------------------------- */

START_TEST(missing_and_special_files) {
    char *d = tu_tempdir();
    run_result r;
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "kernel trace not found: trace.csv"));
    ck_assert(tu_warned(&r, "torch profile not found: torch_profile.json"));
    ck_assert(tu_warned(&r, "amd-smi telemetry not found: amd_smi.csv"));
    ck_assert_int_eq(r.metrics.steps, 10);
    ck_assert_str_eq(r.metrics.attention, "unknown");
    run_result_free(&r);
    char *p = NULL;
    ck_assert(asprintf(&p, "%s/torch_profile.json", d) > 0);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    free(p);
    ck_assert(asprintf(&p, "%s/amd_smi.csv", d) > 0);
    ck_assert_int_eq(mkfifo(p, 0644), 0);                             /* must not block */
    free(p);
    ck_assert(asprintf(&p, "%s/trace.csv", d) > 0);
    ck_assert_int_eq(symlink("/nonexistent/target", p), 0);
    free(p);
    tu_parse(d, false, &r);
    ck_assert(tu_warned(&r, "torch profile is not a regular file"));
    ck_assert(tu_warned(&r, "amd-smi telemetry is not a regular file"));
    ck_assert(tu_warned(&r, "kernel trace not found"));
    run_result_free(&r);
    tu_rmrf(d);
    free(d);
}
END_TEST

Suite *artefacts_suite(void) {
    Suite *s = suite_create("artefacts");
    TCase *tc = tcase_create("parsers");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, kernel_trace_fixtures);
    tcase_add_test(tc, kernel_trace_without_kernel_columns);
    tcase_add_test(tc, kernel_trace_header_generations);
    tcase_add_test(tc, kernel_trace_crlf_bom_equal_lf);
    tcase_add_test(tc, kernel_trace_truncated_everywhere);
    tcase_add_test(tc, kernel_trace_hostile_bytes);
    tcase_add_test(tc, kernel_trace_discovery);
    tcase_add_test(tc, torch_fixtures_parse);
    tcase_add_test(tc, torch_metadata_and_types);
    tcase_add_test(tc, torch_not_an_object_or_broken);
    tcase_add_test(tc, torch_gzip);
    tcase_add_test(tc, amd_smi_watch_output);
    tcase_add_test(tc, missing_and_special_files);
    tcase_add_test(tc, amd_smi_error_paths);
    tcase_add_test(tc, million_distinct_kernel_names);
    tcase_add_test(tc, torch_very_long_values);
    tcase_add_test(tc, stats_csv_as_kernel_trace);
    suite_add_tcase(s, tc);
    return s;
}
