/* check_alloc_failure: the daemon's ingest of a run (core/run_ingest, then core/run_headline's
 * verdict) when an allocation fails.
 *
 * This executable defines malloc, calloc, realloc, free and the aligned allocators
 * (tests/alloc_fault.c), so every allocation of the process goes through them (goblind's code,
 * SQLite, zlib, jansson, libc's own strdup and asprintf). One allocation, the Nth since the ingest began, returns NULL (or
 * that one and every one after it); N walks the ingest's allocations. Whatever N, the ingest
 * must not crash, must not leak (blocks allocated minus blocks freed equals the run without a
 * fault), and must not give a number that looks real but is not: either run_ingest or
 * run_headline_apply returns false (an allocation failure: the daemon stores nothing and reads
 * the run again), or RunMetrics, the read facts, the analysis document, the warnings and the
 * verdict are exactly those of the run without a fault. A run is never stored `complete`,
 * `empty` or `failed` with numbers that memory made partial.
 *
 * The store's write of that run (storage/store.c store_ingest, SQLite's allocations included)
 * is walked the same way on a fresh database per point: it either stores exactly what a write
 * without a fault stores, or answers -1 having stored nothing of the run (the daemon then
 * reads the run again), never marks the database corrupt, and a retry stores the run whole.
 *
 * Release build only: the sanitizers own malloc in their builds. GOBLIND_ALLOC_POINTS (default
 * 1500) bounds the failure points tried per run: the first 200 allocations, then evenly spread
 * (the store's write a fifth of that: the first 100, then spread; GOBLIND_ALLOC_POINTS=100000
 * tries every one: about 3 minutes). GOBLIND_ALLOC_TRACE prints
 * where the first failure of a point is, GOBLIND_ALLOC_DUMP=DIR writes both texts of a
 * differing point. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/ingest_doc.h"
#include "core/run_headline.h"
#include "core/run_ingest.h"
#include "storage/retention.h"
#include "storage/sqlite_mem.h"
#include "storage/store.h"
#include "tests/alloc_fault.h"
#include "tests/test_util.h"

/* Drops the value of every "parse_ms" (a source's read time, the one number that changes from
 * run to run), in place. */
static void mask_times(char *s) {
    for (char *p = s; (p = strstr(p, "\"parse_ms\":")) != NULL;) {
        p += 11;
        size_t n = strspn(p, "0123456789.e-+");
        memmove(p, p + n, strlen(p + n) + 1);
    }
}

/* One ingest's outcome as text, or NULL when it declared an allocation failure. */
typedef struct ingest_seen {
    char *text;               /* RunMetrics, read facts, the document, every warning */
    long long calls, live_delta;
} ingest_seen;

static void ingest_once(const char *dir, long long fail_at, bool fail_rest, ingest_seen *seen) {
    char root[PATH_MAX];                       /* confined to the run's parent, as the daemon reads */
    snprintf(root, sizeof root, "%s", dir);
    *strrchr(root, '/') = '\0';
    run_options opt = {.parse.confine_root = root};
    run_analysis_options aopt;
    run_analysis_defaults(&aopt);
    aopt.parse = opt.parse;
    run_result res;
    run_analysis an;
    run_headline h;
    run_sidecar sc;
    diag_list scw;
    long long live0 = alloc_fault_live();
    alloc_fault_arm(fail_at, fail_rest);
    diag_init(&scw);                           /* goblind.json, as daemon/ingest_job.c reads it */
    run_sidecar_read(dir, &sc, &scw);
    if (sc.has_steps) opt.steps_given = true, opt.steps = sc.steps;
    if (sc.precision) opt.precision = sc.precision;
    bool ok = run_ingest(dir, &opt, &aopt, &res, &an);
    if (ok) diag_append(&res.metrics.warnings, &scw);
    diag_free(&scw);
    bool h_ok = ok && run_headline_apply(&res, &opt, &an, &sc, &h);
    run_sidecar_free(&sc);
    alloc_fault_disarm();
    memset(seen, 0, sizeof *seen);
    seen->calls = alloc_fault_calls();
    if (h_ok) {
        static const char *const VERDICTS[] = {[RUN_VERDICT_COMPLETE] = "complete", [RUN_VERDICT_FAILED] = "failed",
                                               [RUN_VERDICT_EMPTY] = "empty"};
        strbuf t = {0};
        char *m = tu_metrics_text(&res);
        strbuf_append(&t, m, strlen(m));
        free(m);
        strbuf_append(&t, "\n", 1);
        strbuf_append(&t, an.json.data, an.json.len);
        for (size_t i = 0; i < an.diag.count; i++) {
            strbuf_append(&t, "\n", 1);
            strbuf_append(&t, an.diag.items[i], strlen(an.diag.items[i]));
        }
        const char *v = VERDICTS[h.verdict];
        strbuf_append(&t, "\nverdict: ", 10);
        strbuf_append(&t, v, strlen(v));
        if (h.error) strbuf_append(&t, h.error, strlen(h.error));
        strbuf_append(&t, h.json.data, h.json.len);
        strbuf_terminate(&t);
        mask_times(t.data);
        seen->text = t.data;
    }
    if (ok) {
        run_headline_free(&h);
        run_result_free(&res);
        run_analysis_free(&an);
    }
    seen->live_delta = alloc_fault_live() - live0 - (seen->text ? 1 : 0);
}

static int points_wanted(void) {
    const char *e = getenv("GOBLIND_ALLOC_POINTS");
    int n = e ? atoi(e) : 1500;
    return n > 200 ? n : 1500;
}

/* Every failure point tried on dir against the run without a fault. */
static void walk_failures(const char *dir) {
    ingest_seen base;
    ingest_once(dir, 0, false, &base);          /* warm: first-use initialisations */
    free(base.text);
    ingest_once(dir, 0, false, &base);
    ck_assert_ptr_nonnull(base.text);
    ck_assert_int_eq(base.live_delta, 0);
    ck_assert_int_gt(base.calls, 0);
    int points = points_wanted();
    long long stride = base.calls > points ? (base.calls - 200) / (points - 200) + 1 : 1;
    unsigned declared = 0, same = 0;
    for (long long at = 1; at <= base.calls; at += at < 200 ? 1 : stride) {
        for (int rest = 0; rest < 2; rest++) {
            if (rest && at % 7 != 1) continue;  /* exhaustion from here on: a sample */
            ingest_seen got;
            ingest_once(dir, at, rest, &got);
            ck_assert_msg(got.live_delta == 0, "%s: allocation %lld failing%s leaks %lld blocks", dir, at,
                          rest ? " (and every one after)" : "", got.live_delta);
            if (!got.text) { declared++; continue; }
            if (!strcmp(got.text, base.text)) { same++; free(got.text); continue; }
            if (getenv("GOBLIND_ALLOC_DUMP")) {     /* both texts, to see a failing point's difference */
                tu_write_str(getenv("GOBLIND_ALLOC_DUMP"), "base.txt", base.text);
                tu_write_str(getenv("GOBLIND_ALLOC_DUMP"), "got.txt", got.text);
            }
            ck_assert_msg(false, "%s: allocation %lld failing%s gives a different result, not an allocation failure:\n%.300s",
                          dir, at, rest ? " (and every one after)" : "", got.text);
        }
    }
    fprintf(stderr, "%s: %lld allocations, stride %lld: %u declared an allocation failure, %u gave the same result\n",
            dir, base.calls, stride, declared, same);
    free(base.text);
}

START_TEST(goblin_run_under_failures) {
    char *d = tu_goblin_run(60, 60, false);         /* goblin_runner's three files, small, and a sidecar */
    tu_write_str(d, "goblind.json", "{\"tokens_per_step\": 4096, \"precision\": \"bf16\", "
                                    "\"labels\": {\"series\": \"s1\", \"model\": \"llama\"}}");
    walk_failures(d);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* Other profilers' files side by side: CSV, JSON, gzip and telemetry formats. */
START_TEST(profiler_files_under_failures) {
    static const char *const FILES[] = {
        "rocprofv3/sdk_kernel_trace.csv", "rocprofv3/sdk_counter_collection.csv", "rocprofv3/sdk_memory_copy_trace.csv",
        "rocprofv3/rocprofv1_batched_gemm_results.stats.csv", "torch_profiler/kineto_docs__traces__after_fix_trace.json",
        "torch_profiler/hta_cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", "nvidia_smi/flame_nvidia-smi.csv",
        "aie/mlir-aie_section-4b_trace_4b.json", "msprof/mstt_compute_advice_kernel_details.csv"};
    char *d = tu_tempdir();
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) tu_copy_fixture(FILES[i], d, strrchr(FILES[i], '/') + 1);
    walk_failures(d);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* A rocpd SQLite database: SQLite's own allocations fail too. */
START_TEST(rocpd_database_under_failures) {
    char *d = tu_tempdir();
    tu_copy_fixture("rocprofv3/rocpd_ck_bmm_28_results.db", d, "rocpd_ck_bmm_28_results.db");
    walk_failures(d);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* Every row of every table of the database at path, as text (blobs by their bytes). */
static char *db_dump(const char *path) {
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *tables = NULL, *q = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1,
                                        &tables, NULL), SQLITE_OK);
    strbuf out = {0};
    while (sqlite3_step(tables) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(tables, 0);
        char *sql = sqlite3_mprintf("SELECT * FROM \"%w\"", t);
        ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
        sqlite3_free(sql);
        strbuf_append(&out, t, strlen(t));
        strbuf_append(&out, ":\n", 2);
        while (sqlite3_step(q) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(q); c++) {
                const void *v = sqlite3_column_blob(q, c);
                strbuf_append(&out, c ? "|" : "", c ? 1 : 0);
                if (v) strbuf_append(&out, v, (size_t)sqlite3_column_bytes(q, c));
                else strbuf_append(&out, "NULL", 4);
            }
            strbuf_append(&out, "\n", 1);
        }
        sqlite3_finalize(q);
    }
    sqlite3_finalize(tables);
    sqlite3_close(db);
    ck_assert(strbuf_terminate(&out));
    return out.data;
}

/* A fresh store at dir/g.db (any earlier one removed), its retention tables ready. */
static store *fresh_store(const char *dir, char **path) {
    static const char *const SUFFIX[] = {"", "-wal", "-shm"};
    free(*path);
    ck_assert(asprintf(path, "%s/g.db", dir) > 0);
    for (size_t i = 0; i < 3; i++) {
        char *f = NULL;
        ck_assert(asprintf(&f, "%s%s", *path, SUFFIX[i]) > 0);
        unlink(f);
        free(f);
    }
    char *err = NULL;
    store *st = store_open(*path, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ck_assert_int_eq(retention_init(st), 0);
    return st;
}

/* One store_ingest of rec into a fresh store at dir with allocation fail_at failing (0: none):
 * its answer, the calls it made, and the database after it as text; the store is closed and
 * every block it allocated freed (checked). */
static int store_once(const char *dir, const ingest_record *rec, long long fail_at, bool fail_rest, long long *calls,
                      char **dump) {
    char *path = NULL;
    long long live0 = alloc_fault_live();
    store *st = fresh_store(dir, &path);
    char err[256];
    alloc_fault_arm(fail_at, fail_rest);
    int rc = store_ingest(st, rec);
    alloc_fault_disarm();
    *calls = alloc_fault_calls();
    ck_assert_msg(store_corruption(st) == NULL, "allocation %lld failing marks the store corrupt: %s", fail_at,
                  store_corruption(st));
    ck_assert_msg(rc == 0 || (rc == -1 && fail_at), "allocation %lld failing: store_ingest answered %d (%s)", fail_at, rc,
                  store_last_error(st, err, sizeof err));
    char *after = db_dump(path);
    if (rc != 0) {                          /* nothing of the run, then a retry stores it whole */
        ck_assert_msg(strstr(after, rec->id) == NULL, "allocation %lld failing leaves part of the run stored:\n%.400s",
                      fail_at, after);
        int again = store_ingest(st, rec);
        ck_assert_msg(again == 0, "allocation %lld failing, then a retry without a fault: %d (%s)", fail_at, again,
                      store_last_error(st, err, sizeof err));
        free(after);
        after = db_dump(path);
    }
    store_close(st);
    free(path);
    ck_assert_msg(alloc_fault_live() == live0 + 1, "allocation %lld failing: the store leaks %lld blocks", fail_at,
                  alloc_fault_live() - live0 - 1);
    *dump = after;
    return rc;
}

/* The store's write of goblin_runner's run, every failure point against the write without one. */
START_TEST(store_write_under_failures) {
    ck_assert(sqlite_mem_counting());          /* the quiet SQLite failures are seen (storage/sqlite_mem.h) */
    char *run = tu_goblin_run(40, 40, false), *dir = tu_tempdir();
    tu_ingested x;
    tu_ingest(run, &x);
    ingest_record rec = tu_ingested_record(&x, "run-under-failures", dir, run);
    rec.read_began_ms = 900;                    /* the forgotten-run check too */
    long long calls;
    char *base = NULL;
    ck_assert_int_eq(store_once(dir, &rec, 0, false, &calls, &base), 0);   /* warm: SQLite's first use */
    free(base);
    ck_assert_int_eq(store_once(dir, &rec, 0, false, &calls, &base), 0);
    ck_assert_ptr_nonnull(strstr(base, "run-under-failures"));
    ck_assert_int_gt(calls, 0);
    int points = points_wanted() / 5;       /* each point opens a database */
    long long stride = calls > points ? (calls - 100) / (points - 100) + 1 : 1;
    unsigned declared = 0, same = 0;
    for (long long at = 1; at <= calls; at += at < 100 ? 1 : stride) {
        for (int rest = 0; rest < 2; rest++) {
            if (rest && at % 7 != 1) continue;
            long long n;
            char *got = NULL;
            int rc = store_once(dir, &rec, at, rest, &n, &got);
            if (strcmp(got, base) && getenv("GOBLIND_ALLOC_DUMP")) {
                tu_write_str(getenv("GOBLIND_ALLOC_DUMP"), "base.txt", base);
                tu_write_str(getenv("GOBLIND_ALLOC_DUMP"), "got.txt", got);
            }
            ck_assert_msg(!strcmp(got, base), "allocation %lld failing%s (store_ingest answered %d): the database differs "
                          "from a write without one", at, rest ? " (and every one after)" : "", rc);
            rc == 0 ? same++ : declared++;
            free(got);
        }
    }
    fprintf(stderr, "store: %lld allocations, stride %lld: %u declared an error (nothing stored), %u stored the same\n",
            calls, stride, declared, same);
    ck_assert_uint_gt(declared, 0);
    free(base);
    tu_ingested_free(&x);
    tu_rmrf(dir);
    tu_rmrf(run);
    free(dir);
    free(run);
}
END_TEST

int main(void) {
    alloc_fault_init();
    Suite *s = suite_create("alloc_failure");
    const struct { const char *name; const TTest *test; } CASES[] = {   /* CK_RUN_CASE picks one */
        {"goblin_run", goblin_run_under_failures},
        {"profiler_files", profiler_files_under_failures},
        {"rocpd", rocpd_database_under_failures},
        {"store", store_write_under_failures}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        TCase *tc = tcase_create(CASES[i].name);
        tcase_set_timeout(tc, 600);
        tcase_add_test(tc, CASES[i].test);
        suite_add_tcase(s, tc);
    }
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
