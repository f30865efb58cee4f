/* torch_trace_records_state: the state of torch_trace_records.c (the torch profile as typed
 * records), shared with torch_trace_meta.c, which reads the document around the events list
 * (root keys, versions, deviceProperties, metadata, distributedInfo). Private to those two
 * files: nothing else includes it. */
#ifndef GOBLIN_TORCH_TRACE_RECORDS_STATE_H
#define GOBLIN_TORCH_TRACE_RECORDS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/i128.h"
#include "base/strbuf.h"
#include "parsers/artefact.h"
#include "parsers/formats/torch_keys.h"
#include "parsers/formats/torch_memory.h"
#include "parsers/tokenizers/json_tokenizer.h"

/* deviceProperties members read (DEVICE_PROPS in torch_trace_meta.c, which checks the count). */
#define TR_DEVICE_PROPS 9

#define TR_CAPTURE_CAP (64u * 1024u)
#define TR_EMIT_DEPTH 12
#define TR_ARGS_MAX (16u * 1024u)    /* longest args text kept for one operator */

/* Which root-level key's value is being read. */
enum { T_OTHER, T_EVENTS, T_METADATA, T_DEVPROPS, T_DIST, T_VERSION };

/* ts or dur of the event being read. */
typedef struct tr_num {
    bool has;
    i128 ns;                 /* fixed point from the text */
    double us;               /* the file's double */
} tr_num;

/* One reading of a trace (calloc'd: every field starts at 0). */
typedef struct tr_state {
    unsigned magic;          /* TORCH_RECORDS_MAGIC: tells torch_trace_json.c's feed which state it has */
    jt_tokenizer json;
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const char *label;
    bool stopped;            /* the sink refused a record (out of memory) */
    bool hot;                /* inside an event of the events list, not stopped: on_token's short path */
    bool list;               /* in the events list (a list), not stopped: the same for its events' bounds */
    int root, top;
    char version_key[32];    /* a root-level version key being read (T_VERSION) */
    /* the event being read */
    bool events_is_list, in_event;
    int ev_key, arg_key, cat;
    unsigned arg_depth;      /* container depth inside a captured args value */
    uint64_t ev_offset;
    strbuf name, catname, args, kind;
    const char *cat_text;    /* the event's category: a known name's literal, or catname's bytes */
    size_t cat_len;          /* (0: no category) */
    tr_num ts, dur;
    char ph;
    bool has_pid, has_tid, has_device, has_stream, has_corr, has_ext, has_bytes, has_grid, has_block;
    int64_t pid, tid, device, stream;
    uint64_t corr, ext, bytes;
    uint32_t grid[3], block[3];
    unsigned grid_n, block_n;
    torch_memory_args mem;   /* a [memory] event's allocator totals */
    bool args_comma;         /* a member was written to args */
    bool args_need_comma[TR_EMIT_DEPTH + 2];
    /* deviceProperties: the device object being read */
    int dp_key;              /* 0: not wanted, -1: id, else 1 + index in DEVICE_PROPS */
    bool dp_has_id;
    int64_t dp_id;
    strbuf dp_value[TR_DEVICE_PROPS];
    record rec;              /* the record event_end fills (see there) */
    int dist_key;
    int meta_key;
    /* facts */
    uint64_t emitted, untimed, other_cat;
    /* the second piece of a split read: started at start_offset, inside "traceEvents" */
    bool resumed;
    uint64_t start_offset;
    /* the document's shape: known once its first non-blank byte is seen; a bare array of
     * events (2020 Kineto, torch_npu's trace_view.json) is read as the "traceEvents" list */
    bool shape_known, bare_array;
    uint64_t fed;            /* bytes fed before the shape was known */
} tr_state;

/* Hands r to the sink; a refusal (out of memory) stops the state for good. */
static inline void tr_emit(tr_state *s, const record *r) {
    if (s->stopped) return;
    if (!record_emit(&s->sink, r)) { s->stopped = true; s->hot = s->list = false; return; }
    s->emitted++;
}

/* A string or number token's text into b, NUL-terminated (b emptied for any other token). */
static inline void put_text(strbuf *b, const jt_token *t) {
    b->len = 0;
    if (t->kind == JT_STRING || t->kind == JT_NUMBER) sb_put(b, t->text, t->len);
    if (b->len < b->cap) b->data[b->len] = '\0';
    else strbuf_terminate(b);
}

/* torch_trace_meta.c: a root-level token (depth 1: a key, or a value's beginning or scalar);
 * false when the tokenizer need not report the value's contents. */
bool torch_records_root_token(tr_state *s, const jt_token *t);
/* torch_trace_meta.c: a token inside a root-level value other than the events list
 * (deviceProperties, metadata, distributedInfo); false when not wanted. */
bool torch_records_doc_token(tr_state *s, const jt_token *t);

#endif
