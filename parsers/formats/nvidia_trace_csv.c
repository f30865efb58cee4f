/* nvidia_trace_csv: NVIDIA's GPU activity traces as CSV, one record per row.
 *
 *   nsys stats --report cuda_gpu_trace --format csv   (*_cuda_gpu_trace.csv, older *_gputrace.csv)
 *       "Start (ns)","Duration (ns)","CorrId","GrdX","GrdY","GrdZ","BlkX","BlkY","BlkZ",...,
 *       "Bytes (MB)",...,"Device","Ctx",...,"Strm","Name"
 *   nvprof --print-gpu-trace --csv                    (any *.csv holding its header)
 *       ==PID== banner lines, then "Start","Duration","Grid X",...,"Size",...,"Device","Context",
 *       "Stream","Name","Correlation_ID", then a units row (s, ms, us or ns; B, KB, MB, GB), then rows
 *
 * A row named "[CUDA memcpy ...]" is a REC_MEMORY_COPY (direction from HtoD / Host-to-Device
 * and the like), "[CUDA memset ...]" a REC_MEMSET, anything else a REC_KERNEL_DISPATCH with
 * grid and block (RF_GRID). Times convert to integer ns exactly from the decimal text: the
 * unit comes from the column name ("Start (ns)"), else from nvprof's units row, else
 * microseconds (nvprof's default). Sizes: "(MB)" in a column name or an MB unit: nsys
 * writes SI megabytes (10^6 bytes), nvprof binary units (KB = 1024 B); rounded to the
 * nearest byte. Device "(N)" at the end of a device name ("NVIDIA A100 (0)") is device N.
 * ARTEFACT_ANALYSIS_ONLY: RunMetrics' kernel trace stays rocprofv3's. */
#include <string.h>

#include "parsers/tokenizers/copy_kind.h"
#include "parsers/tokenizers/csv_rows.h"

static const char *const START[] = {"Start (ns)", "Start(ns)", "Start (us)", "Start", NULL};
static const char *const DUR[] = {"Duration (ns)", "Duration(ns)", "Duration (us)", "Duration", NULL};
static const char *const CORR[] = {"CorrId", "Correlation_ID", "Correlation ID", "CorrID", NULL};
static const char *const GX[] = {"GrdX", "Grid X", NULL};
static const char *const GY[] = {"GrdY", "Grid Y", NULL};
static const char *const GZ[] = {"GrdZ", "Grid Z", NULL};
static const char *const BX[] = {"BlkX", "Block X", NULL};
static const char *const BY[] = {"BlkY", "Block Y", NULL};
static const char *const BZ[] = {"BlkZ", "Block Z", NULL};
static const char *const BYTES[] = {"Bytes (MB)", "Bytes (B)", "Bytes", "Size (MB)", "Size", NULL};
static const char *const DEVICE[] = {"Device", NULL};
static const char *const STREAM[] = {"Strm", "Stream", NULL};
static const char *const NAME[] = {"Name", NULL};
enum { N_START, N_DUR, N_CORR, N_GX, N_GY, N_GZ, N_BX, N_BY, N_BZ, N_BYTES, N_DEVICE, N_STREAM, N_NAME, N_N };
static const csv_want WANT[] = {{START, NULL, false}, {DUR, NULL, false},   {CORR, NULL, false},
                                   {GX, NULL, false},    {GY, NULL, false},    {GZ, NULL, false},
                                   {BX, NULL, false},    {BY, NULL, false},    {BZ, NULL, false},
                                   {BYTES, NULL, false}, {DEVICE, NULL, false}, {STREAM, NULL, false},
                                   {NAME, NULL, false}};
_Static_assert(sizeof WANT / sizeof *WANT == N_N, "WANT: one entry per value below N_N");
static const char *const QUANTITY[] = {"start", "duration", "correlation", NULL, NULL, NULL, NULL, NULL, NULL,
                                          "bytes", "device", "stream", "name"};
_Static_assert(sizeof QUANTITY / sizeof *QUANTITY == N_N, "QUANTITY: one entry per value below N_N");

/* aux slots of the per-file units */
enum { A_START_POW, A_DUR_POW, A_BYTES_MUL, A_BYTES_POW };
enum { V_NSYS, V_NVPROF };

/* A time unit word or a column name's "(unit)": the power of ten to ns, -1 when none. */
static int time_pow(const char *s, size_t n) {
    const char *p = memchr(s, '(', n);
    if (p) { n -= (size_t)(p + 1 - s); s = p + 1; const char *q = memchr(s, ')', n); if (!q) return -1; n = (size_t)(q - s); }
    if (n == 2 && !memcmp(s, "ns", 2)) return 0;
    if ((n == 2 && !memcmp(s, "us", 2)) || (n == 3 && !memcmp(s, "\xc2\xb5s", 3)))
        return 3;
    if (n == 2 && !memcmp(s, "ms", 2)) return 6;
    if (n == 1 && s[0] == 's') return 9;
    return -1;
}

/* A size unit word or "(unit)": bytes per unit as mul * 10^pow (false when none). */
static bool size_unit(const char *s, size_t n, bool binary, int64_t *mul, int *pow) {
    const char *p = memchr(s, '(', n);
    if (p) { n -= (size_t)(p + 1 - s); s = p + 1; const char *q = memchr(s, ')', n); if (!q) return false; n = (size_t)(q - s); }
    static const char *const U[] = {"B", "KB", "MB", "GB"};
    for (int i = 0; i < 4; i++)
        if (n == strlen(U[i]) && !memcmp(s, U[i], n)) {
            if (binary) *mul = (int64_t)1 << (10 * i), *pow = 0;
            else *mul = 1, *pow = 3 * i;
            return true;
        }
    static const char *const IU[] = {"KiB", "MiB", "GiB"};
    for (int i = 0; i < 3; i++)
        if (n == 3 && !memcmp(s, IU[i], 3)) { *mul = (int64_t)1 << (10 * (i + 1)), *pow = 0; return true; }
    return false;
}

static const char *col_name(const csv_rows *s, size_t q) { return s->cols.name[q] ? s->cols.name[q] : ""; }

/* The units from the header names, then from nvprof's units row when r is one (true). */
static bool decide_units(csv_rows *s, const csv_record *r) {
    bool binary = s->spec->variant == V_NVPROF;
    int sp = time_pow(col_name(s, N_START), strlen(col_name(s, N_START)));
    int dp = time_pow(col_name(s, N_DUR), strlen(col_name(s, N_DUR)));
    int64_t mul = 1;
    int pow = 0;
    if (!size_unit(col_name(s, N_BYTES), strlen(col_name(s, N_BYTES)), s->spec->variant == V_NVPROF, &mul, &pow))
        mul = 1, pow = 0;
    s->aux_set = true;
    const csv_field *fs = csv_rows_field(s, N_START, r), *fd = csv_rows_field(s, N_DUR, r);
    bool units_row = false;
    if (fs && time_pow(fs->text.data, fs->text.len) >= 0) {
        units_row = true;
        sp = time_pow(fs->text.data, fs->text.len);
        if (fd && time_pow(fd->text.data, fd->text.len) >= 0) dp = time_pow(fd->text.data, fd->text.len);
        const csv_field *fb = csv_rows_field(s, N_BYTES, r);
        if (fb) size_unit(fb->text.data, fb->text.len, binary, &mul, &pow);
    }
    s->aux[A_START_POW] = sp >= 0 ? sp : 3;                  /* nvprof's default: microseconds */
    s->aux[A_DUR_POW] = dp >= 0 ? dp : 3;
    s->aux[A_BYTES_MUL] = mul;
    s->aux[A_BYTES_POW] = pow;
    return units_row;
}

static bool time_cell(csv_rows *s, size_t q, int pow, const csv_record *r, i128 *out) {
    const csv_field *f = csv_rows_field(s, q, r);
    return f && csv_rows_decimal_scaled(f->text.data, f->text.len, pow, out);
}

static bool bytes_cell(csv_rows *s, const csv_record *r, uint64_t *out) {
    const csv_field *f = csv_rows_field(s, N_BYTES, r);
    i128 micro;
    if (!f || !csv_rows_decimal_scaled(f->text.data, f->text.len, (int)s->aux[A_BYTES_POW] + 6, &micro) || micro < 0) return false;
    i128 v = (micro * s->aux[A_BYTES_MUL] + 500000) / 1000000;   /* nearest byte */
    if (v > (i128)UINT64_MAX) return false;
    *out = (uint64_t)v;
    return true;
}

/* "NVIDIA A100-SXM4-80GB (0)" or "0": the device number. */
static bool device_cell(csv_rows *s, const csv_record *r, int64_t *out) {
    if (csv_rows_agent(s, N_DEVICE, r, out)) return true;
    const csv_field *f = csv_rows_field(s, N_DEVICE, r);
    if (!f) return false;
    const char *t = f->text.data;
    size_t n = f->text.len;
    while (n && t[n - 1] == ' ') n--;
    if (n < 3 || t[n - 1] != ')') return false;
    size_t i = n - 1;
    int64_t v = 0, m = 1;
    while (i > 0 && t[i - 1] >= '0' && t[i - 1] <= '9' && m < 1000000000) v += (t[i - 1] - '0') * m, m *= 10, i--;
    if (i == n - 1 || i == 0 || t[i - 1] != '(') return false;
    *out = v;
    return true;
}

static bool u32_cell(csv_rows *s, size_t q, const csv_record *r, uint32_t *out) {
    i128 v;
    if (!csv_rows_int(s, q, r, &v) || v < 0 || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

static void trace_row(csv_rows *s, const csv_record *r) {
    const csv_field *f0 = csv_rows_field(s, N_START, r);
    if (f0 && f0->text.len >= 2 && !memcmp(f0->text.data, "==", 2)) return;   /* an nvprof banner line */
    if (!s->aux_set && decide_units(s, r)) return;                            /* the units row */
    record rec = {0};
    if (!csv_rows_text(s, 0, N_NAME, r, &rec.name, &rec.name_len)) { csv_rows_skip(s, "no name", r); return; }
    i128 start, dur;
    if (!time_cell(s, N_START, (int)s->aux[A_START_POW], r, &start) ||
        !time_cell(s, N_DUR, (int)s->aux[A_DUR_POW], r, &dur)) {
        csv_rows_skip(s, "start or duration not a number", r);
        return;
    }
    if (dur < 0) { csv_rows_skip(s, "negative duration", r); return; }
    rec.start_ns = start, rec.duration_ns = dur, rec.end_ns = start + dur;
    rec.has = RF_START | RF_END | RF_DURATION;
    bool bracket = rec.name_len > 6 && rec.name[0] == '[';
    if (bracket && (memmem(rec.name, rec.name_len, "memcpy", 6) || memmem(rec.name, rec.name_len, "Memcpy", 6))) {
        rec.type = REC_MEMORY_COPY;
        rec.copy = copy_kind_of_name(rec.name, rec.name_len);
    } else if (bracket && (memmem(rec.name, rec.name_len, "memset", 6) || memmem(rec.name, rec.name_len, "Memset", 6))) {
        rec.type = REC_MEMSET;
    } else {
        rec.type = REC_KERNEL_DISPATCH;
        if (u32_cell(s, N_GX, r, &rec.grid[0]) && u32_cell(s, N_GY, r, &rec.grid[1]) && u32_cell(s, N_GZ, r, &rec.grid[2]) &&
            u32_cell(s, N_BX, r, &rec.workgroup[0]) && u32_cell(s, N_BY, r, &rec.workgroup[1]) &&
            u32_cell(s, N_BZ, r, &rec.workgroup[2]))
            rec.has |= RF_GRID;
    }
    if (rec.type != REC_KERNEL_DISPATCH && bytes_cell(s, r, &rec.bytes)) rec.has |= RF_BYTES;
    int64_t v;
    if (device_cell(s, r, &v)) rec.device = v, rec.has |= RF_DEVICE;
    if (csv_rows_agent(s, N_STREAM, r, &v)) rec.stream = v, rec.has |= RF_STREAM;
    i128 c;
    if (csv_rows_int(s, N_CORR, r, &c) && c >= 0 && c <= (i128)UINT64_MAX) rec.correlation_id = (uint64_t)c, rec.has |= RF_CORRELATION;
    csv_rows_emit(s, r, &rec);
}

static const csv_rows_spec NSYS_SPEC = {.what = "nsys cuda_gpu_trace report", .want = WANT, .quantity = QUANTITY,
                                        .n_want = N_N, .required = 1u << N_START | 1u << N_DUR | 1u << N_NAME,
                                        .variant = V_NSYS, .header_search = true, .row = trace_row};
static const csv_rows_spec NVPROF_SPEC = {.what = "nvprof GPU trace", .want = WANT, .quantity = QUANTITY,
                                          .n_want = N_N, .required = 1u << N_START | 1u << N_DUR | 1u << N_NAME,
                                          .variant = V_NVPROF, .header_search = true, .row = trace_row};

static const char *const NSYS_NAMES[] = {"*cuda_gpu_trace.csv", "*/*cuda_gpu_trace.csv", "*gputrace.csv", NULL};
static const char *const NVPROF_NAMES[] = {"*nvprof*.csv", "*gpu_trace.csv", "*gpu-trace.csv", NULL};

CSV_ROWS_FORMAT_KERNELS(nsys_gpu_trace_csv_parser, "nsys-cuda-gpu-trace-csv", "nsys", NSYS_SPEC, NSYS_NAMES, "Start (ns)",
                        KERNELS_DEVICE_CLOCK)
CSV_ROWS_FORMAT_KERNELS(nvprof_gpu_trace_csv_parser, "nvprof-gpu-trace-csv", "nvprof", NVPROF_SPEC, NVPROF_NAMES, "Grid X",
                        KERNELS_DEVICE_CLOCK)
