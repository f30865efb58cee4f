/* Tests: the streaming CSV tokenizer against Python csv (excel dialect) behaviour. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/tokenizers/csv_tokenizer.h"

/* Collects records as "f1|f2|...\n" (blank records as "<blank>\n"). */
typedef struct collected {
    strbuf out;
    bool lines;     /* each record prefixed with its line number, "@N " */
} collected;

static void on_rec(void *u, const csv_record *r) {
    collected *c = u;
    if (c->lines) {
        char b[32];
        strbuf_append(&c->out, b, (size_t)snprintf(b, sizeof b, "@%llu ", (unsigned long long)r->line));
    }
    if (r->n_fields == 0) { strbuf_append(&c->out, "<blank>\n", 8); return; }
    for (size_t i = 0; i < r->n_all; i++) {
        if (i) strbuf_putc(&c->out, '|');
        strbuf_append(&c->out, r->all[i].data, r->all[i].len);
    }
    if (r->unterminated) strbuf_append(&c->out, "<EOF>", 5);
    strbuf_putc(&c->out, '\n');
}

/* Tokenizes in capture-all mode, feeding `step` bytes at a time; with `lines`, each record
 * prefixed with the line it began on. */
static char *tokenize_lines(const char *in, size_t n, size_t step, bool lines) {
    collected c = {.lines = lines};
    csv_tokenizer t;
    csv_init(&t, 1 << 20, on_rec, &c);
    for (size_t i = 0; i < n; i += step) csv_feed(&t, (const uint8_t *)in + i, i + step <= n ? step : n - i);
    csv_finish(&t);
    csv_free(&t);
    strbuf_terminate(&c.out);
    return c.out.data;
}

static char *tokenize(const char *in, size_t n, size_t step) { return tokenize_lines(in, n, step, false); }

static void check_all_steps(const char *in, const char *expect) {
    size_t n = strlen(in);
    for (size_t step = 1; step <= n + 1; step++) {
        char *got = tokenize(in, n, step);
        ck_assert_msg(strcmp(got ? got : "", expect) == 0, "step %zu: got [%s] want [%s]", step, got, expect);
        free(got);
    }
}

START_TEST(quoting_rules) {
    check_all_steps("a,\"b,\"\"c\"\"\",d\n", "a|b,\"c\"|d\n");
    check_all_steps("x\"y,z\n", "x\"y|z\n");                 /* quote inside unquoted field is literal */
    check_all_steps("\"ab\"cd,e\n", "abcd|e\n");             /* text after a closing quote is kept */
    check_all_steps("\"multi\nline\",2\n", "multi\nline|2\n");
    check_all_steps(",,\n", "||\n");
    check_all_steps("a,\n", "a|\n");
}
END_TEST

START_TEST(line_endings) {
    check_all_steps("a,b\r\nc,d\r\n", "a|b\nc|d\n");
    check_all_steps("a,b\rc,d", "a|b\nc|d\n");                /* bare CR and no final newline */
    check_all_steps("\"q\r\nx\",1\n", "q\nx|1\n");           /* CRLF inside quotes reads as \n */
    check_all_steps("a\n\n\nb\n", "a\n<blank>\n<blank>\nb\n");
}
END_TEST

/* Whole lines take the one-line fast path, everything else the state machine; the
 * records must not show which (expected values: Python's csv after universal newlines). */
START_TEST(fast_path_and_state_machine_agree) {
    check_all_steps("abcdefghijklmnopqrstuvwxyz,\"0123456789abcdefghij\"\"klm\",tail\n",
                    "abcdefghijklmnopqrstuvwxyz|0123456789abcdefghij\"klm|tail\n");
    check_all_steps("\"\",\"\"\"\",\" \"\n\"x\"\"\ny\",2\n", "|\"| \nx\"\ny|2\n");
    check_all_steps("long_unquoted_field_over_16_bytes,\"q\",x\r\nnext,\"line with a, comma\"\r\n",
                    "long_unquoted_field_over_16_bytes|q|x\nnext|line with a, comma\n");
    check_all_steps("a,b\rmid,\"c\"\r\nd\n", "a|b\nmid|c\nd\n");
    check_all_steps("\"ends with quote pair at eol\"\"\"\n1\n", "ends with quote pair at eol\"\n1\n");
    check_all_steps("\"spans\r\nCRLF\",z\r\nw,v\r\n", "spans\nCRLF|z\nw|v\n");
    check_all_steps("\"abc\"def\"ghi\",j\n", "abcdef\"ghi\"|j\n");
    check_all_steps("x,\"open quote never closed on this line,1\n2,3\n",
                    "x|open quote never closed on this line,1\n2,3\n<EOF>\n");
}
END_TEST

START_TEST(unterminated_quote_at_end) {
    check_all_steps("h1,h2\n1,\"abc", "h1|h2\n1|abc<EOF>\n");
    check_all_steps("1,\"", "1|<EOF>\n");
}
END_TEST

START_TEST(nul_bytes_and_capture_cap) {
    char *got = tokenize("a\0b,c\n", 6, 3);
    ck_assert_mem_eq(got, "a\0b|c\n", 6);
    free(got);
    collected c = {0};
    csv_tokenizer t;
    csv_init(&t, 4, on_rec, &c);
    csv_feed(&t, (const uint8_t *)"abcdefgh,ij\n", 12);
    csv_finish(&t);
    csv_free(&t);
    strbuf_terminate(&c.out);
    ck_assert_str_eq(c.out.data, "abcd|ij\n");
    strbuf_free(&c.out);
}
END_TEST

static size_t seen_lines[8];
static int seen_n;
static void on_line(void *u, const csv_record *r) {
    (void)u;
    if (seen_n < 8) seen_lines[seen_n++] = r->line;
}

START_TEST(record_line_numbers) {
    csv_tokenizer t;
    seen_n = 0;
    csv_init(&t, 64, on_line, NULL);
    const char *in = "h\n\"a\nb\"\r\nc\r\n\nd\re\n";    /* fast, slow, fast (CRLF), blank, bare CR */
    csv_feed(&t, (const uint8_t *)in, strlen(in));
    csv_finish(&t);
    csv_free(&t);
    ck_assert_int_eq(seen_n, 6);
    static const uint64_t want[] = {1, 2, 4, 5, 6, 7};
    for (int i = 0; i < 6; i++) ck_assert_uint_eq(seen_lines[i], want[i]);
}
END_TEST

/* Captured columns (the kernel trace's mode): "text" per wanted column, "-" when the row
 * lacks it, "~" after a cut one; each text must be NUL-terminated. */
static void on_captured(void *u, const csv_record *r) {
    collected *c = u;
    for (size_t i = 0; i < r->n_captured; i++) {
        const csv_field *f = &r->captured[i];
        if (i) strbuf_putc(&c->out, '|');
        if (!f->present) { strbuf_putc(&c->out, '-'); continue; }
        ck_assert(f->text.data && f->text.data[f->text.len] == '\0');
        strbuf_append(&c->out, f->text.data, f->text.len);
        if (f->truncated) strbuf_putc(&c->out, '~');
    }
    strbuf_putc(&c->out, '\n');
}

/* Fields of every length 0..40 in captured columns, over many rows (so the copies go to
 * buffers that already hold room: the inline short copy, and strbuf_append for growth),
 * under a cap that cuts some, fed whole and a few bytes at a time; the expectation is built
 * from the same fields directly. */
START_TEST(captured_fields_every_length) {
    static const size_t cols[] = {1, 3, 4};
    for (size_t cap = 12; cap <= 64; cap += 52) {
        strbuf in = {0}, want = {0};
        for (int row = 0; row < 60; row++) {
            char f[5][48];
            size_t n[5];
            for (int k = 0; k < 5; k++) {
                n[k] = (size_t)((row * 7 + k * 13) % 41);
                for (size_t i = 0; i < n[k]; i++) f[k][i] = (char)('a' + (row + k + (int)i) % 26);
                if (k) strbuf_putc(&in, ',');
                if (k == 3 && row % 3 == 0) {   /* quoted, with a doubled quote inside when long enough */
                    strbuf_putc(&in, '"');
                    if (n[k] > 2) f[k][1] = '"';
                    for (size_t i = 0; i < n[k]; i++) {
                        strbuf_putc(&in, f[k][i]);
                        if (f[k][i] == '"') strbuf_putc(&in, '"');
                    }
                    strbuf_putc(&in, '"');
                } else {
                    strbuf_append(&in, f[k], n[k]);
                }
            }
            strbuf_putc(&in, '\n');
            for (int q = 0; q < 3; q++) {
                size_t k = cols[q], m = n[k] < cap ? n[k] : cap;
                if (q) strbuf_putc(&want, '|');
                strbuf_append(&want, f[k], m);
                if (n[k] > cap) strbuf_putc(&want, '~');
            }
            strbuf_putc(&want, '\n');
        }
        strbuf_append(&in, "x,y\n", 4);            /* a short row: columns 3 and 4 absent */
        strbuf_append(&want, "y|-|-\n", 6);
        strbuf_terminate(&want);
        const size_t steps[] = {1, 2, 3, 5, 8, 64, in.len};
        for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++) {
            size_t step = steps[si];
            collected c = {0};
            csv_tokenizer t;
            csv_init(&t, cap, on_captured, &c);
            ck_assert(csv_capture_columns(&t, cols, 3));
            for (size_t i = 0; i < in.len; i += step)
                csv_feed(&t, (const uint8_t *)in.data + i, i + step <= in.len ? step : in.len - i);
            csv_finish(&t);
            csv_free(&t);
            strbuf_terminate(&c.out);
            ck_assert_msg(strcmp(c.out.data, want.data) == 0, "cap %zu step %zu", cap, step);
            strbuf_free(&c.out);
        }
        strbuf_free(&in);
        strbuf_free(&want);
    }
}
END_TEST

/* xorshift64: the same "random" texts on every run. */
static uint64_t next_random(uint64_t *x) {
    *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
    return *x;
}

/* Random CSV text of less than cap + 8 bytes: fields plain, quoted (with commas, and
 * sometimes a doubled quote or a line end inside), or junk over the bytes that matter (a,
 * comma, quote, LF, CR); lines ended by LF, CRLF or CR, some longer than the 1,024 bytes of
 * the mask path. */
static size_t random_csv(uint64_t *x, char *out, size_t cap) {
    static const char junk[] = "aa,\"\n\r";
    size_t n = 0, target = (size_t)(next_random(x) % cap);
    while (n + 40 < target) {
        uint64_t r = next_random(x);
        size_t len = (size_t)(r >> 8) % (r % 16 == 0 ? 300 : 24);
        switch (r % 5) {
        case 0: case 1:                                  /* plain */
            for (size_t i = 0; i < len && n + 2 < cap; i++) out[n++] = (char)('a' + i % 26);
            break;
        case 2: case 3:                                  /* quoted */
            out[n++] = '"';
            for (size_t i = 0; i < len && n + 8 < cap; i++) {
                uint64_t c = next_random(x) % 40;
                out[n++] = c == 0 ? ',' : c == 1 && r % 3 == 0 ? '\n' : (char)('a' + i % 26);
                if (c == 2 && r % 7 == 0) out[n++] = '"', out[n++] = '"';
            }
            out[n++] = '"';
            break;
        default:                                         /* junk */
            for (size_t i = 0; i < len % 6 && n + 2 < cap; i++) out[n++] = junk[next_random(x) % (sizeof junk - 1)];
        }
        uint64_t e = next_random(x) % 20;
        if (e < 14) out[n++] = ',';
        else if (e < 18) out[n++] = '\n';
        else if (e == 18) { out[n++] = '\r'; out[n++] = '\n'; }
        else out[n++] = '\r';
    }
    return n;
}

/* Random CSV read whole (line by line through the mask and one-line fast paths where they
 * apply), in 97-byte chunks and one byte at a time (the state machine alone): the records
 * and the lines they began on must be equal. */
/* Capture-all (a header line, or formats keeping every cell of every row) is bounded: a record
 * of more than CSV_ALL_MAX_FIELDS cells or CSV_ALL_MAX_BYTES of cells is not reported but
 * counted with its line (csv_wide), the records around it are; and rows that each grow a
 * different column to 1 MiB (each row small, the buffers together ever larger: 200 MB by
 * the last row) keep the buffers under CSV_ALL_MAX_BYTES, freed past CSV_ALL_KEEP_BYTES. */
START_TEST(capture_all_is_bounded) {
    collected c = {0};
    csv_tokenizer t;
    csv_init(&t, 2u << 20, on_rec, &c);
    csv_feed(&t, (const uint8_t *)"a,b\n", 4);
    for (unsigned i = 0; i < CSV_ALL_MAX_FIELDS + 10; i++) csv_feed(&t, (const uint8_t *)"x,", 2);
    csv_feed(&t, (const uint8_t *)"y\nc,d\n", 6);
    char *wide = malloc((size_t)70 << 20);
    ck_assert_ptr_nonnull(wide);
    memset(wide, 'w', (size_t)70 << 20);
    for (size_t i = 1; i < 70; i++) wide[i << 20] = ',';      /* 70 cells of 1 MiB */
    csv_feed(&t, (const uint8_t *)wide, (size_t)70 << 20);
    csv_feed(&t, (const uint8_t *)"\ne,f\n", 5);
    csv_finish(&t);
    strbuf_terminate(&c.out);
    ck_assert_str_eq(c.out.data, "a|b\nc|d\ne|f\n");
    uint64_t line;
    ck_assert_uint_eq(csv_wide(&t, &line), 2);
    ck_assert_uint_eq(line, 2);
    ck_assert_uint_le(t.all_held, CSV_ALL_MAX_BYTES);
    csv_free(&t);
    strbuf_free(&c.out);

    memset(&c, 0, sizeof c);
    csv_init(&t, 2u << 20, on_rec, &c);
    memset(wide, 'v', (size_t)1 << 20);
    size_t most = 0;
    for (int row = 0; row < 200; row++) {           /* row r: r empty cells, then 1 MiB */
        for (int k = 0; k < row; k++) csv_feed(&t, (const uint8_t *)",", 1);
        csv_feed(&t, (const uint8_t *)wide, (size_t)1 << 20);
        csv_feed(&t, (const uint8_t *)"\n", 1);
        if (t.all_held > most) most = t.all_held;
    }
    csv_finish(&t);
    ck_assert_uint_eq(csv_wide(&t, &line), 0);       /* every row reported, none cut */
    ck_assert_uint_le(most, CSV_ALL_KEEP_BYTES + ((size_t)4 << 20));
    csv_free(&t);
    strbuf_free(&c.out);
    free(wide);
}
END_TEST

START_TEST(random_text_every_path_agrees) {
    uint64_t x = 88172645463325252ull;
    static char in[6000 + 8];
    for (int round = 0; round < 2000; round++) {
        size_t n = random_csv(&x, in, sizeof in - 8);
        ck_assert_uint_lt(n, sizeof in);
        char *whole = tokenize_lines(in, n, n ? n : 1, true), *bytes = tokenize_lines(in, n, 1, true),
             *cut = tokenize_lines(in, n, 97, true);
        ck_assert_msg(strcmp(whole ? whole : "", bytes ? bytes : "") == 0, "round %d: whole differs", round);
        ck_assert_msg(strcmp(cut ? cut : "", bytes ? bytes : "") == 0, "round %d: 97-byte chunks differ", round);
        free(whole);
        free(bytes);
        free(cut);
    }
}
END_TEST

Suite *csv_suite(void) {
    Suite *s = suite_create("csv");
    TCase *tc = tcase_create("tokenizer");
    tcase_add_test(tc, quoting_rules);
    tcase_add_test(tc, line_endings);
    tcase_add_test(tc, fast_path_and_state_machine_agree);
    tcase_add_test(tc, unterminated_quote_at_end);
    tcase_add_test(tc, nul_bytes_and_capture_cap);
    tcase_add_test(tc, record_line_numbers);
    tcase_add_test(tc, captured_fields_every_length);
    tcase_add_test(tc, random_text_every_path_agrees);
    tcase_add_test(tc, capture_all_is_bounded);
    suite_add_tcase(s, tc);
    return s;
}

/* ---- gunzip: gzip.decompress() semantics ------------------------------------------ */

#include <zlib.h>

#include "parsers/tokenizers/gunzip.h"

static size_t gz(const char *text, uint8_t *out, size_t cap) {
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef *)text;
    z.avail_in = (uInt)strlen(text);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    size_t n = cap - z.avail_out;
    deflateEnd(&z);
    return n;
}

static bool collect_sink(void *user, const uint8_t *b, size_t n) { return strbuf_append(user, b, n); }

/* Decodes in[0..n) in chunks of `step`; returns the text, or NULL when invalid. */
static char *gunzip_all(const uint8_t *in, size_t n, size_t step) {
    strbuf out = {0};
    gunzip *g = gunzip_new(collect_sink, &out);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i += step) ok = gunzip_feed(g, in + i, n - i < step ? n - i : step);
    ok = ok && gunzip_finish(g);
    gunzip_free(g);
    strbuf_terminate(&out);
    if (!ok) { strbuf_free(&out); return NULL; }
    return out.data ? out.data : strdup("");
}

static bool take_512(void *user, const uint8_t *b, size_t n) {
    (void)b;
    size_t *got = user;
    *got += n;
    return *got < 512;
}

/* Once the sink declines, nothing more is inflated: 64 MiB of zeros (64 KiB compressed) fed
 * whole to a sink wanting 512 bytes inflates one output chunk (1 MiB), not the 64 MiB. */
START_TEST(gunzip_stops_when_the_sink_declines) {
    size_t raw = (size_t)64 << 20;
    uint8_t *zeros = calloc(1, raw);
    ck_assert_ptr_nonnull(zeros);
    uLongf cap = compressBound(raw) + 64;
    uint8_t *gz = malloc(cap);
    ck_assert_ptr_nonnull(gz);
    z_stream z = {0};
    ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = zeros, z.avail_in = (uInt)raw, z.next_out = gz, z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = z.total_out;
    deflateEnd(&z);
    size_t got = 0;
    gunzip *g = gunzip_new(take_512, &got);
    ck_assert(gunzip_feed(g, gz, n));
    ck_assert(gunzip_finish(g));
    ck_assert_uint_ge(got, 512);
    ck_assert_uint_le(gunzip_inflated(g), (uint64_t)1 << 20);
    gunzip_free(g);
    free(gz);
    free(zeros);
}
END_TEST

START_TEST(gunzip_members_padding_and_errors) {
    uint8_t buf[4096];
    size_t a = gz("hello ", buf, sizeof buf);
    memset(buf + a, 0, 5);                                      /* NUL padding between members */
    size_t b = gz("world", buf + a + 5, sizeof buf - a - 5);
    size_t n = a + 5 + b;
    for (size_t step = 1; step <= n; step += 3) {
        char *t = gunzip_all(buf, n, step);
        ck_assert_str_eq(t, "hello world");
        free(t);
    }
    buf[n] = 'x';                                                /* trailing garbage */
    ck_assert_ptr_null(gunzip_all(buf, n + 1, 7));
    ck_assert_ptr_null(gunzip_all(buf, a - 3, 7));               /* truncated member */
    size_t c = gz("crc", buf, sizeof buf);
    buf[c - 8] ^= 1;                                             /* broken CRC */
    ck_assert_ptr_null(gunzip_all(buf, c, 5));
    ck_assert_ptr_null(gunzip_all((const uint8_t *)"plain text", 10, 3));
    /* empty input: an error here; gzip.decompress(b"") is b"", which json.loads rejects anyway */
    char *e = gunzip_all(buf, 0, 1);
    ck_assert_ptr_null(e);
}
END_TEST

Suite *gunzip_suite(void) {
    Suite *s = suite_create("gunzip");
    TCase *tc = tcase_create("stream");
    tcase_add_test(tc, gunzip_members_padding_and_errors);
    tcase_add_test(tc, gunzip_stops_when_the_sink_declines);
    suite_add_tcase(s, tc);
    return s;
}
