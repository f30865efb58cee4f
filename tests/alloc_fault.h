/* alloc_fault: a test executable's own malloc, calloc, realloc, free and aligned allocators
 * (every allocation of the process goes through them: goblind's code, SQLite, zlib, jansson,
 * libmicrohttpd, libc's strdup and asprintf), which make one chosen allocation fail, or that
 * one and every one after it, while armed. Linked into a test executable of the release build
 * only: the sanitizers own malloc in theirs. */
#ifndef GOBLIN_TEST_ALLOC_FAULT_H
#define GOBLIN_TEST_ALLOC_FAULT_H

#include <stdbool.h>

/* Counts allocations from now on; the fail_at-th (1-based; 0: none) fails, and every one after
 * it too when fail_rest. GOBLIND_ALLOC_TRACE=1 prints where the first failure is. */
void alloc_fault_arm(long long fail_at, bool fail_rest);
/* Stops counting and failing. */
void alloc_fault_disarm(void);
/* Allocations since armed. */
long long alloc_fault_calls(void);
/* Blocks allocated minus blocks freed since the process began (counted armed or not). */
long long alloc_fault_live(void);
/* Loads the unwinder that GOBLIND_ALLOC_TRACE uses now, not inside a failing malloc. */
void alloc_fault_init(void);

#endif
