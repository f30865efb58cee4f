/* watches: inotify watches on run directories and their rocprofv3 sub-directories, and the
 * fallback to periodic scans when watches run out. */
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

/* Watches ran out: rescan every fallback_scan_ms from now on (said once). */
static void enter_fallback(tracker *t, const char *path, int rc) {
    if (t->fallback) return;
    t->fallback = true;
    log_warn("cannot watch %s (%s): inotify watches exhausted? falling back to rescanning every %d ms "
             "(raise fs.inotify.max_user_watches)", path, uv_strerror(rc), t->cfg->fallback_scan_ms);
    uv_timer_set_repeat(&t->scan, (uint64_t)t->cfg->fallback_scan_ms);
    uv_timer_again(&t->scan);
}

/* Starts the libuv fs event h on path with cb (counted in watched_dirs); false when it cannot
 * (out of inotify watches: the tracker falls back to scanning). */
static bool tracker_watch(tracker *t, uv_fs_event_t *h, const char *path, uv_fs_event_cb cb) {
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

/* stat (follows a symlink): the directory's device and inode; false if not a directory. */
static bool dir_id_of(const char *path, dir_id *id) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    id->dev = (uint64_t)st.st_dev;
    id->ino = (uint64_t)st.st_ino;
    return true;
}

static bool same_dir(const dir_id *a, const dir_id *b) { return a->dev == b->dev && a->ino == b->ino; }

void tracker_watch_run_dir(run *r) {
    tracker *t = r->t;
    if (t->fallback || uv_is_active((uv_handle_t *)&r->watch)) return;
    dir_id id;
    if (!dir_id_of(r->path, &id)) return;
    if (tracker_watch(t, &r->watch, r->path, tracker_on_run_event)) r->watch_id = id;
}

bool tracker_is_self_event(const char *watched_path, const char *name) {
    const char *base = strrchr(watched_path, '/');
    base = base ? base + 1 : watched_path;
    return name && !strcmp(name, base);
}

bool tracker_rewatch_if_replaced(run *r, bool self_event) {
    tracker *t = r->t;
    if (t->fallback || t->stopping || r->sm.gone || r->forgotten) return false;
    dir_id id;
    if (!tracker_is_real_dir(r->path) || !dir_id_of(r->path, &id)) {
        if (self_event) {                               /* deleted or moved away: the watch is dead */
            tracker_unwatch(t, &r->watch);
            for (int i = 0; i < r->n_sub; i++) tracker_unwatch(t, &r->sub[i]);
        }
        return false;
    }
    if (!self_event && uv_is_active((uv_handle_t *)&r->watch) && same_dir(&id, &r->watch_id)) return false;
    log_debug("run %s: directory replaced; watching the new one", r->id);
    tracker_unwatch(t, &r->watch);
    for (int i = 0; i < r->n_sub; i++) tracker_unwatch(t, &r->sub[i]);   /* they were in the old directory */
    tracker_watch_run_dir(r);
    tracker_watch_subdirs(r);
    tracker_run_touch(r);
    return true;
}

void tracker_rewatch_root(tracker *t, root *ro, bool exists) {
    if (t->fallback || t->stopping) return;
    dir_id id;
    if (!exists || !dir_id_of(ro->path, &id)) {       /* a dead watch must not count in the gauge */
        if (ro->watching) tracker_unwatch(t, &ro->ev);
        ro->watching = false;
        return;
    }
    if (ro->watching && same_dir(&id, &ro->watched_id)) return;
    if (ro->watching) {
        log_info("root %s was recreated; watching the new directory", ro->path);
        tracker_unwatch(t, &ro->ev);
    }
    ro->watching = tracker_watch(t, &ro->ev, ro->path, tracker_on_root_event);
    if (ro->watching) ro->watched_id = id;
}

void tracker_unwatch(tracker *t, uv_fs_event_t *h) {
    if (uv_is_active((uv_handle_t *)h)) {
        uv_fs_event_stop(h);
        t->watched--;
        atomic_fetch_sub(&t->counters->watched_dirs, 1);
    }
}

static void on_sub_event(uv_fs_event_t *h, const char *name, int events, int status) {
    (void)events; (void)status;
    run *r = h->data;
    for (int i = 0; i < r->n_sub; i++)         /* its own delete/move: dead; the settle re-watches it */
        if (&r->sub[i] == h && tracker_is_self_event(r->sub_name[i], name)) tracker_unwatch(r->t, h);
    tracker_run_touch(r);
}

/* rocprofv3 writes <host>/<pid>_kernel_trace.csv: watch sub-directories one level down. */
void tracker_watch_subdirs(run *r) {
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
                    char *p = tracker_path_join(r->path, e->d_name);
                    if (p && tracker_is_real_dir(p)) tracker_watch(t, &r->sub[i], p, on_sub_event);
                    free(p);
                }
            continue;
        }
        char *p = tracker_path_join(r->path, e->d_name);
        if (p && tracker_is_real_dir(p)) {
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
            if (!t->fallback) tracker_watch(t, &r->sub[i], p, on_sub_event);
        }
        free(p);
    }
    closedir(d);
}
