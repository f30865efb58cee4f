/* mem_tune: glibc malloc thresholds and huge pages for the heap (see mem_tune.h).
 *
 * The settings (measured on the 208 MB run, docs/PERFORMANCE.md "malloc settings"):
 * - M_MMAP_THRESHOLD 4 MiB: tables below it come from the heap, not from their own mmap
 *   (glibc's dynamic threshold starts at 128 KiB: the first table of each size was a fresh
 *   mapping, every page of it faulting, then given back). Larger blocks keep their own
 *   mapping: realloc moves them without a copy and free gives them back (a higher threshold
 *   left holes in the heap: 1 GB run peak RSS ~60 MiB, once 63.7, against the 64 MiB bound);
 * - M_TOP_PAD 40 MiB: the heap grows 40 MiB at a time (address space; a page is only
 *   resident once touched), so the stretch advised below covers the 208 MB run's analysis,
 *   split read included (32 MiB left ~800 of its growth's pages ordinary: 1,450 faults
 *   against 630, ~14 us each on this VM); a bigger stretch of huge pages rounds a large
 *   run's RSS up (huge pages are resident whole): 48 MiB put the 1 GB run's ingest at
 *   67 MB, past the 64 MB bound, 40 MiB at 58-62 MB (git history of docs/PERFORMANCE.md);
 * - M_TRIM_THRESHOLD 128 MiB: freed memory at the top of the heap stays for the next table
 *   rather than going back to the kernel and faulting in again (why the daemon does not call
 *   mem_tune_process: it would keep its largest run's peak heap between runs);
 * - MADV_HUGEPAGE on the heap as it then stands: with the kernel's THP mode "madvise" (the
 *   usual default) a touched 2 MiB-aligned stretch is one huge page, one fault. The break
 *   is first moved to a 2 MiB boundary (glibc takes a moved break as a foreign sbrk and
 *   starts its next stretch there), so the whole stretch is aligned. Later heap
 *   growth past that stretch (a run needing more than ~42 MiB of heap) gets ordinary pages.
 * - M_ARENA_MAX 1: every thread allocates from that one heap; a second arena (the second
 *   reading thread's) would be a separate 64 MiB mapping with ordinary pages (two-thread
 *   analyze of the 208 MB run: 6,700 faults with it, 1,400 without). parse and analyze have
 *   two reading threads that allocate little per record, so one arena's lock costs less
 *   than those faults.
 * Together what GLIBC_TUNABLES=glibc.malloc.hugetlb=1 with those thresholds does. */
#include "base/mem_tune.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#define MT_MMAP_THRESHOLD (4 << 20)
#define MT_TOP_PAD (40 << 20)
#define MT_TRIM_THRESHOLD (128 << 20)
#define MT_HUGE ((uintptr_t)2 << 20)   /* x86-64's transparent huge page */
#ifdef MADV_COLLAPSE
#define MT_MADV_COLLAPSE MADV_COLLAPSE
#else
#define MT_MADV_COLLAPSE 25   /* Linux 6.1 */
#endif

void mem_tune_process(void) {
    const char *off = getenv("GOBLIND_MALLOC_DEFAULTS");
    if (off && *off && *off != '0') return;
    (void)mallopt(M_MMAP_THRESHOLD, MT_MMAP_THRESHOLD);   /* each is advice: a refusal costs faults only */
    (void)mallopt(M_TRIM_THRESHOLD, MT_TRIM_THRESHOLD);
    (void)mallopt(M_ARENA_MAX, 1);
    if (!mallopt(M_TOP_PAD, MT_TOP_PAD)) return;
    /* one block larger than what the heap has left makes glibc extend it now, by the block
     * plus the top pad; freed, it stays as the heap's free top (below the trim threshold) */
    uintptr_t before = (uintptr_t)sbrk(0);
    if (before != (uintptr_t)-1 && (before & (MT_HUGE - 1))) {   /* the heap's new stretch starts on a huge page */
        uintptr_t pad = MT_HUGE - (before & (MT_HUGE - 1));
        if (sbrk((intptr_t)pad) != (void *)-1) before += pad;   /* address space only: never touched */
    }
    /* the block and the free top after it both start inside the stretch's first 2 MiB */
    void *volatile p = malloc(MT_HUGE - 4096);   /* volatile: the compiler may not drop the pair */
    uintptr_t after = (uintptr_t)sbrk(0);
    free(p);
    if (before == (uintptr_t)-1 || after == (uintptr_t)-1 || after <= before) return;   /* no brk heap */
    uintptr_t a = (before + MT_HUGE - 1) & ~(MT_HUGE - 1), e = after & ~(MT_HUGE - 1);
    if (e <= a) return;
    (void)madvise((void *)a, e - a, MADV_HUGEPAGE);   /* advice: failure only costs faults */
    /* malloc wrote its headers into the first 2 MiB before the advice, which made that one
     * ordinary pages: collapse it into a huge page now (kernels before 6.1 refuse: faults) */
    (void)madvise((void *)a, MT_HUGE, MT_MADV_COLLAPSE);
}
#else
void mem_tune_process(void) {}
#endif
