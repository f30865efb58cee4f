/* discovery: root scans, run directories found and lost, the start-up backfill. */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "base/str_hash.h"
#include "daemon/tracker_internal.h"
#include "daemon/log.h"
#include "storage/retention.h"

static void on_root_rescan(uv_timer_t *h);

/* A directory named id exists in root: start tracking it (or revive it). */
static void discovered(tracker *t, const char *root_path, const char *id, store_reader *rd) {
    run *r = tracker_lookup(t, id);
    if (r && !r->sm.gone) {
        if (strcmp(r->root, root_path) && !r->dup_warned) {
            r->dup_warned = true;
            log_warn("run id %s exists in both %s and %s; keeping %s, ignoring the other", id, r->root, root_path, r->root);
        }
        if (!strcmp(r->root, root_path)) tracker_rewatch_if_replaced(r, false);   /* deleted and created again */
        return;
    }
    if (r) {                                    /* came back (or moved to another root) */
        free(r->root);
        free(r->path);
        r->root = strdup(root_path);
        r->path = tracker_path_join(root_path, id);
        log_info("run %s: directory back in %s", id, root_path);
    } else {
        r = tracker_run_new(t, root_path, id);
        if (!r) return;
        run_status st;
        run_sig stored;
        bool has_metrics;
        bool known = rd && store_run_state(rd, id, &st, &stored, &has_metrics);
        bool forgotten = !known && rd && retention_forgotten_sig(rd, id, &stored);   /* DELETEd or evicted */
        if (forgotten) st = RUN_COMPLETE;       /* not re-ingested while its files stay as they were */
        /* never parsed (new, or stored pending by an earlier start) and empty */
        if ((!known || !has_metrics) && !forgotten && tracker_dir_empty(r->path, &r->dormant_mtime_ns)) {
            r->dormant = true;                  /* pending its first file, nothing to parse: that file wakes it */
            t->n_dormant++;
            r->sm.status = RUN_PENDING;         /* a run about to start (docs/API.md "Run states") */
            status_write(r);                    /* (again when known: its root may have moved; batched) */
            tracker_watch_run_dir(r);
            return;
        }
        if (known || forgotten) {
            tracker_sig_of(r, &r->seen_sig, &r->seen_sig);
            /* (the store keeps RunMetrics' files' identities; the other sources' fingerprint
             * lives in memory: taken as parsed when those files are unchanged, on a worker) */
            if ((st == RUN_COMPLETE || st == RUN_FAILED || st == RUN_EMPTY) && tracker_files_sig_equal(&stored, &r->seen_sig.files)) {
                run_state_restore(&r->sm, st, true);     /* unchanged since it was stored: no re-parse */
                r->parsed_sig = r->seen_sig;
                source_check_queue(r, CHECK_BASELINE);
                tracker_watch_run_dir(r);
                tracker_watch_subdirs(r);
                return;
            }
            run_state_restore(&r->sm, st, false);
        }
    }
    tracker_watch_run_dir(r);
    tracker_run_discovered(r);
}

bool tracker_take_over_from_other_root(run *r) {
    tracker *t = r->t;
    for (size_t i = 0; i < t->n_roots; i++) {
        const char *other = t->roots[i].path;
        if (!strcmp(other, r->root)) continue;
        char *p = tracker_path_join(other, r->id);
        bool there = p && tracker_is_real_dir(p);
        if (!there) { free(p); continue; }
        log_info("run %s: directory gone from %s; the copy in %s takes over", r->id, r->root, other);
        tracker_unwatch(t, &r->watch);
        for (int s = 0; s < r->n_sub; s++) tracker_unwatch(t, &r->sub[s]);
        free(r->root);
        free(r->path);
        r->root = strdup(other);
        r->path = p;
        r->dup_warned = false;
        tracker_watch_run_dir(r);
        tracker_watch_subdirs(r);
        tracker_run_discovered(r);
        return true;
    }
    return false;
}

/* Skipped names (invalid run ids, symbolic links) are logged once each, also when they
 * appear after start-up; at most SKIP_LOG_MAX per root are remembered, then one last line. */
#define SKIP_LOG_MAX 4096

static bool first_skip(root *ro, const char *name) {
    uint64_t h = str_hash(name);
    for (size_t i = 0; i < ro->n_skipped; i++)
        if (ro->skipped[i] == h) return false;
    if (ro->n_skipped == SKIP_LOG_MAX) return false;
    if (!ro->skipped) ro->skipped = calloc(SKIP_LOG_MAX, sizeof *ro->skipped);
    if (!ro->skipped) return false;
    ro->skipped[ro->n_skipped++] = h;
    if (ro->n_skipped == SKIP_LOG_MAX)
        log_warn("root %s: %d names skipped; further ones are not logged", ro->path, SKIP_LOG_MAX);
    return true;
}

/* Lists root ro and tracks every run directory in it (rd: the start-up backfill's reader, or NULL). */
static void tracker_scan_root(tracker *t, root *ro, store_reader *rd) {
    DIR *d = opendir(ro->path);
    if (!d) {
        if (!ro->unreadable_logged) log_warn("cannot read root %s: %s (checked again every %d ms)", ro->path,
                                             strerror(errno), t->cfg->fallback_scan_ms);
        ro->unreadable_logged = true;
        tracker_rewatch_root(t, ro, false);
        /* Nothing can watch a missing directory here: look again soon, not in scan_interval_s. */
        if (!t->stopping) uv_timer_start(&ro->rescan, on_root_rescan, (uint64_t)t->cfg->fallback_scan_ms, 0);
        return;
    }
    if (ro->unreadable_logged) {                /* the root appeared: watch it from now on */
        log_info("root %s is readable now", ro->path);
        ro->unreadable_logged = false;
    }
    tracker_rewatch_root(t, ro, true);                  /* also when it was deleted and created again */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = tracker_path_join(ro->path, e->d_name);
        if (!p) continue;
        struct stat st;
        bool found = lstat(p, &st) == 0;
        bool dir = found && S_ISDIR(st.st_mode), link = found && S_ISLNK(st.st_mode);
        free(p);
        if (!dir) {
            if (link && first_skip(ro, e->d_name)) log_warn("root %s: %s is a symbolic link; not followed", ro->path, e->d_name);
            continue;
        }
        if (!run_id_valid(e->d_name)) {
            if (first_skip(ro, e->d_name))
                log_warn("root %s: skipping '%s': a run id must match [A-Za-z0-9._-]{1,128}", ro->path, e->d_name);
            continue;
        }
        discovered(t, ro->path, e->d_name, rd);
    }
    closedir(d);
    FOR_EACH_RUN(t, r) {                        /* tracked here but no longer on disk */
        if (!r->sm.gone && !strcmp(r->root, ro->path) && !tracker_is_real_dir(r->path)) tracker_mark_gone(r);
    }
}

static void on_root_rescan(uv_timer_t *h) {
    root *ro = h->data;
    if (!ro->t->stopping) tracker_scan_root(ro->t, ro, NULL);
}

void tracker_on_root_event(uv_fs_event_t *h, const char *name, int events, int status) {
    (void)events; (void)status;
    root *ro = h->data;
    if (tracker_is_self_event(ro->path, name)) tracker_rewatch_root(ro->t, ro, false);   /* dead now; the rescan re-arms it */
    uv_timer_start(&ro->rescan, on_root_rescan, 100, 0);
}

/* The periodic scan timer: every root scanned again. */
static void tracker_on_scan(uv_timer_t *h) {
    tracker *t = h->data;
    if (t->stopping) return;
    for (size_t i = 0; i < t->n_roots; i++) tracker_scan_root(t, &t->roots[i], NULL);
    FOR_EACH_RUN(t, r) {
        if (r->dormant) {                       /* an empty directory: one lstat while its mtime stays */
            struct stat st;
            if (lstat(r->path, &st) == 0 && S_ISDIR(st.st_mode) &&
                (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec == r->dormant_mtime_ns)
                continue;
            tracker_dormant_changed(r);
            continue;
        }
        if (r->sm.gone || r->sm.parsing) continue;
        run_fingerprint cur;
        tracker_sig_of(r, &cur, &r->seen_sig);
        sig_cmp cmp = tracker_sig_compare(&cur, &r->seen_sig);
        if (cmp == SIG_UNKNOWN) source_check_queue(r, CHECK_SCAN);   /* tracker_run_checked touches it or not */
        else if (cmp == SIG_CHANGED) {
            r->seen_sig = cur;
            tracker_run_touch(r);
        }
    }
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
    if (!status_lane_start(t)) log_error("cannot start the status writer thread; statuses will not be stored");
    uv_timer_init(t->loop, &t->scan);
    uv_timer_init(t->loop, &t->retry);
    t->scan.data = t->retry.data = t;
    t->open_handles += 2;
    tracker_deleted_queue_open(t);
    uint64_t every = t->cfg->scan_only ? (uint64_t)t->cfg->fallback_scan_ms : (uint64_t)t->cfg->scan_interval_s * 1000;
    uv_timer_start(&t->scan, tracker_on_scan, every, every);
    if (t->cfg->scan_only) {
        t->fallback = true;
        log_info("watch_mode = scan: rescanning every %d ms, no file events", t->cfg->fallback_scan_ms);
    }
    status_db_corrupt(t);                              /* quick_check at open: say so first */
    store_reader *rd = store_reader_acquire(t->st);
    for (size_t i = 0; i < t->cfg->n_roots; i++) {
        root *ro = &t->roots[t->n_roots++];
        ro->t = t;
        ro->path = strdup(t->cfg->roots[i]);
        uv_fs_event_init(t->loop, &ro->ev);
        uv_timer_init(t->loop, &ro->rescan);
        ro->ev.data = ro->rescan.data = ro;
        t->open_handles += 2;
        struct stat lst;
        if (lstat(ro->path, &lst) == 0 && S_ISLNK(lst.st_mode)) {   /* followed: watches see the target */
            char *real = realpath(ro->path, NULL);
            log_info("root %s is a symbolic link to %s; following it", ro->path, real ? real : "(missing)");
            free(real);
        }
        if (!t->fallback) tracker_rewatch_root(t, ro, true);
        tracker_scan_root(t, ro, rd);
    }
    /* Runs stored earlier whose directories are no longer under any root. */
    gone_scan g = {.t = t};
    char next[256] = "", cursor[256] = "";
    do {
        snprintf(cursor, sizeof cursor, "%s", next);
        if (store_list_runs(rd, -1, 1000, cursor[0] ? cursor : NULL, false, collect_id, &g, next, sizeof next) < 0) break;
    } while (next[0]);
    store_reader_release(t->st, rd);
    char err[256];
    for (size_t i = 0; i < g.n; i++) {
        if (!tracker_lookup(t, g.ids[i]) && !status_db_corrupt(t) && store_set_status(t->st, g.ids[i], "", "", RUN_GONE, clk_wall_ms()) != 0)
            log_error("run %s: cannot mark gone: %s", g.ids[i], store_last_error(t->st, err, sizeof err));
        free(g.ids[i]);
    }
    free(g.ids);
    t->ready = true;
    log_info("start-up scan done: %zu runs under %zu roots, %zu directories watched%s", t->nruns, t->n_roots,
             t->watched, t->fallback ? " (falling back to periodic scans)" : "");
    if (t->n_dormant)
        log_info("%zu run directories are empty: pending, not parsed until a file appears in them", t->n_dormant);
    return 0;
}
