/* run_tracker: carries out the per-run state machine's actions (run_state.c decides; this file
 * runs the timers, queues the parses on the worker pool, writes statuses and logs outcomes) and
 * the tracker's lifecycle; see run_tracker.h and tracker_internal.h for the other files. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/tracker_internal.h"
#include "daemon/log.h"
#include "daemon/run_log.h"

/* Close callback of a run's own handles: drops the handle's reference. */
static void tracker_run_handle_closed(uv_handle_t *h) {
    run *r = h->data;
    tracker_handle_closed(h);
    tracker_run_unref(r);
}

/* A gone run whose status is stored needs nothing more: its handles close, it leaves the
 * table, and memory stays flat however many runs come and go. It comes back through
 * discovered() (and the database) if its directory reappears. */
void tracker_forget(run *r) {
    tracker *t = r->t;
    if (r->forgotten || t->stopping) return;
    r->forgotten = true;
    tracker_unlink_run(t, r);
    uv_close((uv_handle_t *)&r->watch, tracker_run_handle_closed);
    uv_close((uv_handle_t *)&r->settle, tracker_run_handle_closed);
    uv_close((uv_handle_t *)&r->quiet, tracker_run_handle_closed);
    for (int i = 0; i < r->n_sub; i++) uv_close((uv_handle_t *)&r->sub[i], tracker_run_handle_closed);
}

static void on_settle(uv_timer_t *h);
static void on_quiet(uv_timer_t *h);
static void start_parse(run *r);

/* The state machine's settings, read at each use (SIGHUP may change them). */
static run_state_cfg sm_cfg(const tracker *t) {
    return (run_state_cfg){.settle_ms = t->cfg->settle_ms, .settle_max_ms = t->cfg->settle_max_ms,
                           .quiet_ms = t->cfg->quiet_ms >= 0 ? t->cfg->quiet_ms : (int64_t)t->cfg->quiet_s * 1000};
}

/* Carries out what the state machine (run_state.c) decided for r. */
static void apply(run *r, run_actions a) {
    if (a.set_status) status_write(r);          /* the API is told once it is stored */
    if (a.stop_quiet) uv_timer_stop(&r->quiet);
    if (a.stop_settle) uv_timer_stop(&r->settle);
    if (a.settle_in_ms >= 0) uv_timer_start(&r->settle, on_settle, (uint64_t)a.settle_in_ms, 0);
    if (a.quiet_in_ms >= 0) uv_timer_start(&r->quiet, on_quiet, (uint64_t)a.quiet_in_ms, 0);
    if (a.log_outcome) {
        bool gone = r->sm.status == RUN_GONE;
        run_log_outcome(r->id, r->sm.status, gone ? -1 : r->parse_ms, gone ? NULL : r->fail_reason);
    }
    if (a.start_parse) start_parse(r);
}

void tracker_dormant_changed(run *r) {
    tracker *t = r->t;
    assert(r->dormant);
    if (t->stopping) return;
    int64_t mtime;
    bool empty = tracker_dir_empty(r->path, &mtime);
    if (empty) { r->dormant_mtime_ns = mtime; return; }
    r->dormant = false;
    t->n_dormant--;
    if (!tracker_is_real_dir(r->path)) { tracker_mark_gone(r); return; }
    log_debug("run %s: files appeared in the empty directory", r->id);
    tracker_watch_subdirs(r);
    tracker_run_discovered(r);
}

void tracker_mark_gone(run *r) {
    if (r->dormant) { tracker_dormant_changed(r); return; }
    if (r->sm.gone || tracker_take_over_from_other_root(r)) return;
    tracker_unwatch(r->t, &r->watch);
    for (int i = 0; i < r->n_sub; i++) tracker_unwatch(r->t, &r->sub[i]);
    apply(r, run_state_gone(&r->sm));
}

void tracker_on_run_event(uv_fs_event_t *h, const char *name, int events, int status) {
    (void)events;
    run *r = h->data;
    if (status < 0) log_debug("run %s: watch error %s", r->id, uv_strerror(status));
    if (!tracker_rewatch_if_replaced(r, tracker_is_self_event(r->path, name))) tracker_run_touch(r);
}

void tracker_run_touch(run *r) {
    tracker *t = r->t;
    if (r->dormant) { tracker_dormant_changed(r); return; }
    if (t->stopping || r->sm.gone) return;
    run_state_cfg c = sm_cfg(t);
    apply(r, run_state_touch(&r->sm, &c, clk_wall_ms()));
}

void tracker_run_discovered(run *r) {
    tracker *t = r->t;
    if (t->stopping) return;
    run_state_cfg c = sm_cfg(t);
    apply(r, run_state_discovered(&r->sm, &c, clk_wall_ms()));
}

/* The newest mtime (ms) of a parse's artefacts: the quiet period counts from it too. */
static int64_t newest_mtime_ms(const run_fingerprint *fp) {
    const run_sig *sig = &fp->files;
    int64_t newest = 0;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++)
        if (sig->a[k].present && sig->a[k].mtime_ns / 1000000 > newest) newest = sig->a[k].mtime_ns / 1000000;
    return newest;
}

static void on_settle(uv_timer_t *h) {
    run *r = h->data;
    if (r->t->stopping || r->sm.gone) return;
    if (!tracker_is_real_dir(r->path)) { tracker_mark_gone(r); return; }
    tracker_watch_subdirs(r);
    bool as_parsed = false;
    if (!r->sm.parsing) {
        run_fingerprint cur;
        tracker_sig_of(r, &cur, &r->parsed_sig);
        sig_cmp cmp = tracker_sig_compare(&cur, &r->parsed_sig);
        if (cmp == SIG_UNKNOWN) { source_check_queue(r, CHECK_SETTLE); return; }   /* tracker_run_checked goes on */
        r->seen_sig = cur;
        as_parsed = cmp == SIG_SAME;
    }
    run_state_cfg c = sm_cfg(r->t);
    apply(r, run_state_settled(&r->sm, &c, clk_wall_ms(), as_parsed));
}

static void on_quiet(uv_timer_t *h) {
    run *r = h->data;
    if (r->t->stopping || r->sm.gone || r->sm.parsing) return;
    if (!tracker_is_real_dir(r->path)) { tracker_mark_gone(r); return; }
    run_fingerprint cur;
    tracker_sig_of(r, &cur, &r->parsed_sig);
    sig_cmp cmp = tracker_sig_compare(&cur, &r->parsed_sig);
    if (cmp == SIG_UNKNOWN) { source_check_queue(r, CHECK_QUIET); return; }        /* tracker_run_checked goes on */
    run_state_cfg c = sm_cfg(r->t);
    apply(r, run_state_quiet(&r->sm, &c, clk_wall_ms(), cmp == SIG_SAME));
}

/* The fingerprint now: stat's part taken here, the sources the check's (taken after `listing`). */
static void checked_sig(run *r, uint64_t listing, bool ok, const inventory_fingerprint *sources, run_fingerprint *cur) {
    tracker_sig_of(r, cur, &r->parsed_sig);
    cur->listing = listing;
    cur->sources = *sources;
    cur->sources_known = ok;
}

/* The answer to a source check (source_check.c): what on_settle, on_quiet, the scan or a
 * baseline asked for, decided as they would have with the sources fingerprint at hand. A
 * comparison that still cannot tell (no fingerprint to compare with) counts as a change. */
void tracker_run_checked(run *r, unsigned what, uint64_t listing, bool ok, const inventory_fingerprint *sources) {
    tracker *t = r->t;
    if (t->stopping) return;
    run_fingerprint cur;
    checked_sig(r, listing, ok, sources, &cur);
    if (what & CHECK_BASELINE && ok) {           /* these sources are the parsed (or seen) ones */
        if (r->parsed_sig.listing == listing && !r->parsed_sig.sources_known) {
            r->parsed_sig.sources = *sources;
            r->parsed_sig.sources_known = true;
        }
        if (r->seen_sig.listing == listing && !r->seen_sig.sources_known) {
            r->seen_sig.sources = *sources;
            r->seen_sig.sources_known = true;
        }
    }
    if (r->sm.gone || r->dormant) return;
    if (!tracker_is_real_dir(r->path)) { tracker_mark_gone(r); return; }
    run_state_cfg c = sm_cfg(t);
    if (what & CHECK_SETTLE) {
        bool as_parsed = false;
        if (!r->sm.parsing) {
            as_parsed = tracker_sig_compare(&cur, &r->parsed_sig) == SIG_SAME;
            r->seen_sig = cur;
        }
        apply(r, run_state_settled(&r->sm, &c, clk_wall_ms(), as_parsed));
    }
    if (what & CHECK_QUIET && !r->sm.parsing)
        apply(r, run_state_quiet(&r->sm, &c, clk_wall_ms(), tracker_sig_compare(&cur, &r->parsed_sig) == SIG_SAME));
    if (what & CHECK_SCAN && !r->sm.parsing) {
        bool changed = tracker_sig_compare(&cur, &r->seen_sig) != SIG_SAME;
        r->seen_sig = cur;
        if (changed) tracker_run_touch(r);
    }
}

static void start_parse(run *r) {
    if (!ingest_job_queue(r)) run_state_parse_not_started(&r->sm);
}

/* The parse of r ended (ingest_job.c, loop thread): counters, the state machine, and what it
 * asks for next. j stays valid; its owner frees it afterwards. */
void tracker_run_parsed(parse_job *j, int status) {
    run *r = j->r;
    tracker *t = r->t;
    t->inflight--;
    r->refs--;
    bool stored = !j->cancelled && status == 0 && j->stored;
    bool dropped = !j->cancelled && status == 0 && j->forgotten;   /* deleted meanwhile: as if stored */
    run_state_cfg c = sm_cfg(t);
    run_actions next = run_state_parsed_as(&r->sm, &c, clk_wall_ms(), stored || dropped,
                                           stored || dropped ? j->outcome : RUN_FAILED, (int64_t)(j->seconds * 1000),
                                           newest_mtime_ms(&j->sig));
    if (j->cancelled) {
        /* shutting down: nothing was stored and nothing is retried */
    } else if (dropped) {
        r->parsed_sig = j->sig;                 /* these files are forgotten: only a change parses again */
        log_info("run %s: deleted while it was being parsed; the parse is dropped", r->id);
    } else if (stored) {
        atomic_fetch_add(&t->counters->ingests[j->ok ? INGEST_OK : INGEST_INCOMPLETE], 1);
        atomic_fetch_add(&t->counters->parsed_bytes, j->bytes);
        counters_histogram_observe(&t->counters->parse_seconds, j->seconds);
        r->parsed_sig = j->sig;
        r->parse_ms = j->seconds * 1e3;
        free(r->fail_reason);                   /* j->error is freed with the job */
        r->fail_reason = j->error ? strdup(j->error) : NULL;
        log_debug("run %s: parsed (%s)", r->id, store_run_status_name(j->outcome));
    } else {
        atomic_fetch_add(&t->counters->ingests[INGEST_ERROR], 1);
        char err[256];
        if (!status_db_corrupt(t))
            log_error("run %s: ingest not stored (%s); will retry", r->id,
                      status ? uv_strerror(status) : store_last_error(t->st, err, sizeof err));
    }
    bool forgotten = r->forgotten;              /* deleted while parsing: nothing left to do */
    if (forgotten && r->refs == 0) tracker_free_run(r);
    if (t->stopping) {
        if (t->inflight == 0 && t->open_handles == 0 && t->done) t->done(t->done_arg);
        return;
    }
    if (forgotten) return;
    t->changed(t->user, r->id);
    /* The ingest stored "running"; if the run moved on meanwhile (deleted, touched), store
     * its real status again so the database does not keep the older one. */
    if (r->sm.status != RUN_RUNNING) status_write(r);
    if (r->sm.gone) return;
    if (status_db_corrupt(t)) return;                  /* no retry loop on a corrupt database */
    apply(r, next);                             /* parse again, retry, or wait for quiet */
}

/* DELETE /runs/<id> reached the loop: the run's files as they are now are forgotten. */
static void run_deleted(tracker *t, const char *id) {
    run *r = tracker_lookup(t, id);
    if (!r || t->stopping) return;
    bool was_parsing = r->sm.parsing;
    run_actions a = run_state_deleted(&r->sm);
    if (!was_parsing && !r->sm.gone) {
        tracker_sig_of(r, &r->seen_sig, &r->parsed_sig);
        r->parsed_sig = r->seen_sig;
        if (!r->parsed_sig.sources_known) source_check_queue(r, CHECK_BASELINE);   /* its sources: a worker's */
    }
    apply(r, a);
    log_debug("run %s: deleted%s", id, was_parsing ? " while being parsed" : "");
}

static void on_deleted_wake(uv_async_t *h) {
    tracker *t = h->data;
    pthread_mutex_lock(&t->deleted_lock);
    char **ids = t->deleted_ids;
    size_t n = t->n_deleted;
    t->deleted_ids = NULL;
    t->n_deleted = 0;
    pthread_mutex_unlock(&t->deleted_lock);
    for (size_t i = 0; i < n; i++) {
        run_deleted(t, ids[i]);
        free(ids[i]);
    }
    free(ids);
}

void tracker_run_deleted(tracker *t, const char *run_id) {
    if (!t) return;
    pthread_mutex_lock(&t->deleted_lock);
    char **grown = t->deleted_open ? realloc(t->deleted_ids, (t->n_deleted + 1) * sizeof *grown) : NULL;
    char *copy = grown ? strdup(run_id) : NULL;
    if (grown) t->deleted_ids = grown;
    if (copy) t->deleted_ids[t->n_deleted++] = copy;
    if (copy) uv_async_send(&t->deleted_wake);
    pthread_mutex_unlock(&t->deleted_lock);
}

void tracker_deleted_queue_open(tracker *t) {
    if (uv_async_init(t->loop, &t->deleted_wake, on_deleted_wake) != 0) return;
    t->deleted_wake.data = t;
    t->open_handles++;
    pthread_mutex_lock(&t->deleted_lock);
    t->deleted_open = true;
    pthread_mutex_unlock(&t->deleted_lock);
}

tracker *tracker_new(uv_loop_t *loop, store *st, const goblind_config *cfg, goblind_counters *counters,
                     tracker_changed_fn fn, void *user) {
    tracker *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->counters = counters;
    t->loop = loop;
    loop->data = t;
    t->st = st;
    t->cfg = cfg;
    t->changed = fn;
    t->user = user;
    pthread_mutex_init(&t->deleted_lock, NULL);
    return t;
}

void tracker_config_changed(tracker *t) {
    if (t->stopping || !uv_is_active((uv_handle_t *)&t->scan)) return;
    uv_timer_set_repeat(&t->scan, t->fallback ? (uint64_t)t->cfg->fallback_scan_ms : (uint64_t)t->cfg->scan_interval_s * 1000);
    uv_timer_again(&t->scan);
}

static void close_handle(tracker *t, uv_handle_t *h) {
    (void)t;
    if (!uv_is_closing(h)) uv_close(h, tracker_handle_closed);
}

void tracker_stop(tracker *t, void (*done)(void *), void *arg) {
    t->stopping = true;
    atomic_store(&t->cancel, true);             /* parses in flight stop within a chunk (1 MiB) */
    t->done = done;
    t->done_arg = arg;
    if (t->open_handles == 0 && t->inflight == 0) { done(arg); return; }
    status_lane_stop(t);
    pthread_mutex_lock(&t->deleted_lock);
    bool deletes = t->deleted_open;
    t->deleted_open = false;
    pthread_mutex_unlock(&t->deleted_lock);
    if (deletes) close_handle(t, (uv_handle_t *)&t->deleted_wake);
    close_handle(t, (uv_handle_t *)&t->scan);
    close_handle(t, (uv_handle_t *)&t->retry);
    for (size_t i = 0; i < t->n_roots; i++) {
        close_handle(t, (uv_handle_t *)&t->roots[i].ev);
        close_handle(t, (uv_handle_t *)&t->roots[i].rescan);
    }
    FOR_EACH_RUN(t, r) {
        uv_handle_t *hs[3] = {(uv_handle_t *)&r->watch, (uv_handle_t *)&r->settle, (uv_handle_t *)&r->quiet};
        for (int i = 0; i < 3; i++) if (!uv_is_closing(hs[i])) uv_close(hs[i], tracker_run_handle_closed);
        for (int i = 0; i < r->n_sub; i++)
            if (!uv_is_closing((uv_handle_t *)&r->sub[i])) uv_close((uv_handle_t *)&r->sub[i], tracker_run_handle_closed);
    }
}

void tracker_free(tracker *t) {
    if (!t) return;
    status_lane_free(t);
    for (size_t b = 0; b < t->nbuckets; b++)
        for (run *r = t->buckets[b], *nx; r; r = nx) {
            nx = r->next;
            tracker_free_run(r);
        }
    for (size_t i = 0; i < t->n_roots; i++) {
        free(t->roots[i].path);
        free(t->roots[i].skipped);
    }
    free(t->buckets);
    for (size_t i = 0; i < t->n_deleted; i++) free(t->deleted_ids[i]);
    free(t->deleted_ids);
    pthread_mutex_destroy(&t->deleted_lock);
    free(t);
}
