/* kernel_class_cache: per-state memo of kernel_class_of (see kernel_class_cache.h). */
#include "analyses/kernel_class_cache.h"

#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

#define KCC_SLOTS (2u * KCC_MAX_NAMES)

/* 8 bytes a step (base/str_hash.h): every dispatch's name is hashed here; collisions only
 * cost a compare. */
static uint64_t name_hash(const char *s, size_t n) { return str_hash_n(s, n, 0); }

kernel_class kcc_class_of(kernel_class_cache *c, const char *name, size_t len) {
    if (!name) return KC_OTHER;
    if (!c->slots && !(c->slots = calloc(KCC_SLOTS, sizeof *c->slots))) return kernel_class_of(name, len);
    uint64_t h = name_hash(name, len);
    size_t j = (size_t)h & (KCC_SLOTS - 1);
    for (; c->slots[j].name; j = (j + 1) & (KCC_SLOTS - 1))
        if (c->slots[j].hash == h && c->slots[j].len == len && !memcmp(c->slots[j].name, name, len))
            return c->slots[j].cls;
    kernel_class k = kernel_class_of(name, len);
    if (c->used >= KCC_MAX_NAMES) return k;
    char *copy = malloc(len + 1);
    if (!copy) return k;
    memcpy(copy, name, len);
    copy[len] = 0;
    c->slots[j] = (kcc_entry){.hash = h, .name = copy, .len = len, .cls = k};
    c->used++;
    return k;
}

void kcc_free(kernel_class_cache *c) {
    if (c->slots)
        for (size_t i = 0; i < KCC_SLOTS; i++) free(c->slots[i].name);
    free(c->slots);
    c->slots = NULL;
    c->used = 0;
}
