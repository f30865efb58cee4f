/* check_npu_aie: the AIE half of check_npu: aie-trace-json and aie-run-json through the
 * aie_cores and aie_aggregate sections on hand-made traces (duplicate markers, E and B at
 * one timestamp, orphan starts, outliers, a core with no pairs, mismatched iteration
 * counts, fewer iterations than configured, bad input), against numbers worked out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/sections/aie_cores.h"
#include "base/strbuf.h"
#include "tests/npu_harness.h"

typedef struct ev { const char *tile, *name; char ph; long ts; } ev;

/* An mlir-aie style trace: one process_name per tile (pid = its index), then the events. */
static char *aie_trace(const char *const *tiles, size_t n_tiles, const ev *evs, size_t n) {
    strbuf b = {0};
    char line[256];
    strbuf_append(&b, "[", 1);
    for (size_t t = 0; t < n_tiles; t++) {
        snprintf(line, sizeof line, "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %zu, \"args\": {\"name\": "
                 "\"core_trace for tile%s\"}}", t ? ",\n" : "", t, tiles[t]);
        strbuf_append(&b, line, strlen(line));
    }
    for (size_t i = 0; i < n; i++) {
        size_t pid = 0;
        for (size_t t = 0; t < n_tiles; t++)
            if (!strcmp(tiles[t], evs[i].tile)) pid = t;
        snprintf(line, sizeof line, ",\n{\"name\": \"%s\", \"ts\": %ld, \"ph\": \"%c\", \"pid\": %zu, \"tid\": 0, "
                 "\"args\": {}}", evs[i].name, evs[i].ts, evs[i].ph, pid);
        strbuf_append(&b, line, strlen(line));
    }
    strbuf_append(&b, "]\n", 2);
    strbuf_terminate(&b);
    return b.data;
}

/* Appends the markers of one kernel [s, e) on tile. */
static size_t kernel(ev *evs, size_t n, const char *tile, long s, long e) {
    evs[n++] = (ev){tile, "INSTR_EVENT_0", 'B', s};
    evs[n++] = (ev){tile, "INSTR_EVENT_0", 'E', s + 1};
    evs[n++] = (ev){tile, "INSTR_EVENT_1", 'B', e - 1};
    evs[n++] = (ev){tile, "INSTR_EVENT_1", 'E', e};
    return n;
}

static size_t stall(ev *evs, size_t n, const char *tile, long s, long e) {
    evs[n++] = (ev){tile, "LOCK_STALL", 'B', s};
    evs[n++] = (ev){tile, "LOCK_STALL", 'E', e};
    return n;
}

START_TEST(aie_pairing_edge_cases) {
    ev evs[128];
    size_t n = 0;
    /* an orphan start left by ring-buffer wrap, then kernels of 1000 cycles */
    evs[n++] = (ev){"2,0", "INSTR_EVENT_0", 'B', 10};
    n = kernel(evs, n, "2,0", 1000, 2000);
    evs[n++] = (ev){"2,0", "INSTR_EVENT_0", 'B', 1050};   /* a duplicate start marker (50 < 1000/4) */
    n = kernel(evs, n, "2,0", 2000, 3000);                /* E and B at one timestamp: 2000 */
    n = kernel(evs, n, "2,0", 3100, 4100);
    n = kernel(evs, n, "2,0", 4200, 8200);                /* 4000 > 3 x 1000: an outlier */
    n = kernel(evs, n, "2,0", 8300, 9300);
    const char *tiles[] = {"2,0"};
    char *trace = aie_trace(tiles, 1, evs, n);
    input in[] = {{"aie-trace-json", "trace.json", trace}};
    doc d;
    run_doc(in, 1, &d);
    json_t *cores = json_object_get(d.json, "aie_cores");
    ck_assert_uint_eq(json_array_size(cores), 1);
    json_t *c = json_array_get(cores, 0);
    ck_assert_str_eq(json_string_value(json_object_get(c, "tile")), "2,0");
    CLOSE(num(json_object_get(c, "kernels")), 4);
    CLOSE(num(json_object_get(c, "dropped_duplicates")), 1);
    CLOSE(num(json_object_get(c, "dropped_outliers")), 1);
    CLOSE(num(json_object_get(c, "orphans")), 1);
    CLOSE(num(json_object_get(c, "median_cycles")), 1000);
    json_t *its = json_object_get(c, "iterations");
    ck_assert_uint_eq(json_array_size(its), 1);
    json_t *it = json_array_get(its, 0);
    ck_assert_str_eq(json_string_value(json_object_get(it, "label")), "unlabelled");
    CLOSE(num(json_object_get(it, "kernels")), 4);
    CLOSE(num(json_object_get(it, "avg_cycles")), 1000);
    CLOSE(num(json_object_get(it, "span_cycles")), 9300 - 1000);
    ck_assert(json_is_null(json_object_get(it, "gmacs")));   /* no aie_run.json: unknown */
    json_t *agg = json_object_get(d.json, "aie_aggregate");
    CLOSE(num(json_object_get(agg, "runtime_cycles")), 8300);
    ck_assert(json_is_null(json_object_get(agg, "gmacs_avg")));
    doc_free(&d);
    free(trace);
}
END_TEST

START_TEST(aie_iterations_and_aggregate) {
    ev evs[256];
    size_t n = 0;
    /* tile 2,0: 3 iterations of 2 kernels (100 cycles), separated by stalls >= 20 x 100 */
    long t = 0;
    for (int it = 0; it < 3; it++) {
        n = stall(evs, n, "2,0", t, t + 2000);
        t += 2001;                                               /* after the stall's end */
        n = kernel(evs, n, "2,0", t, t + 100);
        n = kernel(evs, n, "2,0", t + 100, t + 200 + it * 10);  /* last kernel longer each iteration */
        n = stall(evs, n, "2,0", t + 300, t + 310);              /* a short stall is no boundary */
        t += 400;
    }
    /* tile 3,0: 4 iterations (one extra) with a span of 300 */
    t = 0;
    for (int it = 0; it < 4; it++) {
        n = stall(evs, n, "3,0", t, t + 2500);
        t += 2501;
        n = kernel(evs, n, "3,0", t, t + 100);
        n = kernel(evs, n, "3,0", t + 200, t + 300);
        t += 400;
    }
    /* tile 4,0: starts only: a core with no pairs */
    evs[n++] = (ev){"4,0", "INSTR_EVENT_0", 'B', 5};
    evs[n++] = (ev){"4,0", "INSTR_EVENT_0", 'B', 500};
    const char *tiles[] = {"2,0", "3,0", "4,0"};
    char *trace = aie_trace(tiles, 3, evs, n);
    const char *run = "{\"M\": 64, \"K\": 32, \"N\": 64, \"m\": 16, \"k\": 8, \"n\": 16, \"rows\": 1, \"cols\": 2,"
                      " \"warmup\": 1, \"iterations\": 2, \"clock_ghz\": 1.0}";
    input in[] = {{"aie-trace-json", "trace_mm.json", trace}, {"aie-run-json", "aie_run.json", run}};
    doc d;
    run_doc(in, 2, &d);
    json_t *cores = json_object_get(d.json, "aie_cores");
    ck_assert_uint_eq(json_array_size(cores), 3);
    json_t *c0 = json_array_get(cores, 0), *c1 = json_array_get(cores, 1), *c2 = json_array_get(cores, 2);
    ck_assert_str_eq(json_string_value(json_object_get(c2, "tile")), "4,0");
    ck_assert_uint_eq(json_array_size(json_object_get(c2, "iterations")), 0);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(c2, "note")), "no kernel pairs"));
    json_t *i0 = json_object_get(c0, "iterations"), *i1 = json_object_get(c1, "iterations");
    ck_assert_uint_eq(json_array_size(i0), 3);
    ck_assert_uint_eq(json_array_size(i1), 4);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(i0, 0), "label")), "warmup");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(i0, 2), "label")), "perf");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(i1, 3), "label")), "extra");
    ck_assert(json_is_null(json_object_get(c0, "note")));
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(c1, "note")), "detected 4 iterations, expected 3"));
    /* 2,0 iteration 2: kernels 100 and 120, span 220; GMAC/s = 2 x 16*8*16 x 1.0 / 220 */
    json_t *last = json_array_get(i0, 2);
    CLOSE(num(json_object_get(last, "span_cycles")), 220);
    CLOSE(num(json_object_get(last, "max_cycles")), 120);
    CLOSE(num(json_object_get(last, "avg_cycles")), 110);
    CLOSE(num(json_object_get(last, "gmacs")), 2.0 * 16 * 8 * 16 / 220.0);
    /* aggregate: perf iterations 1 and 2; runtimes max(210, 300) = 300 and max(220, 300) = 300 */
    json_t *agg = json_object_get(d.json, "aie_aggregate");
    CLOSE(num(json_object_get(agg, "cores")), 2);
    CLOSE(num(json_object_get(agg, "perf_iterations")), 2);
    CLOSE(num(json_object_get(agg, "runtime_cycles")), 300);
    CLOSE(num(json_object_get(agg, "gmacs_avg")), 64.0 * 32 * 64 / 300.0);
    CLOSE(num(json_object_get(agg, "gmacs_best")), 64.0 * 32 * 64 / 300.0);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(agg, "iterations"), 0),
                                                       "slowest_tile")), "3,0");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(agg, "note")), "without kernel pairs"));
    ck_assert_ptr_nonnull(strstr(d.md, "## AIE cores"));
    ck_assert_ptr_nonnull(strstr(d.md, "## AIE aggregate"));
    CLOSE(num(json_object_get(d.numbers, "aie_cores/cores")), 3);
    CLOSE(num(json_object_get(d.numbers, "aie_aggregate/gmacs_avg")), 64.0 * 32 * 64 / 300.0);
    CLOSE(num(json_object_get(d.numbers, "aie_aggregate/runtime_cycles")), 300);
    CLOSE(num(json_object_get(d.numbers, "aie_aggregate/peak_gmacs")), 64.0 * 1.0 * 2);
    CLOSE(num(json_object_get(d.numbers, "aie_aggregate/efficiency_pct")), 100.0 * 64 * 32 * 64 / 300.0 / 128.0);
    ck_assert_ptr_null(json_object_get(d.numbers, "npu_ops/ops"));
    ck_assert(json_is_null(json_object_get(d.json, "npu_ops")));
    doc_free(&d);
    free(trace);
}
END_TEST

START_TEST(aie_fewer_iterations_labelled_from_end) {
    ev evs[64];
    size_t n = 0;
    n = kernel(evs, n, "2,0", 0, 100);
    n = stall(evs, n, "2,0", 200, 3000);
    n = kernel(evs, n, "2,0", 3001, 3101);
    const char *tiles[] = {"2,0"};
    char *trace = aie_trace(tiles, 1, evs, n);
    const char *run = "{\"warmup\": 2, \"iterations\": 3}";
    input in[] = {{"aie-trace-json", "trace.json", trace}, {"aie-run-json", "aie_run.json", run}};
    doc d;
    run_doc(in, 2, &d);
    json_t *its = json_object_get(json_array_get(json_object_get(d.json, "aie_cores"), 0), "iterations");
    ck_assert_uint_eq(json_array_size(its), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(its, 0), "label")), "perf");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(its, 1), "label")), "perf");
    json_t *agg = json_object_get(d.json, "aie_aggregate");
    ck_assert(json_is_null(json_object_get(agg, "gmacs_avg")));     /* no M, K, N */
    CLOSE(num(json_object_get(agg, "runtime_cycles")), 100);
    doc_free(&d);
    free(trace);
}
END_TEST

START_TEST(aie_bad_input_is_named) {
    input in[] = {{"aie-trace-json", "trace.json",
                   "[{\"name\": \"INSTR_EVENT_0\", \"ts\": 1.5, \"ph\": \"B\", \"pid\": 0},\n"
                   " {\"name\": \"INSTR_EVENT_1\", \"ts\": 7, \"ph\": \"E\", \"pid\": 0}, {\"name\": "}};
    doc d;
    run_doc(in, 1, &d);
    ck_assert(warned(&d, "trace.json: byte 1: event \"ts\" is not a non-negative integer"));
    ck_assert(warned(&d, "trace.json: byte"));
    json_t *c = json_array_get(json_object_get(d.json, "aie_cores"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(c, "tile")), "pid 0");
    ck_assert_uint_eq(json_array_size(json_object_get(c, "iterations")), 0);
    doc_free(&d);
}
END_TEST

/* An event whose "name" key is given twice is named by the last one, as a JSON object read into
 * a dict (the two were joined: "x" + "INSTR_EVENT_0" was no marker, and a file of such keys
 * grew the name without bound). */
START_TEST(aie_repeated_name_key_keeps_last) {
    ev evs[16];
    size_t n = kernel(evs, 0, "2,0", 1000, 2000);
    n = kernel(evs, n, "2,0", 2100, 3100);
    const char *tiles[] = {"2,0"};
    char *trace = aie_trace(tiles, 1, evs, n);
    strbuf b = {0};
    for (const char *p = trace, *q; *p; p = q + 1) {   /* every event's name given twice */
        q = strstr(p, "{\"name\": \"INSTR");
        if (!q) {
            strbuf_append(&b, p, strlen(p));
            break;
        }
        strbuf_append(&b, p, (size_t)(q - p));
        strbuf_append(&b, "{\"name\": \"x\", \"name\": ", 22);
        q += strlen("{\"name\": ") - 1;
    }
    strbuf_terminate(&b);
    ck_assert_ptr_nonnull(strstr(b.data, "\"name\": \"x\", \"name\": \"INSTR_EVENT_1\""));
    input in[] = {{"aie-trace-json", "trace.json", b.data}};
    doc d;
    run_doc(in, 1, &d);
    json_t *c = json_array_get(json_object_get(d.json, "aie_cores"), 0);
    CLOSE(num(json_object_get(c, "kernels")), 2);
    CLOSE(num(json_object_get(c, "median_cycles")), 1000);
    doc_free(&d);
    strbuf_free(&b);
    free(trace);
}
END_TEST

START_TEST(aie_tiles_are_bounded) {
    enum { TILES = AIE_MAX_TILES + 6 };
    static char names[TILES][16];
    static const char *tiles[TILES];
    static ev evs[TILES * 4];
    size_t n = 0;
    for (int t = 0; t < TILES; t++) {
        snprintf(names[t], sizeof names[t], "%d,%d", t / 8, t % 8);
        tiles[t] = names[t];
        n = kernel(evs, n, tiles[t], 0, 100);
    }
    char *trace = aie_trace(tiles, TILES, evs, n);
    input in[] = {{"aie-trace-json", "trace.json", trace}};
    doc d;
    run_doc(in, 1, &d);
    ck_assert_uint_eq(json_array_size(json_object_get(d.json, "aie_cores")), AIE_MAX_TILES);
    ck_assert(warned(&d, "tiles; the rest were not read"));
    doc_free(&d);
    free(trace);
}
END_TEST

/* Events of a pid read before its process_name are on the labelled tile, not on "pid N":
 * pid 0's first two kernels come before its label, the third after; pid 1 is labelled first.
 * By hand: tile 2,0 has 3 kernels of 100 cycles, tile 3,0 one of 50, no "pid 0" core. A pid
 * that never gets a label stays "pid 7". */
/* What mlir-aie's post-processor reports, on a trace worked by hand: a stall before the first
 * kernel, a kernel starting exactly at a stall's end (it belongs to the iteration before the
 * boundary), two stalls between iterations (an empty stretch is no iteration). Then the same
 * trace with iterations = 0 (zero perf iterations, not a rejected value). */
START_TEST(aie_post_processor_fields) {
    ev evs[64];
    size_t n = 0;
    n = stall(evs, n, "2,0", 0, 2500);                 /* before the first kernel */
    n = kernel(evs, n, "2,0", 5100, 5200);
    n = kernel(evs, n, "2,0", 5300, 5400);
    n = stall(evs, n, "2,0", 5500, 8000);
    n = kernel(evs, n, "2,0", 8000, 8100);             /* at the stall's end: iteration 0 */
    n = kernel(evs, n, "2,0", 8200, 8300);
    n = kernel(evs, n, "2,0", 8400, 8500);
    n = stall(evs, n, "2,0", 8600, 11000);
    n = stall(evs, n, "2,0", 11100, 14000);            /* two stalls: one gap, no empty iteration */
    n = kernel(evs, n, "2,0", 14100, 14200);
    n = kernel(evs, n, "2,0", 14300, 14450);
    const char *tiles[] = {"2,0"};
    char *trace = aie_trace(tiles, 1, evs, n);
    const char *runs[] = {"{\"warmup\": 1, \"iterations\": 2}", "{\"warmup\": 1, \"iterations\": 0}"};
    for (int r = 0; r < 2; r++) {
        input in[] = {{"aie-trace-json", "trace.json", trace}, {"aie-run-json", "aie_run.json", runs[r]}};
        doc d;
        run_doc(in, 2, &d);
        json_t *c = json_array_get(json_object_get(d.json, "aie_cores"), 0);
        json_t *its = json_object_get(c, "iterations");
        CLOSE(num(json_object_get(c, "lock_stall_boundaries")), 4);
        ck_assert_uint_eq(json_array_size(its), 3);
        /* iteration 0: 5100..8100 (three kernels), 1: 8200..8500, 2: 14100..14450 */
        const double first[] = {5100, 8200, 14100}, last[] = {8100, 8500, 14450}, kernels[] = {3, 2, 2};
        for (size_t j = 0; j < 3; j++) {
            json_t *it = json_array_get(its, j);
            CLOSE(num(json_object_get(it, "first_start")), first[j]);
            CLOSE(num(json_object_get(it, "last_end")), last[j]);
            CLOSE(num(json_object_get(it, "span_cycles")), last[j] - first[j]);
            CLOSE(num(json_object_get(it, "kernels")), kernels[j]);
        }
        json_t *window = json_object_get(c, "performance_window");
        if (r == 0) {
            CLOSE(num(json_object_get(c, "expected_iterations")), 3);
            ck_assert_str_eq(json_string_value(json_object_get(json_array_get(its, 1), "label")), "perf");
            CLOSE(num(json_array_get(window, 0)), 1);
            CLOSE(num(json_array_get(window, 1)), 2);
            json_t *best = json_object_get(c, "best_iteration"), *worst = json_object_get(c, "worst_iteration");
            CLOSE(num(json_object_get(best, "index")), 1);
            CLOSE(num(json_object_get(best, "runtime_cycles")), 300);
            CLOSE(num(json_object_get(worst, "index")), 2);
            CLOSE(num(json_object_get(worst, "runtime_cycles")), 350);
            ck_assert_ptr_nonnull(strstr(d.md, "Lock-stall boundaries: 4"));
            ck_assert_ptr_nonnull(strstr(d.md, "best iteration 1 (300 cycles), worst 2 (350 cycles)"));
        } else {
            CLOSE(num(json_object_get(c, "expected_iterations")), 1);     /* 1 warm-up + 0 perf */
            ck_assert_str_eq(json_string_value(json_object_get(json_array_get(its, 0), "label")), "warmup");
            ck_assert_str_eq(json_string_value(json_object_get(json_array_get(its, 1), "label")), "extra");
            ck_assert(json_is_null(window));
            ck_assert(json_is_null(json_object_get(c, "best_iteration")));
            ck_assert_ptr_null(strstr(d.md, "is not a"));                 /* 0 is no rejected value */
        }
        doc_free(&d);
    }
    free(trace);
}
END_TEST

START_TEST(aie_label_after_events) {
    const char *trace =
        "[{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"core_trace for tile3,0\"}},\n"
        "{\"name\": \"INSTR_EVENT_0\", \"ts\": 0, \"ph\": \"B\", \"pid\": 0, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_1\", \"ts\": 100, \"ph\": \"E\", \"pid\": 0, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_0\", \"ts\": 200, \"ph\": \"B\", \"pid\": 0, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_1\", \"ts\": 300, \"ph\": \"E\", \"pid\": 0, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_0\", \"ts\": 0, \"ph\": \"B\", \"pid\": 1, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_1\", \"ts\": 50, \"ph\": \"E\", \"pid\": 1, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_0\", \"ts\": 0, \"ph\": \"B\", \"pid\": 7, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_1\", \"ts\": 10, \"ph\": \"E\", \"pid\": 7, \"tid\": 0},\n"
        "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": \"core_trace for tile2,0\"}},\n"
        "{\"name\": \"INSTR_EVENT_0\", \"ts\": 400, \"ph\": \"B\", \"pid\": 0, \"tid\": 0},\n"
        "{\"name\": \"INSTR_EVENT_1\", \"ts\": 500, \"ph\": \"E\", \"pid\": 0, \"tid\": 0}]\n";
    input in[] = {{"aie-trace-json", "trace.json", trace}};
    doc d;
    run_doc(in, 1, &d);
    json_t *cores = json_object_get(d.json, "aie_cores");
    ck_assert_uint_eq(json_array_size(cores), 3);
    json_t *c0 = json_array_get(cores, 0), *c1 = json_array_get(cores, 1), *c2 = json_array_get(cores, 2);
    ck_assert_str_eq(json_string_value(json_object_get(c0, "tile")), "2,0");
    CLOSE(num(json_object_get(c0, "kernels")), 3);
    CLOSE(num(json_object_get(c0, "median_cycles")), 100);
    ck_assert_str_eq(json_string_value(json_object_get(c1, "tile")), "3,0");
    CLOSE(num(json_object_get(c1, "kernels")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(c2, "tile")), "pid 7");
    doc_free(&d);
}
END_TEST

TCase *npu_aie_tcase(void) {
    TCase *a = tcase_create("aie");
    tcase_add_test(a, aie_pairing_edge_cases);
    tcase_add_test(a, aie_iterations_and_aggregate);
    tcase_add_test(a, aie_fewer_iterations_labelled_from_end);
    tcase_add_test(a, aie_bad_input_is_named);
    tcase_add_test(a, aie_repeated_name_key_keeps_last);
    tcase_add_test(a, aie_tiles_are_bounded);
    tcase_add_test(a, aie_label_after_events);
    tcase_add_test(a, aie_post_processor_fields);
    return a;
}
