/* retention_timer: the periodic retention pass on the worker pool. */
#include "daemon/retention_timer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "base/clock.h"
#include "daemon/log.h"
#include "daemon/run_log.h"

struct retention_timer {
    uv_timer_t timer;
    uv_work_t work;
    store *st;
    pthread_mutex_t http_lock;   /* a pass's worker thread tells http; retention_timer_stop clears it */
    api *http;
    retention_policy policy;
    retention_room room;         /* the room asked for the last runs refused (storage/retention.h) */
    unsigned ticks;
    atomic_bool stopping;        /* retention_timer_stop: a pass in flight ends after its current eviction */
    bool busy, closing, closed;
    int evicted;
};

static int64_t wall_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void maybe_free(retention_timer *rt) {
    if (!rt->closed || rt->busy) return;
    pthread_mutex_destroy(&rt->http_lock);
    free(rt);
}

/* Worker thread: log and tell the API (both thread-safe), unless the timer was stopped (the API
 * may be gone then). */
static void on_evicted(void *user, const char *id, const char *why) {
    retention_timer *rt = user;
    run_log_deleted(id, why);
    pthread_mutex_lock(&rt->http_lock);
    api_notify_run(rt->http, id);              /* NULL: nothing */
    pthread_mutex_unlock(&rt->http_lock);
}

static void pass_work(uv_work_t *req) {
    retention_timer *rt = req->data;
    rt->evicted = retention_enforce(rt->st, &rt->policy, wall_ms(), on_evicted, rt);
}

static void pass_done(uv_work_t *req, int status) {
    retention_timer *rt = req->data;
    rt->busy = false;
    char err[256];
    if (status == 0 && rt->evicted < 0) log_error("retention: cannot evict runs: %s", store_last_error(rt->st, err, sizeof err));
    maybe_free(rt);
}

static void on_timer(uv_timer_t *h) {
    retention_timer *rt = h->data;
    if (rt->busy || rt->closing) return;
    store_refusal refused[STORE_REFUSALS];
    size_t n_refused = store_take_refusals(rt->st, refused);
    if (rt->ticks++ % (RETENTION_PERIOD_MS / 1000) && !n_refused) return;
    /* Ingests refused for lack of room: the oldest finished runs make room for their retries,
     * as much as each lacks, once per run; a run refused again, or asking beyond 90 % of the
     * limit, gets no more (logged once): its retries cannot empty the database. */
    rt->policy.room_bytes = 0;
    for (size_t i = 0; i < n_refused && rt->policy.max_size_mb > 0; i++) {
        if (refused[i].landed) {                /* stored after all: a later refusal gets room again */
            retention_room_landed(&rt->room, refused[i].run_id);
            continue;
        }
        retention_room_answer why = ROOM_MADE;
        bool first_warning = false;
        int64_t room = retention_room_for(&rt->room, refused[i].run_id, refused[i].need_bytes, rt->policy.max_size_mb,
                                          clk_mono_ms(), &why, &first_warning);
        if (first_warning)
            log_warn("run %s: needs about %.1f MB more in the database and %s under db_max_size_mb (%d MB); no run is "
                     "evicted for it", refused[i].run_id, (double)refused[i].need_bytes / 1048576.0,
                     why == ROOM_AGAIN ? "did not fit in the room made for it" : "cannot fit", rt->policy.max_size_mb);
        rt->policy.room_bytes += room;
    }
    int64_t cap = (int64_t)rt->policy.max_size_mb * 1024 * 1024 / 10 * 9;
    if (rt->policy.room_bytes > cap) rt->policy.room_bytes = cap;
    rt->busy = true;
    rt->work.data = rt;
    if (uv_queue_work(h->loop, &rt->work, pass_work, pass_done) != 0) rt->busy = false;
}

retention_timer *retention_timer_start(uv_loop_t *loop, store *st, const retention_policy *p, api *http) {
    if (p->max_runs <= 0 && p->max_age_days <= 0 && p->max_size_mb <= 0) return NULL;
    retention_timer *rt = calloc(1, sizeof *rt);
    if (!rt) return NULL;
    rt->st = st;
    pthread_mutex_init(&rt->http_lock, NULL);
    rt->http = http;
    rt->policy = *p;
    atomic_init(&rt->stopping, false);
    rt->policy.cancel = &rt->stopping;
    uv_timer_init(loop, &rt->timer);
    rt->timer.data = rt;
    uv_timer_start(&rt->timer, on_timer, 1000, 1000);
    return rt;
}

static void on_closed(uv_handle_t *h) {
    retention_timer *rt = h->data;
    rt->closed = true;
    maybe_free(rt);
}

void retention_timer_stop(retention_timer *rt) {
    if (!rt || rt->closing) return;
    rt->closing = true;
    atomic_store(&rt->stopping, true);
    pthread_mutex_lock(&rt->http_lock);         /* a pass in flight tells the API no more */
    rt->http = NULL;
    pthread_mutex_unlock(&rt->http_lock);
    uv_close((uv_handle_t *)&rt->timer, on_closed);
}
