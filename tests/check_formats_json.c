/* Tests: the rocprofv3 JSON, rocm-smi and madengine formats on bytes
 * alone, fed in chunks of every size (records must not depend on where chunks end), and the
 * telemetry cell grammar (units, N/A, timestamps) every telemetry format shares. The same
 * formats against their fixtures are tests/formats_json.py's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/parser_registry.h"
#include "parsers/tokenizers/telemetry_values.h"

#define MAX_RECS 64

typedef struct collected {
    record r[MAX_RECS];
    char text[MAX_RECS][96];       /* name, or a metadata value */
    char key[MAX_RECS][32];
    size_t n;
} collected;

static bool collect(void *user, const record *r) {
    collected *c = user;
    ck_assert_uint_lt(c->n, MAX_RECS);
    c->r[c->n] = *r;
    const char *t = r->type == REC_METADATA ? r->value : r->name;
    size_t len = r->type == REC_METADATA ? r->value_len : r->name_len;
    c->text[c->n][0] = 0;
    if (t) snprintf(c->text[c->n], sizeof c->text[0], "%.*s", (int)len, t);
    if (r->key) snprintf(c->key[c->n], sizeof c->key[0], "%s", r->key);
    else if (r->n_fields) snprintf(c->text[c->n], sizeof c->text[0], "%.*s", (int)r->fields[0].value_len, r->fields[0].value);
    c->r[c->n].name = c->r[c->n].value = c->r[c->n].key = c->r[c->n].category = NULL;
    c->r[c->n].fields = NULL;
    if (r->category) snprintf(c->key[c->n], sizeof c->key[0], "%.*s", (int)r->category_len, r->category);
    c->n++;
    return true;
}

static const artefact_parser *format_named(const char *name) {
    for (const artefact_parser *const *p = parser_list(); *p; p++)
        if (!strcmp((*p)->name, name)) return *p;
    return NULL;
}

static void read_bytes(const char *name, const char *text, size_t chunk, collected *c, read_facts *f, diag_list *d) {
    const artefact_parser *p = format_named(name);
    ck_assert_ptr_nonnull(p);
    memset(c, 0, sizeof *c);
    memset(f, 0, sizeof *f);
    diag_init(d);
    parse_options opt = {0};
    record_sink sink = {.emit = collect, .user = c, .fields = ~0u};
    void *st = p->open_records(&opt, "bytes", &sink, f, d);
    ck_assert_ptr_nonnull(st);
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i += chunk) p->feed(st, (const uint8_t *)text + i, n - i < chunk ? n - i : chunk);
    p->finish(st);
    p->close(st);
}

static bool warned(const diag_list *d, const char *needle) {
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i], needle)) return true;
    return false;
}

START_TEST(telemetry_numbers_and_units) {
    double v;
    ck_assert(telemetry_number(" 841 MiB", 8, "MB MiB", &v) && v == 841.0);
    ck_assert(telemetry_number("22 %", 4, "%", &v) && v == 22.0);
    ck_assert(telemetry_number("65.5W", 5, "W", &v) && v == 65.5);
    ck_assert(telemetry_number("65.5 w", 6, "W", &v) && v == 65.5);          /* case ignored */
    ck_assert(telemetry_number("387.26", 6, "", &v) && v == 387.26);
    ck_assert(telemetry_number("387.26", 6, "W", &v) && v == 387.26);         /* a bare number: the column's unit */
    ck_assert(!telemetry_number("[N/A]", 5, "W", &v));
    ck_assert(!telemetry_number("N/A", 3, "W", &v));
    ck_assert(!telemetry_number("N/A (Secondary die)", 19, "W", &v));
    ck_assert(!telemetry_number("", 0, "W", &v));
    ck_assert(!telemetry_number("nan", 3, "W", &v));
    /* a unit the column does not have is no number of its unit */
    ck_assert(!telemetry_number("65 mW", 5, "W", &v));
    ck_assert(!telemetry_number("1.5 GiB", 7, "MB MiB", &v));
    ck_assert(!telemetry_number("22 %", 4, "W", &v));
    ck_assert(!telemetry_number("841 MiB", 7, "", &v));
    ck_assert(!telemetry_number("841 MiBs", 8, "MB MiB", &v));               /* a listed unit's prefix is not it */
    ck_assert(!telemetry_number("65 F", 4, "C", &v));
    unsigned long long b;
    ck_assert(telemetry_mib_to_bytes(841.0, &b) && b == 841ull << 20);
    ck_assert(telemetry_mib_to_bytes(0.5, &b) && b == 524288);
    ck_assert(!telemetry_mib_to_bytes(-1.0, &b));
}
END_TEST

START_TEST(telemetry_timestamps) {
    i128 t;
    ck_assert(telemetry_time_ns("1786553852", 10, &t) && t == (i128)1786553852 * 1000000000);
    ck_assert(telemetry_time_ns("1700000000.5", 12, &t) && t == (i128)1700000000500000000);
    ck_assert(telemetry_time_ns("2024/10/30 18:42:33.189", 23, &t) && t == (i128)1730313753189000000);
    ck_assert(telemetry_time_ns("2025-09-24T03:48:33.493Z", 24, &t) && t == (i128)1758685713493000000);
    ck_assert(telemetry_time_ns("2024-05-01 10:00:00.250000", 26, &t) && t == (i128)1714557600250000000);
    ck_assert(telemetry_time_ns(" 1970-01-01 00:00:00 ", 21, &t) && t == 0);
    /* a UTC offset (values from Python's datetime.fromisoformat(...).timestamp()) */
    ck_assert(telemetry_time_ns("2025-09-08T17:26:50+08:00", 25, &t) && t == (i128)1757323610000000000);
    ck_assert(telemetry_time_ns("2025-09-08T04:26:50.5-05:00", 27, &t) && t == (i128)1757323610500000000);
    ck_assert(telemetry_time_ns("2025-09-08T17:26:50+0800", 24, &t) && t == (i128)1757323610000000000);
    ck_assert(telemetry_time_ns("2025-09-08T17:26:50-05", 22, &t) && t == (i128)1757370410000000000);
    ck_assert(!telemetry_time_ns("2025-09-08T17:26:50+25:00", 25, &t));
    ck_assert(!telemetry_time_ns("2025-09-08T17:26:50+08:", 23, &t));
    ck_assert(!telemetry_time_ns("2024-13-01 10:00:00", 19, &t));
    /* a day past its month's end is no date (timegm would roll "02-31" into March) */
    ck_assert(!telemetry_time_ns("2025-02-31 10:00:00", 19, &t));
    ck_assert(!telemetry_time_ns("2023-02-29 10:00:00", 19, &t));
    ck_assert(!telemetry_time_ns("2100-02-29 10:00:00", 19, &t));
    ck_assert(!telemetry_time_ns("2025-04-31 10:00:00", 19, &t));
    ck_assert(telemetry_time_ns("2024-02-29 00:00:00", 19, &t) && t == (i128)1709164800 * 1000000000);
    ck_assert(telemetry_time_ns("2000-02-29 00:00:00", 19, &t) && t == (i128)951782400 * 1000000000);
    ck_assert(telemetry_time_ns("2025-12-31 23:59:59", 19, &t) && t == (i128)1767225599 * 1000000000);
    /* :60 is a leap second only at 23:59 (read as the next day's 00:00:00, as timegm does) */
    ck_assert(telemetry_time_ns("2016-12-31 23:59:60", 19, &t) && t == (i128)1483228800 * 1000000000);
    ck_assert(!telemetry_time_ns("2025-05-01 10:00:60", 19, &t));
    ck_assert(!telemetry_time_ns("yesterday", 9, &t));
    ck_assert(!telemetry_time_ns("12", 2, &t));
    ck_assert(!telemetry_time_ns("2024-05-01 10:00:00.", 20, &t));
}
END_TEST

static const char *const RPJ =
    "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"node\":{\"hostname\":\"n1\"},\"pid\":5},"
    "\"agents\":[{\"id\":{\"handle\":9},\"type\":1,\"node_id\":0,\"cu_count\":8},"
    "{\"id\":{\"handle\":10},\"type\":2,\"node_id\":1,\"name\":\"gfx942\",\"vendor_name\":\"AMD\","
    "\"product_name\":\"MI300X\",\"cu_count\":304,\"wave_front_size\":64,\"caches\":[{\"size\":1}],"
    "\"mem_banks\":[{\"heap_type\":1,\"size_in_bytes\":1024},{\"heap_type\":2,\"size_in_bytes\":2048},"
    "{\"heap_type\":0,\"size_in_bytes\":4096}]}],"
    "\"strings\":{\"callback_records\":[],\"buffer_records\":[{\"kind\":\"NONE\",\"operations\":[]},"
    "{\"kind\":\"HIP_RUNTIME_API\",\"operations\":[\"hipApiName\",\"hipMemcpy\"]},"
    "{\"kind\":\"MEMORY_COPY\",\"operations\":[\"MEMORY_COPY_NONE\",\"MEMORY_COPY_HOST_TO_HOST\","
    "\"MEMORY_COPY_HOST_TO_DEVICE\"]}]},"
    "\"kernel_symbols\":[{\"kernel_id\":3,\"kernel_name\":\"_Z1kv.kd\",\"formatted_kernel_name\":\"k()\","
    "\"sgpr_count\":10,\"arch_vgpr_count\":20}],"
    "\"buffer_records\":{\"kernel_dispatch\":[{\"kind\":11,\"operation\":2,\"correlation_id\":{\"internal\":7},"
    "\"start_timestamp\":18446744073709551000,\"end_timestamp\":18446744073709551615,"
    "\"dispatch_info\":{\"agent_id\":{\"handle\":10},\"queue_id\":{\"handle\":4},\"kernel_id\":3,"
    "\"private_segment_size\":16,\"group_segment_size\":512,\"workgroup_size\":{\"x\":64,\"y\":1,\"z\":1},"
    "\"grid_size\":{\"x\":4096,\"y\":2,\"z\":1}}},"
    "{\"kind\":11,\"start_timestamp\":5,\"end_timestamp\":6,\"dispatch_info\":{\"kernel_id\":4}},"
    "{\"kind\":11,\"start_timestamp\":7,\"dispatch_info\":{\"kernel_id\":3}}],"
    "\"hip_api\":[{\"kind\":1,\"operation\":1,\"start_timestamp\":1,\"end_timestamp\":3}],"
    "\"memory_copy\":[{\"kind\":2,\"operation\":2,\"start_timestamp\":10,\"end_timestamp\":30,"
    "\"dst_agent_id\":{\"handle\":10},\"src_agent_id\":{\"handle\":9},\"bytes\":256}],"
    "\"scratch_memory\":[{\"kind\":12,\"start_timestamp\":1,\"end_timestamp\":2}]}}]}";

START_TEST(rocprofv3_json_records_in_any_chunking) {
    for (size_t chunk = 1; chunk <= 8192; chunk *= 3) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("rocprofv3-json", RPJ, chunk, &c, &f, &d);
        ck_assert_uint_eq(c.n, 1 + 6 + 2 + 1 + 1);   /* hostname, one GPU's 6 facts, 2 dispatches, api, copy */
        ck_assert_str_eq(c.key[0], "hostname");
        ck_assert_str_eq(c.text[0], "n1");
        ck_assert_str_eq(c.key[1], "vendor");
        ck_assert_int_eq(c.r[1].device, 1);
        ck_assert_str_eq(c.key[6], "memory_bytes");
        ck_assert_str_eq(c.text[6], "3072");           /* frame-buffer heaps only */
        const record *k = &c.r[7];
        ck_assert_int_eq(k->type, REC_KERNEL_DISPATCH);
        ck_assert_str_eq(c.text[7], "k()");
        ck_assert(k->start_ns == (i128)18446744073709551000ull && k->duration_ns == 615);   /* beyond 2^63: exact */
        ck_assert_uint_eq(k->has & (RF_DEVICE | RF_STREAM | RF_CORRELATION | RF_GRID | RF_RESOURCES),
                          RF_DEVICE | RF_STREAM | RF_CORRELATION | RF_GRID | RF_RESOURCES);
        ck_assert(k->device == 1 && k->stream == 4 && k->correlation_id == 7);
        ck_assert(k->grid[0] == 4096 && k->grid[1] == 2 && k->workgroup[0] == 64);
        ck_assert(k->lds_bytes == 512 && k->scratch_bytes == 16 && k->vgpr == 20 && k->sgpr == 10);
        ck_assert_str_eq(c.text[8], "");                /* kernel id 4: no symbol, no name */
        ck_assert_uint_eq(c.r[8].has & (RF_DEVICE | RF_RESOURCES), 0);
        ck_assert_int_eq(c.r[9].type, REC_API_CALL);
        ck_assert_int_eq(c.r[9].domain, API_HIP);
        ck_assert_str_eq(c.text[9], "hipMemcpy");
        ck_assert_int_eq(c.r[10].type, REC_MEMORY_COPY);
        ck_assert_int_eq(c.r[10].copy, COPY_HTOD);
        ck_assert(c.r[10].bytes == 256 && c.r[10].device == 1 && c.r[10].peer_device == 0);
        ck_assert(warned(&d, "1 kernel dispatches whose kernel_id is not in kernel_symbols"));
        ck_assert(warned(&d, "1 records without start_timestamp"));
        ck_assert_uint_eq(f.rows_used, c.n);
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

START_TEST(rocprofv3_json_bad_input_is_named) {
    collected c;
    read_facts f;
    diag_list d;
    read_bytes("rocprofv3-json", "{\"traceEvents\":[]}", 7, &c, &f, &d);
    ck_assert_uint_eq(c.n, 0);
    ck_assert(warned(&d, "bytes: not a rocprofv3 JSON file"));
    diag_free(&d);
    read_facts_free(&f);
    /* cut in the middle of a record: what came before is kept, the place is named */
    char cut[2048];
    snprintf(cut, sizeof cut, "%.*s", (int)(strstr(RPJ, "\"hip_api\"") - RPJ), RPJ);
    read_bytes("rocprofv3-json", cut, 64, &c, &f, &d);
    ck_assert_uint_eq(c.n, 9);
    ck_assert(warned(&d, "bytes: byte "));
    ck_assert(f.truncated);
    diag_free(&d);
    read_facts_free(&f);
}
END_TEST

/* A key given twice in one object keeps its last value, as a JSON object read into a dict
 * (the pending record's text was both values one after the other), and the kernel-symbol
 * table's names stop at 64 MiB per file (TABLE_BYTES_MAX): a file repeating one symbol with
 * 60 KiB names 1,100 times (66 MB) is warned of where each copy was kept. */
START_TEST(rocprofv3_json_repeated_keys_and_table_budget) {
    static const char *const DUP =
        "{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":10},\"type\":2,\"node_id\":1,"
        "\"name\":\"gfx90a\",\"name\":\"gfx942\"}],"
        "\"kernel_symbols\":[{\"kernel_id\":3,\"kernel_name\":\"_Z1kv.kd\",\"kernel_name\":\"_Z2kv.kd\"}],"
        "\"buffer_records\":{\"kernel_dispatch\":[{\"kind\":11,\"start_timestamp\":5,\"end_timestamp\":6,"
        "\"dispatch_info\":{\"agent_id\":{\"handle\":10},\"kernel_id\":3}}]}}]}";
    collected c;
    read_facts f;
    diag_list d;
    read_bytes("rocprofv3-json", DUP, 7, &c, &f, &d);
    bool arch = false, kernel = false;
    for (size_t i = 0; i < c.n; i++) {
        if (c.r[i].type == REC_METADATA && !strcmp(c.key[i], "arch")) arch = !strcmp(c.text[i], "gfx942");
        if (c.r[i].type == REC_KERNEL_DISPATCH) kernel = !strcmp(c.text[i], "_Z2kv.kd");
    }
    ck_assert(arch && kernel);
    diag_free(&d);
    read_facts_free(&f);

    const artefact_parser *p = format_named("rocprofv3-json");
    memset(&c, 0, sizeof c);
    memset(&f, 0, sizeof f);
    diag_init(&d);
    parse_options opt = {0};
    record_sink sink = {.emit = collect, .user = &c, .fields = ~0u};
    void *st = p->open_records(&opt, "bytes", &sink, &f, &d);
    ck_assert_ptr_nonnull(st);
    enum { NAME = 60 * 1024 };
    char *sym = malloc(NAME + 64);
    ck_assert_ptr_nonnull(sym);
    int n = snprintf(sym, 64, "{\"kernel_id\":3,\"kernel_name\":\"");
    memset(sym + n, 'k', NAME);
    memcpy(sym + n + NAME, "\"},", 4);
    const char *head = "{\"rocprofiler-sdk-tool\":[{\"kernel_symbols\":[";
    ck_assert(p->feed(st, (const uint8_t *)head, strlen(head)));
    for (int i = 0; i < 1100; i++) ck_assert(p->feed(st, (const uint8_t *)sym, strlen(sym)));
    const char *tail = "{\"kernel_id\":4,\"kernel_name\":\"last\"}]}]}";
    ck_assert(p->feed(st, (const uint8_t *)tail, strlen(tail)));
    p->finish(st);
    p->close(st);
    ck_assert(warned(&d, "table entries dropped"));
    ck_assert(warned(&d, "64 MiB of their names"));
    free(sym);
    diag_free(&d);
    read_facts_free(&f);
}
END_TEST

START_TEST(rocm_smi_blocks_in_any_chunking) {
    const char *csv = "device,Temperature (Sensor edge) (C),Average Graphics Package Power (W),GPU use (%)\n"
                      "card0,35.0,90.0,5\r\n"
                      "card1,N/A,N/A (Secondary die),7\n"
                      "\n"
                      "device,VRAM Total Memory (B),VRAM Total Used Memory (B)\n"
                      "card0,68702699520,10960896\n"
                      "cardX,1,1\n"
                      "device,Temperature (Sensor edge) (C),Average Graphics Package Power (W),GPU use (%)\n"
                      "card2,95 F,90 mW,5 W\n";       /* units the columns do not have: unknown */
    for (size_t chunk = 1; chunk <= 4096; chunk *= 4) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("rocm-smi-csv", csv, chunk, &c, &f, &d);
        ck_assert_uint_eq(c.n, 3);
        ck_assert_uint_eq(c.r[0].has, RF_DEVICE | RF_TEMP | RF_POWER | RF_UTIL);
        ck_assert(c.r[0].temp_c == 35.0 && c.r[0].power_w == 90.0 && c.r[0].util_pct == 5.0);
        ck_assert_uint_eq(c.r[1].has, RF_DEVICE | RF_UTIL);       /* N/A is unknown, not 0 */
        ck_assert_int_eq(c.r[1].device, 1);
        ck_assert_uint_eq(c.r[2].has, RF_DEVICE | RF_VRAM_BYTES | RF_VRAM_TOTAL);
        ck_assert(c.r[2].vram_used_bytes == 10960896 && c.r[2].vram_total_bytes == 68702699520ull);
        ck_assert(warned(&d, "1 rows whose device cell is not cardN ignored (first at line 7)"));
        ck_assert_uint_eq(c.n, 3);                                  /* card2: no reading, no sample */
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

START_TEST(madengine_columns_per_gpu) {
    const char *csv = "time,Power(Watt) GPU0,Power(Watt) GPU1\n"
                      "2024-05-01 10:00:00.250000,120.5,N/A\n"
                      "garbage,130,99\n"
                      "2024-02-30 10:00:00,140 mW,150 Watt\n";   /* no such day; mW is no watts */
    for (size_t chunk = 1; chunk <= 4096; chunk *= 4) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("madengine-gpu-info-csv", csv, chunk, &c, &f, &d);
        ck_assert_uint_eq(c.n, 4);
        ck_assert_uint_eq(c.r[3].has, RF_DEVICE | RF_POWER);      /* no such day: no time */
        ck_assert(c.r[3].device == 1 && c.r[3].power_w == 150.0);
        ck_assert_uint_eq(c.r[0].has, RF_DEVICE | RF_START | RF_POWER);
        ck_assert(c.r[0].power_w == 120.5 && c.r[0].start_ns == (i128)1714557600250000000);
        ck_assert_uint_eq(c.r[2].has, RF_DEVICE | RF_POWER);      /* no readable time: none, not 0 */
        ck_assert_int_eq(c.r[2].device, 1);
        ck_assert(warned(&d, "2 rows without a readable time (first at line 3)"));
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

START_TEST(sniff_knows_the_new_formats) {
    const char *rpj = "{\"rocprofiler-sdk-tool\":[";
    ck_assert_int_eq(format_named("rocprofv3-json")->sniff("x.json", (const uint8_t *)rpj, strlen(rpj)), 100);
    ck_assert_int_eq(format_named("rocprofv3-json")->sniff("1_results.json.gz", (const uint8_t *)"\x1f\x8b", 2), 85);
    ck_assert_int_eq(format_named("rocprofv3-json")->sniff("trace.json", (const uint8_t *)"{\"traceEvents\"", 14), 0);
    const char *rs = "device,GPU use (%)\ncard0,5\n";
    ck_assert_int_eq(format_named("rocm-smi-csv")->sniff("x.csv", (const uint8_t *)rs, strlen(rs)), 90);
    const char *me = "time,vram(%) GPU0\n";
    ck_assert_int_eq(format_named("madengine-gpu-info-csv")->sniff("p.csv", (const uint8_t *)me, strlen(me)), 95);
    const char *v1 = "{ \"traceEvents\":[{}\n";
    ck_assert_int_eq(format_named("rocprof-v1-json")->sniff("results.json", (const uint8_t *)v1, strlen(v1)), 95);
    ck_assert_int_eq(format_named("rocprof-v1-db")->sniff("results.db", (const uint8_t *)"SQLite format 3", 16), 90);
    ck_assert_int_eq(format_named("rocprof-v1-db")->sniff("results.db", (const uint8_t *)"hello", 5), 0);
    ck_assert_int_eq(format_named("rocprofv3-json")->kind, ARTEFACT_ANALYSIS_ONLY);
    ck_assert_int_eq(format_named("rocm-smi-csv")->kind, ARTEFACT_ANALYSIS_ONLY);
    ck_assert_int_eq(format_named("madengine-gpu-info-csv")->kind, ARTEFACT_ANALYSIS_ONLY);
}
END_TEST

START_TEST(rocprof_v1_json_lanes_and_exact_times) {
    const char *json =
        "{ \"traceEvents\":[{}\n"
        ",{\"args\":{\"name\":\"COPY\"},\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"sort_index\":0}\n"
        ",{\"args\":{\"name\":\"GPU1\"},\"ph\":\"M\",\"pid\":7,\"name\":\"process_name\",\"sort_index\":1}\n"
        ",{\"ph\":\"X\",\"name\":\"gemm\",\"pid\":7,\"tid\":0,\"ts\":\"12\",\"dur\":\"3\",\n"
        "  \"args\":{\n    \"KernelName\":\"gemm\",\n    \"queue-id\":\"2\",\n"
        "    \"BeginNs\":\"9007199254740993\",\n    \"EndNs\":\"9007199254744994\"\n  }\n}\n"
        ",{\"ph\":\"X\",\"name\":\"gemm\",\"pid\":7,\"tid\":0,\"ts\":\"12\",\"dur\":\"3\",\"args\":{\"proc-id\":\"1\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"CopyDeviceToHost\",\"pid\":1,\"tid\":0,\"ts\":\"20\",\"dur\":\"5\",\"args\":{}}\n"
        ",{\"ph\":\"X\",\"name\":\"lost\",\"pid\":99,\"tid\":0,\"ts\":\"20\",\"dur\":\"5\",\"args\":{}}\n"
        "],\n\"otherData\": {\n    \"x\": \"y\"\n  }\n}";
    for (size_t chunk = 1; chunk <= 4096; chunk *= 5) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("rocprof-v1-json", json, chunk, &c, &f, &d);
        ck_assert_uint_eq(c.n, 2);
        ck_assert_int_eq(c.r[0].type, REC_KERNEL_DISPATCH);
        ck_assert(c.r[0].start_ns == (i128)9007199254740993ll && c.r[0].duration_ns == 4001);   /* args, exact */
        ck_assert(c.r[0].device == 1 && c.r[0].stream == 2);
        ck_assert_int_eq(c.r[1].type, REC_MEMORY_COPY);
        ck_assert_int_eq(c.r[1].copy, COPY_DTOH);
        ck_assert(c.r[1].start_ns == 20000 && c.r[1].duration_ns == 5000);                  /* ts/dur µs */
        ck_assert(warned(&d, "1 HIP activity kernel events skipped"));
        ck_assert_uint_eq(d.count, 1);
        diag_free(&d);
        read_facts_free(&f);
    }
    /* the other order (HIP activity first): still one dispatch, the first kind kept */
    const char *reversed =
        "{ \"traceEvents\":[{}\n"
        ",{\"args\":{\"name\":\"GPU1\"},\"ph\":\"M\",\"pid\":7,\"name\":\"process_name\",\"sort_index\":1}\n"
        /* a nameless event first: ignored, and it decides nothing */
        ",{\"ph\":\"X\",\"name\":\"\",\"pid\":7,\"tid\":0,\"ts\":\"1\",\"dur\":\"1\",\"args\":{\"KernelName\":\"\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"gemm\",\"pid\":7,\"tid\":0,\"ts\":\"12\",\"dur\":\"3\",\"args\":{\"proc-id\":\"1\"}}\n"
        ",{\"ph\":\"X\",\"name\":\"gemm\",\"pid\":7,\"tid\":0,\"ts\":\"12\",\"dur\":\"3\",\n"
        "  \"args\":{\"KernelName\":\"gemm\",\"BeginNs\":\"12000\",\"EndNs\":\"15001\"}}\n"
        "]}";
    for (size_t chunk = 1; chunk <= 4096; chunk *= 5) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("rocprof-v1-json", reversed, chunk, &c, &f, &d);
        ck_assert_uint_eq(c.n, 1);
        ck_assert(c.r[0].type == REC_KERNEL_DISPATCH && c.r[0].duration_ns == 3000);
        ck_assert(warned(&d, "1 results.txt kernel events skipped: the same dispatches came from HIP activity"));
        diag_free(&d);
        read_facts_free(&f);
    }
    /* microseconds with a fraction, exactly (integer() truncated "20.7" to 20: 20,000 ns) and
     * rounded half away from zero; a value past 64 bits is no time at all, never a wrapped one */
    const char *frac =
        "{ \"traceEvents\":[{}\n"
        ",{\"args\":{\"name\":\"COPY\"},\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"sort_index\":0}\n"
        ",{\"ph\":\"X\",\"name\":\"CopyDeviceToHost\",\"pid\":1,\"tid\":0,\"ts\":\"20.7\",\"dur\":5.0005,\"args\":{}}\n"
        ",{\"ph\":\"X\",\"name\":\"CopyHostToDevice\",\"pid\":1,\"tid\":0,\"ts\":\"1e40\",\"dur\":\"5\",\"args\":{}}\n"
        "]}";
    collected c;
    read_facts f;
    diag_list d;
    read_bytes("rocprof-v1-json", frac, 11, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert(c.r[0].start_ns == 20700 && c.r[0].duration_ns == 5001);
    diag_free(&d);
    read_facts_free(&f);
}
END_TEST

START_TEST(amd_smi_raw_readings_beside_the_reference_ones) {
    /* amd-smi metric --csv: epoch timestamps, several GPUs per timestamp, list-valued cells */
    const char *csv = "timestamp,gpu,gfx_activity,vcn_activity,socket_power,power_management,used_vram,total_vram,"
                      "edge,hotspot,mem\n"
                      "1786553852,0,10,\"['N/A', 'N/A']\",238,ENABLED,1024,196592,N/A,37,40\n"
                      "1786553852,1,20,\"[0, 0]\",N/A,ENABLED,N/A,196592,30,N/A,41\n"
                      "1786553853,0,30,N/A,238 mW,ENABLED,1024,196592 GB,N/A,37 F,40\n";  /* foreign units */
    for (size_t chunk = 1; chunk <= 4096; chunk *= 6) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("amd-smi-csv", csv, chunk, &c, &f, &d);
        ck_assert_uint_eq(c.n, 3);
        const record *a = &c.r[0], *b = &c.r[1], *e = &c.r[2];
        ck_assert(!(e->has & (RF_POWER | RF_TEMP | RF_VRAM_TOTAL)) && (e->has & RF_VRAM_BYTES));
        ck_assert(a->device == 0 && b->device == 1);
        ck_assert(a->start_ns == (i128)1786553852 * 1000000000 && b->start_ns == a->start_ns);
        ck_assert(a->power_w == 238.0 && !(b->has & RF_POWER));             /* N/A: unknown, not 0 */
        ck_assert(a->temp_c == 37.0 && !(b->has & RF_TEMP));                /* hotspot, never mem */
        ck_assert(a->vram_gib == 1.0 && a->vram_used_bytes == 1ull << 30);
        ck_assert(a->vram_total_bytes == 196592ull << 20);
        ck_assert_uint_eq(b->has & (RF_VRAM | RF_VRAM_BYTES | RF_VRAM_TOTAL), 0);   /* no used, no total alone */
        ck_assert(a->util_pct == 10.0 && b->util_pct == 20.0);
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

static Suite *formats_json_suite(void) {
    Suite *s = suite_create("formats_json");
    TCase *tc = tcase_create("telemetry_values");
    tcase_add_test(tc, telemetry_numbers_and_units);
    tcase_add_test(tc, telemetry_timestamps);
    suite_add_tcase(s, tc);
    tc = tcase_create("bytes");
    tcase_add_test(tc, rocprofv3_json_records_in_any_chunking);
    tcase_add_test(tc, rocprofv3_json_bad_input_is_named);
    tcase_add_test(tc, rocprofv3_json_repeated_keys_and_table_budget);
    tcase_add_test(tc, rocm_smi_blocks_in_any_chunking);
    tcase_add_test(tc, madengine_columns_per_gpu);
    tcase_add_test(tc, rocprof_v1_json_lanes_and_exact_times);
    tcase_add_test(tc, sniff_knows_the_new_formats);
    tcase_add_test(tc, amd_smi_raw_readings_beside_the_reference_ones);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(formats_json_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
