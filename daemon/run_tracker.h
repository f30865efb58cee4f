/* run_tracker: every run directory under the roots, from discovery to complete.
 *
 * Owned by the libuv loop thread. File events (uv_fs_event on each root, each run
 * directory and its rocprofv3 sub-directories) and a periodic rescan feed a per-run
 * state machine:
 *
 *   pending --settle_ms without events--> running (parse on the worker pool, stored)
 *   running --quiet_s without changes--> complete (kernel trace + torch profile parse)
 *                                        | failed (they do not)
 *   any --file changes--> pending;  any --directory deleted--> gone (metrics kept)
 *
 * Parsing, ingest transactions and status writes run on libuv's worker pool, never on the
 * loop, so a slow or locked database cannot stall it. A gone run leaves memory once its
 * status is stored; if its directory returns, it is discovered again. */
#ifndef GOBLIN_RUN_TRACKER_H
#define GOBLIN_RUN_TRACKER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "core/counters.h"
#include "daemon/config.h"
#include "storage/store.h"

typedef struct tracker tracker;

/* A tracker_changed_fn is called on the loop thread whenever a run's stored state changes. */
typedef void (*tracker_changed_fn)(void *user, const char *run_id);

/* Ingests, parse times, parsed bytes and watched directories are counted in counters. */
tracker *tracker_new(uv_loop_t *loop, store *st, const goblind_config *cfg, goblind_counters *counters,
                     tracker_changed_fn fn, void *user);
/* Watches the roots and backfills what is already there; ready afterwards. 0 on success. */
int tracker_start(tracker *t);
/* The configuration it was given changed in place (SIGHUP): re-arms the rescan timer with
 * the new period. settle_ms and quiet_s are read at each use and need nothing. */
void tracker_config_changed(tracker *t);
/* A run was forgotten (DELETE /runs/<id>). Thread-safe (called from the HTTP thread); the
 * loop then takes the run's files as they are as parsed, so only a later change ingests it
 * again, and calls off a pending parse (one in flight is dropped by store_ingest). */
void tracker_run_deleted(tracker *t, const char *run_id);
/* Stops watching, closes every handle and cancels in-flight parses (they store nothing).
 * done() runs on the loop thread once nothing of the tracker is left in the loop. */
void tracker_stop(tracker *t, void (*done)(void *), void *arg);
void tracker_free(tracker *t);

#endif
