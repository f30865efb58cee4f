/* Tests: the JSON tokenizer accepts exactly what Python's json.loads accepts. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/tokenizers/json_tokenizer.h"

typedef struct log {
    strbuf out;
    bool decline;   /* decline every key at depth 1 */
} log_t;

static bool on_tok(void *u, const jt_token *t) {
    log_t *l = u;
    char b[64];
    static const char *const K[] = {"{", "}", "[", "]", "K", "S", "N", "T", "F", "Z", "NaN", "Inf", "-Inf"};
    snprintf(b, sizeof b, "%s%u", K[t->kind], t->depth);
    strbuf_append(&l->out, b, strlen(b));
    if (t->text) { strbuf_putc(&l->out, ':'); strbuf_append(&l->out, t->text, t->len); }
    strbuf_putc(&l->out, ' ');
    return !(l->decline && t->kind == JT_KEY && t->depth == 1);
}

/* Feeds in[0..n) to t `step` bytes at a time, then ends it: whether it was valid. */
static bool feed_all(jt_tokenizer *t, const char *in, size_t n, size_t step) {
    bool ok = true;
    for (size_t i = 0; i < n && ok; i += step) ok = jt_feed(t, (const uint8_t *)in + i, i + step <= n ? step : n - i);
    return ok && jt_finish(t);
}

/* Feeds `step` bytes at a time; returns the token log or NULL when invalid. */
static char *run(const char *in, size_t n, size_t step, unsigned depth, bool decline) {
    jt_tokenizer t;
    log_t l = {.decline = decline};
    ck_assert(jt_init(&t, depth, 1024, on_tok, &l));
    bool ok = feed_all(&t, in, n, step);
    jt_free(&t);
    strbuf_terminate(&l.out);
    if (!ok) { strbuf_free(&l.out); return NULL; }
    return l.out.data;
}

/* Valid or not, for every chunking and both the reported and the fast (depth 0) path;
 * the reported tokens must not depend on chunking either. */
static bool valid(const char *in) {
    size_t n = strlen(in);
    char *first = NULL;
    bool r = false;
    for (unsigned depth = 0; depth <= 3; depth += 3) {
        for (size_t step = 1; step <= n + 1; step++) {
            char *got = run(in, n, step, depth, false);
            if (depth == 0 && step == 1) r = got != NULL;
            ck_assert_msg((got != NULL) == r, "depth %u step %zu changed validity of %s", depth, step, in);
            if (depth == 3 && got) {
                if (!first) first = strdup(got);
                else ck_assert_str_eq(got, first);
            }
            free(got);
        }
    }
    free(first);
    return r;
}

START_TEST(accepts_python_json) {
    ck_assert(valid("{}"));
    ck_assert(valid(" [1, -0, 2.5e-3, 1E+2, true, false, null] "));
    ck_assert(valid("[NaN, Infinity, -Infinity]"));
    ck_assert(valid("\"\\ud800\""));                        /* lone surrogate escape */
    ck_assert(valid("\"\\ud83d\\ude00 \\u00e9 \\/\\b\\f\\n\\r\\t\""));
    ck_assert(valid("\xef\xbb\xbf{\"a\": 1}"));               /* BOM */
    ck_assert(valid("\"\xed\xa0\x80\""));                    /* surrogatepass */
    ck_assert(valid("\"\xf0\x9f\x98\x80\""));
    ck_assert(valid("0"));
    ck_assert(valid("{\"a\": {\"b\": [[], {}]}}"));
}
END_TEST

START_TEST(rejects_what_python_rejects) {
    ck_assert(!valid(""));
    ck_assert(!valid("   "));
    ck_assert(!valid("[1,]"));
    ck_assert(!valid("{\"a\":1,}"));
    ck_assert(!valid("[01]"));
    ck_assert(!valid("[1.]"));
    ck_assert(!valid("[.5]"));
    ck_assert(!valid("[1e]"));
    ck_assert(!valid("[-]"));
    ck_assert(!valid("[+1]"));
    ck_assert(!valid("\"a\tb\""));                           /* control character */
    ck_assert(!valid("\"\\x\""));
    ck_assert(!valid("\"\\u12g4\""));
    ck_assert(!valid("\"\xff\""));
    ck_assert(!valid("\"\xc3\""));
    ck_assert(!valid("{} {}"));
    ck_assert(!valid("{'a': 1}"));
    ck_assert(!valid("[tru]"));
    ck_assert(!valid("[nan]"));
    ck_assert(!valid("\xef\xbb\xbf\xef\xbb\xbf{}"));         /* a second BOM */
    ck_assert(!valid("{\"a\" 1}"));
    ck_assert(!valid("{1: 2}"));
    ck_assert(!valid("[1 2]"));
    ck_assert(!valid("\"abc"));
    ck_assert(!valid("{\"a\":"));
    ck_assert(!valid("\x00{}"));
}
END_TEST

START_TEST(depth_and_digit_limits) {
    char *doc = malloc(2 * JT_MAX_DEPTH + 4);
    for (int extra = 0; extra <= 1; extra++) {
        size_t d = JT_MAX_DEPTH + (size_t)extra, n = 0;
        for (size_t i = 0; i < d; i++) doc[n++] = '[';
        for (size_t i = 0; i < d; i++) doc[n++] = ']';
        char *got = run(doc, n, n, 3, false);
        ck_assert_msg((got != NULL) == (extra == 0), "depth %zu", d);
        free(got);
        got = run(doc, n, 7, 3, false);
        ck_assert((got != NULL) == (extra == 0));
        free(got);
    }
    free(doc);
    char big[4400];
    big[0] = '[';
    memset(big + 1, '7', 4301);
    big[4302] = ']';                                             /* 4301 digits: too many for int() */
    for (unsigned depth = 0; depth <= 3; depth += 3) {           /* fast path and reported path */
        char *got = run(big, 4303, 4303, depth, false);
        ck_assert_ptr_null(got);
        got = run(big, 4303, 5, depth, false);
        ck_assert_ptr_null(got);
    }
    big[4301] = ']';                                             /* 4300 digits: fine */
    char *got = run(big, 4302, 5, 0, false);
    ck_assert_ptr_nonnull(got);
    free(got);
    got = run(big, 4302, 4302, 3, false);
    ck_assert_ptr_nonnull(got);
    free(got);
    char flt[5000];
    memset(flt, '1', sizeof flt);
    flt[0] = '[';
    flt[2000] = '.';
    flt[4999] = ']';
    got = run(flt, 5000, 999, 0, false);                         /* long floats are fine */
    ck_assert_ptr_nonnull(got);
    free(got);
}
END_TEST

START_TEST(tokens_and_depths) {
    const char *doc = "{\"a\": [1, {\"b\": \"x\\n\"}], \"c\": null}";
    char *got = run(doc, strlen(doc), 3, 2, false);
    ck_assert_str_eq(got, "{0 K1:a [1 N2:1 {2 }2 ]1 K1:c Z1 }0 ");
    free(got);
    got = run(doc, strlen(doc), 1, 3, false);
    ck_assert_str_eq(got, "{0 K1:a [1 N2:1 {2 K3:b S3:x\n }2 ]1 K1:c Z1 }0 ");
    free(got);
    got = run(doc, strlen(doc), 2, 3, true);                     /* declined values are not reported */
    ck_assert_str_eq(got, "{0 K1:a K1:c }0 ");
    free(got);
    const char *esc = "[\"\\ud83d\\ude00\\ud800x\"]";
    got = run(esc, strlen(esc), 1, 3, false);
    ck_assert_str_eq(got, "[0 S1:\xf0\x9f\x98\x80\xef\xbf\xbdx ]0 ");
    free(got);
    got = run("-Infinity", 9, 1, 3, false);
    ck_assert_str_eq(got, "-Inf0 ");
    free(got);
}
END_TEST

START_TEST(error_offsets) {
    jt_tokenizer t;
    log_t l = {0};
    ck_assert(jt_init(&t, 3, 64, on_tok, &l));
    ck_assert(!jt_feed(&t, (const uint8_t *)"{\"a\": [1, 2,, 3]}", 17));
    ck_assert_uint_eq(jt_error_offset(&t), 12);
    ck_assert(strlen(jt_error(&t)) > 0);
    jt_free(&t);
    strbuf_free(&l.out);
    ck_assert_double_eq(jt_strtod("178.377", 7), 178.377);
    ck_assert_double_eq(jt_strtod("-0.5", 4), -0.5);
    ck_assert_double_eq(jt_strtod("1e22", 4), 1e22);
    ck_assert_double_eq(jt_strtod("123456789012345678", 18), 123456789012345678.0);
}
END_TEST

/* The token log, then the verdict: "ok", or the error's offset and text. */
static char *run_verdict(const char *in, size_t n, size_t step, unsigned depth, bool decline) {
    jt_tokenizer t;
    log_t l = {.decline = decline};
    ck_assert(jt_init(&t, depth, 1024, on_tok, &l));
    bool ok = feed_all(&t, in, n, step);
    char b[256];
    if (ok) snprintf(b, sizeof b, "| ok");
    else snprintf(b, sizeof b, "| error at %llu: %s", (unsigned long long)jt_error_offset(&t), jt_error(&t));
    strbuf_append(&l.out, b, strlen(b));
    jt_free(&t);
    strbuf_terminate(&l.out);
    return l.out.data;
}

static uint64_t next_random(uint64_t *x) {
    *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
    return *x;
}

static void put(strbuf *b, const char *s) { strbuf_append(b, s, strlen(s)); }

/* What random_value may make invalid, and whether it did. */
typedef struct gen {
    uint64_t x;
    bool bad;          /* invalid scalars, keys, commas and colons, now and then */
    int flip;          /* close the flip-th container with the other bracket (0: none) */
    bool valid;        /* no invalid part was written */
} gen;

/* A random JSON value: nested containers, plain and escaped strings, non-ASCII text,
 * numbers and literals of every form; invalid parts as g asks, noted in g->valid. */
static void random_value(gen *g, strbuf *b, int depth) {
    static const char *const blanks[] = {"", "", "", " ", " ", "\n  ", "\t", "\r\n"};
    static const char *const scalars[] = {
        "0", "-0", "1", "42", "-17", "3.25", "0.5e10", "1E-3", "-2.5e+7", "12345678901234567890",
        "true", "false", "null", "NaN", "Infinity", "-Infinity", "\"\"", "\"plain text\"",
        "\"tab\\tquote\\\"\"", "\"\\u00e9\\ud83d\\ude00\"", "\"caf\xc3\xa9\"", "\"\xf0\x9f\x98\x80\"",
        /* invalid from here */
        "01", "1.", ".5", "-", "1e", "1e+-5", "+1", "tru", "nul", "\"\x01\"", "\"\xc3\"", "\"bad\\x\"", "NaNa", "--1"};
    enum { VALID_SCALARS = 22 };
    uint64_t *x = &g->x, r = next_random(x);
    put(b, blanks[r % 8]);
    int kind = depth > 6 ? 2 : (int)(r >> 8) % 5;
    if (kind == 0 || kind == 1) {
        bool obj = kind == 0;
        put(b, obj ? "{" : "[");
        int n = (int)((r >> 16) % 6);
        for (int i = 0; i < n; i++) {
            if (i) {
                bool twice = g->bad && (r >> 24) % 50 == 0;
                put(b, twice ? ",," : ",");
                if (twice) g->valid = false;
            }
            if (obj) {
                put(b, blanks[next_random(x) % 8]);
                bool bare = g->bad && next_random(x) % 40 == 0, colon = !g->bad || next_random(x) % 40;
                put(b, bare ? "key" : "\"key\"");
                put(b, blanks[next_random(x) % 8]);
                put(b, colon ? ":" : next_random(x) % 2 ? "," : "");
                if (bare || !colon) g->valid = false;
            }
            random_value(g, b, depth + 1);
        }
        if (g->bad && n && (r >> 32) % 60 == 0) { put(b, ","); g->valid = false; }
        put(b, blanks[next_random(x) % 8]);
        bool other = g->flip && --g->flip == 0;
        put(b, obj != other ? "}" : "]");
        if (other) g->valid = false;
    } else {
        uint64_t k = next_random(x) % (sizeof scalars / sizeof scalars[0]);
        if (k >= VALID_SCALARS && (!g->bad || next_random(x) % 4)) k %= VALID_SCALARS;
        put(b, scalars[k]);
        if (k >= VALID_SCALARS) g->valid = false;
    }
    put(b, blanks[next_random(x) % 8]);
}

/* Token log and verdict read whole and one byte at a time, for each emit depth and decline. */
static void same_whole_and_bytes(const char *in, size_t n) {
    for (unsigned depth = 0; depth <= 2; depth++) {
        for (int decline = 0; decline <= 1; decline++) {
            char *one = run_verdict(in, n, 1, depth, decline);
            char *whole = run_verdict(in, n, n, depth, decline);
            char *cut = run_verdict(in, n, 61, depth, decline);
            ck_assert_msg(strcmp(one, whole) == 0, "depth %u decline %d: %.*s\nbytes: %.300s\nwhole: %.300s",
                          depth, decline, n > 300 ? 300 : (int)n, in, one, whole);
            ck_assert_msg(strcmp(one, cut) == 0, "depth %u decline %d (61-byte chunks): %.300s", depth, decline, in);
            free(one);
            free(whole);
            free(cut);
        }
    }
}

START_TEST(fast_path_and_state_machine_agree_on_random_documents) {
    /* the limits: Python's 4,300 digits (the fast path leaves integers over 1,000 digits to
     * the state machine), and some nesting */
    for (size_t digits = 4299; digits <= 4301; digits++) {
        strbuf doc = {0};
        put(&doc, "{\"a\": [[1, ");
        for (size_t i = 0; i < digits; i++) strbuf_putc(&doc, (char)('1' + i % 9));
        put(&doc, "]]}");
        same_whole_and_bytes(doc.data, doc.len);
        strbuf_free(&doc);
    }
    for (int nest = 30; nest <= 34; nest++) {
        strbuf doc = {0};
        put(&doc, "{\"a\": ");
        for (int i = 0; i < nest; i++) put(&doc, i % 2 ? "{\"k\": " : "[");
        put(&doc, "7");
        for (int i = nest - 1; i >= 0; i--) put(&doc, i % 2 ? "}" : "]");
        put(&doc, "}");
        same_whole_and_bytes(doc.data, doc.len);
        strbuf_free(&doc);
    }
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 4000; round++) {
        /* valid; with invalid parts; with a container closed by the other bracket; with a
         * byte changed (its validity not known here) */
        int how = round % 4;
        uint64_t seed = next_random(&x);
        gen g = {.x = seed, .bad = how == 1, .flip = how == 2 ? 1 + (int)(seed % 4) : 0, .valid = true};
        strbuf doc = {0};
        put(&doc, "{\"a\": ");
        random_value(&g, &doc, 1);
        put(&doc, ", \"b\": [");
        random_value(&g, &doc, 2);
        put(&doc, "]}");
        if (how == 3) {
            static const char bytes[] = "{}[],:\" 0a\\";
            doc.data[next_random(&x) % doc.len] = bytes[next_random(&x) % (sizeof bytes - 1)];
        }
        same_whole_and_bytes(doc.data, doc.len);
        if (how < 3) {                                       /* the verdict the generator knows */
            char *v = run_verdict(doc.data, doc.len, doc.len, 0, false);
            ck_assert_msg((strstr(v, "| ok") != NULL) == g.valid, "round %d: want %s: %.*s", round,
                          g.valid ? "valid" : "invalid", (int)doc.len, doc.data);
            free(v);
        }
        strbuf_free(&doc);
    }
}
END_TEST

Suite *json_suite(void) {
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("tokenizer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, accepts_python_json);
    tcase_add_test(tc, rejects_what_python_rejects);
    tcase_add_test(tc, depth_and_digit_limits);
    tcase_add_test(tc, tokens_and_depths);
    tcase_add_test(tc, error_offsets);
    tcase_add_test(tc, fast_path_and_state_machine_agree_on_random_documents);
    suite_add_tcase(s, tc);
    return s;
}
