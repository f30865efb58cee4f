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

#include "base/i128.h"

typedef enum {
    REC_KERNEL_DISPATCH,     /* one GPU kernel launch */
    REC_MEMORY_COPY,         /* a host/device or device/device copy */
    REC_API_CALL,            /* a HIP/CUDA runtime call on the host */
    REC_ANNOTATION,          /* a user range: a profiler step, an NVTX/roctx range */
    REC_CPU_OP,              /* a host-side operator (aten::...) */
    REC_TELEMETRY_SAMPLE,    /* one sample of device telemetry (VRAM, utilisation) */
    REC_METADATA,            /* a key/value fact about the run (versions, step counts) */
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
    RF_VRAM = 1u << 7,
    RF_UTIL = 1u << 8,
};

typedef struct record {
    record_type type;
    unsigned has;            /* RF_* bits: a field whose bit is clear is unknown, not 0 */
    uint64_t line;           /* where it came from: CSV line, or byte offset for binary/JSON */
    int64_t device;          /* agent / GPU index */
    int64_t stream;          /* stream or queue id */
    i128 start_ns, end_ns;   /* on the profiler's clock */
    i128 duration_ns;        /* as the file gives it (may differ from end - start) */
    uint64_t correlation_id; /* links a dispatch to the API call that launched it */
    uint64_t bytes;          /* memory copies */
    const char *name;        /* kernel, API, annotation or operator name; NULL when none */
    size_t name_len;
    /* telemetry samples, already in the quantity's unit (GiB, percent) */
    double vram_gib, util_pct;
    /* metadata */
    const char *key, *value;
    size_t value_len;
} record;

/* Where a format sends its records. emit returns false when the consumer cannot take
 * more (out of memory): the format then stops and says so. fields: the optional RF_*
 * fields some consumer reads; a format may leave the others unparsed (a speed promise
 * only: a field it does send is always right). */
typedef struct record_sink {
    bool (*emit)(void *user, const record *r);
    void *user;
    unsigned fields;
} record_sink;

static inline bool record_emit(const record_sink *s, const record *r) { return s->emit(s->user, r); }

#endif
