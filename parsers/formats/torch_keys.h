/* torch_keys: the torch profile records state's key and category matching, and its small
 * appends (parsers/formats/torch_trace_records.c, its only user): an event's member keys, its args
 * keys and its category to small ids, comparing words of the text rather than calling
 * memcmp per candidate (those calls and compares were a measurable share of `goblind
 * analyze`; measured in the git history of docs/PERFORMANCE.md). Static inline: no state. */
#ifndef GOBLIN_TORCH_KEYS_H
#define GOBLIN_TORCH_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/strbuf.h"

/* an event's member keys (K_), its args keys (A_), its categories (C_) */
enum { K_OTHER, K_NAME, K_CAT, K_TS, K_DUR, K_PH, K_PID, K_TID, K_ARGS };
enum { A_OTHER, A_DEVICE, A_STREAM, A_CORR, A_EXTERNAL, A_GRID, A_BLOCK, A_DIMS, A_TYPES, A_BYTES, A_KIND,
       /* a [memory] instant event's: "Device Id", "Device Type", "Total Allocated", "Total Reserved" */
       A_DEVICE_ID, A_DEVICE_TYPE, A_TOTAL_ALLOCATED, A_TOTAL_RESERVED };
enum { C_OTHER, C_KERNEL, C_MEMCPY, C_MEMSET, C_RUNTIME, C_DRIVER, C_CPU_OP, C_PYTHON, C_ANNOT, C_GPU_ANNOT };

/* Keys are compared as little-endian words of exactly their length (a libc memcmp call per
 * candidate key, or a word assembled through memory, cost several % of `goblind analyze`):
 * LOADn reads n bytes of a key, Cn spells a literal key as the same word. */
static inline uint64_t load2(const char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint64_t load4(const char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t load8(const char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint64_t load3(const char *p) { return load2(p) | (uint64_t)(unsigned char)p[2] << 16; }
static inline uint64_t load5(const char *p) { return load4(p) | (uint64_t)(unsigned char)p[4] << 32; }
static inline uint64_t load6(const char *p) { return load4(p) | load2(p + 4) << 32; }
#define B_(c, i) ((uint64_t)(unsigned char)(c) << (8 * (i)))
#define C2(a, b) (B_(a, 0) | B_(b, 1))
#define C3(a, b, c) (C2(a, b) | B_(c, 2))
#define C4(a, b, c, d) (C3(a, b, c) | B_(d, 3))
#define C5(a, b, c, d, e) (C4(a, b, c, d) | B_(e, 4))
#define C6(a, b, c, d, e, f) (C5(a, b, c, d, e) | B_(f, 5))
#define C8(a, b, c, d, e, f, g, h) (C6(a, b, c, d, e, f) | B_(g, 6) | B_(h, 7))

/* An event object's member key -> K_ id (K_OTHER: not one the records read). */
static inline int event_key(const char *k, size_t n) {
    switch (n) {
    case 2: {
        uint64_t w = load2(k);
        return w == C2('t', 's') ? K_TS : w == C2('p', 'h') ? K_PH : K_OTHER;
    }
    case 3: {
        uint64_t w = load3(k);
        return w == C3('c', 'a', 't') ? K_CAT : w == C3('d', 'u', 'r') ? K_DUR : w == C3('p', 'i', 'd') ? K_PID
             : w == C3('t', 'i', 'd') ? K_TID : K_OTHER;
    }
    case 4: {
        uint64_t w = load4(k);
        return w == C4('n', 'a', 'm', 'e') ? K_NAME : w == C4('a', 'r', 'g', 's') ? K_ARGS : K_OTHER;
    }
    default: return K_OTHER;
    }
}

/* A key of an event's args object -> A_ id (A_OTHER: not one the records read). */
static inline int args_key(const char *k, size_t n) {
    switch (n) {
    case 4: {
        uint64_t w = load4(k);
        return w == C4('g', 'r', 'i', 'd') ? A_GRID : w == C4('k', 'i', 'n', 'd') ? A_KIND : A_OTHER;
    }
    case 5: {
        uint64_t w = load5(k);
        return w == C5('b', 'l', 'o', 'c', 'k') ? A_BLOCK : w == C5('b', 'y', 't', 'e', 's') ? A_BYTES : A_OTHER;
    }
    case 6: {
        uint64_t w = load6(k);
        return w == C6('d', 'e', 'v', 'i', 'c', 'e') ? A_DEVICE : w == C6('s', 't', 'r', 'e', 'a', 'm') ? A_STREAM : A_OTHER;
    }
    case 9:      /* "Device Id" */
        return load8(k) == C8('D', 'e', 'v', 'i', 'c', 'e', ' ', 'I') && k[8] == 'd' ? A_DEVICE_ID : A_OTHER;
    case 10: {   /* "Input Dims", "Input type": the first 8 bytes, then the last 2 */
        if (load8(k) != C8('I', 'n', 'p', 'u', 't', ' ', 'D', 'i') && load8(k) != C8('I', 'n', 'p', 'u', 't', ' ', 't', 'y'))
            return A_OTHER;
        uint64_t w = load8(k) >> 48 | load2(k + 8) << 16;
        return w == C4('D', 'i', 'm', 's') ? A_DIMS : w == C4('t', 'y', 'p', 'e') ? A_TYPES : A_OTHER;
    }
    case 11: {   /* "correlation", "External id", "Device Type": the first 8 bytes and the last 3 */
        uint64_t w = load8(k), t = load3(k + 8);
        return w == C8('c', 'o', 'r', 'r', 'e', 'l', 'a', 't') && t == C3('i', 'o', 'n') ? A_CORR
             : w == C8('E', 'x', 't', 'e', 'r', 'n', 'a', 'l') && t == C3(' ', 'i', 'd') ? A_EXTERNAL
             : w == C8('D', 'e', 'v', 'i', 'c', 'e', ' ', 'T') && t == C3('y', 'p', 'e') ? A_DEVICE_TYPE : A_OTHER;
    }
    case 14:     /* "Total Reserved": the first 8 bytes and the last 6 */
        return load8(k) == C8('T', 'o', 't', 'a', 'l', ' ', 'R', 'e') && load6(k + 8) == C6('s', 'e', 'r', 'v', 'e', 'd')
                   ? A_TOTAL_RESERVED : A_OTHER;
    case 15:     /* "Total Allocated": the first 8 bytes and the last 8 (overlapping) */
        return load8(k) == C8('T', 'o', 't', 'a', 'l', ' ', 'A', 'l') && load8(k + 7) == C8('l', 'l', 'o', 'c', 'a', 't', 'e', 'd')
                   ? A_TOTAL_ALLOCATED : A_OTHER;
    default: return A_OTHER;
    }
}

/* x with its ASCII capitals (each byte 'A'..'Z') in lower case, eight bytes at once. */
static inline uint64_t lower8(uint64_t x) {
    uint64_t h = x & 0x7f7f7f7f7f7f7f7fu;
    uint64_t ge_a = h + 0x3f3f3f3f3f3f3f3fu, gt_z = h + 0x2525252525252525u;   /* bit 7: >= 'A', > 'Z' */
    return x | ((ge_a & ~gt_z & ~x & 0x8080808080808080u) >> 2);
}

/* A category's id, compared case-insensitively (ASCII letters only) with each known name as
 * two or three overlapping words of the text (a chain of string compares per event cost ~1 %
 * of `goblind analyze`). *exact: the known name's own text when s spells it exactly (the
 * record's category can then point at it: no copy), else NULL. */
static inline int cat_id(const char *s, size_t n, const char **exact) {
    static const struct { char s[24]; unsigned char n, id; } CATS[] = {
        {"kernel", 6, C_KERNEL}, {"cuda_runtime", 12, C_RUNTIME}, {"cpu_op", 6, C_CPU_OP},
        {"python_function", 15, C_PYTHON}, {"user_annotation", 15, C_ANNOT}, {"gpu_memcpy", 10, C_MEMCPY},
        {"gpu_memset", 10, C_MEMSET}, {"cuda_driver", 11, C_DRIVER}, {"hip_runtime", 11, C_RUNTIME},
        {"hip_driver", 10, C_DRIVER}, {"gpu_user_annotation", 19, C_GPU_ANNOT},
        /* 2021 Kineto: Memcpy, Memset, Runtime, Operator, Kernel */
        {"memcpy", 6, C_MEMCPY}, {"memset", 6, C_MEMSET}, {"runtime", 7, C_RUNTIME}, {"operator", 8, C_CPU_OP},
        /* MTIA: Kineto's own aliases (ActivityType MTIA_CCP_EVENTS = CONCURRENT_KERNEL,
         * MTIA_RUNTIME = RUNTIME) */
        {"mtia_ccp_events", 15, C_KERNEL}, {"mtia_runtime", 12, C_RUNTIME}};
    *exact = NULL;
    if (n < 6 || n > 19) return C_OTHER;
    /* words covering every byte: [0,8) and [n-8,n) (and [8,16) past 16 bytes), or [0,4) and [n-4,n) */
#define WORDS(p, a, m, b) do { if (n >= 8) { a = load8(p); b = load8(p + n - 8); m = n > 16 ? load8(p + 8) : 0; } \
                               else { a = load4(p); b = load4(p + n - 4); m = 0; } } while (0)
    uint64_t a, m, b;
    WORDS(s, a, m, b);
    uint64_t la = lower8(a), lm = lower8(m), lb = lower8(b);
    for (size_t i = 0; i < sizeof CATS / sizeof CATS[0]; i++) {
        if (CATS[i].n != n) continue;
        uint64_t ra, rm, rb;
        WORDS(CATS[i].s, ra, rm, rb);    /* (the names are padded to 24 bytes: every load is inside) */
        if (la != ra || lm != rm || lb != rb) continue;
        if (a == ra && m == rm && b == rb) *exact = CATS[i].s;
        return CATS[i].id;
    }
#undef WORDS
    return C_OTHER;
}

/* Appends without a call while the buffer has room (the args text is built a token at a
 * time); strbuf_append otherwise (growth, allocation failure). */
static inline void sb_put(strbuf *b, const char *p, size_t n) {
    if (b->len + n < b->cap) { memcpy(b->data + b->len, p, n); b->len += n; }
    else strbuf_append(b, p, n);
}
static inline void sb_putc(strbuf *b, char c) {
    if (b->len + 1 < b->cap) b->data[b->len++] = c;
    else strbuf_putc(b, c);
}

#endif
