/* run_state: the per-run state machine (run_state.h): decisions only, no I/O, no clock. */
#include "daemon/run_state.h"

#include <assert.h>

static run_actions none(void) { return (run_actions){.settle_in_ms = -1, .quiet_in_ms = -1}; }

static void status_to(run_state *s, run_actions *a, run_status st) {
    if (s->status == st) return;
    s->status = st;
    a->set_status = true;
    a->status = st;
}

void run_state_init(run_state *s) {
    *s = (run_state){.status = RUN_STATUS_COUNT};
}

void run_state_restore(run_state *s, run_status st, bool parsed) {
    s->status = st;
    s->have_parse = parsed;
    s->parsed_ok = parsed && st == RUN_COMPLETE;
    s->outcome = st == RUN_EMPTY ? RUN_EMPTY : s->parsed_ok ? RUN_COMPLETE : RUN_FAILED;
}

run_actions run_state_discovered(run_state *s, const run_state_cfg *c, int64_t now) {
    s->gone = false;
    s->have_parse = false;
    run_actions a = run_state_touch(s, c, now);
    status_to(s, &a, RUN_PENDING);
    return a;
}

run_actions run_state_touch(run_state *s, const run_state_cfg *c, int64_t now) {
    run_actions a = none();
    if (s->gone) return a;
    s->last_change_ms = now;
    if (s->status == RUN_COMPLETE || s->status == RUN_FAILED || s->status == RUN_EMPTY) status_to(s, &a, RUN_PENDING);
    a.stop_quiet = true;
    /* debounce, but never past settle_max_ms after the first unparsed change */
    if (!s->settle_since_ms) s->settle_since_ms = now;
    int64_t delay = c->settle_ms, left = s->settle_since_ms + c->settle_max_ms - now;
    if (left < delay) delay = left > 0 ? left : 0;
    a.settle_in_ms = delay;
    return a;
}

int64_t run_state_reparse_wait(const run_state *s, const run_state_cfg *c, int64_t now) {
    if (!s->parse_started_ms) return 0;
    int64_t gap = s->last_parse_ms * REPARSE_PACE;
    if (gap < c->settle_ms) gap = c->settle_ms;
    if (gap > REPARSE_GAP_MAX_MS) gap = REPARSE_GAP_MAX_MS;
    int64_t wait = s->parse_started_ms + gap - now;
    return wait > 0 ? wait : 0;
}

int64_t run_state_quiet_delay(const run_state *s, const run_state_cfg *c, int64_t now) {
    int64_t newest = s->last_change_ms > s->newest_mtime_ms ? s->last_change_ms : s->newest_mtime_ms;
    int64_t delay = newest + c->quiet_ms - now;
    if (delay < 0) delay = 0;
    if (delay > c->quiet_ms) delay = c->quiet_ms;
    return delay;
}

run_actions run_state_settled(run_state *s, const run_state_cfg *c, int64_t now, bool files_as_parsed) {
    run_actions a = none();
    if (s->gone) return a;
    if (s->parsing) { s->reparse = true; return a; }
    if (s->have_parse && files_as_parsed) {
        if (s->status == RUN_PENDING) status_to(s, &a, RUN_RUNNING);
        a.quiet_in_ms = run_state_quiet_delay(s, c, now);     /* only other files changed */
        return a;
    }
    int64_t wait = run_state_reparse_wait(s, c, now);
    if (wait > 0) { a.settle_in_ms = wait; return a; }
    s->settle_since_ms = 0;                    /* what changed before now is in this parse */
    s->parse_started_ms = now;
    s->parsing = true;
    status_to(s, &a, RUN_RUNNING);
    a.start_parse = true;
    return a;
}

void run_state_parse_not_started(run_state *s) { s->parsing = false; }

int64_t run_state_retry_ms(const run_state *s) {
    int64_t ms = PARSE_RETRY_MS;
    for (unsigned i = 1; i < s->store_failures && ms < PARSE_RETRY_MAX_MS; i++) ms *= 2;
    return ms < PARSE_RETRY_MAX_MS ? ms : PARSE_RETRY_MAX_MS;
}

run_actions run_state_parsed_as(run_state *s, const run_state_cfg *c, int64_t now, bool stored, run_status outcome,
                                int64_t parse_ms, int64_t newest_mtime_ms) {
    assert(outcome == RUN_COMPLETE || outcome == RUN_FAILED || outcome == RUN_EMPTY);
    run_actions a = none();
    s->parsing = false;
    s->store_failures = stored ? 0 : s->store_failures + 1;
    if (stored) {
        s->have_parse = true;
        s->parsed_ok = outcome == RUN_COMPLETE;
        s->outcome = outcome;
        s->last_parse_ms = parse_ms;
        s->newest_mtime_ms = newest_mtime_ms;
    } else {
        s->have_parse = false;
    }
    if (s->gone) return a;
    if (s->reparse || !s->have_parse) {
        s->reparse = false;
        a.settle_in_ms = s->have_parse ? c->settle_ms : run_state_retry_ms(s);   /* not stored: retry later */
        return a;
    }
    a.quiet_in_ms = run_state_quiet_delay(s, c, now);
    return a;
}

run_actions run_state_quiet(run_state *s, const run_state_cfg *c, int64_t now, bool files_as_parsed) {
    if (s->gone || s->parsing) return none();
    if (!files_as_parsed) return run_state_touch(s, c, now);
    run_actions a = none();
    status_to(s, &a, s->parsed_ok ? RUN_COMPLETE : s->outcome == RUN_EMPTY ? RUN_EMPTY : RUN_FAILED);
    a.log_outcome = a.set_status;
    return a;
}

run_actions run_state_gone(run_state *s) {
    run_actions a = none();
    if (s->gone) return a;
    s->gone = true;
    a.stop_quiet = a.stop_settle = true;
    status_to(s, &a, RUN_GONE);
    a.log_outcome = true;
    return a;
}

run_actions run_state_deleted(run_state *s) {
    run_actions a = none();
    if (s->gone) return a;
    s->reparse = false;
    if (s->parsing) return a;                  /* run_state_parsed_as follows; the store dropped it */
    s->have_parse = true;
    s->parsed_ok = true;
    s->settle_since_ms = 0;
    s->status = RUN_COMPLETE;                  /* final; a change makes it pending again */
    a.stop_settle = a.stop_quiet = true;
    return a;
}
