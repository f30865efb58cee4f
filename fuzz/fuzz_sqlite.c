/* fuzz_sqlite: the SQLite formats (rocpd-sqlite, rocprof-v1-db) over hostile databases, read
 * the way the daemon reads them: through a descriptor (a memfd holding the database) with the
 * daemon's bounds (a 0.5 s parse deadline here), records through the kind's analysis, then
 * RunMetrics. Input layout: byte 0 bit 0 picks the format; bit 1 says what follows:
 *   0: a database image as it would lie on disk;
 *   1: an SQL script (tables, views, rows: any hostile schema), run on an empty database
 *      under its own bounds (1e6 VDBE ops, the reader's length limits), whose image is read.
 * Seeds: fuzz/corpus/sqlite (hostile databases of tests/hostile_sqlite.py, as images and
 * scripts) and the rocpd fixture. A read that does not end within the deadline is a
 * timeout (libFuzzer -timeout), a crash or a leak a finding. */
#include <sqlite3.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_common.h"

extern const artefact_parser rocpd_sqlite_parser, rocprof_v1_db_parser;

static int stop_building(void *user) { return ++*(long *)user > 1000; }   /* x 1000 ops */

/* The image of the database the script builds (sqlite3_malloc'd, *n bytes), or NULL. */
static unsigned char *image_of_script(const uint8_t *sql, size_t n, sqlite3_int64 *len) {
    sqlite3 *db = NULL;
    unsigned char *img = NULL;
    char *text = malloc(n + 1);
    if (!text || sqlite3_open(":memory:", &db) != SQLITE_OK) goto out;
    memcpy(text, sql, n);
    text[n] = 0;
    long ops = 0;
    sqlite3_progress_handler(db, 1000, stop_building, &ops);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
    sqlite3_exec(db, "PRAGMA cell_size_check = 0", NULL, NULL, NULL);
    sqlite3_exec(db, text, NULL, NULL, NULL);                 /* whatever got created before an error */
    img = sqlite3_serialize(db, "main", len, 0);
out:
    free(text);
    sqlite3_close(db);
    return img;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)fuzz_one;                       /* (fuzz_common's byte-stream driver: not for a database) */
    if (size < 1) return 0;
    const artefact_parser *p = data[0] & 1 ? &rocprof_v1_db_parser : &rocpd_sqlite_parser;
    bool script = data[0] & 2;
    data++, size--;
    sqlite3_int64 len = (sqlite3_int64)size;
    unsigned char *img = script ? image_of_script(data, size, &len) : NULL;
    const uint8_t *bytes = script ? img : data;
    if (script && !img) return 0;
    int fd = memfd_create("fuzz.db", MFD_CLOEXEC);
    if (fd < 0) abort();
    for (sqlite3_int64 off = 0; off < len;) {
        ssize_t w = pwrite(fd, bytes + off, (size_t)(len - off), off);
        if (w <= 0) abort();
        off += w;
    }
    sqlite3_free(img);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    parse_limits lim = {.max_bytes = 64u << 20, .max_seconds = 1,
                        .deadline_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + 500};
    parse_options opt = {.limits = &lim};
    fuzz_run r;
    memset(&r, 0, sizeof r);
    diag_init(&r.diag);
    format_pipe pipe;
    if (!format_pipe_open(&pipe, p, p->kind, &opt, "fuzz.db", fuzz_summary(&r, p->kind), &r.diag)) {
        close(fd);
        diag_free(&r.diag);
        return 0;
    }
    if (p->read_fd(pipe.fmt, fd, NULL)) format_pipe_finish(&pipe);
    format_pipe_close(&pipe);
    close(fd);
    run_metrics m;
    memset(&m, 0, sizeof m);
    waste_inputs in = {.kernels = &r.k, .torch = &r.t, .telemetry = &r.s};
    waste_budget_compute(&in, &m);
    m.warnings = r.diag;
    waste_budget_clamp(&m);
    r.diag = m.warnings;
    strbuf out = {0};
    metrics_json_render(&m, 0, &out);
    strbuf_free(&out);
    diag_free(&r.diag);
    kernel_summary_free(&r.k);
    torch_summary_free(&r.t);
    telemetry_summary_free(&r.s);
    return 0;
}
