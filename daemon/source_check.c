/* source_check: a run's sources fingerprint taken on the worker pool for the loop thread's
 * change detection. The loop only lists and stats (tracker_sig_of); when the listing moved, whether a
 * source changed (not only a log file) needs the inventory, which opens and sniffs files and
 * inflates gzip heads: that is done here, off the loop, and the answer goes back to
 * tracker_run_checked() (run_tracker.c). At most one check per run is in flight; what is asked for
 * meanwhile (r->check_want) is answered by the next one, whose listing is taken afresh. */
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/tracker_internal.h"

typedef struct source_check {
    uv_work_t req;
    run *r;
    unsigned what;               /* CHECK_* bits this check answers */
    char *path, *root, *extra;   /* copies: the worker touches nothing of the loop's */
    uint64_t listing;            /* taken on the loop before the inventory */
    bool ok;
    inventory_fingerprint sources;
} source_check;

/* Worker thread: the inventory and its fingerprint. */
static void check_work(uv_work_t *req) {
    source_check *c = req->data;
    run_inventory inv;
    diag_list d;
    diag_init(&d);
    c->ok = run_inventory_build(c->path, c->extra, c->root, &inv, &d);
    diag_free(&d);
    if (!c->ok) return;
    tracker_sources_sig_from(&inv, c->path, c->root, &c->sources);
    run_inventory_free(&inv);
}

static void check_free(source_check *c) {
    free(c->path);
    free(c->root);
    free(c->extra);
    free(c);
}

static bool check_start(run *r);

static void check_after(uv_work_t *req, int status) {
    source_check *c = req->data;
    run *r = c->r;
    tracker *t = r->t;
    t->inflight--;
    r->check_running = false;
    bool ok = status == 0 && c->ok;
    if (!r->forgotten && !t->stopping) tracker_run_checked(r, c->what, c->listing, ok, &c->sources);
    check_free(c);
    if (!r->forgotten && !t->stopping && r->check_want) check_start(r);
    tracker_run_unref(r);
    if (t->stopping && t->inflight == 0 && t->open_handles == 0 && t->done) t->done(t->done_arg);
}

/* Queues a check answering r->check_want. false when it could not be queued. */
static bool check_start(run *r) {
    tracker *t = r->t;
    source_check *c = calloc(1, sizeof *c);
    const char *extra = t->cfg ? t->cfg->npu_reference_dir : NULL;
    if (c) {
        c->r = r;
        c->req.data = c;
        c->path = strdup(r->path);
        c->root = strdup(r->root);
        c->extra = extra ? strdup(extra) : NULL;
        c->what = r->check_want;
        c->listing = run_inventory_listing_hash(r->path, extra);   /* before the inventory */
    }
    if (!c || !c->path || !c->root || (extra && !c->extra) || uv_queue_work(t->loop, &c->req, check_work, check_after) != 0) {
        log_error("run %s: cannot queue a source check", r->id);
        if (c) check_free(c);
        return false;
    }
    r->check_want = 0;
    r->check_running = true;
    r->refs++;
    t->inflight++;
    return true;
}

void source_check_queue(run *r, unsigned what) {
    if (r->t->stopping || r->forgotten) return;
    r->check_want |= what;
    if (r->check_running) return;              /* the next check answers it */
    if (!check_start(r)) {
        unsigned want = r->check_want;          /* no check: answered as "changed" (a parse too many, never one missed) */
        r->check_want = 0;
        inventory_fingerprint none = {0, 0};
        tracker_run_checked(r, want, 0, false, &none);
    }
}
