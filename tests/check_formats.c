/* Tests: the format and analysis registries, and every record-emitting format on bytes
 * alone (no files, no run directory): the records a format emits are what the test sink
 * collected. Discovery by the formats' names is tested on a small temporary directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyses/analysis.h"
#include "base/strbuf.h"
#include "core/run_files.h"
#include "parsers/tokenizers/copy_kind.h"
#include "parsers/parser_registry.h"
#include "tests/test_util.h"

#define MAX_RECS 64

/* A sink that keeps copies of what it is sent (names and values copied: they live only
 * during the emit call). */
typedef struct collected {
    record r[MAX_RECS];
    char text[MAX_RECS][128];
    size_t n;
} collected;

static bool collect(void *user, const record *r) {
    collected *c = user;
    ck_assert_uint_lt(c->n, MAX_RECS);
    c->r[c->n] = *r;
    const char *t = r->type == REC_METADATA ? r->value : r->name;
    size_t len = r->type == REC_METADATA ? r->value_len : r->name_len;
    if (t) snprintf(c->text[c->n], sizeof c->text[0], "%.*s", (int)len, t);
    c->r[c->n].name = c->r[c->n].value = NULL;
    c->n++;
    return true;
}

static const artefact_parser *format_named(const char *name) {
    for (const artefact_parser *const *p = parser_list(); *p; p++)
        if (!strcmp((*p)->name, name)) return *p;
    return NULL;
}

/* Feeds `text` to format `name` in chunks of `chunk` bytes, to a sink taking `types`
 * (record_sink.types); records into c, facts into f. */
static void read_typed(const char *name, const char *text, size_t chunk, unsigned fields, unsigned types, collected *c,
                       read_facts *f, diag_list *d) {
    const artefact_parser *p = format_named(name);
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(p->open_records);
    memset(c, 0, sizeof *c);
    memset(f, 0, sizeof *f);
    diag_init(d);
    parse_options opt = {0};
    record_sink sink = {.emit = collect, .user = c, .fields = fields, .types = types};
    void *st = p->open_records(&opt, "bytes", &sink, f, d);
    ck_assert_ptr_nonnull(st);
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i += chunk) p->feed(st, (const uint8_t *)text + i, n - i < chunk ? n - i : chunk);
    p->finish(st);
    p->close(st);
}

START_TEST(every_registry_entry_is_filled_in) {
    size_t n = 0;
    for (const artefact_parser *const *pp = parser_list(); *pp; pp++, n++) {
        const artefact_parser *p = *pp;
        ck_assert_msg(p->name && *p->name, "format %zu has no name", n);
        ck_assert_msg(p->kind < ARTEFACT_KIND_COUNT || p->kind == ARTEFACT_ANALYSIS_ONLY, "%s: no kind", p->name);
        ck_assert_msg(p->names && p->names[0], "%s: no file names", p->name);
        ck_assert_msg(p->sniff && p->finish && p->close, "%s: an entry point is missing", p->name);
        ck_assert_msg(!p->feed != !p->read_fd, "%s: exactly one of feed and read_fd", p->name);
        ck_assert_msg(!p->read_fd || p->open_records, "%s: a descriptor-reading format emits records", p->name);
        ck_assert_msg(p->open_records, "%s: no open_records", p->name);
        ck_assert_msg(!p->resume_point == !p->join && !p->resume_point == !p->open_records_resumed,
                      "%s: resume hooks are all or none", p->name);
        if (p->kind != ARTEFACT_ANALYSIS_ONLY) {   /* analysis-only: the section analyses */
            const analysis *a = analysis_for_kind(p->kind);
            ck_assert_msg(a && a->open && a->consume && a->finish && a->close && a->facts && a->wants,
                          "%s: no complete analysis consumes its kind", p->name);
        }
    }
    ck_assert_uint_ge(n, 3);
}
END_TEST

START_TEST(sniff_picks_the_best_format) {
    const char *amd = "timestamp,gpu,vram_used,gfx_util\n";
    ck_assert_str_eq(parser_for(ARTEFACT_TELEMETRY, "amd_smi.csv", (const uint8_t *)amd, strlen(amd))->name, "amd-smi-csv");
    ck_assert_str_eq(parser_for(ARTEFACT_KERNEL_TRACE, "x.csv", (const uint8_t *)"Kernel_Name,Start\n", 18)->name,
                     "kernel-trace-csv");
    /* nothing fits: the first format of the kind, which then says what is wrong */
    ck_assert_str_eq(parser_for(ARTEFACT_KERNEL_TRACE, "x.bin", (const uint8_t *)"\x01\x02", 2)->name, "kernel-trace-csv");
    /* a Chrome trace by its content; other JSON is not one */
    ck_assert_int_eq(format_named("torch-trace-json")->sniff("t.json", (const uint8_t *)"  {\"traceEvents\":[", 18), 80);
    ck_assert_int_eq(format_named("torch-trace-json")->sniff("t.json", (const uint8_t *)"[{\"ph\": \"X\"", 11), 80);
    ck_assert_int_eq(format_named("torch-trace-json")->sniff("t.json", (const uint8_t *)"  {\"a\":1}", 9), 0);
    ck_assert_int_eq(format_named("torch-trace-json")->sniff("t.json", (const uint8_t *)"hello", 5), 0);
}
END_TEST

/* read_typed() to a sink taking every type but REC_TRACE_EVENT (types 0). */
static void read_bytes(const char *name, const char *text, size_t chunk, unsigned fields, collected *c, read_facts *f,
                       diag_list *d) {
    read_typed(name, text, chunk, fields, 0, c, f, d);
}

/* The torch format emits REC_TRACE_EVENT only to a sink naming it, and then nothing else:
 * the document's items in order, as the reference reads them. */
START_TEST(torch_trace_events_only_when_named) {
    const char *doc = "{\"traceEvents\": [{\"name\": \"ProfilerStep#1\", \"cat\": \"user_annotation\", \"ts\": 1.5, "
                      "\"dur\": \"2\"}, {\"cat\": \"kernel\", \"name\": \"k\", \"ts\": NaN, \"dur\": 3}],\n"
                      "\"metadata\": {\"n_steps\": 4, \"pytorch_version\": \"2.6\", \"mfu_pct\": Infinity, \"x\": []}}";
    for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
        collected c;
        read_facts f;
        diag_list d;
        read_typed("torch-trace-json", doc, chunk, 0, 0, &c, &f, &d);
        ck_assert_uint_ge(c.n, 2);
        for (size_t i = 0; i < c.n; i++) ck_assert_int_ne(c.r[i].type, REC_TRACE_EVENT);
        diag_free(&d);
        read_facts_free(&f);
        read_typed("torch-trace-json", doc, chunk, 0, REC_BIT(REC_TRACE_EVENT), &c, &f, &d);
        ck_assert_uint_eq(c.n, 9);
        for (size_t i = 0; i < c.n; i++) ck_assert_int_eq(c.r[i].type, REC_TRACE_EVENT);
        ck_assert_uint_eq(c.r[0].trace.flags, TE_EVENTS | TE_LIST);
        ck_assert_uint_eq(c.r[1].trace.flags, TE_EVENT | TE_NAME_STR | TE_TS | TE_DUR);
        ck_assert_str_eq(c.text[1], "ProfilerStep#1");
        ck_assert(c.r[1].ts_us == 1.5 && c.r[1].dur_us == 2.0 && (c.r[1].has & RF_US_FLOAT));
        ck_assert_uint_eq(c.r[2].trace.flags, TE_EVENT | TE_NAME_STR | TE_DUR);      /* ts NaN: absent */
        ck_assert_uint_eq(c.r[3].trace.flags, TE_META_OPEN | TE_DICT);
        ck_assert_uint_eq(c.r[4].trace.flags, TE_META | TE_TRUTHY);
        ck_assert(c.r[4].number == 4.0 && (c.r[4].has & RF_VALUE));
        ck_assert_uint_eq(c.r[5].trace.flags, TE_META | TE_TRUTHY | TE_STRING);
        ck_assert_uint_eq(c.r[6].trace.flags, TE_META | TE_TRUTHY | TE_NONFINITE);  /* counted by the analysis */
        ck_assert_uint_eq(c.r[7].trace.flags, TE_META);                            /* [] is falsy */
        ck_assert_uint_eq(c.r[8].trace.flags, TE_END | TE_VALID | TE_ROOT_OBJECT);
        ck_assert_uint_eq(c.r[8].trace.nonfinite, 1);                               /* the events' NaN */
        ck_assert_uint_eq(d.count, 0);
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

START_TEST(kernel_trace_rows_become_dispatch_records) {
    const char *csv = "Kind,Agent_Id,Queue_Id,Correlation_Id,Kernel_Name,Start_Timestamp,End_Timestamp\n"
                      "KERNEL_DISPATCH,1,3,17,Cijk_gemm,9007199254740993,9007199254741993\n"
                      "KERNEL_DISPATCH,1,3,18,  ,10,20\n"
                      "KERNEL_DISPATCH,2,4,19,flash_fwd,30,25\n"
                      "KERNEL_DISPATCH,2,4,20,flash_fwd,40,90\n";
    for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("kernel-trace-csv", csv, chunk, RF_START | RF_END | RF_DEVICE | RF_STREAM | RF_CORRELATION, &c, &f, &d);
        ck_assert_uint_eq(c.n, 2);                        /* a blank name and a negative duration are skipped */
        ck_assert_int_eq(c.r[0].type, REC_KERNEL_DISPATCH);
        ck_assert_str_eq(c.text[0], "Cijk_gemm");
        ck_assert(c.r[0].duration_ns == 1000);            /* exact beyond 2^53 */
        ck_assert(c.r[0].start_ns == (i128)9007199254740993LL);
        ck_assert_uint_eq(c.r[0].has, RF_DURATION | RF_START | RF_END | RF_DEVICE | RF_STREAM | RF_CORRELATION);
        ck_assert_int_eq(c.r[0].device, 1);
        ck_assert_int_eq(c.r[0].stream, 3);
        ck_assert_uint_eq(c.r[0].correlation_id, 17);
        ck_assert_uint_eq(c.r[0].line, 2);
        ck_assert_str_eq(c.text[1], "flash_fwd");
        ck_assert(c.r[1].duration_ns == 50);
        ck_assert_uint_eq(c.r[1].line, 5);
        ck_assert_uint_eq(f.rows_used, 2);
        ck_assert_uint_eq(f.n_skips, 2);
        ck_assert_uint_eq(d.count, 1);                    /* the non-positive duration, with its line */
        ck_assert_ptr_nonnull(strstr(d.items[0], "first at line 4"));
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

START_TEST(kernel_trace_sends_only_what_is_wanted) {
    collected c;
    read_facts f;
    diag_list d;
    read_bytes("kernel-trace-csv", "Agent_Id,KernelName,DurationNs\n0,k,5\n", 4096, 0, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_uint_eq(c.r[0].has, RF_DURATION);          /* no consumer asked for the agent */
    ck_assert(c.r[0].duration_ns == 5);
    diag_free(&d);
    read_facts_free(&f);
}
END_TEST

START_TEST(telemetry_rows_become_samples) {
    const char *csv = "amd-smi monitor banner\n"
                      "timestamp,gpu,vram_used_mb,gfx_util,rocm_version\n"
                      "1,0,2048,50,\n"
                      "timestamp,gpu,vram_used_mb,gfx_util,rocm_version\n"
                      "2,0,-1,150, 6.2.1 \n"
                      "3,0,1024,x,6.3\n";
    for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("amd-smi-csv", csv, chunk, 0, &c, &f, &d);
        ck_assert_uint_eq(c.n, 4);                        /* three samples and the first ROCm version */
        ck_assert_int_eq(c.r[0].type, REC_TELEMETRY_SAMPLE);
        /* RunMetrics' readings; the raw ones (device, time, bytes) are check_formats_json.c's */
        ck_assert_uint_eq(c.r[0].has & (RF_VRAM | RF_UTIL), RF_VRAM | RF_UTIL);
        ck_assert(c.r[0].vram_gib == 2.0 && c.r[0].util_pct == 50.0);
        ck_assert_uint_eq(c.r[0].vram_used_bytes, 2ull << 30);
        ck_assert_uint_eq(c.r[1].has & (RF_VRAM | RF_UTIL | RF_VRAM_BYTES), 0);   /* negative VRAM and 150 % are refused, not 0 */
        ck_assert_int_eq(c.r[2].type, REC_METADATA);
        ck_assert_str_eq(c.r[2].key, "rocm_version");
        ck_assert_str_eq(c.text[2], "6.2.1");
        ck_assert_uint_eq(c.r[3].has & (RF_VRAM | RF_UTIL), RF_VRAM);
        ck_assert(c.r[3].vram_gib == 1.0);
        ck_assert_uint_eq(f.rows_used, 2);
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

/* amd-smi lines end at \n, \r\n, \r, \v, \f, \x1c-\x1e, U+0085 and U+2028/U+2029 (as Python's
 * splitlines), cut by any chunking; runs of plain bytes are copied at once (sm_feed): the same
 * six samples at every chunk size, in file order. A line past the 1 MiB cap is cut (a warning,
 * the cap counted exactly) and the next line is read. */
START_TEST(telemetry_line_ends_at_every_chunking) {
    const char *csv = "timestamp,gpu,vram_used_mb,gfx_util\n"
                      "1,0,1024,10\r\n2,0,1024,20\r3,0,1024,30\xE2\x80\xA8"
                      "4,0,1024,40\xC2\x85" "5,0,1024,50\x0B" "6,0,1024,60\xE2\x80\xA9";
    for (size_t chunk = 1; chunk <= 80; chunk++) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("amd-smi-csv", csv, chunk, 0, &c, &f, &d);
        ck_assert_msg(c.n == 6, "chunk %zu: %zu records, last util %g", chunk, c.n, c.n ? c.r[c.n - 1].util_pct : -1.0);
        for (size_t i = 0; i < 6; i++) {
            ck_assert_int_eq(c.r[i].type, REC_TELEMETRY_SAMPLE);
            ck_assert(c.r[i].util_pct == 10.0 * (double)(i + 1));
        }
        /* the timestamps (1..6) are not times: one warning says so, nothing else */
        ck_assert_uint_eq(d.count, 1);
        ck_assert_ptr_nonnull(strstr(d.items[0], "timestamps in column 'timestamp' cannot be read"));
        diag_free(&d);
        read_facts_free(&f);
    }
    strbuf big = {0};                   /* header, a line of 1 MiB + 5 bytes, one sample */
    const char *head = "timestamp,gpu,vram_used_mb,gfx_util\n";
    strbuf_append(&big, head, strlen(head));
    for (size_t i = 0; i < (1u << 20) + 5; i++) strbuf_putc(&big, 'x');
    strbuf_append(&big, "\n7,0,1024,70\n", 13);
    strbuf_terminate(&big);
    for (size_t chunk = 4093; chunk <= 1u << 20; chunk *= 16) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("amd-smi-csv", big.data, chunk, 0, &c, &f, &d);
        ck_assert_uint_eq(c.n, 2);             /* the cut line is a row too (without a reading) */
        ck_assert_uint_eq(c.r[0].has & RF_UTIL, 0);
        ck_assert(c.r[1].util_pct == 70.0);
        bool warned = false;
        for (size_t i = 0; i < d.count; i++) warned |= strstr(d.items[i], "1 lines longer than 1048576 bytes were cut") != NULL;
        ck_assert(warned);
        diag_free(&d);
        read_facts_free(&f);
    }
    strbuf_free(&big);
}
END_TEST

START_TEST(nvidia_smi_rows_become_samples) {
    const char *csv = "timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
                      "2023/06/22 18:56:56.252, 0, 22 %, 841 MiB\n"
                      "timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
                      "2023/06/22 18:56:57.274, 1, [N/A], 1024 MiB\n";
    for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("nvidia-smi-csv", csv, chunk, 0, &c, &f, &d);
        ck_assert_uint_eq(c.n, 2);                        /* the repeated header is no sample */
        ck_assert_uint_eq(c.r[0].has & (RF_VRAM | RF_UTIL | RF_DEVICE), RF_VRAM | RF_UTIL | RF_DEVICE);
        ck_assert(c.r[0].vram_gib == 841.0 / 1024.0 && c.r[0].util_pct == 22.0);
        ck_assert_uint_eq(c.r[1].has & (RF_VRAM | RF_UTIL | RF_DEVICE), RF_VRAM | RF_DEVICE);   /* [N/A] is unknown, not 0 */
        ck_assert_int_eq(c.r[1].device, 1);
        ck_assert(c.r[1].vram_gib == 1.0);
        ck_assert_uint_eq(f.rows_used, 2);
        ck_assert_uint_eq(d.count, 0);
        diag_free(&d);
        read_facts_free(&f);
    }
    /* chosen by content, except that goblin_runner's amd_smi.csv keeps the reference's rules */
    const uint8_t *h = (const uint8_t *)csv;
    ck_assert_str_eq(parser_for(ARTEFACT_TELEMETRY, "nvidia_smi.csv", h, strlen(csv))->name, "nvidia-smi-csv");
    ck_assert_str_eq(parser_for(ARTEFACT_TELEMETRY, "amd_smi.csv", h, strlen(csv))->name, "amd-smi-csv");
}
END_TEST

/* A cell's unit word must be its column's: "65 mW" under [W] is no 65 W, "22 MiB" no
 * utilisation, "0 W" no index; a header in mW takes cells in mW. */
START_TEST(nvidia_smi_cells_take_only_their_columns_units) {
    const char *csv = "timestamp, index, utilization.gpu [%], power.draw [W], temperature.gpu\n"
                      "2023/06/22 18:56:56.252, 0, 22 %, 65.5 W, 40\n"
                      "2023/06/22 18:56:57.252, 1 W, 22 MiB, 65 mW, 40 F\n";
    const char *mw = "timestamp, index, power.draw [mW]\n"
                     "2023/06/22 18:56:58.252, 2, 65000 mW\n"
                     "2023/06/22 18:56:59.252, 3, 65 W\n";
    const uint32_t readings = RF_UTIL | RF_POWER | RF_TEMP | RF_DEVICE;
    for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
        collected c;
        read_facts f;
        diag_list d;
        read_bytes("nvidia-smi-csv", csv, chunk, 0, &c, &f, &d);
        ck_assert_uint_eq(c.n, 2);
        ck_assert_uint_eq(c.r[0].has & readings, readings);
        ck_assert(c.r[0].util_pct == 22.0 && c.r[0].power_w == 65.5 && c.r[0].temp_c == 40.0);
        ck_assert_uint_eq(c.r[1].has & readings, 0);                     /* every unit foreign: unknown */
        diag_free(&d);
        read_facts_free(&f);
        read_bytes("nvidia-smi-csv", mw, chunk, 0, &c, &f, &d);
        ck_assert_uint_eq(c.n, 2);
        ck_assert(c.r[0].device == 2 && (c.r[0].has & RF_POWER) && c.r[0].power_w == 65.0);
        ck_assert(c.r[1].device == 3 && !(c.r[1].has & RF_POWER));     /* W under [mW]: no reading */
        diag_free(&d);
        read_facts_free(&f);
    }
}
END_TEST

/* The rocpd database fixture through the reader, alone in a run directory the way
 * rocprofv3 leaves it (<host>/<pid>_results.db): its kernels, by the descriptor-reading entry. */
START_TEST(rocpd_database_gives_kernel_records) {
    char *dir = tu_tempdir();
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/node1", dir);
    mkdir(sub, 0755);
    tu_copy_fixture("rocprofv3/rocpd_ck_bmm_28_results.db", sub, "4242_results.db");
    run_result r;
    tu_parse(dir, false, &r);
    ck_assert_str_eq(r.info[ARTEFACT_KERNEL_TRACE].format, "rocpd-sqlite");
    ck_assert_str_eq(r.kernels.facts.found_by, "*/*_results.db");
    ck_assert_int_eq(r.kernels.facts.sniff_score, 95);
    ck_assert_uint_eq(r.kernels.kernels.dispatches, 151);
    ck_assert_uint_eq(r.kernels.facts.rows_used, 151);
    ck_assert(r.kernels.complete);
    ck_assert(!tu_warned(&r, "not a rocpd database"));
    run_result_free(&r);
    /* an SQLite header over garbage (a corrupt database): a warning naming it, no kernels */
    char junk[4096];
    memset(junk, 0x5a, sizeof junk);
    memcpy(junk, "SQLite format 3", 16);
    tu_write(sub, "4242_results.db", junk, sizeof junk);
    tu_parse(dir, false, &r);
    ck_assert_uint_eq(r.kernels.kernels.dispatches, 0);
    ck_assert(tu_warned(&r, "4242_results.db: not a rocpd database"));
    run_result_free(&r);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

START_TEST(discovery_follows_the_format_names) {
    char *dir = tu_tempdir();
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/host-b", dir);
    mkdir(sub, 0755);
    tu_write_str(sub, "9_kernel_trace.csv", "KernelName,DurationNs\nk,1\n");
    snprintf(sub, sizeof sub, "%s/host-a", dir);
    mkdir(sub, 0755);
    tu_write_str(sub, "7_kernel_trace.csv", "KernelName,DurationNs\nk,1\n");
    tu_write_str(dir, "torch_profile.json.gz", "");
    run_files f;
    ck_assert(run_files_find(dir, &f));
    ck_assert_ptr_nonnull(strstr(f.path[ARTEFACT_KERNEL_TRACE], "/host-a/7_kernel_trace.csv"));
    ck_assert_str_eq(f.found_by[ARTEFACT_KERNEL_TRACE], "*/*kernel_trace.csv");
    ck_assert_str_eq(f.found_by[ARTEFACT_TORCH_PROFILE], "torch_profile.json.gz");
    ck_assert_ptr_null(f.found_by[ARTEFACT_TELEMETRY]);          /* expected, not found */
    ck_assert_ptr_nonnull(strstr(f.path[ARTEFACT_TELEMETRY], "/amd_smi.csv"));
    run_files_free(&f);
    tu_write_str(dir, "nvidia_smi.csv", "timestamp, memory.used [MiB]\n");      /* another telemetry format */
    ck_assert(run_files_find(dir, &f));
    ck_assert_str_eq(f.found_by[ARTEFACT_TELEMETRY], "nvidia_smi.csv");
    run_files_free(&f);
    tu_write_str(dir, "amd_smi.csv", "timestamp,vram_used\n");                 /* goblin_runner's name first */
    ck_assert(run_files_find(dir, &f));
    ck_assert_str_eq(f.found_by[ARTEFACT_TELEMETRY], "amd_smi.csv");
    run_files_free(&f);
    tu_write_str(dir, "a_kernel_trace.csv", "KernelName,DurationNs\nk,1\n");   /* the run directory first */
    ck_assert(run_files_find(dir, &f));
    ck_assert_str_eq(f.found_by[ARTEFACT_KERNEL_TRACE], "*kernel_trace.csv");
    run_files_free(&f);
    tu_write_str(dir, "trace.csv", "KernelName,DurationNs\nk,1\n");            /* goblin_runner's name wins */
    ck_assert(run_files_find(dir, &f));
    ck_assert_str_eq(f.found_by[ARTEFACT_KERNEL_TRACE], "trace.csv");
    run_files_free(&f);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* Every spelling of a copy's direction the profilers use, through the one function every
 * format and the memory_copies section call. */
START_TEST(copy_kind_every_spelling) {
    static const struct { const char *name; copy_kind want; } T[] = {
        {"HtoD", COPY_HTOD}, {"HostToDevice", COPY_HTOD}, {"Host-to-Device", COPY_HTOD}, {"H2D", COPY_HTOD},
        {"MEMORY_COPY_HOST_TO_DEVICE", COPY_HTOD}, {"[CUDA memcpy Host-to-Device]", COPY_HTOD},
        {"[CUDA memcpy HtoD]", COPY_HTOD}, {"hipMemcpyHtoD", COPY_HTOD}, {"CopyHostToDevice", COPY_HTOD},
        {"Memcpy HtoD (Pageable -> Device)", COPY_HTOD},
        {"DtoH", COPY_DTOH}, {"DeviceToHost", COPY_DTOH}, {"Device-to-Host", COPY_DTOH}, {"D2H", COPY_DTOH},
        {"MEMORY_COPY_DEVICE_TO_HOST", COPY_DTOH}, {"[CUDA memcpy DtoH]", COPY_DTOH},
        {"DtoD", COPY_DTOD}, {"DeviceToDevice", COPY_DTOD}, {"Device-to-Device", COPY_DTOD}, {"D2D", COPY_DTOD},
        {"MEMORY_COPY_DEVICE_TO_DEVICE", COPY_DTOD},
        {"PtoP", COPY_PTOP}, {"PeerToPeer", COPY_PTOP}, {"Peer-to-Peer", COPY_PTOP}, {"P2P", COPY_PTOP},
        {"MEMORY_COPY_PEER_TO_PEER", COPY_PTOP}, {"hipMemcpyPeerAsync", COPY_PTOP}, {"[CUDA memcpy PtoP]", COPY_PTOP},
        {"HtoH", COPY_HTOH}, {"HostToHost", COPY_HTOH}, {"Host-to-Host", COPY_HTOH}, {"H2H", COPY_HTOH},
        {"MEMORY_COPY_HOST_TO_HOST", COPY_HTOH},
        {"MEMORY_COPY_NONE", COPY_UNKNOWN}, {"hipMemcpy", COPY_UNKNOWN}, {"", COPY_UNKNOWN}};
    for (size_t i = 0; i < sizeof T / sizeof *T; i++)
        ck_assert_msg(copy_kind_of_name(T[i].name, strlen(T[i].name)) == T[i].want, "%s: %d, want %d", T[i].name,
                      (int)copy_kind_of_name(T[i].name, strlen(T[i].name)), (int)T[i].want);
    ck_assert(copy_kind_of_name(NULL, 0) == COPY_UNKNOWN);
    ck_assert(copy_kind_of_name("HtoDxx", 3) == COPY_UNKNOWN);   /* only the given length is read */
}
END_TEST

Suite *formats_suite(void) {
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("registry");
    tcase_add_test(tc, every_registry_entry_is_filled_in);
    tcase_add_test(tc, sniff_picks_the_best_format);
    tcase_add_test(tc, discovery_follows_the_format_names);
    tcase_add_test(tc, rocpd_database_gives_kernel_records);
    suite_add_tcase(s, tc);
    tc = tcase_create("bytes");
    tcase_add_test(tc, kernel_trace_rows_become_dispatch_records);
    tcase_add_test(tc, kernel_trace_sends_only_what_is_wanted);
    tcase_add_test(tc, telemetry_rows_become_samples);
    tcase_add_test(tc, telemetry_line_ends_at_every_chunking);
    tcase_add_test(tc, nvidia_smi_rows_become_samples);
    tcase_add_test(tc, nvidia_smi_cells_take_only_their_columns_units);
    tcase_add_test(tc, copy_kind_every_spelling);
    tcase_add_test(tc, torch_trace_events_only_when_named);
    suite_add_tcase(s, tc);
    return s;
}
