/* run_split: one large file read in two pieces on two threads by the run driver
 * (core/run_analysis.c), and joined as one sequential read.
 *
 * The head piece is read from the file's start on a second thread; the driver's thread reads
 * the neighbour (a smaller file, when there is one) and the small files after it whole, then
 * chooses the cut: half-way
 * through what the head has not yet read, moved to the format's next resume point, and only
 * where the head has not yet claimed a byte (source_read.h range_end). The head stops
 * exactly there, and the driver's thread reads the tail into a second state. So both threads
 * end at about the same time whatever the two files cost per byte on this machine (a cut
 * fixed before the read has to guess that, and a wrong guess leaves a core idle). When the
 * head is too near the end to be worth cutting, it reads the file to its end alone.
 *
 * With a passenger (the daemon's ingest, core/run_ingest) the passenger must be told the cut
 * before the head is read (its tail state opened; a records passenger's tail analysis takes
 * the records of the driver's tail state, piece_sink), so the cut is fixed first: the neighbour's bytes
 * weighted by SPLIT_PRE_WEIGHT2 / 2 against the file's. Tests ask for that too
 * (parse_options.split_cut_first), for a cut that does not depend on timing.
 *
 * After both pieces: the analyses' split_exact may refuse, and the format's join may fail (the
 * resume point was not where the tail assumed); the driver then forgets both pieces and reads
 * the file again in one piece. docs/ARCHITECTURE.md "The run driver". */
#include "core/run_split.h"
#include "base/clock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/source_read.h"

#define SPLIT_MIN_DEFAULT (16u << 20)   /* smaller files are not worth a second thread */
/* A cut chosen during the read leaves the tail at least a quarter of that (4 MiB), else the
 * head reads on to the end alone (a second state, its join and the resume search would cost
 * more than they win). */
static uint64_t tail_min(const job *j) {
    return (j->parse->split_min_bytes ? j->parse->split_min_bytes : SPLIT_MIN_DEFAULT) / 4;
}
/* Larger files are read in one piece: the second piece of an exact split keeps what its join
 * needs (ops, phases and layers keep its kernels, launches and steps: ~30 MB more at the peak
 * for the 158 MB torch trace of the 208 MB run), and a larger trace more often passes a bound
 * that makes ops refuse the join (then the file is read twice). */
#define SPLIT_MAX ((uint64_t)256 << 20)
/* A fixed cut (passenger) beside a neighbour: what a byte of the neighbour costs against a
 * byte of the split file (x2, an integer): trace.csv's rows against the torch trace's events,
 * ~2.4 against ~1.5 ns a byte in analyze, measured on the 208 MB run. */
#define SPLIT_PRE_WEIGHT2 3u
#define SPLIT_WINDOW (1u << 20)          /* where a resume point is looked for, from the cut */
#define SPLIT_HEAD (64u << 10)           /* the file's first bytes a resumed state may need (CSV header) */
/* The record types analysis an would receive from source j: what it wants of what the
 * format emits, kernel types only when fan_out delivers them to it (the kernel choice). */
static unsigned received(const section_analysis *an, const job *j) {
    unsigned got = an->wants & (j->inv->format->emits ? j->inv->format->emits : ~0u);
    if (!job_gets_kernels(an, j->ref)) got &= ~JOB_KERNEL_TYPES;
    return got;
}

bool run_split_possible(const job *j, int threads) {
    const artefact_parser *p = j->inv->format;
    size_t len = strlen(j->inv->path);
    uint64_t min = j->parse->split_min_bytes ? j->parse->split_min_bytes : SPLIT_MIN_DEFAULT;
    if (threads < 2 || !p->feed || !p->resume_point || !p->open_records_resumed || !p->join || j->inv->size < min ||
        j->inv->size > SPLIT_MAX || (len > 3 && !strcmp(j->inv->path + len - 3, ".gz")))
        return false;
    for (size_t i = 0; i < j->n_an; i++)
        if (received(j->an[i], j) && !j->an[i]->splittable && !(j->an[i]->split_ok && j->an[i]->split_ok(j->ref)))
            return false;
    return true;
}

/* Whether every analysis says the two pieces' states fold exactly (section.h split_exact). */
static bool pieces_exact(const job *a, const job *b) {
    for (size_t i = 0; i < a->n_an; i++)
        if (a->src[i] && b->src[i] && a->an[i]->split_exact && !a->an[i]->split_exact(a->src[i], b->src[i]))
            return false;
    return true;
}

/* A resume point at or after byte `from` of the file, within SPLIT_WINDOW (0: none). */
static uint64_t resume_after(int fd, const job *j, uint64_t from) {
    uint8_t *win = malloc(SPLIT_WINDOW);
    if (!win) return 0;
    ssize_t n = pread(fd, win, SPLIT_WINDOW, (off_t)from);
    size_t at = n > 0 ? j->inv->format->resume_point(win, (size_t)n) : 0;
    free(win);
    return n > 0 && at < (size_t)n ? from + at : 0;
}

/* One split read: the file, its first bytes, the two jobs and format states, the head's
 * moving end and where the tail starts (0: no cut). */
typedef struct split_ctx {
    job *a, *b;
    job *const *pre;              /* read whole first on the tail's thread, in order */
    size_t n_pre;
    int fd;
    const artefact_parser *p;
    uint8_t *head;
    size_t head_n;
    void *A, *B;
    range_end end;
    uint64_t cut;
    uint64_t head_fed, tail_fed;
    const source_tee *tail_tee;
    source_fanout fan_a, fan_b;   /* a records passenger's sinks beside the driver's */
    record_sink sink_b;
} split_ctx;

/* The sink a piece's format state emits into: the job's, and a records passenger's too
 * (core/run_ingest: RunMetrics' summary over the same tokenization). */
static record_sink piece_sink(job *j, const source_tee *tee, source_fanout *fan, record_sink *own) {
    *own = run_analysis_job_sink(j);
    if (!tee || !tee->records || !j->inv->format->shares_records) return *own;
    return source_fanout_sink(fan, own, tee->records);
}

/* The passenger's own reading when the format reads for it in a pair state (the CSV kernel
 * trace, open_records_pair), else NULL: the piece's state then emits into piece_sink's. */
static const record_reading *piece_reading(const artefact_parser *p, const source_tee *tee) {
    return tee && tee->records && tee->reading && p->open_records_pair ? tee->reading : NULL;
}

static void *head_thread(void *arg) {
    split_ctx *c = arg;
    c->head_fed = source_feed_until(c->fd, 0, 0, &c->end, c->p, c->A, c->a->parse, c->a->inv->rel, &c->a->diag,
                                    c->a->tee);
    return NULL;
}

/* Opens the tail's format state at resume point `at` (a resume point of the file). */
static bool open_tail(split_ctx *c, uint64_t at) {
    record_sink sb = piece_sink(c->b, c->tail_tee, &c->fan_b, &c->sink_b);
    const record_reading *rb = piece_reading(c->p, c->tail_tee);
    c->B = rb ? c->p->open_records_pair_resumed(c->b->parse, c->b->inv->rel, &sb, &c->b->facts, &c->b->diag, rb, at,
                                                c->head, c->head_n)
              : c->p->open_records_resumed(c->b->parse, c->b->inv->rel, &sb, &c->b->facts, &c->b->diag, at, c->head,
                                           c->head_n);
    return c->B != NULL;
}

/* Chooses the cut while the head is being read (driver thread, after the neighbour): half of
 * what the head has not claimed yet, at the next resume point; the head's end moves there.
 * false: no cut (too little left, no resume point, or the head got there first). */
static bool cut_now(split_ctx *c) {
    uint64_t size = c->a->inv->size, claimed = source_read_range_end_claimed(&c->end);
    if (claimed >= size || size - claimed < 2 * tail_min(c->a)) return false;
    uint64_t at = resume_after(c->fd, c->a, claimed + (size - claimed) / 2);
    if (!at || size - at < tail_min(c->a) || !open_tail(c, at)) return false;
    if (!source_read_range_end_cut(&c->end, at)) {
        c->p->close(c->B);
        c->B = NULL;
        return false;
    }
    c->cut = at;
    return true;
}

/* Chooses the cut before the read (a passenger must follow it, or a test asked): the
 * neighbour's bytes weighted by SPLIT_PRE_WEIGHT2 / 2, both threads' shares about equal; the
 * passenger's tail tee when there is one. false: no cut. */
static bool cut_before(split_ctx *c) {
    uint64_t size = c->a->inv->size, lead = 0;
    for (size_t k = 0; k < c->n_pre; k++) lead += c->pre[k]->inv->size / 4 * SPLIT_PRE_WEIGHT2;
    uint64_t at = lead < size / 2 ? resume_after(c->fd, c->a, size / 2 + lead) : 0;
    if (!at) return false;
    if (c->a->tee && !(c->tail_tee = c->a->tap->split(c->a->tap->user, c->a->inv, at, c->head, c->head_n)))
        return false;
    if (!open_tail(c, at)) {
        if (c->a->tee) c->a->tap->restart(c->a->tap->user, c->a->inv);
        return false;
    }
    c->end.to = at;
    c->cut = at;
    return true;
}

/* Folds a passenger's two pieces, or reads the file again for it as one piece when they do
 * not join (with the driver's second read when the records did not join either; a records
 * passenger whose pieces alone do not join reads the file apart inside tap->join). */
static void join_passenger(split_ctx *c, bool joined) {
    job *a = c->a;
    if (joined && a->tap->join(a->tap->user, a->inv)) return;
    bool again = a->tap->restart(a->tap->user, a->inv);
    if (joined && again)
        source_feed_range_tee(c->fd, 0, a->inv->size, NULL, NULL, a->parse, a->inv->rel, &a->diag, a->tee);
}

/* Reads job a's file (fd) in two pieces when that works: the head into a (second thread),
 * the n_pre jobs of pre whole then the tail into b (this thread); a, b and pre have their
 * source states open. 1: joined (b's records follow a's), 2: read whole into a (no cut was
 * worth it; pre read too), 0: nothing read (no cut before a passenger's read, or no memory:
 * pre neither), -1: read but not joinable, by the format or an analysis (discard both; pre
 * has been read). */
static int split_read(job *a, job *b, int fd, job *const *pre, size_t n_pre) {
    split_ctx c = {.a = a, .b = b, .pre = pre, .n_pre = n_pre, .fd = fd, .p = a->inv->format,
                   .end = {.to = a->inv->size}};
    if (pthread_mutex_init(&c.end.mu, NULL) != 0) return 0;
    int r = 0;
    ssize_t hn = (c.head = malloc(SPLIT_HEAD)) ? pread(fd, c.head, SPLIT_HEAD, 0) : -1;
    c.head_n = hn > 0 ? (size_t)hn : 0;
    bool first = a->tee || a->parse->split_cut_first;   /* the cut before the read */
    record_sink own_a, sa = piece_sink(a, a->tee, &c.fan_a, &own_a);
    const record_reading *ra = piece_reading(c.p, a->tee);
    if (hn <= 0 || (first && !cut_before(&c)) ||
        !(c.A = ra ? c.p->open_records_pair(a->parse, a->inv->rel, &sa, &a->facts, &a->diag, ra)
                   : c.p->open_records(a->parse, a->inv->rel, &sa, &a->facts, &a->diag)))
        goto out;
    double t0 = clk_mono_ms_f();
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, head_thread, &c) == 0;
    if (!threaded && !first) head_thread(&c);      /* (then no cut: the head read it all) */
    for (size_t k = 0; k < n_pre; k++) run_analysis_job_read(pre[k]);
    if (!first && threaded) cut_now(&c);
    if (!threaded && first) head_thread(&c);
    if (c.cut)
        c.tail_fed = source_feed_until(fd, c.cut, a->inv->size, NULL, c.p, c.B, b->parse, b->inv->rel, &b->diag,
                                       c.tail_tee);
    if (threaded) pthread_join(th, NULL);
    if (!c.cut) {                                   /* one piece after all */
        c.p->finish(c.A);
        r = 2;
    } else {
        /* (a head whose records the driver dropped past the deadline is no prefix of the file:
         * joined to the tail it would leave a hole; the one-piece read again stops as well) */
        bool joined = c.head_fed == c.cut && !a->records_stopped_at && pieces_exact(a, b) && c.p->join(c.A, c.B);
        if (joined) c.p->finish(c.B);
        c.p->close(c.B);
        if (a->tee) join_passenger(&c, joined);
        r = joined ? 1 : -1;
        a->split = joined;
    }
    c.p->close(c.A);
    if (r > 0) {
        a->stats.present = true;
        a->stats.bytes_read = c.head_fed + c.tail_fed;
        a->stats.parse_ms = clk_mono_ms_f() - t0;
    }
out:
    if (r == 0 && c.A) c.p->close(c.A);
    if (r == 0 && c.B) {
        c.p->close(c.B);
        if (a->tee) a->tap->restart(a->tap->user, a->inv);   /* (it was told of a cut) */
    }
    free(c.head);
    pthread_mutex_destroy(&c.end.mu);
    return r;
}

/* Reads a on a second thread while this one reads the n jobs of pre in order (a after them
 * when there is no second thread or no pre). */
static void read_beside(job *a, job *const *pre, size_t n) {
    pthread_t th;
    bool threaded = n && pthread_create(&th, NULL, run_analysis_job_read, a) == 0;
    for (size_t k = 0; k < n; k++) run_analysis_job_read(pre[k]);
    if (threaded) pthread_join(th, NULL);
    else run_analysis_job_read(a);
}

bool run_split_read(job *a, job *b, job *const *pre, size_t n_pre, void *const *run, const analysis_config *cfg) {
    int fd = source_open(a->inv->path, a->inv->rel, a->parse, &a->diag);
    if (fd < 0) {                       /* a not read: the warning says why */
        for (size_t k = 0; k < n_pre; k++) run_analysis_job_read(pre[k]);
        return true;
    }
    if (!run_analysis_job_open(b, run)) { close(fd); return false; }
    int r = split_read(a, b, fd, pre, n_pre);
    if (r != 1) {                       /* b's states were opened for nothing, or do not join */
        run_analysis_job_discard(b, cfg);
        free(b->src);
        b->src = NULL;
        diag_free(&b->diag);
    }
    if (r < 0) {                        /* not one sequential pass: forget both pieces, read again */
        run_analysis_job_reset(a, cfg);
        if (!run_analysis_job_open(a, run)) { close(fd); return false; }
    }
    close(fd);
    if (r == 0) read_beside(a, pre, n_pre);
    else if (r < 0) run_analysis_job_read(a);
    return true;
}
