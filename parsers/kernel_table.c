/* kernel_table: hash of kernel name -> aggregate, plus name classification. */
#include "parsers/kernel_table.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_utf8.h"

void kernel_table_init(kernel_table *t) {
    memset(t, 0, sizeof *t);
    t->seed = (uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ULL;   /* varies with ASLR, no global state */
}

void kernel_table_free(kernel_table *t) {
    for (size_t i = 0; i < t->count; i++) free(t->items[i].name);
    free(t->items);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* Eight bytes a step (names are ~100 bytes and hashed once per dispatch). Seeded per
 * table from its address, which ASLR varies, so the names that collide are not the same
 * from run to run; this is not a keyed hash, and the name cap (KT_MAX_NAMES) is what
 * bounds the cost of a hostile trace. */
static uint64_t hash_name(uint64_t seed, const char *s, size_t n) {
    uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ULL);
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33;
    return h;
}

static bool rehash(kernel_table *t) {
    size_t ns = t->nslots ? t->nslots * 2 : 64;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s) return false;
    for (size_t i = 0; i < t->count; i++) {
        size_t j = hash_name(t->seed, t->items[i].name, t->items[i].name_len) & (ns - 1);
        while (s[j]) j = (j + 1) & (ns - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
    return true;
}

/* The reference's regular expressions, on the re.IGNORECASE fold of the name. */
static const char *const COLLECTIVE_WORDS[] = {"rccl", "nccl", "allreduce", "all_reduce", "all-reduce",
    "broadcast", "reducescatter", "reduce_scatter", "reduce-scatter", NULL};
static const char *const GEMM_WORDS[] = {"gemm", "matmul", "hgemm", "sgemm", "hipblaslt", NULL};
static const char *const GENERIC_WORDS[] = {"generic", "fallback", "naive", "reference", NULL};
static const char *const FP16_WORDS[] = {"fp16", "half", "f16", NULL};
static const char *const BF16_WORDS[] = {"bf16", "bfloat16", NULL};
static const char *const GEMM_WIDE_SUBSTRINGS[] = {"gemm", "matmul", "nvjet", "wvsplitk", "hipblaslt", NULL};

static bool any_word(const strbuf *f, const char *const *words) {
    for (size_t i = 0; words[i]; i++)
        if (text_contains_word(f->data, f->len, words[i])) return true;
    return false;
}

unsigned kernel_classify(const char *name, size_t len, attn_kind *attn) {
    strbuf f = {0};
    unsigned flags = 0;
    *attn = ATTN_NONE;
    if (!text_fold_regex(name, len, &f)) { strbuf_free(&f); return KF_CLASSIFY_FAILED; }
    if (any_word(&f, COLLECTIVE_WORDS)) flags |= KF_COLLECTIVE;
    if (any_word(&f, GEMM_WORDS)) flags |= KF_GEMM_SEED;
    if (any_word(&f, GENERIC_WORDS)) flags |= KF_GENERIC;
    if (any_word(&f, FP16_WORDS)) flags |= KF_FP16;
    if (any_word(&f, BF16_WORDS)) flags |= KF_BF16;
    bool wide = f.len >= 5 && memcmp(f.data, "cijk_", 5) == 0;
    for (size_t i = 0; !wide && GEMM_WIDE_SUBSTRINGS[i]; i++) wide = text_contains(f.data, f.len, GEMM_WIDE_SUBSTRINGS[i]);
    if (wide) flags |= KF_GEMM_WIDE;
    /* attention: plain str.lower() substring tests */
    if (!text_fold_lower(name, len, &f)) flags = KF_CLASSIFY_FAILED, *attn = ATTN_NONE;
    else {
        bool flash = text_contains(f.data, f.len, "flash");
        if (text_contains(f.data, f.len, "flash_attn") && text_contains(f.data, f.len, "rocm")) *attn = ATTN_FLASH_ROCM;
        else if (flash && text_contains(f.data, f.len, "attn")) *attn = ATTN_FLASH;
        else if (text_contains(f.data, f.len, "scaled_dot_product_attention")) *attn = ATTN_SDPA;
    }
    strbuf_free(&f);
    return flags;
}

/* A dispatch whose name is not kept: only what the heuristics sum over. false when memory
 * ran out (nothing counted). */
static bool add_overflow(kernel_table *t, const char *name, size_t len, i128 ns) {
    kernel_overflow *o = &t->overflow;
    attn_kind attn;
    unsigned flags = kernel_classify(name, len, &attn);
    if (flags == KF_CLASSIFY_FAILED) return false;
    if (attn != ATTN_NONE && o->attn == ATTN_NONE) { o->attn = attn; o->attn_seen = t->dispatches; }
    o->dispatches++;
    o->total_ns = i128_add(o->total_ns, ns);
    o->ns_by_flags[flags & 63] = i128_add(o->ns_by_flags[flags & 63], ns);
    t->dispatches++;
    return true;
}

/* One more dispatch of the listed name k. */
static void count_call(kernel_table *t, kernel_stat *k, i128 ns) {
    k->calls++;
    k->total_ns = i128_add(k->total_ns, ns);
    if (ns < k->min_ns) k->min_ns = ns;
    if (ns > k->max_ns) k->max_ns = ns;
    t->dispatches++;
}

/* The recent slot of a name: a cheap key (length, first and last 8 bytes); what it holds
 * is compared in full before use (names are unique in the table). */
static inline uint32_t *recent_of(kernel_table *t, const char *name, size_t len) {
    uint64_t x = 0, y = 0;
    if (len >= 8) memcpy(&x, name, 8), memcpy(&y, name + len - 8, 8);
    else if (len) memcpy(&x, name, len);
    uint64_t h = (x ^ (y * 0x9E3779B97F4A7C15ULL) ^ len) * 0xff51afd7ed558ccdULL;
    return &t->recent[h >> 60];
}

bool kernel_table_add(kernel_table *t, const char *name, size_t len, i128 ns) {
    uint32_t *rec = recent_of(t, name, len);
    if (*rec && *rec <= t->count) {
        kernel_stat *k = &t->items[*rec - 1];
        if (k->name_len == len && memcmp(k->name, name, len) == 0) {
            count_call(t, k, ns);
            return true;
        }
    }
    if (t->count * 2 >= t->nslots && t->count < KT_MAX_NAMES && !rehash(t)) return false;
    size_t j = hash_name(t->seed, name, len) & (t->nslots - 1);
    for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
        kernel_stat *k = &t->items[t->slots[j] - 1];
        if (k->name_len == len && memcmp(k->name, name, len) == 0) {
            *rec = t->slots[j];
            count_call(t, k, ns);
            return true;
        }
    }
    if (t->count >= KT_MAX_NAMES || t->name_bytes + len + 1 > KT_MAX_NAME_BYTES) {
        return add_overflow(t, name, len, ns);
    }
    if (t->count == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 32;
        kernel_stat *it = realloc(t->items, nc * sizeof *it);
        if (!it) return false;
        t->items = it;
        t->cap = nc;
    }
    attn_kind attn;
    unsigned flags = kernel_classify(name, len, &attn);
    char *copy = flags == KF_CLASSIFY_FAILED ? NULL : malloc(len + 1);
    if (!copy) return false;
    memcpy(copy, name, len);
    copy[len] = '\0';
    kernel_stat *k = &t->items[t->count];
    memset(k, 0, sizeof *k);
    k->name = copy;
    k->name_len = len;
    k->calls = 1;
    k->total_ns = k->min_ns = k->max_ns = ns;
    k->first_seen = t->dispatches++;
    k->flags = flags;
    k->attn = attn;
    t->slots[j] = (uint32_t)(++t->count);
    *rec = (uint32_t)t->count;
    t->name_bytes += len + 1;
    return true;
}

bool kernel_table_add_aggregate(kernel_table *t, const char *name, size_t len, uint64_t calls, i128 total_ns,
                                i128 min_ns, i128 max_ns) {
    assert(calls >= 1);
    size_t before = t->count;
    if (!kernel_table_add(t, name, len, min_ns)) return false;
    if (t->count == before || calls < 1) return true;   /* a name seen before, or past the caps: one call */
    kernel_stat *k = &t->items[t->count - 1];
    k->calls = calls;
    k->total_ns = total_ns;
    k->max_ns = max_ns;
    t->dispatches += calls - 1;
    return true;
}

bool kernel_table_can_append(const kernel_table *dst, const kernel_table *src) {
    return !dst->overflow.dispatches && !src->overflow.dispatches && dst->count + src->count <= KT_MAX_NAMES &&
           dst->name_bytes + src->name_bytes <= KT_MAX_NAME_BYTES;
}

bool kernel_table_append(kernel_table *dst, const kernel_table *src) {
    uint64_t base = dst->dispatches;
    for (size_t i = 0; i < src->count; i++) {      /* src's items are in first-seen order */
        const kernel_stat *k = &src->items[i];
        size_t before = dst->count;
        if (!kernel_table_add(dst, k->name, k->name_len, k->min_ns)) return false;
        kernel_stat *d = NULL;
        if (dst->count > before) {
            d = &dst->items[dst->count - 1];
            d->first_seen = base + k->first_seen;  /* where the one sequential read saw it */
            d->calls = k->calls;
            d->total_ns = k->total_ns;
            d->max_ns = k->max_ns;
        } else {
            size_t j = hash_name(dst->seed, k->name, k->name_len) & (dst->nslots - 1);
            while (dst->items[dst->slots[j] - 1].name_len != k->name_len ||
                   memcmp(dst->items[dst->slots[j] - 1].name, k->name, k->name_len) != 0)
                j = (j + 1) & (dst->nslots - 1);
            d = &dst->items[dst->slots[j] - 1];
            d->calls += k->calls - 1;               /* the add above counted one call of min_ns */
            d->total_ns = i128_add(i128_sub(d->total_ns, k->min_ns), k->total_ns);
            if (k->max_ns > d->max_ns) d->max_ns = k->max_ns;
        }
    }
    dst->dispatches = base + src->dispatches;
    return true;
}

bool kernel_table_equal(const kernel_table *a, const kernel_table *b) {
    if (a->count != b->count || a->dispatches != b->dispatches || a->overflow.dispatches != b->overflow.dispatches ||
        a->overflow.total_ns != b->overflow.total_ns)
        return false;
    for (size_t i = 0; i < a->count; i++) {
        const kernel_stat *x = &a->items[i], *y = &b->items[i];
        if (x->name_len != y->name_len || memcmp(x->name, y->name, x->name_len) != 0 || x->calls != y->calls ||
            x->total_ns != y->total_ns || x->min_ns != y->min_ns || x->max_ns != y->max_ns ||
            x->first_seen != y->first_seen || x->flags != y->flags || x->attn != y->attn)
            return false;
    }
    return true;
}
