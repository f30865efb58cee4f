/* libFuzzer harness: the torch profile's records state (parsers/formats/torch_trace_records.c), as
 * the analysis document's run driver reads it. Any input, fed in chunks of a size the first
 * byte picks: no crash, no leak, every record's strings valid UTF-8 of their stated length;
 * and a split read at any resume point that joins emits exactly the records of one pass. */
#include <stdlib.h>
#include <string.h>

#include "base/text_utf8.h"
#include "parsers/formats/torch_trace_json.h"
#include "parsers/formats/torch_trace_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct tally {
    uint64_t n, by_type[REC_TYPE_COUNT];
    uint64_t name_bytes;
} tally;

static bool count(void *user, const record *r) {
    tally *t = user;
    t->n++;
    if ((unsigned)r->type < REC_TYPE_COUNT) t->by_type[r->type]++;
    if (r->name) {
        if (!utf8_valid((const uint8_t *)r->name, r->name_len)) abort();
        t->name_bytes += r->name_len;
    }
    if (r->args && r->args_len && r->args[r->args_len - 1] != '}') abort();
    return true;
}

static void feed_all(void *st, const uint8_t *data, size_t size, size_t chunk) {
    for (size_t off = 0; off < size; off += chunk)
        if (!torch_trace_json_parser.feed(st, data + off, size - off < chunk ? size - off : chunk)) break;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const size_t CHUNKS[8] = {1, 2, 3, 7, 64, 4096, 65536, 1 << 20};
    if (size < 1) return 0;
    size_t chunk = CHUNKS[data[0] & 7];
    data++;
    size--;
    parse_options opt = {0};
    diag_list d;
    diag_init(&d);
    read_facts f = {0};
    tally one = {0};
    record_sink s1 = {.emit = count, .user = &one, .fields = ~0u};
    void *st = torch_trace_json_parser.open_records(&opt, "fuzz", &s1, &f, &d);
    if (!st) return 0;
    feed_all(st, data, size, chunk);
    torch_trace_json_parser.finish(st);
    torch_trace_json_parser.close(st);
    read_facts_free(&f);
    diag_free(&d);
    /* asking for no optional field changes which records come, never how many */
    tally bare = {0};
    record_sink s0 = {.emit = count, .user = &bare, .fields = 0};
    diag_init(&d);
    st = torch_trace_json_parser.open_records(&opt, "fuzz", &s0, &f, &d);
    if (st) {
        feed_all(st, data, size, chunk);
        torch_trace_json_parser.finish(st);
        torch_trace_json_parser.close(st);
        for (int t = 0; t < REC_TYPE_COUNT; t++)
            if (bare.by_type[t] != one.by_type[t]) abort();
    }
    read_facts_free(&f);
    diag_free(&d);
    /* split at the first resume point after a place the chunk byte picks */
    size_t from = (size_t)((uint64_t)size * (data[-1] >> 3) / 32);
    size_t at = from + torch_trace_json_parser.resume_point(data + from, size - from);
    if (at >= size) return 0;
    tally a = {0}, b = {0};
    read_facts fa = {0}, fb = {0};
    diag_list da, db;
    diag_init(&da);
    diag_init(&db);
    record_sink sa = {.emit = count, .user = &a, .fields = ~0u}, sb = {.emit = count, .user = &b, .fields = ~0u};
    void *A = torch_trace_json_parser.open_records(&opt, "fuzz", &sa, &fa, &da);
    void *B = A ? torch_trace_json_parser.open_records_resumed(&opt, "fuzz", &sb, &fb, &db, at, data, size) : NULL;
    if (A && B) {
        feed_all(A, data, at, chunk);
        feed_all(B, data + at, size - at, chunk);
        if (torch_trace_json_parser.join(A, B)) {
            torch_trace_json_parser.finish(B);
            /* joined: the two pieces' records are one pass's, type by type */
            for (int t = 0; t < REC_TYPE_COUNT; t++)
                if (a.by_type[t] + b.by_type[t] != one.by_type[t]) abort();
            if (a.name_bytes + b.name_bytes != one.name_bytes) abort();
        }
    }
    if (A) torch_trace_json_parser.close(A);
    if (B) torch_trace_json_parser.close(B);
    read_facts_free(&fa);
    read_facts_free(&fb);
    diag_free(&da);
    diag_free(&db);
    return 0;
}
