/* torch_memory: torch.profiler's `[memory]` instant events (profile_memory=True) as records,
 * for the torch profile's records state (parsers/formats/torch_trace_records.c, its only user).
 *
 * Each such event carries the caching allocator's state after one allocation or free:
 * args "Device Type" (0 the CPU; 1 CUDA, 6 HIP, other accelerators other values), "Device Id",
 * "Bytes", "Addr", "Total Allocated" and "Total Reserved" (bytes; torch >= 1.10). A device's
 * event with a Total Allocated becomes one REC_ALLOCATION of category "total" (record.h):
 * number = Total Allocated, bytes = Total Reserved when given, device = Device Id, start = ts.
 * The "Bytes" of the event is not sent as an allocation: the profiled window starts with
 * memory already allocated, so a running sum of them is not the device's use; the totals are.
 * CPU events and events without totals (2021 traces) give nothing. Static inline: no state. */
#ifndef GOBLIN_TORCH_MEMORY_H
#define GOBLIN_TORCH_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "parsers/formats/torch_keys.h"
#include "parsers/formats/torch_values.h"
#include "parsers/record.h"

/* The args of one event that a [memory] event's record needs (each behind its has_ flag). */
typedef struct torch_memory_args {
    bool has_id, has_type, has_allocated, has_reserved;
    int64_t id, type;
    uint64_t allocated, reserved;
} torch_memory_args;

/* Whether an event named name[0..n) is a [memory] event. */
static inline bool torch_is_memory_event(const char *name, size_t n) { return n == 8 && !memcmp(name, "[memory]", 8); }

/* One args value of key (an A_DEVICE_ID .. A_TOTAL_RESERVED id of torch_keys.h) into m. */
static inline void torch_memory_arg(torch_memory_args *m, int key, const jt_token *t) {
    int64_t v = 0;
    bool ok = torch_i64(t, &v);
    switch (key) {
    case A_DEVICE_ID: m->has_id = ok, m->id = v; break;
    case A_DEVICE_TYPE: m->has_type = ok, m->type = v; break;
    case A_TOTAL_ALLOCATED: m->has_allocated = ok && v >= 0, m->allocated = (uint64_t)v; break;
    case A_TOTAL_RESERVED: m->has_reserved = ok && v >= 0, m->reserved = (uint64_t)v; break;
    default: break;
    }
}

/* Fills r's allocation fields (type, category "total", device, number, bytes; the caller's
 * start and pid/tid stay) from a [memory] event's args: false when the event is the CPU's,
 * names no device or gives no Total Allocated (nothing to send). */
static inline bool torch_memory_record(const torch_memory_args *m, record *r) {
    if (!m->has_type || m->type == 0 || !m->has_id || m->id < 0 || !m->has_allocated) return false;
    r->type = REC_ALLOCATION;
    r->category = "total";
    r->category_len = 5;
    r->device = m->id;
    r->number = (double)m->allocated;
    r->bytes = m->has_reserved ? m->reserved : 0;
    r->has |= RF_DEVICE | RF_VALUE | (m->has_reserved ? RF_BYTES : 0u);
    return true;
}

#endif
