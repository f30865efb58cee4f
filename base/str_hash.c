/* str_hash: the process's hash key (see str_hash.h). */
#include "base/str_hash.h"

#include <stdint.h>
#include <sys/random.h>
#include <time.h>

uint64_t str_hash_key;

/* Draws the key once, before main and so before any thread: read-only after. getrandom
 * cannot fail for 8 bytes once the pool is ready; should it, the clock and the key's own
 * address (ASLR) stand in. */
__attribute__((constructor)) static void str_hash_draw_key(void) {
    uint64_t k = 0;
    if (getrandom(&k, sizeof k, GRND_NONBLOCK) != (ssize_t)sizeof k) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        k = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uintptr_t)&str_hash_key;
    }
    str_hash_key = k | 1;
}
