/* artefact_reader: open, check, read (and inflate), feed; large files in two pieces. */
#include "core/artefact_reader.h"
#include "base/clock.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/artefact_reader_internal.h"
#include "core/format_pipe.h"
#include "core/run_files.h"
#include "core/source_read.h"
#include "parsers/parser_registry.h"

#define SPLIT_MIN_DEFAULT (4u << 20)    /* smaller pieces are not worth a thread */
#define RESUME_WINDOW (64u << 10)       /* how far past the wanted split a resume point is looked for */

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Bytes [from, to) of fd (to its end when to is UINT64_MAX) to the parser, through the one
 * reader loop (core/source_read); false after a read error or a limit (warned). *stopped:
 * the parser said it needs no more input. */
static bool pump_range(const parse_options *opt, int fd, uint64_t from, uint64_t to, const artefact_parser *p, void *st,
                       const char *label, diag_list *diag, uint64_t *fed, bool *stopped) {
    return source_pump(fd, false, from, to, p, st, opt, label, diag, fed, stopped);
}

void artefact_summary_reset(artefact_kind kind, void *summary) {
    switch (kind) {
    case ARTEFACT_KERNEL_TRACE: kernel_summary_free(summary); memset(summary, 0, sizeof(kernel_summary)); break;
    case ARTEFACT_TORCH_PROFILE: torch_summary_free(summary); memset(summary, 0, sizeof(torch_summary)); break;
    case ARTEFACT_TELEMETRY: telemetry_summary_free(summary); memset(summary, 0, sizeof(telemetry_summary)); break;
    default: break;
    }
}


/* Every check of artefact_read(); false after a warning (nothing is open then). */
bool artefact_open_checked(const char *path, artefact_kind kind, const parse_options *opt, diag_list *diag,
                         artefact_info *info, artefact_opened *o) {
    memset(info, 0, sizeof *info);
    o->fd = -1;
    o->label = base_name(path);
    o->path = path;
    const char *what = artefact_kind_name(kind);
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) diag_add(diag, "%s not found: %s", what, o->label);
        else diag_add(diag, "%s unreadable: %s: %s", what, o->label, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_add(diag, "%s is not a regular file: %s", what, o->label);
        return false;
    }
    int fd = artefact_open(path, opt->confine_root, &st);
    if (fd == -1 && errno == ENOMEM) {
        diag_oom(diag, "%s %s: out of memory", what, o->label);
        return false;
    }
    if (fd == -2) {
        diag_add(diag, "%s %s resolves outside the run root; not followed", what, o->label);
        return false;
    }
    if (fd < 0 && errno == EINVAL) {
        diag_add(diag, "%s is not a regular file: %s", what, o->label);
        return false;
    }
    if (fd < 0) {
        diag_add(diag, "%s unreadable: %s: %s", what, o->label, strerror(errno));
        return false;
    }
    info->present = true;
    info->size = (uint64_t)st.st_size;
    info->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    info->inode = (uint64_t)st.st_ino;
    uint8_t head[SNIFF_BYTES];
    ssize_t hn = pread(fd, head, sizeof head, 0);
    o->p = parser_for(kind, o->label, head, hn > 0 ? (size_t)hn : 0);
    o->gz = ends_with(o->label, ".gz");
    o->fd = fd;
    if (!o->p) {
        diag_add(diag, "%s: no parser for this file", o->label);
        close(fd);
        o->fd = -1;
        return false;
    }
    info->format = o->p->name;
    info->sniff_score = o->p->sniff(o->label, head, hn > 0 ? (size_t)hn : 0);
    info->pieces = 1;
    return true;
}

/* Reads an opened file from start to end through one parser state, then closes it. */
void artefact_read_whole(artefact_opened *o, artefact_kind kind, const parse_options *opt, void *summary, diag_list *diag,
                       artefact_info *info) {
    format_pipe pipe;
    if (!format_pipe_open(&pipe, o->p, kind, opt, o->label, summary, diag)) {
        diag_oom(diag, "%s: out of memory", o->label);
        close(o->fd);
        return;
    }
    double t0 = clk_mono_ms_f();
    if (o->p->read_fd) {                            /* not a byte stream: the format reads the open file */
        bool ok = o->p->read_fd(pipe.fmt, o->fd, o->path);
        info->bytes_parsed = ok ? info->size : 0;
        if (ok) format_pipe_finish(&pipe);
        info->parse_ms = clk_mono_ms_f() - t0;
        format_pipe_close(&pipe);
        if (!ok) artefact_summary_reset(kind, summary);
        close(o->fd);
        return;
    }
    bool stopped, ok = source_pump(o->fd, o->gz, 0, UINT64_MAX, o->p, pipe.fmt, opt, o->label, diag,
                                   &info->bytes_parsed, &stopped);
    if (ok) format_pipe_finish(&pipe);
    info->parse_ms = clk_mono_ms_f() - t0;
    format_pipe_close(&pipe);
    if (!ok) artefact_summary_reset(kind, summary);   /* like the reference: nothing from a failed read */
    close(o->fd);
}

void artefact_read(const char *path, artefact_kind kind, const parse_options *opt, void *summary,
                   diag_list *diag, artefact_info *info) {
    artefact_opened o;
    if (artefact_open_checked(path, kind, opt, diag, info, &o)) artefact_read_whole(&o, kind, opt, summary, diag, info);
}

/* A read begun by artefact_read_begin(): either the whole file on the second thread, or
 * its head there (up to the resume point `at`) and its tail on the caller's thread. */
struct artefact_reading {
    const char *path;
    artefact_kind kind;
    const parse_options *opt;
    void *summary;
    diag_list *diag;
    artefact_info *info;
    pthread_t thread;
    bool threaded;
    bool split;
    /* split reads only */
    artefact_opened o;
    uint64_t at;
    uint8_t *head_buf;
    format_pipe head, tail;
    bool head_open, tail_open;
    bool head_ok, head_stopped;
    double head_ms;
    diag_list tail_diag;
};

static void *whole_thread(void *arg) {
    artefact_reading *r = arg;
    artefact_read(r->path, r->kind, r->opt, r->summary, r->diag, r->info);
    return NULL;
}

static void *head_thread(void *arg) {
    artefact_reading *r = arg;
    double t0 = clk_mono_ms_f();
    r->head_ok = pump_range(r->opt, r->o.fd, 0, r->at, r->o.p, r->head.fmt, r->o.label, r->diag,
                            &r->info->bytes_parsed, &r->head_stopped);
    r->head_ms = clk_mono_ms_f() - t0;
    return NULL;
}

/* Where the head should end: a resume point at or after `want`, or 0 for none. */
static uint64_t find_split(const artefact_opened *o, uint64_t want, uint64_t size, uint64_t min_piece) {
    if (o->gz || !o->p->resume_point || want < min_piece || want + min_piece > size) return 0;
    uint8_t *win = malloc(RESUME_WINDOW);
    ssize_t n = win ? pread(o->fd, win, RESUME_WINDOW, (off_t)want) : -1;
    uint64_t at = 0;
    if (n > 0) {
        size_t i = o->p->resume_point(win, (size_t)n);
        if (i < (size_t)n) at = want + i;
    }
    free(win);
    return at;
}

static void split_free(artefact_reading *r) {
    if (r->head_open) format_pipe_close(&r->head);
    if (r->tail_open) format_pipe_close(&r->tail);
    free(r->head_buf);
    r->head_open = r->tail_open = false;
    r->head_buf = NULL;
}

artefact_reading *artefact_read_begin(const char *path, artefact_kind kind, const parse_options *opt, void *summary,
                                      diag_list *diag, artefact_info *info, uint64_t tail_bytes) {
    artefact_reading *r = calloc(1, sizeof *r);
    if (!r) { artefact_read(path, kind, opt, summary, diag, info); return NULL; }
    *r = (artefact_reading){.path = path, .kind = kind, .opt = opt, .summary = summary, .diag = diag, .info = info};
    diag_init(&r->tail_diag);
    if (tail_bytes) {
        if (!artefact_open_checked(path, kind, opt, diag, info, &r->o)) { free(r); return NULL; }   /* warned: done */
        uint64_t min_piece = opt->split_min_bytes ? opt->split_min_bytes : SPLIT_MIN_DEFAULT;
        r->at = info->size > tail_bytes ? find_split(&r->o, info->size - tail_bytes, info->size, min_piece) : 0;
        if (r->at) {
            r->head_buf = malloc(RESUME_WINDOW);     /* (the head piece reads through its own buffer) */
            /* the file's first bytes, for a tail that must know the header (CSV) */
            ssize_t hn = r->head_buf ? pread(r->o.fd, r->head_buf, RESUME_WINDOW, 0) : -1;
            r->head_open = hn > 0 && format_pipe_open(&r->head, r->o.p, kind, opt, r->o.label, summary, diag);
            r->tail_open = r->head_open && format_pipe_open_resumed(&r->tail, r->o.p, kind, opt, r->o.label, summary,
                                                                    &r->tail_diag, r->at, r->head_buf, (size_t)hn);
        }
        if (r->tail_open) {
            r->split = true;
            r->threaded = pthread_create(&r->thread, NULL, head_thread, r) == 0;
            return r;
        }
        split_free(r);
        close(r->o.fd);               /* no split after all: read whole, below */
    }
    r->threaded = pthread_create(&r->thread, NULL, whole_thread, r) == 0;
    return r;
}

/* The tail on this thread, then the join (or, when it declines, the head reads on). */
static void read_split(artefact_reading *r) {
    artefact_opened *o = &r->o;
    artefact_info *info = r->info;
    double t0 = clk_mono_ms_f();
    uint64_t tail_bytes = 0;
    bool stopped, tail_ok = pump_range(r->opt, o->fd, r->at, UINT64_MAX, o->p, r->tail.fmt, o->label, &r->tail_diag,
                                       &tail_bytes, &stopped);
    if (r->threaded) pthread_join(r->thread, NULL);
    else head_thread(r);
    bool head_whole = r->head_ok && !r->head_stopped && info->bytes_parsed == r->at;
    if (head_whole && tail_ok && format_pipe_join(&r->head, &r->tail)) {
        info->bytes_parsed += tail_bytes;
        info->pieces = 2;
        format_pipe_finish(&r->tail);
        diag_move(r->diag, &r->tail_diag);
    } else {
        bool ok = r->head_ok;
        if (head_whole)                          /* the head reads on alone */
            ok = pump_range(r->opt, o->fd, r->at, UINT64_MAX, o->p, r->head.fmt, o->label, r->diag,
                            &info->bytes_parsed, &stopped);
        if (ok) format_pipe_finish(&r->head);
        else artefact_summary_reset(r->kind, r->summary);
    }
    info->parse_ms = clk_mono_ms_f() - t0 + r->head_ms;
    split_free(r);
    close(o->fd);
}

void artefact_read_end(artefact_reading *r) {
    if (!r) return;
    if (r->split) read_split(r);
    else if (r->threaded) pthread_join(r->thread, NULL);
    else whole_thread(r);
    diag_free(&r->tail_diag);
    free(r);
}
