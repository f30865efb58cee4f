/* kernel_class: which kind of work a GPU kernel does, from its name alone.
 *
 * One documented table of name patterns for both vendors (docs/ANALYSIS.md "classes"),
 * shared by every analysis that needs a kernel's class (classes, timeline's communication
 * and compute, steps' communication part, layers' attention and GEMM work). The RunMetrics
 * families (parsers/kernel_table.c KF_*) follow the reference and stay separate where
 * they differ; where they overlap the table says so. */
#ifndef GOBLIN_KERNEL_CLASS_H
#define GOBLIN_KERNEL_CLASS_H

#include <stddef.h>
#include <strings.h>

typedef enum {
    KC_GEMM,
    KC_ATTENTION,
    KC_COMMUNICATION,
    KC_MEMCPY,
    KC_MEMSET,
    KC_ELEMENTWISE,
    KC_REDUCTION,
    KC_NORMALIZATION,
    KC_CONVOLUTION,
    KC_BARRIER,              /* a queue's barrier packet (legacy rocprof "<barrier packet>"): not a kernel */
    KC_OTHER,
    KC_COUNT
} kernel_class;

/* The class of a kernel named `name` (len bytes, not NUL-terminated): the first matching
 * row of the pattern table, KC_OTHER when none matches. Pure; thread-safe. */
kernel_class kernel_class_of(const char *name, size_t len);
/* The class's key in JSON and Prometheus labels: "gemm", "attention", "communication",
 * "memcpy", "memset", "elementwise", "reduction", "normalization", "convolution", "barrier",
 * "other". */
const char *kernel_class_key(kernel_class c);

/* Whether a kernel name is a barrier packet (class KC_BARRIER, the table's first row) without
 * a full classification: the name starts with "<barrier packet", ASCII case-insensitive. */
static inline int kernel_is_barrier(const char *name, size_t len) {
    return name && len >= 15 && name[0] == '<' && !strncasecmp(name, "<barrier packet", 15);
}

#endif
