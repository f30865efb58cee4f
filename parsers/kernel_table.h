/* kernel_table: per-kernel-name aggregates of a kernel trace, in first-seen order.
 *
 * The heuristics only ever need sums over kernels grouped by name (and the first
 * kernel, in trace order, that looks like attention), so a trace of any length folds
 * into one entry per distinct name: memory follows the number of distinct kernels,
 * not the file size. Each name is classified once, when first seen. */
#ifndef GOBLIN_KERNEL_TABLE_H
#define GOBLIN_KERNEL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/py_number.h"

enum {
    KF_COLLECTIVE = 1 << 0,   /* rccl/nccl/all-reduce/broadcast/reduce-scatter word */
    KF_GEMM_SEED = 1 << 1,    /* the original's bounded gemm/matmul/... word */
    KF_GEMM_WIDE = 1 << 2,    /* the wider GEMM family (Cijk_, nvjet, wvSplitK, ...) */
    KF_GENERIC = 1 << 3,      /* generic/fallback/naive/reference word */
    KF_FP16 = 1 << 4,
    KF_BF16 = 1 << 5,
};

typedef enum { ATTN_NONE = 0, ATTN_FLASH_ROCM, ATTN_FLASH, ATTN_SDPA } attn_kind;

typedef struct kernel_stat {
    char *name;               /* valid UTF-8, stripped, NUL-terminated */
    size_t name_len;
    uint64_t calls;
    i128 total_ns;
    i128 min_ns, max_ns;
    uint64_t first_seen;      /* order of first kept dispatch */
    unsigned flags;
    attn_kind attn;
} kernel_stat;

/* Beyond these, new names are still counted (totals, families, attention) but not kept by
 * name: a hostile trace with millions of distinct names cannot grow memory without bound. */
#define KT_MAX_NAMES 262144u
#define KT_MAX_NAME_BYTES (64u << 20)

typedef struct kernel_overflow {
    uint64_t dispatches;
    i128 total_ns;
    i128 ns_by_flags[64];     /* indexed by the KF_* bits of each dispatch's name */
    attn_kind attn;           /* attention kind of the first such dispatch that has one */
    uint64_t attn_seen;       /* its position in trace order */
} kernel_overflow;

typedef struct kernel_table {
    kernel_stat *items;       /* first-seen order */
    size_t count, cap;
    uint32_t *slots;          /* open addressing: index+1, 0 = empty */
    size_t nslots;
    uint64_t seed;            /* of the name hash */
    uint32_t recent[16];      /* index+1 of recently added names, direct-mapped by length and
                               * first/last bytes (0 = none): a repeated name is found with one
                               * compare instead of hashing all of it */
    uint64_t dispatches;      /* kept dispatches, named or not */
    size_t name_bytes;
    kernel_overflow overflow; /* dispatches of names beyond the caps */
} kernel_table;

/* An empty table (its name-hash seed varies per table); kernel_table_free frees every name and slot. */
void kernel_table_init(kernel_table *t);
void kernel_table_free(kernel_table *t);
/* Adds one dispatch of duration ns (> 0). name must be valid UTF-8. false on OOM. */
bool kernel_table_add(kernel_table *t, const char *name, size_t len, i128 ns);
/* Adds one name's aggregate (calls >= 1 dispatches totalling total_ns, from min_ns to max_ns) as
 * a new entry, as if its dispatches had been added one by one (a table built from another
 * analysis's per-name rows). A name already in the table gets one call of min_ns. false on OOM. */
bool kernel_table_add_aggregate(kernel_table *t, const char *name, size_t len, uint64_t calls, i128 total_ns,
                                i128 min_ns, i128 max_ns);
/* Whether kernel_table_append(dst, src) would be exact: neither table has overflowed its
 * caps and the two together stay within them. */
bool kernel_table_can_append(const kernel_table *dst, const kernel_table *src);
/* Folds src (the dispatches that came after dst's, in file order) into dst, exactly as one
 * table fed both in order would be (check kernel_table_can_append first). false on OOM. */
bool kernel_table_append(kernel_table *dst, const kernel_table *src);
/* Same names in the same order with the same aggregates (split reads are checked with it). */
bool kernel_table_equal(const kernel_table *a, const kernel_table *b);
#define KF_CLASSIFY_FAILED (1u << 31)   /* kernel_classify: memory ran out, the name is not classified */

/* Classification of one name (exposed for tests): KF_* bits, or KF_CLASSIFY_FAILED alone. */
unsigned kernel_classify(const char *name, size_t len, attn_kind *attn);

#endif
