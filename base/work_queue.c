/* work_queue: one consumer thread behind two FIFO lanes of pointers (see work_queue.h). Each
 * lane is a ring that grows by doubling (up to the capacity, when there is one). */
#include "base/work_queue.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct wq_ring {
    void **slot;
    size_t cap, head, count;  /* slot[head] is the oldest */
} wq_ring;

struct work_queue {
    wq_config cfg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work;      /* an item queued, or stopping: the thread */
    pthread_cond_t room;      /* the thread took items: WQ_FULL_WAIT pushers */
    pthread_cond_t idle;      /* nothing queued and nothing being handled: wq_drain */
    pthread_cond_t stop;      /* stopping: wq_sleep (CLOCK_MONOTONIC) */
    wq_ring lane[WQ_LANES];
    size_t queued;            /* over both lanes */
    bool busy;                /* the handler is running */
    bool stopping;
    uint64_t dropped;
    void **batch;             /* cfg.batch slots: the items handed to one handle call */
};

/* Makes room for one more item in r (under the lock). false: no memory. */
static bool ring_reserve(wq_ring *r) {
    if (r->count < r->cap) return true;
    size_t cap = r->cap ? r->cap * 2 : 16;
    void **s = malloc(cap * sizeof *s);
    if (!s) return false;
    for (size_t i = 0; i < r->count; i++) s[i] = r->slot[(r->head + i) % r->cap];
    free(r->slot);
    r->slot = s;
    r->cap = cap;
    r->head = 0;
    return true;
}

static void *ring_take(wq_ring *r) {
    assert(r->count > 0);
    void *item = r->slot[r->head];
    r->head = (r->head + 1) % r->cap;
    r->count--;
    return item;
}

static void *wq_main(void *arg) {
    work_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->queued && !q->stopping) pthread_cond_wait(&q->work, &q->mu);
        if (!q->queued) break;                 /* stopping, and nothing left */
        wq_ring *r = q->lane[0].count ? &q->lane[0] : &q->lane[1];
        size_t n = 0;
        while (n < q->cfg.batch && r->count) q->batch[n++] = ring_take(r);
        q->queued -= n;
        q->busy = true;
        pthread_cond_broadcast(&q->room);
        pthread_mutex_unlock(&q->mu);
        q->cfg.handle(q->cfg.user, q->batch, n);
        pthread_mutex_lock(&q->mu);
        q->busy = false;
        if (!q->queued) pthread_cond_broadcast(&q->idle);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

static void wq_free(work_queue *q) {
    for (int l = 0; l < WQ_LANES; l++) free(q->lane[l].slot);
    free(q->batch);
    free(q);
}

work_queue *wq_start(const wq_config *cfg) {
    assert(cfg && cfg->handle);
    work_queue *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->cfg = *cfg;
    if (!q->cfg.batch) q->cfg.batch = 1;
    if (!(q->batch = malloc(q->cfg.batch * sizeof *q->batch))) { wq_free(q); return NULL; }
    pthread_condattr_t mono;
    pthread_condattr_init(&mono);
    pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->room, NULL);
    pthread_cond_init(&q->idle, NULL);
    pthread_cond_init(&q->stop, &mono);
    pthread_condattr_destroy(&mono);
    if (pthread_create(&q->thread, NULL, wq_main, q) != 0) {
        pthread_cond_destroy(&q->stop);
        pthread_cond_destroy(&q->idle);
        pthread_cond_destroy(&q->room);
        pthread_cond_destroy(&q->work);
        pthread_mutex_destroy(&q->mu);
        wq_free(q);
        return NULL;
    }
    return q;
}

bool wq_push(work_queue *q, void *item, unsigned lane) {
    assert(q && lane < WQ_LANES);
    void *dropped = NULL;
    pthread_mutex_lock(&q->mu);
    bool ok = !q->stopping;
    while (ok && q->cfg.capacity && q->queued >= q->cfg.capacity) {
        if (q->cfg.when_full == WQ_FULL_WAIT) {
            pthread_cond_wait(&q->room, &q->mu);
            ok = !q->stopping;
        } else if (q->cfg.when_full == WQ_FULL_DROP_OLDEST && q->lane[lane].count) {
            dropped = ring_take(&q->lane[lane]);
            q->queued--;
            q->dropped++;
        } else {
            ok = false;
        }
    }
    if (ok && (ok = ring_reserve(&q->lane[lane]))) {
        wq_ring *r = &q->lane[lane];
        r->slot[(r->head + r->count) % r->cap] = item;
        r->count++;
        q->queued++;
        pthread_cond_signal(&q->work);
    }
    pthread_mutex_unlock(&q->mu);
    if (dropped && q->cfg.drop) q->cfg.drop(q->cfg.user, dropped);
    return ok;
}

void wq_drain(work_queue *q) {
    pthread_mutex_lock(&q->mu);
    while (q->queued || q->busy) pthread_cond_wait(&q->idle, &q->mu);
    pthread_mutex_unlock(&q->mu);
}

uint64_t wq_dropped(work_queue *q) {
    pthread_mutex_lock(&q->mu);
    uint64_t n = q->dropped;
    pthread_mutex_unlock(&q->mu);
    return n;
}

bool wq_stopping(work_queue *q) {
    pthread_mutex_lock(&q->mu);
    bool s = q->stopping;
    pthread_mutex_unlock(&q->mu);
    return s;
}

bool wq_sleep(work_queue *q, int64_t ms) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&q->mu);
    int rc = 0;
    while (!q->stopping && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&q->stop, &q->mu, &until);
    bool slept = !q->stopping;
    pthread_mutex_unlock(&q->mu);
    return slept;
}

void wq_close(work_queue *q) {
    pthread_mutex_lock(&q->mu);
    q->stopping = true;
    pthread_cond_broadcast(&q->work);
    pthread_cond_broadcast(&q->room);
    pthread_cond_broadcast(&q->stop);
    pthread_mutex_unlock(&q->mu);
}

void wq_stop(work_queue *q) {
    if (!q) return;
    wq_close(q);
    pthread_join(q->thread, NULL);
    assert(!q->queued);
    pthread_cond_destroy(&q->stop);
    pthread_cond_destroy(&q->idle);
    pthread_cond_destroy(&q->room);
    pthread_cond_destroy(&q->work);
    pthread_mutex_destroy(&q->mu);
    wq_free(q);
}
