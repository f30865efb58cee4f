/* run_table: the tracker's run hash table, artefact signatures and path helpers. */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include "base/str_hash.h"

#include "core/run_headline.h"
#include "daemon/tracker_internal.h"
#include "daemon/log.h"

char *tracker_path_join(const char *a, const char *b) {
    char *s = NULL;
    return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

bool tracker_is_real_dir(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool tracker_dir_empty(const char *path, int64_t *mtime_ns) {
    struct stat st;
    *mtime_ns = 0;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    DIR *d = opendir(path);
    if (!d) return false;
    bool empty = true;
    for (struct dirent *e; empty && (e = readdir(d)) != NULL;)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

void tracker_sources_sig_from(const run_inventory *inv, const char *path, const char *root, inventory_fingerprint *out) {
    run_inventory_fingerprint_of(inv, root, out);
    /* the sidecar (goblind.json) is no source but changes the numbers: its identity too */
    char *sc = tracker_path_join(path, RUN_SIDECAR_NAME);
    struct stat st;
    if (sc && lstat(sc, &st) == 0) {
        uint64_t v[3] = {(uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec,
                         (uint64_t)st.st_ino};
        for (int i = 0; i < 3; i++) out->hash = (out->hash ^ v[i]) * 0x100000001b3ull;
    }
    free(sc);
}

/* What changes a run: RunMetrics' files and every source of its analysis document. Here only
 * what stat() tells: the inventory (which opens files to sniff them) is a worker's, and it is
 * needed only after the listing (names, sizes, mtimes, inodes) moved since ref's. */
void tracker_sig_of(const run *r, run_fingerprint *sig, const run_fingerprint *ref) {
    memset(sig, 0, sizeof *sig);
    const char *extra = r->t->cfg ? r->t->cfg->npu_reference_dir : NULL;
    sig->listing = run_inventory_listing_hash(r->path, extra);
    if (sig->listing && sig->listing == ref->listing && ref->sources_known) {
        sig->sources = ref->sources;
        sig->sources_known = true;
    }
    run_files f;
    if (!run_files_find(r->path, &f)) return;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        artefact_sig *a = &sig->files.a[k];
        a->present = artefact_identity(f.path[k], r->root, &a->size, &a->mtime_ns, &a->inode);
    }
    run_files_free(&f);
}

sig_cmp tracker_sig_compare(const run_fingerprint *now, const run_fingerprint *ref) {
    if (!tracker_files_sig_equal(&now->files, &ref->files)) return SIG_CHANGED;
    if (now->listing && now->listing == ref->listing) return SIG_SAME;
    if (!now->sources_known || !ref->sources_known) return SIG_UNKNOWN;
    return now->sources.sources == ref->sources.sources && now->sources.hash == ref->sources.hash ? SIG_SAME
                                                                                                 : SIG_CHANGED;
}

bool tracker_files_sig_equal(const run_sig *a, const run_sig *b) {
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        const artefact_sig *x = &a->a[k], *y = &b->a[k];
        if (x->present != y->present) return false;
        if (x->present && (x->size != y->size || x->inode != y->inode || x->mtime_ns != y->mtime_ns)) return false;
    }
    return true;
}

run *tracker_lookup(tracker *t, const char *id) {
    if (!t->nbuckets) return NULL;
    for (run *r = t->buckets[str_hash(id) & (t->nbuckets - 1)]; r; r = r->next)
        if (!strcmp(r->id, id)) return r;
    return NULL;
}

/* Adds r to the hash table (growing it). */
static void tracker_insert(tracker *t, run *r) {
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

void tracker_unlink_run(tracker *t, run *r) {
    run **pp = &t->buckets[str_hash(r->id) & (t->nbuckets - 1)];
    while (*pp && *pp != r) pp = &(*pp)->next;
    if (*pp) { *pp = r->next; t->nruns--; }
}

void tracker_free_run(run *r) {
    for (int i = 0; i < r->n_sub; i++) free(r->sub_name[i]);
    free(r->sub);
    free(r->sub_name);
    free(r->id);
    free(r->root);
    free(r->path);
    free(r->fail_reason);
    free(r);
}

/* Drops one reference; a forgotten run is freed with its last one. */
void tracker_run_unref(run *r) {
    if (--r->refs == 0 && r->forgotten) tracker_free_run(r);
}

/* Handles' data point at their run or root; the tracker is the loop's data. */
static tracker *handle_tracker(uv_handle_t *h) { return h->loop->data; }

void tracker_handle_closed(uv_handle_t *h) {
    tracker *t = handle_tracker(h);
    if (--t->open_handles == 0 && t->inflight == 0 && t->done) t->done(t->done_arg);
}

run *tracker_run_new(tracker *t, const char *root_path, const char *id) {
    run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->t = t;
    r->id = strdup(id);
    r->root = strdup(root_path);
    r->path = tracker_path_join(root_path, id);
    run_state_init(&r->sm);                        /* not stored yet: the first set_status writes */
    uv_fs_event_init(t->loop, &r->watch);
    uv_timer_init(t->loop, &r->settle);
    uv_timer_init(t->loop, &r->quiet);
    r->watch.data = r->settle.data = r->quiet.data = r;
    t->open_handles += 3;
    r->refs += 3;
    tracker_insert(t, r);
    return r;
}

