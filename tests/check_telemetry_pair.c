/* check_telemetry_pair: the telemetry CSV formats' pair states (amd_smi_csv.c and
 * nvidia_smi_csv.c, open_records_pair: one line splitter and CSV tokenizer for two readers,
 * each with a state of its own) give each reader exactly what that reader's state gives
 * through its own read: the same records in the same order, field by field, the same
 * warnings and facts. The readers differ as the daemon's ingest's do (the analysis
 * document's and RunMetrics': `--compat seed` or not, each its own file name), in both
 * orders, fed in chunks of several sizes; files of every shape (a banner, headers repeated
 * before each sample, blank lines, CRLF and U+2028 line ends, a line past the line cap,
 * invalid UTF-8, units in cells, values the default rules refuse and the seed's take, an
 * unterminated quote, no header) and every amd-smi and nvidia-smi file of ../shared's
 * fixtures and corpus. Also: a hand-counted file as each reader gets it. */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/formats/amd_smi_csv.h"
#include "parsers/record.h"

extern const artefact_parser nvidia_smi_csv_parser;

/* One reader: what it asks for, and what it got. */
typedef struct reader {
    parse_options opt;
    const char *label;
    strbuf recs;             /* every record received, one text line each */
    size_t n;
    read_facts facts;
    diag_list diag;
    record_sink sink;
} reader;

/* A record as text: every field a telemetry state fills. */
static bool emit(void *user, const record *r) {
    reader *x = user;
    char h[512];
    snprintf(h, sizeof h, "t=%d has=%x line=%" PRIu64 " dev=%" PRId64 " vram=%a util=%a power=%a temp=%a used=%" PRIu64
             " total=%" PRIu64 " start=%016" PRIx64 "%016" PRIx64 " ",
             (int)r->type, r->has, r->line, r->device, r->vram_gib, r->util_pct, r->power_w, r->temp_c,
             r->vram_used_bytes, r->vram_total_bytes, (uint64_t)((unsigned __int128)r->start_ns >> 64),
             (uint64_t)r->start_ns);
    strbuf_append(&x->recs, h, strlen(h));
    if (r->key) strbuf_append(&x->recs, r->key, strlen(r->key));
    strbuf_putc(&x->recs, '=');
    if (r->value) strbuf_append(&x->recs, r->value, r->value_len);
    strbuf_putc(&x->recs, '\n');
    x->n++;
    return true;
}

static void reader_init(reader *x, bool seed, const char *label) {
    memset(x, 0, sizeof *x);
    x->opt.seed_compat = seed;
    x->label = label;
    diag_init(&x->diag);
    x->sink = (record_sink){.emit = emit, .user = x, .fields = RF_ALL,
                            .types = (1u << REC_TELEMETRY_SAMPLE) | (1u << REC_METADATA)};
}

/* Warnings, facts and records as text. */
static void outcome(strbuf *b, const reader *x) {
    char h[512];
    for (size_t i = 0; i < x->diag.count; i++) { strbuf_append(b, x->diag.items[i], strlen(x->diag.items[i])); strbuf_putc(b, '\n'); }
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
    diag_free(&x->diag);
}

static void feed(const artefact_parser *P, void *st, const char *doc, size_t n, size_t chunk) {
    for (size_t at = 0; at < n; at += chunk)
        if (!P->feed(st, (const uint8_t *)doc + at, n - at < chunk ? n - at : chunk)) break;
    P->finish(st);
    P->close(st);
}

static void read_apart(const artefact_parser *P, reader *x, const char *doc, size_t n, size_t chunk) {
    void *a = P->open_records(&x->opt, x->label, &x->sink, &x->facts, &x->diag);
    ck_assert_ptr_nonnull(a);
    feed(P, a, doc, n, chunk);
}

static void read_pair(const artefact_parser *P, reader *x, reader *y, const char *doc, size_t n, size_t chunk) {
    record_reading ry = {&y->opt, y->label, &y->sink, &y->facts, &y->diag};
    void *a = P->open_records_pair(&x->opt, x->label, &x->sink, &x->facts, &x->diag, &ry);
    ck_assert_ptr_nonnull(a);
    feed(P, a, doc, n, chunk);
}

static void expect_same(const reader *pair, const reader *apart, const char *what) {
    strbuf p = {0}, q = {0};
    outcome(&p, pair);
    outcome(&q, apart);
    if (p.len != q.len || (p.len && memcmp(p.data, q.data, p.len)))
        ck_abort_msg("%s: pair:\n%.*s\napart:\n%.*s", what, (int)p.len, p.data ? p.data : "", (int)q.len,
                     q.data ? q.data : "");
    strbuf_free(&p);
    strbuf_free(&q);
}

/* Both formats, every pair of readers (seed or not, two names), several chunk sizes. */
static void same_as_apart_n(const char *doc, size_t n, const char *what) {
    static const artefact_parser *const FORMATS[] = {&amd_smi_csv_parser, &nvidia_smi_csv_parser};
    static const size_t CHUNKS[] = {1, 7, 64, 1u << 16};
    for (size_t f = 0; f < 2; f++)
        for (int k1 = 0; k1 < 2; k1++)
            for (int k2 = 0; k2 < 2; k2++)
                for (size_t c = 0; c < sizeof CHUNKS / sizeof *CHUNKS; c++) {
                    if (CHUNKS[c] == 1 && n > 200000) continue;      /* (large corpus files: coarse chunks only) */
                    reader x, y, xa, ya;
                    reader_init(&x, k1, "run/amd_smi.csv"), reader_init(&y, k2, "amd_smi.csv");
                    reader_init(&xa, k1, "run/amd_smi.csv"), reader_init(&ya, k2, "amd_smi.csv");
                    read_pair(FORMATS[f], &x, &y, doc, n, CHUNKS[c]);
                    read_apart(FORMATS[f], &xa, doc, n, CHUNKS[c]);
                    read_apart(FORMATS[f], &ya, doc, n, CHUNKS[c]);
                    expect_same(&x, &xa, what);
                    expect_same(&y, &ya, what);
                    reader_free(&x), reader_free(&y), reader_free(&xa), reader_free(&ya);
                }
}

static void same_as_apart(const char *doc) { same_as_apart_n(doc, strlen(doc), doc); }

/* amd-smi monitor: a banner, the header before every sample, blank lines, CRLF, a U+2028
 * line end, a value the default rules refuse (negative VRAM, utilisation 250) and the
 * seed's take, units in a cell, invalid UTF-8, a ROCm version. */
static const char AMD[] =
    "AMD SMI monitor, press Ctrl-C\n"
    "timestamp,gpu,power_usage,hotspot_temperature,gfx_activity,vram_used,vram_total,rocm_version\n"
    "1700000000,0,300,65,45,1024 MB,196592,6.2.0\n"
    "\n"
    "timestamp,gpu,power_usage,hotspot_temperature,gfx_activity,vram_used,vram_total,rocm_version\r\n"
    "1700000001,card1,310,66,250,-5,196592,6.2.0\r\n"
    "1700000002,1,x,67,12.5,2048,196592,\xe2\x80\xa8"
    "bad\xff,2,1,2,3,4,5,6\n"
    "1700000003,0,\"quoted, power\",1,100,4096,196592,6.3\n"
    "1700000004,0,1,2,3\n";

/* nvidia-smi --format=csv with units, a repeated header, [N/A] cells, a short row. */
static const char NVIDIA[] =
    "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu\n"
    "2024/01/02 03:04:05.678, 0, 22 %, 841 MiB, 81920 MiB, 61.2 W, 40\n"
    "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu\n"
    "2024/01/02 03:04:06.678, 1, [N/A], [N/A], 81920 MiB, [N/A], 41\n"
    "not a time, 0, 101 %, -1 MiB\n"
    "\n"
    "2024/01/02 03:04:07.678, 0, 50 %, 900 MiB, 81920 MiB, 70 W, \"42";

/* A header the default and the seed's rules read differently (utilisation: gpu_use_percent
 * by default, GFX_ACTIVITY by the seed's), so the fed tokenizer must capture the union. */
static const char UNION[] =
    "timestamp,gpu_use_percent,GFX_ACTIVITY,vram_used\n"
    "1700000000,10,20,1024\n"
    "1700000001,30,,2048\n"
    "1700000002,,40,1e20\n";

/* A quoted field over lines with a blank line inside (dropped by the line splitter), then a
 * record on line 5; and a quote left open to the end, blank lines after it. */
static const char QUOTED_LINES[] = "vram_used,gfx_activity\n1,\"2\n\n3\",4\n5,6\n";
static const char QUOTED_TO_END[] = "vram_used,gfx_activity\n7,8\n1,\"2\n\n\n";

START_TEST(shapes) {
    same_as_apart(AMD);
    same_as_apart(NVIDIA);
    same_as_apart("");
    same_as_apart("\n\n");
    same_as_apart("no header here\n1,2,3\n");
    same_as_apart("gfx_activity\n");
    same_as_apart("vram_used,gfx_activity\n1,2\n\"3");
    same_as_apart(UNION);
    same_as_apart(QUOTED_LINES);
    same_as_apart(QUOTED_TO_END);
    /* a line past the 1 MiB line cap */
    size_t big = (1u << 20) + 100;
    char *doc = malloc(big + 64);
    ck_assert_ptr_nonnull(doc);
    int h = snprintf(doc, 64, "vram_used,gfx_activity\n1,2\n");
    memset(doc + h, '7', big);
    memcpy(doc + h + big, ",3\n4,5\n", 8);
    same_as_apart_n(doc, strlen(doc), "long line");
    free(doc);
}
END_TEST

/* Every telemetry file of ../shared's fixtures and corpus. */
static void each_file_in(const char *dir) {
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "%s: the shared fixtures are missing", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 4, ".csv")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        strbuf b = {0};
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) strbuf_append(&b, buf, n);
        fclose(f);
        same_as_apart_n(b.data ? b.data : "", b.len, path);
        strbuf_free(&b);
    }
    closedir(d);
}

START_TEST(shared_files) {
    each_file_in(GOBLIN_SHARED_DIR "/fixtures/amd_smi");
    each_file_in(GOBLIN_SHARED_DIR "/fixtures/nvidia_smi");
    each_file_in(GOBLIN_SHARED_DIR "/corpus/found2/telemetry");
}
END_TEST

/* AMD by hand. The header is line 2; line 4 is blank and line 5 repeats the header, both
 * dropped; the U+2028 ends line 7. Samples: lines 3, 6, 7, 8, 9, 10 (6 records, plus one
 * rocm_version record at line 3), each with its file line. Line 6 has VRAM -5 (MB) and
 * utilisation 250: the default rules refuse both, so 5 rows are used and 2 skips counted;
 * the seed's take -5/1024 GiB (and no VRAM bytes) and 100 %: 6 rows. Line 10 is short (no
 * VRAM cell): "VRAM missing" for both. Line 8's timestamp "bad\xff" cannot be read: one
 * warning naming line 8, for both. Line 7 reads 2048 MB = 2 GiB (0x1p+1) at 12.5 %. */
START_TEST(hand_counted) {
    reader x, y;
    reader_init(&x, false, "run/amd_smi.csv");
    reader_init(&y, true, "amd_smi.csv");
    read_pair(&amd_smi_csv_parser, &x, &y, AMD, strlen(AMD), 5);
    strbuf_terminate(&x.recs);
    strbuf_terminate(&y.recs);
    ck_assert_uint_eq(x.n, 7);
    ck_assert_uint_eq(y.n, 7);
    ck_assert_uint_eq(x.facts.rows_used, 5);
    ck_assert_uint_eq(y.facts.rows_used, 6);
    ck_assert_uint_eq(x.facts.n_skips, 3);        /* VRAM missing (line 10), negative VRAM, utilisation > 100 */
    ck_assert_uint_eq(y.facts.n_skips, 1);        /* VRAM missing (line 10) */
    ck_assert_str_eq(y.facts.skipped[0].reason, "VRAM missing or not a number");
    ck_assert_uint_eq(y.facts.skipped[0].rows, 1);
    for (size_t i = 0; i < x.facts.n_skips; i++) ck_assert_uint_eq(x.facts.skipped[i].rows, 1);
    for (int line = 3; line <= 10; line++) {
        char want[32];
        snprintf(want, sizeof want, "line=%d dev=", line);
        bool sample = line == 3 || line >= 6;
        ck_assert_int_eq(strstr(x.recs.data, want) != NULL, sample);
        ck_assert_int_eq(strstr(y.recs.data, want) != NULL, sample);
    }
    ck_assert_ptr_nonnull(strstr(x.recs.data, "line=3 dev=0 vram=0x0p+0 util=0x0p+0 power=0x0p+0 temp=0x0p+0 used=0 "
                                              "total=0 start=00000000000000000000000000000000 rocm_version=6.2.0"));
    ck_assert_ptr_nonnull(strstr(x.recs.data, "line=6 dev=1 vram=0x0p+0 util=0x0p+0 "));
    ck_assert_ptr_nonnull(strstr(y.recs.data, "line=6 dev=1 vram=-0x1.4p-8 util=0x1.9p+6 "));
    ck_assert_ptr_nonnull(strstr(y.recs.data, "temp=0x1.08p+6 used=0 total=0 "));   /* no wrapped negative bytes */
    ck_assert_ptr_nonnull(strstr(x.recs.data, "line=7 dev=1 vram=0x1p+1 util=0x1.9p+3 "));
    ck_assert_ptr_nonnull(strstr(x.recs.data, "line=8 dev=2 vram=0x1p-8 util=0x1.8p+1 power=0x1p+0 temp=0x1p+1 "
                                              "used=4194304 total=5242880 "));
    ck_assert_uint_eq(x.diag.count, 3);
    ck_assert_uint_eq(y.diag.count, 1);
    ck_assert_ptr_nonnull(strstr(x.diag.items[0], "run/amd_smi.csv: 1 timestamps in column 'timestamp' cannot be read "
                                                  "(first at line 8)"));
    ck_assert_ptr_nonnull(strstr(y.diag.items[0], "amd_smi.csv: 1 timestamps in column 'timestamp' cannot be read "
                                                  "(first at line 8)"));
    ck_assert_ptr_nonnull(strstr(x.diag.items[1], "1 negative samples in VRAM column 'vram_used'"));
    ck_assert_ptr_nonnull(strstr(x.diag.items[2], "1 samples outside [0, 100] in utilisation column 'gfx_activity'"));
    reader_free(&x), reader_free(&y);
}
END_TEST

/* UNION by hand: each reader its own utilisation column (default 10, 30, - ; seed 20, -, 40),
 * the same VRAM (1024 and 2048 MB: 1 and 2 GiB; 1e20 MB is 1e20 / 1024 GiB by the reference's
 * rules, but no byte count: more than telemetry_mib_to_bytes' 1e12 MiB). QUOTED_LINES: records on lines 2 and 5; QUOTED_TO_END: on
 * lines 2 and 3 (the open quote's record comes at the end). */
START_TEST(union_and_lines_by_hand) {
    reader x, y;
    reader_init(&x, false, "run/amd_smi.csv");
    reader_init(&y, true, "amd_smi.csv");
    read_pair(&amd_smi_csv_parser, &x, &y, UNION, strlen(UNION), 3);
    strbuf_terminate(&x.recs);
    strbuf_terminate(&y.recs);
    ck_assert_ptr_nonnull(strstr(x.recs.data, "line=2 dev=0 vram=0x1p+0 util=0x1.4p+3 "));    /* 10 % */
    ck_assert_ptr_nonnull(strstr(y.recs.data, "line=2 dev=0 vram=0x1p+0 util=0x1.4p+4 "));    /* 20 % */
    ck_assert_ptr_nonnull(strstr(x.recs.data, "line=3 dev=0 vram=0x1p+1 util=0x1.ep+4 "));    /* 30 % */
    ck_assert_ptr_nonnull(strstr(y.recs.data, "line=4 dev=0 vram=0x1.5af1d78b58c4p+56 util=0x1.4p+5 power=0x0p+0 temp=0x0p+0 used=0 total=0 "));
    ck_assert_ptr_nonnull(strstr(x.recs.data, "line=4 dev=0 vram=0x1.5af1d78b58c4p+56 util=0x0p+0 "));
    for (size_t i = 0; i < x.facts.n_columns; i++)
        if (!strcmp(x.facts.columns[i].quantity, "utilisation")) ck_assert_str_eq(x.facts.columns[i].column, "gpu_use_percent");
    for (size_t i = 0; i < y.facts.n_columns; i++)
        if (!strcmp(y.facts.columns[i].quantity, "utilisation")) ck_assert_str_eq(y.facts.columns[i].column, "GFX_ACTIVITY");
    reader_free(&x), reader_free(&y);

    static const struct { const char *doc; int lines[3]; } CASES[] = {{QUOTED_LINES, {2, 5, 0}}, {QUOTED_TO_END, {2, 3, 0}}};
    for (size_t k = 0; k < 2; k++) {
        reader z;
        reader_init(&z, false, "amd_smi.csv");
        read_apart(&amd_smi_csv_parser, &z, CASES[k].doc, strlen(CASES[k].doc), 64);
        strbuf_terminate(&z.recs);
        ck_assert_uint_eq(z.n, 2);
        for (int i = 0; CASES[k].lines[i]; i++) {
            char want[32];
            snprintf(want, sizeof want, "line=%d dev=", CASES[k].lines[i]);
            ck_assert_msg(strstr(z.recs.data, want), "%s\n%s", want, z.recs.data);
        }
        reader_free(&z);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("telemetry_pair");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, shapes);
    tcase_add_test(tc, shared_files);
    tcase_add_test(tc, hand_counted);
    tcase_add_test(tc, union_and_lines_by_hand);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
