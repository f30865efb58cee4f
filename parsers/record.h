/* record: what formats emit and analyses consume.
 *
 * A format knows bytes: it turns a file into a stream of typed records carrying every
 * field an analysis may need (device, stream or queue, start and end in integer
 * nanoseconds, name, correlation id, sizes) and computes no metric. An analysis knows
 * meaning: it declares the record types it wants and folds them, in one pass, into its
 * result. Records are streamed through a sink one at a time and never stored whole, so
 * memory does not grow with the file.
 *
 * Strings in a record (name, key, value) are valid UTF-8 and live only until the emit
 * call returns: an analysis that keeps one copies it. Integer times are i128 (rocprofv3
 * timestamps exceed 2^53; sums of them join exactly in any order). */
#ifndef GOBLIN_RECORD_H
#define GOBLIN_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/i128.h"

typedef enum {
    REC_KERNEL_DISPATCH,     /* one GPU kernel launch */
    REC_MEMORY_COPY,         /* a host/device or device/device copy (copy says which way) */
    REC_API_CALL,            /* a HIP/HSA/CUDA runtime or driver call on the host (domain) */
    REC_ANNOTATION,          /* a user range: a profiler step, an NVTX/roctx range */
    REC_CPU_OP,              /* a host-side operator (aten::...), or a python_function frame (category) */
    REC_TELEMETRY_SAMPLE,    /* one sample of device telemetry (VRAM, utilisation, power, temperature) */
    REC_METADATA,            /* a key/value fact about the run (versions, device properties): see below */
    REC_MEMSET,              /* a device memory fill (bytes, start/end) */
    REC_ALLOCATION,          /* a memory allocation or free (category "alloc" / "free"), bytes; or
                              * category "total": an allocator's state after an event, no
                              * allocation of its own (torch [memory] events): number (RF_VALUE)
                              * = bytes allocated, bytes (RF_BYTES) = bytes reserved */
    REC_COUNTER,             /* a hardware counter value for a dispatch: name = counter, number */
    REC_KERNEL_STATS,        /* one pre-aggregated row of a stats report (rocprofv3 *_stats.csv, nsys
                              * cuda_gpu_kern_sum): name, calls, duration_ns = total, min/max_ns;
                              * category says of what ("kernel", "api", "memory_copy") */
    REC_NPU_OP,              /* one Ascend operator task (msprof op_summary / kernel_details row):
                              * name = op type, duration_ns, fields = signature columns and counters */
    REC_AIE_EVENT,           /* one AIE trace event: track = tile label, name = event, phase 'B'/'E',
                              * cycles = timestamp in core clock cycles */
    REC_TRACE_EVENT,         /* one item of a chrome trace as the reference's read_torch() reads it
                              * (trace.flags says which: see TE_*); only to a sink naming it
                              * (record_sink.types) */
    REC_TYPE_COUNT
} record_type;

/* Which optional fields a record carries (record.has). */
enum {
    RF_DEVICE = 1u << 0,
    RF_STREAM = 1u << 1,
    RF_START = 1u << 2,
    RF_END = 1u << 3,
    RF_DURATION = 1u << 4,
    RF_CORRELATION = 1u << 5,
    RF_BYTES = 1u << 6,
    RF_VRAM = 1u << 7,       /* vram_gib: the reference rules' reading (RunMetrics) */
    RF_UTIL = 1u << 8,
    RF_PID_TID = 1u << 9,    /* pid, tid */
    RF_EXTERNAL = 1u << 10,  /* external_id: torch's "External id" (CPU op <-> launch <-> kernel) */
    RF_GRID = 1u << 11,      /* grid[3], workgroup[3] (sizes as the file gives them) */
    RF_RESOURCES = 1u << 12, /* lds_bytes, scratch_bytes, vgpr, sgpr */
    RF_POWER = 1u << 13,     /* power_w */
    RF_TEMP = 1u << 14,      /* temp_c */
    RF_VRAM_BYTES = 1u << 15,/* vram_used_bytes (and vram_total_bytes when RF_VRAM_TOTAL) */
    RF_VRAM_TOTAL = 1u << 16,
    RF_VALUE = 1u << 17,     /* number: a counter's value, an allocator's total after the event */
    RF_CALLS = 1u << 18,     /* calls, min_ns, max_ns (REC_KERNEL_STATS) */
    RF_US_FLOAT = 1u << 19,  /* ts_us, dur_us: the file's own float microseconds (chrome traces),
                              * for analyses that must reproduce the reference's float sums */
    RF_CYCLES = 1u << 20,    /* cycles (REC_AIE_EVENT) */
    RF_PEER = 1u << 21,      /* peer_device: a copy's other end */
    RF_ADDRESS = 1u << 22,   /* address: an allocation's or free's device pointer (REC_ALLOCATION) */
};
/* Every RF_ bit (the last one, times two, minus one): a new bit goes last and moves this. */
#define RF_ALL (RF_ADDRESS * 2u - 1u)

/* What a REC_TRACE_EVENT is (trace.flags): exactly one of TE_EVENTS, TE_EVENT, TE_META_OPEN,
 * TE_META, TE_END, plus the bits that qualify it. Strings are the file's decoded text, made
 * valid UTF-8; numbers are read with the reference's number() (bools, numeric strings; a
 * non-finite or over-long number is absent and counted in TE_END). */
enum {
    TE_EVENTS = 1u << 0,     /* a root "traceEvents" value begins: it replaces any earlier one */
    TE_LIST = 1u << 1,       /*   ... and is a list (else its events are not read) */
    TE_EVENT = 1u << 2,      /* one event of that list ended: name, category (NULL unless strings),
                              * ts_us / dur_us behind TE_TS / TE_DUR, line = its byte offset */
    TE_TS = 1u << 3,
    TE_DUR = 1u << 4,
    TE_NAME_STR = 1u << 5,   /*   "name" is a string (name is its text, possibly cut: TE_NAME_LONG) */
    TE_NAME_LONG = 1u << 6,  /*   ... longer than the reader keeps (64 KiB): name holds its start */
    TE_META_OPEN = 1u << 7,  /* a root "metadata" value begins: it replaces any earlier one */
    TE_DICT = 1u << 8,       /*   ... and is an object (else it has no keys) */
    TE_META = 1u << 9,       /* one key of that object: key (one with a NUL byte is not sent);
                              * number behind RF_VALUE; value when a
                              * string (TE_STRING); TE_TRUTHY as Python's bool(value) */
    TE_STRING = 1u << 10,
    TE_TRUTHY = 1u << 11,
    TE_END = 1u << 12,       /* the document ended: TE_VALID when all of it was valid JSON (else
                              * line = the error's byte offset, value = what was wrong) */
    TE_VALID = 1u << 13,
    TE_ROOT_OBJECT = 1u << 14, /* the root value is an object */
    TE_NONFINITE = 1u << 15, /* TE_META: the value was a non-finite number (absent; TE_END's counts */
    TE_LONG_NUMBER = 1u << 16, /*   cover events only, so an analysis counts the keys it reads) */
    TE_OUT_OF_MEMORY = 1u << 17, /* TE_END: some text (a name, a category, a metadata value) was
                                  * not kept for lack of memory: the records were partial */
};

/* Which way a copy went (REC_MEMORY_COPY.copy). */
typedef enum { COPY_UNKNOWN, COPY_HTOD, COPY_DTOH, COPY_DTOD, COPY_PTOP, COPY_HTOH } copy_kind;
/* Which API a call belongs to (REC_API_CALL.domain). */
typedef enum { API_UNKNOWN, API_HIP, API_HSA, API_CUDA_RUNTIME, API_CUDA_DRIVER, API_OTHER } api_domain;

/* A named text field of a record (REC_NPU_OP's signature columns and counters, extra
 * columns a format passes through). value is the file's text, valid UTF-8. */
typedef struct record_field {
    const char *key;
    const char *value;
    size_t value_len;
} record_field;

typedef struct record {
    record_type type;
    unsigned has;            /* RF_* bits: a field whose bit is clear is unknown, not 0 */
    uint64_t line;           /* where it came from: CSV line, or byte offset for binary/JSON */
    int64_t device;          /* agent / GPU index (as the file numbers it) */
    int64_t stream;          /* stream or queue id */
    i128 start_ns, end_ns;   /* on the profiler's clock */
    i128 duration_ns;        /* as the file gives it (may differ from end - start) */
    uint64_t correlation_id; /* links a dispatch to the API call that launched it */
    uint64_t bytes;          /* memory copies, memsets, allocations */
    const char *name;        /* kernel, API, annotation, operator or counter name; NULL when none */
    size_t name_len;
    /* telemetry samples, already in the quantity's unit (GiB, percent) */
    double vram_gib, util_pct;
    /* metadata */
    const char *key, *value;
    size_t value_len;
    /* the rest, each behind its RF_ bit (or non-NULL / non-zero where said) */
    const char *category;    /* chrome "cat", a stats row's subject, an allocation's "alloc"/"free";
                              * NULL when none */
    size_t category_len;
    const char *track;       /* a lane label: the chrome process/thread name, an AIE tile; NULL when none */
    size_t track_len;
    const char *args;        /* operator input shapes as the file writes them (JSON text); NULL when none */
    size_t args_len;
    const record_field *fields;  /* n_fields extra named columns */
    size_t n_fields;
    char phase;              /* chrome "ph" ('X', 'B', 'E', 'i', ...); 0 when none */
    copy_kind copy;          /* REC_MEMORY_COPY; COPY_UNKNOWN when the file does not say */
    api_domain domain;       /* REC_API_CALL */
    int64_t pid, tid;        /* RF_PID_TID */
    int64_t peer_device;     /* RF_PEER */
    uint64_t external_id;    /* RF_EXTERNAL */
    uint64_t address;        /* RF_ADDRESS */
    uint32_t grid[3], workgroup[3];                   /* RF_GRID */
    uint32_t lds_bytes, scratch_bytes, vgpr, sgpr;    /* RF_RESOURCES */
    double power_w, temp_c;                           /* RF_POWER, RF_TEMP */
    uint64_t vram_used_bytes, vram_total_bytes;       /* RF_VRAM_BYTES, RF_VRAM_TOTAL */
    double number;                                    /* RF_VALUE */
    uint64_t calls;                                   /* RF_CALLS, with min_ns and max_ns */
    i128 min_ns, max_ns;
    double ts_us, dur_us;                             /* RF_US_FLOAT */
    i128 cycles;                                      /* RF_CYCLES */
    struct {                                          /* REC_TRACE_EVENT */
        unsigned flags;                               /* TE_* */
        uint64_t nonfinite, first_nonfinite_at;       /* TE_END: events' non-finite ts/dur, read as absent */
        uint64_t long_numbers;                        /* TE_END: events' ts/dur too long to read */
    } trace;
} record;

/* REC_METADATA keys with a fixed meaning (a format may emit others verbatim; a key about
 * one device carries RF_DEVICE): "vendor" ("AMD", "NVIDIA", "Huawei"), "device_name",
 * "memory_bytes", "compute_units", "wave_size", "driver_version", "runtime_version",
 * "rocm_version", "cuda_version", "pytorch_version", "roctracer_version", "cupti_version",
 * "hostname", "rank", "world_size", and "aie.<key>" for an AIE run description
 * (aie.M, aie.K, aie.N, aie.m, aie.k, aie.n, aie.rows, aie.cols, aie.warmup,
 * aie.iterations, aie.clock_ghz, aie.macs_per_cycle). Values are the file's text. */

/* A record's duration in ns: the file's own (RF_DURATION), else end - start when both are
 * given; false when the record says neither. One rule for every analysis that sums time. */
static inline bool record_duration(const record *r, i128 *out) {
    if (r->has & RF_DURATION) *out = r->duration_ns;
    else if ((r->has & (RF_START | RF_END)) == (RF_START | RF_END)) *out = i128_sub(r->end_ns, r->start_ns);
    else return false;
    return true;
}

/* The distributed rank a REC_METADATA "rank" record names (a decimal integer from 0 to
 * 2^24 - 1): true and *rank set, else false. One reading for the driver and every analysis
 * that keys by rank. */
static inline bool record_rank(const record *r, int *rank) {
    if (r->type != REC_METADATA || !r->key || strcmp(r->key, "rank") || !r->value || !r->value_len ||
        r->value_len > 8)
        return false;
    long v = 0;
    for (size_t i = 0; i < r->value_len; i++) {
        if (r->value[i] < '0' || r->value[i] > '9') return false;
        v = v * 10 + (r->value[i] - '0');
    }
    if (v >= 1L << 24) return false;
    *rank = (int)v;
    return true;
}

/* Where a format sends its records. emit returns false when the consumer cannot take
 * more (out of memory, or a bounded consumer is full): the format then stops. fields: the
 * optional RF_* fields some consumer reads; a format may leave the others unparsed (a speed
 * promise only: a field it does send is always right). types: the record types the sink
 * takes, a bit (1u << type) each; 0 means every type except REC_TRACE_EVENT, which costs a
 * format work most consumers do not want. A format need not emit a type the sink omits. */
typedef struct record_sink {
    bool (*emit)(void *user, const record *r);
    void *user;
    unsigned fields;
    unsigned types;
} record_sink;

/* Whether sink s takes records of type t (see record_sink.types). */
static inline bool record_sink_wants(const record_sink *s, record_type t) {
    return s->types ? (s->types >> t & 1u) != 0 : t != REC_TRACE_EVENT;
}

static inline bool record_emit(const record_sink *s, const record *r) { return s->emit(s->user, r); }

#endif
