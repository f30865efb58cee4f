/* run_ingest: RunMetrics and the analysis document from one read of each file (see
 * run_ingest.h). */
#include "core/run_ingest.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/artefact_reader.h"

/* A passenger on bytes (a RunMetrics file the driver reads as another format than
 * RunMetrics' rules choose) works on a thread of its own, fed copies of the driver's chunks
 * through a small ring: the driver's thread goes on parsing records while the summary
 * reading tokenizes the same bytes. A records passenger (the torch profile, the kernel
 * trace and telemetry CSVs' pair states, databases) has no thread: its records come on the driver's threads. Bounded: AQ_SLOTS chunks of at most
 * AQ_BYTES each (2 MiB a passenger: double buffering). Messages are handled in the order they
 * were sent, by that one thread, so the passenger also sees a split read's two pieces one call
 * at a time. */
#define AQ_SLOTS 2
#define AQ_BYTES (1u << 20)
enum { AQ_DATA, AQ_READ_ERROR, AQ_GZIP_ERROR, AQ_STOPPED };

typedef struct aq_msg {
    int kind, piece, err;
    uint8_t *buf;            /* AQ_BYTES, allocated on first use */
    size_t n;
    uint64_t offset;
    char msg[256];
} aq_msg;

typedef struct async_q {
    pthread_t th;
    bool running;            /* the thread is up; false: messages are handled at once, here */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    aq_msg slot[AQ_SLOTS];
    size_t head, count;      /* the ring; slot[head] is handed back only once handled */
    bool quit;
    bool refused[2];         /* that piece's reading wants no more (seen by the feeder, late) */
} async_q;

/* RunMetrics' reading of one kind, riding on the driver's read of its file. */
typedef struct passenger_slot {
    struct ingest *in;
    artefact_kind kind;
    bool have_id;                /* the file exists: its identity */
    dev_t dev;
    ino_t ino;
    bool attached;               /* handed to the driver (or read whole at once) */
    artefact_passenger *ap;      /* NULL once complete */
    source_tee tee, tail_tee;
    async_q q;
    /* on a byte stream's records (a format that shares_records): no thread, no copies; the
     * driver's two pieces report bytes and failures from two threads, so under mu */
    bool records_bytes;
    pthread_mutex_t mu;
} passenger_slot;

typedef struct ingest {
    run_result *out;
    parse_options popt;
    diag_list diag[ARTEFACT_KIND_COUNT];
    passenger_slot slot[ARTEFACT_KIND_COUNT];
} ingest;

static void *summary_of(run_result *r, artefact_kind k) {
    return k == ARTEFACT_KERNEL_TRACE ? (void *)&r->kernels : k == ARTEFACT_TORCH_PROFILE ? (void *)&r->torch
                                                                                      : (void *)&r->telemetry;
}

/* Handles one message on the passenger (its thread, or the caller's when it has none). */
static void aq_handle(passenger_slot *p, aq_msg *m) {
    switch (m->kind) {
    case AQ_DATA:
        /* (refused is read by the feeders under the lock; this write is a late hint only,
         * a bool they see at the latest with the next message) */
        if (!artefact_passenger_feed(p->ap, m->piece, m->buf, m->n)) __atomic_store_n(&p->q.refused[m->piece], true, __ATOMIC_RELAXED);
        break;
    case AQ_READ_ERROR: artefact_passenger_read_error(p->ap, m->offset, m->err); break;
    case AQ_GZIP_ERROR: artefact_passenger_gzip_error(p->ap, m->offset, m->msg); break;
    case AQ_STOPPED: artefact_passenger_stopped_early(p->ap, m->offset, m->n); break;
    }
}

static void *aq_thread(void *arg) {
    passenger_slot *p = arg;
    async_q *q = &p->q;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->count && !q->quit) pthread_cond_wait(&q->cv, &q->mu);
        if (!q->count) break;
        aq_msg *m = &q->slot[q->head];
        pthread_mutex_unlock(&q->mu);
        aq_handle(p, m);
        pthread_mutex_lock(&q->mu);
        q->head = (q->head + 1) % AQ_SLOTS;
        q->count--;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* Sends one message (data: copied, at most AQ_BYTES); waits for a free slot. */
static void aq_send(passenger_slot *p, int kind, int piece, const uint8_t *buf, size_t n, uint64_t offset, int err,
                    const char *msg) {
    async_q *q = &p->q;
    aq_msg local = {.kind = kind, .piece = piece, .buf = (uint8_t *)buf, .n = n, .offset = offset, .err = err};
    if (msg) snprintf(local.msg, sizeof local.msg, "%s", msg);
    if (!q->running) {
        if (p->records_bytes) pthread_mutex_lock(&p->mu);
        aq_handle(p, &local);
        if (p->records_bytes) pthread_mutex_unlock(&p->mu);
        return;
    }
    /* the slot is filled under the lock: a split read's two pieces are sent from two threads */
    pthread_mutex_lock(&q->mu);
    while (q->count == AQ_SLOTS) pthread_cond_wait(&q->cv, &q->mu);
    aq_msg *m = &q->slot[(q->head + q->count) % AQ_SLOTS];
    if (kind == AQ_DATA && !m->buf && !(m->buf = malloc(AQ_BYTES))) {
        /* no memory for a copy: handled here once the others are (the thread is then idle) */
        while (q->count) pthread_cond_wait(&q->cv, &q->mu);
        aq_handle(p, &local);           /* (under the lock: no other message can start meanwhile) */
        pthread_mutex_unlock(&q->mu);
        return;
    }
    uint8_t *keep = m->buf;
    *m = local;
    m->buf = keep;
    if (kind == AQ_DATA) memcpy(m->buf, buf, n);
    q->count++;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Waits until every message sent has been handled (before split/join/restart/end). */
static void aq_drain(passenger_slot *p) {
    async_q *q = &p->q;
    if (!q->running) return;
    pthread_mutex_lock(&q->mu);
    while (q->count) pthread_cond_wait(&q->cv, &q->mu);
    pthread_mutex_unlock(&q->mu);
}

static void aq_start(passenger_slot *p) {
    async_q *q = &p->q;
    memset(q, 0, sizeof *q);
    if (pthread_mutex_init(&q->mu, NULL) != 0) return;
    if (pthread_cond_init(&q->cv, NULL) != 0) { pthread_mutex_destroy(&q->mu); return; }
    q->running = pthread_create(&q->th, NULL, aq_thread, p) == 0;
    if (!q->running) { pthread_cond_destroy(&q->cv); pthread_mutex_destroy(&q->mu); }
}

static void aq_stop(passenger_slot *p) {
    async_q *q = &p->q;
    if (!q->running) return;
    pthread_mutex_lock(&q->mu);
    q->quit = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->th, NULL);
    for (size_t i = 0; i < AQ_SLOTS; i++) free(q->slot[i].buf);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    q->running = false;
}

static bool piece_feed(passenger_slot *p, int piece, const uint8_t *b, size_t n) {
    async_q *q = &p->q;
    if (__atomic_load_n(&q->refused[piece], __ATOMIC_RELAXED)) return false;
    for (size_t at = 0; at < n; at += AQ_BYTES)
        aq_send(p, AQ_DATA, piece, b + at, n - at < AQ_BYTES ? n - at : AQ_BYTES, 0, 0, NULL);
    return !__atomic_load_n(&q->refused[piece], __ATOMIC_RELAXED);
}
static bool tee_feed(void *u, const uint8_t *b, size_t n) { return piece_feed(u, 0, b, n); }
static bool tail_feed(void *u, const uint8_t *b, size_t n) { return piece_feed(u, 1, b, n); }
static void tee_read_error(void *u, uint64_t off, int err) { aq_send(u, AQ_READ_ERROR, 0, NULL, 0, off, err, NULL); }
static void tee_gzip_error(void *u, uint64_t off, const char *m) { aq_send(u, AQ_GZIP_ERROR, 0, NULL, 0, off, 0, m); }
static void tee_stopped(void *u, uint64_t at, uint64_t incoming) {
    aq_send(u, AQ_STOPPED, 0, NULL, (size_t)incoming, at, 0, NULL);
}

/* The slot whose file source s is (same device and inode), NULL when none. */
static passenger_slot *slot_of(ingest *in, const inventory_source *s) {
    struct stat st;
    if (stat(s->path, &st) != 0) return NULL;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        passenger_slot *p = &in->slot[k];
        if (p->have_id && p->dev == st.st_dev && p->ino == st.st_ino) return p;
    }
    return NULL;
}

static void tee_records_end(void *user, bool ok, const read_facts *facts, const diag_list *diag, size_t first,
                            size_t end, const char *label, double ms) {
    passenger_slot *p = user;
    artefact_passenger_records_end(p->ap, ok, facts, diag, first, end, label, ms);
}

/* source_tap.tee_for: a RunMetrics file gets its passenger: on the records of the driver's
 * one read (a descriptor-reading format: rocpd, rocprof v1's results.db; a format that
 * shares_records: the torch profile, tokenized once for both; a format with
 * open_records_pair: the kernel trace and telemetry CSVs, its reading a half of the driver's
 * pair state),
 * or on its bytes. */
static const source_tee *tap_tee_for(void *user, const inventory_source *s) {
    ingest *in = user;
    passenger_slot *p = slot_of(in, s);
    if (!p || p->attached) return NULL;
    p->attached = true;
    artefact_kind k = p->kind;
    if (s->format->read_fd || s->format->shares_records || s->format->open_records_pair) {
        const record_sink *rs;
        p->ap = artefact_passenger_open_records(in->out->files.path[k], k, &in->popt, summary_of(in->out, k),
                                                &in->diag[k], &in->out->info[k], s->format, &rs);
        if (!p->ap || rs) {          /* (no thread: records come on the driver's) */
            p->tee.records = rs;
            p->tee.records_end = tee_records_end;
            p->tee.reading = p->ap ? artefact_passenger_reading(p->ap, 0) : NULL;
            p->records_bytes = rs && !s->format->read_fd;
            return p->ap ? &p->tee : NULL;
        }
        /* another byte format here than the driver's: a passenger on the bytes */
    } else {
        p->ap = artefact_passenger_open(in->out->files.path[k], k, &in->popt, summary_of(in->out, k), &in->diag[k],
                                        &in->out->info[k]);
    }
    if (p->ap) aq_start(p);           /* (no thread: fed on the driver's thread, as a plain tee) */
    return p->ap ? &p->tee : NULL;
}

static const source_tee *tap_split(void *user, const inventory_source *s, uint64_t offset, const uint8_t *head, size_t n) {
    passenger_slot *p = slot_of(user, s);
    if (p && p->ap) aq_drain(p);
    if (!p || !p->ap || !artefact_passenger_split(p->ap, offset, head, n)) return NULL;
    p->tail_tee.records = artefact_passenger_tail_records(p->ap);   /* (a records passenger's tail analysis) */
    p->tail_tee.reading = artefact_passenger_reading(p->ap, 1);    /* (a pair format's: its tail reading) */
    return &p->tail_tee;
}

/* The driver's two pieces joined: the passenger's join them too. A records passenger whose
 * pieces do not join (rare: a bound of its analysis) reads the file apart. */
static bool tap_join(void *user, const inventory_source *s) {
    passenger_slot *p = slot_of(user, s);
    if (!p || !p->ap) return false;
    aq_drain(p);
    if (artefact_passenger_join(p->ap)) return true;
    if (!p->records_bytes) return false;
    artefact_passenger_read_apart(p->ap);
    return true;
}

static bool tap_restart(void *user, const inventory_source *s) {
    passenger_slot *p = slot_of(user, s);
    if (!p || !p->ap) return false;
    aq_drain(p);
    p->q.refused[0] = p->q.refused[1] = false;   /* (the thread is idle: drained) */
    p->tail_tee.records = NULL;
    p->tail_tee.reading = NULL;
    return artefact_passenger_restart(p->ap);
}

/* RunMetrics' files: the inventory's choice (from its own walk), copied. */
static bool files_of(const run_inventory *inv, run_files *out) {
    memset(out, 0, sizeof *out);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        assert(inv->files.path[k]);
        out->found_by[k] = inv->files.found_by[k];
        if (!(out->path[k] = strdup(inv->files.path[k]))) { run_files_free(out); return false; }
    }
    return true;
}

bool run_ingest(const char *run_dir, const run_options *opt, const run_analysis_options *aopt, run_result *res,
                run_analysis *an) {
    run_inventory inv;
    diag_list d;
    diag_init(&d);
    memset(res, 0, sizeof *res);
    memset(an, 0, sizeof *an);
    if (!run_inventory_build(run_dir, aopt->cfg.npu_reference_dir, aopt->parse.confine_root, &inv, &d)) {
        diag_free(&d);
        return false;
    }
    return run_ingest_inventory(run_dir, &inv, &d, opt, aopt, res, an);
}

bool run_ingest_inventory(const char *run_dir, run_inventory *inventory, diag_list *inventory_diag,
                          const run_options *opt, const run_analysis_options *aopt, run_result *res, run_analysis *an) {
    memset(res, 0, sizeof *res);
    memset(an, 0, sizeof *an);
    if (!files_of(inventory, &res->files)) {
        run_inventory_free(inventory);
        diag_free(inventory_diag);
        return false;
    }
    ingest in = {.out = res, .popt = opt->parse};
    /* the torch reading stops collecting GPU kernel events once the kernel trace has a row
     * (the driver reads device-clock kernel traces before torch profiles) */
    _Atomic bool kernel_rows_seen = false;
    in.popt.kernel_rows_seen = &kernel_rows_seen;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        diag_init(&in.diag[k]);
        passenger_slot *p = &in.slot[k];
        struct stat st;
        *p = (passenger_slot){.in = &in, .kind = (artefact_kind)k};
        p->tee = (source_tee){tee_feed, tee_read_error, tee_gzip_error, tee_stopped, p, NULL, NULL, NULL};
        p->tail_tee = (source_tee){tail_feed, tee_read_error, tee_gzip_error, tee_stopped, p, NULL, NULL, NULL};
        /* (a file without its identity, or its lock, gets no passenger: it is read apart) */
        if (res->files.path[k] && stat(res->files.path[k], &st) == 0 && S_ISREG(st.st_mode) &&
            pthread_mutex_init(&p->mu, NULL) == 0) {
            p->have_id = true;
            p->dev = st.st_dev;
            p->ino = st.st_ino;
        }
    }
    source_tap tap = {tap_tee_for, tap_split, tap_join, tap_restart, &in};
    run_analysis_options o = *aopt;
    o.tap = &tap;
    bool ok = run_analyze_inventory(run_dir, inventory, inventory_diag, &o, an);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        passenger_slot *p = &in.slot[k];
        if (p->ap) {
            aq_stop(p);                 /* every message handled, the thread joined */
            artefact_passenger_end(p->ap);
        }
        p->ap = NULL;
        if (p->have_id) pthread_mutex_destroy(&p->mu);
        if (ok && !p->attached)       /* a file the driver did not read: as run_parse reads it */
            artefact_read(res->files.path[k], (artefact_kind)k, &in.popt, summary_of(res, (artefact_kind)k), &in.diag[k],
                          &res->info[k]);
    }
    if (ok && !in.popt.seed_compat && kernel_rows_seen && !res->kernels.kernels.dispatches) {
        /* the kernel trace had rows but its read then failed (nothing kept, like the
         * reference): the torch profile's kernels are needed after all (run_parse's rule) */
        diag_free(&in.diag[ARTEFACT_TORCH_PROFILE]);
        diag_init(&in.diag[ARTEFACT_TORCH_PROFILE]);
        torch_summary_free(&res->torch);
        in.popt.kernel_rows_seen = NULL;
        artefact_read(res->files.path[ARTEFACT_TORCH_PROFILE], ARTEFACT_TORCH_PROFILE, &in.popt, &res->torch,
                      &in.diag[ARTEFACT_TORCH_PROFILE], &res->info[ARTEFACT_TORCH_PROFILE]);
    }
    if (ok) run_result_complete(res, opt, &in.diag[ARTEFACT_KERNEL_TRACE], &in.diag[ARTEFACT_TORCH_PROFILE],
                                &in.diag[ARTEFACT_TELEMETRY]);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) diag_free(&in.diag[k]);
    if (ok && res->metrics.warnings.out_of_memory) {   /* partial for lack of memory: not returned */
        run_analysis_free(an);
        ok = false;
    }
    if (!ok) { run_result_free(res); return false; }
    return true;
}
