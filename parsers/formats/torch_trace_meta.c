/* torch_trace_meta: the torch profile's document around its events list, for
 * torch_trace_records.c: the root-level keys (which value is read: traceEvents, metadata,
 * deviceProperties, distributedInfo, a tracer or runtime version), and REC_METADATA from
 * them: deviceProperties per device (name, memory, compute units, wave size, compute
 * capability, limits), the tracer/runtime/driver versions and the vendor they imply, the
 * goblin "metadata" dict's pytorch version and distributedInfo's rank and world size.
 * The events themselves (nearly all of a trace's tokens) stay on torch_trace_records.c's
 * short path. */
#include <stdio.h>
#include <string.h>

#include "parsers/formats/torch_trace_records_state.h"
#include "parsers/formats/torch_values.h"

/* deviceProperties members read, and the REC_METADATA key each becomes (per device). */
static const struct { const char *member; const char *key; } DEVICE_PROPS[] = {
    {"name", "device_name"}, {"totalGlobalMem", "memory_bytes"}, {"numSms", "compute_units"},
    {"warpSize", "wave_size"}, {"computeMajor", "compute_major"}, {"computeMinor", "compute_minor"},
    {"sharedMemPerBlock", "shared_memory_per_block"}, {"maxThreadsPerBlock", "max_threads_per_block"},
    {"regsPerBlock", "registers_per_block"}};
#define DEVICE_PROP_COUNT (sizeof DEVICE_PROPS / sizeof *DEVICE_PROPS)
_Static_assert(DEVICE_PROP_COUNT == TR_DEVICE_PROPS, "tr_state.dp_value: one buffer per DEVICE_PROPS entry");
enum { DP_COMPUTE_MAJOR = 4, DP_COMPUTE_MINOR = 5 };

static void emit_meta(tr_state *s, const char *key, const char *value, size_t len, bool dev, int64_t device,
                      uint64_t offset) {
    if (!len) return;
    record r = {0};
    r.type = REC_METADATA;
    r.line = offset;
    r.key = key;
    r.value = value;
    r.value_len = len;
    if (dev) { r.has |= RF_DEVICE; r.device = device; }
    tr_emit(s, &r);
}

/* Root-level scalar keys that are versions, and the metadata key each becomes. */
static const char *version_meta_key(const char *k, size_t n) {
    static const char *const MAP[][2] = {
        {"roctracer_version", "roctracer_version"}, {"cupti_version", "cupti_version"},
        {"cuda_runtime_version", "runtime_version"}, {"hip_runtime_version", "runtime_version"},
        {"cuda_driver_version", "driver_version"}, {"hip_driver_version", "driver_version"}};
    for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++)
        if (strlen(MAP[i][0]) == n && !memcmp(MAP[i][0], k, n)) return MAP[i][1];
    return NULL;
}

/* compute_capability "major.minor" when the device object gave both. */
static void emit_compute_capability(tr_state *s, uint64_t offset) {
    const strbuf *ma = &s->dp_value[DP_COMPUTE_MAJOR], *mi = &s->dp_value[DP_COMPUTE_MINOR];
    char cc[48];
    if (!ma->len || !mi->len || ma->len + mi->len + 2 > sizeof cc) return;
    int n = snprintf(cc, sizeof cc, "%.*s.%.*s", (int)ma->len, ma->data, (int)mi->len, mi->data);
    emit_meta(s, "compute_capability", cc, (size_t)n, true, s->dp_id, offset);
}

static void devprops_token(tr_state *s, const jt_token *t) {
    if (t->depth == 2) {
        if (t->kind == JT_OBJECT_BEGIN) {
            s->dp_has_id = false;
            for (size_t k = 0; k < DEVICE_PROP_COUNT; k++) s->dp_value[k].len = 0;
        } else if (t->kind == JT_OBJECT_END && s->dp_has_id) {
            for (size_t k = 0; k < DEVICE_PROP_COUNT; k++)
                emit_meta(s, DEVICE_PROPS[k].key, s->dp_value[k].data, s->dp_value[k].len, true, s->dp_id, t->offset);
            emit_compute_capability(s, t->offset);
        }
        return;
    }
    if (t->depth != 3) return;
    if (t->kind == JT_KEY) {
        s->dp_key = t->len == 2 && !memcmp(t->text, "id", 2) ? -1 : 0;
        for (size_t k = 0; k < DEVICE_PROP_COUNT && !s->dp_key; k++)
            if (t->len == strlen(DEVICE_PROPS[k].member) && !memcmp(t->text, DEVICE_PROPS[k].member, t->len))
                s->dp_key = (int)k + 1;
        return;
    }
    if (s->dp_key == -1) s->dp_has_id = torch_i64(t, &s->dp_id);
    else if (s->dp_key > 0) put_text(&s->dp_value[s->dp_key - 1], t);
    s->dp_key = 0;
}

/* The tokens of the root object's keys and of the start of their values (depth 1). */
bool torch_records_root_token(tr_state *s, const jt_token *t) {
    if (t->kind == JT_KEY) {
        const char *vk = version_meta_key(t->text, t->len);
        s->hot = s->list = false;
        s->top = t->len == 11 && !memcmp(t->text, "traceEvents", 11) ? T_EVENTS
               : t->len == 8 && !memcmp(t->text, "metadata", 8) ? T_METADATA
               : t->len == 16 && !memcmp(t->text, "deviceProperties", 16) ? T_DEVPROPS
               : t->len == 15 && !memcmp(t->text, "distributedInfo", 15) ? T_DIST : vk ? T_VERSION : T_OTHER;
        if (vk) snprintf(s->version_key, sizeof s->version_key, "%s", vk);
        return s->top != T_OTHER;
    }
    if (t->kind == JT_OBJECT_END || t->kind == JT_ARRAY_END) return true;
    if (s->top == T_EVENTS) s->list = s->events_is_list = t->kind == JT_ARRAY_BEGIN;
    if (s->top == T_VERSION && (t->kind == JT_STRING || t->kind == JT_NUMBER)) {
        emit_meta(s, s->version_key, t->text, t->len, false, 0, t->offset);
        if (!strcmp(s->version_key, "roctracer_version")) emit_meta(s, "vendor", "AMD", 3, false, 0, t->offset);
        if (!strcmp(s->version_key, "cupti_version")) emit_meta(s, "vendor", "NVIDIA", 6, false, 0, t->offset);
    }
    return true;
}

/* The tokens inside deviceProperties, metadata and distributedInfo (depth 2 and deeper). */
bool torch_records_doc_token(tr_state *s, const jt_token *t) {
    switch (s->top) {
    case T_DEVPROPS:
        devprops_token(s, t);
        return true;
    case T_DIST:
    case T_METADATA:
        if (t->depth != 2) return false;
        if (t->kind == JT_KEY) {
            s->meta_key = s->top == T_DIST ? (t->len == 4 && !memcmp(t->text, "rank", 4) ? 1
                                             : t->len == 10 && !memcmp(t->text, "world_size", 10) ? 2 : 0)
                                           : (t->len == 15 && !memcmp(t->text, "pytorch_version", 15)) ||
                                                     (t->len == 13 && !memcmp(t->text, "torch_version", 13)) ? 3 : 0;
            return s->meta_key != 0;
        }
        if (s->meta_key && (t->kind == JT_STRING || t->kind == JT_NUMBER))   /* (a list has no keys) */
            emit_meta(s, s->meta_key == 1 ? "rank" : s->meta_key == 2 ? "world_size" : "pytorch_version", t->text, t->len,
                      false, 0, t->offset);
        s->meta_key = 0;
        return true;
    default:
        return false;
    }
}
