/* artefact_passenger: a RunMetrics reading fed by another reader (the run driver's read of the
 * same file: its bytes, or its records for a format that shares them), with the states of a
 * split read (see artefact_reader.h). */
#include "core/artefact_reader.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "core/artefact_reader_internal.h"
#include "core/source_read.h"
#include "core/format_pipe.h"

/* A passenger reading (see artefact_reader.h): the states of artefact_read_begin()'s split
 * read, fed by another reader. */
struct artefact_passenger {
    artefact_opened o;                    /* (its descriptor is closed once the format is chosen) */
    artefact_kind kind;
    const parse_options *opt;
    void *summary;
    diag_list *diag;
    artefact_info *info;
    format_pipe head, tail;
    bool tail_open, split;
    bool failed;                 /* a read error or a limit: the summary is dropped */
    bool done[2];                /* that piece's format wants no more */
    uint64_t fed[2], at;
    double ms;
    diag_list tail_diag;         /* the tail's warnings, kept only when it is joined */
    bool records;                /* fed the driver's records (head, tail: the analysis alone) */
    bool apart;                  /* records mode, the pieces did not join: read apart, complete */
    record_reading reading[2];   /* a pair format's (open_records_pair): the head's, the tail's */
    size_t fail_count, fail_dropped;   /* a->diag when it failed (see fail) */
    diag_list head_diag;         /* a split pair's head half's warnings (see merge_head_diag) */
};

/* The reading failed (its warning already said why). A pair format's half (the CSV kernel
 * trace) writes on until the driver's read ends, where a failed read of its own stops: what
 * it adds after the failure is dropped at the end (drop_after_failure). */
static void fail(artefact_passenger *a) {
    if (!a->failed) a->failed = true, a->fail_count = a->diag->count, a->fail_dropped = a->diag->dropped;
}

/* A split's pair head half writes into head_diag, not a->diag (where the tail's thread may put
 * a failure meanwhile); its warnings (its header's) go back where a read of its own puts them:
 * after a->diag's, before the failure's message (then the last item, fail_count - 1). */
static void merge_head_diag(artefact_passenger *a) {
    a->reading[0].diag = a->diag;
    if (!a->head_diag.count && !a->head_diag.dropped) return;
    size_t at = !a->failed ? a->diag->count : a->fail_count ? a->fail_count - 1 : 0;
    diag_list after;
    diag_init(&after);
    for (size_t i = at; i < a->diag->count; i++) after.items[after.count++] = a->diag->items[i];
    a->diag->count = at;
    diag_move(a->diag, &a->head_diag);
    if (a->failed) a->fail_count = a->diag->count + 1, a->fail_dropped = a->diag->dropped;
    diag_move(a->diag, &after);
}

static void drop_after_failure(artefact_passenger *a) {
    if (!a->failed || !a->records || !a->o.p->open_records_pair || a->diag->count < a->fail_count) return;
    for (size_t i = a->fail_count; i < a->diag->count; i++) free(a->diag->items[i]);
    a->diag->count = a->fail_count;
    a->diag->dropped = a->fail_dropped;
}

/* A passenger for the checked, already sniffed file o (its descriptor closed here): on the
 * driver's bytes, or with `records` on the records of the driver's one read (the kind's
 * analysis alone); NULL after an out-of-memory warning. */
static artefact_passenger *passenger_new(artefact_opened o, artefact_kind kind, const parse_options *opt, void *summary,
                                         diag_list *diag, artefact_info *info, bool records) {
    close(o.fd);
    o.fd = -1;
    artefact_passenger *a = calloc(1, sizeof *a);
    bool ok = a && (records ? format_pipe_open_analysis(&a->head, o.p, kind, opt, o.label, summary, diag)
                            : format_pipe_open(&a->head, o.p, kind, opt, o.label, summary, diag));
    if (!ok) {
        diag_oom(diag, "%s: out of memory", o.label);
        free(a);
        return NULL;
    }
    *a = (artefact_passenger){.o = o, .kind = kind, .opt = opt, .summary = summary, .diag = diag, .info = info,
                              .head = a->head, .records = records};
    diag_init(&a->tail_diag);
    if (records) diag_init(&a->head_diag);
    return a;
}

artefact_passenger *artefact_passenger_open(const char *path, artefact_kind kind, const parse_options *opt,
                                            void *summary, diag_list *diag, artefact_info *info) {
    artefact_opened o;
    if (!artefact_open_checked(path, kind, opt, diag, info, &o)) return NULL;
    if (o.p->read_fd) {          /* not a byte stream (rocpd SQLite): it reads the file itself */
        artefact_read_whole(&o, kind, opt, summary, diag, info);
        return NULL;
    }
    return passenger_new(o, kind, opt, summary, diag, info, false);
}

artefact_passenger *artefact_passenger_open_records(const char *path, artefact_kind kind, const parse_options *opt,
                                                    void *summary, diag_list *diag, artefact_info *info,
                                                    const artefact_parser *format, const record_sink **sink) {
    artefact_opened o;
    *sink = NULL;
    if (!artefact_open_checked(path, kind, opt, diag, info, &o)) return NULL;
    if (o.p != format || !(o.p->read_fd || o.p->shares_records || o.p->open_records_pair)) {   /* another format here */
        if (o.p->read_fd) { artefact_read_whole(&o, kind, opt, summary, diag, info); return NULL; }   /* read apart, now */
        return passenger_new(o, kind, opt, summary, diag, info, false);   /* a byte stream: on the driver's bytes */
    }
    artefact_passenger *a = passenger_new(o, kind, opt, summary, diag, info, true);
    if (a) *sink = &a->head.sink;
    return a;
}

void artefact_passenger_records_end(artefact_passenger *a, bool ok, const read_facts *facts, const diag_list *diag,
                                    size_t first, size_t end, const char *label, double ms) {
    assert(a->records);
    if (!a->o.p->read_fd) {      /* a byte stream: the analysis made its own facts and warnings */
        if (!ok) fail(a);
        return;
    }
    /* the format's warnings, named as this reading names the file (its base name) */
    size_t ll = strlen(label);
    for (size_t i = first; i < end && i < diag->count; i++) {
        const char *w = diag->items[i];
        if (!strncmp(w, label, ll) && w[ll] == ':') diag_add(a->diag, "%s%s", a->o.label, w + ll);
        else diag_add(a->diag, "%s", w);
    }
    a->ms += ms;
    if (!ok) { fail(a); return; }
    read_facts *f = a->head.a->facts(a->summary);
    for (size_t i = 0; i < facts->n_columns; i++) read_facts_column(f, facts->columns[i].quantity, facts->columns[i].column);
    for (size_t i = 0; i < facts->n_skips; i++) read_facts_skip(f, facts->skipped[i].reason, facts->skipped[i].rows);
    f->rows_used = facts->rows_used;
    f->truncated = facts->truncated;
    a->fed[0] = a->info->size;            /* (as read_whole counts a database read) */
}

bool artefact_passenger_feed(artefact_passenger *a, int piece, const uint8_t *buf, size_t n) {
    piece = piece ? 1 : 0;
    if (a->failed || a->done[piece] || (piece && !a->tail_open)) return false;
    double t0 = clk_mono_ms_f();
    if (source_over_limits(a->opt, a->o.label, a->diag, a->fed[0] + a->fed[1], n, true)) { fail(a); return false; }
    a->fed[piece] += n;
    if (a->records) return true;             /* the driver's format state emits this piece's records */
    if (!a->o.p->feed(piece ? a->tail.fmt : a->head.fmt, buf, n)) a->done[piece] = true;
    a->ms += clk_mono_ms_f() - t0;
    return !a->done[piece];
}

void artefact_passenger_read_error(artefact_passenger *a, uint64_t offset, int err) {
    if (a->failed) return;
    if (a->records && a->o.p->read_fd && err != ENOMEM) { fail(a); return; }   /* (the database's warnings come after) */
    if (err == ENOMEM) diag_oom(a->diag, "%s: out of memory at byte %llu", a->o.label, (unsigned long long)offset);
    else diag_add(a->diag, "%s: read error at byte %llu: %s", a->o.label, (unsigned long long)offset, strerror(err));
    fail(a);
}

void artefact_passenger_gzip_error(artefact_passenger *a, uint64_t offset, const char *msg) {
    if (a->failed) return;
    diag_add(a->diag, "%s: invalid gzip data near byte %llu: %s", a->o.label, (unsigned long long)offset, msg);
    fail(a);
}

void artefact_passenger_stopped_early(artefact_passenger *a, uint64_t at, uint64_t incoming) {
    if (a->failed) return;
    /* the reader stopped for one of the same limits at the same offset: say which, in
     * artefact_read()'s words (a limit it is, whatever the check says now) */
    if (!source_over_limits(a->opt, a->o.label, a->diag, at, incoming, true))
        diag_add(a->diag, "%s: not parsed: the read stopped before the end; a parse limit bounds a parse", a->o.label);
    fail(a);
}

bool artefact_passenger_split(artefact_passenger *a, uint64_t offset, const uint8_t *head, size_t head_n) {
    if (a->o.gz || a->tail_open || a->fed[0]) return false;
    if (a->records)              /* the driver's tail state emits the tail's records: its analysis alone */
        a->tail_open = a->head.a->join && format_pipe_open_analysis(&a->tail, a->o.p, a->kind, a->opt, a->o.label,
                                                                    a->summary, &a->tail_diag);
    else
        a->tail_open = format_pipe_open_resumed(&a->tail, a->o.p, a->kind, a->opt, a->o.label, a->summary,
                                                &a->tail_diag, offset, head, head_n);
    a->at = offset;
    if (a->tail_open && a->records && a->o.p->open_records_pair) a->reading[0].diag = &a->head_diag;
    return a->tail_open;
}

bool artefact_passenger_join(artefact_passenger *a) {
    merge_head_diag(a);             /* (both pieces' threads are done) */
    bool head_whole = !a->done[0] && a->fed[0] == a->at;
    if (!a->tail_open || a->failed || !head_whole || !format_pipe_join(&a->head, &a->tail)) return false;
    a->split = true;                 /* (the tail's warnings are kept from now on: moved at the end) */
    return true;
}

bool artefact_passenger_restart(artefact_passenger *a) {
    merge_head_diag(a);
    format_pipe_close(&a->head);
    if (a->tail_open) format_pipe_close(&a->tail);
    a->tail_open = a->split = a->done[0] = a->done[1] = false;
    a->fed[0] = a->fed[1] = 0;
    diag_free(&a->tail_diag);
    diag_init(&a->tail_diag);
    artefact_summary_reset(a->kind, a->summary);
    if (a->failed) return false;
    if (a->records ? !format_pipe_open_analysis(&a->head, a->o.p, a->kind, a->opt, a->o.label, a->summary, a->diag)
                   : !format_pipe_open(&a->head, a->o.p, a->kind, a->opt, a->o.label, a->summary, a->diag)) {
        diag_oom(a->diag, "%s: out of memory", a->o.label);
        fail(a);
        return false;
    }
    return true;
}

const record_sink *artefact_passenger_tail_records(artefact_passenger *a) {
    return a->records && a->tail_open ? &a->tail.sink : NULL;
}

const record_reading *artefact_passenger_reading(artefact_passenger *a, int piece) {
    if (!a->records || !a->o.p->open_records_pair || (piece && !a->tail_open)) return NULL;
    format_pipe *fp = piece ? &a->tail : &a->head;   /* (a tail's facts: scratch until the join) */
    a->reading[piece != 0] = (record_reading){a->opt, a->o.label, &fp->sink, piece ? &fp->scratch : fp->a->facts(a->summary),
                                              piece ? &a->tail_diag : a->diag};
    return &a->reading[piece != 0];
}

void artefact_passenger_read_apart(artefact_passenger *a) {
    assert(a->records && !a->o.p->read_fd);
    bool failed = !artefact_passenger_restart(a);   /* (the summary reset, the pieces' warnings dropped) */
    format_pipe_close(&a->head);       /* (its sink stays valid and takes nothing: format_pipe.c) */
    a->apart = true;
    if (!failed) artefact_read(a->o.path, a->kind, a->opt, a->summary, a->diag, a->info);
}

void artefact_passenger_end(artefact_passenger *a) {
    if (!a) return;
    merge_head_diag(a);
    drop_after_failure(a);
    if (a->apart) {              /* artefact_read completed the summary and info */
        diag_free(&a->tail_diag);
        free(a);
        return;
    }
    double t0 = clk_mono_ms_f();
    if (!a->failed) format_pipe_finish(a->split ? &a->tail : &a->head);
    if (a->split) diag_move(a->diag, &a->tail_diag);   /* after its finish, as read_split() does */
    a->info->bytes_parsed = a->fed[0] + (a->split ? a->fed[1] : 0);
    a->info->pieces = a->split ? 2 : 1;
    if (a->head.fmt || a->head.an) format_pipe_close(&a->head);
    if (a->tail_open) format_pipe_close(&a->tail);
    if (a->failed) artefact_summary_reset(a->kind, a->summary);   /* like the reference: nothing from a failed read */
    a->info->parse_ms = a->ms + (clk_mono_ms_f() - t0);
    diag_free(&a->tail_diag);
    free(a);
}
