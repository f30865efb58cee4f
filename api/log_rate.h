/* log_rate: rate-limits repeated log lines of one kind (libmicrohttpd's messages, keyed by
 * their format string), so a client that probes the TLS port with plain HTTP in a loop cannot
 * flood the journal: the first line of a kind in each window is written, the rest are counted,
 * and the count is reported with the next line written or at shutdown. Thread-safe. */
#ifndef GOBLIN_LOG_RATE_H
#define GOBLIN_LOG_RATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define LOG_RATE_KINDS 16

typedef struct log_rate {
    pthread_mutex_t lock;
    double window_s;
    struct { const void *key; double last; uint64_t suppressed; } kinds[LOG_RATE_KINDS];
} log_rate;

/* A limiter writing at most one line per kind every window_s seconds. */
void log_rate_init(log_rate *r, double window_s);
/* Releases r's lock (r itself is the caller's). */
void log_rate_destroy(log_rate *r);
/* Whether a line of this kind may be written now; *suppressed gets the number of lines of
 * the kind left out since the last one written (to mention in this one). */
bool log_rate_admit(log_rate *r, const void *key, double now_s, uint64_t *suppressed);
/* Lines left out and not yet reported, over every kind (and resets them): for a last line. */
uint64_t log_rate_take_suppressed(log_rate *r);

#endif
