/* kernel_groups: kernels of one trace file grouped by an id (a launch's correlation id, or
 * torch's External id), with per-group counts, durations and attention/GEMM work.
 *
 * The phases and layers sections join groups to what launched them: a CUDA/HIP graph
 * launch is one correlation id for hundreds of kernels, an eager launch one id per kernel.
 * Memory is one entry per group, at most KGROUPS_MAX (further groups are counted in
 * `dropped` and their kernels are not grouped). */
#ifndef GOBLIN_KERNEL_GROUPS_H
#define GOBLIN_KERNEL_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/structures/id_map.h"
#include "analyses/kernel_class.h"

#define KGROUPS_MAX ((size_t)1 << 18)

typedef struct kgroup {
    uint64_t key;
    uint64_t kernels, attention, gemm;   /* kernel counts: all, attention class, GEMM class */
    int64_t lo, hi;                      /* first kernel start, last kernel end */
    int64_t sum_ns, attention_ns, gemm_ns;  /* sums of kernel durations */
    bool gemm_since_attention;           /* a GEMM kernel came after the latest attention kernel */
    bool segment;                        /* the rest of a group cut at an attention kernel (the
                                          * layers section's graph launches; set by the caller) */
    bool by_ext;                         /* keyed by External id, not correlation id (the layers
                                          * section's list; set by the caller) */
} kgroup;

typedef struct kgroups {
    kgroup *v;
    size_t n, cap;
    size_t max_groups;                   /* 0: KGROUPS_MAX; a caller may lower or raise it */
    id_map index;
    uint64_t dropped;                    /* kernels not grouped (table full) */
} kgroups;

/* Adds the kernel [a, b) of class c to group key. False: out of memory. */
bool kgroups_add(kgroups *g, uint64_t key, kernel_class c, int64_t a, int64_t b);
/* Removes every group with fewer than min_kernels kernels whose last kernel ended before
 * `before` (a finished group that can no longer matter) — but not a `segment` holding
 * attention and GEMM work (a layer whatever its size) — and rebuilds the index. Returns
 * how many groups went; false in *oom when the index could not be rebuilt. */
size_t kgroups_compact(kgroups *g, uint64_t min_kernels, int64_t before, bool *oom);
/* Frees the groups and the index; g is then empty. */
void kgroups_free(kgroups *g);

#endif
