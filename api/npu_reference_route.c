/* npu_reference_route: GET /runs/<id>/npu_reference.zip — the run's npu_ops in the msprof
 * reference CSV layout (core/npu_reference_export), one CSV per operator type, zipped.
 *
 * The daemon re-reads the run's msprof files from the run directory it ingested (the stored
 * path, confined to the stored watch root), not the stored analysis document: the document's
 * npu_ops lists are cut by analysis_list_rows and do not carry OP State, Accelerator Core or
 * Output Formats. The work runs on a body stream's own thread (api/body_stream.h), never on
 * the HTTP thread: the CSVs are written into a fresh temporary directory, zipped by libzip
 * into a temporary file beside them (each CSV deflated from disk as libzip writes it,
 * api/deflated_entry.h: memory is the npu_ops state, not the archive), and the archive is
 * streamed in 64 KiB reads; every temporary file is removed before the first byte is sent. A failure part way breaks the
 * chunked transfer off (the client never gets a short archive that opens). The configured
 * npu_reference_dir is not known to the API: the run's own reference/ directory is read. */
#include "api/npu_reference_route.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#include "api/deflated_entry.h"
#include "api/http_send.h"
#include "base/clock.h"
#include "core/npu_reference_export.h"

typedef struct export_job {
    parse_limits lim;        /* the ingest's bounds when the request came (api_export_limits) */
    char *run_dir, *root;
} export_job;

static void job_free(void *arg) {
    export_job *j = arg;
    if (!j) return;
    free(j->run_dir);
    free(j->root);
    free(j);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The CSV names in dir, sorted (the archive's order does not depend on the file system);
 * NULL on allocation failure or an unreadable directory. */
static char **list_csvs(const char *dir, size_t *n) {
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 5 || strcmp(e->d_name + l - 4, ".csv")) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **g = realloc(names, cap * sizeof *g);
            if (!g) { ok = false; break; }
            names = g;
        }
        if (!(names[*n] = strdup(e->d_name))) ok = false;
        else (*n)++;
    }
    closedir(d);
    if (!ok) {
        for (size_t i = 0; i < *n; i++) free(names[i]);
        free(names);
        return NULL;
    }
    if (*n > 1) qsort(names, *n, sizeof *names, cmp_str);
    return names ? names : calloc(1, sizeof *names);
}

/* Every entry's modification time: 1980-01-02 (the first day of the zip's DOS time, a day
 * in so that no time zone takes it before the epoch). */
#define ZIP_MTIME ((time_t)315619200)

/* Zips dir's CSVs into zip_path; false on any libzip error. */
static bool zip_dir(const char *dir, const char *zip_path) {
    size_t n;
    char **names = list_csvs(dir, &n);
    if (!names) return false;
    int zerr = 0;
    zip_t *z = zip_open(zip_path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    bool ok = z != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) { ok = false; break; }
        zip_source_t *src = deflated_entry_source(z, path);
        if (!src) { ok = false; break; }
        zip_int64_t idx = zip_file_add(z, names[i], src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
        if (idx < 0) {
            zip_source_free(src);
            ok = false;
        } else if (zip_file_set_mtime(z, (zip_uint64_t)idx, ZIP_MTIME, 0) < 0) {
            ok = false;           /* a fixed time: the same export is the same archive, byte for byte */
        }
    }
    if (z) {
        if (ok) ok = zip_close(z) == 0;    /* reads the CSVs now; a zip_close that fails frees nothing */
        if (!ok) zip_discard(z);
    }
    if (ok && n == 0) {   /* libzip writes no file for an empty archive: the 22-byte empty one */
        static const unsigned char EMPTY[22] = {0x50, 0x4b, 0x05, 0x06};
        FILE *f = fopen(zip_path, "wb");
        ok = f && fwrite(EMPTY, 1, sizeof EMPTY, f) == sizeof EMPTY;
        if (f) ok = (fclose(f) == 0) && ok;
    }
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) < (int)sizeof path) unlink(path);
        free(names[i]);
    }
    free(names);
    return ok;
}

/* Removes every file in dir (the CSVs of a failed export) without allocating: it runs after
 * memory ran out too, and a listing by readdir() or list_csvs would need memory (then the
 * temporary directory stayed on disk). getdents64 into a buffer on the stack; passes until
 * one finds nothing, as removing entries while listing may skip some. */
static void empty_dir(const char *dir) {
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) return;
    for (int pass = 0; pass < 8; pass++) {
        bool removed = false;
        _Alignas(8) char buf[8192];     /* struct dirent64's alignment */
        long n;
        lseek(d, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                const struct dirent64 *e = (const struct dirent64 *)(const void *)(buf + off);
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlinkat(d, e->d_name, 0) == 0) removed = true;
                off += e->d_reclen;
            }
        }
        if (!removed) break;
    }
    close(d);
}

/* The producer: export, zip, remove the temporaries, stream the archive. */
static bool produce(body_stream *s, void *arg) {
    export_job *j = arg;
    const char *tmpdir = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/goblind-npuref-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) return false;
    char zip_path[4200];
    snprintf(zip_path, sizeof zip_path, "%s/.archive.zip", dir);
    diag_list diag;
    diag_init(&diag);
    parse_limits lim = j->lim;         /* the read's clock starts now; the zip streams after it */
    lim.cancel = body_stream_cancel_flag(s);
    if (lim.max_seconds) lim.deadline_ms = clk_mono_ms() + lim.max_seconds * 1000LL;
    parse_options parse = {.confine_root = j->root && *j->root ? j->root : NULL, .limits = &lim};
    npu_reference_summary sum;
    bool ok = npu_reference_export(j->run_dir, NULL, &parse, dir, &sum, &diag) && !sum.cut;
    diag_free(&diag);
    ok = ok && zip_dir(dir, zip_path);
    int fd = ok ? open(zip_path, O_RDONLY | O_CLOEXEC) : -1;
    if (!ok) empty_dir(dir);   /* the CSVs a failed export left */
    unlink(zip_path);
    rmdir(dir);
    if (fd < 0) return false;
    char buf[65536];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        if (!body_stream_write(s, buf, (size_t)got)) { close(fd); return false; }
    close(fd);
    return got == 0;
}

enum MHD_Result route_npu_reference_zip(api *a, struct MHD_Connection *c, const char *id) {
    route_run_paths p;
    if (!route_get_run_paths(a, id, &p)) return route_read_failed(a, c);
    struct stat st;
    if (!p.found || store_corruption(api_store(a))) {
        free(p.path), free(p.root);
        return route_no_such_run(a, c);
    }
    if (!p.path || !*p.path || stat(p.path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(p.path), free(p.root);
        return api_send_error(c, MHD_HTTP_GONE, "gone", "the run's directory is no longer on disk; its msprof files "
                              "cannot be read again");
    }
    export_job *j = calloc(1, sizeof *j);
    if (!j) { free(p.path), free(p.root); return MHD_NO; }
    api_export_limits(a, &j->lim);
    j->run_dir = p.path;
    j->root = p.root;
    struct MHD_Response *r = body_stream_start(api_streams(a), c, produce, j, job_free);
    if (!r) {
        api_close_after_response();
        return api_send_json(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                             json_pack("{s:s, s:s}", "error", "busy", "detail",
                                       "too many large answers are being sent now; retry"),
                             NULL, 2);
    }
    char disposition[200];
    snprintf(disposition, sizeof disposition, "attachment; filename=\"%s_npu_reference.zip\"", id);
    MHD_add_response_header(r, "Content-Type", "application/zip");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "Content-Disposition", disposition);
    http_note_status(MHD_HTTP_OK);
    enum MHD_Result ret = http_queue(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}
