/* artefact_reader: open, check, read (and inflate), feed. */
#include "core/artefact_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/run_files.h"
#include "parsers/gunzip.h"
#include "parsers/parser_registry.h"

#define READ_CHUNK (1u << 20)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Reads fd to the end, feeding the parser; returns false after recording a warning. */
static bool pump_plain(int fd, const artefact_parser *p, void *st, uint8_t *buf, const char *label,
                       diag_list *diag, artefact_info *info) {
    for (;;) {
        ssize_t n = read(fd, buf, READ_CHUNK);
        if (n < 0) {
            if (errno == EINTR) continue;
            diag_add(diag, "%s: read error at byte %llu: %s", label, (unsigned long long)info->bytes_parsed,
                     strerror(errno));
            return false;
        }
        if (n == 0) return true;
        info->bytes_parsed += (uint64_t)n;
        if (!p->feed(st, buf, (size_t)n)) return true;   /* the parser has seen enough */
    }
}

typedef struct gz_sink_ctx {
    const artefact_parser *p;
    void *state;
} gz_sink_ctx;

static bool gz_sink(void *user, const uint8_t *buf, size_t n) {
    gz_sink_ctx *c = user;
    return c->p->feed(c->state, buf, n);
}

/* The compressed file through gunzip (gzip.decompress() semantics) into the parser. */
static bool pump_gzip(int fd, const artefact_parser *p, void *st, uint8_t *buf, const char *label,
                      diag_list *diag, artefact_info *info) {
    gz_sink_ctx ctx = {p, st};
    gunzip *g = gunzip_new(gz_sink, &ctx);
    if (!g) { diag_add(diag, "%s: out of memory", label); return false; }
    bool ok = true;
    uint64_t in_off = 0;
    for (;;) {
        ssize_t n = read(fd, buf, READ_CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            diag_add(diag, "%s: read error at byte %llu: %s", label, (unsigned long long)in_off, strerror(errno));
            ok = false;
            break;
        }
        if (n == 0) break;
        in_off += (uint64_t)n;
        if (!gunzip_feed(g, buf, (size_t)n)) break;
    }
    if (ok && !gunzip_finish(g)) {
        diag_add(diag, "%s: invalid gzip data near byte %llu: %s", label, (unsigned long long)gunzip_error_offset(g),
                 gunzip_error(g));
        ok = false;
    }
    info->bytes_parsed = gunzip_output_bytes(g);
    gunzip_free(g);
    return ok;
}

/* The resolved path when path lies inside root_path, NULL otherwise (caller frees).
 * quick: run directories and their sub-directories are only taken when lstat() says they
 * are real directories, so for change polling a non-symlink last component is inside as it
 * is. The open itself always resolves fully (a directory swapped for a link after
 * discovery must not lead out either). */
static char *resolve_inside(const char *path, const char *root_path, bool quick) {
    struct stat lst;
    if (quick && lstat(path, &lst) == 0 && !S_ISLNK(lst.st_mode)) return strdup(path);
    char *real = realpath(path, NULL);
    char *root = realpath(root_path, NULL);
    size_t rl = root ? strlen(root) : 0;
    bool inside = real && root && !strncmp(real, root, rl) && real[rl] == '/';
    free(root);
    if (!inside) { free(real); return NULL; }
    return real;
}

bool artefact_identity(const char *path, const char *confine_root, uint64_t *size, int64_t *mtime_ns, uint64_t *inode) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (confine_root) {
        char *real = resolve_inside(path, confine_root, true);
        if (!real) return false;
        free(real);
    }
    *size = (uint64_t)st.st_size;
    *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    *inode = (uint64_t)st.st_ino;
    return true;
}

void artefact_summary_reset(artefact_kind kind, void *summary) {
    switch (kind) {
    case ARTEFACT_KERNEL_TRACE: kernel_summary_free(summary); memset(summary, 0, sizeof(kernel_summary)); break;
    case ARTEFACT_TORCH_PROFILE: torch_summary_free(summary); memset(summary, 0, sizeof(torch_summary)); break;
    case ARTEFACT_TELEMETRY: telemetry_summary_free(summary); memset(summary, 0, sizeof(telemetry_summary)); break;
    default: break;
    }
}

void artefact_read(const char *path, artefact_kind kind, const parse_options *opt, void *summary,
                   diag_list *diag, artefact_info *info) {
    memset(info, 0, sizeof *info);
    const char *label = base_name(path);
    const char *what = artefact_kind_name(kind);
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) diag_add(diag, "%s not found: %s", what, label);
        else diag_add(diag, "%s unreadable: %s: %s", what, label, strerror(errno));
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_add(diag, "%s is not a regular file: %s", what, label);
        return;
    }
    char *real = NULL;
    if (opt->confine_root && !(real = resolve_inside(path, opt->confine_root, false))) {   /* no way out of the root */
        diag_add(diag, "%s %s resolves outside the run root; not followed", what, label);
        return;
    }
    /* O_NONBLOCK: a FIFO swapped in after stat() must not block the open. O_NOFOLLOW on the
     * resolved path: a symlink swapped in after the check is not followed either. */
    int fd = real ? open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
                  : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    free(real);
    if (fd < 0) {
        diag_add(diag, "%s unreadable: %s: %s", what, label, strerror(errno));
        return;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_add(diag, "%s is not a regular file: %s", what, label);
        close(fd);
        return;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    info->present = true;
    info->size = (uint64_t)st.st_size;
    info->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    info->inode = (uint64_t)st.st_ino;
    uint8_t *buf = malloc(READ_CHUNK);
    uint8_t head[64];
    ssize_t hn = pread(fd, head, sizeof head, 0);
    const artefact_parser *p = parser_for(kind, label, head, hn > 0 ? (size_t)hn : 0);
    void *state = buf && p ? p->open(opt, label, summary, diag) : NULL;
    if (!state) {
        diag_add(diag, "%s: out of memory", label);
        free(buf);
        close(fd);
        return;
    }
    info->format = p->name;
    double t0 = now_ms();
    bool gz = ends_with(label, ".gz");
    bool ok = gz ? pump_gzip(fd, p, state, buf, label, diag, info) : pump_plain(fd, p, state, buf, label, diag, info);
    if (ok) p->finish(state);
    else artefact_summary_reset(kind, summary);       /* like the reference: nothing from a failed read */
    info->parse_ms = now_ms() - t0;
    p->close(state);
    free(buf);
    close(fd);
}
