/* work_queue: one thread of its own handling queued items in order, the producers never
 * waiting for the work (only, when asked, for room). The pattern every background lane of
 * goblind needs: the daemon's status writes (daemon/status_writer.c) and each webhook
 * receiver's POSTs (api/webhooks.c).
 *
 * Items are opaque pointers (the queue never frees one: handle or drop owns it). Two lanes:
 * lane 0's items are handled before any of lane 1's (the status writer's real runs before
 * empty directories); within a lane, in push order. The thread hands the handler up to
 * `batch` items of one lane at a time (one transaction for many writes). Bounded or not:
 * when `capacity` items are queued, a push is refused, waits for room, or drops the oldest
 * item of its lane (cfg.when_full). Thread-safe: any thread may push; the handler runs on the
 * queue's thread only, with no lock held. */
#ifndef GOBLIN_WORK_QUEUE_H
#define GOBLIN_WORK_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WQ_LANES 2

typedef struct work_queue work_queue;

/* What a push does when `capacity` items are queued. */
typedef enum {
    WQ_FULL_REFUSE,       /* returns false; the caller keeps the item */
    WQ_FULL_WAIT,         /* waits until the thread has taken an item (or the queue stops) */
    WQ_FULL_DROP_OLDEST,  /* the lane's oldest queued item goes to cfg.drop (refused when that lane is empty) */
} wq_full;

typedef struct wq_config {
    size_t capacity;      /* items queued over both lanes at most; 0: no bound (a push fails only without memory) */
    wq_full when_full;
    size_t batch;         /* items per handle call at most (0 counts as 1) */
    /* On the queue's thread: n (1..batch) items of one lane, in push order. */
    void (*handle)(void *user, void *const *items, size_t n);
    /* An item dropped by WQ_FULL_DROP_OLDEST (on the pushing thread, under no lock); NULL: none. */
    void (*drop)(void *user, void *item);
    void *user;
} wq_config;

/* Starts the queue and its thread; NULL when memory or the thread is refused. */
work_queue *wq_start(const wq_config *cfg);
/* Queues item on lane (0 or 1). false: refused (full under WQ_FULL_REFUSE, the queue is
 * stopping, or no memory): the caller keeps the item. */
bool wq_push(work_queue *q, void *item, unsigned lane);
/* Waits until every item pushed so far has been handled (or dropped). Not from the handler. */
void wq_drain(work_queue *q);
/* Items dropped by WQ_FULL_DROP_OLDEST so far. */
uint64_t wq_dropped(work_queue *q);
/* Whether wq_close or wq_stop has been called (for a handler that retries: give up sooner). */
bool wq_stopping(work_queue *q);
/* For the handler: sleeps up to ms milliseconds, returning at once (false) when the queue is
 * stopping; true after the full sleep. */
bool wq_sleep(work_queue *q, int64_t ms);
/* Begins stopping without waiting: pushes are refused from now on, and wq_sleep and a
 * WQ_FULL_WAIT push return at once; the thread goes on with what is queued. For an owner of
 * several queues, so that they all wind down side by side before wq_stop joins each. */
void wq_close(work_queue *q);
/* Stops the queue (wq_close, if not yet): the thread handles every item still queued, then
 * ends; joined, and the queue freed. NULL: nothing. */
void wq_stop(work_queue *q);

#endif
