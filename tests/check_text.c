/* Tests: UTF-8 replacement decoding, folds, Python number grammar, column choice. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/tokenizers/column_pick.h"
#include "parsers/kernel_table.h"
#include "parsers/formats/torch_values.h"
#include "base/py_number.h"
#include "base/str_hash.h"
#include "base/text_utf8.h"

static char *sanitize(const char *in, size_t n, strbuf *b) {
    b->len = 0;
    ck_assert(utf8_sanitize((const uint8_t *)in, n, b));
    strbuf_terminate(b);
    return b->data;
}

START_TEST(utf8_replacement_matches_python) {
    strbuf b = {0};
    /* Expected strings are Python's bytes.decode("utf-8", "replace"). */
    ck_assert_str_eq(sanitize("a\xe2\x82" "b", 4, &b), "a\xef\xbf\xbd" "b");
    ck_assert_str_eq(sanitize("\xf0\x80\x80", 3, &b), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    ck_assert_str_eq(sanitize("\xed\xa0\x80", 3, &b), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    ck_assert_str_eq(sanitize("\xff", 1, &b), "\xef\xbf\xbd");
    ck_assert_str_eq(sanitize("\xc3\xa9", 2, &b), "\xc3\xa9");
    ck_assert_str_eq(sanitize("\xef\xbf\xbd", 3, &b), "\xef\xbf\xbd");
    ck_assert_str_eq(sanitize("\xf4\x90\x80\x80", 4, &b), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    ck_assert_str_eq(sanitize("x\xe2\x82", 3, &b), "x\xef\xbf\xbd");
    ck_assert(sanitize("a\0b", 3, &b) && b.len == 3);
    ck_assert(!utf8_valid((const uint8_t *)"\xc0\xaf", 2));
    ck_assert(utf8_valid((const uint8_t *)"\xf0\x9f\x98\x80", 4));
    strbuf_free(&b);
}
END_TEST

START_TEST(strip_uses_python_whitespace) {
    const char *s = "\xc2\xa0 \t abc \xe3\x80\x80\x1f";
    size_t n = strlen(s);
    utf8_strip(&s, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert(memcmp(s, "abc", 3) == 0);
    const char *e = " \xc2\x85 ";
    n = strlen(e);
    utf8_strip(&e, &n);
    ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(folds_follow_python_ignorecase) {
    strbuf f = {0};
    ck_assert(text_fold_regex("\xe2\x84\xaa" "ERNEL", 8, &f));     /* KELVIN SIGN */
    ck_assert_str_eq(f.data, "kernel");
    ck_assert(text_fold_regex("\xc5\xbf" "gemm", 6, &f));          /* LONG S */
    ck_assert_str_eq(f.data, "sgemm");
    ck_assert(text_fold_lower("\xc5\xbf" "gemm", 6, &f));          /* lower() keeps long s */
    ck_assert_uint_eq((unsigned char)f.data[0], FOLD_OTHER);
    ck_assert(text_fold_lower("\xc4\xb0X", 3, &f));                /* I WITH DOT -> i + U+0307 */
    ck_assert_uint_eq(f.len, 3);
    ck_assert(text_contains_word("a_gemm_b", 8, "gemm"));
    ck_assert(!text_contains_word("agemm", 5, "gemm"));
    ck_assert(!text_contains_word("gemm2", 5, "gemm"));
    ck_assert(text_contains_word("x gemm", 6, "gemm"));
    strbuf_free(&f);
}
END_TEST

START_TEST(py_float_grammar) {
    double v;
    ck_assert(py_float("1_000.5", 7, &v) && v == 1000.5);
    ck_assert(!py_float("_1", 2, &v));
    ck_assert(!py_float("1__0", 4, &v));
    ck_assert(!py_float("1_", 2, &v));
    ck_assert(py_float(" inf ", 5, &v) && isinf(v));
    ck_assert(py_float("-Infinity", 9, &v) && isinf(v) && v < 0);
    ck_assert(py_float("nan", 3, &v) && isnan(v));
    ck_assert(!py_float("0x10", 4, &v));
    ck_assert(!py_float("nan(1)", 6, &v));
    ck_assert(py_float("1e5", 3, &v) && v == 1e5);
    ck_assert(!py_float("1e", 2, &v));
    ck_assert(!py_float(".", 1, &v));
    ck_assert(py_float("5.", 2, &v) && v == 5.0);
    ck_assert(py_float(".5", 2, &v) && v == 0.5);
    ck_assert(py_float("\xc2\xa0" "12\xe3\x80\x80", 7, &v) && v == 12.0);
    ck_assert(!py_float("", 0, &v));
    ck_assert(!py_float("N/A", 3, &v));
    ck_assert(!py_float("[0, 0]", 6, &v));
    ck_assert(!py_float("1\0", 2, &v));
    ck_assert(py_float("1e400", 5, &v) && isinf(v));
    ck_assert(!py_number("1e400", 5, &v));
    ck_assert(py_number("-0", 2, &v) && v == 0.0 && signbit(v));
}
END_TEST

START_TEST(py_integer_exact_and_fallback) {
    i128 v;
    ck_assert(py_integer("8819330200067564", 16, &v) && v == (i128)8819330200067564LL);
    ck_assert(py_integer("9223372036854775808", 19, &v) && v == (i128)9223372036854775807LL + 1);
    ck_assert(py_integer("8.1097E+14", 10, &v) && v == (i128)810970000000000LL);
    ck_assert(py_integer(" 12 ", 4, &v) && v == 12);
    ck_assert(py_integer("1_2", 3, &v) && v == 12);
    ck_assert(py_integer("-7.9", 4, &v) && v == -7);
    ck_assert(!py_integer("abc", 3, &v));
    ck_assert(!py_integer("nan", 3, &v));
    ck_assert(!py_integer(" ", 1, &v));
    ck_assert(py_integer("999999999999999999999999999999999999999999", 42, &v) && v > 0);
}
END_TEST

/* py_integer's eight-digits-at-a-time reading against a digit-at-a-time one: every length
 * 1..18, then one byte at each position replaced by a neighbour of the digits ('/', ':') or
 * a digit with its top bit set (then it is not an integer at all). */
/* The ASCII fast path of utf8_valid / utf8_sanitize (16 bytes at a time, an overlapping
 * last load): one bad byte (0xFF, replaced by U+FFFD) at every position of every length
 * 1..70 must be found, the text around it kept. */
START_TEST(utf8_ascii_run_every_position) {
    char in[80], want[90];
    strbuf b = {0};
    for (size_t n = 1; n <= 70; n++) {
        for (size_t i = 0; i < n; i++) in[i] = (char)('a' + i % 26);
        ck_assert(utf8_valid((const uint8_t *)in, n));
        memcpy(want, in, n);
        want[n] = 0;
        ck_assert_str_eq(sanitize(in, n, &b), want);
        for (size_t pos = 0; pos < n; pos++) {
            in[pos] = (char)0xFF;
            ck_assert_msg(!utf8_valid((const uint8_t *)in, n), "n %zu pos %zu", n, pos);
            memcpy(want, in, pos);
            memcpy(want + pos, "\xef\xbf\xbd", 3);
            memcpy(want + pos + 3, in + pos + 1, n - pos - 1);
            want[n + 2] = 0;
            ck_assert_str_eq(sanitize(in, n, &b), want);
            in[pos] = (char)('a' + pos % 26);
        }
    }
    strbuf_free(&b);
}
END_TEST

/* torch_us_short_ns (the torch timestamps' inline path, with its "%.3f" branch) against
 * the arithmetic written out here: every integer length 0..17 with 0..4 fraction digits, with
 * and without the '.', and each with one byte spoiled. Refusing is allowed only for shapes
 * outside 1..15 integer and 0..3 fraction digits; an answer must be exact. */
START_TEST(torch_short_times_agree) {
    char b[32];
    unsigned seed = 777;
    for (int spoil = -1; spoil < 24; spoil++)
        for (size_t ni = 0; ni <= 17; ni++)
            for (int nf = -1; nf <= 4; nf++) {          /* -1: no '.' at all */
                size_t n = 0;
                uint64_t ip = 0, fp = 0;
                for (size_t i = 0; i < ni; i++) {
                    seed = seed * 1103515245u + 12345u;
                    unsigned d = (seed >> 16) % 10;
                    b[n++] = (char)('0' + d);
                    ip = ip * 10 + d;
                }
                if (nf >= 0) b[n++] = '.';
                for (int f = 0; f < nf; f++) {
                    seed = seed * 1103515245u + 12345u;
                    unsigned d = (seed >> 16) % 10;
                    b[n++] = (char)('0' + d);
                    fp = fp * 10 + d;
                }
                bool bad = false;
                if (spoil >= 0 && (size_t)spoil < n) { b[spoil] = spoil % 2 ? '/' : ':'; bad = true; }
                if (!n) continue;
                int64_t got;
                bool ok = torch_us_short_ns(b, n, &got);
                bool shape = !bad && ni >= 1 && ni <= 15 && nf <= 3 && nf != 0;
                if (ok) {
                    static const uint64_t SCALE[4] = {1000, 100, 10, 1};
                    uint64_t want = ip * 1000 + (nf > 0 ? fp * SCALE[nf] : 0);
                    ck_assert_msg(shape && (uint64_t)got == want, "%.*s", (int)n, b);
                } else {
                    ck_assert_msg(!shape, "refused %.*s", (int)n, b);
                }
            }
}
END_TEST

START_TEST(py_integer_eight_digits_agree) {
    char b[24];
    i128 v;
    unsigned seed = 12345;
    static const char BAD[] = {'/', ':', (char)0xB0};
    for (size_t len = 1; len <= 18; len++)
        for (int rep = 0; rep < 120; rep++) {
            uint64_t want = 0;
            for (size_t i = 0; i < len; i++) {
                seed = seed * 1103515245u + 12345u;
                unsigned d = (seed >> 16) % 10;
                b[i] = (char)('0' + d);
                want = want * 10 + d;
            }
            ck_assert(py_integer(b, len, &v) && v == (i128)want);
            size_t pos = (size_t)rep % len;
            char keep = b[pos];
            b[pos] = BAD[rep % 3];
            ck_assert_msg(!py_integer(b, len, &v), "len %zu pos %zu", len, pos);
            b[pos] = keep;
        }
}
END_TEST

static strbuf *names(const char *const *list, size_t *n) {
    size_t k = 0;
    while (list[k]) k++;
    strbuf *b = calloc(k, sizeof *b);
    for (size_t i = 0; i < k; i++) strbuf_append(&b[i], list[i], strlen(list[i]));
    *n = k;
    return b;
}

static void free_names(strbuf *b, size_t n) {
    for (size_t i = 0; i < n; i++) strbuf_free(&b[i]);
    free(b);
}

START_TEST(column_pick_order) {
    static const char *const START[] = {"BeginNs", "start_ns", "BeginNS", "Start", NULL};
    static const char *const UTIL[] = {"usage", "GFX_UTIL", "Util", NULL};
    static const char *const NOT_UTIL[] = {"power", NULL};
    size_t n;
    const char *const h1[] = {"Kind", "Start_Timestamp", "End_Timestamp", NULL};
    strbuf *b = names(h1, &n);
    ck_assert_int_eq(column_pick(b, n, START, NULL), 1);                /* token match */
    free_names(b, n);
    const char *const h2[] = {"beginns", "BeginNs", NULL};
    b = names(h2, &n);
    ck_assert_int_eq(column_pick(b, n, START, NULL), 1);                /* exact beats case-insensitive */
    free_names(b, n);
    const char *const h3[] = {"power_usage", "gfx_busy", NULL};
    b = names(h3, &n);
    ck_assert_int_eq(column_pick(b, n, UTIL, NULL), 0);                 /* seed: power_usage ~ usage */
    ck_assert_int_eq(column_pick(b, n, UTIL, NOT_UTIL), -1);            /* fixed */
    free_names(b, n);
    const char *const h4[] = {"Name", "x", "Name", NULL};
    b = names(h4, &n);
    static const char *const NAME[] = {"Name", NULL};
    ck_assert_int_eq(column_pick(b, n, NAME, NULL), 2);                 /* DictReader: last duplicate */
    ck_assert_int_eq(column_pick(b, 0, NAME, NULL), -1);
    free_names(b, n);
}
END_TEST

/* Rule 1: kernel-trace timing columns match whole name tokens (goblin_ref.name_tokens). */
START_TEST(column_pick_whole_tokens) {
    size_t tok[8][2];
    const char *t = "SQ_INSTS_SENDMSG";
    ck_assert_uint_eq(column_name_tokens(t, strlen(t), tok, 8), 3);           /* sq insts sendmsg */
    t = "BeginNSValue2x";                                                /* begin ns value 2 x */
    ck_assert_uint_eq(column_name_tokens(t, strlen(t), tok, 8), 5);
    ck_assert_uint_eq(tok[1][0], 5);
    ck_assert_uint_eq(tok[1][1], 2);
    ck_assert(column_has_name_token("vram_used_bytes", 15, "bytes"));
    ck_assert(!column_has_name_token("vram_usedbytes", 14, "bytes"));
    ck_assert(column_has_name_token("VRAMBytes", 9, "bytes"));                 /* VRAM + Bytes */
    static const char *const END[] = {"EndNs", "end_ns", "EndNS", "End", NULL};
    size_t n;
    const char *const h[] = {"Kernel_Name", "SQ_INSTS_SENDMSG", "Start_Timestamp", "End_Timestamp", NULL};
    strbuf *b = names(h, &n);
    ck_assert_int_eq(column_pick(b, n, END, NULL), 1);                  /* seed: the counter */
    ck_assert_int_eq(column_pick_timing(b, n, END), 3);                 /* default: End_Timestamp */
    free_names(b, n);
    const char *const h2[] = {"SQ_INSTS_SENDMSG", "endNs", NULL};
    b = names(h2, &n);
    ck_assert_int_eq(column_pick_timing(b, n, END), 1);                 /* case-insensitive beats tokens */
    free_names(b, n);
    const char *const h3[] = {"SQ_INSTS_SENDMSG", NULL};
    b = names(h3, &n);
    ck_assert_int_eq(column_pick_timing(b, n, END), -1);
    free_names(b, n);
}
END_TEST

START_TEST(kernel_classification) {
    attn_kind a;
    unsigned f = kernel_classify("Cijk_Alik_Bljk_BBS_BH_MT256x256x64", 34, &a);
    ck_assert(f & KF_GEMM_WIDE);
    ck_assert(!(f & KF_GEMM_SEED));
    f = kernel_classify("hipblaslt_generic_gemm_fallback_f16_128x64", 42, &a);
    ck_assert((f & KF_GEMM_SEED) && (f & KF_GEMM_WIDE) && (f & KF_GENERIC) && (f & KF_FP16));
    f = kernel_classify("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 40, &a);
    ck_assert((f & KF_COLLECTIVE) && (f & KF_BF16));
    f = kernel_classify("rccl_reduce_scatter_bf16", 24, &a);
    ck_assert(f & KF_COLLECTIVE);
    f = kernel_classify("myallreducekernel", 17, &a);
    ck_assert(!(f & KF_COLLECTIVE));                                   /* not a bounded word */
    kernel_classify("flash_attn_fwd_kernel_rocm_bf16", 31, &a);
    ck_assert_int_eq(a, ATTN_FLASH_ROCM);
    kernel_classify("FlashAttnFwd", 12, &a);
    ck_assert_int_eq(a, ATTN_FLASH);
    kernel_classify("at::native::scaled_dot_product_attention_x", 42, &a);
    ck_assert_int_eq(a, ATTN_SDPA);
    f = kernel_classify("nvjet_tst_128x64", 16, &a);
    ck_assert(f & KF_GEMM_WIDE);
    f = kernel_classify("wvSplitK_hf_", 12, &a);
    ck_assert(f & KF_GEMM_WIDE);
    f = kernel_classify("x_\xe2\x84\xaa_gemm", 10, &a);                 /* Kelvin sign is alphanumeric under re.I */
    ck_assert(f & KF_GEMM_SEED);
    f = kernel_classify("\xe2\x84\xaa" "gemm", 7, &a);
    ck_assert(!(f & KF_GEMM_SEED));
}
END_TEST

/* str_hash_n's state after the first 8-byte word of a 16-byte name, for key k (the hash's own
 * steps, written out: the attack the key defeats). */
static uint64_t state_after_word(uint64_t k, uint64_t w) {
    uint64_t h = (0 ^ k ^ 0x9e3779b97f4a7c15ULL) + 16 * 0xff51afd7ed558ccdULL;
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 31);
}

/* Names an attacker computes to collide: without a key, 16-byte names whose second word is
 * (the state after the first) ^ C all hash alike. Under the process's random key they do not:
 * the same 4,096 names give (nearly) 4,096 hashes, and the key is not 0. */
START_TEST(str_hash_is_keyed) {
    ck_assert(str_hash_key != 0);
    enum { N = 4096 };
    uint64_t *h0 = malloc(N * sizeof *h0), *hk = malloc(N * sizeof *hk);
    ck_assert(h0 && hk);
    for (uint64_t i = 0; i < N; i++) {
        uint64_t w[2] = {0x6d6d5f6e65746174ULL + i * 0x100000001ULL, 0};
        w[1] = state_after_word(0, w[0]) ^ 0x1234567890abcdefULL;
        hk[i] = str_hash_n((const char *)w, 16, 0);
        uint64_t key = str_hash_key;
        str_hash_key = 0;                            /* (the unkeyed hash, for the comparison) */
        h0[i] = str_hash_n((const char *)w, 16, 0);
        str_hash_key = key;
    }
    size_t same0 = 0, samek = 0;
    for (size_t i = 1; i < N; i++) same0 += h0[i] == h0[0], samek += hk[i] == hk[0];
    ck_assert_uint_eq(same0, N - 1);                 /* the construction works unkeyed */
    ck_assert_uint_le(samek, 1);                     /* and not against the key */
    uint64_t mask = 0xFFFF;                          /* nor in a table's low bits: spread as random */
    size_t in_slot0 = 0;
    for (size_t i = 0; i < N; i++) in_slot0 += (hk[i] & mask) == (hk[0] & mask);
    ck_assert_uint_le(in_slot0, 8);
    free(h0), free(hk);
}
END_TEST

/* text_terminal: what the CLI prints of an untrusted string drives no terminal. */
START_TEST(text_terminal_is_inert) {
    char b[64];
    ck_assert_str_eq(text_terminal("gemm\x1b[2J\r\n\x7f", b, sizeof b), "gemm [2J   ");
    ck_assert_str_eq(text_terminal("a\xc2\x9b" "31m" "b\xe2\x80\xae" "c\xe2\x81\xa6" "d", b, sizeof b), "a 31mb c d");
    ck_assert_str_eq(text_terminal("\xc0\x9b" "x\xff" "y", b, sizeof b), "??x?y");    /* an overlong ESC, 0xff: not UTF-8 */
    /* text_control_at: the same controls, one character at a time */
    ck_assert_uint_eq(text_control_at("\x1b[", 2), 1);
    ck_assert_uint_eq(text_control_at("\xc2\x9b", 2), 2);
    ck_assert_uint_eq(text_control_at("\xc2\xa0", 2), 0);          /* U+00A0: printable */
    ck_assert_uint_eq(text_control_at("\xe2\x80\xae", 3), 3);
    ck_assert_uint_eq(text_control_at("\xe2\x81\xa9", 3), 3);
    ck_assert_uint_eq(text_control_at("\xe2\x80\xaf", 3), 0);      /* U+202F: a space, not an override */
    ck_assert_uint_eq(text_control_at("\xe2\x80", 2), 0);          /* cut short: not one */
    ck_assert_uint_eq(text_control_at("a", 1), 0);
    /* utf8_char_len: a whole valid character, or 0 */
    ck_assert_uint_eq(utf8_char_len("a", 1), 1);
    ck_assert_uint_eq(utf8_char_len("\xc3\xa9", 2), 2);
    ck_assert_uint_eq(utf8_char_len("\xf0\x9f\x98\x80", 4), 4);
    ck_assert_uint_eq(utf8_char_len("\x9b", 1), 0);                /* a bare continuation byte (8-bit CSI) */
    ck_assert_uint_eq(utf8_char_len("\xff", 1), 0);
    ck_assert_uint_eq(utf8_char_len("\xc0\x9b", 2), 0);            /* overlong */
    ck_assert_uint_eq(utf8_char_len("\xed\xa0\x80", 3), 0);        /* a surrogate */
    ck_assert_uint_eq(utf8_char_len("\xe2\x80", 2), 0);            /* cut short */
    ck_assert_uint_eq(utf8_char_len("", 0), 0);
    ck_assert_str_eq(text_terminal("\xed\xa0\x80" "\xf5\x80\x80\x80", b, sizeof b), "???????");   /* surrogate, past U+10FFFF */
    ck_assert_str_eq(text_terminal("caf\xc3\xa9 \xe4\xb8\xad", b, sizeof b), "caf\xc3\xa9 \xe4\xb8\xad");
    ck_assert_str_eq(text_terminal("ab\xc3\xa9", b, 4), "ab");                   /* cut before a character */
    ck_assert_str_eq(text_terminal(NULL, b, sizeof b), "-");
}
END_TEST

Suite *text_suite(void) {
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, utf8_replacement_matches_python);
    tcase_add_test(tc, strip_uses_python_whitespace);
    tcase_add_test(tc, folds_follow_python_ignorecase);
    tcase_add_test(tc, py_float_grammar);
    tcase_add_test(tc, py_integer_exact_and_fallback);
    tcase_add_test(tc, py_integer_eight_digits_agree);
    tcase_add_test(tc, utf8_ascii_run_every_position);
    tcase_add_test(tc, torch_short_times_agree);
    tcase_add_test(tc, column_pick_order);
    tcase_add_test(tc, column_pick_whole_tokens);
    tcase_add_test(tc, kernel_classification);
    tcase_add_test(tc, text_terminal_is_inert);
    tcase_add_test(tc, str_hash_is_keyed);
    suite_add_tcase(s, tc);
    return s;
}
