/* kclass_cache: kernel_class_of() behind a small per-source cache.
 *
 * A trace names a few hundred distinct kernels a million times; classifying a name runs the
 * whole pattern table over it. The cache keys on a 64-bit hash of the name and its length
 * (a wrong class needs two names of equal length with equal 64-bit FNV-1a hashes) and holds
 * 1024 direct-mapped entries; a miss classifies the name and replaces the entry. One cache
 * per source state (no sharing between threads). */
#ifndef GOBLIN_KCLASS_CACHE_H
#define GOBLIN_KCLASS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/kernel_class.h"

#define KCLASS_CACHE_SIZE 1024

typedef struct kclass_cache {
    uint64_t hash[KCLASS_CACHE_SIZE];
    uint32_t len[KCLASS_CACHE_SIZE];
    unsigned char cls[KCLASS_CACHE_SIZE];
    unsigned char used[KCLASS_CACHE_SIZE];
} kclass_cache;

/* The class of the kernel named name[0..len) (KC_OTHER for NULL), from the cache when seen. */
static inline kernel_class kclass_cached(kclass_cache *c, const char *name, size_t len) {
    if (!name) return KC_OTHER;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
    size_t slot = (size_t)(h ^ (h >> 29)) & (KCLASS_CACHE_SIZE - 1);
    if (c->used[slot] && c->hash[slot] == h && c->len[slot] == (uint32_t)len) return (kernel_class)c->cls[slot];
    kernel_class k = kernel_class_of(name, len);
    c->used[slot] = 1, c->hash[slot] = h, c->len[slot] = (uint32_t)len, c->cls[slot] = (unsigned char)k;
    return k;
}

#endif
