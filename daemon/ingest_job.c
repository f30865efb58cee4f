/* ingest_job: one parse of a run on the worker pool — build the run's inventory (once: its
 * fingerprint for change detection, RunMetrics' files and the sources read all come from it),
 * read and parse the files (once each: RunMetrics and the analysis document from the same
 * read, core/run_ingest), render the
 * document, store it in one ingest transaction — and its hand-back to the loop thread
 * (tracker_run_parsed in run_tracker.c). The job owns copies of what the worker needs; the worker
 * touches nothing of the loop's. The job is freed here, after tracker_run_parsed, and only here. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "core/run_headline.h"
#include "core/run_ingest.h"
#include "daemon/log.h"
#include "daemon/tracker_internal.h"

/* Worker thread: parse, render, store. Touches nothing of the loop's. */
static void parse_work(uv_work_t *req) {
    parse_job *j = req->data;
    tracker *t = j->r->t;
    if (atomic_load(&t->cancel)) { j->cancelled = true; return; }
    /* a DELETE from the queueing on covers what this parse reads: the run was `running` from
     * then, and on a busy worker pool the read may begin after the DELETE */
    int64_t read_began_ms = j->queued_ms;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (j->lim.max_seconds) j->lim.deadline_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + j->lim.max_seconds * 1000LL;
    run_options opt = {.parse.confine_root = j->root, .parse.limits = &j->lim};
    run_analysis an;
    run_analysis_options aopt;
    run_analysis_defaults(&aopt);
    aopt.parse = opt.parse;
    aopt.cfg.kernel_wait_threshold_ns = j->kernel_wait_threshold_ns;
    aopt.cfg.short_kernel_ns = j->short_kernel_ns;
    aopt.cfg.list_rows = j->list_rows;
    aopt.cfg.npu_reference_dir = j->npu_reference_dir;
    /* the run's one inventory, here on the worker: its fingerprint is every source as it is
     * before the read (a change during the read re-ingests the run), its listings give
     * RunMetrics' files, and the read goes over its sources */
    run_inventory inv;
    diag_list inv_diag;
    diag_init(&inv_diag);
    if (!run_inventory_build(j->path, j->npu_reference_dir, j->root, &inv, &inv_diag)) { diag_free(&inv_diag); return; }
    tracker_sources_sig_from(&inv, j->path, j->root, &j->sig.sources);
    j->sig.sources_known = true;
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    /* goblind.json: tokens, FLOPs, steps, precision, labels (its warnings join RunMetrics') */
    run_sidecar sc;
    diag_list sc_warn;
    diag_init(&sc_warn);
    run_sidecar_read(j->path, &sc, &sc_warn);
    if (sc.has_steps) opt.steps_given = true, opt.steps = sc.steps;
    if (sc.precision) opt.precision = sc.precision;
    /* one read of each file: RunMetrics and the analysis document (core/run_ingest) */
    if (!run_ingest_inventory(j->path, &inv, &inv_diag, &opt, &aopt, &j->res, &an)) {
        run_sidecar_free(&sc);
        diag_free(&sc_warn);
        return;
    }
    diag_append(&j->res.metrics.warnings, &sc_warn);
    diag_free(&sc_warn);
    if (atomic_load(&t->cancel)) {       /* cut short: never stored */
        j->cancelled = true;
        run_sidecar_free(&sc);
        run_analysis_free(&an);
        return;
    }
    gettimeofday(&t1, NULL);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_usec - t0.tv_usec) / 1e3;
    j->seconds = ms / 1e3;
    run_outcome o = run_result_outcome(&j->res);
    /* what the run is and its numbers from whatever it holds (core/run_headline): the verdict,
     * the profile, each headline number's source */
    run_headline h;
    bool h_ok = run_headline_apply(&j->res, &opt, &an, &sc, &h);
    run_sidecar_free(&sc);
    j->outcome = !h_ok ? RUN_FAILED : h.verdict == RUN_VERDICT_COMPLETE ? RUN_COMPLETE
               : h.verdict == RUN_VERDICT_EMPTY ? RUN_EMPTY : RUN_FAILED;
    j->ok = j->outcome == RUN_COMPLETE;
    const char *limited = h_ok ? h.limited : o.limited;   /* (RunMetrics' files, or the document's) */
    if (limited) log_warn("run %s: %s", j->id, limited);
    j->error = h_ok ? h.error : strdup("out of memory");
    h.error = NULL;                               /* the job owns it now */
    const char *error = j->error;
    j->bytes = o.bytes_parsed;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        const artefact_info *a = &j->res.info[k];
        j->sig.files.a[k] = (artefact_sig){a->present, a->size, a->inode, a->mtime_ns};
    }
    ingest_doc doc = {0};               /* the store sees a document, not the parse's structs (freed
                                         * below even when never built: the headline ran out of memory) */
    bool doc_ok = h_ok && ingest_doc_build(&j->res, &doc);
    if (doc_ok && h.kernels_from_analysis) doc.kernels = NULL;   /* the stored rows: the kernels section's own */
    if (doc_ok) ingest_doc_attach_analysis(&doc, &an);   /* document, numbers, kernel rows */
    doc.headline.waste_unknown = h.waste_unknown;
    if (doc_ok && j->outcome == RUN_FAILED) ingest_doc_forget_numbers(&doc);   /* not a measurement */
    if (atomic_load(&t->cancel)) j->cancelled = true;   /* cut short: never stored */
    ingest_record rec = {.id = j->id, .root = j->root, .path = j->path, .status = RUN_RUNNING, .now_ms = clk_wall_ms(),
                         .doc = &doc, .metrics_json = doc.metrics_json, .error = error, .parse_ms = ms,
                         .read_began_ms = read_began_ms, .profile = h.profile,
                         .headline_json = h.json.data};
    int rc = j->cancelled || !doc_ok ? -1 : store_ingest(j->r->t->st, &rec);
    j->stored = rc == 0;
    j->forgotten = rc == STORE_INGEST_FORGOTTEN;
    ingest_doc_free(&doc);
    run_headline_free(&h);
    run_analysis_free(&an);
}

static void free_job(parse_job *j) {
    run_result_free(&j->res);
    free(j->error);
    free(j->id);
    free(j->root);
    free(j->path);
    free(j->npu_reference_dir);
    free(j);
}

static void after_work(uv_work_t *req, int status) {
    parse_job *j = req->data;
    tracker *t = j->r->t;                       /* the tracker outlives the loop */
    tracker_run_parsed(j, status);
    free_job(j);
    if (t->inflight == 0) malloc_trim(0);     /* idle again: give the parse buffers back to the OS */
}

bool ingest_job_queue(run *r) {
    tracker *t = r->t;
    if (status_db_corrupt(t)) return false;
    parse_job *j = calloc(1, sizeof *j);
    if (!j) { log_error("run %s: out of memory", r->id); return false; }
    j->r = r;
    j->id = strdup(r->id);
    j->root = strdup(r->root);
    j->path = strdup(r->path);
    j->req.data = j;
    j->queued_ms = clk_wall_ms();
    /* the listing before the worker's inventory (the fingerprint's order: see run_fingerprint) */
    j->sig.listing = run_inventory_listing_hash(r->path, t->cfg->npu_reference_dir);
    j->outcome = RUN_FAILED;          /* until a parse gives its verdict (a cancelled one never does) */
    j->lim.max_bytes = (uint64_t)t->cfg->max_parse_mb << 20;
    j->lim.max_seconds = t->cfg->max_parse_s;
    j->lim.cancel = &t->cancel;
    j->kernel_wait_threshold_ns = t->cfg->kernel_wait_threshold_ns;
    j->short_kernel_ns = t->cfg->short_kernel_ns;
    j->list_rows = (size_t)t->cfg->analysis_list_rows;
    j->npu_reference_dir = t->cfg->npu_reference_dir ? strdup(t->cfg->npu_reference_dir) : NULL;
    if (uv_queue_work(t->loop, &j->req, parse_work, after_work) != 0) {
        log_error("run %s: cannot queue a parse", r->id);
        free_job(j);
        return false;
    }
    r->refs++;
    t->inflight++;
    return true;
}

