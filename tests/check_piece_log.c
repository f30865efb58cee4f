/* check_piece_log: the delta-coded piece log (analyses/structures/piece_log.c) gives back exactly the
 * bytes put, in order, for any entry bytes: random words (worst case: 5 bytes a word),
 * slowly moving ids and times (the common case, checked to code small), extreme values
 * (INT64_MIN/MAX ends against starts: the differences wrap), entry sizes 4..64 with and
 * without a span field, across many 64 KiB blocks; and it frees blocks as it is read. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/piece_log.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next64(void) {   /* xorshift64*: reproducible */
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

/* Puts n entries of `size` bytes made by fill(i, entry), reads them back and compares. */
static void round_trip(size_t size, size_t span, size_t n, void (*fill)(size_t, unsigned char *, size_t)) {
    piece_log l = {.size = size, .span = span};
    unsigned char *all = malloc(n * size);
    ck_assert_ptr_nonnull(all);
    for (size_t i = 0; i < n; i++) {
        fill(i, all + i * size, size);
        ck_assert(plog_put(&l, all + i * size));
    }
    ck_assert_uint_eq(l.n, n);
    unsigned char got[64];
    for (size_t i = 0; i < n; i++) {
        ck_assert(plog_take(&l, got));
        ck_assert_int_eq(memcmp(got, all + i * size, size), 0);
        if (i + 1 < n && l.rblock > 0) ck_assert_ptr_null(l.blocks[l.rblock - 1]);   /* freed as read */
    }
    ck_assert(!plog_take(&l, got));
    plog_free(&l);
    ck_assert_uint_eq(l.size, size);
    ck_assert_uint_eq(l.span, span);
    free(all);
}

static void fill_random(size_t i, unsigned char *e, size_t size) {
    (void)i;
    for (size_t k = 0; k < size; k += 4) {
        uint32_t w = (uint32_t)next64();
        memcpy(e + k, &w, 4);
    }
}

/* {id, start, end, flags}: ids +1, starts a few microseconds apart, ends after starts */
static void fill_trace(size_t i, unsigned char *e, size_t size) {
    int64_t w[4] = {(int64_t)(1000000 + i), 1700000000000000000ll + (int64_t)i * 3000 + (int64_t)(next64() % 500),
                    0, (int64_t)(i % 3)};
    w[2] = w[1] + 1000 + (int64_t)(next64() % 20000);
    memset(e, 0, size);
    memcpy(e, w, size < sizeof w ? size : sizeof w);
}

/* ends and starts at the extremes, in both orders: every difference wraps */
static void fill_extreme(size_t i, unsigned char *e, size_t size) {
    static const int64_t v[] = {INT64_MIN, INT64_MAX, 0, -1, 1, INT64_MIN / 2, INT64_MAX / 2};
    int64_t w[8];
    for (size_t k = 0; k < 8; k++) w[k] = v[(i * 3 + k * 5 + (size_t)(next64() % 2)) % 7];
    memcpy(e, w, size);
}

START_TEST(random_bytes_round_trip) {
    for (size_t size = 4; size <= 64; size += 4) round_trip(size, 0, 6000, fill_random);
    round_trip(32, 8, 50000, fill_random);
    round_trip(56, 24, 50000, fill_random);
}
END_TEST

START_TEST(extremes_round_trip) {
    round_trip(32, 8, 30000, fill_extreme);
    round_trip(64, 56, 30000, fill_extreme);
    round_trip(24, 16, 30000, fill_extreme);
}
END_TEST

START_TEST(trace_like_entries_code_small) {
    size_t n = 200000;
    round_trip(32, 16, n, fill_trace);
    piece_log l = {.size = 32, .span = 16};
    unsigned char e[32];
    for (size_t i = 0; i < n; i++) {
        fill_trace(i, e, 32);
        ck_assert(plog_put(&l, e));
    }
    /* 8 words: id 1+1, start 2-3+1, duration 2-3+1, flags 1+1: at most 14 bytes of 32 */
    ck_assert_uint_le(l.nblocks * PIECE_LOG_BLOCK, n * 14 + PIECE_LOG_BLOCK);
    plog_free(&l);
}
END_TEST

START_TEST(empty_and_free_unread) {
    piece_log l = {.size = 16};
    unsigned char e[16] = {1, 2, 3};
    ck_assert(!plog_take(&l, e));
    for (int i = 0; i < 10000; i++) ck_assert(plog_put(&l, e));
    ck_assert(plog_take(&l, e));
    plog_free(&l);   /* part read: the rest freed (ASan: no leak, no double free) */
    ck_assert_uint_eq(l.n, 0);
    ck_assert(!plog_take(&l, e));
}
END_TEST

int main(void) {
    Suite *s = suite_create("piece_log");
    TCase *t = tcase_create("piece_log");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, random_bytes_round_trip);
    tcase_add_test(t, extremes_round_trip);
    tcase_add_test(t, trace_like_entries_code_small);
    tcase_add_test(t, empty_and_free_unread);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
