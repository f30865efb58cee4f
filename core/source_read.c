/* source_read: one file through its record format (see source_read.h). */
#include "core/source_read.h"
#include "base/clock.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/artefact_reader.h"
#include "parsers/tokenizers/gunzip.h"

#define CHUNK (1u << 20)
#define GZ_CHUNK (64u << 10)

typedef struct pump {
    const artefact_parser *p;
    void *st;
    const parse_options *opt;
    const char *label;
    diag_list *diag;
    uint64_t base;           /* the file offset the range starts at (0: a whole stream) */
    uint64_t fed;            /* bytes read (after inflation) */
    uint64_t fmt_fed;        /* of which the format took */
    bool stopped;            /* neither wants more input, or a limit stopped the read */
    bool failed;             /* a read error, bad gzip data or a limit (warned) */
    bool drops_whole;        /* a failure drops the reading whole (RunMetrics'): the limit's words */
    bool fmt_on;             /* the format still wants bytes */
    const source_tee *tee;   /* the passenger, NULL when none (or it wants no more) */
} pump;

/* The read ended early (a limit) with `incoming` bytes in hand: a passenger still wanting
 * bytes is told. */
static void tee_stopped_early(pump *u, uint64_t incoming) {
    if (u->tee && u->tee->stopped_early) u->tee->stopped_early(u->tee->user, u->base + u->fed, incoming);
    u->tee = NULL;
}

bool source_over_limits(const parse_options *opt, const char *label, diag_list *diag, uint64_t fed,
                        uint64_t incoming, bool drops_whole) {
    const parse_limits *l = opt ? opt->limits : NULL;
    if (!l) return false;
    if (l->cancel && atomic_load(l->cancel)) {
        diag_add(diag, "%s: %s cancelled at byte %llu (shutting down)", label, drops_whole ? "parse" : "read",
                 (unsigned long long)fed);
        return true;
    }
    if (l->max_bytes && incoming > l->max_bytes - (fed < l->max_bytes ? fed : l->max_bytes)) {
        if (drops_whole)
            diag_add(diag, "%s: not parsed: more than %llu MiB of content (after inflation); max_parse_mb bounds a parse",
                     label, (unsigned long long)(l->max_bytes >> 20));
        else
            diag_add(diag, "%s: read stopped after %llu MiB of content (after inflation); max_parse_mb bounds a parse",
                     label, (unsigned long long)(l->max_bytes >> 20));
        return true;
    }
    if (l->deadline_ms && clk_mono_ms() > l->deadline_ms) {
        diag_add(diag, "%s: %s at byte %llu after %d s; max_parse_s bounds a parse", label,
                 drops_whole ? "not parsed: still reading" : "read stopped", (unsigned long long)fed, l->max_seconds);
        return true;
    }
    return false;
}

/* Where the read's own warnings go: nowhere once its format wanted no more input and only a
 * passenger on the bytes keeps the read going (the reading's warnings must not depend on
 * whether RunMetrics rides along); the passenger hears of the failure all the same. */
static diag_list *own_diag(pump *u, diag_list *scratch) { return u->fmt_on || !u->p ? u->diag : scratch; }

/* A limit says stop before `incoming` more bytes (warned): the read fails there. */
static bool over_limits(pump *u, uint64_t incoming) {
    diag_list scratch;
    diag_init(&scratch);
    bool over = source_over_limits(u->opt, u->label, own_diag(u, &scratch), u->base + u->fed, incoming, u->drops_whole);
    diag_free(&scratch);
    if (!over) return false;
    u->stopped = u->failed = true;
    tee_stopped_early(u, incoming);
    return true;
}

/* The pump's sink for every byte read (inflated, for .gz): the limits are checked before
 * each piece, so a gzip bomb is stopped within one inflated chunk. */
static bool pump_feed(void *user, const uint8_t *buf, size_t n) {
    pump *u = user;
    if (u->stopped) return false;
    /* every reading is fed every byte up to max_parse_mb, the part of this piece that fits too
     * (then the check below stops it): where a format declines, or a limit stops, does not
     * depend on how the file was cut into chunks or pieces, nor on which reader reads it */
    const parse_limits *l = u->opt ? u->opt->limits : NULL;
    uint64_t at = u->base + u->fed;
    if (l && l->max_bytes && at < l->max_bytes && n > l->max_bytes - at) {
        size_t fit = (size_t)(l->max_bytes - at);
        if (!pump_feed(u, buf, fit)) return false;
        buf += fit, n -= fit;
    }
    if (over_limits(u, n)) return false;
    u->fed += n;
    if (u->fmt_on) {
        u->fmt_fed += n;
        if (!u->p->feed(u->st, buf, n)) u->fmt_on = false;
    }
    if (u->tee && !u->tee->feed(u->tee->user, buf, n)) u->tee = NULL;
    /* a records passenger's feed only counts the bytes its records came from: it stops with the format */
    if (u->tee && u->tee->records && !u->fmt_on) u->tee = NULL;
    if (!u->fmt_on && !u->tee) u->stopped = true;
    return !u->stopped;
}

static bool fan_emit(void *user, const record *r) {
    const source_fanout *f = user;
    bool ok = true;
    if (record_sink_wants(f->a, r->type)) ok &= record_emit(f->a, r);
    if (record_sink_wants(f->b, r->type)) ok &= record_emit(f->b, r);
    return ok;
}

/* A sink's types as bits (0 in record_sink.types: every type but REC_TRACE_EVENT). */
static unsigned types_of(const record_sink *s) { return s->types ? s->types : ~(1u << REC_TRACE_EVENT); }

record_sink source_fanout_sink(source_fanout *f, const record_sink *a, const record_sink *b) {
    f->a = a;
    f->b = b;
    return (record_sink){.emit = fan_emit, .user = f, .fields = a->fields | b->fields,
                         .types = types_of(a) | types_of(b)};
}

static pump pump_new(const artefact_parser *p, void *st, const parse_options *opt, const char *label, diag_list *diag,
                     const source_tee *tee) {
    return (pump){.p = p, .st = st, .opt = opt, .label = label, .diag = diag, .fmt_on = p && st, .tee = tee};
}

/* A read error at byte `at` (warned; a passenger still reading is told). */
static void read_failed(pump *u, uint64_t at, int err) {
    if (err == ENOMEM) diag_oom(u->diag, "%s: out of memory at byte %llu", u->label, (unsigned long long)at);
    else if (u->fmt_on || !u->p)
        diag_add(u->diag, "%s: read error at byte %llu: %s", u->label, (unsigned long long)at, strerror(err));
    if (u->tee) u->tee->read_error(u->tee->user, at, err);
    u->tee = NULL;
    u->failed = u->stopped = true;
}

/* Bad gzip data (warned; a passenger still reading is told), or zlib out of memory (a read
 * error ENOMEM: no fault of the file). */
static void gzip_failed(pump *u, const gunzip *g) {
    if (gunzip_out_of_memory(g)) { read_failed(u, gunzip_error_offset(g), ENOMEM); return; }
    if (u->fmt_on || !u->p)
        diag_add(u->diag, "%s: invalid gzip data near byte %llu: %s", u->label,
                 (unsigned long long)gunzip_error_offset(g), gunzip_error(g));
    if (u->tee) u->tee->gzip_error(u->tee->user, gunzip_error_offset(g), gunzip_error(g));
    u->tee = NULL;
    u->failed = u->stopped = true;
}

/* fd from its current offset to its end through the pump, inflated when gz: the one loop
 * every streamed file is read by (a RunMetrics reading's and the analysis document's). */
static void pump_stream(pump *u, int fd, bool gz) {
    gunzip *g = gz ? gunzip_new(pump_feed, u) : NULL;
    /* compressed input is read 64 KiB at a time: at deflate's ~1000:1 that inflates to ~64 MiB,
     * so a limit or a shutdown is seen soon even in a gzip bomb */
    size_t chunk = gz ? GZ_CHUNK : CHUNK;
    uint8_t *buf = malloc(chunk);
    if (!buf || (gz && !g)) {
        diag_oom(u->diag, "%s: out of memory", u->label);
        if (u->tee) u->tee->read_error(u->tee->user, 0, ENOMEM);
        u->tee = NULL;
        u->failed = u->stopped = true;
    }
    uint64_t in_off = 0;
    while (!u->stopped) {
        if (over_limits(u, 0)) break;
        ssize_t n = read(fd, buf, chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { read_failed(u, g ? in_off : u->fed, errno); break; }
        if (n == 0) {
            if (g && !gunzip_finish(g) && !u->stopped) gzip_failed(u, g);   /* (a limit in the last flush: warned) */
            break;
        }
        in_off += (uint64_t)n;
        if (!g) { pump_feed(u, buf, (size_t)n); continue; }
        if (!gunzip_feed(g, buf, (size_t)n) && !u->stopped) { gzip_failed(u, g); break; }  /* (the format declining is no gzip error) */
    }
    free(buf);
    if (g) gunzip_free(g);
}

void source_read_tee(const char *path, const char *label, const artefact_parser *p, const parse_options *opt,
                     const record_sink *sink, read_facts *facts, diag_list *diag, source_read_stats *st,
                     const source_tee *tee) {
    memset(st, 0, sizeof *st);
    int64_t t0 = clk_mono_ns();
    uint64_t size, inode;
    int64_t mtime;
    if (!artefact_identity(path, opt ? opt->confine_root : NULL, &size, &mtime, &inode)) {
        bool oom = errno == ENOMEM;
        if (oom) diag_oom(diag, "%s: out of memory", label);
        else diag_add(diag, "%s: not read: not a regular file inside the run directory", label);
        if (tee) tee->read_error(tee->user, 0, oom ? ENOMEM : ENOENT);
        return;
    }
    struct stat sb;
    int fd = artefact_open(path, opt ? opt->confine_root : NULL, &sb);
    if (fd == -1 && errno == ENOMEM) {
        diag_oom(diag, "%s: out of memory", label);
        if (tee) tee->read_error(tee->user, 0, ENOMEM);
        return;
    }
    if (fd < 0) {
        int err = fd == -2 ? ENOENT : errno;
        diag_add(diag, "%s: not read: %s", label, fd == -2 ? "resolves outside the run directory"
                                                 : err == EINVAL ? "not a regular file" : "cannot be opened");
        if (tee) tee->read_error(tee->user, 0, err);
        return;
    }
    /* one read for the passenger too: a database's records, a shared format's (tee->records),
     * or a pair state's second half (tee->reading) */
    bool pair = tee && tee->records && tee->reading && p->open_records_pair;
    bool rec_tee = tee && tee->records && (p->read_fd || p->shares_records || pair);
    source_fanout fan;
    record_sink both = rec_tee && !pair ? source_fanout_sink(&fan, sink, tee->records) : *sink;
    void *state = pair ? p->open_records_pair(opt, label, sink, facts, diag, tee->reading)
                       : p->open_records(opt, label, rec_tee ? &both : sink, facts, diag);
    if (!state) { diag_oom(diag, "%s: out of memory", label); if (tee) tee->read_error(tee->user, 0, ENOMEM); close(fd); return; }
    st->present = true;
    pump u = pump_new(p, state, opt, label, diag, p->read_fd ? NULL : tee);
    bool read_ok = false;
    size_t first = diag->count;
    if (p->read_fd) {
        if (tee && !rec_tee) tee->read_error(tee->user, 0, EINVAL);   /* (a byte passenger cannot follow) */
        read_ok = p->read_fd(state, fd, path);
        u.fed = u.fmt_fed = (uint64_t)sb.st_size;
    } else {
        size_t len = strlen(path);
        pump_stream(&u, fd, len > 3 && !strcmp(path + len - 3, ".gz"));
    }
    size_t end = diag->count;         /* a failed read apart is not finished: no finish warnings */
    p->finish(state);
    if (facts && facts->out_of_memory) diag_oom(diag, "%s: out of memory recording how the file was read", label);
    if (read_ok) end = diag->count;
    p->close(state);
    close(fd);
    st->bytes_read = u.fmt_fed;
    st->parse_ms = (double)(clk_mono_ns() - t0) / 1e6;
    /* (a byte stream's failures reached the passenger as they came: read and gzip errors, limits) */
    if (rec_tee) tee->records_end(tee->user, p->read_fd ? read_ok : true, facts, diag, first, end, label, st->parse_ms);
}

int source_open(const char *path, const char *label, const parse_options *opt, diag_list *diag) {
    uint64_t size, inode;
    int64_t mtime;
    if (!artefact_identity(path, opt ? opt->confine_root : NULL, &size, &mtime, &inode)) {
        if (errno == ENOMEM) diag_oom(diag, "%s: out of memory", label);
        else diag_add(diag, "%s: not read: not a regular file inside the run directory", label);
        return -1;
    }
    struct stat sb;
    int fd = artefact_open(path, opt ? opt->confine_root : NULL, &sb);
    if (fd == -1 && errno == ENOMEM) diag_oom(diag, "%s: out of memory", label);
    else if (fd < 0) diag_add(diag, "%s: cannot be opened as a regular file inside the run directory", label);
    return fd < 0 ? -1 : fd;
}

uint64_t source_feed_range_tee(int fd, uint64_t from, uint64_t to, const artefact_parser *p, void *st,
                               const parse_options *opt, const char *label, diag_list *diag, const source_tee *tee) {
    return source_feed_until(fd, from, to, NULL, p, st, opt, label, diag, tee);
}

/* The end of the read: to, or end->to taken under its lock before each chunk, the chunk's
 * bytes then claimed (source_read_range_end_cut accepts no cut before them). */
static uint64_t next_end(uint64_t off, uint64_t to, range_end *end) {
    if (!end) return to;
    pthread_mutex_lock(&end->mu);
    to = end->to;
    uint64_t stop = to - off < CHUNK ? to : off + CHUNK;
    if (off < to && stop > end->claimed) end->claimed = stop;
    pthread_mutex_unlock(&end->mu);
    return to;
}

/* Bytes [from, to) of fd through the pump (the end in end when set), by pread. */
static void pump_range(pump *u, int fd, uint64_t from, uint64_t to, range_end *end) {
    uint8_t *buf = malloc(CHUNK);
    if (!buf) {
        diag_oom(u->diag, "%s: out of memory", u->label);
        if (u->tee) u->tee->read_error(u->tee->user, from, ENOMEM);
        u->tee = NULL;
        u->failed = u->stopped = true;
        return;
    }
    for (uint64_t off = from; !u->stopped;) {
        if ((to = next_end(off, to, end)) <= off) break;
        if (over_limits(u, 0)) break;
        size_t want = to - off < CHUNK ? (size_t)(to - off) : CHUNK;
        ssize_t n = pread(fd, buf, want, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { read_failed(u, off, errno); break; }
        if (n == 0) break;
        pump_feed(u, buf, (size_t)n);
        off += (uint64_t)n;
    }
    free(buf);
}

uint64_t source_feed_until(int fd, uint64_t from, uint64_t to, range_end *end, const artefact_parser *p, void *st,
                           const parse_options *opt, const char *label, diag_list *diag, const source_tee *tee) {
    pump u = pump_new(p, st, opt, label, diag, tee);
    u.base = from;
    pump_range(&u, fd, from, to, end);
    return p && st ? u.fmt_fed : u.fed;
}

bool source_pump(int fd, bool gz, uint64_t from, uint64_t to, const artefact_parser *p, void *st,
                 const parse_options *opt, const char *label, diag_list *diag, uint64_t *fed, bool *stopped) {
    assert(!gz || from == 0);
    pump u = pump_new(p, st, opt, label, diag, NULL);
    u.drops_whole = true;
    u.base = from;
    if (gz) pump_stream(&u, fd, true);
    else pump_range(&u, fd, from, to, NULL);
    *fed += u.fed;
    *stopped = !u.failed && !u.fmt_on;
    return !u.failed;
}

bool source_read_range_end_cut(range_end *end, uint64_t at) {
    pthread_mutex_lock(&end->mu);
    bool ok = at >= end->claimed && at <= end->to;
    if (ok) end->to = at;
    pthread_mutex_unlock(&end->mu);
    return ok;
}

uint64_t source_read_range_end_claimed(range_end *end) {
    pthread_mutex_lock(&end->mu);
    uint64_t c = end->claimed;
    pthread_mutex_unlock(&end->mu);
    return c;
}

/* The first warning of d from `from` on ending with one of ends[0..n). */
static const char *warning_ending(const diag_list *d, size_t from, const char *const *ends, size_t n_ends) {
    for (size_t i = from; i < d->count; i++) {
        size_t n = strlen(d->items[i]);
        for (size_t k = 0; k < n_ends; k++) {
            size_t m = strlen(ends[k]);
            if (n >= m && !strcmp(d->items[i] + n - m, ends[k])) return d->items[i];
        }
    }
    return NULL;
}

bool source_read_stop_warned(const diag_list *d, size_t from) {
    static const char *const ENDS[] = {"bounds a parse", "bounds a parse)", "(shutting down)"};
    return warning_ending(d, from, ENDS, sizeof ENDS / sizeof *ENDS) != NULL;
}

const char *source_read_bound_warning(const diag_list *d, size_t from) {
    static const char *const ENDS[] = {"bounds a parse", "bounds a parse)"};
    return warning_ending(d, from, ENDS, sizeof ENDS / sizeof *ENDS);
}
