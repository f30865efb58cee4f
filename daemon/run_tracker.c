/* run_tracker: the per-run state machine (settle → parse → quiet → complete) and the
 * tracker's lifecycle; see run_tracker.h and tracker_internal.h for the other files. */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include "core/metrics_json.h"
#include "core/run_analysis.h"
#include "core/run_parse.h"

#include "daemon/tracker_internal.h"
#include "daemon/log.h"
#include "daemon/run_log.h"

void run_handle_closed(uv_handle_t *h) {
    run *r = h->data;
    handle_closed(h);
    run_unref(r);
}

/* A gone run whose status is stored needs nothing more: its handles close, it leaves the
 * table, and memory stays flat however many runs come and go. It comes back through
 * discovered() (and the database) if its directory reappears. */
void forget(run *r) {
    tracker *t = r->t;
    if (r->forgotten || t->stopping) return;
    r->forgotten = true;
    unlink_run(t, r);
    uv_close((uv_handle_t *)&r->watch, run_handle_closed);
    uv_close((uv_handle_t *)&r->settle, run_handle_closed);
    uv_close((uv_handle_t *)&r->quiet, run_handle_closed);
    for (int i = 0; i < r->n_sub; i++) uv_close((uv_handle_t *)&r->sub[i], run_handle_closed);
}

void set_status(run *r, run_status st) {
    if (r->status == st) return;
    r->status = st;
    write_status(r);                            /* the API is told once it is stored */
}

void mark_gone(run *r) {
    if (r->gone || take_over_from_other_root(r)) return;
    r->gone = true;
    unwatch(r->t, &r->watch);
    for (int i = 0; i < r->n_sub; i++) unwatch(r->t, &r->sub[i]);
    uv_timer_stop(&r->settle);
    uv_timer_stop(&r->quiet);
    set_status(r, RUN_GONE);
    run_log_outcome(r->id, RUN_GONE, -1, NULL);
}

void on_run_event(uv_fs_event_t *h, const char *name, int events, int status) {
    (void)events;
    run *r = h->data;
    if (status < 0) log_debug("run %s: watch error %s", r->id, uv_strerror(status));
    if (!rewatch_if_replaced(r, is_self_event(r->path, name))) run_touch(r);
}

void run_touch(run *r) {
    tracker *t = r->t;
    if (t->stopping || r->gone) return;
    int64_t now = now_ms();
    r->last_change_ms = now;
    if (r->status == RUN_COMPLETE || r->status == RUN_FAILED) set_status(r, RUN_PENDING);
    uv_timer_stop(&r->quiet);
    /* Debounce, but never for longer than settle_max_ms after the first unparsed change: a
     * file appended to every 100 ms would otherwise restart the timer forever. */
    if (!r->settle_since_ms) r->settle_since_ms = now;
    int64_t delay = t->cfg->settle_ms, left = r->settle_since_ms + t->cfg->settle_max_ms - now;
    if (left < delay) delay = left > 0 ? left : 0;
    uv_timer_start(&r->settle, on_settle, (uint64_t)delay, 0);
}

/* Re-parses of a run that keeps changing start at least REPARSE_PACE times the last parse's
 * duration apart (at least settle_ms, at most 60 s): a changing run keeps at most ~1/10 of
 * one worker, instead of re-parsing a 50 MB run for every telemetry line appended. */
#define REPARSE_PACE 10
#define REPARSE_GAP_MAX_MS 60000

static int64_t reparse_wait_ms(const run *r, int64_t now) {
    if (!r->parse_started_ms) return 0;
    int64_t gap = r->last_parse_ms * REPARSE_PACE;
    if (gap < r->t->cfg->settle_ms) gap = r->t->cfg->settle_ms;
    if (gap > REPARSE_GAP_MAX_MS) gap = REPARSE_GAP_MAX_MS;
    int64_t wait = r->parse_started_ms + gap - now;
    return wait > 0 ? wait : 0;
}

void arm_quiet(run *r) {
    int64_t newest = r->last_change_ms;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++)
        if (r->parsed_sig.a[k].present && r->parsed_sig.a[k].mtime_ns / 1000000 > newest)
            newest = r->parsed_sig.a[k].mtime_ns / 1000000;
    int64_t quiet = (int64_t)r->t->cfg->quiet_s * 1000;
    int64_t delay = newest + quiet - now_ms();
    if (delay < 0) delay = 0;
    if (delay > quiet) delay = quiet;            /* mtimes from the future (clock skew) */
    uv_timer_start(&r->quiet, on_quiet, (uint64_t)delay, 0);
}

void on_settle(uv_timer_t *h) {
    run *r = h->data;
    if (r->t->stopping || r->gone) return;
    if (!is_real_dir(r->path)) { mark_gone(r); return; }
    watch_subdirs(r);
    if (r->parsing) { r->reparse = true; return; }
    sig_of(r, &r->seen_sig);
    if (r->have_parse && sig_equal(&r->seen_sig, &r->parsed_sig)) {
        if (r->status == RUN_PENDING) set_status(r, RUN_RUNNING);
        arm_quiet(r);                           /* only other files changed */
        return;
    }
    int64_t wait = reparse_wait_ms(r, now_ms());
    if (wait > 0) { uv_timer_start(&r->settle, on_settle, (uint64_t)wait, 0); return; }
    start_parse(r);
}

void on_quiet(uv_timer_t *h) {
    run *r = h->data;
    if (r->t->stopping || r->gone || r->parsing) return;
    if (!is_real_dir(r->path)) { mark_gone(r); return; }
    run_sig cur;
    sig_of(r, &cur);
    if (!sig_equal(&cur, &r->parsed_sig)) { run_touch(r); return; }
    run_status before = r->status;
    set_status(r, r->parsed_ok ? RUN_COMPLETE : RUN_FAILED);
    if (r->status != before) run_log_outcome(r->id, r->status, r->parse_ms, r->fail_reason);
}

/* Worker thread: parse, render, store. Touches nothing of the loop's. */
static void parse_work(uv_work_t *req) {
    parse_job *j = req->data;
    tracker *t = j->r->t;
    if (atomic_load(&t->cancel)) { j->cancelled = true; return; }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (j->lim.max_seconds) j->lim.deadline_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + j->lim.max_seconds * 1000LL;
    run_options opt = {.parse.confine_root = j->root, .parse.limits = &j->lim};
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    if (!run_parse(j->path, &opt, &j->res)) return;
    if (atomic_load(&t->cancel)) { j->cancelled = true; return; }   /* cut short: never stored */
    gettimeofday(&t1, NULL);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_usec - t0.tv_usec) / 1e3;
    j->seconds = ms / 1e3;
    const artefact_info *ki = &j->res.info[ARTEFACT_KERNEL_TRACE];
    bool kernels_ok = ki->present && ki->bytes_parsed > 0 && j->res.kernels.complete;
    bool torch_ok = j->res.torch.complete;
    j->ok = kernels_ok && torch_ok;
    const char *limited = NULL;                 /* an artefact stopped by max_parse_mb / max_parse_s */
    for (int k = 0; k < ARTEFACT_KIND_COUNT && !limited; k++)
        if (j->res.info[k].error && strstr(j->res.info[k].error, "bounds a parse")) limited = j->res.info[k].error;
    if (limited) log_warn("run %s: %s", j->id, limited);
    const char *error = j->ok ? NULL
        : limited ? limited
        : !ki->present ? "kernel trace not found"
        : !kernels_ok ? "kernel trace empty or truncated"
        : !j->res.info[ARTEFACT_TORCH_PROFILE].present ? "torch profile not found"
        : "torch profile not parseable (yet)";
    j->error = error;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        const artefact_info *a = &j->res.info[k];
        j->sig.a[k] = (artefact_sig){a->present, a->size, a->inode, a->mtime_ns};
        j->bytes += a->bytes_parsed;
    }
    ingest_doc doc;                     /* the store sees a document, not the parse's structs */
    bool doc_ok = ingest_doc_build(&j->res, &doc);
    /* the analysis document: a second read of the run's files (core/run_analysis) */
    run_analysis an;
    run_analysis_options aopt;
    run_analysis_defaults(&aopt);
    aopt.parse = opt.parse;
    aopt.cfg.kernel_wait_threshold_ns = j->kernel_wait_threshold_ns;
    aopt.cfg.short_kernel_ns = j->short_kernel_ns;
    aopt.cfg.npu_reference_dir = j->npu_reference_dir;
    bool an_ok = !atomic_load(&t->cancel) && run_analyze(j->path, &aopt, &an);
    if (doc_ok && an_ok) { doc.analysis_json = an.json.data; doc.report_md = an.report_md.data; }
    if (atomic_load(&t->cancel)) j->cancelled = true;   /* cut short: never stored */
    ingest_record rec = {.id = j->id, .root = j->root, .path = j->path, .status = RUN_RUNNING, .now_ms = now_ms(),
                         .doc = &doc, .metrics_json = doc.metrics_json, .error = error, .parse_ms = ms};
    j->stored = !j->cancelled && doc_ok && store_ingest(j->r->t->st, &rec) == 0;
    ingest_doc_free(&doc);
    if (an_ok) run_analysis_free(&an);
}

static void free_job(parse_job *j) {
    run_result_free(&j->res);
    free(j->id);
    free(j->root);
    free(j->path);
    free(j->npu_reference_dir);
    free(j);
}

static void parse_done(uv_work_t *req, int status) {
    parse_job *j = req->data;
    run *r = j->r;
    tracker *t = r->t;
    t->inflight--;
    r->parsing = false;
    r->refs--;
    if (j->cancelled) {
        /* shutting down: nothing was stored and nothing is retried */
    } else if (status == 0 && j->stored) {
        atomic_fetch_add(&t->counters->ingests[j->ok ? INGEST_OK : INGEST_INCOMPLETE], 1);
        atomic_fetch_add(&t->counters->parsed_bytes, j->bytes);
        histogram_observe(&t->counters->parse_seconds, j->seconds);
        r->have_parse = true;
        r->parsed_ok = j->ok;
        r->parsed_sig = j->sig;
        r->last_parse_ms = (int64_t)(j->seconds * 1000);
        r->parse_ms = j->seconds * 1e3;
        free(r->fail_reason);                   /* j->error may point into j->res, freed below */
        r->fail_reason = j->error ? strdup(j->error) : NULL;
        log_debug("run %s: parsed (%s)", r->id, j->ok ? "kernel trace and torch profile ok" : "incomplete");
    } else {
        atomic_fetch_add(&t->counters->ingests[INGEST_ERROR], 1);
        r->have_parse = false;
        if (!db_corrupt(t))
            log_error("run %s: ingest not stored (%s); will retry", r->id,
                      status ? uv_strerror(status) : store_last_error(t->st));
    }
    free_job(j);
    if (t->inflight == 0) malloc_trim(0);     /* idle again: give the parse buffers back to the OS */
    bool forgotten = r->forgotten;              /* deleted while parsing: nothing left to do */
    if (forgotten && r->refs == 0) free_run(r);
    if (t->stopping) {
        if (t->inflight == 0 && t->open_handles == 0 && t->done) t->done(t->done_arg);
        return;
    }
    if (forgotten) return;
    t->changed(t->user, r->id);
    /* The ingest stored "running"; if the run moved on meanwhile (deleted, touched), store
     * its real status again so the database does not keep the older one. */
    if (r->status != RUN_RUNNING) write_status(r);
    if (r->gone) return;
    if (db_corrupt(t)) return;                  /* no retry loop on a corrupt database */
    if (r->reparse || !r->have_parse) {
        r->reparse = false;
        uv_timer_start(&r->settle, on_settle,
                       r->have_parse ? (uint64_t)t->cfg->settle_ms : 5000, 0);   /* a store error: retry later */
        return;
    }
    arm_quiet(r);
}

void start_parse(run *r) {
    tracker *t = r->t;
    if (db_corrupt(t)) return;
    parse_job *j = calloc(1, sizeof *j);
    if (!j) { log_error("run %s: out of memory", r->id); return; }
    j->r = r;
    j->id = strdup(r->id);
    j->root = strdup(r->root);
    j->path = strdup(r->path);
    j->req.data = j;
    j->lim.max_bytes = (uint64_t)t->cfg->max_parse_mb << 20;
    j->lim.max_seconds = t->cfg->max_parse_s;
    j->lim.cancel = &t->cancel;
    j->kernel_wait_threshold_ns = t->cfg->kernel_wait_threshold_ns;
    j->short_kernel_ns = t->cfg->short_kernel_ns;
    j->npu_reference_dir = t->cfg->npu_reference_dir ? strdup(t->cfg->npu_reference_dir) : NULL;
    r->settle_since_ms = 0;                     /* what changed before now is in this parse */
    r->parse_started_ms = now_ms();
    set_status(r, RUN_RUNNING);
    if (uv_queue_work(t->loop, &j->req, parse_work, parse_done) != 0) {
        log_error("run %s: cannot queue a parse", r->id);
        free_job(j);
        return;
    }
    r->parsing = true;
    r->refs++;
    t->inflight++;
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
    return t;
}

bool tracker_ready(const tracker *t) { return t->ready; }

void tracker_config_changed(tracker *t) {
    if (t->stopping || !uv_is_active((uv_handle_t *)&t->scan)) return;
    uv_timer_set_repeat(&t->scan, t->fallback ? (uint64_t)t->cfg->fallback_scan_ms : (uint64_t)t->cfg->scan_interval_s * 1000);
    uv_timer_again(&t->scan);
}

static void close_handle(tracker *t, uv_handle_t *h) {
    (void)t;
    if (!uv_is_closing(h)) uv_close(h, handle_closed);
}

void tracker_stop(tracker *t, void (*done)(void *), void *arg) {
    t->stopping = true;
    atomic_store(&t->cancel, true);             /* parses in flight stop within a chunk (1 MiB) */
    t->done = done;
    t->done_arg = arg;
    if (t->open_handles == 0 && t->inflight == 0) { done(arg); return; }
    status_lane_stop(t);
    close_handle(t, (uv_handle_t *)&t->scan);
    close_handle(t, (uv_handle_t *)&t->retry);
    for (size_t i = 0; i < t->n_roots; i++) {
        close_handle(t, (uv_handle_t *)&t->roots[i].ev);
        close_handle(t, (uv_handle_t *)&t->roots[i].rescan);
    }
    FOR_EACH_RUN(t, r) {
        uv_handle_t *hs[3] = {(uv_handle_t *)&r->watch, (uv_handle_t *)&r->settle, (uv_handle_t *)&r->quiet};
        for (int i = 0; i < 3; i++) if (!uv_is_closing(hs[i])) uv_close(hs[i], run_handle_closed);
        for (int i = 0; i < r->n_sub; i++)
            if (!uv_is_closing((uv_handle_t *)&r->sub[i])) uv_close((uv_handle_t *)&r->sub[i], run_handle_closed);
    }
}

void tracker_free(tracker *t) {
    if (!t) return;
    status_lane_free(t);
    for (size_t b = 0; b < t->nbuckets; b++)
        for (run *r = t->buckets[b], *nx; r; r = nx) {
            nx = r->next;
            free_run(r);
        }
    for (size_t i = 0; i < t->n_roots; i++) {
        free(t->roots[i].path);
        free(t->roots[i].skipped);
    }
    free(t->buckets);
    free(t);
}
