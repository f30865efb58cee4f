/* Tests: how untrusted files are opened and SQLite databases read (core/artefact_reader's
 * artefact_open, parsers/sqlite/sqlite_guard, parsers/formats/rocpd_order). The databases are written here
 * with SQLite's own API, the expected records worked out by hand:
 *  - a database format reads the descriptor it is given, never the name (a name that now
 *    leads to another database gives the descriptor's rows);
 *  - artefact_open: a FIFO never blocks, a symlink or a directory link leading out of the
 *    root is refused, a link inside the root is followed;
 *  - a cancel (shutdown) stops a read spinning in an endless view; max_parse_mb bounds the
 *    text taken from an endless view's rows;
 *  - a WAL-mode database with rows in its -wal is read from the main file with a warning
 *    naming the -wal;
 *  - rows out of start order come out in (start, id) order within the window, and the
 *    kernels view's own error is the one reported. */
#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/artefact_reader.h"
#include "parsers/parser_registry.h"
#include "test_util.h"

#define MAX_RECS 64

typedef struct collected {
    char name[MAX_RECS][32];
    int64_t start[MAX_RECS];
    size_t n;
} collected;

static bool collect(void *user, const record *r) {
    collected *c = user;
    if (c->n == MAX_RECS) return true;
    snprintf(c->name[c->n], sizeof c->name[0], "%.*s", (int)r->name_len, r->name ? r->name : "");
    c->start[c->n++] = (int64_t)r->start_ns;
    return true;
}

static const artefact_parser *format_named(const char *name) {
    for (const artefact_parser *const *p = parser_list(); *p; p++)
        if (!strcmp((*p)->name, name)) return *p;
    return NULL;
}

/* Writes a database at dir/name from an SQL script. */
static void make_db(const char *dir, const char *name, const char *sql) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    ck_assert_msg(rc == SQLITE_OK, "%s", err ? err : "?");
    sqlite3_close(db);
}

/* Reads fd (path names it for warnings) with format `fmt` under lim; records into c. */
static bool read_db(const char *fmt, int fd, const char *path, const parse_limits *lim, collected *c, diag_list *d) {
    const artefact_parser *p = format_named(fmt);
    ck_assert_ptr_nonnull(p);
    parse_options opt = {.limits = lim};
    read_facts facts = {0};
    record_sink sink = {.emit = collect, .user = c, .fields = ~0u};
    void *st = p->open_records(&opt, "test.db", &sink, &facts, d);
    bool ok = p->read_fd(st, fd, path);
    p->finish(st);
    p->close(st);
    read_facts_free(&facts);
    return ok;
}

static bool warned(const diag_list *d, const char *needle) {
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i], needle)) return true;
    return false;
}

#define KERNELS "CREATE TABLE kernels(id, name, start, \"end\", agent_abs_index, stream_id, queue_id, corr_id);"

START_TEST(database_read_through_its_descriptor_never_its_name) {
    char *dir = tu_tempdir();
    char root[2048], outside[2048], path[4096];
    snprintf(root, sizeof root, "%s/root", dir);
    snprintf(outside, sizeof outside, "%s/outside", dir);
    mkdir(root, 0755);
    mkdir(outside, 0755);
    make_db(root, "1_results.db", KERNELS "INSERT INTO kernels VALUES (1, 'inside', 10, 20, 0, 1, 1, 1);");
    make_db(outside, "1_results.db", KERNELS "INSERT INTO kernels VALUES (1, 'outside', 10, 20, 0, 1, 1, 1);");
    snprintf(path, sizeof path, "%s/1_results.db", root);
    struct stat st;
    int fd = artefact_open(path, root, &st);
    ck_assert_int_ge(fd, 0);
    /* the name is swapped for a link to the outside database after the open (the race the
     * reader cannot close by checking names): the rows are the opened file's */
    char moved[4096], link[4096];
    snprintf(moved, sizeof moved, "%s/moved.db", root);
    snprintf(link, sizeof link, "%s/1_results.db", outside);
    ck_assert_int_eq(rename(path, moved), 0);
    ck_assert_int_eq(symlink(link, path), 0);
    collected c = {0};
    diag_list d;
    diag_init(&d);
    ck_assert(read_db("rocpd-sqlite", fd, path, NULL, &c, &d));
    ck_assert_uint_eq(c.n, 1);
    ck_assert_str_eq(c.name[0], "inside");
    close(fd);
    /* and opening the swapped name now is refused: it resolves outside the root */
    ck_assert_int_eq(artefact_open(path, root, &st), -2);
    diag_free(&d);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

START_TEST(open_refuses_fifos_and_links_out_of_the_root) {
    char *dir = tu_tempdir();
    char root[2048], p[4096], t[4096];
    snprintf(root, sizeof root, "%s/root", dir);
    mkdir(root, 0755);
    tu_write_str(dir, "secret.csv", "outside\n");
    tu_write_str(root, "inside.csv", "inside\n");
    struct stat st;
    snprintf(p, sizeof p, "%s/fifo.csv", root);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    time_t t0 = time(NULL);
    ck_assert_int_eq(artefact_open(p, root, &st), -1);          /* no writer: would block without O_NONBLOCK */
    ck_assert_int_le(time(NULL) - t0, 2);
    snprintf(p, sizeof p, "%s/link.csv", root);
    snprintf(t, sizeof t, "%s/secret.csv", dir);
    ck_assert_int_eq(symlink(t, p), 0);
    ck_assert_int_eq(artefact_open(p, root, &st), -2);
    snprintf(p, sizeof p, "%s/sub", root);                       /* a directory link leading out */
    ck_assert_int_eq(symlink(dir, p), 0);
    snprintf(p, sizeof p, "%s/sub/secret.csv", root);
    ck_assert_int_eq(artefact_open(p, root, &st), -2);
    snprintf(p, sizeof p, "%s/in-link.csv", root);               /* a link inside the root is fine */
    ck_assert_int_eq(symlink("inside.csv", p), 0);
    int fd = artefact_open(p, root, &st);
    ck_assert_int_ge(fd, 0);
    ck_assert(S_ISREG(st.st_mode) && st.st_size == 7);
    ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);        /* blocking again for the read */
    close(fd);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

typedef struct canceller {
    _Atomic bool *flag;
} canceller;

static void *cancel_soon(void *arg) {
    canceller *c = arg;
    usleep(300 * 1000);
    atomic_store(c->flag, true);
    return NULL;
}

START_TEST(cancel_stops_a_read_spinning_in_a_view) {
    char *dir = tu_tempdir();
    make_db(dir, "1_results.db",
            "CREATE VIEW kernels(id, name, start, \"end\", agent_abs_index, stream_id, queue_id, corr_id) AS "
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i, 'k', i, i + 1, 0, 1, 1, i "
            "FROM c WHERE i < 0;");
    char path[4096];
    snprintf(path, sizeof path, "%s/1_results.db", dir);
    int fd = open(path, O_RDONLY);
    _Atomic bool flag = false;
    parse_limits lim = {.cancel = &flag};                         /* no deadline: only the cancel */
    canceller cc = {&flag};
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, &cc);
    collected c = {0};
    diag_list d;
    diag_init(&d);
    time_t t0 = time(NULL);
    ck_assert(!read_db("rocpd-sqlite", fd, path, &lim, &c, &d));
    ck_assert_int_le(time(NULL) - t0, 10);
    ck_assert_msg(warned(&d, "test.db: parse cancelled (shutting down)"), "%s", d.count ? d.items[0] : "-");
    pthread_join(th, NULL);
    close(fd);
    diag_free(&d);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* max_parse_mb on a database: the text taken from its rows (1000-byte names, 1 MiB allowed). */
START_TEST(row_text_bounded_by_max_parse_mb) {
    char *dir = tu_tempdir();
    make_db(dir, "1_results.db",
            "CREATE VIEW kernels(id, name, start, \"end\", agent_abs_index, stream_id, queue_id, corr_id) AS "
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) "
            "SELECT i, printf('%.*c', 1000, 'k'), i, i + 1, 0, 1, 1, i FROM c;");
    char path[4096];
    snprintf(path, sizeof path, "%s/1_results.db", dir);
    int fd = open(path, O_RDONLY);
    parse_limits lim = {.max_bytes = 1u << 20};
    collected c = {0};
    diag_list d;
    diag_init(&d);
    ck_assert(!read_db("rocpd-sqlite", fd, path, &lim, &c, &d));
    ck_assert_msg(warned(&d, "test.db: not parsed: more than 1 MiB of row text; max_parse_mb bounds a parse"), "%s",
                  d.count ? d.items[0] : "-");
    close(fd);
    diag_free(&d);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

START_TEST(wal_rows_not_read_are_warned) {
    char *dir = tu_tempdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/1_results.db", dir);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "PRAGMA journal_mode = WAL; " KERNELS
                                  "INSERT INTO kernels VALUES (1, 'checkpointed', 10, 20, 0, 1, 1, 1);"
                                  "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint = 0;"
                                  "INSERT INTO kernels VALUES (2, 'in_wal_only', 30, 40, 0, 1, 1, 2);",
                                  NULL, NULL, NULL), SQLITE_OK);
    int fd = open(path, O_RDONLY);                                /* (db still open: the -wal is kept) */
    collected c = {0};
    diag_list d;
    diag_init(&d);
    ck_assert(read_db("rocpd-sqlite", fd, path, NULL, &c, &d));
    ck_assert_uint_eq(c.n, 1);
    ck_assert_str_eq(c.name[0], "checkpointed");
    ck_assert_msg(warned(&d, "test.db: database in WAL mode with") && warned(&d, "bytes in its -wal file: only the main file"),
                  "%s", d.count ? d.items[0] : "-");
    sqlite3_close(db);
    close(fd);
    diag_free(&d);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

START_TEST(rows_come_out_in_start_order_and_the_views_error_is_told) {
    char *dir = tu_tempdir();
    /* inserted out of order (rowid order is the read order): 30, 10, 20 (id 4), 20 (id 3) */
    make_db(dir, "1_results.db", KERNELS
            "INSERT INTO kernels VALUES (1, 'c', 30, 31, 0, 1, 1, 1), (2, 'a', 10, 11, 0, 1, 1, 2),"
            "(4, 'b2', 20, 21, 0, 1, 1, 3), (3, 'b1', 20, 21, 0, 1, 1, 4);");
    char path[4096];
    snprintf(path, sizeof path, "%s/1_results.db", dir);
    int fd = open(path, O_RDONLY);
    collected c = {0};
    diag_list d;
    diag_init(&d);
    ck_assert(read_db("rocpd-sqlite", fd, path, NULL, &c, &d));
    ck_assert_uint_eq(c.n, 4);
    const char *want[] = {"a", "b1", "b2", "c"};
    for (int i = 0; i < 4; i++) ck_assert_str_eq(c.name[i], want[i]);
    close(fd);
    diag_free(&d);
    /* a kernels view using a function a schema may not use: its own error, not the fallback's */
    make_db(dir, "1_results.db",
            "CREATE VIEW kernels(id, name, start, \"end\", agent_abs_index, stream_id, queue_id, corr_id) AS "
            "SELECT 1, hex(fts3_tokenizer('simple')), 1, 2, 0, 1, 1, 1;");
    fd = open(path, O_RDONLY);
    diag_init(&d);
    memset(&c, 0, sizeof c);
    ck_assert(!read_db("rocpd-sqlite", fd, path, NULL, &c, &d));
    ck_assert_msg(warned(&d, "kernels: unsafe use of fts3_tokenizer"), "%s", d.count ? d.items[0] : "-");
    close(fd);
    diag_free(&d);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sqlite_guard");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, database_read_through_its_descriptor_never_its_name);
    tcase_add_test(tc, open_refuses_fifos_and_links_out_of_the_root);
    tcase_add_test(tc, cancel_stops_a_read_spinning_in_a_view);
    tcase_add_test(tc, row_text_bounded_by_max_parse_mb);
    tcase_add_test(tc, wal_rows_not_read_are_warned);
    tcase_add_test(tc, rows_come_out_in_start_order_and_the_views_error_is_told);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
