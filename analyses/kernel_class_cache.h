/* kernel_class_cache: kernel_class_of() memoised per kernel name.
 *
 * Classifying a name walks the whole pattern table (~90 substring searches), and a trace
 * repeats a few hundred names millions of times; the analyses that classify every
 * dispatch (classes, timeline, recommendations) keep one cache per source state. Bounded:
 * at most KCC_MAX_NAMES names and KCC_MAX_BYTES of them are remembered (then names are classified directly), so a
 * trace of distinct names cannot grow it without bound. Not thread-safe (one per state).
 * In front of every cache, each thread keeps a direct-mapped table of 16 slots (a name goes
 * to the slot of a cheap key of its length and first and last 8 bytes, replacing whatever was
 * there; names up to 512 bytes), so the several analyses classifying one dispatch mostly
 * compare its name once instead of hashing it; and the analyses after the first one asking
 * about one record's name get its class without a compare (kcc_record_seq). */
#ifndef GOBLIN_KERNEL_CLASS_CACHE_H
#define GOBLIN_KERNEL_CLASS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/kernel_class.h"

#define KCC_MAX_NAMES 8192u
#define KCC_MAX_BYTES (4u << 20)   /* ... and their text (8,192 names of 16 KiB were 128 MiB in each
                                    * of six sections' caches per source) */

typedef struct kcc_entry {
    uint64_t hash;
    char *name;          /* NULL: empty slot */
    size_t len;
    kernel_class cls;
} kcc_entry;

typedef struct kernel_class_cache {
    kcc_entry *slots;    /* open addressing, n_slots (a power of two) at most half used */
    size_t bytes;        /* the names kept, each with its NUL (KCC_MAX_BYTES) */
    size_t used, n_slots;/* n_slots grows from 256 to 2 * KCC_MAX_NAMES: most traces have a few
                          * hundred names, and clearing the full 512 KB table in every state of
                          * every section cost more than the lookups */
} kernel_class_cache;

/* Bumped by the run's fan-out (core/run_analysis.c) just before and just after it hands one
 * record to the analyses: odd while it does. While it is odd, a record's name (the same
 * pointer and length, unchanged until the record is done) is classified once per thread,
 * then every further analysis asking about it gets the class back at once. Callers must
 * only pass, during a record, names that do not change in place while it is handed out
 * (the record's own name, or names an analysis keeps). */
extern _Thread_local uint64_t kcc_record_seq;

/* The class of `name` (len bytes), from the cache or the table (then remembered). */
kernel_class kcc_class_of(kernel_class_cache *c, const char *name, size_t len);
/* Frees the names and slots; the cache is empty (and usable) again. */
void kcc_free(kernel_class_cache *c);

#endif
