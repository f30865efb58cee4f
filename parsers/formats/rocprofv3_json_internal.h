/* rocprofv3_json_internal: the state shared by rocprofv3_json.c (the document walk, tables,
 * buffer records) and rocprofv3_json_counters.c (counter collection). Not a public header. */
#ifndef GOBLIN_ROCPROFV3_JSON_INTERNAL_H
#define GOBLIN_ROCPROFV3_JSON_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/json_tokenizer.h"

#define CAPTURE_CAP (64u * 1024u)  /* longest kernel name kept whole */
#define KEY_CAP 48
#define MAX_DEPTH 12
#define TABLE_MAX (1u << 22)       /* symbols, agents, operation names per file */
/* Agents and counter definitions are looked up by a scan for every record naming one (real
 * files: tens of agents; every supported counter for every GPU agent, a few thousand on an
 * 8-GPU node), so their tables are bounded lower. */
#define LOOKUP_TABLE_MAX 4096
#define COUNTER_DEFS_MAX 65536
#define TABLE_BYTES_MAX (64u << 20) /* their names' text per file (a symbol table repeating one
                                     * kernel_id with 64 KiB names grew by each) */

typedef struct agent { uint64_t handle; int64_t node_id; bool has_node; } agent;
typedef struct symbol { uint64_t id; char *name; uint32_t vgpr, sgpr; bool has_regs; } symbol;
/* Symbols by id (rocprofv3_json_table.c): v[0..n_sorted) in id order, the rest a tail in file
 * order of at most ~sqrt(n), merged in when it grows past that. */
typedef struct rpj_table { symbol *v; size_t n, cap, n_sorted; } rpj_table;
typedef struct op_kind { char *name; char **ops; size_t n_ops; } op_kind;
typedef struct counter_sum { uint64_t handle; double sum; } counter_sum;
#define COUNTERS_PER_DISPATCH 1024

/* Which buffer record array an object belongs to. */
typedef enum { B_NONE, B_DISPATCH, B_COPY, B_HIP, B_HSA, B_RCCL, B_ALLOC, B_OTHER } buf_kind;

/* The fields of one buffer record (or agent, or symbol) being read. */
typedef struct pending {
    unsigned have;                    /* P_* bits */
    uint64_t kind, op, tid, corr, start, end, agent, queue, stream, kernel_id, dst, src, bytes, address;
    uint64_t lds, scratch, grid[3], wg[3];
    uint64_t type, node_id, cu, wave, mem, heap, vgpr, sgpr;
    bool mem_bank_fb;
    strbuf name, pname, vendor, arch, fname, dname;
    uint64_t offset;
} pending;
enum {
    P_KIND = 1u << 0, P_OP = 1u << 1, P_TID = 1u << 2, P_CORR = 1u << 3, P_START = 1u << 4, P_END = 1u << 5,
    P_AGENT = 1u << 6, P_QUEUE = 1u << 7, P_STREAM = 1u << 8, P_KID = 1u << 9, P_DST = 1u << 10,
    P_SRC = 1u << 11, P_BYTES = 1u << 12, P_LDS = 1u << 13, P_SCRATCH = 1u << 14, P_GRID = 1u << 15,
    P_WG = 1u << 16, P_TYPE = 1u << 17, P_NODE = 1u << 18, P_CU = 1u << 19, P_WAVE = 1u << 20, P_MEM = 1u << 21,
    P_VGPR = 1u << 22, P_SGPR = 1u << 23, P_ADDRESS = 1u << 24,
};

typedef struct state {
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    jt_tokenizer json;
    char key[MAX_DEPTH + 1][KEY_CAP];
    bool saw_tool, oom, stopped;
    buf_kind buf;
    pending p;
    agent *agents;
    size_t n_agents, cap_agents;
    rpj_table syms;          /* kernel_symbols[]: kernel_id -> name, registers */
    op_kind *kinds;
    size_t n_kinds, cap_kinds;
    uint64_t used, unknown_symbol, bad_times, unsupported, truncated_names, table_full;
    size_t table_bytes;      /* the tables' names so far (TABLE_BYTES_MAX) */
    uint64_t first_bad_times;
    rpj_table counters;          /* counters[]: id.handle -> name (symbol.id = handle) */
    counter_sum cc[COUNTERS_PER_DISPATCH];   /* one counter_collection entry's sums */
    size_t n_cc;
    uint64_t cc_handle, dispatch_id, counters_dropped, counter_unknown;
    double cc_value;
    bool cc_has_handle, cc_has_value, has_dispatch_id;
} state;

static inline bool key_is(const state *s, unsigned d, const char *k) { return d <= MAX_DEPTH && !strcmp(s->key[d], k); }

/* An unsigned integer token (no sign, fraction or exponent), overflow-checked. */
static inline bool tok_u64(const jt_token *t, uint64_t *v) {
    if (t->kind != JT_NUMBER || t->is_float || t->truncated || !t->len || t->text[0] == '-') return false;
    uint64_t r = 0;
    for (size_t i = 0; i < t->len; i++) {
        unsigned d = (unsigned)(t->text[i] - '0');
        if (d > 9 || r > (UINT64_MAX - d) / 10) return false;
        r = r * 10 + d;
    }
    *v = r;
    return true;
}

/* The pending object's fields are reset (buffers kept) for an object starting at `offset`. */
void rpj_pending_reset(pending *p, uint64_t offset);
/* A table's name: a copy of t[0..n) counted against the file's TABLE_BYTES_MAX; NULL past it
 * (table_full counts it) or out of memory (oom set). */
char *rpj_table_text(state *s, const char *t, size_t n);
/* Grows an array of `size`-byte items to hold one more. false: out of memory or too many. */
bool rpj_grow(void **arr, size_t *cap, size_t n, size_t size);
/* The kernel symbol of an id, NULL when unknown. */
const symbol *rpj_symbol_of(state *s, uint64_t id);
/* The first entry of id in t (file order), NULL when none; *oom set when a merge of the tail
 * found no memory (the entry is still found, by a longer scan). */
const symbol *rpj_table_find(rpj_table *t, uint64_t id, bool *oom);
/* Appends sym to t (its name is t's from then on); false past max entries or out of memory. */
bool rpj_table_push(rpj_table *t, symbol sym, size_t max);
/* Frees t's names and entries; t is empty after. */
void rpj_table_free(rpj_table *t);
/* The absolute index (node_id) of an agent handle. */
bool rpj_agent_index(const state *s, uint64_t handle, int64_t *out);
/* Sends a record (counts it; remembers an OOM). */
void rpj_emit(state *s, const record *r);
/* A scalar of the pending object at key path `path` (see rocprofv3_json.c). */
void rpj_pending_value(state *s, const char *path, const jt_token *t, unsigned depth_in);
/* The keys at depths from..to joined with '.'. */
void rpj_key_path(const state *s, unsigned from, unsigned to, char *out, size_t cap);
/* A token inside callback_records.counter_collection[] (rocprofv3_json_counters.c). */
void rpj_counter_token(state *s, const jt_token *t);
/* A counters[] element closed: id.handle -> name. */
void rpj_counter_def_end(state *s);

#endif
