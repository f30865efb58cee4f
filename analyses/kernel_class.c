/* kernel_class: the name-pattern table (see kernel_class.h). PLACEHOLDER table: only the
 * communication rule; the classes engineer replaces it with the documented table. */
#include "analyses/kernel_class.h"

#include <ctype.h>
#include <string.h>

static const char *const KEYS[KC_COUNT] = {"gemm", "attention", "communication", "memcpy", "memset",
                                           "elementwise", "reduction", "normalization", "convolution", "other"};

const char *kernel_class_key(kernel_class c) { return (unsigned)c < KC_COUNT ? KEYS[c] : "other"; }

/* Case-insensitive substring search in a name that is not NUL-terminated. */
static int has_word(const char *name, size_t len, const char *w) {
    size_t n = strlen(w);
    for (size_t i = 0; i + n <= len; i++) {
        size_t j = 0;
        while (j < n && tolower((unsigned char)name[i + j]) == w[j]) j++;
        if (j == n) return 1;
    }
    return 0;
}

kernel_class kernel_class_of(const char *name, size_t len) {
    if (!name) return KC_OTHER;
    if (has_word(name, len, "nccl") || has_word(name, len, "rccl")) return KC_COMMUNICATION;
    return KC_OTHER;
}
