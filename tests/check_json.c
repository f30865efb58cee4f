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

/* Feeds `step` bytes at a time; returns the token log or NULL when invalid. */
static char *run(const char *in, size_t n, size_t step, unsigned depth, bool decline) {
    jt_tokenizer t;
    log_t l = {.decline = decline};
    ck_assert(jt_init(&t, depth, 1024, on_tok, &l));
    bool ok = true;
    for (size_t i = 0; i < n && ok; i += step) ok = jt_feed(&t, (const uint8_t *)in + i, i + step <= n ? step : n - i);
    ok = ok && jt_finish(&t);
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

Suite *json_suite(void) {
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("tokenizer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, accepts_python_json);
    tcase_add_test(tc, rejects_what_python_rejects);
    tcase_add_test(tc, depth_and_digit_limits);
    tcase_add_test(tc, tokens_and_depths);
    tcase_add_test(tc, error_offsets);
    suite_add_tcase(s, tc);
    return s;
}
