/* kernel_class_cache: per-state memo of kernel_class_of (see kernel_class_cache.h). */
#include "analyses/kernel_class_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

#define KCC_SLOTS (2u * KCC_MAX_NAMES)
#define KCC_FIRST_SLOTS 256u

/* 8 bytes a step (base/str_hash.h): every dispatch's name is hashed here; collisions only
 * cost a compare. */
static uint64_t name_hash(const char *s, size_t n) { return str_hash_n(s, n, 0); }

/* Doubles the table (rehashing every name); false on allocation failure (the old table
 * stays). */
static bool grow(kernel_class_cache *c) {
    size_t n = c->n_slots ? c->n_slots * 2 : KCC_FIRST_SLOTS;
    kcc_entry *s = calloc(n, sizeof *s);
    if (!s) return false;
    for (size_t i = 0; i < c->n_slots; i++) {
        if (!c->slots[i].name) continue;
        size_t j = (size_t)c->slots[i].hash & (n - 1);
        while (s[j].name) j = (j + 1) & (n - 1);
        s[j] = c->slots[i];
    }
    free(c->slots);
    c->slots = s, c->n_slots = n;
    return true;
}

/* The names classified last on this thread, direct-mapped by a cheap key (length, first
 * and last 8 bytes; memcmp decides), and their classes. Every dispatch is classified by up
 * to five analyses in turn (classes, timeline, steps, ranks, layers), each with its own
 * cache, and a trace alternates a handful of names: most calls end here with one compare
 * instead of hashing the whole name and probing. kernel_class_of is pure, so a name's class
 * does not depend on which cache or state asks. Names longer than RECENT_LEN, and empty
 * ones, are not remembered here. */
#define RECENT_SLOTS 16u
#define RECENT_LEN 512u   /* C++ template kernel names run to 300-400 bytes */
typedef struct recent_name {
    size_t len;          /* 0: empty slot */
    kernel_class cls;
    char name[RECENT_LEN];
} recent_name;
static _Thread_local recent_name recent[RECENT_SLOTS];

/* The slot of name in `recent` (len in 1..RECENT_LEN). */
static inline recent_name *recent_slot(const char *name, size_t len) {
    uint64_t a = 0, b = 0;
    if (len >= 8) memcpy(&a, name, 8), memcpy(&b, name + len - 8, 8);   /* fixed size: two loads */
    else memcpy(&a, name, len);
    uint64_t k = (a ^ (b * 0x9E3779B97F4A7C15ULL) ^ len) * 0xff51afd7ed558ccdULL;
    return &recent[k >> 60];
}

/* Remembers name -> k in its recent slot; returns k. */
static kernel_class remember(const char *name, size_t len, kernel_class k) {
    if (len && len <= RECENT_LEN) {
        recent_name *r = recent_slot(name, len);
        memcpy(r->name, name, len);
        r->len = len, r->cls = k;
    }
    return k;
}

_Thread_local uint64_t kcc_record_seq;

/* The class of the name classified last on this thread, and during which record (see
 * kcc_record_seq): the analyses classifying one dispatch in turn ask for the same name
 * pointer, and then get its class back without even a compare. */
static _Thread_local struct {
    uint64_t seq;        /* kcc_record_seq when remembered (odd: inside a record's fan-out) */
    const char *name;
    size_t len;
    kernel_class cls;
} last;

static kernel_class class_of(kernel_class_cache *c, const char *name, size_t len);

kernel_class kcc_class_of(kernel_class_cache *c, const char *name, size_t len) {
    uint64_t seq = kcc_record_seq;
    if (!(seq & 1)) return class_of(c, name, len);
    if (last.seq == seq && last.name == name && last.len == len && name) return last.cls;
    kernel_class k = class_of(c, name, len);
    last.seq = seq, last.name = name, last.len = len, last.cls = k;
    return k;
}

/* kcc_class_of without the per-record memo. */
static kernel_class class_of(kernel_class_cache *c, const char *name, size_t len) {
    if (!name) return KC_OTHER;
    if (len && len <= RECENT_LEN) {
        const recent_name *r = recent_slot(name, len);
        if (r->len == len && !memcmp(r->name, name, len)) return r->cls;
    }
    if (!c->slots && !grow(c)) return kernel_class_of(name, len);
    uint64_t h = name_hash(name, len);
    size_t mask = c->n_slots - 1, j = (size_t)h & mask;
    for (; c->slots[j].name; j = (j + 1) & mask)
        if (c->slots[j].hash == h && c->slots[j].len == len && !memcmp(c->slots[j].name, name, len))
            return remember(name, len, c->slots[j].cls);
    kernel_class k = remember(name, len, kernel_class_of(name, len));
    if (c->used >= KCC_MAX_NAMES || len >= KCC_MAX_BYTES - c->bytes) return k;
    if ((c->used + 1) * 2 > c->n_slots) {
        if (c->n_slots >= KCC_SLOTS || !grow(c)) return k;
        mask = c->n_slots - 1;
        for (j = (size_t)h & mask; c->slots[j].name;) j = (j + 1) & mask;
    }
    char *copy = malloc(len + 1);
    if (!copy) return k;
    memcpy(copy, name, len);
    copy[len] = 0;
    c->slots[j] = (kcc_entry){.hash = h, .name = copy, .len = len, .cls = k};
    c->used++;
    c->bytes += len + 1;
    return k;
}

void kcc_free(kernel_class_cache *c) {
    if (c->slots)
        for (size_t i = 0; i < c->n_slots; i++) free(c->slots[i].name);
    free(c->slots);
    c->slots = NULL;
    c->used = c->n_slots = c->bytes = 0;
}
