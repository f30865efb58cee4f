/* Tests of ns_intervals' retirement (analyses/structures/ns_intervals.c): a set that folds its older
 * spans into a running total keeps nsi_total equal to a brute-force per-nanosecond union
 * whenever no interval reaches back below its floor (in time order, or in random order
 * within the kept spans), says `inexact` when one does (and then never undercounts), and
 * merges of folded sets are exact when their folded parts do not meet. nsi_add's search from
 * the set's end (the last 8 spans, then a binary search) and nsi_priority_split's sweep over
 * only the categories still live (and only down to the labelling one) are checked span by span and part by part against a
 * per-nanosecond brute force, with disorder shorter and longer than those 8 spans. The
 * timeline's interval_set: iset_add_all's in-place merge of two large interleaved sets gives
 * the islands and launches that adding src's islands one by one gives, and iset_totals_below
 * the sums of iset_total_below and iset_overlap_below. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/interval_set.h"
#include "analyses/structures/ns_intervals.h"

#define SPAN 20000

/* |union| of the intervals by marking every nanosecond of [0, SPAN). */
static int64_t brute(const int64_t (*iv)[2], size_t n) {
    static unsigned char mark[SPAN];
    memset(mark, 0, sizeof mark);
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        for (int64_t x = iv[i][0]; x < iv[i][1]; x++)
            if (!mark[x]) mark[x] = 1, t++;
    return t;
}

/* n intervals with gaps, in time order; each starts after the previous one's start. */
static void in_order(int64_t (*iv)[2], size_t n, unsigned seed) {
    srand(seed);
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
        t += 1 + rand() % 12;
        iv[i][0] = t;
        iv[i][1] = t + 1 + rand() % 15;
    }
}

START_TEST(in_order_is_exact_and_bounded) {
    int64_t iv[1000][2];
    for (unsigned seed = 1; seed <= 50; seed++) {
        in_order(iv, 1000, seed);
        ns_intervals s = {.retire_above = 16};
        size_t most = 0;
        for (size_t i = 0; i < 1000; i++) {
            ck_assert(nsi_add(&s, iv[i][0], iv[i][1]));
            if (s.n > most) most = s.n;
        }
        ck_assert_uint_le(most, 16);
        ck_assert(s.retired);
        ck_assert_uint_eq(s.inexact, 0);
        ck_assert_int_eq(nsi_total(&s), brute((const int64_t(*)[2])iv, 1000));
        nsi_free(&s);
    }
}
END_TEST

START_TEST(disorder_within_the_window_is_exact) {
    int64_t iv[1000][2];
    for (unsigned seed = 1; seed <= 50; seed++) {
        in_order(iv, 1000, seed);
        for (size_t i = 0; i + 1 < 1000; i += 2) {   /* swap neighbours: a disorder of one */
            int64_t a = iv[i][0], b = iv[i][1];
            iv[i][0] = iv[i + 1][0], iv[i][1] = iv[i + 1][1];
            iv[i + 1][0] = a, iv[i + 1][1] = b;
        }
        ns_intervals s = {.retire_above = 64};
        for (size_t i = 0; i < 1000; i++) ck_assert(nsi_add(&s, iv[i][0], iv[i][1]));
        ck_assert_uint_eq(s.inexact, 0);
        ck_assert_int_eq(nsi_total(&s), brute((const int64_t(*)[2])iv, 1000));
        nsi_free(&s);
    }
}
END_TEST

START_TEST(random_order_fitting_is_exact) {
    int64_t iv[200][2];
    for (unsigned seed = 1; seed <= 50; seed++) {
        srand(seed);
        for (size_t i = 0; i < 200; i++) {
            iv[i][0] = rand() % (SPAN - 100);
            iv[i][1] = iv[i][0] + 1 + rand() % 60;
        }
        ns_intervals s = {.retire_above = 200};   /* never more spans than intervals */
        for (size_t i = 0; i < 200; i++) ck_assert(nsi_add(&s, iv[i][0], iv[i][1]));
        ck_assert(!s.retired);
        ck_assert_int_eq(nsi_total(&s), brute((const int64_t(*)[2])iv, 200));
        nsi_free(&s);
    }
}
END_TEST

START_TEST(reach_back_is_flagged_never_undercounted) {
    int64_t iv[400][2];
    for (unsigned seed = 1; seed <= 50; seed++) {
        srand(seed);
        for (size_t i = 0; i < 400; i++) {
            iv[i][0] = rand() % (SPAN - 100);
            iv[i][1] = iv[i][0] + 1 + rand() % 30;
        }
        ns_intervals s = {.retire_above = 8};
        for (size_t i = 0; i < 400; i++) ck_assert(nsi_add(&s, iv[i][0], iv[i][1]));
        int64_t truth = brute((const int64_t(*)[2])iv, 400);
        ck_assert_uint_gt(s.inexact, 0);
        ck_assert_int_ge(nsi_total(&s), truth);
        nsi_free(&s);
    }
}
END_TEST

START_TEST(merges_of_folded_sets) {
    int64_t iv[1000][2];
    in_order(iv, 1000, 7);
    int64_t truth = brute((const int64_t(*)[2])iv, 1000);
    /* the first and second halves in two sets (two pieces of one file), merged and moved */
    for (int how = 0; how < 4; how++) {
        ns_intervals a = {.retire_above = 16}, b = {.retire_above = 16}, d = {.retire_above = 16};
        for (size_t i = 0; i < 500; i++) ck_assert(nsi_add(&a, iv[i][0], iv[i][1]));
        for (size_t i = 500; i < 1000; i++) ck_assert(nsi_add(&b, iv[i][0], iv[i][1]));
        ns_intervals *x = how & 1 ? &b : &a, *y = how & 1 ? &a : &b;
        if (how & 2) ck_assert(nsi_move(&d, x) && nsi_move(&d, y));
        else ck_assert(nsi_merge(x, y));
        ns_intervals *out = how & 2 ? &d : x;
        ck_assert_uint_le(out->n, 16);
        ck_assert_uint_eq(out->inexact, 0);
        ck_assert_int_eq(nsi_total(out), truth);
        nsi_free(&a), nsi_free(&b), nsi_free(&d);
    }
    /* two sets over the same time: their folded parts meet, the merge says inexact */
    ns_intervals a = {.retire_above = 16}, b = {.retire_above = 16};
    for (size_t i = 0; i < 1000; i++) ck_assert(nsi_add(i % 2 ? &a : &b, iv[i][0], iv[i][1]));
    ck_assert(nsi_merge(&a, &b));
    ck_assert_uint_gt(a.inexact, 0);
    ck_assert_int_ge(nsi_total(&a), truth);
    nsi_free(&a), nsi_free(&b);
}
END_TEST

/* The spans a per-nanosecond mark array makes (maximal runs), for comparing a set exactly. */
static size_t brute_spans(const unsigned char *mark, ns_span *out) {
    size_t n = 0;
    for (int64_t x = 0; x < SPAN; x++)
        if (mark[x] && (!x || !mark[x - 1])) out[n++] = (ns_span){x, x + 1};
        else if (mark[x]) out[n - 1].end = x + 1;
    return n;
}

/* Intervals shuffled by up to `dis` positions (0..24: within and past the 8 spans nsi_add
 * checks before a binary search); the set must equal the brute-force union span by span
 * (touching intervals join, as in the brute force's runs). */
START_TEST(near_end_search_matches_brute_force) {
    static int64_t iv[1500][2];
    static unsigned char mark[SPAN];
    static ns_span want[SPAN];
    for (unsigned dis = 0; dis <= 24; dis += 3) {
        in_order(iv, 1500, 40 + dis);
        for (size_t i = 0; dis && i + 1 < 1500; i++) {
            size_t j = i + (size_t)rand() % (dis + 1);
            if (j >= 1500) j = 1499;
            int64_t a = iv[i][0], b = iv[i][1];
            iv[i][0] = iv[j][0], iv[i][1] = iv[j][1], iv[j][0] = a, iv[j][1] = b;
        }
        ns_intervals s = {0};
        memset(mark, 0, sizeof mark);
        for (size_t i = 0; i < 1500; i++) {
            ck_assert(nsi_add(&s, iv[i][0], iv[i][1]));
            for (int64_t x = iv[i][0]; x < iv[i][1]; x++) mark[x] = 1;
        }
        size_t n = brute_spans(mark, want);
        ck_assert_uint_eq(s.n, n);
        for (size_t k = 0; k < n; k++) {
            ck_assert_int_eq(s.v[k].start, want[k].start);
            ck_assert_int_eq(s.v[k].end, want[k].end);
        }
        nsi_free(&s);
    }
}
END_TEST

/* Priority split of random windows over 5 categories (one empty, one ending early, one
 * starting late) against labelling every nanosecond with its first covering category; a
 * second round with the first category's spans long (covering many spans of the others,
 * whose positions the sweep then lets lag behind and catch up). */
START_TEST(priority_split_matches_brute_force) {
    enum { NC = 5, LEN = 4000 };
    static unsigned char cover[NC][LEN];
    for (int round = 0; round < 2; round++) {
        memset(cover, 0, sizeof cover);
        ns_intervals cats[NC] = {{0}};
        srand(7 + round);
        for (int c = 1; c < NC; c++) {
            int64_t lo = c == 3 ? 2500 : 0, hi = c == 2 ? 1200 : LEN;   /* 0: empty */
            int longest = round && c == 1 ? 400 : 40;
            for (int k = 0; k < 150; k++) {
                int64_t a = lo + rand() % (hi - lo), b = a + 1 + rand() % longest;
                if (b > hi) b = hi;
                ck_assert(nsi_add(&cats[c], a, b));
                for (int64_t x = a; x < b; x++) cover[c][x] = 1;
            }
        }
        for (int w = 0; w < 300; w++) {
            int64_t lo = rand() % LEN, hi = lo + rand() % (LEN - lo + 1);
            int64_t part[NC + 1], want[NC + 1] = {0};
            ck_assert(nsi_priority_split(cats, NC, lo, hi, part));
            for (int64_t x = lo; x < hi; x++) {
                int label = NC;
                for (int c = 0; c < NC && label == NC; c++)
                    if (cover[c][x]) label = c;
                want[label]++;
            }
            for (int c = 0; c <= NC; c++) ck_assert_int_eq(part[c], want[c]);
        }
        for (int c = 0; c < NC; c++) nsi_free(&cats[c]);
    }
}
END_TEST

/* A random set of n intervals in [0, span) (launches known for about half), flushed. false:
 * OOM. (Few ck_asserts in the loops: each one is a message to Check's parent process.) */
static bool random_iset(interval_set *s, unsigned *seed, int n, int span, int maxlen) {
    bool ok = true;
    for (int i = 0; i < n; i++) {
        int64_t a = rand_r(seed) % span, e = a + 1 + rand_r(seed) % maxlen;
        int64_t launch = rand_r(seed) % 2 ? a - rand_r(seed) % 50 : IV_NO_LAUNCH;
        if (rand_r(seed) % 8 == 0) a = (a / 16) * 16;   /* equal starts: launch ties */
        ok &= iset_add(s, a, e, launch);
    }
    return ok && iset_flush(s);
}

/* Adds every island of src to dst one by one (the reference for iset_add_all). */
static bool add_each(interval_set *dst, const interval_set *src) {
    bool ok = true;
    for (size_t i = 0; i < src->n; i++) ok &= iset_add(dst, src->v[i].start, src->v[i].end, iset_launch(src, i));
    return ok;
}

START_TEST(add_all_merge_matches_one_by_one) {
    unsigned seed = 77;
    for (int round = 0; round < 40; round++) {
        interval_set dst = {0}, src = {0}, ref = {0};
        int span = round % 2 ? 4000000 : 600000;   /* sparse: thousands of islands */
        ck_assert(random_iset(&dst, &seed, 3000 + rand_r(&seed) % 9000, span, round % 3 ? 5 : 40));
        ck_assert(random_iset(&src, &seed, 9000 + rand_r(&seed) % 9000, span, round % 3 ? 5 : 40));
        for (int h = 0; h < 4; h++) {   /* iset_totals_below: the three one-pass sums */
            int64_t hi = h == 3 ? INT64_MAX : (int64_t)(rand_r(&seed) % span), ta, tb, both;
            iset_totals_below(&dst, &src, hi, &ta, &tb, &both);
            ck_assert_int_eq(ta, iset_total_below(&dst, hi));
            ck_assert_int_eq(tb, iset_total_below(&src, hi));
            ck_assert_int_eq(both, iset_overlap_below(&dst, &src, hi));
        }
        ck_assert(add_each(&ref, &dst));
        if (round % 5 == 0) {   /* dst with a pending (out-of-order) interval */
            ck_assert(iset_add(&dst, 5, 9, 3));
            ck_assert(iset_add(&ref, 5, 9, 3));
        }
        ck_assert(add_each(&ref, &src) && iset_flush(&ref));
        ck_assert_uint_ge(src.n, IV_BUFFER);   /* the merge path */
        ck_assert(iset_add_all(&dst, &src) && iset_flush(&dst));
        ck_assert_uint_eq(dst.n, ref.n);
        size_t bad = ref.n;
        for (size_t i = 0; i < ref.n && bad == ref.n; i++)
            if (dst.v[i].start != ref.v[i].start || dst.v[i].end != ref.v[i].end || iset_launch(&dst, i) != iset_launch(&ref, i))
                bad = i;
        ck_assert_uint_eq(bad, ref.n);
        iset_free(&dst), iset_free(&src), iset_free(&ref);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("ns_intervals");
    TCase *tc = tcase_create("retire");
    tcase_add_test(tc, in_order_is_exact_and_bounded);
    tcase_add_test(tc, disorder_within_the_window_is_exact);
    tcase_add_test(tc, random_order_fitting_is_exact);
    tcase_add_test(tc, reach_back_is_flagged_never_undercounted);
    tcase_add_test(tc, merges_of_folded_sets);
    tcase_add_test(tc, near_end_search_matches_brute_force);
    tcase_add_test(tc, priority_split_matches_brute_force);
    tcase_add_test(tc, add_all_merge_matches_one_by_one);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
