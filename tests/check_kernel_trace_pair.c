/* check_kernel_trace_pair: the kernel trace CSV's pair state (parsers/formats/kernel_trace_csv_pair.c,
 * one CSV tokenizer for two readers, each with a state of its own) emits for each reader
 * exactly what that reader's state emits through its own tokenizer: the same records in the
 * same order, field by field, the same warnings and facts. The two readers differ as the
 * daemon's ingest's do (the analysis document's: identity fields, counters; RunMetrics':
 * name and duration only, `--compat seed` or not, its own file name), in both orders; CSVs of
 * every shape (rocprofv3 headers, legacy rocprof counters, DurationNs or Start/End, a column
 * the seed's substring choice reads and the default's whole-token choice does not, quoted
 * names over lines, invalid UTF-8, CRLF, blank lines, short rows, an unterminated quote, no
 * header), fed in chunks of several sizes, whole and as a split read whose pieces are joined.
 * Also: a hand-counted CSV's records as each reader gets them. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/formats/kernel_trace_csv.h"
#include "parsers/record.h"

static const artefact_parser *P = &kernel_trace_csv_parser;

/* One reader: what it asks for, and what it got. */
typedef struct reader {
    parse_options opt;
    const char *label;
    unsigned fields, types;
    strbuf recs;             /* every record received, one text line each */
    size_t n;
    read_facts facts, scratch;
    diag_list diag, tail_diag;
    record_sink sink;
} reader;

static void put_i128(strbuf *b, const char *what, i128 v) {
    uint64_t w[2];
    memcpy(w, &v, sizeof w);
    char h[96];
    snprintf(h, sizeof h, " %s=%016" PRIx64 "%016" PRIx64, what, w[1], w[0]);
    strbuf_append(b, h, strlen(h));
}

/* A record as text: every field a kernel trace state fills. */
static bool emit(void *user, const record *r) {
    reader *x = user;
    strbuf *b = &x->recs;
    char h[512];
    snprintf(h, sizeof h, "t=%d has=%x line=%" PRIu64 " dev=%" PRId64 " str=%" PRId64 " corr=%" PRIu64 " pid=%" PRId64
             " tid=%" PRId64 " grid=%u,%u,%u wg=%u,%u,%u res=%u,%u,%u,%u num=%a",
             (int)r->type, r->has, r->line, r->device, r->stream, r->correlation_id, r->pid, r->tid, r->grid[0],
             r->grid[1], r->grid[2], r->workgroup[0], r->workgroup[1], r->workgroup[2], r->lds_bytes, r->scratch_bytes,
             r->vgpr, r->sgpr, r->number);
    strbuf_append(b, h, strlen(h));
    put_i128(b, "start", r->start_ns);
    put_i128(b, "end", r->end_ns);
    put_i128(b, "d", r->duration_ns);
    strbuf_append(b, " name=", 6);
    strbuf_append(b, r->name, r->name_len);
    for (size_t i = 0; i < r->n_fields; i++) {
        snprintf(h, sizeof h, " %s=", r->fields[i].key);
        strbuf_append(b, h, strlen(h));
        strbuf_append(b, r->fields[i].value, r->fields[i].value_len);
    }
    strbuf_putc(b, '\n');
    x->n++;
    return true;
}

static void reader_init(reader *x, bool seed, const char *label, unsigned fields, unsigned types) {
    memset(x, 0, sizeof *x);
    x->opt.seed_compat = seed;
    x->label = label;
    diag_init(&x->diag);
    diag_init(&x->tail_diag);
    x->sink = (record_sink){.emit = emit, .user = x, .fields = fields, .types = types};
}

/* Warnings and facts as text (the tail's warnings after the head's, as a joined read keeps them). */
static void outcome(strbuf *b, const reader *x) {
    char h[512];
    for (size_t i = 0; i < x->diag.count; i++) { strbuf_append(b, x->diag.items[i], strlen(x->diag.items[i])); strbuf_putc(b, '\n'); }
    for (size_t i = 0; i < x->tail_diag.count; i++) {
        strbuf_append(b, x->tail_diag.items[i], strlen(x->tail_diag.items[i]));
        strbuf_putc(b, '\n');
    }
    const read_facts *f = &x->facts;
    snprintf(h, sizeof h, "rows=%" PRIu64 " truncated=%d skips=%zu cols=%zu\n", f->rows_used, (int)f->truncated,
             f->n_skips, f->n_columns);
    strbuf_append(b, h, strlen(h));
    for (size_t i = 0; i < f->n_skips; i++) {
        snprintf(h, sizeof h, "%s: %" PRIu64 "\n", f->skipped[i].reason, f->skipped[i].rows);
        strbuf_append(b, h, strlen(h));
    }
    for (size_t i = 0; i < f->n_columns; i++) {
        snprintf(h, sizeof h, "%s <- %s\n", f->columns[i].quantity, f->columns[i].column ? f->columns[i].column : "-");
        strbuf_append(b, h, strlen(h));
    }
    strbuf_append(b, x->recs.data ? x->recs.data : "", x->recs.len);
}

static void reader_free(reader *x) {
    strbuf_free(&x->recs);
    read_facts_free(&x->facts);
    read_facts_free(&x->scratch);
    diag_free(&x->diag);
    diag_free(&x->tail_diag);
}

static void feed(void *st, const char *doc, size_t from, size_t to, size_t chunk) {
    for (size_t at = from; at < to; at += chunk) {
        size_t n = to - at < chunk ? to - at : chunk;
        if (!P->feed(st, (const uint8_t *)doc + at, n)) break;
    }
}

/* One reader apart: its own state over doc (whole, or split at cut when not 0). */
static void read_apart(reader *x, const char *doc, size_t cut, size_t chunk) {
    size_t n = strlen(doc);
    void *a = P->open_records(&x->opt, x->label, &x->sink, &x->facts, &x->diag);
    ck_assert_ptr_nonnull(a);
    if (!cut) {
        feed(a, doc, 0, n, chunk);
        P->finish(a);
    } else {
        void *b = P->open_records_resumed(&x->opt, x->label, &x->sink, &x->scratch, &x->tail_diag, cut,
                                          (const uint8_t *)doc, n);
        ck_assert_ptr_nonnull(b);
        feed(a, doc, 0, cut, chunk);
        feed(b, doc, cut, n, chunk);
        ck_assert(P->join(a, b));
        P->finish(b);
        P->close(b);
    }
    P->close(a);
}

/* Both readers through one pair state (x the caller, y the second reading). */
static void read_pair(reader *x, reader *y, const char *doc, size_t cut, size_t chunk) {
    size_t n = strlen(doc);
    record_reading ry = {&y->opt, y->label, &y->sink, &y->facts, &y->diag};
    void *a = P->open_records_pair(&x->opt, x->label, &x->sink, &x->facts, &x->diag, &ry);
    ck_assert_ptr_nonnull(a);
    if (!cut) {
        feed(a, doc, 0, n, chunk);
        P->finish(a);
    } else {
        record_reading ty = {&y->opt, y->label, &y->sink, &y->scratch, &y->tail_diag};
        void *b = P->open_records_pair_resumed(&x->opt, x->label, &x->sink, &x->scratch, &x->tail_diag, &ty, cut,
                                               (const uint8_t *)doc, n);
        ck_assert_ptr_nonnull(b);
        feed(a, doc, 0, cut, chunk);
        feed(b, doc, cut, n, chunk);
        ck_assert(P->join(a, b));
        P->finish(b);
        P->close(b);
    }
    P->close(a);
}

enum { DOC_ANALYSIS, DOC_RUNMETRICS, DOC_RUNMETRICS_SEED, DOC_ANALYSIS_SEED, N_KINDS };

static void kind_init(reader *x, int kind) {
    unsigned all_types = (1u << REC_KERNEL_DISPATCH) | (1u << REC_COUNTER);
    switch (kind) {
    case DOC_ANALYSIS: reader_init(x, false, "run/trace.csv", RF_ALL, all_types); break;
    case DOC_ANALYSIS_SEED: reader_init(x, true, "run/trace.csv", RF_START | RF_END | RF_GRID, all_types); break;
    case DOC_RUNMETRICS: reader_init(x, false, "trace.csv", 0, 1u << REC_KERNEL_DISPATCH); break;
    default: reader_init(x, true, "trace.csv", 0, 1u << REC_KERNEL_DISPATCH); break;
    }
}

static void expect_same(const reader *pair, const reader *apart) {
    strbuf p = {0}, q = {0};
    outcome(&p, pair);
    outcome(&q, apart);
    if (p.len != q.len || (p.len && memcmp(p.data, q.data, p.len)))
        ck_abort_msg("pair:\n%.*s\napart:\n%.*s", (int)p.len, p.data ? p.data : "", (int)q.len, q.data ? q.data : "");
    strbuf_free(&p);
    strbuf_free(&q);
}

/* Every pair of reader kinds, whole and split at cut (0: whole only), in several chunk sizes. */
static void same_as_apart(const char *doc, size_t cut) {
    static const size_t CHUNKS[] = {1, 3, 7, 64, 1u << 16};
    for (int k1 = 0; k1 < N_KINDS; k1++)
        for (int k2 = 0; k2 < N_KINDS; k2++)
            for (size_t c = 0; c < sizeof CHUNKS / sizeof *CHUNKS; c++)
                for (int split = 0; split <= (cut ? 1 : 0); split++) {
                    size_t at = split ? cut : 0;
                    reader x, y, xa, ya;
                    kind_init(&x, k1), kind_init(&y, k2), kind_init(&xa, k1), kind_init(&ya, k2);
                    read_pair(&x, &y, doc, at, CHUNKS[c]);
                    read_apart(&xa, doc, at, CHUNKS[c]);
                    read_apart(&ya, doc, at, CHUNKS[c]);
                    expect_same(&x, &xa);
                    expect_same(&y, &ya);
                    reader_free(&x), reader_free(&y), reader_free(&xa), reader_free(&ya);
                }
}

/* The byte after the n-th newline of doc (a resume point of a split read). */
static size_t after_line(const char *doc, int n) {
    const char *p = doc;
    for (int i = 0; i < n && p; i++) p = strchr(p, '\n'), p = p ? p + 1 : NULL;
    ck_assert_ptr_nonnull(p);
    return (size_t)(p - doc);
}

static const char ROCPROFV3[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
    "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
    "\"KERNEL_DISPATCH\",1,2,3,44,1,7,\"gemm_kernel\",9,1000,2500,64,0,32,0,16,256,1,1,1024,1,1\n"
    "\"KERNEL_DISPATCH\",1,2,0,44,2,8,\"  padded name  \",10,3000,3000,64,0,32,0,16,256,1,1,1024,1,1\n"
    "\"KERNEL_DISPATCH\",Agent 2,5,3,44,3,9,\"multi\nline, \"\"quoted\"\" name\",11,0,700,,,,,,,,,,,\n"
    "\n"
    "\"KERNEL_DISPATCH\",1,2,3,44,4,7,\"bad \xff\xfe utf8\",12,4000,3900,1,2,3,4,5,6,7,8,9,10,11\n"
    "\"KERNEL_DISPATCH\",1,2,3,44,5,7,,13,5000,6000\r\n"
    "\"KERNEL_DISPATCH\",1\r\n"
    "\"KERNEL_DISPATCH\",x,y,z,44,6,7,\"gemm_kernel\",14,6000,x7000,64,0,32,0,16,256,1,1,1024,1,1\r\n"
    "\"KERNEL_DISPATCH\",1,2,3,44,7,7,\"gemm_kernel\",15,8000,9000.5,64,0,32,0,16,256,1,1,1024,1,1\n"
    "\"KERNEL_DISPATCH\",1,2,3,44,8,7,\"last \"\"one";

/* A duration column only the seed's substring choice takes (SQ_WAVE_DURATIONNSX contains
 * "durationns"; its whole tokens are sq, wave, durationnsx), beside BeginNs/EndNs. */
static const char DURATIONS[] =
    "KernelName,SQ_WAVE_DURATIONNSX,BeginNs,EndNs,gpu-id,queue-id,grd,wgr,lds,scr,vgpr,sgpr\n"
    "k1,150,100,200,0,1,64,64,0,0,8,8\n"
    "k2,,100,200,0,1,64,64,0,0,8,8\n"
    "k3,1e2,100,300,0,1,64,64,0,0,8,8\n"
    "k4,-5,100,200,0,1,64,64,0,0,8,8\n"
    "k5,,,,,,,,,,,\n"
    "k1,12.9,300,350,0,1,128,64,0,0,8,8\n";

/* Legacy rocprof with counters (rocprof --pmc): the columns after obj are counters. */
static const char LEGACY[] =
    "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,"
    "sig,obj,GPUBusy,Wavefronts,DispatchNs,BeginNs,EndNs,CompleteNs\n"
    "0,\"kA\",0,0,0,10,11,64,64,0,0,8,0,8,64,0x0,0x1,100,4,10,20,40,50\n"
    "1,\"kB\",0,0,1,10,11,64,64,0,0,8,0,8,64,0x0,0x1,x,4,60,70,75,80\n"
    "2,\"kA\",0,0,2,10,11,64,64,0,0,8,0,8,64,0x0,0x1,,,90,,,\n";

static const char COUNTERS_ONLY[] =
    "Index,KernelName,gpu-id,queue-id,pid,tid,grd,wgr,sig,obj,SQ_WAVES,SQ_INSTS\n"
    "0,kA,0,0,1,2,64,64,0x0,0x1,4,100\n"
    "1,kB,0,0,1,2,64,64,0x0,0x1,5,\n";

START_TEST(shapes_whole_and_split) {
    same_as_apart(ROCPROFV3, after_line(ROCPROFV3, 2));
    same_as_apart(ROCPROFV3, after_line(ROCPROFV3, 6));   /* (a blank line before the cut) */
    same_as_apart(DURATIONS, after_line(DURATIONS, 3));
    same_as_apart(LEGACY, after_line(LEGACY, 2));
    same_as_apart(COUNTERS_ONLY, after_line(COUNTERS_ONLY, 2));
    same_as_apart("", 0);
    same_as_apart("\n", 0);
    same_as_apart("just,a,header\n", 0);
    same_as_apart("Name,Start,End\nk,1,2\n", after_line("Name,Start,End\nk,1,2\n", 1));
}
END_TEST

/* A hand-counted CSV: what each reader receives. DURATIONS by the default choice (Begin/End):
 * k1 100, k2 100, k3 200, k4 100, k5 skipped (no timing), k1 50: 5 records; by the seed's
 * (SQ_WAVE_DURATIONNSX, else Begin/End when empty): k1 150, k2 100, k3 100 (1e2), k4 skipped
 * (-5), k5 skipped, k1 12 (12.9 truncated): 4 records. */
START_TEST(hand_counted) {
    reader x, y;
    kind_init(&x, DOC_ANALYSIS);
    kind_init(&y, DOC_RUNMETRICS_SEED);
    read_pair(&x, &y, DURATIONS, 0, 5);
    strbuf_terminate(&x.recs);
    strbuf_terminate(&y.recs);
    ck_assert_uint_eq(x.n, 5);
    ck_assert_uint_eq(y.n, 4);
    ck_assert_uint_eq(x.facts.rows_used, 5);
    ck_assert_uint_eq(y.facts.rows_used, 4);
    ck_assert_ptr_nonnull(strstr(x.recs.data, "d=000000000000000000000000000000c8 name=k3"));
    ck_assert_ptr_nonnull(strstr(x.recs.data, "d=00000000000000000000000000000064 name=k4"));
    ck_assert_ptr_nonnull(strstr(x.recs.data, "d=00000000000000000000000000000032 name=k1\n"));
    ck_assert_ptr_nonnull(strstr(y.recs.data, "d=00000000000000000000000000000096 name=k1"));
    ck_assert_ptr_nonnull(strstr(y.recs.data, "d=00000000000000000000000000000064 name=k3"));
    ck_assert_ptr_nonnull(strstr(y.recs.data, "d=0000000000000000000000000000000c name=k1\n"));
    ck_assert_ptr_null(strstr(y.recs.data, "name=k4"));
    /* the identity fields went to the analysis reader only */
    ck_assert_ptr_nonnull(strstr(x.recs.data, "grid=128,1,1 wg=64,1,1"));
    ck_assert_ptr_null(strstr(y.recs.data, "grid=64"));
    reader_free(&x), reader_free(&y);
}
END_TEST

int main(void) {
    Suite *s = suite_create("kernel_trace_pair");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, shapes_whole_and_split);
    tcase_add_test(tc, hand_counted);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
