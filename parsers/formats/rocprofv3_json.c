/* rocprofv3_json: rocprofv3's JSON output (`--output-format json`, <host>/<pid>_results.json,
 * also gzipped) -> records, streamed over the SAX tokenizer (never a DOM).
 *
 * The document is {"rocprofiler-sdk-tool": [ {metadata, agents, counters, strings,
 * code_objects, kernel_symbols, host_functions, summary, callback_records,
 * buffer_records}, ... ]}: one element per profiled process. rocprofiler-sdk's JSON writer
 * (lib/output/generateJSON) writes the tables (agents, strings, kernel_symbols) before the
 * records, and every real file seen does so, so the small tables are kept (agents,
 * operation names, kernel id -> name) and each buffer record is emitted as soon as its
 * object closes; nothing else is buffered. A dispatch whose kernel id is not (yet) in the
 * symbol table is emitted with name NULL and counted ("kernel symbol unknown").
 *
 *   agents[] (GPU, type 2)      -> REC_METADATA per agent (RF_DEVICE = node_id, the absolute
 *                                  agent index rocprofv3's CSV calls Agent_Id): vendor
 *                                  (vendor_name), device_name (product_name), arch (name,
 *                                  e.g. gfx950), compute_units (cu_count), wave_size
 *                                  (wave_front_size), memory_bytes (sum of mem_banks[]
 *                                  size_in_bytes of frame-buffer heaps, heap_type 1 or 2)
 *   metadata.node.hostname      -> REC_METADATA hostname
 *   buffer_records.kernel_dispatch -> REC_KERNEL_DISPATCH (name from kernel_symbols:
 *                                  formatted_kernel_name, else demangled, else kernel_name;
 *                                  agent, queue, correlation id internal, grid, workgroup,
 *                                  LDS = group_segment_size, scratch = private_segment_size)
 *   buffer_records.memory_copy  -> REC_MEMORY_COPY (direction from the operation name,
 *                                  bytes, device = destination agent, peer = source agent)
 *   buffer_records.hip_api / hsa_api / rccl_api -> REC_API_CALL (name = operation name)
 *   buffer_records.memory_allocation -> REC_ALLOCATION (category "alloc"/"free", bytes; a
 *                                  free's size 0 is unknown; address, hex text or a handle)
 *   callback_records.counter_collection -> REC_COUNTER per (dispatch, counter): name from
 *                                  counters[] by id, number = the sum of the dispatch's
 *                                  records of that counter (its dimension instances, as
 *                                  rocprofv3's CSV sums them), the dispatch's times, agent
 *                                  and correlation id; fields "kernel" (symbol name) and
 *                                  "dispatch_id"
 *   buffer_records.scratch_memory, marker_api, others -> counted as skipped.
 * Times are the file's integer nanoseconds. A record's line is the byte offset of its '{'. */
#include <errno.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/copy_kind.h"
#include "parsers/tokenizers/json_tokenizer.h"

#include "parsers/formats/rocprofv3_json_internal.h"

void rpj_pending_reset(pending *p, uint64_t offset) {
    strbuf keep[6] = {p->name, p->pname, p->vendor, p->arch, p->fname, p->dname};
    memset(p, 0, sizeof *p);
    p->name = keep[0], p->pname = keep[1], p->vendor = keep[2], p->arch = keep[3], p->fname = keep[4];
    p->dname = keep[5];
    p->name.len = p->pname.len = p->vendor.len = p->arch.len = p->fname.len = p->dname.len = 0;
    p->offset = offset;
}

char *rpj_table_text(state *s, const char *t, size_t n) {
    if (s->table_bytes + n + 1 > TABLE_BYTES_MAX) {
        s->table_full++;
        return NULL;
    }
    char *c = malloc(n + 1);
    if (!c) {
        s->oom = true;
        return NULL;
    }
    memcpy(c, t, n), c[n] = 0;
    s->table_bytes += n + 1;
    return c;
}

/* A pending record's text field takes the token's text: a key given twice in one object keeps
 * its last value (as a JSON object read into a dict), not both one after the other. */
static void set_text(strbuf *b, const jt_token *t) {
    b->len = 0;
    strbuf_append(b, t->text, t->len);
}

/* Grows an array of `size`-byte items to hold one more. false: out of memory or too many. */
bool rpj_grow(void **arr, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return true;
    if (n >= TABLE_MAX) return false;
    size_t nc = *cap ? *cap * 2 : 64;
    void *a = realloc(*arr, nc * size);
    if (!a) return false;
    *arr = a;
    *cap = nc;
    return true;
}

const symbol *rpj_symbol_of(state *s, uint64_t id) { return rpj_table_find(&s->syms, id, &s->oom); }

bool rpj_agent_index(const state *s, uint64_t handle, int64_t *out) {
    for (size_t i = 0; i < s->n_agents; i++)
        if (s->agents[i].handle == handle && s->agents[i].has_node) { *out = s->agents[i].node_id; return true; }
    return false;
}

static const char *op_name(const state *s, uint64_t kind, uint64_t op) {
    if (kind >= s->n_kinds || op >= s->kinds[kind].n_ops) return NULL;
    return s->kinds[kind].ops[op];
}

static void tables_free(state *s) {
    for (size_t i = 0; i < s->n_kinds; i++) {
        for (size_t j = 0; j < s->kinds[i].n_ops; j++) free(s->kinds[i].ops[j]);
        free(s->kinds[i].ops);
        free(s->kinds[i].name);
    }
    free(s->kinds);
    free(s->agents);
    rpj_table_free(&s->syms);
    rpj_table_free(&s->counters);
    s->kinds = NULL, s->agents = NULL;
    s->n_kinds = s->cap_kinds = s->n_agents = s->cap_agents = 0;
}

void rpj_emit(state *s, const record *r) {
    if (!s->oom && !record_emit(&s->sink, r)) s->oom = true;
    else s->used++;
}

static void emit_meta(state *s, int64_t device, bool has_device, const char *key, const char *v, size_t n,
                      uint64_t offset) {
    if (!n) return;
    record r = {.type = REC_METADATA, .line = offset, .key = key, .value = v, .value_len = n};
    if (has_device) r.has |= RF_DEVICE, r.device = device;
    rpj_emit(s, &r);
}

static void emit_meta_u64(state *s, int64_t device, const char *key, uint64_t v, uint64_t offset) {
    char t[24];
    int n = snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    emit_meta(s, device, true, key, t, (size_t)n, offset);
}

/* An agents[] object closed: remember handle -> node id; a GPU's facts become metadata. */
static void agent_end(state *s) {
    pending *p = &s->p;
    if (!(p->have & P_AGENT)) return;
    if (s->n_agents >= LOOKUP_TABLE_MAX ||
        !rpj_grow((void **)&s->agents, &s->cap_agents, s->n_agents, sizeof *s->agents)) { s->table_full++; return; }
    s->agents[s->n_agents++] = (agent){p->agent, (int64_t)p->node_id, (p->have & P_NODE) && p->node_id < INT64_MAX};
    if (!(p->have & P_NODE) || !(p->have & P_TYPE) || p->type != 2) return;
    int64_t d = (int64_t)p->node_id;
    emit_meta(s, d, true, "vendor", p->vendor.data, p->vendor.len, p->offset);
    emit_meta(s, d, true, "device_name", p->pname.data, p->pname.len, p->offset);
    emit_meta(s, d, true, "arch", p->arch.data, p->arch.len, p->offset);
    if (p->have & P_CU) emit_meta_u64(s, d, "compute_units", p->cu, p->offset);
    if ((p->have & P_WAVE) && p->wave) emit_meta_u64(s, d, "wave_size", p->wave, p->offset);
    if ((p->have & P_MEM) && p->mem) emit_meta_u64(s, d, "memory_bytes", p->mem, p->offset);
}

static void symbol_end(state *s) {
    pending *p = &s->p;
    const strbuf *n = p->fname.len ? &p->fname : p->dname.len ? &p->dname : &p->name;
    if (!(p->have & P_KID) || !n->len) return;
    if (s->syms.n >= TABLE_MAX) { s->table_full++; return; }
    char *c = rpj_table_text(s, n->data, n->len);
    if (!c) return;
    bool regs = (p->have & (P_VGPR | P_SGPR)) == (P_VGPR | P_SGPR) && p->vgpr <= UINT32_MAX && p->sgpr <= UINT32_MAX;
    if (!rpj_table_push(&s->syms, (symbol){p->kernel_id, c, (uint32_t)p->vgpr, (uint32_t)p->sgpr, regs}, TABLE_MAX)) {
        free(c);
        s->oom = true;
    }
}

/* The operation name's direction, else the operation code's. */
static copy_kind copy_of(const char *op, uint64_t code) {
    if (op) return copy_kind_of_name(op, strlen(op));
    /* rocprofiler_memory_copy_operation_t: NONE, HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE */
    static const copy_kind CODES[] = {COPY_UNKNOWN, COPY_HTOH, COPY_HTOD, COPY_DTOH, COPY_DTOD};
    return code < 5 ? CODES[code] : COPY_UNKNOWN;
}

/* A buffer_records element closed: one record. */
static void buffer_end(state *s) {
    pending *p = &s->p;
    if (s->buf == B_OTHER) { s->unsupported++; return; }
    bool times = (p->have & P_START) && (p->have & P_END) && p->end >= p->start;
    if (!times) {
        if (!s->bad_times++) s->first_bad_times = p->offset;
        return;
    }
    record r = {.line = p->offset, .has = RF_START | RF_END | RF_DURATION, .start_ns = (i128)p->start,
                .end_ns = (i128)p->end, .duration_ns = (i128)p->end - (i128)p->start};
    if (p->have & P_CORR) r.has |= RF_CORRELATION, r.correlation_id = p->corr;
    if (p->have & P_TID) r.has |= RF_PID_TID, r.tid = (int64_t)p->tid, r.pid = 0;
    int64_t dev;
    const char *op = (p->have & (P_KIND | P_OP)) == (P_KIND | P_OP) ? op_name(s, p->kind, p->op) : NULL;
    switch (s->buf) {
    case B_DISPATCH: {
        r.type = REC_KERNEL_DISPATCH;
        r.has &= ~(unsigned)RF_PID_TID;      /* a thread id without the pid: not a pid/tid pair */
        if ((p->have & P_AGENT) && rpj_agent_index(s, p->agent, &dev)) r.has |= RF_DEVICE, r.device = dev;
        if (p->have & P_QUEUE) r.has |= RF_STREAM, r.stream = (int64_t)p->queue;
        if ((p->have & (P_GRID | P_WG)) == (P_GRID | P_WG)) {
            r.has |= RF_GRID;
            for (int i = 0; i < 3; i++) r.grid[i] = (uint32_t)p->grid[i], r.workgroup[i] = (uint32_t)p->wg[i];
        }
        const symbol *k = (p->have & P_KID) ? rpj_symbol_of(s, p->kernel_id) : NULL;
        /* RF_RESOURCES only when all four are known: registers come from the symbol */
        if (k && k->has_regs && (p->have & (P_LDS | P_SCRATCH)) == (P_LDS | P_SCRATCH) && p->lds <= UINT32_MAX &&
            p->scratch <= UINT32_MAX) {
            r.has |= RF_RESOURCES;
            r.lds_bytes = (uint32_t)p->lds, r.scratch_bytes = (uint32_t)p->scratch;
            r.vgpr = k->vgpr, r.sgpr = k->sgpr;
        }
        if (k) r.name = k->name, r.name_len = strlen(k->name);
        else s->unknown_symbol++;
        break;
    }
    case B_COPY:
        r.type = REC_MEMORY_COPY;
        r.has &= ~(unsigned)RF_PID_TID;
        r.copy = copy_of(op, (p->have & P_OP) ? p->op : 0);
        if ((p->have & P_DST) && rpj_agent_index(s, p->dst, &dev)) r.has |= RF_DEVICE, r.device = dev;
        if ((p->have & P_SRC) && rpj_agent_index(s, p->src, &dev)) r.has |= RF_PEER, r.peer_device = dev;
        if (p->have & P_BYTES) r.has |= RF_BYTES, r.bytes = p->bytes;
        if (op) r.name = op, r.name_len = strlen(op);
        break;
    case B_ALLOC:
        r.type = REC_ALLOCATION;
        r.has &= ~(unsigned)RF_PID_TID;
        if ((p->have & P_AGENT) && rpj_agent_index(s, p->agent, &dev)) r.has |= RF_DEVICE, r.device = dev;
        if (op && strstr(op, "FREE")) r.category = "free", r.category_len = 4;
        else if (op && strstr(op, "ALLOC")) r.category = "alloc", r.category_len = 5;
        /* a free's allocation_size is 0 (unknown to the tracer): left out, never a real 0 */
        if ((p->have & P_BYTES) && !(r.category && r.category[0] == 'f' && !p->bytes))
            r.has |= RF_BYTES, r.bytes = p->bytes;
        if (p->have & P_ADDRESS) r.has |= RF_ADDRESS, r.address = p->address;
        if (op) r.name = op, r.name_len = strlen(op);
        break;
    default:
        r.type = REC_API_CALL;
        r.has &= ~(unsigned)RF_PID_TID;
        r.domain = s->buf == B_HIP ? API_HIP : s->buf == B_HSA ? API_HSA : API_OTHER;
        if (op) r.name = op, r.name_len = strlen(op);
        break;
    }
    rpj_emit(s, &r);
}

/* A scalar inside a buffer record, agent or symbol: `path` is its key path from the element. */
void rpj_pending_value(state *s, const char *path, const jt_token *t, unsigned depth_in) {
    pending *p = &s->p;
    uint64_t v = 0;
    bool num = tok_u64(t, &v);
    bool str = t->kind == JT_STRING;
    (void)depth_in;
    if (str && t->truncated) s->truncated_names++;
#define U(k, field, bit) else if (num && !strcmp(path, k)) p->field = v, p->have |= bit;
    if (0) {}
    U("kind", kind, P_KIND)
    U("operation", op, P_OP)
    U("thread_id", tid, P_TID)
    U("correlation_id.internal", corr, P_CORR)
    U("start_timestamp", start, P_START)
    U("end_timestamp", end, P_END)
    U("dispatch_info.agent_id.handle", agent, P_AGENT)
    U("agent_id.handle", agent, P_AGENT)
    U("id.handle", agent, P_AGENT)
    U("dispatch_info.queue_id.handle", queue, P_QUEUE)
    U("dispatch_info.kernel_id", kernel_id, P_KID)
    U("kernel_id", kernel_id, P_KID)
    U("dst_agent_id.handle", dst, P_DST)
    U("src_agent_id.handle", src, P_SRC)
    U("bytes", bytes, P_BYTES)
    U("allocation_size", bytes, P_BYTES)
    U("address.handle", address, P_ADDRESS)
    U("address", address, P_ADDRESS)
    U("dispatch_info.group_segment_size", lds, P_LDS)
    U("dispatch_info.private_segment_size", scratch, P_SCRATCH)
    U("type", type, P_TYPE)
    U("node_id", node_id, P_NODE)
    U("cu_count", cu, P_CU)
    U("wave_front_size", wave, P_WAVE)
    U("arch_vgpr_count", vgpr, P_VGPR)
    U("sgpr_count", sgpr, P_SGPR)
    else if (num && !strcmp(path, "mem_banks.heap_type")) p->mem_bank_fb = v == 1 || v == 2;
    else if (num && !strcmp(path, "mem_banks.size_in_bytes")) {
        if (p->mem_bank_fb) p->mem += v, p->have |= P_MEM;
    } else if (num && !strncmp(path, "dispatch_info.grid_size.", 24) && path[24] >= 'x' && path[24] <= 'z' && !path[25]) {
        p->grid[path[24] - 'x'] = v;
        if (path[24] == 'z') p->have |= P_GRID;
    } else if (num && !strncmp(path, "dispatch_info.workgroup_size.", 29) && path[29] >= 'x' && path[29] <= 'z' &&
               !path[30]) {
        p->wg[path[29] - 'x'] = v;
        if (path[29] == 'z') p->have |= P_WG;
    } else if (str && !strcmp(path, "address")) {
        /* rocprofiler-sdk writes an allocation's address as hex text ("0x00007f...") */
        char buf[48], *end;
        if (t->len && t->len < sizeof buf && !t->truncated && t->text[0] != '-' && t->text[0] != '+') {
            memcpy(buf, t->text, t->len);
            buf[t->len] = 0;
            errno = 0;
            unsigned long long a = strtoull(buf, &end, 0);
            if (end != buf && !*end && !errno) p->address = a, p->have |= P_ADDRESS;
        }
    } else if (str && !strcmp(path, "name")) set_text(&p->arch, t), set_text(&p->name, t);
    else if (str && !strcmp(path, "product_name")) set_text(&p->pname, t);
    else if (str && !strcmp(path, "vendor_name")) set_text(&p->vendor, t);
    else if (str && !strcmp(path, "kernel_name")) set_text(&p->name, t);
    else if (str && !strcmp(path, "formatted_kernel_name")) set_text(&p->fname, t);
    else if (str && !strcmp(path, "demangled_kernel_name")) set_text(&p->dname, t);
#undef U
}

static buf_kind buf_kind_of(const char *k) {
    if (!strcmp(k, "kernel_dispatch")) return B_DISPATCH;
    if (!strcmp(k, "memory_copy")) return B_COPY;
    if (!strcmp(k, "hip_api")) return B_HIP;
    if (!strcmp(k, "hsa_api")) return B_HSA;
    if (!strcmp(k, "rccl_api")) return B_RCCL;
    if (!strcmp(k, "memory_allocation")) return B_ALLOC;
    return B_OTHER;
}

/* The key path from depth `from` to `to` (inclusive) joined with '.', into out. */
void rpj_key_path(const state *s, unsigned from, unsigned to, char *out, size_t cap) {
    size_t n = 0;
    out[0] = 0;
    for (unsigned d = from; d <= to && d <= MAX_DEPTH; d++) {
        int w = snprintf(out + n, cap - n, "%s%s", n ? "." : "", s->key[d]);
        if (w < 0 || (size_t)w >= cap - n) { out[0] = 0; return; }
        n += (size_t)w;
    }
}

/* strings.buffer_records[i] = {kind, operations[]}: the operation names of kind index i. */
static void strings_token(state *s, const jt_token *t) {
    unsigned d = t->depth;
    if (t->kind == JT_OBJECT_BEGIN && d == 5) {
        if (!rpj_grow((void **)&s->kinds, &s->cap_kinds, s->n_kinds, sizeof *s->kinds)) { s->table_full++; return; }
        s->kinds[s->n_kinds++] = (op_kind){0};
        return;
    }
    if (!s->n_kinds) return;
    op_kind *k = &s->kinds[s->n_kinds - 1];
    if (t->kind == JT_STRING && d == 6 && key_is(s, 6, "kind") && !k->name) k->name = rpj_table_text(s, t->text, t->len);
    else if (t->kind == JT_STRING && d == 7 && key_is(s, 6, "operations")) {
        size_t cap = k->n_ops;   /* grow by powers of two: capacity is implied by n_ops */
        if (!(cap & (cap - 1)) || !cap) {
            if (cap >= TABLE_MAX) { s->table_full++; return; }
            char **o = realloc(k->ops, (cap ? cap * 2 : 8) * sizeof *o);
            if (!o) { s->oom = true; return; }
            k->ops = o;
        }
        char *c = rpj_table_text(s, t->text, t->len);
        if (!c) return;
        k->ops[k->n_ops++] = c;
    }
}

static bool on_token(void *user, const jt_token *t) {
    state *s = user;
    unsigned d = t->depth;
    if (t->kind == JT_KEY) {
        if (d <= MAX_DEPTH) {
            size_t n = t->len < KEY_CAP - 1 ? t->len : KEY_CAP - 1;
            memcpy(s->key[d], t->text, n);
            s->key[d][n] = 0;
        }
        if (d == 1) {
            bool tool = key_is(s, 1, "rocprofiler-sdk-tool");
            s->saw_tool |= tool;
            return tool;
        }
        if (d == 3)
            return key_is(s, 3, "metadata") || key_is(s, 3, "agents") || key_is(s, 3, "strings") ||
                   key_is(s, 3, "kernel_symbols") || key_is(s, 3, "buffer_records") || key_is(s, 3, "counters") ||
                   key_is(s, 3, "callback_records");
        if (d == 4 && key_is(s, 3, "callback_records")) return key_is(s, 4, "counter_collection");
        if (d == 4 && key_is(s, 3, "strings")) return key_is(s, 4, "buffer_records");
        if (d == 4 && key_is(s, 3, "metadata")) return key_is(s, 4, "node");
        if (d == 5 && key_is(s, 3, "agents"))
            return !key_is(s, 5, "caches") && !key_is(s, 5, "capability") && !key_is(s, 5, "uuid");
        return true;
    }
    if (d < 2 || !key_is(s, 1, "rocprofiler-sdk-tool")) return true;
    if (d == 2 && t->kind == JT_OBJECT_BEGIN) { tables_free(s); return true; }   /* one process's tables */
    if (d < 3) return true;
    bool open = t->kind == JT_OBJECT_BEGIN || t->kind == JT_ARRAY_BEGIN;
    bool close = t->kind == JT_OBJECT_END || t->kind == JT_ARRAY_END;
    char path[4 * KEY_CAP];
    if (key_is(s, 3, "metadata")) {
        if (d == 5 && key_is(s, 4, "node") && key_is(s, 5, "hostname") && t->kind == JT_STRING)
            emit_meta(s, 0, false, "hostname", t->text, t->len, t->offset);
    } else if (key_is(s, 3, "strings")) {
        if (d >= 5 && key_is(s, 4, "buffer_records")) strings_token(s, t);
    } else if (key_is(s, 3, "callback_records")) {
        if (d >= 5 && key_is(s, 4, "counter_collection")) rpj_counter_token(s, t);
    } else if (key_is(s, 3, "agents") || key_is(s, 3, "kernel_symbols") || key_is(s, 3, "counters")) {
        bool agents = key_is(s, 3, "agents");
        if (d == 4 && t->kind == JT_OBJECT_BEGIN) rpj_pending_reset(&s->p, t->offset);
        else if (d == 4 && t->kind == JT_OBJECT_END)
            agents ? agent_end(s) : key_is(s, 3, "counters") ? rpj_counter_def_end(s) : symbol_end(s);
        else if (d >= 5 && !open && !close) {
            rpj_key_path(s, 5, d, path, sizeof path);
            if (agents && d == 7 && key_is(s, 5, "mem_banks")) snprintf(path, sizeof path, "mem_banks.%s", s->key[7]);
            rpj_pending_value(s, path, t, d);
        }
    } else if (key_is(s, 3, "buffer_records")) {
        if (d == 5 && t->kind == JT_OBJECT_BEGIN) { s->buf = buf_kind_of(s->key[4]); rpj_pending_reset(&s->p, t->offset); }
        else if (d == 5 && t->kind == JT_OBJECT_END) { buffer_end(s); s->buf = B_NONE; }
        else if (d >= 6 && !open && !close && s->buf != B_OTHER && s->buf != B_NONE) {
            rpj_key_path(s, 6, d, path, sizeof path);
            rpj_pending_value(s, path, t, d);
        }
    }
    return true;
}

static void *rj_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    if (!jt_init(&s->json, MAX_DEPTH, CAPTURE_CAP, on_token, s)) { jt_free(&s->json); free(s); return NULL; }
    read_facts_column(facts, "kernel name", "kernel_symbols[].formatted_kernel_name");
    read_facts_column(facts, "start", "start_timestamp");
    read_facts_column(facts, "end", "end_timestamp");
    return s;
}

static bool rj_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    if (s->stopped) return false;
    if (!jt_feed(&s->json, buf, n) || s->oom) s->stopped = true;
    return !s->stopped;
}

static void rj_finish(void *st) {
    state *s = st;
    bool ok = !s->oom && jt_finish(&s->json);
    if (s->oom) diag_oom(s->diag, "%s: out of memory; records are partial", s->label);
    else if (!ok) {
        diag_add(s->diag, "%s: byte %llu: invalid JSON: %s", s->label, (unsigned long long)jt_error_offset(&s->json),
                 jt_error(&s->json));
        s->facts->truncated = true;
    }
    if (!s->saw_tool)
        diag_add(s->diag, "%s: not a rocprofv3 JSON file (no \"rocprofiler-sdk-tool\" array)", s->label);
    if (s->bad_times)
        diag_add(s->diag, "%s: %llu records without start_timestamp <= end_timestamp ignored (first at byte %llu)",
                 s->label, (unsigned long long)s->bad_times, (unsigned long long)s->first_bad_times);
    if (s->unknown_symbol)
        diag_add(s->diag, "%s: %llu kernel dispatches whose kernel_id is not in kernel_symbols have no name",
                 s->label, (unsigned long long)s->unknown_symbol);
    if (s->table_full)
        diag_add(s->diag, "%s: %llu table entries dropped (more than %u agents, %u counter definitions, %u symbols "
                 "or operation names, or %u MiB of their names)", s->label, (unsigned long long)s->table_full,
                 LOOKUP_TABLE_MAX, COUNTER_DEFS_MAX, TABLE_MAX, TABLE_BYTES_MAX >> 20);
    s->facts->rows_used = s->used;
    read_facts_skip(s->facts, "start or end missing, or end < start", s->bad_times);
    read_facts_skip(s->facts, "kernel symbol unknown (emitted without name)", s->unknown_symbol);
    read_facts_skip(s->facts, "record kind not read (scratch, marker, ...)", s->unsupported);
    read_facts_skip(s->facts, "kernel name longer than 64 KiB (cut)", s->truncated_names);
    read_facts_skip(s->facts, "counter id not in counters[]", s->counter_unknown);
    read_facts_skip(s->facts, "more than 1024 counters in one dispatch", s->counters_dropped);
}

static void rj_close(void *st) {
    state *s = st;
    if (!s) return;
    jt_free(&s->json);
    tables_free(s);
    pending *p = &s->p;
    strbuf_free(&p->name), strbuf_free(&p->pname), strbuf_free(&p->vendor), strbuf_free(&p->arch);
    strbuf_free(&p->fname), strbuf_free(&p->dname);
    free(s);
}

static const char *const RJ_NAMES[] = {"*_results.json", "*_results.json.gz", "*/*_results.json",
                                       "*/*_results.json.gz", NULL};

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !memcmp(s + a - b, suffix, b);
}

/* rocprofv3 writes {"rocprofiler-sdk-tool":[...]} first; a gzipped file whose inflated
 * bytes are not at hand (none, or the raw gzip bytes) is known by name only. */
static int rj_sniff(const char *name, const uint8_t *head, size_t n) {
    static const char TOOL[] = "\"rocprofiler-sdk-tool\"";
    for (size_t i = 0; i + sizeof TOOL - 1 <= n && i < 64; i++)
        if (!memcmp(head + i, TOOL, sizeof TOOL - 1)) return 100;
    bool gz = !n || (n >= 2 && head[0] == 0x1f && head[1] == 0x8b);   /* (the raw bytes of a .gz) */
    if (gz && ends_with(name, "_results.json.gz")) return 85;
    if (ends_with(name, "_results.json")) return 40;
    return 0;
}

const artefact_parser rocprofv3_json_parser = {
    .name = "rocprofv3-json",
    .family = "rocprofv3",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .kernels = KERNELS_DEVICE_CLOCK,
    .names = RJ_NAMES,
    .sniff = rj_sniff,
    .open_records = rj_open,
    .feed = rj_feed,
    .finish = rj_finish,
    .close = rj_close,
};
