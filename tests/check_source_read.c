/* check_source_read: the one reader loop (core/source_read.c) under its limits, for both of
 * its callers: the analysis document's read (source_read_tee: a limit keeps what was read,
 * "read stopped") and RunMetrics' (source_pump: a limit drops the reading, "not parsed").
 *
 *  - a gzip bomb (256 MiB of zeros, 1.1 MB compressed) under max_parse_mb 8: the document's
 *    reading is fed exactly 8 MiB and RunMetrics' at most that (counted by the format itself);
 *  - a file of exactly the bound is read whole and a byte more is not, plain and gzip, by both;
 *    a range's bound counts from the file's start (a split read's tail: RunMetrics' and the
 *    document's, which gets exactly the part that fits);
 *  - a truncated gzip file: the warning names the byte, by both;
 *  - a plain file read as ranges (RunMetrics' pieces): every byte once, in order (a checksum
 *    against the file's);
 *  - a bound inside a chunk: the document's passenger on the bytes is fed up to it and told
 *    where the read stopped, once; a format declining in the part that fits ends both
 *    readings without a limit's warning, and so does one declining before it while a
 *    passenger reads on (the passenger alone hears the stop);
 *  - a cancel set before the document's read: nothing is fed. */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/source_read.h"

/* A format that only counts and sums what it is fed; at close, the counts go to the sink's
 * user (the test's). */
typedef struct counting {
    uint64_t fed, sum;
    struct counting *out;
} counting;

static bool count_feed(void *st, const uint8_t *buf, size_t n) {
    counting *c = st;
    c->fed += n;
    for (size_t i = 0; i < n; i++) c->sum = c->sum * 31 + buf[i];
    return true;
}
static void *count_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                        diag_list *diag) {
    (void)opt, (void)label, (void)facts, (void)diag;
    counting *c = calloc(1, sizeof *c);
    if (c) c->out = sink->user;
    return c;
}
static void count_finish(void *st) { (void)st; }
static void count_close(void *st) {
    counting *c = st;
    *c->out = *c;
    free(c);
}
static int count_sniff(const char *name, const uint8_t *head, size_t n) { (void)name, (void)head, (void)n; return 1; }

/* The same, declining more input once it has `DECLINE_AT` bytes. */
#define DECLINE_AT ((2u << 20) + (100u << 10))
static bool decline_feed(void *st, const uint8_t *buf, size_t n) {
    count_feed(st, buf, n);
    return ((counting *)st)->fed < DECLINE_AT;
}

static const artefact_parser COUNTING = {.name = "counting", .family = "test", .sniff = count_sniff,
                                         .open_records = count_open, .feed = count_feed, .finish = count_finish,
                                         .close = count_close};

static const artefact_parser DECLINING = {.name = "declining", .family = "test", .sniff = count_sniff,
                                          .open_records = count_open, .feed = decline_feed, .finish = count_finish,
                                          .close = count_close};

/* A passenger on the bytes: counts them, and what the reader said when it stopped. */
typedef struct tee_log {
    uint64_t fed, stop_at, stop_incoming;
    int stops, errors;
} tee_log;
static bool log_feed(void *user, const uint8_t *buf, size_t n) { (void)buf; ((tee_log *)user)->fed += n; return true; }
static void log_read_error(void *user, uint64_t off, int err) { (void)off, (void)err; ((tee_log *)user)->errors++; }
static void log_gzip_error(void *user, uint64_t off, const char *m) { (void)off, (void)m; ((tee_log *)user)->errors++; }
static void log_stopped(void *user, uint64_t at, uint64_t incoming) {
    tee_log *t = user;
    t->stops++;
    t->stop_at = at;
    t->stop_incoming = incoming;
}

/* The test's folder: /tmp/goblind-source-read-PID. */
static const char *test_dir(char *buf, size_t n) {
    snprintf(buf, n, "/tmp/goblind-source-read-%d", (int)getpid());
    mkdir(buf, 0700);
    return buf;
}

static bool warned(const diag_list *d, const char *what) {
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i], what)) return true;
    return false;
}

static bool no_record(void *user, const record *r) { (void)user, (void)r; return true; }

/* The document's read of path through format p (tee may be NULL), warnings to d: what the
 * format was fed. */
static counting read_document(const char *path, const char *label, const artefact_parser *p, const parse_options *opt,
                              diag_list *d, const source_tee *tee) {
    counting got = {0};
    record_sink sink = {.emit = no_record, .user = &got};
    read_facts facts = {0};
    source_read_stats st;
    source_read_tee(path, label, p, opt, &sink, &facts, d, &st, tee);
    read_facts_free(&facts);
    return got;
}

/* RunMetrics' read of path through format p (source_pump: bytes [from, to), or the whole file
 * inflated when gz), warnings to d: source_pump's answer; *fed and *stopped as it sets them,
 * *got what the format was fed. */
static bool read_runmetrics(const char *path, bool gz, uint64_t from, const artefact_parser *p, const parse_options *opt,
                            const char *label, diag_list *d, uint64_t *fed, bool *stopped, counting *got) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    *got = (counting){0};
    record_sink sink = {.emit = no_record, .user = got};
    read_facts facts = {0};
    void *state = p->open_records(opt, label, &sink, &facts, d);
    *fed = 0;
    *stopped = false;
    bool ok = source_pump(fileno(f), gz, from, UINT64_MAX, p, state, opt, label, d, fed, stopped);
    p->close(state);
    fclose(f);
    read_facts_free(&facts);
    return ok;
}

START_TEST(gzip_bomb_is_stopped_within_one_piece) {
    char dir[128], path[256], cmd[512];
    snprintf(path, sizeof path, "%s/bomb.json.gz", test_dir(dir, sizeof dir));
    snprintf(cmd, sizeof cmd, "head -c 268435456 /dev/zero | gzip -1 > %s", path);
    ck_assert_int_eq(system(cmd), 0);
    parse_limits lim = {.max_bytes = 8u << 20};
    parse_options opt = {.limits = &lim};
    diag_list d;
    diag_init(&d);
    counting last = read_document(path, "bomb.json.gz", &COUNTING, &opt, &d, NULL);
    ck_assert_msg(last.fed == (8u << 20), "document read fed %llu bytes", (unsigned long long)last.fed);
    ck_assert(warned(&d, "bomb.json.gz: read stopped after 8 MiB of content (after inflation); max_parse_mb bounds a parse"));
    diag_free(&d);

    diag_init(&d);
    uint64_t fed;
    bool stopped;
    ck_assert(!read_runmetrics(path, true, 0, &COUNTING, &opt, "bomb.json.gz", &d, &fed, &stopped, &last));
    ck_assert_uint_eq(fed, last.fed);
    ck_assert_msg(last.fed == (8u << 20), "RunMetrics read fed %llu bytes", (unsigned long long)last.fed);
    ck_assert(warned(&d, "bomb.json.gz: not parsed: more than 8 MiB of content (after inflation)"));
    diag_free(&d);
}
END_TEST

/* A file of exactly the bound is read whole, a byte more is not (plain, gzip; both readers);
 * a range's bound counts from the file's start (a split read's tail). */
START_TEST(exactly_the_bound) {
    char dir[128], path[256], cmd[512];
    test_dir(dir, sizeof dir);
    parse_limits lim = {.max_bytes = 2u << 20};
    parse_options opt = {.limits = &lim};
    static const char *const NAMES[] = {"exact.csv", "exact.csv.gz", "over.csv", "over.csv.gz"};
    uint64_t fed;
    bool stopped;
    counting last;
    diag_list d;
    for (int k = 0; k < 4; k++) {
        bool over = k >= 2, gz = k & 1;
        snprintf(path, sizeof path, "%s/%s", dir, NAMES[k]);
        snprintf(cmd, sizeof cmd, "head -c %u /dev/zero | tr '\\0' x %s > %s", (2u << 20) + (over ? 1u : 0u),
                 gz ? "| gzip -1" : "", path);
        ck_assert_int_eq(system(cmd), 0);
        diag_init(&d);
        last = read_document(path, NAMES[k], &COUNTING, &opt, &d, NULL);
        ck_assert_uint_eq(last.fed, 2u << 20);        /* the document keeps every byte up to the bound */
        ck_assert_int_eq(d.count, over ? 1 : 0);
        if (over) ck_assert(warned(&d, "read stopped after 2 MiB of content"));
        diag_free(&d);
        diag_init(&d);
        ck_assert_int_eq(read_runmetrics(path, gz, 0, &COUNTING, &opt, NAMES[k], &d, &fed, &stopped, &last), !over);
        ck_assert_uint_eq(fed, 2u << 20);             /* every reading is fed up to the bound */
        ck_assert_int_eq(d.count, over ? 1 : 0);
        if (over) ck_assert(warned(&d, "not parsed: more than 2 MiB of content"));
        diag_free(&d);
    }
    /* the tail of a split read, [1.5 MiB, end) of the 2 MiB + 1 file: 0.5 MiB fit, the rest not */
    snprintf(path, sizeof path, "%s/over.csv", dir);
    diag_init(&d);
    ck_assert(!read_runmetrics(path, false, 3u << 19, &COUNTING, &opt, "over.csv", &d, &fed, &stopped, &last));
    ck_assert_uint_eq(fed, 1u << 19);
    ck_assert(warned(&d, "over.csv: not parsed: more than 2 MiB of content"));
    diag_free(&d);
    /* the document's tail piece (source_feed_until from the cut): exactly the 0.5 MiB that fit */
    diag_init(&d);
    last = (counting){0};
    record_sink sink = {.emit = no_record, .user = &last};
    read_facts facts = {0};
    FILE *f = fopen(path, "rb");
    void *state = COUNTING.open_records(&opt, "over.csv", &sink, &facts, &d);
    ck_assert_uint_eq(source_feed_until(fileno(f), 3u << 19, UINT64_MAX, NULL, &COUNTING, state, &opt, "over.csv", &d,
                                        NULL),
                      1u << 19);
    COUNTING.close(state);
    fclose(f);
    ck_assert_uint_eq(last.fed, 1u << 19);
    ck_assert(warned(&d, "over.csv: read stopped after 2 MiB of content"));
    diag_free(&d);
    read_facts_free(&facts);
}
END_TEST

/* A bound that falls inside a 1 MiB chunk (2.5 MiB): the document's passenger on the bytes is
 * fed up to it exactly, once, and told where the read stopped; a format that declines before
 * the bound, inside that chunk's part that fits, ends both readings without a limit's warning
 * (RunMetrics' too: it is fed the part that fits as the document's is). */
START_TEST(bound_inside_a_chunk) {
    char dir[128], path[256], cmd[512];
    snprintf(path, sizeof path, "%s/three.csv", test_dir(dir, sizeof dir));
    snprintf(cmd, sizeof cmd, "head -c %u /dev/zero | tr '\\0' y > %s", (3u << 20) + 1, path);
    ck_assert_int_eq(system(cmd), 0);
    parse_limits lim = {.max_bytes = (2u << 20) + (1u << 19)};
    parse_options opt = {.limits = &lim};
    diag_list d;
    diag_init(&d);
    tee_log log = {0};
    source_tee tee = {.feed = log_feed, .read_error = log_read_error, .gzip_error = log_gzip_error,
                      .stopped_early = log_stopped, .user = &log};
    counting last = read_document(path, "three.csv", &COUNTING, &opt, &d, &tee);
    ck_assert_uint_eq(last.fed, lim.max_bytes);
    ck_assert_uint_eq(log.fed, lim.max_bytes);
    ck_assert_int_eq(log.stops, 1);
    ck_assert_int_eq(log.errors, 0);
    ck_assert_uint_eq(log.stop_at, lim.max_bytes);
    ck_assert_uint_eq(log.stop_incoming, (1u << 20) - (1u << 19));   /* the rest of the third chunk */
    ck_assert(warned(&d, "three.csv: read stopped after 2 MiB of content"));
    diag_free(&d);

    diag_init(&d);
    last = read_document(path, "three.csv", &DECLINING, &opt, &d, NULL);
    ck_assert_uint_eq(last.fed, (2u << 20) + (1u << 19));       /* the part of the chunk that fits, then no more */
    ck_assert_uint_eq(d.count, 0);
    uint64_t fed;
    bool stopped;
    ck_assert(read_runmetrics(path, false, 0, &DECLINING, &opt, "three.csv", &d, &fed, &stopped, &last));
    ck_assert(stopped);
    ck_assert_uint_eq(d.count, 0);
    diag_free(&d);

    /* the document's format done before the bound, a passenger on the bytes going on to it: the
     * passenger hears the stop, the document's reading gets no warning of it */
    diag_init(&d);
    log = (tee_log){0};
    read_document(path, "three.csv", &DECLINING, &opt, &d, &tee);
    ck_assert_uint_eq(log.fed, lim.max_bytes);
    ck_assert_int_eq(log.stops, 1);
    ck_assert_uint_eq(d.count, 0);
    diag_free(&d);
}
END_TEST

START_TEST(truncated_gzip_names_the_byte) {
    char dir[128], path[256], cmd[512];
    snprintf(path, sizeof path, "%s/cut.csv.gz", test_dir(dir, sizeof dir));
    snprintf(cmd, sizeof cmd, "seq 1 200000 | gzip -1 | head -c 20000 > %s", path);
    ck_assert_int_eq(system(cmd), 0);
    parse_options opt = {0};
    diag_list d, e;
    diag_init(&d);
    read_document(path, "cut.csv.gz", &COUNTING, &opt, &d, NULL);
    ck_assert(warned(&d, "cut.csv.gz: invalid gzip data near byte "));
    uint64_t fed;
    bool stopped;
    counting last;
    diag_init(&e);
    ck_assert(!read_runmetrics(path, true, 0, &COUNTING, &opt, "cut.csv.gz", &e, &fed, &stopped, &last));
    ck_assert(warned(&e, "cut.csv.gz: invalid gzip data near byte "));
    diag_free(&d);
    diag_free(&e);
}
END_TEST

START_TEST(ranges_feed_every_byte_once) {
    char dir[128], path[256];
    snprintf(path, sizeof path, "%s/plain.csv", test_dir(dir, sizeof dir));
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    uint64_t want = 0, size = (3u << 20) + 12345;
    for (uint64_t i = 0; i < size; i++) {
        uint8_t b = (uint8_t)(i * 7 + i / 4096);
        fputc(b, f);
        want = want * 31 + b;
    }
    fclose(f);
    f = fopen(path, "rb");
    parse_options opt = {0};
    counting last = {0};
    record_sink sink = {.emit = no_record, .user = &last};
    read_facts facts = {0};
    diag_list d;
    diag_init(&d);
    void *state = COUNTING.open_records(&opt, "plain.csv", &sink, &facts, &d);
    uint64_t fed = 0, cuts[] = {0, 1, 1048576, 1048577, 2500000, UINT64_MAX};
    bool stopped = false;
    for (size_t i = 0; i + 1 < sizeof cuts / sizeof *cuts; i++)
        ck_assert(source_pump(fileno(f), false, cuts[i], cuts[i + 1], &COUNTING, state, &opt, "plain.csv", &d, &fed,
                              &stopped));
    COUNTING.close(state);
    fclose(f);
    ck_assert_uint_eq(fed, size);
    ck_assert_uint_eq(last.fed, size);
    ck_assert_uint_eq(last.sum, want);
    ck_assert_uint_eq(d.count, 0);
    diag_free(&d);
    read_facts_free(&facts);
}
END_TEST

START_TEST(cancel_feeds_nothing) {
    char dir[128], path[256];
    snprintf(path, sizeof path, "%s/plain.csv", test_dir(dir, sizeof dir));
    FILE *f = fopen(path, "wb");
    fputs("a,b\n1,2\n", f);
    fclose(f);
    atomic_bool cancel = true;
    parse_limits lim = {.cancel = &cancel};
    parse_options opt = {.limits = &lim};
    counting last = {0};
    record_sink sink = {.emit = no_record, .user = &last};
    read_facts facts = {0};
    diag_list d;
    diag_init(&d);
    source_read_stats st;
    last.fed = 99;
    source_read_tee(path, "plain.csv", &COUNTING, &opt, &sink, &facts, &d, &st, NULL);
    ck_assert_uint_eq(last.fed, 0);
    ck_assert(warned(&d, "plain.csv: read cancelled at byte 0 (shutting down)"));
    diag_free(&d);
    read_facts_free(&facts);
}
END_TEST

int main(void) {
    Suite *s = suite_create("source_read");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gzip_bomb_is_stopped_within_one_piece);
    tcase_add_test(tc, truncated_gzip_names_the_byte);
    tcase_add_test(tc, exactly_the_bound);
    tcase_add_test(tc, bound_inside_a_chunk);
    tcase_add_test(tc, ranges_feed_every_byte_once);
    tcase_add_test(tc, cancel_feeds_nothing);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char dir[128], cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", test_dir(dir, sizeof dir));
    if (system(cmd) != 0) failed++;
    return failed ? 1 : 0;
}
