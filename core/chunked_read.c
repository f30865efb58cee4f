/* chunked_read: ordered chunked reads on worker threads (see chunked_read.h). */
#include "core/chunked_read.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/record_batch.h"

#define WINDOW 3u                 /* chunks parsed or in parse, not yet delivered */
#define HEAD_BYTES (64u << 10)    /* the file's first bytes a resumed state may need (CSV header) */
#define SEEK_BYTES (8u << 10)     /* a window searched for a resume point */
#define SEEK_MAX 512u             /* windows searched before the rest of the file is one chunk */
#define READ_BYTES (64u << 10)    /* a worker's read buffer */

struct chunked;

/* One chunk: its bytes [from, to), its format state and the records it emitted. */
typedef struct chunk {
    struct chunked *c;
    uint64_t from, to, fed;
    void *st;                     /* the format state (NULL: could not be opened) */
    record_batch batch;
    diag_list diag;               /* its warnings, merged into the file's in order */
    read_facts facts;             /* a resumed state's scratch facts (the join moves the file's) */
    bool failed;                  /* not read whole, or its batch went past its bound */
    bool ready;                   /* parsed (under the mutex) */
    struct chunk *next;           /* in the pool of emptied chunks */
} chunk;

typedef struct chunked {
    const artefact_parser *p;
    const parse_options *opt;
    const char *label;
    int fd;
    uint64_t size, chunk_bytes, batch_cap;   /* batch_cap: one batch's bound */
    record_sink sink;             /* the caller's (its fields are what the states are told) */
    read_facts *facts;
    uint8_t *head;
    size_t head_n;
    pthread_mutex_t mu;
    pthread_cond_t work, done;    /* a worker may claim; a chunk is ready */
    chunk *ring[WINDOW];          /* chunk k at ring[k % WINDOW] from its claim to its delivery */
    size_t claimed, delivered;    /* chunks claimed by workers; the next one to deliver */
    uint64_t next_from;
    bool all_claimed, stop;
    chunk *pool;                  /* emptied chunks, their batches' memory kept (under the mutex) */
} chunked;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool chunked_can_read(const artefact_parser *p, const char *path, uint64_t size, const parse_options *opt,
                      uint64_t chunk_bytes) {
    size_t len = strlen(path);
    if (!chunk_bytes) chunk_bytes = CHUNKED_CHUNK_BYTES;
    if (!p->open_records || !p->feed || p->read_fd || !p->resume_point || !p->open_records_resumed || !p->join)
        return false;
    if (len > 3 && !strcmp(path + len - 3, ".gz")) return false;
    if (opt && opt->limits && opt->limits->max_bytes) return false;
    return size > chunk_bytes;
}

/* The record sink of a chunk's state: the record copied into the chunk's batch. */
static bool batch_emit(void *user, const record *r) {
    chunk *ch = user;
    if (ch->batch.bytes > ch->c->batch_cap || !record_batch_add(&ch->batch, r)) {
        ch->failed = true;
        return false;
    }
    return true;
}

/* Where the chunk starting at from ends: the first resume point at or after from +
 * chunk_bytes, else the end of the file. Called under the mutex. */
static uint64_t chunk_end(chunked *c, uint64_t from, uint8_t *win) {
    uint64_t at = from + c->chunk_bytes;
    for (unsigned k = 0; k < SEEK_MAX && at < c->size; k++) {
        ssize_t n = pread(c->fd, win, SEEK_BYTES, (off_t)at);
        if (n <= 0) return c->size;
        size_t i = c->p->resume_point(win, (size_t)n);
        if (i < (size_t)n) return at + i;
        at += (uint64_t)n;
    }
    return c->size;
}

/* true when the daemon's cancel or deadline says stop (the sequential read then says so). */
static bool limits_hit(const parse_options *opt) {
    const parse_limits *l = opt ? opt->limits : NULL;
    if (!l) return false;
    if (l->cancel && atomic_load(l->cancel)) return true;
    return l->deadline_ms && now_ns() / 1000000 > l->deadline_ms;
}

/* Parses chunk ch (index k) on a worker thread into its batch. */
static void chunk_parse(chunked *c, chunk *ch, size_t k, uint8_t *buf) {
    record_sink s = c->sink;
    s.emit = batch_emit;
    s.user = ch;
    ch->st = k == 0 ? c->p->open_records(c->opt, c->label, &s, c->facts, &ch->diag)
                    : c->p->open_records_resumed(c->opt, c->label, &s, &ch->facts, &ch->diag, ch->from, c->head,
                                                 c->head_n);
    if (!ch->st) { ch->failed = true; return; }
    bool last = ch->to >= c->size;      /* read on to the end of the file, as a sequential read does
                                         * (a file still being written may have grown) */
    for (uint64_t off = ch->from; (last || off < ch->to) && !ch->failed;) {
        if (limits_hit(c->opt)) { ch->failed = true; break; }
        size_t want = last || ch->to - off >= READ_BYTES ? READ_BYTES : (size_t)(ch->to - off);
        ssize_t n = pread(c->fd, buf, want, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0 && last) break;
        if (n <= 0) { ch->failed = true; break; }   /* (the sequential read names a read error) */
        ch->fed += (uint64_t)n;
        off += (uint64_t)n;
        /* a format that stops early (a fatal error): a sequential read would have read on up
         * to its next 1 MiB boundary (bytes_read), and a later chunk's state knew nothing of it */
        if (!c->p->feed(ch->st, buf, (size_t)n)) { ch->failed = true; break; }
    }
    if (!last && ch->fed != ch->to - ch->from) ch->failed = true;
}

static void *worker(void *arg) {
    chunked *c = arg;
    uint8_t *buf = malloc(READ_BYTES > SEEK_BYTES ? READ_BYTES : SEEK_BYTES);
    pthread_mutex_lock(&c->mu);
    if (!buf) { c->stop = true; pthread_cond_broadcast(&c->done); }
    for (;;) {
        while (!c->stop && !c->all_claimed && c->claimed >= c->delivered + WINDOW) pthread_cond_wait(&c->work, &c->mu);
        if (c->stop || c->all_claimed) break;
        chunk *ch = c->pool;
        if (ch) c->pool = ch->next;
        else if ((ch = calloc(1, sizeof *ch))) {
            record_batch_init(&ch->batch);
            diag_init(&ch->diag);
        } else { c->stop = true; pthread_cond_broadcast(&c->done); break; }
        size_t k = c->claimed++;
        ch->c = c;
        ch->from = c->next_from;
        ch->to = c->next_from = chunk_end(c, ch->from, buf);
        c->all_claimed = ch->to >= c->size;
        c->ring[k % WINDOW] = ch;
        pthread_mutex_unlock(&c->mu);
        chunk_parse(c, ch, k, buf);
        pthread_mutex_lock(&c->mu);
        ch->ready = true;
        pthread_cond_broadcast(&c->done);
    }
    pthread_mutex_unlock(&c->mu);
    free(buf);
    return NULL;
}

static void chunk_free(const artefact_parser *p, chunk *ch) {
    if (!ch) return;
    if (ch->st) p->close(ch->st);
    record_batch_free(&ch->batch);
    diag_free(&ch->diag);
    read_facts_free(&ch->facts);
    free(ch);
}

/* Empties chunk ch (its state closed) into the pool, its batch's memory kept for the next
 * chunk: a batch holds megabytes, and fresh ones cost page faults. */
static void chunk_release(chunked *c, chunk *ch) {
    if (!ch) return;
    if (ch->st) c->p->close(ch->st);
    record_batch_clear(&ch->batch);
    diag_free(&ch->diag);
    diag_init(&ch->diag);
    read_facts_free(&ch->facts);
    record_batch b = ch->batch;
    diag_list d = ch->diag;
    memset(ch, 0, sizeof *ch);
    ch->batch = b;
    ch->diag = d;
    pthread_mutex_lock(&c->mu);
    ch->next = c->pool;
    c->pool = ch;
    pthread_mutex_unlock(&c->mu);
}

/* Hands chunk ch's warnings and records on (driver thread) and empties them. *sink_on turns
 * false when the sink refuses a record (out of memory): it gets no more. */
static void deliver(chunk *ch, const record_sink *sink, diag_list *diag, bool *sink_on) {
    for (size_t i = 0; i < ch->diag.count; i++) diag_add(diag, "%s", ch->diag.items[i]);
    diag_free(&ch->diag);
    diag_init(&ch->diag);
    for (size_t i = 0; *sink_on && i < ch->batch.n; i++)
        if (!record_emit(sink, ch->batch.recs[i])) *sink_on = false;
    record_batch_clear(&ch->batch);
}

int chunked_read(int fd, uint64_t size, const artefact_parser *p, const parse_options *opt, const char *label,
                 const record_sink *sink, read_facts *facts, diag_list *diag, const chunked_options *co,
                 source_read_stats *st, unsigned *pieces) {
    int64_t t0 = now_ns();
    uint64_t batch_max = co && co->batch_max_bytes ? co->batch_max_bytes : CHUNKED_BATCH_MAX_BYTES;
    chunked c = {.p = p, .opt = opt, .label = label, .fd = fd, .size = size, .sink = *sink, .facts = facts,
                 .chunk_bytes = co && co->chunk_bytes ? co->chunk_bytes : CHUNKED_CHUNK_BYTES,
                 .batch_cap = batch_max / (WINDOW + 1)};
    int workers = co && co->workers > 0 ? co->workers : 2;
    if (workers > 8) workers = 8;
    if (!(c.head = malloc(HEAD_BYTES))) return -1;
    ssize_t hn = pread(fd, c.head, HEAD_BYTES, 0);
    if (hn <= 0) { free(c.head); return -1; }
    c.head_n = (size_t)hn;
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.work, NULL);
    pthread_cond_init(&c.done, NULL);
    pthread_t th[8];
    int started = 0;
    while (started < workers && pthread_create(&th[started], NULL, worker, &c) == 0) started++;
    bool ok = started > 0, sink_on = true;
    diag_list got;                /* the file's warnings, in order (diag gets them on success) */
    diag_init(&got);
    chunk *acc = NULL;            /* the chunks delivered so far, as the last one's state */
    uint64_t fed = 0;
    size_t k = 0;
    for (; ok; k++) {
        pthread_mutex_lock(&c.mu);
        chunk *ch = NULL;
        while (!c.stop && !(c.all_claimed && k >= c.claimed) && !((ch = c.ring[k % WINDOW]) && ch->ready))
            pthread_cond_wait(&c.done, &c.mu);
        if (c.stop) ok = false;
        if (!ok || (c.all_claimed && k >= c.claimed)) { pthread_mutex_unlock(&c.mu); break; }
        ch = c.ring[k % WINDOW];
        c.ring[k % WINDOW] = NULL;
        c.delivered = k + 1;
        pthread_cond_broadcast(&c.work);
        pthread_mutex_unlock(&c.mu);
        if (ch->failed || (acc && !p->join(acc->st, ch->st))) { chunk_free(p, ch); ok = false; break; }
        chunk_release(&c, acc);   /* (the join folded its state into ch's) */
        fed += ch->fed;
        deliver(ch, sink, &got, &sink_on);
        acc = ch;
    }
    pthread_mutex_lock(&c.mu);
    c.stop = true;
    pthread_cond_broadcast(&c.work);
    pthread_mutex_unlock(&c.mu);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    for (unsigned i = 0; i < WINDOW; i++) chunk_free(p, c.ring[i]);
    ok = ok && acc;
    if (ok) {
        p->finish(acc->st);       /* its last records and warnings, after the others */
        deliver(acc, sink, &got, &sink_on);
    }
    chunk_free(p, acc);
    while (c.pool) {
        chunk *ch = c.pool;
        c.pool = ch->next;
        chunk_free(p, ch);
    }
#ifdef __GLIBC__
    malloc_trim(0);               /* the workers' malloc arenas give back what the states used */
#endif
    pthread_cond_destroy(&c.done);
    pthread_cond_destroy(&c.work);
    pthread_mutex_destroy(&c.mu);
    free(c.head);
    if (ok) {
        for (size_t i = 0; i < got.count; i++) diag_add(diag, "%s", got.items[i]);
        memset(st, 0, sizeof *st);
        st->present = true;
        st->bytes_read = fed;
        st->parse_ms = (double)(now_ns() - t0) / 1e6;
        *pieces = (unsigned)k;
    }
    diag_free(&got);
    return ok ? 1 : -1;
}
