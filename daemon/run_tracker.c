/* run_tracker: discovery, watching, settling and parsing of run directories. */
#include "daemon/run_tracker.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "base/str_hash.h"
#include "core/run_parse.h"
#include "daemon/log.h"

#define MAX_SUBWATCH 8

typedef struct run run;

typedef struct root {
    char *path;
    uv_fs_event_t ev;
    uv_timer_t rescan;           /* debounces bursts of root events into one scan */
    bool watching, unreadable_logged;
    tracker *t;
} root;

struct run {
    char *id, *root, *path;
    run_status status;
    tracker *t;
    uv_fs_event_t watch;
    bool watching;
    uv_fs_event_t *sub;          /* rocprofv3 sub-directories, allocated when one appears */
    char **sub_name;
    int n_sub;
    uv_timer_t settle, quiet;
    bool parsing, reparse, have_parse, parsed_ok, gone, dup_warned;
    bool status_dirty;           /* the stored status is behind r->status */
    bool status_writing, status_failed;
    bool forgotten;              /* gone and stored: out of the table, freed when refs drop to 0 */
    int refs;                    /* open handles + jobs in flight that point at this run */
    run_sig parsed_sig, seen_sig;
    int64_t last_change_ms;
    run *next;                   /* hash chain */
};

struct tracker {
    uv_loop_t *loop;
    store *st;
    const goblind_config *cfg;
    tracker_changed_fn changed;
    void *user;
    run **buckets;
    size_t nbuckets, nruns;
    root roots[MAX_ROOTS];
    size_t n_roots;
    uv_timer_t scan, retry;
    bool fallback, ready, stopping;
    goblind_counters *counters;
    size_t watched;
    int inflight, open_handles;
    void (*done)(void *);
    void *done_arg;
};

typedef struct parse_job {
    uv_work_t req;
    run *r;
    char *id, *root, *path;
    run_result res;
    bool ok, stored;
    run_sig sig;
    uint64_t bytes;
    double seconds;
} parse_job;

static void run_touch(run *r);
static void start_parse(run *r);
static void on_root_event(uv_fs_event_t *h, const char *name, int events, int status);
static void forget(run *r);
static void on_settle(uv_timer_t *h);

/* ---- helpers ---------------------------------------------------------------- */

static int64_t now_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static char *join(const char *a, const char *b) {
    char *s = NULL;
    return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

static bool is_real_dir(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void sig_of(const run *r, run_sig *sig) {
    memset(sig, 0, sizeof *sig);
    run_files f;
    if (!run_files_find(r->path, &f)) return;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        artefact_sig *a = &sig->a[k];
        a->present = artefact_identity(f.path[k], r->root, &a->size, &a->mtime_ns, &a->inode);
    }
    run_files_free(&f);
}

static bool sig_equal(const run_sig *a, const run_sig *b) {
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        const artefact_sig *x = &a->a[k], *y = &b->a[k];
        if (x->present != y->present) return false;
        if (x->present && (x->size != y->size || x->inode != y->inode || x->mtime_ns != y->mtime_ns)) return false;
    }
    return true;
}

static run *lookup(tracker *t, const char *id) {
    if (!t->nbuckets) return NULL;
    for (run *r = t->buckets[str_hash(id) & (t->nbuckets - 1)]; r; r = r->next)
        if (!strcmp(r->id, id)) return r;
    return NULL;
}

static void insert(tracker *t, run *r) {
    if (t->nruns >= t->nbuckets) {
        size_t nb = t->nbuckets ? t->nbuckets * 2 : 256;
        run **b = calloc(nb, sizeof *b);
        if (!b) return;
        for (size_t i = 0; i < t->nbuckets; i++)
            for (run *x = t->buckets[i], *nx; x; x = nx) {
                nx = x->next;
                size_t j = str_hash(x->id) & (nb - 1);
                x->next = b[j];
                b[j] = x;
            }
        free(t->buckets);
        t->buckets = b;
        t->nbuckets = nb;
    }
    size_t j = str_hash(r->id) & (t->nbuckets - 1);
    r->next = t->buckets[j];
    t->buckets[j] = r;
    t->nruns++;
}

static void unlink_run(tracker *t, run *r) {
    run **pp = &t->buckets[str_hash(r->id) & (t->nbuckets - 1)];
    while (*pp && *pp != r) pp = &(*pp)->next;
    if (*pp) { *pp = r->next; t->nruns--; }
}

static void free_run(run *r) {
    for (int i = 0; i < r->n_sub; i++) free(r->sub_name[i]);
    free(r->sub);
    free(r->sub_name);
    free(r->id);
    free(r->root);
    free(r->path);
    free(r);
}

/* Drops one reference; a forgotten run is freed with its last one. */
static void run_unref(run *r) {
    if (--r->refs == 0 && r->forgotten) free_run(r);
}

#define FOR_EACH_RUN(t, r) \
    for (size_t b_ = 0; b_ < (t)->nbuckets; b_++) for (run *r = (t)->buckets[b_]; r; r = r->next)

/* Handles' data point at their run or root; the tracker is the loop's data. */
static tracker *handle_tracker(uv_handle_t *h);

static void handle_closed(uv_handle_t *h) {
    tracker *t = handle_tracker(h);
    if (--t->open_handles == 0 && t->inflight == 0 && t->done) t->done(t->done_arg);
}

static void on_retry(uv_timer_t *h);

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

static void write_status(run *r);

static void status_done(uv_work_t *req, int status) {
    status_job *j = req->data;
    run *r = j->r;
    tracker *t = r->t;
    t->inflight--;
    r->status_writing = false;
    r->refs--;                                  /* the job's; the run is freed below at the latest */
    bool ok = status == 0 && j->ok;
    if (ok && r->status_failed) log_info("run %s: status %s stored after a retry", r->id, run_status_name(j->status));
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
    if (!ok) { if (!uv_is_active((uv_handle_t *)&t->retry)) uv_timer_start(&t->retry, on_retry, 2000, 0); }
    else if (r->status_dirty) write_status(r);             /* changed again meanwhile */
    else if (r->gone && !r->parsing) forget(r);
}

static void write_status(run *r) {
    tracker *t = r->t;
    if (r->status_writing || t->stopping) { r->status_dirty = true; return; }
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

static void run_handle_closed(uv_handle_t *h) {
    run *r = h->data;
    handle_closed(h);
    run_unref(r);
}

/* A gone run whose status is stored needs nothing more: its handles close, it leaves the
 * table, and memory stays flat however many runs come and go. It comes back through
 * discovered() (and the database) if its directory reappears. */
static void forget(run *r) {
    tracker *t = r->t;
    if (r->forgotten || t->stopping) return;
    r->forgotten = true;
    unlink_run(t, r);
    uv_close((uv_handle_t *)&r->watch, run_handle_closed);
    uv_close((uv_handle_t *)&r->settle, run_handle_closed);
    uv_close((uv_handle_t *)&r->quiet, run_handle_closed);
    for (int i = 0; i < r->n_sub; i++) uv_close((uv_handle_t *)&r->sub[i], run_handle_closed);
}

static void set_status(run *r, run_status st) {
    if (r->status == st) return;
    r->status = st;
    write_status(r);                            /* the API is told once it is stored */
}

/* ---- watching ---------------------------------------------------------------- */

static void enter_fallback(tracker *t, const char *path, int rc) {
    if (t->fallback) return;
    t->fallback = true;
    log_warn("cannot watch %s (%s): inotify watches exhausted? falling back to rescanning every %d ms "
             "(raise fs.inotify.max_user_watches)", path, uv_strerror(rc), t->cfg->fallback_scan_ms);
    uv_timer_set_repeat(&t->scan, (uint64_t)t->cfg->fallback_scan_ms);
    uv_timer_again(&t->scan);
}

static bool watch(tracker *t, uv_fs_event_t *h, const char *path, uv_fs_event_cb cb) {
    int rc = uv_fs_event_start(h, cb, path, 0);
    if (rc == 0) {
        t->watched++;
        atomic_fetch_add(&t->counters->watched_dirs, 1);
        return true;
    }
    if (rc == UV_ENOSPC || rc == UV_EMFILE || rc == UV_ENFILE || rc == UV_ENOMEM) enter_fallback(t, path, rc);
    else log_warn("cannot watch %s: %s", path, uv_strerror(rc));
    return false;
}

static void unwatch(tracker *t, uv_fs_event_t *h) {
    if (uv_is_active((uv_handle_t *)h)) {
        uv_fs_event_stop(h);
        t->watched--;
        atomic_fetch_sub(&t->counters->watched_dirs, 1);
    }
}

static void on_sub_event(uv_fs_event_t *h, const char *name, int events, int status) {
    (void)name; (void)events; (void)status;
    run_touch(h->data);
}

/* rocprofv3 writes <host>/<pid>_kernel_trace.csv: watch sub-directories one level down. */
static void watch_subdirs(run *r) {
    tracker *t = r->t;
    DIR *d = opendir(r->path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && r->n_sub < MAX_SUBWATCH) {
        if (e->d_name[0] == '.') continue;
        bool known = false;
        for (int i = 0; i < r->n_sub; i++) known |= !strcmp(r->sub_name[i], e->d_name);
        if (known) {
            for (int i = 0; i < r->n_sub; i++)
                if (!strcmp(r->sub_name[i], e->d_name) && !uv_is_active((uv_handle_t *)&r->sub[i])) {
                    char *p = join(r->path, e->d_name);
                    if (p && is_real_dir(p)) watch(t, &r->sub[i], p, on_sub_event);
                    free(p);
                }
            continue;
        }
        char *p = join(r->path, e->d_name);
        if (p && is_real_dir(p)) {
            if (!r->sub) {
                r->sub = calloc(MAX_SUBWATCH, sizeof *r->sub);
                r->sub_name = calloc(MAX_SUBWATCH, sizeof *r->sub_name);
                if (!r->sub || !r->sub_name) { free(r->sub); free(r->sub_name); r->sub = NULL; r->sub_name = NULL; free(p); break; }
            }
            int i = r->n_sub++;
            r->sub_name[i] = strdup(e->d_name);
            uv_fs_event_init(t->loop, &r->sub[i]);
            r->sub[i].data = r;
            t->open_handles++;
            r->refs++;
            if (!t->fallback) watch(t, &r->sub[i], p, on_sub_event);
        }
        free(p);
    }
    closedir(d);
}

static void mark_gone(run *r) {
    if (r->gone) return;
    r->gone = true;
    unwatch(r->t, &r->watch);
    for (int i = 0; i < r->n_sub; i++) unwatch(r->t, &r->sub[i]);
    uv_timer_stop(&r->settle);
    uv_timer_stop(&r->quiet);
    log_info("run %s: directory gone; stored metrics kept", r->id);
    set_status(r, RUN_GONE);
}

/* ---- the state machine -------------------------------------------------------- */

static void on_run_event(uv_fs_event_t *h, const char *name, int events, int status) {
    (void)name; (void)events;
    run *r = h->data;
    if (status < 0) log_debug("run %s: watch error %s", r->id, uv_strerror(status));
    run_touch(r);
}

static void run_touch(run *r) {
    tracker *t = r->t;
    if (t->stopping || r->gone) return;
    r->last_change_ms = now_ms();
    if (r->status == RUN_COMPLETE || r->status == RUN_FAILED) set_status(r, RUN_PENDING);
    uv_timer_stop(&r->quiet);
    uv_timer_start(&r->settle, on_settle, (uint64_t)t->cfg->settle_ms, 0);   /* debounce */
}

static void on_quiet(uv_timer_t *h);

static void arm_quiet(run *r) {
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

static void on_settle(uv_timer_t *h) {
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
    start_parse(r);
}

static void on_quiet(uv_timer_t *h) {
    run *r = h->data;
    if (r->t->stopping || r->gone || r->parsing) return;
    if (!is_real_dir(r->path)) { mark_gone(r); return; }
    run_sig cur;
    sig_of(r, &cur);
    if (!sig_equal(&cur, &r->parsed_sig)) { run_touch(r); return; }
    set_status(r, r->parsed_ok ? RUN_COMPLETE : RUN_FAILED);
}

/* Worker thread: parse, render, store. Touches nothing of the loop's. */
static void parse_work(uv_work_t *req) {
    parse_job *j = req->data;
    run_options opt = {.parse.confine_root = j->root};
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    if (!run_parse(j->path, &opt, &j->res)) return;
    gettimeofday(&t1, NULL);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_usec - t0.tv_usec) / 1e3;
    j->seconds = ms / 1e3;
    const artefact_info *ki = &j->res.info[ARTEFACT_KERNEL_TRACE];
    bool kernels_ok = ki->present && ki->bytes_parsed > 0 && j->res.kernels.complete;
    bool torch_ok = j->res.torch.complete;
    j->ok = kernels_ok && torch_ok;
    const char *error = j->ok ? NULL
        : !ki->present ? "kernel trace not found"
        : !kernels_ok ? "kernel trace empty or truncated"
        : !j->res.info[ARTEFACT_TORCH_PROFILE].present ? "torch profile not found"
        : "torch profile not parseable (yet)";
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        const artefact_info *a = &j->res.info[k];
        j->sig.a[k] = (artefact_sig){a->present, a->size, a->inode, a->mtime_ns};
        j->bytes += a->bytes_parsed;
    }
    ingest_doc doc;                     /* the store sees a document, not the parse's structs */
    bool doc_ok = ingest_doc_build(&j->res, &doc);
    ingest_record rec = {.id = j->id, .root = j->root, .path = j->path, .status = RUN_RUNNING, .now_ms = now_ms(),
                         .doc = &doc, .metrics_json = doc.metrics_json, .error = error, .parse_ms = ms};
    j->stored = doc_ok && store_ingest(j->r->t->st, &rec) == 0;
    ingest_doc_free(&doc);
}

static void free_job(parse_job *j) {
    run_result_free(&j->res);
    free(j->id);
    free(j->root);
    free(j->path);
    free(j);
}

static void parse_done(uv_work_t *req, int status) {
    parse_job *j = req->data;
    run *r = j->r;
    tracker *t = r->t;
    t->inflight--;
    r->parsing = false;
    r->refs--;
    if (status == 0 && j->stored) {
        atomic_fetch_add(&t->counters->ingests[j->ok ? INGEST_OK : INGEST_INCOMPLETE], 1);
        atomic_fetch_add(&t->counters->parsed_bytes, j->bytes);
        histogram_observe(&t->counters->parse_seconds, j->seconds);
        r->have_parse = true;
        r->parsed_ok = j->ok;
        r->parsed_sig = j->sig;
        log_debug("run %s: parsed (%s)", r->id, j->ok ? "kernel trace and torch profile ok" : "incomplete");
    } else {
        atomic_fetch_add(&t->counters->ingests[INGEST_ERROR], 1);
        r->have_parse = false;
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
    if (r->reparse || !r->have_parse) {
        r->reparse = false;
        uv_timer_start(&r->settle, on_settle,
                       r->have_parse ? (uint64_t)t->cfg->settle_ms : 5000, 0);   /* a store error: retry later */
        return;
    }
    arm_quiet(r);
}

static void start_parse(run *r) {
    tracker *t = r->t;
    parse_job *j = calloc(1, sizeof *j);
    if (!j) { log_error("run %s: out of memory", r->id); return; }
    j->r = r;
    j->id = strdup(r->id);
    j->root = strdup(r->root);
    j->path = strdup(r->path);
    j->req.data = j;
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

/* ---- discovery ------------------------------------------------------------------ */

static run *run_new(tracker *t, const char *root_path, const char *id) {
    run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->t = t;
    r->id = strdup(id);
    r->root = strdup(root_path);
    r->path = join(root_path, id);
    r->status = RUN_STATUS_COUNT;               /* not stored yet: the first set_status writes */
    uv_fs_event_init(t->loop, &r->watch);
    uv_timer_init(t->loop, &r->settle);
    uv_timer_init(t->loop, &r->quiet);
    r->watch.data = r->settle.data = r->quiet.data = r;
    t->open_handles += 3;
    r->refs += 3;
    insert(t, r);
    return r;
}

/* A directory named id exists in root: start tracking it (or revive it). */
static void discovered(tracker *t, const char *root_path, const char *id, store_reader *rd) {
    run *r = lookup(t, id);
    if (r && !r->gone) {
        if (strcmp(r->root, root_path) && !r->dup_warned) {
            r->dup_warned = true;
            log_warn("run id %s exists in both %s and %s; keeping %s, ignoring the other", id, r->root, root_path, r->root);
        }
        return;
    }
    if (r) {                                    /* came back (or moved to another root) */
        free(r->root);
        free(r->path);
        r->root = strdup(root_path);
        r->path = join(root_path, id);
        r->gone = false;
        r->have_parse = false;
        log_info("run %s: directory back in %s", id, root_path);
    } else {
        r = run_new(t, root_path, id);
        if (!r) return;
        run_status st;
        run_sig stored;
        bool has_metrics;
        if (rd && store_run_state(rd, id, &st, &stored, &has_metrics)) {
            sig_of(r, &r->seen_sig);
            if ((st == RUN_COMPLETE || st == RUN_FAILED) && sig_equal(&stored, &r->seen_sig)) {
                r->status = st;                 /* unchanged since it was stored: no re-parse */
                r->have_parse = true;
                r->parsed_ok = st == RUN_COMPLETE;
                r->parsed_sig = stored;
                if (!t->fallback) watch(t, &r->watch, r->path, on_run_event);
                watch_subdirs(r);
                return;
            }
            r->status = st;
        }
    }
    if (!t->fallback) watch(t, &r->watch, r->path, on_run_event);
    set_status(r, RUN_PENDING);
    run_touch(r);
}

static void scan_root(tracker *t, root *ro, bool initial, store_reader *rd) {
    DIR *d = opendir(ro->path);
    if (!d) {
        if (!ro->unreadable_logged) log_warn("cannot read root %s: %s (rescanned every %d s)", ro->path, strerror(errno),
                                             t->cfg->scan_interval_s);
        ro->unreadable_logged = true;
        return;
    }
    if (ro->unreadable_logged) {                /* the root appeared: watch it from now on */
        log_info("root %s is readable now", ro->path);
        ro->unreadable_logged = false;
        if (!t->fallback && !ro->watching) ro->watching = watch(t, &ro->ev, ro->path, on_root_event);
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = join(ro->path, e->d_name);
        if (!p) continue;
        struct stat st;
        bool dir = lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
        bool link = lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
        free(p);
        if (!dir) {
            if (link && initial) log_warn("root %s: %s is a symbolic link; not followed", ro->path, e->d_name);
            continue;
        }
        if (!run_id_valid(e->d_name)) {
            if (initial) log_warn("root %s: skipping '%s': a run id must match [A-Za-z0-9._-]{1,128}", ro->path, e->d_name);
            continue;
        }
        discovered(t, ro->path, e->d_name, rd);
    }
    closedir(d);
    FOR_EACH_RUN(t, r) {                        /* tracked here but no longer on disk */
        if (!r->gone && !strcmp(r->root, ro->path) && !is_real_dir(r->path)) mark_gone(r);
    }
}

static void on_root_rescan(uv_timer_t *h) {
    root *ro = h->data;
    if (!ro->t->stopping) scan_root(ro->t, ro, false, NULL);
}

static void on_root_event(uv_fs_event_t *h, const char *name, int events, int status) {
    (void)name; (void)events; (void)status;
    root *ro = h->data;
    uv_timer_start(&ro->rescan, on_root_rescan, 100, 0);
}

static void on_scan(uv_timer_t *h) {
    tracker *t = h->data;
    if (t->stopping) return;
    for (size_t i = 0; i < t->n_roots; i++) scan_root(t, &t->roots[i], false, NULL);
    FOR_EACH_RUN(t, r) {
        if (r->gone || r->parsing) continue;
        run_sig cur;
        sig_of(r, &cur);
        if (!sig_equal(&cur, &r->seen_sig)) {
            r->seen_sig = cur;
            run_touch(r);
        }
    }
}

static void on_retry(uv_timer_t *h) {
    tracker *t = h->data;
    if (t->stopping) return;
    FOR_EACH_RUN(t, r) {
        if (r->status_dirty && !r->status_writing) write_status(r);
    }
}

/* ---- lifecycle ------------------------------------------------------------------ */

static tracker *handle_tracker(uv_handle_t *h) { return h->loop->data; }

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

typedef struct gone_scan {
    tracker *t;
    char **ids;
    size_t n, cap;
} gone_scan;

static void collect_id(void *user, const run_row *row) {
    gone_scan *g = user;
    if (row->status == RUN_GONE) return;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 64;
        g->ids = realloc(g->ids, g->cap * sizeof *g->ids);
    }
    g->ids[g->n++] = strdup(row->id);
}

int tracker_start(tracker *t) {
    uv_timer_init(t->loop, &t->scan);
    uv_timer_init(t->loop, &t->retry);
    t->scan.data = t->retry.data = t;
    t->open_handles += 2;
    uint64_t every = t->cfg->scan_only ? (uint64_t)t->cfg->fallback_scan_ms : (uint64_t)t->cfg->scan_interval_s * 1000;
    uv_timer_start(&t->scan, on_scan, every, every);
    if (t->cfg->scan_only) {
        t->fallback = true;
        log_info("watch_mode = scan: rescanning every %d ms, no file events", t->cfg->fallback_scan_ms);
    }
    store_reader *rd = store_reader_acquire(t->st);
    for (size_t i = 0; i < t->cfg->n_roots; i++) {
        root *ro = &t->roots[t->n_roots++];
        ro->t = t;
        ro->path = strdup(t->cfg->roots[i]);
        uv_fs_event_init(t->loop, &ro->ev);
        uv_timer_init(t->loop, &ro->rescan);
        ro->ev.data = ro->rescan.data = ro;
        t->open_handles += 2;
        if (is_real_dir(ro->path) && !t->fallback) ro->watching = watch(t, &ro->ev, ro->path, on_root_event);
        scan_root(t, ro, true, rd);
    }
    /* Runs stored earlier whose directories are no longer under any root. */
    gone_scan g = {.t = t};
    char next[256] = "", cursor[256] = "";
    do {
        snprintf(cursor, sizeof cursor, "%s", next);
        if (store_list_runs(rd, -1, 1000, cursor[0] ? cursor : NULL, false, collect_id, &g, next, sizeof next) < 0) break;
    } while (next[0]);
    store_reader_release(t->st, rd);
    for (size_t i = 0; i < g.n; i++) {
        if (!lookup(t, g.ids[i]) && store_set_status(t->st, g.ids[i], "", "", RUN_GONE, now_ms()) != 0)
            log_error("run %s: cannot mark gone: %s", g.ids[i], store_last_error(t->st));
        free(g.ids[i]);
    }
    free(g.ids);
    t->ready = true;
    log_info("start-up scan done: %zu runs under %zu roots, %zu directories watched%s", t->nruns, t->n_roots,
             t->watched, t->fallback ? " (falling back to periodic scans)" : "");
    return 0;
}

bool tracker_ready(const tracker *t) { return t->ready; }

static void close_handle(tracker *t, uv_handle_t *h) {
    (void)t;
    if (!uv_is_closing(h)) uv_close(h, handle_closed);
}

void tracker_stop(tracker *t, void (*done)(void *), void *arg) {
    t->stopping = true;
    t->done = done;
    t->done_arg = arg;
    if (t->open_handles == 0 && t->inflight == 0) { done(arg); return; }
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
    for (size_t b = 0; b < t->nbuckets; b++)
        for (run *r = t->buckets[b], *nx; r; r = nx) {
            nx = r->next;
            free_run(r);
        }
    for (size_t i = 0; i < t->n_roots; i++) free(t->roots[i].path);
    free(t->buckets);
    free(t);
}
