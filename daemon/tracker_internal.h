/* tracker_internal: the run tracker's private types, shared by its files only.
 *
 *   run_state.c      the per-run state machine (settle, parse pacing, quiet): pure, unit-tested
 *   run_tracker.c    carries out its actions (timers, parses, status writes) and the lifecycle
 *   ingest_job.c     one parse on the worker pool: parse, render, store; handed back to tracker_run_parsed
 *   source_check.c   the inventory's fingerprint on the worker pool when a run's listing moved
 *   run_table.c      the run hash table, artefact signatures, small path helpers
 *   status_writer.c  status writes on a thread of their own (base/work_queue), retries, the
 *                    corrupt-database stop
 *   watches.c        inotify watches (libuv fs events), fallback to scanning
 *   discovery.c      root scans, discovery of run directories, the start-up backfill
 *
 * Everything here runs on the loop thread except parse_work (ingest_job.c), check_work
 * (source_check.c) and the status writer's lane_write (status_writer.c). */
#ifndef GOBLIN_TRACKER_INTERNAL_H
#define GOBLIN_TRACKER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "base/clock.h"
#include "core/run_files.h"
#include "core/run_inventory.h"
#include "core/run_parse.h"
#include "daemon/run_state.h"
#include "daemon/run_tracker.h"

#define MAX_SUBWATCH 8

/* What a run's change detection compares: the identities of RunMetrics' three files
 * (storage's run_sig, stored with the run) and a fingerprint of every source of the run's
 * inventory (core/run_inventory: a second rank's trace, a rocprofv3 copy trace...), kept in
 * memory only: a change to any source re-ingests the run. The loop thread takes only what
 * stat() tells (the files and the listing hash); the sources fingerprint needs the inventory,
 * which opens files to sniff them, and is taken on a worker (the ingest's own inventory, or a
 * source check, source_check.c) with the listing hash taken before it. */
typedef struct run_fingerprint {
    run_sig files;
    inventory_fingerprint sources;
    bool sources_known;          /* sources was taken, with `listing` taken before it */
    uint64_t listing;            /* run_inventory_listing_hash (0: not taken) */
} run_fingerprint;

/* How a fingerprint taken now compares with an earlier one. */
typedef enum sig_cmp {
    SIG_SAME,                    /* nothing a parse reads changed */
    SIG_CHANGED,
    SIG_UNKNOWN,                 /* the listing moved: only the sources fingerprint can tell */
} sig_cmp;

/* What a source check (source_check.c) was asked for; bits of run.check_want. */
enum {
    CHECK_SETTLE = 1,            /* the settle timer fired: settled as parsed or not */
    CHECK_QUIET = 2,             /* the quiet timer fired */
    CHECK_SCAN = 4,              /* the periodic scan: touched or not */
    CHECK_BASELINE = 8,          /* the sources as they are now are the parsed ones (start-up, DELETE) */
};

typedef struct run run;
typedef struct status_lane status_lane;

/* Which directory a watch is on: a path deleted and created again is another directory,
 * and its old inotify watch is dead. */
typedef struct dir_id {
    uint64_t dev, ino;
} dir_id;

typedef struct root {
    char *path;
    dir_id watched_id;
    uint64_t *skipped;           /* hashes of names already logged as skipped */
    size_t n_skipped;
    uv_fs_event_t ev;
    uv_timer_t rescan;           /* debounces bursts of root events into one scan */
    bool watching, unreadable_logged;
    tracker *t;
} root;

struct run {
    char *id, *root, *path;
    tracker *t;
    uv_fs_event_t watch;
    dir_id watch_id;             /* the directory r->watch is on */
    uv_fs_event_t *sub;          /* rocprofv3 sub-directories, allocated when one appears */
    char **sub_name;
    int n_sub;
    uv_timer_t settle, quiet;
    run_state sm;                /* status, parsing, the settle/parse/quiet timing (run_state.h) */
    bool dup_warned;
    bool status_dirty;           /* the stored status is behind r->status */
    bool status_writing, status_failed;
    bool forgotten;              /* gone and stored: out of the table, freed when refs drop to 0 */
    bool dormant;                /* a new directory with nothing in it: stored and listed as pending, watched,
                                    but not parsed until something appears in it (tracker_dormant_changed) */
    int64_t dormant_mtime_ns;    /* its mtime when last found empty: a scan skips it while unchanged */
    int refs;                    /* open handles + jobs in flight that point at this run */
    run_fingerprint parsed_sig, seen_sig;
    unsigned check_want;         /* CHECK_* bits asked for and not yet in a source check */
    bool check_running;          /* a source check is on the worker pool */
    double parse_ms;             /* of the last stored parse (logged with the outcome) */
    char *fail_reason;           /* owned copy: why the last parse is not complete (NULL: it is) */
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
    bool corrupt_logged;         /* the database is corrupt: said once, writes stopped */
    _Atomic bool cancel;         /* shutdown: parses in flight stop at their next chunk */
    status_lane *lane;           /* status writes' own thread (status_writer.c) */
    goblind_counters *counters;
    size_t watched;
    size_t n_dormant;            /* runs that are dormant (empty directories) */
    int inflight, open_handles;
    void (*done)(void *);
    void *done_arg;
    uv_async_t deleted_wake;     /* DELETE /runs/<id> on the HTTP thread: ids queued below */
    pthread_mutex_t deleted_lock;
    char **deleted_ids;          /* under deleted_lock */
    size_t n_deleted;
    bool deleted_open;           /* under deleted_lock: deleted_wake is initialised and not closing */
};

typedef struct parse_job {
    uv_work_t req;
    run *r;
    char *id, *root, *path;
    run_result res;
    bool ok, stored;
    bool forgotten;              /* not stored: the run was deleted after this parse was queued */
    int64_t queued_ms;           /* wall clock when queued: a DELETE from then on drops this parse */
    bool cancelled;              /* stopped by shutdown: nothing stored, nothing to report */
    parse_limits lim;            /* copied from the configuration when queued */
    int64_t kernel_wait_threshold_ns, short_kernel_ns;   /* the analysis document's settings, copied too */
    size_t list_rows;
    char *npu_reference_dir;     /* NULL: <run>/reference */
    run_fingerprint sig;         /* of the files as this parse read them */
    uint64_t bytes;
    double seconds;
    run_status outcome;          /* the verdict: RUN_COMPLETE, RUN_FAILED or RUN_EMPTY (core/run_headline) */
    char *error;                 /* why it failed (owned), NULL when it did not */
} parse_job;

#define FOR_EACH_RUN(t, r) \
    for (size_t b_ = 0; b_ < (t)->nbuckets; b_++) for (run *r = (t)->buckets[b_]; r; r = r->next)

/* run_table.c */
char *tracker_path_join(const char *a, const char *b); /* "a/b", malloc'd */
bool tracker_is_real_dir(const char *path);         /* a directory, not a symlink to one */
/* path is a directory with no entries at all; *mtime_ns gets its mtime (lstat) either way. */
bool tracker_dir_empty(const char *path, int64_t *mtime_ns);
/* The files' (size, mtime, inode) and the listing hash now (stat only: the loop thread's);
 * the sources fingerprint is ref's when the listing is ref's, else not known. */
void tracker_sig_of(const run *r, run_fingerprint *sig, const run_fingerprint *ref);
sig_cmp tracker_sig_compare(const run_fingerprint *now, const run_fingerprint *ref);
bool tracker_files_sig_equal(const run_sig *a, const run_sig *b); /* RunMetrics' three files only (as stored) */
/* The sources fingerprint of run directory path from its inventory built by the caller (a
 * worker: the inventory opens files), with the sidecar's identity. */
void tracker_sources_sig_from(const run_inventory *inv, const char *path, const char *root, inventory_fingerprint *out);
run *tracker_lookup(tracker *t, const char *id);
void tracker_unlink_run(tracker *t, run *r);
void tracker_free_run(run *r);
void tracker_run_unref(run *r);                     /* a forgotten run is freed with its last ref */
void tracker_handle_closed(uv_handle_t *h);         /* close callback of every tracker handle */
run *tracker_run_new(tracker *t, const char *root_path, const char *id);

/* status_writer.c */
bool status_db_corrupt(tracker *t);                 /* store_corruption(), logged once */
void status_write(run *r);                          /* store r->status (worker pool, in order) */
bool status_lane_start(tracker *t);                 /* at tracker_start; false: no thread */
void status_lane_stop(tracker *t);                  /* closes its handle once no write is in flight */
void status_lane_free(tracker *t);                  /* joins the thread (after the loop ended) */

/* watches.c */
void tracker_unwatch(tracker *t, uv_fs_event_t *h);
void tracker_watch_subdirs(run *r);
void tracker_watch_run_dir(run *r);                 /* watch r->path, remembering which directory */
/* r->path is now another directory than the watched one (deleted and created again, or
 * replaced by a copy): watch the new one, sub-directories too, and touch the run. A
 * recreated directory often gets the freed inode number back, so the watch's own
 * IN_DELETE_SELF / IN_MOVE_SELF / IN_IGNORED (self_event) also counts as replaced. */
bool tracker_rewatch_if_replaced(run *r, bool self_event);
/* libuv reports a watched directory's own events under its base name. */
bool tracker_is_self_event(const char *watched_path, const char *name);
/* The same for a root: re-watch it when it was recreated; unwatch it while it is missing. */
void tracker_rewatch_root(tracker *t, root *ro, bool exists);

/* discovery.c */
void tracker_on_root_event(uv_fs_event_t *h, const char *name, int events, int status);
/* r's directory is gone from its root; when another root holds the same id, that copy takes
 * over at once (not at the next rescan, and never `gone` in between). */
bool tracker_take_over_from_other_root(run *r);

/* run_tracker.c */
void tracker_run_touch(run *r);                     /* a file changed: (re)start the settle timer */
void tracker_run_discovered(run *r);                /* read its directory afresh: pending, settle */
void tracker_forget(run *r);
void tracker_mark_gone(run *r);
/* A dormant run's directory changed (a file event, a newer mtime, gone from its root): still
 * empty, it stays dormant; gone, it is marked gone; else it wakes and settles like any run. */
void tracker_dormant_changed(run *r);
void tracker_on_run_event(uv_fs_event_t *h, const char *name, int events, int status);
/* At tracker_start: from now on tracker_run_deleted reaches the loop. */
void tracker_deleted_queue_open(tracker *t);
/* The parse job j of j->r ended (loop thread; status: libuv's): counters, state, what next. */
void tracker_run_parsed(parse_job *j, int status);
/* A source check ended (loop thread): the sources fingerprint `sources` (ok: taken) with the
 * listing hash taken before it; what: the CHECK_* bits it answers. */
void tracker_run_checked(run *r, unsigned what, uint64_t listing, bool ok, const inventory_fingerprint *sources);

/* source_check.c */
/* Asks for a source check of r (CHECK_* bits): the inventory's fingerprint taken on the worker
 * pool, then tracker_run_checked() on the loop. Checks asked for while one runs share the next one. */
void source_check_queue(run *r, unsigned what);

/* ingest_job.c */
/* Queues a parse of r on the worker pool; false (nothing queued) on a corrupt database, out of
 * memory or a refused queue. */
bool ingest_job_queue(run *r);

#endif
