/* str_hash: the hash of a NUL-terminated string (FNV-1a), for the tables keyed by run id
 * (the tracker's run table, the API's metrics cache). Run ids are short names chosen by
 * the runner, not input an attacker shapes, so a simple unkeyed hash serves. */
#ifndef GOBLIN_STR_HASH_H
#define GOBLIN_STR_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) { h ^= (uint8_t)*s; h *= 1099511628211ULL; }
    return h;
}

/* The process's hash key: drawn at random before main (str_hash.c), read-only after. */
extern uint64_t str_hash_key;

/* A hash of n bytes (kernel and operator names, often 80-200 bytes, looked up once per record
 * by several analyses): 8 bytes a step with a multiply-xorshift mix instead of FNV's byte
 * loop, keyed by the process's random str_hash_key: names are file content, and without a
 * key an attacker computes names that all collide (a file of them turned every table's probe
 * into a walk of the whole table). For in-memory tables only (never stored, never ordering
 * output: it differs from one process to the next). */
static inline uint64_t str_hash_n(const char *s, size_t n, uint64_t seed) {
    uint64_t h = (seed ^ str_hash_key ^ 0x9e3779b97f4a7c15ULL) + n * 0xff51afd7ed558ccdULL;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

#endif
