/* rocprof_trace_csv: rocprofv3's CSV traces other than kernels, one record per row.
 *
 *   <pid>_memory_copy_trace.csv        -> REC_MEMORY_COPY   (Direction, agents, start/end, bytes when given)
 *   <pid>_hip_api_trace.csv            -> REC_API_CALL      (Domain, Function, pid/tid, correlation, start/end)
 *   <pid>_hsa_api_trace.csv            -> REC_API_CALL
 *   <pid>_memory_allocation_trace.csv  -> REC_ALLOCATION    (Operation -> "alloc"/"free", size, agent, address)
 *   <pid>_counter_collection.csv       -> REC_COUNTER       (Counter_Name, Counter_Value, dispatch)
 *
 * Columns are found by name (csv_columns), so the header generations rocprofiler-sdk has
 * shipped (with or without Stream_Id, Agent_Id as a number or as "Agent 1") all read. The
 * timestamps are integer nanoseconds, kept exactly in 128 bits; a row whose end precedes
 * its start is skipped with a warning naming its line. Every file is ARTEFACT_ANALYSIS_ONLY:
 * RunMetrics never reads these. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/tokenizers/copy_kind.h"
#include "parsers/tokenizers/csv_rows.h"

/* the timestamps every trace has */
static const char *const START[] = {"Start_Timestamp", "start_timestamp", "Start", "BeginNs", NULL};
static const char *const END[] = {"End_Timestamp", "end_timestamp", "End", "EndNs", NULL};
static const char *const CORR[] = {"Correlation_Id", "correlation_id", NULL};
static const char *const PID[] = {"Process_Id", "process_id", "Pid", NULL};
static const char *const TID[] = {"Thread_Id", "thread_id", "Tid", NULL};

/* Whether timestamps b and e are within ±2^62 ns: integer() saturates, and e - b of two such
 * would wrap (every row's start and end go through this before their difference is taken). */
static bool times_in_range(i128 b, i128 e) {
    const i128 lim = (i128)1 << 62;
    return b >= -lim && b <= lim && e >= -lim && e <= lim;
}

/* Start and end of a row: RF_START/RF_END/RF_DURATION when both are integers and end >=
 * start; false (row skipped with a reason) when one is missing or end < start. */
static bool span(csv_rows *s, size_t qs, size_t qe, const csv_record *r, record *rec) {
    i128 b, e;
    bool hb = csv_rows_int(s, qs, r, &b), he = csv_rows_int(s, qe, r, &e);
    if (!hb || !he) { csv_rows_skip(s, "no integer start and end timestamps", r); return false; }
    if (!times_in_range(b, e)) { csv_rows_skip(s, "timestamp beyond 2^62 ns", r); return false; }
    if (e < b) { csv_rows_skip(s, "end timestamp before start", r); return false; }
    rec->start_ns = b, rec->end_ns = e, rec->duration_ns = e - b;
    rec->has |= RF_START | RF_END | RF_DURATION;
    return true;
}

static void pid_tid(csv_rows *s, size_t qp, size_t qt, const csv_record *r, record *rec) {
    int64_t p, t;
    if (csv_rows_agent(s, qp, r, &p) && csv_rows_agent(s, qt, r, &t)) rec->pid = p, rec->tid = t, rec->has |= RF_PID_TID;
}

static void correlation(csv_rows *s, size_t q, const csv_record *r, record *rec) {
    i128 v;
    if (csv_rows_int(s, q, r, &v) && v >= 0 && v <= (i128)UINT64_MAX) rec->correlation_id = (uint64_t)v, rec->has |= RF_CORRELATION;
}

static bool ends_with(const char *s, size_t n, const char *w) {
    size_t wl = strlen(w);
    return n >= wl && !memcmp(s + n - wl, w, wl);
}

/* ---- memory copies ---- */
static const char *const DIRECTION[] = {"Direction", "direction", "Operation", NULL};
static const char *const STREAM[] = {"Stream_Id", "stream_id", "Queue_Id", NULL};
static const char *const SRC_AGENT[] = {"Source_Agent_Id", "Src_Agent_Id", "source_agent_id", NULL};
static const char *const DST_AGENT[] = {"Destination_Agent_Id", "Dst_Agent_Id", "destination_agent_id", NULL};
static const char *const COPY_BYTES[] = {"Bytes", "Size", "Copy_Bytes", "Memory_Copy_Size", NULL};
enum { MC_DIR, MC_STREAM, MC_SRC, MC_DST, MC_CORR, MC_START, MC_END, MC_BYTES, MC_N };
static const csv_want MC_WANT[] = {{DIRECTION, NULL, true}, {STREAM, NULL, true},  {SRC_AGENT, NULL, true},
                                       {DST_AGENT, NULL, true}, {CORR, NULL, true},    {START, NULL, true},
                                       {END, NULL, true},       {COPY_BYTES, NULL, true}};
_Static_assert(sizeof MC_WANT / sizeof *MC_WANT == MC_N, "MC_WANT: one entry per value below MC_N");
static const char *const MC_QUANTITY[] = {"direction", "stream", "source agent", "destination agent",
                                              "correlation", "start", "end", "bytes"};
_Static_assert(sizeof MC_QUANTITY / sizeof *MC_QUANTITY == MC_N, "MC_QUANTITY: one entry per value below MC_N");

static void copy_row(csv_rows *s, const csv_record *r) {
    record rec = {.type = REC_MEMORY_COPY};
    if (!span(s, MC_START, MC_END, r, &rec)) return;
    const char *dir;
    size_t dn;
    if (csv_rows_text(s, 0, MC_DIR, r, &dir, &dn)) rec.copy = copy_kind_of_name(dir, dn), rec.name = dir, rec.name_len = dn;
    int64_t src, dst, v;
    bool hs = csv_rows_agent(s, MC_SRC, r, &src), hd = csv_rows_agent(s, MC_DST, r, &dst);
    /* device: the GPU end (destination of a host-to-device copy, else the source) */
    if (rec.copy == COPY_HTOD) {
        if (hd) rec.device = dst, rec.has |= RF_DEVICE;
        if (hs) rec.peer_device = src, rec.has |= RF_PEER;
    } else {
        if (hs) rec.device = src, rec.has |= RF_DEVICE;
        if (hd) rec.peer_device = dst, rec.has |= RF_PEER;
    }
    if (csv_rows_agent(s, MC_STREAM, r, &v)) rec.stream = v, rec.has |= RF_STREAM;
    correlation(s, MC_CORR, r, &rec);
    i128 b;
    if (csv_rows_int(s, MC_BYTES, r, &b) && b >= 0 && b <= (i128)UINT64_MAX) rec.bytes = (uint64_t)b, rec.has |= RF_BYTES;
    csv_rows_emit(s, r, &rec);
}

static const csv_rows_spec COPY_SPEC = {.what = "memory copy trace", .want = MC_WANT, .quantity = MC_QUANTITY,
                                        .n_want = MC_N, .required = 1u << MC_START | 1u << MC_END, .row = copy_row};

/* ---- API calls ---- */
static const char *const DOMAIN_COLS[] = {"Domain", "domain", NULL};
static const char *const FUNCTION[] = {"Function", "function", "Name", NULL};
enum { API_DOMAIN_C, API_FUNC, API_PID, API_TID, API_CORR, API_START, API_END, API_N };
static const csv_want API_WANT[] = {{DOMAIN_COLS, NULL, true}, {FUNCTION, NULL, true}, {PID, NULL, true},
                                         {TID, NULL, true},         {CORR, NULL, true},     {START, NULL, true},
                                         {END, NULL, true}};
_Static_assert(sizeof API_WANT / sizeof *API_WANT == API_N, "API_WANT: one entry per value below API_N");
static const char *const API_QUANTITY[] = {"domain", "function", "pid", "tid", "correlation", "start", "end"};
_Static_assert(sizeof API_QUANTITY / sizeof *API_QUANTITY == API_N, "API_QUANTITY: one entry per value below API_N");

static void api_row(csv_rows *s, const csv_record *r) {
    record rec = {.type = REC_API_CALL, .domain = (api_domain)s->spec->variant};
    if (!csv_rows_text(s, 0, API_FUNC, r, &rec.name, &rec.name_len)) { csv_rows_skip(s, "no function name", r); return; }
    if (!span(s, API_START, API_END, r, &rec)) return;
    const char *d;
    size_t dn;
    if (csv_rows_text(s, 1, API_DOMAIN_C, r, &d, &dn)) {
        rec.category = d, rec.category_len = dn;
        rec.domain = dn >= 3 && !memcmp(d, "HIP", 3) ? API_HIP : dn >= 3 && !memcmp(d, "HSA", 3) ? API_HSA : API_OTHER;
    }
    pid_tid(s, API_PID, API_TID, r, &rec);
    correlation(s, API_CORR, r, &rec);
    csv_rows_emit(s, r, &rec);
}

static const csv_rows_spec HIP_SPEC = {.what = "HIP API trace", .want = API_WANT, .quantity = API_QUANTITY,
                                       .n_want = API_N, .required = 1u << API_FUNC | 1u << API_START | 1u << API_END,
                                       .variant = API_HIP, .row = api_row};
static const csv_rows_spec HSA_SPEC = {.what = "HSA API trace", .want = API_WANT, .quantity = API_QUANTITY,
                                       .n_want = API_N, .required = 1u << API_FUNC | 1u << API_START | 1u << API_END,
                                       .variant = API_HSA, .row = api_row};

/* ---- memory allocations ---- */
static const char *const OPERATION[] = {"Operation", "operation", NULL};
static const char *const AGENT[] = {"Agent_Id", "agent_id", NULL};
static const char *const ALLOC_SIZE[] = {"Allocation_Size", "allocation_size", "Size", NULL};
static const char *const ADDRESS[] = {"Address", "address", NULL};
enum { AL_OP, AL_AGENT, AL_SIZE, AL_CORR, AL_START, AL_END, AL_ADDR, AL_N };
static const csv_want AL_WANT[] = {{OPERATION, NULL, true}, {AGENT, NULL, true}, {ALLOC_SIZE, NULL, true},
                                       {CORR, NULL, true},      {START, NULL, true}, {END, NULL, true},
                                       {ADDRESS, NULL, true}};
_Static_assert(sizeof AL_WANT / sizeof *AL_WANT == AL_N, "AL_WANT: one entry per value below AL_N");
static const char *const AL_QUANTITY[] = {"operation", "agent", "bytes", "correlation", "start", "end", "address"};
_Static_assert(sizeof AL_QUANTITY / sizeof *AL_QUANTITY == AL_N, "AL_QUANTITY: one entry per value below AL_N");

/* The Address cell ("0x00007ffb26354000", or decimal) as an integer; false when absent or not one. */
static bool address_cell(csv_rows *s, const csv_record *r, uint64_t *out) {
    const char *t;
    size_t n;
    if (!csv_rows_text(s, 1, AL_ADDR, r, &t, &n) || n > 40) return false;
    char buf[48], *end;
    memcpy(buf, t, n);
    buf[n] = 0;
    if (buf[0] == '-' || buf[0] == '+') return false;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (end == buf || *end || errno) return false;
    *out = v;
    return true;
}

static void alloc_row(csv_rows *s, const csv_record *r) {
    record rec = {.type = REC_ALLOCATION};
    const char *op;
    size_t on;
    if (!csv_rows_text(s, 0, AL_OP, r, &op, &on)) { csv_rows_skip(s, "no operation", r); return; }
    /* MEMORY_ALLOCATION_ALLOCATE / _FREE, MEMORY_ALLOCATION_VMEM_ALLOCATE / _VMEM_FREE */
    bool is_free = ends_with(op, on, "FREE");
    if (!is_free && !ends_with(op, on, "ALLOCATE")) { csv_rows_skip(s, "operation neither an allocation nor a free", r); return; }
    rec.category = is_free ? "free" : "alloc";
    rec.category_len = strlen(rec.category);
    rec.name = op, rec.name_len = on;
    if (!span(s, AL_START, AL_END, r, &rec)) return;
    i128 b;
    /* a free's size is written as 0 (unknown to the tracer): left out, never a real 0 */
    if (csv_rows_int(s, AL_SIZE, r, &b) && b >= 0 && b <= (i128)UINT64_MAX && !(is_free && b == 0))
        rec.bytes = (uint64_t)b, rec.has |= RF_BYTES;
    int64_t a;
    if (csv_rows_agent(s, AL_AGENT, r, &a)) rec.device = a, rec.has |= RF_DEVICE;
    if (address_cell(s, r, &rec.address)) rec.has |= RF_ADDRESS;
    correlation(s, AL_CORR, r, &rec);
    csv_rows_emit(s, r, &rec);
}

static const csv_rows_spec ALLOC_SPEC = {.what = "memory allocation trace", .want = AL_WANT, .quantity = AL_QUANTITY,
                                         .n_want = AL_N, .required = 1u << AL_OP | 1u << AL_START | 1u << AL_END,
                                         .row = alloc_row};

/* ---- counters ---- */
static const char *const COUNTER_NAME[] = {"Counter_Name", "counter_name", NULL};
static const char *const COUNTER_VALUE[] = {"Counter_Value", "counter_value", NULL};
static const char *const DISPATCH[] = {"Dispatch_Id", "dispatch_id", NULL};
static const char *const KERNEL_NAME[] = {"Kernel_Name", "kernel_name", "KernelName", NULL};
static const char *const QUEUE[] = {"Queue_Id", "queue_id", NULL};
enum { CC_NAME, CC_VALUE, CC_CORR, CC_DISPATCH, CC_AGENT, CC_QUEUE, CC_PID, CC_TID, CC_KERNEL, CC_START, CC_END, CC_N };
static const csv_want CC_WANT[] = {{COUNTER_NAME, NULL, true}, {COUNTER_VALUE, NULL, true}, {CORR, NULL, true},
                                       {DISPATCH, NULL, true},     {AGENT, NULL, true},         {QUEUE, NULL, true},
                                       {PID, NULL, true},          {TID, NULL, true},           {KERNEL_NAME, NULL, true},
                                       {START, NULL, true},        {END, NULL, true}};
_Static_assert(sizeof CC_WANT / sizeof *CC_WANT == CC_N, "CC_WANT: one entry per value below CC_N");
static const char *const CC_QUANTITY[] = {"counter", "value", "correlation", "dispatch", "agent", "queue",
                                              NULL, NULL, "kernel name", NULL, NULL};
_Static_assert(sizeof CC_QUANTITY / sizeof *CC_QUANTITY == CC_N, "CC_QUANTITY: one entry per value below CC_N");

static void counter_row(csv_rows *s, const csv_record *r) {
    record rec = {.type = REC_COUNTER};
    if (!csv_rows_text(s, 0, CC_NAME, r, &rec.name, &rec.name_len)) { csv_rows_skip(s, "no counter name", r); return; }
    if (!csv_rows_num(s, CC_VALUE, r, &rec.number)) { csv_rows_skip(s, "counter value not a number", r); return; }
    rec.has |= RF_VALUE;
    int64_t v;
    if (csv_rows_agent(s, CC_AGENT, r, &v)) rec.device = v, rec.has |= RF_DEVICE;
    if (csv_rows_agent(s, CC_QUEUE, r, &v)) rec.stream = v, rec.has |= RF_STREAM;
    pid_tid(s, CC_PID, CC_TID, r, &rec);
    correlation(s, CC_CORR, r, &rec);
    i128 b, e;
    bool start = csv_rows_int(s, CC_START, r, &b), end = csv_rows_int(s, CC_END, r, &e);
    if (start && end) {
        if (!times_in_range(b, e)) csv_rows_kept_without(s, "times (beyond 2^62 ns)", r);
        else if (e < b) csv_rows_kept_without(s, "times (end before start)", r);
        else rec.start_ns = b, rec.end_ns = e, rec.duration_ns = e - b, rec.has |= RF_START | RF_END | RF_DURATION;
    } else if (csv_rows_field(s, CC_START, r) || csv_rows_field(s, CC_END, r))   /* written, but not both read */
        csv_rows_kept_without(s, "times (a timestamp missing or not an integer)", r);
    /* the dispatch the value belongs to, and its kernel, as named fields */
    record_field f[2];
    size_t nf = 0;
    i128 di;
    if (csv_rows_int(s, CC_DISPATCH, r, &di) && csv_rows_text(s, 2, CC_DISPATCH, r, &f[nf].value, &f[nf].value_len))
        f[nf++].key = "dispatch_id";
    const char *k;
    size_t kn;
    if (csv_rows_text(s, 1, CC_KERNEL, r, &k, &kn)) f[nf++] = (record_field){"kernel_name", k, kn};
    rec.fields = nf ? f : NULL;
    rec.n_fields = nf;
    csv_rows_emit(s, r, &rec);
}

static const csv_rows_spec COUNTER_SPEC = {.what = "counter collection", .want = CC_WANT, .quantity = CC_QUANTITY,
                                           .n_want = CC_N, .required = 1u << CC_NAME | 1u << CC_VALUE,
                                           .row = counter_row};

/* ---- the artefact_parsers ---- */
static const char *const COPY_NAMES[] = {"*memory_copy_trace.csv", "*/*memory_copy_trace.csv", NULL};
static const char *const HIP_NAMES[] = {"*hip_api_trace.csv", "*/*hip_api_trace.csv", "*hip_runtime_api_trace.csv",
                                        "*/*hip_runtime_api_trace.csv", NULL};
static const char *const HSA_NAMES[] = {"*hsa_api_trace.csv", "*/*hsa_api_trace.csv", NULL};
static const char *const ALLOC_NAMES[] = {"*memory_allocation_trace.csv", "*/*memory_allocation_trace.csv", NULL};
static const char *const COUNTER_NAMES[] = {"*counter_collection.csv", "*/*counter_collection.csv", NULL};

CSV_ROWS_FORMAT(rocprof_copy_csv_parser, "rocprof-memory-copy-csv", "rocprofv3", COPY_SPEC, COPY_NAMES, "Destination_Agent_Id")
CSV_ROWS_FORMAT(rocprof_hip_api_csv_parser, "rocprof-hip-api-csv", "rocprofv3", HIP_SPEC, HIP_NAMES, "Function")
CSV_ROWS_FORMAT(rocprof_hsa_api_csv_parser, "rocprof-hsa-api-csv", "rocprofv3", HSA_SPEC, HSA_NAMES, "Function")
CSV_ROWS_FORMAT(rocprof_alloc_csv_parser, "rocprof-memory-allocation-csv", "rocprofv3", ALLOC_SPEC, ALLOC_NAMES, "Allocation_Size")
CSV_ROWS_FORMAT(rocprof_counter_csv_parser, "rocprof-counter-csv", "rocprofv3", COUNTER_SPEC, COUNTER_NAMES, "Counter_Name")
