/* status_writer: each run's status stored in order off the loop thread, retried while the
 * database refuses writes, stopped for good when it is corrupt. */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "base/work_queue.h"
#include "daemon/tracker_internal.h"
#include "daemon/log.h"

/* A corrupt database stops every write and retry (they would fail forever); said once. */
bool status_db_corrupt(tracker *t) {
    const char *why = store_corruption(t->st);
    if (why && !t->corrupt_logged) {
        t->corrupt_logged = true;
        log_error("%s; parses and writes stopped, the API answers 503 until goblind restarts on a good database", why);
    }
    return why != NULL;
}

/* Status writes have their own lane: one thread of their own (a locked database must not
 * stall the loop, and a status must not wait behind two long parses on the worker pool),
 * one write at a time per run so they land in order. A failed write (database full,
 * read-only, locked) is logged once and retried every 2 s; the API keeps serving what is
 * stored meanwhile. */
typedef struct status_job {
    struct status_job *next;     /* on the lane's done list */
    run *r;
    char *id, *root, *path;
    run_status status;
    bool ok;
} status_job;

struct status_lane {
    work_queue *q;               /* the jobs: lane 0 real runs, lane 1 empty directories (after) */
    pthread_mutex_t mu;          /* done */
    status_job *done;            /* written, in any order, for the loop */
    uv_async_t async;            /* the lane thread wakes the loop with finished jobs */
    int in_flight;               /* loop thread: queued or running */
};

/* Writes queued together go in one transaction, at most this many: a burst (thousands of new
 * directories at start-up) costs a few commits, not one each. */
#define LANE_BATCH 512

/* The queue's thread: one batch of jobs (one lane's, in order) in one transaction. */
static void lane_write(void *user, void *const *jobs, size_t n) {
    status_lane *l = user;
    assert(n >= 1 && n <= LANE_BATCH);
    store_status items[LANE_BATCH];
    for (size_t i = 0; i < n; i++) {
        const status_job *j = jobs[i];
        items[i] = (store_status){j->id, j->root, j->path, j->status};
    }
    store *st = ((status_job *)jobs[0])->r->t->st;
    bool ok = store_set_statuses(st, items, n, clk_wall_ms()) == 0;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < n; i++) {
        status_job *j = jobs[i];
        j->ok = ok;
        j->next = l->done;
        l->done = j;
    }
    /* (sent under the lock: the loop takes these jobs, and may then close the handle, only
     * after this send) */
    uv_async_send(&l->async);
    pthread_mutex_unlock(&l->mu);
}

static void status_done(status_job *j);
static void status_on_retry(uv_timer_t *h);

static void lane_closed(uv_handle_t *h) { tracker_handle_closed(h); }

static void on_lane_async(uv_async_t *h) {
    status_lane *l = h->data;
    pthread_mutex_lock(&l->mu);
    status_job *done = l->done;
    l->done = NULL;
    pthread_mutex_unlock(&l->mu);
    while (done) {
        status_job *j = done;
        done = j->next;
        l->in_flight--;
        status_done(j);                         /* may free the tracker's last run, not the lane */
    }
}

bool status_lane_start(tracker *t) {
    status_lane *l = calloc(1, sizeof *l);
    if (!l) return false;
    pthread_mutex_init(&l->mu, NULL);
    uv_async_init(t->loop, &l->async, on_lane_async);
    l->async.data = l;
    t->open_handles++;
    t->lane = l;
    l->q = wq_start(&(wq_config){.batch = LANE_BATCH, .handle = lane_write, .user = l});
    return l->q != NULL;
}

void status_lane_stop(tracker *t) {
    status_lane *l = t->lane;
    if (l && l->in_flight == 0 && !uv_is_closing((uv_handle_t *)&l->async))
        uv_close((uv_handle_t *)&l->async, lane_closed);   /* else once the last write is back */
}

void status_lane_free(tracker *t) {
    status_lane *l = t->lane;
    if (!l) return;
    wq_stop(l->q);                              /* writes what is still queued, joins */
    pthread_mutex_destroy(&l->mu);
    free(l);
    t->lane = NULL;
}

static void status_done(status_job *j) {
    run *r = j->r;
    tracker *t = r->t;
    t->inflight--;
    r->status_writing = false;
    r->refs--;                                  /* the job's; the run is freed below at the latest */
    if (t->stopping) status_lane_stop(t);       /* the lane's handle closes after its last write */
    bool ok = j->ok;
    if (ok && r->status_failed) log_info("run %s: status %s stored after a retry", r->id, store_run_status_name(j->status));
    if (!ok && status_db_corrupt(t)) r->status_failed = true;             /* no retry, no per-run line */
    char err[256];
    if (!ok && !r->status_failed)
        log_error("run %s: cannot store status %s: %s; retrying", r->id, store_run_status_name(j->status), store_last_error(t->st, err, sizeof err));
    r->status_failed = !ok;
    if (!ok) r->status_dirty = true;
    free(j->id);
    free(j->root);
    free(j->path);
    free(j);
    if (r->forgotten) {
        if (r->refs == 0) tracker_free_run(r);
        if (t->stopping && t->inflight == 0 && t->open_handles == 0 && t->done) t->done(t->done_arg);
        return;
    }
    if (t->stopping) {
        if (t->inflight == 0 && t->open_handles == 0 && t->done) t->done(t->done_arg);
        return;
    }
    if (ok) t->changed(t->user, r->id);
    if (!ok) { if (!status_db_corrupt(t) && !uv_is_active((uv_handle_t *)&t->retry)) uv_timer_start(&t->retry, status_on_retry, 2000, 0); }
    else if (r->status_dirty) status_write(r);             /* changed again meanwhile */
    else if (r->sm.gone && !r->sm.parsing) tracker_forget(r);
}

void status_write(run *r) {
    tracker *t = r->t;
    if (r->status_writing || t->stopping) { r->status_dirty = true; return; }
    if (status_db_corrupt(t)) return;
    status_job *j = calloc(1, sizeof *j);
    if (!j) { r->status_dirty = true; return; }
    j->r = r;
    j->id = strdup(r->id);
    j->root = strdup(r->root);
    j->path = strdup(r->path);
    j->status = r->sm.status;
    status_lane *l = t->lane;
    /* one write per run at a time: its order holds */
    if (!l || !l->q || !j->id || !j->root || !j->path || !wq_push(l->q, j, r->dormant ? 1 : 0)) {
        r->status_dirty = true;
        free(j->id); free(j->root); free(j->path); free(j);
        return;
    }
    r->status_dirty = false;
    r->status_writing = true;
    t->inflight++;
    r->refs++;
    l->in_flight++;
}

/* The retry timer after a failed write: every run whose stored status is behind is written again. */
static void status_on_retry(uv_timer_t *h) {
    tracker *t = h->data;
    if (t->stopping) return;
    FOR_EACH_RUN(t, r) {
        if (r->status_dirty && !r->status_writing) status_write(r);
    }
}
