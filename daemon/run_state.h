/* run_state: the per-run state machine of the tracker, pure: events in, actions out.
 *
 *   pending --settle_ms without events--> running (a parse is started, stored as running)
 *   running --quiet_s without changes--> complete (a source was read)
 *                                        | failed (sources found, none readable; a parse bound hit)
 *                                        | empty (no recognised file)
 *   complete/failed/empty --file changes--> pending;  any --directory deleted--> gone
 * (the verdict is core/run_headline's; docs/API.md "Run states")
 *
 * It owns the decisions and the timing of one run: the settle debounce (settle_ms, but never
 * longer than settle_max_ms after the first unparsed change, so a file appended to forever is
 * still parsed), the pacing of re-parses (a run that keeps changing is parsed again at least
 * REPARSE_PACE times its last parse's duration after that parse started, between settle_ms and
 * 60 s: at most ~1/10 of a worker), one parse at a time (a change during a parse asks for one
 * more afterwards), the retry of a parse that was not stored, and the quiet period measured from
 * the newest change or artefact mtime. It does no I/O and reads no clock: the tracker
 * (run_tracker.c) passes the time and what it saw on disk, and carries out the actions (timers,
 * status writes, parses, log lines). So it is unit-tested with a fake clock and made-up events
 * (tests/check_run_state.c), without inotify, libuv or a database. */
#ifndef GOBLIN_RUN_STATE_H
#define GOBLIN_RUN_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/store.h"

#define REPARSE_PACE 10
#define REPARSE_GAP_MAX_MS 60000
#define PARSE_RETRY_MS 5000          /* a parse whose ingest was not stored is tried again after this, */
#define PARSE_RETRY_MAX_MS 300000    /* doubled on each failure in a row up to this (a run that never fits) */

typedef struct run_state_cfg {
    int64_t settle_ms, settle_max_ms, quiet_ms;
} run_state_cfg;

/* One run's state. status is RUN_STATUS_COUNT until first set (not stored yet). */
typedef struct run_state {
    run_status status;
    bool parsing;                /* a parse is in flight */
    bool reparse;                /* files changed during it: parse again afterwards */
    bool have_parse;             /* a parse of the current files is stored */
    bool parsed_ok;              /* ... and its verdict is complete */
    run_status outcome;          /* ... the status it takes once quiet: complete, failed or empty */
    bool gone;                   /* the directory was deleted */
    int64_t last_change_ms;      /* the newest file event */
    int64_t settle_since_ms;     /* the first file event not yet in a parse (0: none) */
    int64_t parse_started_ms;    /* of the last parse (0: never) */
    int64_t last_parse_ms;       /* how long it took */
    int64_t newest_mtime_ms;     /* the newest artefact mtime of the stored parse */
    unsigned store_failures;     /* parses in a row whose ingest was not stored */
} run_state;

/* What the tracker is to do after an event. A delay < 0 leaves that timer alone. */
typedef struct run_actions {
    bool set_status;             /* store `status` (it changed) */
    run_status status;
    bool stop_quiet;             /* cancel the quiet timer */
    bool stop_settle;            /* cancel the settle timer */
    int64_t settle_in_ms;        /* (re)start the settle timer with this delay */
    int64_t quiet_in_ms;         /* (re)start the quiet timer with this delay */
    bool start_parse;            /* queue a parse now (the state already says parsing) */
    bool log_outcome;            /* the run just became complete or failed: one log line */
} run_actions;

/* A fresh run (not stored yet). */
void run_state_init(run_state *s);
/* At start-up, from the database: the run was stored with status st; parsed: its files are as
 * that parse saw them (no re-parse needed: it stays complete or failed). */
void run_state_restore(run_state *s, run_status st, bool parsed);
/* The run's directory is to be read afresh (new, back after a deletion, or another root's copy
 * taking over): not gone, no parse of these files, pending, and a change at now. */
run_actions run_state_discovered(run_state *s, const run_state_cfg *c, int64_t now);
/* A file of the run changed at now. */
run_actions run_state_touch(run_state *s, const run_state_cfg *c, int64_t now);
/* The settle timer fired. files_as_parsed: the artefacts' signature equals the stored parse's
 * (only other files changed). */
run_actions run_state_settled(run_state *s, const run_state_cfg *c, int64_t now, bool files_as_parsed);
/* The parse started by start_parse ended. stored: its ingest committed; outcome: its verdict,
 * RUN_COMPLETE, RUN_FAILED or RUN_EMPTY; parse_ms: its duration; newest_mtime_ms: its
 * artefacts' newest mtime. */
run_actions run_state_parsed_as(run_state *s, const run_state_cfg *c, int64_t now, bool stored, run_status outcome,
                                int64_t parse_ms, int64_t newest_mtime_ms);
/* The parse was queued but could not start (the pool refused it): back to not parsing. */
void run_state_parse_not_started(run_state *s);
/* How long after a parse whose ingest was not stored the next one starts: PARSE_RETRY_MS,
 * doubled for each failure in a row before it, at most PARSE_RETRY_MAX_MS. */
int64_t run_state_retry_ms(const run_state *s);
/* The quiet timer fired. files_as_parsed as for run_state_settled. */
run_actions run_state_quiet(run_state *s, const run_state_cfg *c, int64_t now, bool files_as_parsed);
/* The directory was deleted. */
run_actions run_state_gone(run_state *s);
/* The run was forgotten (DELETE /runs/<id>): its files as they are now count as parsed, so
 * only a later change parses them again; a pending settle or re-parse is called off. A parse
 * in flight keeps going (the store drops its outcome). Nothing is stored: the database ignores
 * status writes for a forgotten run. */
run_actions run_state_deleted(run_state *s);
/* The delay before a re-parse may start (0: now), by the pacing rule above. */
int64_t run_state_reparse_wait(const run_state *s, const run_state_cfg *c, int64_t now);
/* The quiet timer's delay: quiet_ms after the newest change or artefact mtime, never more
 * than quiet_ms (an mtime from the future: clock skew), never negative. */
int64_t run_state_quiet_delay(const run_state *s, const run_state_cfg *c, int64_t now);

#endif
