/* check_torch_both: the torch profile format's shared state (parsers/formats/torch_trace_both.c,
 * one tokenizer for the analysis document's typed records and RunMetrics' REC_TRACE_EVENT
 * records) emits exactly what the two states emit each through its own tokenizer: the same
 * records in the same order, field by field, the same warnings and facts; whole documents fed
 * in chunks of several sizes, documents of every shape (bare arrays, a BOM, invalid JSON, a
 * root scalar, replaced keys, values one state declines and the other reads), and a split read
 * whose two pieces are joined. Also: the format hands the shared state to a sink naming both
 * kinds, and a hand-counted document's TE_EVENT records. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/formats/torch_trace_both.h"
#include "parsers/formats/torch_trace_json.h"
#include "parsers/record.h"

#define TE_BIT (1u << REC_TRACE_EVENT)

/* Every record received, one text line each, split by kind (REC_TRACE_EVENT or typed). */
typedef struct capture {
    strbuf typed, events;
    size_t n_typed, n_events;
} capture;

static void put_text(strbuf *b, const char *what, const char *s, size_t n) {
    char h[64];
    if (!s) { snprintf(h, sizeof h, " %s=NULL", what); strbuf_append(b, h, strlen(h)); return; }
    snprintf(h, sizeof h, " %s[%zu]=", what, n);
    strbuf_append(b, h, strlen(h));
    strbuf_append(b, s, n);
}

static void put_i128(strbuf *b, const char *what, i128 v) {
    uint64_t w[2];
    memcpy(w, &v, sizeof w);
    char h[96];
    snprintf(h, sizeof h, " %s=%016" PRIx64 "%016" PRIx64, what, w[1], w[0]);
    strbuf_append(b, h, strlen(h));
}

/* A record as text: every field a torch state fills. */
static void record_line(strbuf *b, const record *r) {
    char h[512];
    snprintf(h, sizeof h, "t=%d has=%x line=%" PRIu64 " dev=%" PRId64 " str=%" PRId64 " corr=%" PRIu64 " bytes=%" PRIu64
             " ph=%d copy=%d dom=%d pid=%" PRId64 " tid=%" PRId64 " ext=%" PRIu64 " grid=%u,%u,%u wg=%u,%u,%u num=%a"
             " ts=%a dur=%a fl=%x nf=%" PRIu64 "@%" PRIu64 " long=%" PRIu64,
             (int)r->type, r->has, r->line, r->device, r->stream, r->correlation_id, r->bytes, r->phase, (int)r->copy,
             (int)r->domain, r->pid, r->tid, r->external_id, r->grid[0], r->grid[1], r->grid[2], r->workgroup[0],
             r->workgroup[1], r->workgroup[2], r->number, r->ts_us, r->dur_us, r->trace.flags, r->trace.nonfinite,
             r->trace.first_nonfinite_at, r->trace.long_numbers);
    strbuf_append(b, h, strlen(h));
    put_i128(b, "start", r->start_ns);
    put_i128(b, "end", r->end_ns);
    put_i128(b, "d", r->duration_ns);
    put_text(b, "name", r->name, r->name_len);
    put_text(b, "key", r->key, r->key ? strlen(r->key) : 0);
    put_text(b, "value", r->value, r->value_len);
    put_text(b, "cat", r->category, r->category_len);
    put_text(b, "track", r->track, r->track_len);
    put_text(b, "args", r->args, r->args_len);
    strbuf_putc(b, '\n');
}

static bool cap_emit(void *user, const record *r) {
    capture *c = user;
    if (r->type == REC_TRACE_EVENT) { record_line(&c->events, r); c->n_events++; }
    else { record_line(&c->typed, r); c->n_typed++; }
    return true;
}

static void cap_free(capture *c) { strbuf_free(&c->typed); strbuf_free(&c->events); }

/* Warnings and facts as text. */
static void outcome(strbuf *b, const diag_list *d, const read_facts *f) {
    char h[256];
    for (size_t i = 0; i < d->count; i++) { strbuf_append(b, d->items[i], strlen(d->items[i])); strbuf_putc(b, '\n'); }
    snprintf(h, sizeof h, "rows=%" PRIu64 " truncated=%d skips=%zu\n", f->rows_used, (int)f->truncated, f->n_skips);
    strbuf_append(b, h, strlen(h));
    for (size_t i = 0; i < f->n_skips; i++) {
        snprintf(h, sizeof h, "%s: %" PRIu64 "\n", f->skipped[i].reason, f->skipped[i].rows);
        strbuf_append(b, h, strlen(h));
    }
}

static const artefact_parser *P = &torch_trace_json_parser;

static void feed(void *st, const char *doc, size_t from, size_t to, size_t chunk) {
    for (size_t at = from; at < to; at += chunk) {
        size_t n = to - at < chunk ? to - at : chunk;
        if (!P->feed(st, (const uint8_t *)doc + at, n)) break;
    }
}

/* One state of the format over doc (whole, or split at `cut` when not 0), into cap; its
 * warnings and facts into out. */
static void read_doc(const char *doc, size_t cut, size_t chunk, unsigned types, capture *cap, strbuf *out) {
    parse_options opt = {0};
    read_facts facts = {0};
    diag_list d;
    diag_init(&d);
    record_sink sink = {.emit = cap_emit, .user = cap, .fields = RF_ALL, .types = types};
    size_t n = strlen(doc);
    void *a = P->open_records(&opt, "t.json", &sink, &facts, &d);
    ck_assert_ptr_nonnull(a);
    if (!cut) {
        feed(a, doc, 0, n, chunk);
        P->finish(a);
    } else {
        read_facts scratch = {0};
        void *b = P->open_records_resumed(&opt, "t.json", &sink, &scratch, &d, cut, (const uint8_t *)doc, n);
        ck_assert_ptr_nonnull(b);
        /* the head's records first, then the tail's (a consumer's two pieces, in file order) */
        feed(a, doc, 0, cut, chunk);
        feed(b, doc, cut, n, chunk);
        ck_assert(P->join(a, b));
        P->finish(b);
        P->close(b);
        read_facts_free(&scratch);
    }
    P->close(a);
    outcome(out, &d, &facts);
    diag_free(&d);
    read_facts_free(&facts);
}

/* The shared state against the two states apart: records, warnings, facts. */
static void same_as_apart(const char *doc, size_t cut, size_t chunk) {
    capture both = {0}, typed = {0}, events = {0};
    strbuf ob = {0}, ot = {0}, oe = {0};
    read_doc(doc, cut, chunk, ~0u, &both, &ob);
    read_doc(doc, cut, chunk, 0, &typed, &ot);
    read_doc(doc, cut, chunk, TE_BIT, &events, &oe);
    ck_assert_uint_eq(both.n_typed, typed.n_typed);
    ck_assert_uint_eq(both.n_events, events.n_events);
    ck_assert_uint_eq(both.typed.len, typed.typed.len);
    ck_assert(!both.typed.len || !memcmp(both.typed.data, typed.typed.data, both.typed.len));
    ck_assert_uint_eq(both.events.len, events.events.len);
    ck_assert(!both.events.len || !memcmp(both.events.data, events.events.data, both.events.len));
    /* the warnings and facts are the typed state's (the events state writes none) */
    ck_assert_uint_eq(ob.len, ot.len);
    ck_assert(!ob.len || !memcmp(ob.data, ot.data, ob.len));
    ck_assert_uint_eq(oe.len, strlen("rows=0 truncated=0 skips=0\n"));
    cap_free(&both), cap_free(&typed), cap_free(&events);
    strbuf_free(&ob), strbuf_free(&ot), strbuf_free(&oe);
}

/* A trace touching every path of both states: metadata scalars, containers and replaced
 * keys, deviceProperties, distributedInfo, events of every category with args the typed
 * state reads (nested shapes, grids) and the events state skips, keys the events state
 * reads and the typed one skips (a metadata key's nested value), numeric strings, NaN,
 * an over-deep args value, a duplicate key, a second "traceEvents" list. */
static const char *const FULL =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"MI300X\", \"totalGlobalMem\": 206141652992,"
    " \"computeMajor\": 9, \"computeMinor\": 4}],\n"
    " \"metadata\": {\"tokens_per_sec\": \"1234.5\", \"mfu_pct\": 38.5, \"pytorch_version\": \"2.5.1\", \"n_steps\": true,"
    " \"nested\": {\"a\": [1, {\"b\": 2}]}, \"empty\": [], \"step_time_seconds\": NaN, \"host_busy_fraction\": 0.25},\n"
    " \"distributedInfo\": {\"rank\": 1, \"world_size\": 8, \"backend\": \"nccl\"},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 100.5, \"dur\": 20.25,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 11, \"External id\": 3, \"grid\": [64, 1, 1],"
    " \"block\": [256, 1, 1], \"deep\": [[[[[[[[[[[[[[1]]]]]]]]]]]]]]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": \"99\", \"dur\": 30,"
    " \"args\": {\"Input Dims\": [[4, 8], [8, 2], []], \"Input type\": [\"float\", \"float\"], \"External id\": 3}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"ts\": 130, \"dur\": 5,"
    " \"args\": {\"bytes\": 4096, \"kind\": \"HtoD\", \"device\": 0}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipLaunchKernel\", \"ts\": 98, \"dur\": 1, \"args\": {\"correlation\": 11}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"ts\": 90, \"dur\": 60},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#1\", \"ts\": 95, \"dur\": 55},\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"forward\", \"ts\": 91, \"dur\": NaN},\n"
    "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"ts\": 140, \"args\": {\"Device Id\": 0,"
    " \"Device Type\": 1, \"Total Allocated\": 1048576, \"Total Reserved\": 2097152}},\n"
    "  {\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"old op\", \"name\": \"renamed op\", \"ts\": 150, \"dur\": 2},\n"
    "  {\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"flow\", \"ts\": 151, \"id\": {\"x\": [1, 2]}},\n"
    "  {\"cat\": {\"not\": \"a string\"}, \"name\": [\"nor\", \"this\"], \"ts\": true, \"dur\": \"1e3\"}\n"
    " ],\n"
    " \"traceName\": \"x\",\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \" spaced \", \"ts\": 1, \"dur\": 2,"
    " \"args\": {\"device\": 1, \"stream\": 0}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"ts\": 2, \"dur\": 1}\n"
    " ],\n"
    " \"metadata\": {\"tokens_per_sec\": 99}}\n";

static const char *const SHAPES[] = {
    FULL,
    /* a bare array of events (the typed state restarts its tokenizer: read apart) */
    "  \n[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2},\n {\"cat\": \"cpu_op\", \"name\": \"o\", \"ts\": 1, \"dur\": 1}]\n",
    /* a UTF-8 BOM before the object */
    "\xEF\xBB\xBF{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}]}",
    /* cut short (a file still being written) */
    "{\"metadata\": {\"mfu_pct\": 1}, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2},\n {\"ph\": \"X\", \"na",
    /* invalid in the middle of an args value only the typed state reads */
    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2, \"args\": {\"device\": 0x1}}]}",
    /* a root scalar, a root string, nothing, blanks */
    "42", "\"text\"", "", "   \n\t ",
    /* traceEvents not a list, metadata not an object */
    "{\"traceEvents\": {\"a\": 1}, \"metadata\": [1, 2]}",
    /* non-finite and over-long numbers in events and metadata */
    "{\"metadata\": {\"mfu_pct\": Infinity, \"tokens_per_sec\": -Infinity}, \"traceEvents\": [{\"name\": \"a\", \"ts\": 1e999, \"dur\": 1},"
    " {\"name\": \"b\", \"ts\": NaN, \"dur\": 2}]}",
};

START_TEST(shared_equals_apart) {
    static const size_t CHUNKS[] = {1, 3, 64, 1u << 20};
    for (size_t i = 0; i < sizeof SHAPES / sizeof *SHAPES; i++)
        for (size_t c = 0; c < sizeof CHUNKS / sizeof *CHUNKS; c++) same_as_apart(SHAPES[i], 0, CHUNKS[c]);
}
END_TEST

START_TEST(shared_split_equals_apart) {
    /* every resume point of FULL's first list: the head and tail pieces joined */
    const char *doc = FULL;
    size_t n = strlen(doc), cuts = 0;
    for (size_t from = 0; from < n;) {
        size_t at = P->resume_point((const uint8_t *)doc + from, n - from);
        if (at >= n - from) break;
        size_t cut = from + at;
        if (cut > (size_t)(strstr(doc, "\"traceName\"") - doc)) break;   /* (the second list: the join declines) */
        same_as_apart(doc, cut, 7);
        same_as_apart(doc, cut, 1u << 20);
        cuts++;
        from = cut + 1;
    }
    ck_assert_uint_ge(cuts, 8);
}
END_TEST

static bool count_emit(void *user, const record *r) {
    if (r->type == REC_TRACE_EVENT && (r->trace.flags & TE_EVENT)) ++*(size_t *)user;
    return true;
}

START_TEST(format_hands_out_shared_state) {
    parse_options opt = {0};
    read_facts facts = {0};
    diag_list d;
    diag_init(&d);
    size_t events = 0;
    record_sink sink = {.emit = count_emit, .user = &events, .types = ~0u};
    void *st = P->open_records(&opt, "t.json", &sink, &facts, &d);
    ck_assert_uint_eq(*(unsigned *)st, TORCH_BOTH_MAGIC);
    feed(st, FULL, 0, strlen(FULL), 5);
    P->finish(st);
    P->close(st);
    /* by hand: the first list's 11 events, then the second list's 2 (a consumer forgets the first) */
    ck_assert_uint_eq(events, 13);
    ck_assert(P->shares_records);
    diag_free(&d);
    read_facts_free(&facts);
}
END_TEST

int main(void) {
    Suite *s = suite_create("torch_both");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, shared_equals_apart);
    tcase_add_test(tc, shared_split_equals_apart);
    tcase_add_test(tc, format_hands_out_shared_state);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
