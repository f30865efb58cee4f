/* stats_csv: pre-aggregated profiler summaries, one REC_KERNEL_STATS record per row.
 *
 *   rocprofv3 --stats   <pid>_kernel_stats.csv, <pid>_hip_api_stats.csv, <pid>_hsa_api_stats.csv,
 *                       <pid>_memory_copy_stats.csv, <pid>_domain_stats.csv
 *                       Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev
 *   legacy rocprof      results.stats.csv  Name,Calls,TotalDurationNs,AverageNs,Percentage
 *   nsys stats --format csv
 *                       *_cuda_gpu_kern_sum.csv, *_cuda_gpu_mem_time_sum.csv (older: *_gpukernsum.csv,
 *                       *_gpumemtimesum.csv) "Time (%)","Total Time (ns)","Instances"|"Count",
 *                       "Avg (ns)","Med (ns)","Min (ns)","Max (ns)","StdDev (ns)","Name"|"Operation"
 *
 * A record carries name, category (what the row is a total of: "kernel", "api",
 * "memory_copy", "memset" for an nsys memset row, "domain" for a rocprofv3 domain row
 * such as HIP_API), duration_ns = the total, and calls with min_ns/max_ns (RF_CALLS) when
 * the file gives all three; a legacy row without min/max gets min = max = total when it
 * has one call, else its calls only as the named field "calls" (never a made-up min/max).
 * The median and standard deviation, when given, are the named fields "median_ns" and
 * "stddev_ns" (the file's text). Average and percentage are derived columns: not read.
 * Times are ns unless the header names another unit (nsys stats --timeunit usec|msec|sec:
 * "Total Time (us)"), then scaled exactly from the decimal text; a fractional ns is rounded
 * to the nearest ns. Legacy rocprof writes names unquoted, commas and all: a row
 * with more fields than the header has the surplus joined back into the name (csv_rows). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "parsers/tokenizers/csv_rows.h"

static const char *const NAME[] = {"Name", "Operation", "KernelName", "Kernel_Name", NULL};
static const char *const CALLS[] = {"Calls", "Instances", "Count", "Num Calls", NULL};
/* nsys stats --timeunit usec|msec|sec writes "Total Time (us)", "Min (ms)", ... (unit_pow10) */
static const char *const TOTAL[] = {"TotalDurationNs", "Total Time (ns)", "Total Time (us)", "Total Time (ms)",
                                    "Total Time (s)", "Total Time", "TotalDuration", NULL};
static const char *const MIN[] = {"MinNs", "Min (ns)", "Min (us)", "Min (ms)", "Min (s)", "Minimum", NULL};
static const char *const MAX[] = {"MaxNs", "Max (ns)", "Max (us)", "Max (ms)", "Max (s)", "Maximum", NULL};
static const char *const MED[] = {"Med (ns)", "Med (us)", "Med (ms)", "Med (s)", "Median", "MedNs", NULL};
static const char *const STDDEV[] = {"StdDev (ns)", "StdDev (us)", "StdDev (ms)", "StdDev (s)", "StdDev", "StdDevNs",
                                     NULL};
enum { S_NAME, S_CALLS, S_TOTAL, S_MIN, S_MAX, S_MED, S_STDDEV, S_N };
static const csv_want WANT[] = {{NAME, NULL, false}, {CALLS, NULL, false}, {TOTAL, NULL, false},
                                   {MIN, NULL, false},  {MAX, NULL, false},   {MED, NULL, false},
                                   {STDDEV, NULL, false}};
_Static_assert(sizeof WANT / sizeof *WANT == S_N, "WANT: one entry per value below S_N");
static const char *const QUANTITY[] = {"name", "calls", "total", "min", "max", "median", "stddev"};
_Static_assert(sizeof QUANTITY / sizeof *QUANTITY == S_N, "QUANTITY: one entry per value below S_N");

enum { V_KERNEL, V_API, V_COPY, V_DOMAIN, V_NSYS_MEM };
static const char *const CATEGORY[] = {"kernel", "api", "memory_copy", "domain", "memory_copy"};

/* The power of ten that turns a time column's values into ns, from the unit its header name
 * gives: "(us)" / "(usec)" 3, "(ms)" / "(msec)" 6, "(s)" / "(sec)" 9; otherwise ns (the files'
 * default: "(ns)", "...Ns"). */
static int unit_pow10(const char *name) {
    if (!name) return 0;
    static const struct { const char *suffix; int pow10; } UNITS[] = {
        {"(us)", 3}, {"(usec)", 3}, {"(\xc2\xb5s)", 3}, {"(ms)", 6}, {"(msec)", 6}, {"(s)", 9}, {"(sec)", 9}};
    for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++)
        if (strstr(name, UNITS[i].suffix)) return UNITS[i].pow10;
    return 0;
}

/* A time cell in ns: an integer, or a decimal rounded to the nearest ns, scaled from the
 * unit its column's header names (unit_pow10). */
static bool ns_cell(csv_rows *s, size_t q, const csv_record *r, i128 *out) {
    const csv_field *f = csv_rows_field(s, q, r);
    return f && csv_rows_decimal_scaled(f->text.data, f->text.len, unit_pow10(s->cols.name[q]), out) && *out >= 0;
}

static void stats_row(csv_rows *s, const csv_record *r) {
    record rec = {.type = REC_KERNEL_STATS};
    if (!csv_rows_text(s, 0, S_NAME, r, &rec.name, &rec.name_len)) { csv_rows_skip(s, "no name", r); return; }
    i128 total, calls;
    if (!ns_cell(s, S_TOTAL, r, &total)) { csv_rows_skip(s, "total time not a non-negative number", r); return; }
    const csv_field *fc = csv_rows_field(s, S_CALLS, r);
    i128 micro;                      /* a count is whole: "4" or "4.0", never "4.5" or "4.04" */
    if (!fc || !csv_rows_decimal_scaled(fc->text.data, fc->text.len, 0, &calls) || calls < 0 ||
        calls > INT64_MAX / 1000000 || !csv_rows_decimal_scaled(fc->text.data, fc->text.len, 6, &micro) ||
        micro != calls * 1000000) {
        csv_rows_skip(s, "calls not a non-negative integer", r);
        return;
    }
    rec.duration_ns = total;
    rec.has |= RF_DURATION;
    int v = s->spec->variant;
    const char *cat = CATEGORY[v];
    if (v == V_NSYS_MEM && (memmem(rec.name, rec.name_len, "memset", 6) || memmem(rec.name, rec.name_len, "Memset", 6)))
        cat = "memset";
    rec.category = cat, rec.category_len = strlen(cat);
    i128 mn, mx;
    bool hmin = ns_cell(s, S_MIN, r, &mn), hmax = ns_cell(s, S_MAX, r, &mx);
    record_field f[3];
    size_t nf = 0;
    rec.calls = (uint64_t)calls;
    if (hmin && hmax) {
        rec.min_ns = mn, rec.max_ns = mx, rec.has |= RF_CALLS;
    } else if (calls == 1) {
        rec.min_ns = rec.max_ns = total, rec.has |= RF_CALLS;     /* one call: its time is the total */
    } else if (csv_rows_text(s, 1, S_CALLS, r, &f[nf].value, &f[nf].value_len)) {
        f[nf++].key = "calls";
    }
    /* named fields carry the cell's text as valid UTF-8 (the raw bytes may not be); a column in
     * another unit than ns, its value in whole ns */
    char scaled[2][48];
    static const size_t NAMED[2] = {S_MED, S_STDDEV};
    static const char *const KEY[2] = {"median_ns", "stddev_ns"};
    for (int k = 0; k < 2; k++) {
        int p = unit_pow10(s->cols.name[NAMED[k]]);
        i128 v;
        if (!p) {
            if (csv_rows_text(s, 2 + (size_t)k, NAMED[k], r, &f[nf].value, &f[nf].value_len)) f[nf++].key = KEY[k];
        } else if (ns_cell(s, NAMED[k], r, &v) && v <= INT64_MAX) {
            int n = snprintf(scaled[k], sizeof scaled[k], "%lld", (long long)v);
            f[nf].value = scaled[k], f[nf].value_len = (size_t)n, f[nf++].key = KEY[k];
        }
    }
    rec.fields = nf ? f : NULL;
    rec.n_fields = nf;
    csv_rows_emit(s, r, &rec);
}

#define STATS_SPEC(var, what_, v, search)                                                                        \
    static const csv_rows_spec var = {.what = what_, .want = WANT, .quantity = QUANTITY, .n_want = S_N,          \
                                      .required = 1u << S_NAME | 1u << S_CALLS | 1u << S_TOTAL, .variant = v,  \
                                      .header_search = search, .join_surplus_into = 1 + S_NAME,              \
                                      .row = stats_row};
STATS_SPEC(KERNEL_SPEC, "kernel stats report", V_KERNEL, false)
STATS_SPEC(API_SPEC, "API stats report", V_API, false)
STATS_SPEC(COPY_SPEC, "memory copy stats report", V_COPY, false)
STATS_SPEC(DOMAIN_SPEC, "domain stats report", V_DOMAIN, false)
STATS_SPEC(NSYS_KERN_SPEC, "nsys cuda_gpu_kern_sum report", V_KERNEL, true)
STATS_SPEC(NSYS_MEM_SPEC, "nsys cuda_gpu_mem_time_sum report", V_NSYS_MEM, true)

static const char *const KERNEL_NAMES[] = {"*kernel_stats.csv", "*/*kernel_stats.csv", "results.stats.csv",
                                           "*/results.stats.csv", "*.stats.csv", NULL};
static const char *const API_NAMES[] = {"*api_stats.csv", "*/*api_stats.csv", "*hip_stats.csv", "*/*hip_stats.csv",
                                        "*hsa_stats.csv", NULL};
static const char *const COPY_NAMES[] = {"*memory_copy_stats.csv", "*/*memory_copy_stats.csv", "*copy_stats.csv", NULL};
static const char *const DOMAIN_NAMES[] = {"*domain_stats.csv", "*/*domain_stats.csv", NULL};
static const char *const NSYS_KERN_NAMES[] = {"*cuda_gpu_kern_sum.csv", "*/*cuda_gpu_kern_sum.csv", "*gpukernsum.csv",
                                              NULL};
static const char *const NSYS_MEM_NAMES[] = {"*cuda_gpu_mem_time_sum.csv", "*/*cuda_gpu_mem_time_sum.csv",
                                             "*gpumemtimesum.csv", NULL};

CSV_ROWS_FORMAT(rocprof_kernel_stats_csv_parser, "rocprof-kernel-stats-csv", "rocprofv3", KERNEL_SPEC, KERNEL_NAMES, "TotalDurationNs")
CSV_ROWS_FORMAT(rocprof_api_stats_csv_parser, "rocprof-api-stats-csv", "rocprofv3", API_SPEC, API_NAMES, "TotalDurationNs")
CSV_ROWS_FORMAT(rocprof_copy_stats_csv_parser, "rocprof-memory-copy-stats-csv", "rocprofv3", COPY_SPEC, COPY_NAMES, "TotalDurationNs")
CSV_ROWS_FORMAT(rocprof_domain_stats_csv_parser, "rocprof-domain-stats-csv", "rocprofv3", DOMAIN_SPEC, DOMAIN_NAMES, "TotalDurationNs")
/* (any time unit: "Total Time (ns)", "(us)", "(ms)", "(s)", as nsys stats --timeunit writes) */
CSV_ROWS_FORMAT(nsys_kern_sum_csv_parser, "nsys-cuda-gpu-kern-sum-csv", "nsys", NSYS_KERN_SPEC, NSYS_KERN_NAMES, "Total Time (")
CSV_ROWS_FORMAT(nsys_mem_time_sum_csv_parser, "nsys-cuda-gpu-mem-time-sum-csv", "nsys", NSYS_MEM_SPEC, NSYS_MEM_NAMES,
                "Total Time (")
