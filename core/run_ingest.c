/* run_ingest: RunMetrics and the analysis document from one read of each file (see
 * run_ingest.h). */
#include "core/run_ingest.h"

#include <string.h>
#include <sys/stat.h>

#include "core/artefact_reader.h"

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

static bool tee_feed(void *u, const uint8_t *b, size_t n) { return artefact_passenger_feed(((passenger_slot *)u)->ap, 0, b, n); }
static bool tail_feed(void *u, const uint8_t *b, size_t n) { return artefact_passenger_feed(((passenger_slot *)u)->ap, 1, b, n); }
static void tee_read_error(void *u, uint64_t off, int err) { artefact_passenger_read_error(((passenger_slot *)u)->ap, off, err); }
static void tee_gzip_error(void *u, uint64_t off, const char *m) { artefact_passenger_gzip_error(((passenger_slot *)u)->ap, off, m); }
static void tee_stopped(void *u) { artefact_passenger_stopped_early(((passenger_slot *)u)->ap); }

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

/* source_tap.tee_for: a RunMetrics file gets its passenger; a path-reading format (rocpd)
 * is not a byte stream, so its RunMetrics reading is done apart, after the driver. */
static const source_tee *tap_tee_for(void *user, const inventory_source *s) {
    ingest *in = user;
    passenger_slot *p = slot_of(in, s);
    if (!p || p->attached || s->format->read_path) return NULL;
    p->attached = true;
    artefact_kind k = p->kind;
    p->ap = artefact_passenger_open(in->out->files.path[k], k, &in->popt, summary_of(in->out, k), &in->diag[k],
                                    &in->out->info[k]);
    return p->ap ? &p->tee : NULL;
}

static const source_tee *tap_split(void *user, const inventory_source *s, uint64_t offset, const uint8_t *head, size_t n) {
    passenger_slot *p = slot_of(user, s);
    return p && p->ap && artefact_passenger_split(p->ap, offset, head, n) ? &p->tail_tee : NULL;
}

static bool tap_join(void *user, const inventory_source *s) {
    passenger_slot *p = slot_of(user, s);
    return p && p->ap && artefact_passenger_join(p->ap);
}

static bool tap_restart(void *user, const inventory_source *s) {
    passenger_slot *p = slot_of(user, s);
    return p && p->ap && artefact_passenger_restart(p->ap);
}

bool run_ingest(const char *run_dir, const run_options *opt, const run_analysis_options *aopt, run_result *res,
                run_analysis *an) {
    memset(res, 0, sizeof *res);
    memset(an, 0, sizeof *an);
    if (!run_files_find(run_dir, &res->files)) return false;
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
        p->tee = (source_tee){tee_feed, tee_read_error, tee_gzip_error, tee_stopped, p};
        p->tail_tee = (source_tee){tail_feed, tee_read_error, tee_gzip_error, tee_stopped, p};
        if (res->files.path[k] && stat(res->files.path[k], &st) == 0 && S_ISREG(st.st_mode)) {
            p->have_id = true;
            p->dev = st.st_dev;
            p->ino = st.st_ino;
        }
    }
    source_tap tap = {tap_tee_for, tap_split, tap_join, tap_restart, &in};
    run_analysis_options o = *aopt;
    o.tap = &tap;
    bool ok = run_analyze(run_dir, &o, an);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        passenger_slot *p = &in.slot[k];
        if (p->ap) artefact_passenger_end(p->ap);
        p->ap = NULL;
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
    if (!ok) { run_result_free(res); return false; }
    return true;
}
