/* i128: 128-bit signed integers for nanosecond timestamps and their sums.
 *
 * rocprofv3 timestamps exceed 2^53, so they cannot go through double without losing
 * nanoseconds; sums of durations are kept in 128 bits so that they join exactly in any
 * order (a split read adds the pieces' sums, and integer addition is associative). */
#ifndef GOBLIN_I128_H
#define GOBLIN_I128_H

typedef __int128 i128;

/* Saturating 128-bit arithmetic: durations and their sums from absurd timestamps stay
 * defined (Python's integers are unbounded; ours stop at the 128-bit limits). */
static inline i128 i128_add(i128 a, i128 b) {
    i128 r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? (i128)(((unsigned __int128)1 << 127) - 1) : -(i128)(((unsigned __int128)1 << 127) - 1) - 1;
}
static inline i128 i128_sub(i128 a, i128 b) {
    i128 r;
    if (!__builtin_sub_overflow(a, b, &r)) return r;
    return b < 0 ? (i128)(((unsigned __int128)1 << 127) - 1) : -(i128)(((unsigned __int128)1 << 127) - 1) - 1;
}

#endif
