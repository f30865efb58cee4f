/* str_hash: the hash of a NUL-terminated string (FNV-1a), for the tables keyed by run id
 * (the tracker's run table, the API's metrics cache). Run ids are short names chosen by
 * the runner, not input an attacker shapes, so a simple unkeyed hash serves. */
#ifndef GOBLIN_STR_HASH_H
#define GOBLIN_STR_HASH_H

#include <stdint.h>

static inline uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) { h ^= (uint8_t)*s; h *= 1099511628211ULL; }
    return h;
}

#endif
