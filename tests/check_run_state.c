/* check_run_state: the tracker's per-run state machine (daemon/run_state.c) with a fake clock
 * and made-up events: no inotify, no libuv, no database. Each case walks a run through the
 * timeline a real daemon would see (files landing, settle and quiet timers firing, parses
 * ending) and checks the actions the tracker would carry out. */
#include <check.h>
#include <stdlib.h>

#include "daemon/run_state.h"

static const run_state_cfg CFG = {.settle_ms = 150, .settle_max_ms = 1000, .quiet_ms = 2000};

/* The fake clock (ms). */
static int64_t now;

static void no_timers(run_actions a) {
    ck_assert_int_lt(a.settle_in_ms, 0);
    ck_assert_int_lt(a.quiet_in_ms, 0);
}

/* The parse ended with a verdict of complete (ok) or failed. */
static run_actions parsed(run_state *s, const run_state_cfg *c, int64_t now, bool stored, bool ok, int64_t parse_ms,
                          int64_t newest_mtime_ms) {
    return run_state_parsed_as(s, c, now, stored, ok ? RUN_COMPLETE : RUN_FAILED, parse_ms, newest_mtime_ms);
}

/* DELETE while pending: the settle is called off and the files count as parsed (only a change
 * parses again); DELETE during a parse: the re-parse asked for is called off, the parse ends. */
/* s a fresh run discovered at `start` whose settle timer fired 150 ms later: its parse is
 * under way, and `now` is then. */
static void parsing_from(run_state *s, int64_t start) {
    run_state_init(s);
    now = start;
    run_state_discovered(s, &CFG, now);
    now += 150;
    ck_assert(run_state_settled(s, &CFG, now, false).start_parse);
}

START_TEST(delete_calls_off_parses) {
    run_state s;
    run_state_init(&s);
    now = 10000;
    run_state_discovered(&s, &CFG, now);
    run_actions a = run_state_deleted(&s);
    ck_assert(a.stop_settle && a.stop_quiet && !a.set_status && !a.start_parse);
    no_timers(a);
    ck_assert(s.have_parse && s.status == RUN_COMPLETE && !s.parsing);
    a = run_state_touch(&s, &CFG, now += 100);                      /* its files change afterwards: parsed again */
    ck_assert(a.set_status && a.status == RUN_PENDING && a.settle_in_ms == 150);
    a = run_state_settled(&s, &CFG, now += 150, false);
    ck_assert(a.start_parse && s.parsing);
    run_state_touch(&s, &CFG, now += 10);                          /* a change during the parse ... */
    a = run_state_settled(&s, &CFG, now += 150, false);
    ck_assert(s.reparse && !a.start_parse);
    a = run_state_deleted(&s);                                      /* ... then the DELETE */
    ck_assert(!s.reparse && s.parsing && !a.stop_settle);
    now += 300;
    a = parsed(&s, &CFG, now, true, true, 300, now);      /* dropped by the store: as if stored */
    ck_assert(!a.start_parse && a.settle_in_ms < 0 && a.quiet_in_ms >= 0);
}
END_TEST

/* discovered → pending, settled → parse (running), parsed → quiet → complete. */
START_TEST(new_run_settles_parses_and_completes) {
    run_state s;
    run_state_init(&s);
    now = 10000;
    run_actions a = run_state_discovered(&s, &CFG, now);
    ck_assert(a.set_status && a.status == RUN_PENDING);
    ck_assert_int_eq(a.settle_in_ms, 150);
    ck_assert(!a.start_parse);
    now += 150;
    a = run_state_settled(&s, &CFG, now, false);
    ck_assert(a.start_parse && s.parsing);
    ck_assert(a.set_status && a.status == RUN_RUNNING);
    now += 400;                                             /* the parse took 400 ms */
    a = parsed(&s, &CFG, now, true, true, 400, 9000);
    ck_assert(!s.parsing && s.have_parse && s.parsed_ok);
    ck_assert(!a.set_status && !a.start_parse);
    /* quiet counts from the newest change (10000), not from the parse's end */
    ck_assert_int_eq(a.quiet_in_ms, 10000 + 2000 - now);
    now += a.quiet_in_ms;
    a = run_state_quiet(&s, &CFG, now, true);
    ck_assert(a.set_status && a.status == RUN_COMPLETE && a.log_outcome);
    a = run_state_quiet(&s, &CFG, now + 1, true);           /* again: nothing new, no second log line */
    ck_assert(!a.set_status && !a.log_outcome);
}
END_TEST

/* Events closer than settle_ms apart keep pushing the parse back, but never past settle_max_ms
 * after the first unparsed change. */
START_TEST(settle_debounce_is_bounded) {
    run_state s;
    run_state_init(&s);
    now = 0;
    now = 1;
    run_actions a = run_state_discovered(&s, &CFG, now);
    ck_assert_int_eq(a.settle_in_ms, 150);
    int64_t first = now, due = now + a.settle_in_ms;
    while (now + 100 < due) {                               /* a file appended every 100 ms */
        now += 100;
        a = run_state_touch(&s, &CFG, now);
        ck_assert(a.stop_quiet);
        due = now + a.settle_in_ms;
        ck_assert_int_le(due, first + CFG.settle_max_ms);
    }
    ck_assert_int_eq(due, first + CFG.settle_max_ms);       /* the bound, not forever */
    now = due;
    a = run_state_settled(&s, &CFG, now, false);
    ck_assert(a.start_parse);
    ck_assert_int_eq(s.settle_since_ms, 0);                 /* what changed so far is in this parse */
    a = run_state_touch(&s, &CFG, now + 10);                /* a new change: a new bound from it */
    ck_assert_int_eq(s.settle_since_ms, now + 10);
    ck_assert_int_eq(a.settle_in_ms, 150);
}
END_TEST

/* A change during a parse: no second parse at once; one more after it ends, paced at >= 10x
 * the last parse's duration from its start. */
START_TEST(reparse_is_paced) {
    run_state s;
    run_state_init(&s);
    now = 1000;
    run_state_discovered(&s, &CFG, now);
    now += 150;
    int64_t started = now;
    ck_assert(run_state_settled(&s, &CFG, now, false).start_parse);
    now += 100;
    run_actions a = run_state_touch(&s, &CFG, now);         /* telemetry appended meanwhile */
    now += a.settle_in_ms;
    a = run_state_settled(&s, &CFG, now, false);
    ck_assert(!a.start_parse && s.reparse);                 /* one parse at a time */
    no_timers(a);
    now = started + 500;                                    /* the parse took 500 ms */
    a = parsed(&s, &CFG, now, true, true, 500, 0);
    ck_assert_int_eq(a.settle_in_ms, CFG.settle_ms);        /* parse again after a settle */
    ck_assert(!s.reparse);
    now += a.settle_in_ms;
    a = run_state_settled(&s, &CFG, now, false);
    ck_assert(!a.start_parse);
    ck_assert_int_eq(a.settle_in_ms, started + 10 * 500 - now);   /* 10x the parse time after its start */
    now += a.settle_in_ms;
    a = run_state_settled(&s, &CFG, now, false);
    ck_assert(a.start_parse);
    ck_assert_int_eq(s.parse_started_ms, now);
    /* the gap is at least settle_ms and at most 60 s */
    s.last_parse_ms = 1;
    ck_assert_int_eq(run_state_reparse_wait(&s, &CFG, now), CFG.settle_ms);
    s.last_parse_ms = 600000;
    ck_assert_int_eq(run_state_reparse_wait(&s, &CFG, now), REPARSE_GAP_MAX_MS);
    ck_assert_int_eq(run_state_reparse_wait(&s, &CFG, now + REPARSE_GAP_MAX_MS + 5), 0);
}
END_TEST

/* Only other files changed (the artefacts' signature is the parsed one): no parse, back to
 * running and quiet again. */
START_TEST(unchanged_artefacts_are_not_parsed_again) {
    run_state s;
    parsing_from(&s, 5000);
    now += 50;
    parsed(&s, &CFG, now, true, false, 50, 0);    /* parsed, but not complete */
    now += 2000;
    run_actions a = run_state_quiet(&s, &CFG, now, true);
    ck_assert(a.status == RUN_FAILED && a.log_outcome);
    now += 10000;
    a = run_state_touch(&s, &CFG, now);                     /* a notes file written */
    ck_assert(a.set_status && a.status == RUN_PENDING);
    now += a.settle_in_ms;
    a = run_state_settled(&s, &CFG, now, true);
    ck_assert(!a.start_parse);
    ck_assert(a.set_status && a.status == RUN_RUNNING);
    ck_assert_int_eq(a.quiet_in_ms, 2000 - 150);
    now += a.quiet_in_ms;
    a = run_state_quiet(&s, &CFG, now, true);
    ck_assert(a.status == RUN_FAILED && a.log_outcome);
}
END_TEST

/* The quiet timer finds the files changed since the parse: treated as a change. An ingest that
 * was not stored is retried after PARSE_RETRY_MS. */
START_TEST(quiet_with_changes_and_store_errors) {
    run_state s;
    parsing_from(&s, 100);
    now += 10;
    run_actions a = parsed(&s, &CFG, now, false, true, 10, 0);   /* the database refused it */
    ck_assert(!s.have_parse);
    ck_assert_int_eq(a.settle_in_ms, PARSE_RETRY_MS);
    now += PARSE_RETRY_MS;
    a = run_state_settled(&s, &CFG, now, true);             /* same files, but nothing stored: parse */
    ck_assert(a.start_parse);
    now += 10;
    a = parsed(&s, &CFG, now, true, true, 10, 0);
    now += a.quiet_in_ms;
    a = run_state_quiet(&s, &CFG, now, false);              /* a file changed without an event */
    ck_assert(!a.log_outcome);
    ck_assert_int_eq(a.settle_in_ms, CFG.settle_ms);
    ck_assert(s.status == RUN_RUNNING);
}
END_TEST

/* Ingests refused in a row (a run that never fits the database) are retried ever more slowly:
 * 5 s, 10 s, 20 s ... up to PARSE_RETRY_MAX_MS; one stored parse starts the count again. */
START_TEST(store_failures_back_off) {
    run_state s;
    parsing_from(&s, 100);
    int64_t want = PARSE_RETRY_MS;
    for (int i = 0; i < 12; i++) {
        now += 10;
        run_actions a = parsed(&s, &CFG, now, false, true, 10, 0);
        ck_assert_int_eq(a.settle_in_ms, want);
        want = want * 2 > PARSE_RETRY_MAX_MS ? PARSE_RETRY_MAX_MS : want * 2;
        now += a.settle_in_ms;
        ck_assert(run_state_settled(&s, &CFG, now, true).start_parse);
    }
    ck_assert_int_eq(want, PARSE_RETRY_MAX_MS);
    now += 10;
    parsed(&s, &CFG, now, true, true, 10, 0);                /* stored */
    ck_assert_uint_eq(s.store_failures, 0);
    run_state_touch(&s, &CFG, now);
    now += 150;
    run_state_settled(&s, &CFG, now, false);
    ck_assert_int_eq(parsed(&s, &CFG, now + 10, false, true, 10, 0).settle_in_ms, PARSE_RETRY_MS);
}
END_TEST

/* Quiet delay: from the newest of the last change and the artefacts' mtimes, never more than
 * quiet_ms (an mtime from the future) and never negative. */
START_TEST(quiet_delay_bounds) {
    run_state s;
    run_state_init(&s);
    s.last_change_ms = 1000;
    s.newest_mtime_ms = 1500;
    ck_assert_int_eq(run_state_quiet_delay(&s, &CFG, 2000), 1500);
    ck_assert_int_eq(run_state_quiet_delay(&s, &CFG, 9000), 0);
    s.newest_mtime_ms = 1000000;                            /* clock skew */
    ck_assert_int_eq(run_state_quiet_delay(&s, &CFG, 2000), CFG.quiet_ms);
}
END_TEST

/* Deleted: gone once (timers stopped, one log line), and events after that change nothing; a
 * parse ending afterwards asks for nothing more. Back again: read afresh. */
START_TEST(gone_and_back) {
    run_state s;
    parsing_from(&s, 0);
    run_actions a = run_state_gone(&s);
    ck_assert(a.set_status && a.status == RUN_GONE && a.log_outcome && a.stop_quiet && a.stop_settle);
    a = run_state_gone(&s);
    ck_assert(!a.set_status && !a.log_outcome);
    no_timers(run_state_touch(&s, &CFG, now + 1));
    no_timers(run_state_settled(&s, &CFG, now + 2, false));
    a = parsed(&s, &CFG, now + 3, true, true, 3, 0);
    no_timers(a);
    ck_assert(!a.start_parse && s.status == RUN_GONE);
    a = run_state_discovered(&s, &CFG, now + 100);
    ck_assert(!s.gone && !s.have_parse);
    ck_assert(a.status == RUN_PENDING && a.settle_in_ms == CFG.settle_ms);
}
END_TEST

/* At start-up a stored complete run whose files are unchanged stays complete: a settle that
 * finds the same artefacts parses nothing. */
START_TEST(restored_run_is_not_reparsed) {
    run_state s;
    run_state_init(&s);
    run_state_restore(&s, RUN_COMPLETE, true);
    ck_assert(s.have_parse && s.parsed_ok);
    now = 50;
    run_actions a = run_state_touch(&s, &CFG, now);
    ck_assert(a.status == RUN_PENDING);
    now += a.settle_in_ms;
    a = run_state_settled(&s, &CFG, now, true);
    ck_assert(!a.start_parse);
    now += a.quiet_in_ms;
    a = run_state_quiet(&s, &CFG, now, true);
    ck_assert(a.status == RUN_COMPLETE);
    run_state_init(&s);
    run_state_restore(&s, RUN_FAILED, false);               /* stored, but its files changed since */
    a = run_state_discovered(&s, &CFG, 0);
    ck_assert(a.status == RUN_PENDING);
    ck_assert(run_state_settled(&s, &CFG, 150, true).start_parse);
}
END_TEST

/* A parse that could not be queued leaves the run not parsing, so the next settle tries again. */
/* A directory with no profile file: its parse's verdict is empty, quiet makes it `empty` (never
 * failed), a new file makes it pending, and a restored empty run is not parsed again. */
START_TEST(empty_run_is_empty_not_failed) {
    run_state s;
    run_state_init(&s);
    now = 7000;
    run_state_discovered(&s, &CFG, now);
    now += 150;
    run_actions a = run_state_settled(&s, &CFG, now, false);
    ck_assert(a.start_parse);
    now += 5;
    a = run_state_parsed_as(&s, &CFG, now, true, RUN_EMPTY, 5, 0);
    ck_assert(!s.parsed_ok && s.outcome == RUN_EMPTY && a.quiet_in_ms >= 0);
    now += a.quiet_in_ms;
    a = run_state_quiet(&s, &CFG, now, true);
    ck_assert(a.set_status && a.status == RUN_EMPTY && a.log_outcome);
    now += 1000;
    a = run_state_touch(&s, &CFG, now);                     /* a trace lands in it */
    ck_assert(a.set_status && a.status == RUN_PENDING);
    run_state r;
    run_state_init(&r);
    run_state_restore(&r, RUN_EMPTY, true);
    ck_assert(r.have_parse && !r.parsed_ok && r.outcome == RUN_EMPTY);
    a = run_state_quiet(&r, &CFG, now, true);               /* stays empty */
    ck_assert(!a.set_status && r.status == RUN_EMPTY);
}
END_TEST

START_TEST(parse_not_started) {
    run_state s;
    run_state_init(&s);
    run_state_discovered(&s, &CFG, 0);
    ck_assert(run_state_settled(&s, &CFG, 150, false).start_parse);
    run_state_parse_not_started(&s);
    ck_assert(!s.parsing);
    ck_assert(run_state_settled(&s, &CFG, 1000, false).start_parse);
}
END_TEST

int main(void) {
    Suite *su = suite_create("run_state");
    TCase *tc = tcase_create("run_state");
    tcase_add_test(tc, new_run_settles_parses_and_completes);
    tcase_add_test(tc, delete_calls_off_parses);
    tcase_add_test(tc, settle_debounce_is_bounded);
    tcase_add_test(tc, reparse_is_paced);
    tcase_add_test(tc, unchanged_artefacts_are_not_parsed_again);
    tcase_add_test(tc, quiet_with_changes_and_store_errors);
    tcase_add_test(tc, quiet_delay_bounds);
    tcase_add_test(tc, gone_and_back);
    tcase_add_test(tc, restored_run_is_not_reparsed);
    tcase_add_test(tc, parse_not_started);
    tcase_add_test(tc, empty_run_is_empty_not_failed);
    tcase_add_test(tc, store_failures_back_off);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
