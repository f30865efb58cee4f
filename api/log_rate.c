/* log_rate: a small fixed table of line kinds behind one mutex (see log_rate.h). */
#include "api/log_rate.h"

#include <string.h>

void log_rate_init(log_rate *r, double window_s) {
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    r->window_s = window_s;
}

void log_rate_destroy(log_rate *r) { pthread_mutex_destroy(&r->lock); }

bool log_rate_admit(log_rate *r, const void *key, double now_s, uint64_t *suppressed) {
    pthread_mutex_lock(&r->lock);
    size_t slot = LOG_RATE_KINDS, oldest = 0;
    for (size_t i = 0; i < LOG_RATE_KINDS; i++) {
        if (r->kinds[i].key == key) { slot = i; break; }
        if (r->kinds[i].last < r->kinds[oldest].last) oldest = i;
    }
    bool admit;
    if (slot == LOG_RATE_KINDS) {               /* a new kind takes the least recent slot */
        slot = oldest;
        r->kinds[slot].key = key;
        r->kinds[slot].suppressed = 0;
        admit = true;
    } else {
        admit = now_s - r->kinds[slot].last >= r->window_s;
    }
    *suppressed = 0;
    if (admit) {
        *suppressed = r->kinds[slot].suppressed;
        r->kinds[slot].suppressed = 0;
        r->kinds[slot].last = now_s;
    } else {
        r->kinds[slot].suppressed++;
    }
    pthread_mutex_unlock(&r->lock);
    return admit;
}

uint64_t log_rate_take_suppressed(log_rate *r) {
    pthread_mutex_lock(&r->lock);
    uint64_t n = 0;
    for (size_t i = 0; i < LOG_RATE_KINDS; i++) {
        n += r->kinds[i].suppressed;
        r->kinds[i].suppressed = 0;
    }
    pthread_mutex_unlock(&r->lock);
    return n;
}
