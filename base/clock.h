/* clock: the process's two clocks, one place (clk_ prefix). Monotonic time measures durations
 * (deadlines, parse times, timeouts); wall time stamps what is stored and shown (run times,
 * event times). Header-only: each is one clock_gettime. */
#ifndef GOBLIN_CLOCK_H
#define GOBLIN_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds (CLOCK_MONOTONIC): for durations only. */
static inline int64_t clk_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Monotonic milliseconds, whole. */
static inline int64_t clk_mono_ms(void) { return clk_mono_ns() / 1000000; }

/* Monotonic milliseconds and seconds as doubles (sub-millisecond durations). */
static inline double clk_mono_ms_f(void) { return (double)clk_mono_ns() / 1e6; }
static inline double clk_mono_s(void) { return (double)clk_mono_ns() / 1e9; }

/* Wall-clock milliseconds since the Unix epoch (CLOCK_REALTIME): for timestamps people read. */
static inline int64_t clk_wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
