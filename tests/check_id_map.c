/* check_id_map: the id map and the kernel-class cache the section analyses join and classify
 * with (analyses/structures/id_map.c, analyses/kernel_class_cache.c).
 *
 * id_map_get_or_put (one probe for kernel groups) must agree with id_map_get/id_map_put on
 * dense, strided and random ids across many growths; the class cache, which now grows from a
 * small table, must answer what kernel_class_of answers for every name, before and after it
 * grows and once it is full (KCC_MAX_NAMES), and whatever name was classified just before on
 * the thread (the recent-names table). The packed 12-byte slots and the min/max key bounds
 * (early misses) are checked against a plain array: keys at both ends of 64 bits, misses
 * below, between and above the keys, id_map_at walking every entry once. corr_map's bounds
 * (a full map refuses a new corr beyond them without a probe, but still replaces a present
 * one; take misses outside them) are checked against a brute-force list. name_agg's
 * recent-entry slots must never mix up names that share their cheap key (length and first
 * and last bytes) or differ only by tag, and its bucket edge table must bucket every
 * duration as the log rule it replaced did. */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/corr_map.h"
#include "analyses/structures/id_map.h"
#include "analyses/structures/str_pool.h"
#include "analyses/kernel_class_cache.h"
#include "analyses/structures/name_agg.h"
#include "parsers/kernel_table.h"

/* The id of the i-th key of pattern p: dense, strided by 4096, scrambled, two dense runs
 * interleaved (far apart), strided by 8 (every id alone at its block's first slot), or
 * differing only in the high word (every id in the same place of its window: the windows'
 * hashed offsets alone spread them). */
static uint64_t key_of(int p, uint64_t i) {
    if (p == 0) return i + 1;
    if (p == 1) return i << 12;
    if (p == 3) return (i & 1) ? (1ull << 40) + (i >> 1) : 5000 + (i >> 1);
    if (p == 4) return i << 3;
    if (p == 5) return i << 32 | 5;
    uint64_t x = i * 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

START_TEST(get_or_put_agrees_with_get_and_put) {
    for (int p = 0; p < 6; p++) {
        id_map m = {0};
        const uint32_t n = 200000;
        for (uint32_t i = 0; i < n; i++) ck_assert_uint_eq(id_map_get_or_put(&m, key_of(p, i), i), i);
        ck_assert_uint_eq(m.n, n);
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_uint_eq(id_map_get_or_put(&m, key_of(p, i), 7), i);   /* present: kept */
            ck_assert_uint_eq(id_map_get(&m, key_of(p, i)), i);
        }
        ck_assert_uint_eq(m.n, n);
        ck_assert_uint_eq(id_map_get(&m, key_of(p, n)), ID_MAP_NONE);
        ck_assert_uint_eq(id_map_put(&m, key_of(p, 3), 99), 99);           /* put still replaces */
        ck_assert_uint_eq(id_map_get_or_put(&m, key_of(p, 3), 5), 99);
        id_map_free(&m);
    }
}
END_TEST

START_TEST(get_or_put_respects_the_limit) {
    id_map m = {.max_entries = 3};
    for (uint32_t i = 0; i < 3; i++) ck_assert_uint_eq(id_map_get_or_put(&m, 100 + i, i), i);
    ck_assert_uint_eq(id_map_get_or_put(&m, 200, 3), ID_MAP_FULL);
    ck_assert_uint_eq(id_map_get_or_put(&m, 101, 3), 1);                  /* present: found */
    ck_assert_uint_eq(id_map_put(&m, 50, 9), ID_MAP_FULL);                /* below the keys: full */
    ck_assert_uint_eq(id_map_put(&m, 1000, 9), ID_MAP_FULL);              /* above */
    ck_assert_uint_eq(id_map_put(&m, 101, 9), 9);                         /* present: replaced */
    ck_assert_uint_eq(id_map_get(&m, 101), 9);
    id_map_free(&m);
    id_map g = {.max_entries = 3};                                        /* absent inside the bounds */
    for (uint32_t i = 0; i < 3; i++) ck_assert_uint_eq(id_map_put(&g, 100 + 2 * i, i), i);
    ck_assert_uint_eq(id_map_put(&g, 103, 7), ID_MAP_FULL);
    ck_assert_uint_eq(id_map_get_or_put(&g, 103, 7), ID_MAP_FULL);
    ck_assert_uint_eq(id_map_get(&g, 103), ID_MAP_NONE);
    ck_assert_uint_eq(g.n, 3);
    id_map_free(&g);
}
END_TEST

START_TEST(class_cache_answers_like_the_table) {
    static const char *const stems[] = {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32", "ncclDevKernel_AllReduce_Sum_f16_RING_LL",
                                        "flash_fwd_kernel", "void at::native::vectorized_elementwise_kernel",
                                        "triton_poi_fused_add_0", "__amd_rocclr_copyBuffer", "fmha_fwd_d128"};
    kernel_class_cache c = {0};
    char name[160];
    /* more names than the bound: the cache grows, fills, then classifies directly */
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < KCC_MAX_NAMES + 500; i++) {
            int len = snprintf(name, sizeof name, "%s_%u", stems[i % 7], i);
            ck_assert_int_eq(kcc_class_of(&c, name, (size_t)len), kernel_class_of(name, (size_t)len));
        }
    ck_assert_uint_eq(c.used, KCC_MAX_NAMES);
    ck_assert_int_eq(kcc_class_of(&c, NULL, 0), KC_OTHER);
    kcc_free(&c);
    ck_assert_int_eq(kcc_class_of(&c, "flash_fwd_kernel", 16), kernel_class_of("flash_fwd_kernel", 16));   /* usable again */
    kcc_free(&c);
    /* long names: the cache keeps at most KCC_MAX_BYTES of them (4 MiB: 255 names of 16 KiB,
     * where 8,192 such names took 128 MiB), and answers the same past it */
    enum { LONG = 16 * 1024 };
    char *big = malloc(LONG);
    ck_assert_ptr_nonnull(big);
    memset(big, 'g', LONG);
    for (unsigned i = 0; i < 600; i++) {
        int n = snprintf(big, 64, "%s_%u", stems[i % 7], i);
        big[n] = '_';
        ck_assert_int_eq(kcc_class_of(&c, big, LONG), kernel_class_of(big, LONG));
    }
    ck_assert_uint_eq(c.used, KCC_MAX_BYTES / (LONG + 1));
    ck_assert_uint_le(c.bytes, KCC_MAX_BYTES);
    kcc_free(&c);
    free(big);
}
END_TEST

/* Keys at the extremes (0, UINT64_MAX, halves differing only in the high word) and misses
 * outside and inside the bounds, against a plain array. */
START_TEST(packed_slots_and_bounds) {
    id_map m = {0};
    ck_assert_uint_eq(id_map_get(&m, 0), ID_MAP_NONE);                    /* empty */
    const uint64_t keys[] = {1000, 0xFFFFFFFFull, 0x1FFFFFFFFull, 0x100000000ull + 1000, UINT64_MAX - 1, 500};
    const size_t nk = sizeof keys / sizeof *keys;
    for (uint32_t i = 0; i < nk; i++) {
        ck_assert_uint_eq(id_map_put(&m, keys[i], i * 3), i * 3);
        for (uint32_t j = 0; j <= i; j++) ck_assert_uint_eq(id_map_get(&m, keys[j]), j * 3);
    }
    ck_assert_uint_eq(m.kmin, 500);
    ck_assert_uint_eq(m.kmax, UINT64_MAX - 1);
    ck_assert_uint_eq(id_map_get(&m, 499), ID_MAP_NONE);                  /* below */
    ck_assert_uint_eq(id_map_get(&m, UINT64_MAX), ID_MAP_NONE);           /* above */
    ck_assert_uint_eq(id_map_get(&m, 1001), ID_MAP_NONE);                 /* between */
    ck_assert_uint_eq(id_map_get(&m, 0x200000000ull + 1000), ID_MAP_NONE);/* low word shared */
    ck_assert_uint_eq(id_map_put(&m, 0, 7), 7);                           /* widens the bounds */
    ck_assert_uint_eq(id_map_get(&m, 0), 7);
    ck_assert_uint_eq(id_map_put(&m, 0, ID_MAP_NONE), ID_MAP_OOM);        /* sentinels not stored */
    ck_assert_uint_eq(id_map_get(&m, 0), 7);
    /* id_map_at: every entry exactly once */
    size_t seen = 0;
    for (size_t i = 0; i < m.cap; i++) {
        uint64_t k;
        uint32_t v;
        if (!id_map_at(&m, i, &k, &v)) continue;
        seen++;
        ck_assert_uint_eq(id_map_get(&m, k), v);
    }
    ck_assert_uint_eq(seen, nk + 1);
    ck_assert(!id_map_at(&m, m.cap, &(uint64_t){0}, &(uint32_t){0}));
    id_map_free(&m);
    ck_assert_uint_eq(id_map_get(&m, 1000), ID_MAP_NONE);                 /* freed: empty */
}
END_TEST

/* corr_map against a list: increasing corrs fill it past CORR_MAP_MAX (refused beyond the
 * bounds), takes at both ends narrow nothing but must still find what is there, a present
 * corr keeps its earlier start even when full, and a map emptied by takes starts new bounds. */
START_TEST(corr_map_bounds) {
    corr_map m = {0};
    corr_entry e;
    ck_assert(!corr_take(&m, 5, &e));
    const uint64_t base = 1u << 20;
    for (uint64_t i = 0; i < CORR_MAP_MAX; i++) ck_assert(corr_put(&m, base + 2 * i, (int64_t)i, 0, 0));
    ck_assert(!corr_put(&m, base + 2 * CORR_MAP_MAX, 0, 0, 0));            /* above: full */
    ck_assert(!corr_put(&m, base - 1, 0, 0, 0));                          /* below: full */
    ck_assert(!corr_put(&m, base + 1, 0, 0, 0));                          /* inside, absent: full */
    ck_assert(corr_put(&m, base + 4, 77, 1, 2));                          /* present, later start: kept */
    ck_assert(corr_take(&m, base + 4, &e));
    ck_assert_int_eq(e.a, 2);                                             /* the earlier (first) kernel */
    ck_assert(!corr_take(&m, base + 3, &e));                              /* odd: never stored */
    ck_assert(!corr_take(&m, base + 2 * CORR_MAP_MAX, &e));
    ck_assert(corr_put(&m, base - 10, 1, 2, 3));                          /* room again: below */
    for (uint64_t i = 0; i < CORR_MAP_MAX; i++) {
        if (i == 2) continue;
        ck_assert(corr_take(&m, base + 2 * i, &e));
        ck_assert_int_eq(e.a, (int64_t)i);
    }
    ck_assert(corr_take(&m, base - 10, &e));
    ck_assert_uint_eq(e.lane, 3);
    ck_assert_uint_eq(m.count, 0);
    ck_assert(corr_put(&m, 3, 4, 5, 6));                                  /* fresh bounds */
    ck_assert(corr_take(&m, 3, &e));
    ck_assert_int_eq(e.b, 5);
    corr_free(&m);
}
END_TEST

/* The recent-names table: names of equal length that differ (same first and last bytes: one
 * slot), a name then a prefix of it,
 * long names past the remembered buffer, in every order, each as the table says. */
START_TEST(class_cache_last_name) {
    static const char *const names[] = {"ncclKernel_AllReduce", "ncclKernel_AllReducX", "Cijk_Ailk_Bljk_HHS_",
                                        "Cijk", "flash_fwd", "elementwise_kernel", "",
                                        "ncclKernel_AllReduce_a_ncclKernel_AllReduce",
                                        "ncclKernel_AllReduce_b_ncclKernel_AllReduce"};
    char longname[600];
    memset(longname, 'a', sizeof longname);
    memcpy(longname + 300, "gemm", 4);
    kernel_class_cache a = {0}, b = {0};
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < 9; i++)
            for (size_t j = 0; j < 9; j++) {
                ck_assert_int_eq(kcc_class_of(&a, names[i], strlen(names[i])), kernel_class_of(names[i], strlen(names[i])));
                ck_assert_int_eq(kcc_class_of(&b, names[j], strlen(names[j])), kernel_class_of(names[j], strlen(names[j])));
                ck_assert_int_eq(kcc_class_of(&a, longname, sizeof longname), kernel_class_of(longname, sizeof longname));
                ck_assert_int_eq(kcc_class_of(&b, longname, 200), kernel_class_of(longname, 200));
            }
    kcc_free(&a), kcc_free(&b);
}
END_TEST

/* The per-record memo (kcc_record_seq): inside one record (odd), a second cache asking about
 * the same pointer gets the class; the same buffer rewritten for the next record (the counter
 * bumped twice) and outside a record (even) is classified anew, never from the memo. */
START_TEST(class_cache_record_memo) {
    static const char comm[] = "ncclKernel_AllReduce", gemm[] = "Cijk_Ailk_Bljk_HHS_x";
    ck_assert_uint_eq(sizeof comm, sizeof gemm);
    const size_t n = sizeof comm - 1;
    ck_assert_int_ne(kernel_class_of(comm, n), kernel_class_of(gemm, n));
    char buf[sizeof comm];
    kernel_class_cache a = {0}, b = {0};
    for (int rec = 0; rec < 6; rec++) {
        const char *want = rec % 2 ? gemm : comm;
        memcpy(buf, want, sizeof buf);
        kcc_record_seq++;                                     /* a record handed out */
        ck_assert_int_eq(kcc_class_of(&a, buf, n), kernel_class_of(want, n));
        ck_assert_int_eq(kcc_class_of(&b, buf, n), kernel_class_of(want, n));
        ck_assert_int_eq(kcc_class_of(&b, buf, 4), kernel_class_of(want, 4));   /* another length */
        kcc_record_seq++;                                     /* done */
        memcpy(buf, rec % 2 ? comm : gemm, sizeof buf);       /* outside a record: no memo */
        ck_assert_int_eq(kcc_class_of(&a, buf, n), kernel_class_of(buf, n));
    }
    ck_assert_uint_eq(b.used, 2);   /* b looked up only the 4-byte names: the full ones were memoised */
    kcc_free(&a), kcc_free(&b);
}
END_TEST

/* Names sharing length and first/last 8 bytes (one recent slot), the same name under two
 * tags, interleaved in varying patterns: each entry's calls and total match a count kept
 * by hand, and there is exactly one entry per (tag, name). */
START_TEST(name_agg_recent_slots) {
    enum { NN = 6 };
    const char *names[NN] = {"abcdefgh_A_ijklmnop", "abcdefgh_B_ijklmnop", "abcdefgh_C_ijklmnop", "short", "shorT", ""};
    uint64_t want[2][NN] = {{0}};
    name_agg a;
    name_agg_init(&a, true);
    srand(3);
    for (int i = 0; i < 20000; i++) {
        int k = i % 7 < 3 ? i % NN : rand() % NN, tag = (i / 5) % 2;
        ck_assert(name_agg_add(&a, tag, names[k], strlen(names[k]), (i128)(k + 1)));
        want[tag][k]++;
    }
    ck_assert_uint_eq(a.n, 2 * NN);
    for (size_t i = 0; i < a.n; i++) {
        int k = 0;
        while (k < NN && (strlen(names[k]) != a.e[i].len || memcmp(names[k], a.e[i].name, a.e[i].len))) k++;
        ck_assert_int_lt(k, NN);
        ck_assert_uint_eq(a.e[i].calls, want[a.e[i].tag][k]);
        ck_assert(a.e[i].total == (i128)want[a.e[i].tag][k] * (k + 1));
    }
    name_agg_free(&a);
}
END_TEST

/* kernel_table's recent slots: names sharing the cheap key, interleaved, against counts,
 * totals, minima and maxima kept by hand, first-seen order kept. */
START_TEST(kernel_table_recent_slots) {
    enum { NN = 5 };
    const char *names[NN] = {"abcdefgh_A_ijklmnop", "abcdefgh_B_ijklmnop", "gemm", "gemM", "abcdefgh_AA_ijklmnop"};
    uint64_t calls[NN] = {0};
    i128 total[NN] = {0}, lo[NN], hi[NN];
    int order[NN], seen = 0;
    kernel_table t;
    kernel_table_init(&t);
    srand(11);
    for (int i = 0; i < 30000; i++) {
        int k = i % 9 < 4 ? i % NN : rand() % NN;
        i128 ns = 1 + rand() % 1000;
        ck_assert(kernel_table_add(&t, names[k], strlen(names[k]), ns));
        if (!calls[k]) lo[k] = hi[k] = ns, order[seen++] = k;
        calls[k]++, total[k] += ns;
        if (ns < lo[k]) lo[k] = ns;
        if (ns > hi[k]) hi[k] = ns;
    }
    ck_assert_uint_eq(t.count, NN);
    ck_assert_uint_eq(t.dispatches, 30000);
    for (int i = 0; i < NN; i++) {
        int k = order[i];
        ck_assert_uint_eq(t.items[i].name_len, strlen(names[k]));
        ck_assert(!memcmp(t.items[i].name, names[k], t.items[i].name_len));
        ck_assert_uint_eq(t.items[i].calls, calls[k]);
        ck_assert(t.items[i].total_ns == total[k] && t.items[i].min_ns == lo[k] && t.items[i].max_ns == hi[k]);
    }
    kernel_table_free(&t);
}
END_TEST

/* The bucket rule name_agg used before its edge table: log(v)/log(1.02), with pow() settling
 * values within 1e-9 of an edge. */
static int32_t bucket_by_log(int64_t v) {
    if (v < 1) return 0;
    double x = log((double)v) / log(NA_BUCKET_RATIO), f = floor(x);
    int32_t k = (int32_t)f + 1;
    if (x - f > 1e-9 && x - f < 1 - 1e-9) return k;
    while (k > 1 && pow(NA_BUCKET_RATIO, k - 1) > (double)v) k--;
    while (pow(NA_BUCKET_RATIO, k) <= (double)v) k++;
    return k;
}

/* na_bucket_of (edge table, binary search between powers of two) answers what the log rule
 * answers: below 1, every value to 200,000, each edge's floor and neighbours up to INT64_MAX,
 * each power of two and its neighbours, and random values of every magnitude. */
START_TEST(bucket_table_matches_log_rule) {
    static const int64_t low[] = {INT64_MIN, -5, -1, 0};
    for (size_t i = 0; i < sizeof low / sizeof *low; i++) ck_assert_int_eq(na_bucket_of(low[i]), 0);
    for (int64_t v = 1; v <= 200000; v++) ck_assert_int_eq(na_bucket_of(v), bucket_by_log(v));
    for (int k = 0; k < 2300; k++) {
        double e = pow(NA_BUCKET_RATIO, k);
        if (e >= 9.2e18) break;
        int64_t f = (int64_t)e;
        for (int64_t d = -2; d <= 2; d++)
            if (f + d >= 1) ck_assert_int_eq(na_bucket_of(f + d), bucket_by_log(f + d));
    }
    for (int b = 0; b < 63; b++)
        for (int64_t d = -1; d <= 1; d++) {
            int64_t v = (int64_t)((uint64_t)1 << b) + d;
            if (v >= 1) ck_assert_int_eq(na_bucket_of(v), bucket_by_log(v));
        }
    ck_assert_int_eq(na_bucket_of(INT64_MAX), bucket_by_log(INT64_MAX));
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t v = (int64_t)(x >> (1 + x % 63));
        if (v >= 1) ck_assert_int_eq(na_bucket_of(v), bucket_by_log(v));
    }
}
END_TEST

/* str_pool's bound is its memory, not only its text: 1 MiB of 3-byte names is not 350,000
 * strings of ~70 B each (24 MB) but at most 1 MiB / (3 + STR_POOL_ENTRY_BYTES); the heap in use
 * (glibc's view; a sanitizer's allocator leaves it still) grows by little more than the bound.
 * Interning stays exact below it: every name gets one id, equal text the same id. */
START_TEST(str_pool_bound_counts_each_string) {
    str_pool p = {.max_bytes = 1u << 20};
    struct mallinfo2 m0 = mallinfo2();
    size_t kept = 0;
    char name[8];
    for (unsigned i = 0; i < 350000; i++) {
        for (unsigned k = 0, v = i; k < 3; k++, v /= 95) name[k] = (char)(32 + v % 95);   /* distinct */
        uint32_t id = str_pool_intern(&p, name, 3);
        ck_assert_uint_ne(id, ID_MAP_OOM);
        if (id == ID_MAP_NONE) continue;
        ck_assert_uint_eq(id, kept++);                        /* a new name: the next id */
        ck_assert_uint_eq(str_pool_intern(&p, name, 3), id);  /* the same text: the same id */
    }
    ck_assert_uint_eq(kept, p.n);
    ck_assert_uint_le(p.n, (1u << 20) / (3 + STR_POOL_ENTRY_BYTES));
    ck_assert_uint_ge(p.n, (1u << 20) / (3 + STR_POOL_ENTRY_BYTES) - 1);
    ck_assert_uint_le(p.bytes, p.max_bytes);
    struct mallinfo2 m1 = mallinfo2();
    ck_assert_int_lt((long long)(m1.uordblks + m1.hblkhd) - (long long)(m0.uordblks + m0.hblkhd), 2 << 20);
    str_pool_free(&p);
}
END_TEST

/* name_agg's names are bounded in bytes too (NA_MAX_NAME_BYTES, 64 MiB), not only in number:
 * 1,200 distinct names of 60 KiB (72 MB) keep the first 1,092 (64 MiB / (60 KiB + its NUL)),
 * the rest count in the totals (unlisted), every call counted once. */
START_TEST(name_agg_name_bytes_are_bounded) {
    enum { LEN = 60 * 1024, N = 1200 };
    char *name = malloc(LEN);
    ck_assert_ptr_nonnull(name);
    memset(name, 'k', LEN);
    name_agg a;
    name_agg_init(&a, true);
    for (int i = 0; i < N; i++) {
        snprintf(name, 16, "%05d", i);
        name[5] = 'k';
        ck_assert(name_agg_add(&a, 0, name, LEN, (i128)10));
    }
    ck_assert_uint_eq(a.n, (size_t)(NA_MAX_NAME_BYTES / (LEN + 1)));
    ck_assert_uint_le(a.name_bytes, NA_MAX_NAME_BYTES);
    ck_assert_uint_eq(a.unlisted_calls, N - a.n);
    ck_assert(a.unlisted_total == (i128)10 * (i128)(N - a.n));
    name_agg_free(&a);
    free(name);
}
END_TEST

/* name_agg's histogram buckets are bounded per table (max_bins: NA_MAX_BINS, 2^22, 64 MiB),
 * not only per name (~2,200; 65,536 such names were 2.3 GB): with the bound at 100,000 (the
 * test's, for its speed under the sanitizers), names whose durations spread over every bucket
 * (1.02^k ns) fill it, the names after that lose their histogram and their median is unknown,
 * never a number from a partial histogram; calls and totals stay exact. */
START_TEST(name_agg_buckets_are_bounded) {
    enum { SPREAD = 2200, NAMES = 60 };
    int64_t *durs = malloc(SPREAD * sizeof *durs);
    ck_assert_ptr_nonnull(durs);
    for (int k = 0; k < SPREAD; k++) durs[k] = (int64_t)pow(1.02, k + 0.5);
    name_agg a;
    name_agg_init(&a, true);
    ck_assert_uint_eq(a.max_bins, NA_MAX_BINS);
    a.max_bins = 100000;
    char name[16];
    for (int i = 0; i < NAMES; i++) {
        snprintf(name, sizeof name, "k%05d", i);
        for (int k = 0; k < 2 * SPREAD; k++)   /* past NA_EXACT_CAP: into the histogram */
            ck_assert(name_agg_add(&a, 0, name, strlen(name), (i128)durs[k % SPREAD]));
        ck_assert_uint_le(a.bins_used, a.max_bins);
    }
    name_agg_finish(&a);
    size_t lost = 0, known = 0;
    for (size_t i = 0; i < a.n; i++) {
        ck_assert_uint_eq(a.e[i].calls, 2 * SPREAD);
        lost += a.e[i].hist_lost;
        ck_assert(a.e[i].has_median == !a.e[i].hist_lost);
        known += a.e[i].has_median;
    }
    ck_assert_uint_gt(lost, 0);
    ck_assert_uint_ge(known, 40);    /* ~45 histograms of ~2,200 buckets fit 100,000 */
    name_agg_free(&a);
    free(durs);
}
END_TEST

/* A split read of the kernels or api section folds exactly only when neither piece met a bound
 * of its name table (na_pair_split_exact; else the driver reads the file in one piece): a
 * piece past NA_MAX_NAMES names, or one that lost a histogram, or buckets of both pieces
 * past one table's, refuse; whole pieces join. */
START_TEST(na_pair_split_exact_refuses_pieces_past_bounds) {
    na_pair a, b;
    na_pair_init(&a, true);
    na_pair_init(&b, true);
    ck_assert(name_agg_add(&a.traced, 0, "k", 1, 10) && name_agg_add(&b.traced, 0, "k", 1, 20));
    ck_assert(na_pair_split_exact(&a, &b));
    char name[16];
    for (unsigned i = 0; i < NA_MAX_NAMES; i++) {    /* with "k", one name past the bound: unlisted */
        int n = snprintf(name, sizeof name, "n%u", i);
        ck_assert(name_agg_add(&b.traced, 0, name, (size_t)n, 5));
    }
    ck_assert_uint_eq(b.traced.unlisted_calls, 1);
    ck_assert(!na_pair_split_exact(&a, &b));
    ck_assert(!na_pair_split_exact(&b, &a));
    na_pair_free(&b);
    na_pair_init(&b, true);
    b.traced.max_bins = 100;                          /* a lost histogram */
    for (unsigned k = 0; k < 2 * NA_EXACT_CAP; k++) ck_assert(name_agg_add(&b.traced, 0, "h", 1, (i128)pow(1.02, k % 500)));
    ck_assert_uint_eq(b.traced.hists_lost, 1);
    ck_assert(!na_pair_split_exact(&a, &b));
    na_pair_free(&b);
    na_pair_init(&b, true);
    for (unsigned k = 0; k < 2 * NA_EXACT_CAP; k++) ck_assert(name_agg_add(&b.traced, 0, "h", 1, (i128)pow(1.02, k % 500)));
    ck_assert(na_pair_split_exact(&a, &b));
    a.traced.max_bins = b.traced.bins_used - 1;       /* the pieces' buckets: past one table's */
    ck_assert(!na_pair_split_exact(&a, &b));
    na_pair_free(&a);
    na_pair_free(&b);
}
END_TEST

int main(void) {
    Suite *s = suite_create("id_map");
    TCase *t = tcase_create("id_map");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, get_or_put_agrees_with_get_and_put);
    tcase_add_test(t, get_or_put_respects_the_limit);
    tcase_add_test(t, class_cache_answers_like_the_table);
    tcase_add_test(t, packed_slots_and_bounds);
    tcase_add_test(t, corr_map_bounds);
    tcase_add_test(t, class_cache_last_name);
    tcase_add_test(t, class_cache_record_memo);
    tcase_add_test(t, name_agg_recent_slots);
    tcase_add_test(t, kernel_table_recent_slots);
    tcase_add_test(t, bucket_table_matches_log_rule);
    tcase_add_test(t, str_pool_bound_counts_each_string);
    tcase_add_test(t, name_agg_name_bytes_are_bounded);
    tcase_add_test(t, name_agg_buckets_are_bounded);
    tcase_add_test(t, na_pair_split_exact_refuses_pieces_past_bounds);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
