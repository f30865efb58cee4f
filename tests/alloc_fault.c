/* alloc_fault: the allocation functions of a test executable that fail on demand (see
 * alloc_fault.h). They forward to glibc's own (__libc_malloc...), counting live blocks. */
#include "tests/alloc_fault.h"

#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

/* The injected fault, shared by every thread of the process (the executable's only global). */
static struct {
    atomic_bool armed;
    atomic_llong calls;       /* allocations since armed */
    atomic_llong fail_at;     /* the allocation (1-based) that fails, 0: none */
    atomic_bool fail_rest;    /* ... and every one after it */
    atomic_llong failed;      /* allocations failed since armed */
    atomic_llong live;        /* blocks allocated minus blocks freed, always counted */
} fault;

/* Does this allocation fail? Counts it when armed. */
static bool fault_now(void) {
    if (!atomic_load_explicit(&fault.armed, memory_order_relaxed)) return false;
    long long n = atomic_fetch_add(&fault.calls, 1) + 1, at = atomic_load(&fault.fail_at);
    bool fail = at > 0 && (n == at || (n > at && atomic_load(&fault.fail_rest)));
    if (fail && atomic_fetch_add(&fault.failed, 1) == 0 && getenv("GOBLIND_ALLOC_TRACE")) {
        void *frames[24];                  /* where the first failure is (alloc_fault_init warmed backtrace up) */
        fprintf(stderr, "allocation %lld fails at:\n", n);
        backtrace_symbols_fd(frames, backtrace(frames, 24), 2);
    }
    if (fail) errno = ENOMEM;              /* as glibc's malloc does: opendir, strdup... report it */
    return fail;
}

static void *counted(void *p) {
    if (p) atomic_fetch_add(&fault.live, 1);
    return p;
}

void *malloc(size_t n) { return fault_now() ? NULL : counted(__libc_malloc(n)); }
void *calloc(size_t n, size_t size) { return fault_now() ? NULL : counted(__libc_calloc(n, size)); }
void *realloc(void *p, size_t n) {
    if (p && n == 0) { free(p); return NULL; }
    if (fault_now()) return NULL;          /* p stays as it was, as a real failure leaves it */
    void *q = __libc_realloc(p, n);
    return p ? q : counted(q);
}
void free(void *p) {
    if (p) atomic_fetch_sub(&fault.live, 1);
    __libc_free(p);
}
void *memalign(size_t align, size_t n) { return fault_now() ? NULL : counted(__libc_memalign(align, n)); }
void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
int posix_memalign(void **out, size_t align, size_t n) {
    void *p = memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
void *valloc(size_t n) { return memalign(4096, n); }
void *pvalloc(size_t n) { return memalign(4096, (n + 4095) & ~(size_t)4095); }

void alloc_fault_arm(long long fail_at, bool fail_rest) {
    atomic_store(&fault.calls, 0);
    atomic_store(&fault.failed, 0);
    atomic_store(&fault.fail_at, fail_at);
    atomic_store(&fault.fail_rest, fail_rest);
    atomic_store(&fault.armed, true);
}

void alloc_fault_disarm(void) { atomic_store(&fault.armed, false); }
long long alloc_fault_calls(void) { return atomic_load(&fault.calls); }
long long alloc_fault_live(void) { return atomic_load(&fault.live); }

void alloc_fault_init(void) {
    void *warm[1];
    backtrace(warm, 1);
}
