/* check_npu: the npu part: msprof and AIE formats on bytes, and the npu_ops,
 * npu_hotspots, aie_cores and aie_aggregate analyses on hand-made edge cases (quirky
 * msprof cells, alias operators, missing and duplicated references, duplicate markers, E
 * and B at one timestamp, orphan starts, outliers, a core with no pairs, mismatched
 * iteration counts), each checked against the numbers worked out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/npu_harness.h"
#include "tests/section_drive.h"
#include "parsers/formats/aie_trace_json.h"
#include "analyses/sections/npu_ops.h"
#include "parsers/formats/msprof_csv.h"

/* ---- msprof ---- */

static const char *const OP_HEADER =
    "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
    "Block Dim,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,aicore_time(us),"
    "aic_mac_ratio\n";

START_TEST(us_to_ns_is_exact) {
    i128 v;
    ck_assert(msprof_us_to_ns("185.504", 7, &v) && v == 185504);
    ck_assert(msprof_us_to_ns("12", 2, &v) && v == 12000);
    ck_assert(msprof_us_to_ns("1736413971558972.912", 20, &v) && v == (i128)1736413971558972912LL);
    ck_assert(msprof_us_to_ns("0.0004", 6, &v) && v == 0);
    ck_assert(msprof_us_to_ns("0.0005", 6, &v) && v == 1);
    ck_assert(msprof_us_to_ns("1.2345", 6, &v) && v == 1235);
    ck_assert(!msprof_us_to_ns("1e3", 3, &v));
    ck_assert(!msprof_us_to_ns("-1", 2, &v));
    ck_assert(!msprof_us_to_ns("", 0, &v));
    ck_assert(!msprof_us_to_ns(".", 1, &v));
    ck_assert(!msprof_us_to_ns("12a", 3, &v));
    /* past 64 bits of ns: refused (its digits times 1000 wrapped: 56 ns) */
    ck_assert(!msprof_us_to_ns("8166776806102523123120990578362437075", 37, &v));
    ck_assert(msprof_us_to_ns("9223372036854775", 16, &v) && v == (i128)9223372036854775000LL);
    ck_assert(!msprof_us_to_ns("9223372036854776", 16, &v));
    ck_assert(!msprof_us_to_ns("9223372036854775.9995", 21, &v));   /* its fraction past INT64_MAX */
}
END_TEST

/* A collecting sink for format tests: the records' JSON-ish text, one line each. */
typedef struct collect { strbuf text; size_t n; } collect;
static bool collect_emit(void *user, const record *r) {
    collect *c = user;
    char buf[128];
    snprintf(buf, sizeof buf, "#%zu %.*s dur=%lld has_start=%d start=%lld", c->n++, (int)r->name_len, r->name,
             (long long)r->duration_ns, !!(r->has & RF_START), (long long)r->start_ns);
    strbuf_append(&c->text, buf, strlen(buf));
    for (size_t i = 0; i < r->n_fields; i++) {
        strbuf_append(&c->text, " ", 1);
        strbuf_append(&c->text, r->fields[i].key, strlen(r->fields[i].key));
        strbuf_append(&c->text, "=[", 2);
        strbuf_append(&c->text, r->fields[i].value, r->fields[i].value_len);
        strbuf_append(&c->text, "]", 1);
    }
    strbuf_append(&c->text, "\n", 1);
    return true;
}

START_TEST(msprof_quirky_cells) {
    const char *csv =
        "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
        "Block Num,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,aic_mac_ratio\n"
        "0,4294967295,N/A,N/A,hcom_allReduce,HcomAllReduce,HCCL,\"1736413971558972.912\t\",10.5,N/A,"
        "\"\"\"81920,4096;8192,512\"\"\",DT_BF16;DT_BF16,ND;ND,\"\"\"4096,512\"\"\",DT_BF16,N/A\n"
        "0,7,12,3,mm,MatMulV2,AI_CORE,\"5.000\t\",,16,\"\"\"1,2\"\"\",DT_FLOAT,ND,\"\"\"1\"\"\",DT_FLOAT,0.5\n";
    collect c = {0};
    record_sink sink = {.emit = collect_emit, .user = &c, .fields = ~0u};
    diag_list diag;
    diag_init(&diag);
    read_facts facts = {0};
    parse_options opt = {0};
    void *st = msprof_op_csv_parser.open_records(&opt, "op_summary_1.csv", &sink, &facts, &diag);
    msprof_op_csv_parser.feed(st, (const uint8_t *)csv, strlen(csv));
    msprof_op_csv_parser.finish(st);
    msprof_op_csv_parser.close(st);
    strbuf_terminate(&c.text);
    ck_assert_uint_eq(c.n, 1);                              /* the row without a duration is skipped */
    const char *t = c.text.data;
    ck_assert_ptr_nonnull(strstr(t, "HcomAllReduce dur=10500 has_start=1 start=1736413971558972912"));
    ck_assert_ptr_nonnull(strstr(t, "input_shapes=[81920,4096;8192,512]"));
    ck_assert_ptr_nonnull(strstr(t, "output_shapes=[4096,512]"));
    ck_assert_ptr_null(strstr(t, "model_id"));             /* 4294967295: no model */
    ck_assert_ptr_null(strstr(t, "task_id"));              /* N/A: unknown */
    ck_assert_ptr_null(strstr(t, "block_num"));
    ck_assert_ptr_null(strstr(t, "aic_mac_ratio"));
    bool named = false;
    for (size_t i = 0; i < diag.count; i++)
        named |= strstr(diag.items[i], "op_summary_1.csv: line 3:") && strstr(diag.items[i], "duration");
    ck_assert_msg(named, "the skipped row is named by file and line");
    strbuf_free(&c.text);
    read_facts_free(&facts);
    diag_free(&diag);
    /* 100 counter columns: the cells past the 96 passed on are said to be left out */
    strbuf wide = {0};
    strbuf_append(&wide, "OP Type,Task Duration(us)", 25);
    for (int i = 0; i < 100; i++) {
        char col[16];
        strbuf_append(&wide, col, (size_t)snprintf(col, sizeof col, ",c%d", i));
    }
    strbuf_append(&wide, "\nMatMul,1.0", 11);
    for (int i = 0; i < 100; i++) strbuf_append(&wide, ",1", 2);
    strbuf_append(&wide, "\n", 1);
    memset(&c, 0, sizeof c);
    diag_init(&diag);
    memset(&facts, 0, sizeof facts);
    st = msprof_op_csv_parser.open_records(&opt, "op_summary_2.csv", &sink, &facts, &diag);
    msprof_op_csv_parser.feed(st, (const uint8_t *)wide.data, wide.len);
    msprof_op_csv_parser.finish(st);
    msprof_op_csv_parser.close(st);
    ck_assert_uint_eq(c.n, 1);
    named = false;
    for (size_t i = 0; i < diag.count; i++) named |= strstr(diag.items[i], "1 row(s) with more than 96") != NULL;
    ck_assert(named);
    strbuf_free(&c.text);
    read_facts_free(&facts);
    diag_free(&diag);
    /* a row of 70,000 cells (every cell of a msprof row is kept): not read, counted, its line named
     * (csv_finish_warned); the next row is */
    wide.len = 0;
    strbuf_append(&wide, "OP Type,Task Duration(us)\nMatMul,1.0", 35);
    for (int i = 0; i < 70000; i++) strbuf_append(&wide, ",1", 2);
    strbuf_append(&wide, "\nAdd,2.0\n", 10);
    memset(&c, 0, sizeof c);
    diag_init(&diag);
    memset(&facts, 0, sizeof facts);
    st = msprof_op_csv_parser.open_records(&opt, "op_summary_3.csv", &sink, &facts, &diag);
    msprof_op_csv_parser.feed(st, (const uint8_t *)wide.data, wide.len);
    msprof_op_csv_parser.finish(st);
    msprof_op_csv_parser.close(st);
    ck_assert_uint_eq(c.n, 1);
    named = false;
    for (size_t i = 0; i < diag.count; i++)
        named |= strstr(diag.items[i], "op_summary_3.csv: line 2: 1 record(s) of more than 65536 cells") != NULL;
    ck_assert(named);
    strbuf_free(&c.text);
    strbuf_free(&wide);
    read_facts_free(&facts);
    diag_free(&diag);
}
END_TEST

START_TEST(msprof_block_dim_generations) {
    char csv[2048];
    snprintf(csv, sizeof csv, "%s0,4294967295,1,2,a,Add,AI_VECTOR_CORE,\"1.0\t\",2.5,8,\"\"\"4\"\"\",DT_FLOAT,ND,"
             "\"\"\"4\"\"\",DT_FLOAT,1.0,0.25\n", OP_HEADER);
    collect c = {0};
    record_sink sink = {.emit = collect_emit, .user = &c, .fields = ~0u};
    diag_list diag;
    diag_init(&diag);
    read_facts facts = {0};
    parse_options opt = {0};
    void *st = msprof_op_csv_parser.open_records(&opt, "kernel_details.csv", &sink, &facts, &diag);
    msprof_op_csv_parser.feed(st, (const uint8_t *)csv, strlen(csv));
    msprof_op_csv_parser.finish(st);
    msprof_op_csv_parser.close(st);
    strbuf_terminate(&c.text);
    ck_assert_ptr_nonnull(strstr(c.text.data, "block_num=[8]"));
    ck_assert_ptr_nonnull(strstr(c.text.data, "aicore_time(us)=[1.0]"));
    ck_assert_ptr_nonnull(strstr(c.text.data, "aic_mac_ratio=[0.25]"));
    ck_assert_uint_eq(diag.count, 0);
    strbuf_free(&c.text);
    read_facts_free(&facts);
    diag_free(&diag);
}
END_TEST

START_TEST(msprof_cut_cell_skips_row) {
    strbuf csv = {0};
    strbuf_append(&csv, OP_HEADER, strlen(OP_HEADER));
    const char *pre = "0,1,1,2,a,Add,AI_CORE,1.0,2.5,8,";
    strbuf_append(&csv, pre, strlen(pre));
    for (int i = 0; i < 70000; i++) strbuf_putc(&csv, '7');
    const char *post = ",DT_FLOAT,ND,4,DT_FLOAT,1.0,0.25\n";
    strbuf_append(&csv, post, strlen(post));
    strbuf_terminate(&csv);
    input in[] = {{"msprof-op-csv", "op_summary_2.csv", csv.data}};
    doc d;
    run_doc(in, 1, &d);
    ck_assert(warned(&d, "op_summary_2.csv: line 2: a cell of 64 KiB or more"));
    ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(d.json, "npu_ops"), "items")), 0);
    doc_free(&d);
    strbuf_free(&csv);
}
END_TEST

/* Row text: type, shape, duration (us), counter */
static void op_row(strbuf *b, const char *type, const char *shape, const char *dur, const char *ratio) {
    char line[512];
    snprintf(line, sizeof line, "0,4294967295,1,2,n,%s,AI_CORE,\"1.0\t\",%s,8,\"\"\"%s\"\"\",DT_BF16,ND,\"\"\"1\"\"\","
             "DT_BF16,1.0,%s\n", type, dur, shape, ratio);
    strbuf_append(b, line, strlen(line));
}

static const char *const REF_HEADER =
    "Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Average Duration(us)\n";

START_TEST(ops_stats_and_aliases) {
    strbuf ops = {0};
    strbuf_append(&ops, OP_HEADER, strlen(OP_HEADER));
    op_row(&ops, "MatMulV3", "8,8", "10", "0.5");
    op_row(&ops, "MatMulV3", "8,8", "20", "N/A");
    op_row(&ops, "MatMulV3", "8,8", "60", "1.5");
    op_row(&ops, "MatMulV2", "8,8", "5", "0.1");         /* same shapes, other alias: its own group */
    op_row(&ops, "Add", "4", "3", "0.1");                /* not in the reference: missing */
    op_row(&ops, "Cast", "2", "2", "0.1");               /* 2 / 1 = 2.0: a hotspot */
    op_row(&ops, "Mul", "2", "1", "0.1");                /* 1 / 4 = 0.25: the farthest off */
    op_row(&ops, "Sub", "2", "1.1", "0.1");              /* 1.1 / 1 within the band */
    strbuf_terminate(&ops);
    /* reference files: MatMulV2.csv names its operator by file name (no type column) */
    char mm[512], other[1024];
    snprintf(mm, sizeof mm, "%s\"\"\"8,8\"\"\",DT_BF16,ND,\"\"\"1\"\"\",DT_BF16,30\n", REF_HEADER);
    snprintf(other, sizeof other,
             "OP Type,%s"
             "Cast,\"\"\"2\"\"\",DT_BF16,ND,\"\"\"1\"\"\",DT_BF16,1\n"
             "Mul,\"\"\"2\"\"\",DT_BF16,ND,\"\"\"1\"\"\",DT_BF16,4\n"
             "Sub,\"\"\"2\"\"\",DT_BF16,ND,\"\"\"1\"\"\",DT_BF16,1\n"
             "Sub,\"\"\"2\"\"\",DT_BF16,ND,\"\"\"1\"\"\",DT_BF16,9\n", REF_HEADER);
    input in[] = {{"msprof-op-csv", "op_summary_1.csv", ops.data},
                  {"msprof-reference-csv", "reference/MatMulV2.csv", mm},
                  {"msprof-reference-csv", "reference/other.csv", other}};
    doc d;
    run_doc(in, 3, &d);
    json_t *no = json_object_get(d.json, "npu_ops");
    ck_assert_int_eq((int)num(json_object_get(no, "ops")), 8);
    json_t *items = json_object_get(no, "items");
    ck_assert_uint_eq(json_array_size(items), 6);
    json_t *mm3 = json_array_get(items, 0);               /* largest total first */
    ck_assert_str_eq(json_string_value(json_object_get(mm3, "op_type")), "MatMulV3");
    ck_assert_str_eq(json_string_value(json_object_get(mm3, "input_shapes")), "8,8");
    CLOSE(num(json_object_get(mm3, "count")), 3);
    CLOSE(num(json_object_get(mm3, "min_us")), 10);
    CLOSE(num(json_object_get(mm3, "avg_us")), 30);
    CLOSE(num(json_object_get(mm3, "median_us")), 20);
    CLOSE(num(json_object_get(mm3, "std_us")), sqrt((400.0 + 100.0 + 900.0) / 2.0));   /* sample, n-1 */
    CLOSE(num(json_object_get(json_object_get(mm3, "counters"), "aic_mac_ratio")), 1.0);  /* N/A left out */
    CLOSE(num(json_object_get(mm3, "reference_us")), 30);  /* MatMulV2's reference, by alias */
    CLOSE(num(json_object_get(mm3, "ratio")), 1.0);
    json_t *mm2 = NULL;
    for (size_t i = 0; i < json_array_size(items); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(items, i), "op_type")), "MatMulV2"))
            mm2 = json_array_get(items, i);
    ck_assert_ptr_nonnull(mm2);
    ck_assert(json_is_null(json_object_get(mm2, "std_us")));   /* one row: unknown, not 0 */
    CLOSE(num(json_object_get(mm2, "median_us")), 5);
    /* missing: Add only */
    json_t *missing = json_object_get(no, "missing_reference");
    ck_assert_uint_eq(json_array_size(missing), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(missing, 0), "op_type")), "Add");
    /* duplicates: Sub given twice, the first (1 us) used */
    json_t *dups = json_object_get(no, "duplicates");
    ck_assert_uint_eq(json_array_size(dups), 1);
    CLOSE(num(json_object_get(json_array_get(dups, 0), "rows")), 2);
    CLOSE(num(json_object_get(json_array_get(dups, 0), "reference_us")), 1);
    /* hotspots: MatMulV2 (5/30: off 6), Mul (0.25: off 4), Cast (2.0: off 2); Sub (1.1) is within */
    json_t *hot = json_object_get(d.json, "npu_hotspots");
    ck_assert_uint_eq(json_array_size(hot), 3);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(hot, 0), "op_type")), "MatMulV2");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(hot, 1), "op_type")), "Mul");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(hot, 2), "op_type")), "Cast");
    CLOSE(num(json_object_get(json_array_get(hot, 1), "ratio")), 0.25);
    CLOSE(num(json_object_get(json_array_get(hot, 1), "profiled_us")), 1);
    CLOSE(num(json_object_get(json_array_get(hot, 1), "reference_us")), 4);
    ck_assert_ptr_nonnull(strstr(d.md, "## Ascend operators: hotspots"));
    ck_assert_ptr_nonnull(strstr(d.md, "## Ascend operators: missing shapes"));
    ck_assert_ptr_nonnull(strstr(d.md, "## Ascend operators: duplicates"));
    ck_assert(json_is_null(json_object_get(d.json, "aie_cores")));
    ck_assert(json_is_null(json_object_get(d.json, "aie_aggregate")));
    /* the number hook answers what the JSON says, and nothing for absent sections */
    CLOSE(num(json_object_get(d.numbers, "npu_ops/ops")), 8);
    CLOSE(num(json_object_get(d.numbers, "npu_ops/signatures")), 6);
    CLOSE(num(json_object_get(d.numbers, "npu_ops/total_us")), num(json_object_get(no, "total_us")));
    CLOSE(num(json_object_get(d.numbers, "npu_ops/missing_reference")), 1);
    CLOSE(num(json_object_get(d.numbers, "npu_hotspots/count")), 3);
    CLOSE(num(json_object_get(d.numbers, "npu_hotspots/worst_off_by")), 6);
    ck_assert_ptr_null(json_object_get(d.numbers, "npu_ops/no.such.path"));
    ck_assert_ptr_null(json_object_get(d.numbers, "aie_cores/cores"));
    ck_assert_ptr_null(json_object_get(d.numbers, "aie_aggregate/gmacs_avg"));
    doc_free(&d);
    strbuf_free(&ops);
}
END_TEST

START_TEST(ops_signatures_are_bounded) {
    strbuf ops = {0};
    strbuf_append(&ops, OP_HEADER, strlen(OP_HEADER));
    for (unsigned i = 0; i < NPU_MAX_GROUPS + 3; i++) {
        char shape[32];
        snprintf(shape, sizeof shape, "%u", i);
        op_row(&ops, "Add", shape, "1", "0.1");
    }
    strbuf_terminate(&ops);
    input in[] = {{"msprof-op-csv", "op_summary_1.csv", ops.data}};
    doc d;
    run_doc(in, 1, &d);
    json_t *no = json_object_get(d.json, "npu_ops");
    ck_assert_uint_eq(json_array_size(json_object_get(no, "items")), NPU_MAX_GROUPS);
    ck_assert(warned(&d, "3 row(s) of further signatures left out"));
    doc_free(&d);
    strbuf_free(&ops);
}
END_TEST

/* The durations kept for exact medians are bounded per table too (max_durs: NPU_MAX_DURS_TOTAL,
 * 2^23), not only per signature (65,536 signatures could keep 2^20 each: 1 TiB). With the bound
 * at 2,000 (the test's): signatures A and B with 1,000 rows each fill it and keep their medians
 * (2 and 3 us: every row of a signature takes that one duration); C's rows then find it full,
 * and so does D's, folded in from a second file: their medians are unknown (null), their count
 * and mean exact, warned. */
START_TEST(ops_durations_are_bounded_per_table) {
    drive d;
    drive_open(&d, "npu_ops");
    drive_source(&d, 0, -1, 0);
    ck_assert_uint_eq(((npu_table *)d.src)->max_durs, NPU_MAX_DURS_TOTAL);
    ((npu_table *)d.src)->max_durs = 2000;      /* the first file's table becomes the run's */
    const char *const SHAPES[] = {"\"1\"", "\"2\"", "\"3\"", "\"4\""};
    for (int sig = 0; sig < 4; sig++) {
        if (sig == 3) {
            drive_end_source(&d);
            drive_source(&d, 1, -1, 0);
        }
        record_field f = {.key = "input_shapes", .value = SHAPES[sig], .value_len = 3};
        record r = {.type = REC_NPU_OP, .has = RF_DURATION, .name = "Add", .name_len = 3, .fields = &f, .n_fields = 1};
        r.duration_ns = 1000 * (2 + sig);
        for (unsigned i = 0; i < (sig < 2 ? 1000u : 10u); i++) drive_record(&d, &r);
    }
    drive_end_source(&d);
    json_t *no = drive_finish(&d);
    json_t *items = json_object_get(no, "items");
    ck_assert_uint_eq(json_array_size(items), 4);
    int seen = 0;
    for (size_t i = 0; i < 4; i++) {
        json_t *it = json_array_get(items, i);
        json_t *median = json_object_get(it, "median_us");
        double avg = json_number_value(json_object_get(it, "avg_us"));
        if (avg >= 4.0) {
            ck_assert(json_is_null(median));
            ck_assert_int_eq(json_integer_value(json_object_get(it, "count")), 10);
            seen |= avg == 4.0 ? 4 : 8;
        } else {
            ck_assert(json_number_value(median) == avg);
            seen |= avg == 2.0 ? 1 : 2;
        }
    }
    ck_assert_int_eq(seen, 15);
    bool warned = false;
    for (size_t i = 0; i < d.diag.count; i++) warned |= strstr(d.diag.items[i], "2 signature(s) past") != NULL;
    ck_assert(warned);
    json_decref(no);
    drive_close(&d);
}
END_TEST

/* The signatures' text is bounded per table (NPU_MAX_TEXT_BYTES, 64 MiB), not only their number
 * (65,536 of five 64 KiB cells were 20 GiB): 700 signatures with a 60 KiB shape cell keep what
 * fits, the rows of the rest are counted in the totals, left out of the groups and warned. */
START_TEST(ops_signature_text_is_bounded) {
    enum { LEN = 60 * 1024, N = 700 };
    char *shape = malloc(LEN);
    ck_assert_ptr_nonnull(shape);
    memset(shape, '9', LEN);
    drive d;
    drive_open(&d, "npu_ops");
    drive_source(&d, 0, -1, 0);
    for (int i = 0; i < N; i++) {
        snprintf(shape, 16, "%06d", i);
        shape[6] = ',';
        record_field f[2] = {{.key = "input_shapes", .value = shape, .value_len = LEN},
                             {.key = "op_state", .value = shape, .value_len = LEN / 2}};
        record r = {.type = REC_NPU_OP, .has = RF_DURATION, .name = "Add", .name_len = 3, .fields = f, .n_fields = 2};
        r.duration_ns = 1000;
        drive_record(&d, &r);
    }
    drive_end_source(&d);
    json_t *no = drive_finish(&d);
    const npu_ops_run *run = d.run;
    size_t kept = json_array_size(json_object_get(no, "items"));
    ck_assert_uint_gt(kept, 400);
    ck_assert_uint_lt(kept, (size_t)N);
    ck_assert_uint_le(run->t.text_bytes, NPU_MAX_TEXT_BYTES);
    ck_assert_uint_eq(run->t.rows_dropped, N - kept);
    ck_assert_int_eq(json_integer_value(json_object_get(no, "ops")), N);   /* every row in the totals */
    bool warned = false, cells = false;
    for (size_t i = 0; i < d.diag.count; i++) {
        warned |= strstr(d.diag.items[i], "64 MiB of their text") != NULL;
        cells |= strstr(d.diag.items[i], "op_state, task_type or output_formats cell(s) not kept") != NULL;
    }
    ck_assert(warned);
    ck_assert(cells);   /* the last kept group's op_state did not fit: unknown, and said */
    json_decref(no);
    drive_close(&d);
    free(shape);
}
END_TEST

START_TEST(ops_without_reference) {
    strbuf ops = {0};
    strbuf_append(&ops, OP_HEADER, strlen(OP_HEADER));
    op_row(&ops, "Add|Fused", "4", "3", "0.1");          /* a '|' must not break the Markdown table */
    strbuf_terminate(&ops);
    input in[] = {{"msprof-op-csv", "op_summary_1.csv", ops.data}};
    doc d;
    run_doc(in, 1, &d);
    json_t *no = json_object_get(d.json, "npu_ops");
    ck_assert(json_is_null(json_object_get(no, "missing_reference")));
    ck_assert(json_is_null(json_object_get(no, "reference")));
    ck_assert(json_is_null(json_object_get(json_array_get(json_object_get(no, "items"), 0), "ratio")));
    ck_assert(json_is_null(json_object_get(d.json, "npu_hotspots")));
    ck_assert_ptr_nonnull(strstr(d.md, "| Add\\|Fused |"));
    doc_free(&d);
    strbuf_free(&ops);
}
END_TEST

/* A legacy reference table whose only duration is `MicroBench Duration(us)` (read when
 * `Average Duration(us)` is absent; Average wins when both are there). By hand: Cast profiled
 * 2 us against MicroBench 1 us (ratio 2.0); Mul 1 us against Average 4 us, MicroBench 8 ignored. */
START_TEST(reference_microbench_column) {
    strbuf ops = {0};
    strbuf_append(&ops, OP_HEADER, strlen(OP_HEADER));
    op_row(&ops, "Cast", "2", "2", "0.1");
    op_row(&ops, "Mul", "2", "1", "0.1");
    strbuf_terminate(&ops);
    const char *legacy = "OP Type,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,"
                         "MicroBench Duration(us)\n"
                         "Cast,\"\"\"2\"\"\",DT_BF16,ND,\"\"\"1\"\"\",DT_BF16,1\n";
    const char *both = "OP Type,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,"
                       "MicroBench Duration(us),Average Duration(us)\n"
                       "Mul,\"\"\"2\"\"\",DT_BF16,ND,\"\"\"1\"\"\",DT_BF16,8,4\n";
    ck_assert_int_gt(msprof_reference_csv_parser.sniff("x.csv", (const uint8_t *)legacy, strlen(legacy)), 0);
    input in[] = {{"msprof-op-csv", "op_summary_1.csv", ops.data},
                  {"msprof-reference-csv", "reference/legacy.csv", legacy},
                  {"msprof-reference-csv", "reference/both.csv", both}};
    doc d;
    run_doc(in, 3, &d);
    json_t *items = json_object_get(json_object_get(d.json, "npu_ops"), "items");
    for (size_t i = 0; i < json_array_size(items); i++) {
        json_t *it = json_array_get(items, i);
        const char *type = json_string_value(json_object_get(it, "op_type"));
        CLOSE(num(json_object_get(it, "reference_us")), !strcmp(type, "Cast") ? 1 : 4);
    }
    ck_assert_uint_eq(json_array_size(items), 2);
    doc_free(&d);
    strbuf_free(&ops);
}
END_TEST

START_TEST(sniffs_are_decisive) {
    const char *aie = "[{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": \"core_trace for tile2,0\"}},";
    const char *torch = "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\"}]}";
    const char *torch_arr = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"ts\": 1}]";
    ck_assert_int_eq(aie_trace_json_parser.sniff("trace_4b.json", (const uint8_t *)aie, strlen(aie)), 100);
    ck_assert_int_eq(aie_trace_json_parser.sniff("trace.json", (const uint8_t *)torch, strlen(torch)), 0);
    ck_assert_int_eq(aie_trace_json_parser.sniff("trace.json", (const uint8_t *)torch_arr, strlen(torch_arr)), 0);
    const artefact_parser *tj = format_named("torch-trace-json");
    ck_assert_ptr_nonnull(tj);
    ck_assert_int_lt(tj->sniff("trace_4b.json", (const uint8_t *)aie, strlen(aie)), 100);
    ck_assert_int_eq(aie_run_json_parser.sniff("aie_run.json", (const uint8_t *)"{}", 2), 100);
    ck_assert_int_eq(msprof_reference_csv_parser.sniff("x.csv", (const uint8_t *)OP_HEADER, strlen(OP_HEADER)), 0);
    ck_assert_int_eq(msprof_op_csv_parser.sniff("op_summary_0_1.csv", (const uint8_t *)OP_HEADER, strlen(OP_HEADER)), 100);
    ck_assert_int_eq(msprof_op_csv_parser.sniff("x.csv", (const uint8_t *)REF_HEADER, strlen(REF_HEADER)), 0);
    strbuf lab = {0};
    ck_assert(aie_tile_label("mem_trace for tile2,1", 21, &lab) && strbuf_terminate(&lab));
    ck_assert_str_eq(lab.data, "mem 2,1");
    ck_assert(aie_tile_label("shim_trace for tile0,0", 22, &lab) && strbuf_terminate(&lab));
    ck_assert_str_eq(lab.data, "shim 0,0");
    ck_assert(aie_tile_label("Core tile (3, 4)", 16, &lab) && strbuf_terminate(&lab));
    ck_assert_str_eq(lab.data, "3,4");
    ck_assert(aie_tile_label("something", 9, &lab) && strbuf_terminate(&lab));
    ck_assert_str_eq(lab.data, "something");
    strbuf_free(&lab);
}
END_TEST

static Suite *npu_suite(void) {
    Suite *s = suite_create("npu");
    TCase *f = tcase_create("formats");
    tcase_add_test(f, us_to_ns_is_exact);
    tcase_add_test(f, msprof_quirky_cells);
    tcase_add_test(f, msprof_block_dim_generations);
    tcase_add_test(f, sniffs_are_decisive);
    suite_add_tcase(s, f);
    TCase *o = tcase_create("npu_ops");
    tcase_add_test(o, ops_stats_and_aliases);
    tcase_add_test(o, ops_without_reference);
    tcase_add_test(o, msprof_cut_cell_skips_row);
    tcase_add_test(o, ops_signatures_are_bounded);
    tcase_add_test(o, ops_durations_are_bounded_per_table);
    tcase_add_test(o, ops_signature_text_is_bounded);
    tcase_add_test(o, reference_microbench_column);
    tcase_set_timeout(o, 60);                       /* 65,539 rows in 7-byte chunks on a busy CI */
    suite_add_tcase(s, o);
    suite_add_tcase(s, npu_aie_tcase());
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(npu_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
