/* status_writer: each run's status stored in order off the loop thread, retried while the
 * database refuses writes, stopped for good when it is corrupt. */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "daemon/tracker_internal.h"
#include "daemon/log.h"

/* A corrupt database stops every write and retry (they would fail forever); said once. */
bool db_corrupt(tracker *t) {
    const char *why = store_corruption(t->st);
    if (why && !t->corrupt_logged) {
        t->corrupt_logged = true;
        log_error("%s; parses and writes stopped, the API answers 503 until goblind restarts on a good database", why);
    }
    return why != NULL;
}

/* Status writes run on the worker pool (a locked database must not stall the loop), one at a
 * time per run so they land in order. A failed write (database full, read-only, locked) is
 * logged once and retried every 2 s; the API keeps serving what is stored meanwhile. */
typedef struct status_job {
    uv_work_t req;
    run *r;
    char *id, *root, *path;
    run_status status;
    bool ok;
} status_job;

static void status_work(uv_work_t *req) {
    status_job *j = req->data;
    j->ok = store_set_status(j->r->t->st, j->id, j->root, j->path, j->status, now_ms()) == 0;
}

void status_done(uv_work_t *req, int status) {
    status_job *j = req->data;
    run *r = j->r;
    tracker *t = r->t;
    t->inflight--;
    r->status_writing = false;
    r->refs--;                                  /* the job's; the run is freed below at the latest */
    bool ok = status == 0 && j->ok;
    if (ok && r->status_failed) log_info("run %s: status %s stored after a retry", r->id, run_status_name(j->status));
    if (!ok && db_corrupt(t)) r->status_failed = true;             /* no retry, no per-run line */
    if (!ok && !r->status_failed)
        log_error("run %s: cannot store status %s: %s; retrying", r->id, run_status_name(j->status), store_last_error(t->st));
    r->status_failed = !ok;
    if (!ok) r->status_dirty = true;
    free(j->id);
    free(j->root);
    free(j->path);
    free(j);
    if (r->forgotten) {
        if (r->refs == 0) free_run(r);
        if (t->stopping && t->inflight == 0 && t->open_handles == 0 && t->done) t->done(t->done_arg);
        return;
    }
    if (t->stopping) {
        if (t->inflight == 0 && t->open_handles == 0 && t->done) t->done(t->done_arg);
        return;
    }
    if (ok) t->changed(t->user, r->id);
    if (!ok) { if (!db_corrupt(t) && !uv_is_active((uv_handle_t *)&t->retry)) uv_timer_start(&t->retry, on_retry, 2000, 0); }
    else if (r->status_dirty) write_status(r);             /* changed again meanwhile */
    else if (r->gone && !r->parsing) forget(r);
}

void write_status(run *r) {
    tracker *t = r->t;
    if (r->status_writing || t->stopping) { r->status_dirty = true; return; }
    if (db_corrupt(t)) return;
    status_job *j = calloc(1, sizeof *j);
    if (!j) { r->status_dirty = true; return; }
    j->r = r;
    j->id = strdup(r->id);
    j->root = strdup(r->root);
    j->path = strdup(r->path);
    j->status = r->status;
    j->req.data = j;
    r->status_dirty = false;
    r->status_writing = true;
    t->inflight++;
    r->refs++;
    if (uv_queue_work(t->loop, &j->req, status_work, status_done) != 0) {
        t->inflight--;
        r->refs--;
        r->status_writing = false;
        r->status_dirty = true;
        free(j->id); free(j->root); free(j->path); free(j);
    }
}

void on_retry(uv_timer_t *h) {
    tracker *t = h->data;
    if (t->stopping) return;
    FOR_EACH_RUN(t, r) {
        if (r->status_dirty && !r->status_writing) write_status(r);
    }
}
