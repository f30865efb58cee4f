/* run_analysis: the run driver of the analysis document (see run_analysis.h). */
#include "core/run_analysis.h"
#include "base/clock.h"
#include "base/text_utf8.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/kernel_class_cache.h"
#include "analyses/section_md.h"
#include "analyses/section_registry.h"
#include "core/run_job.h"
#include "core/run_split.h"
#include "core/source_read.h"
#include "parsers/parser_registry.h"

/* Names longer than this reach the analyses cut (on a UTF-8 boundary): a kernel name of
 * 100 KB repeated by 2000 distinct kernels would otherwise be copied into every section's
 * table and classified in full, for minutes and gigabytes (a hostile review's finding).
 * Real kernel names of deep C++ templates reach 5 KB (a fixture's at::native kernel has
 * 5,123 bytes): the bound leaves them whole. */
#define ANALYSIS_NAME_MAX 16384

#define LIMITS_EVERY 64   /* records between two checks of the deadline and cancel */

/* Whether the parse's deadline passed or its cancel is set (the size bound is the reader's). */
static bool limits_passed(const parse_options *opt) {
    const parse_limits *l = opt ? opt->limits : NULL;
    if (!l) return false;
    return (l->cancel && atomic_load(l->cancel)) || (l->deadline_ms && clk_mono_ms() > l->deadline_ms);
}

/* The sink: count, then hand the record to every analysis wanting its type (none once the
 * deadline or the cancel passed: see job.since_limits). */
static bool fan_out(void *user, const record *r) {
    job *j = user;
    if (j->records_stopped_at) return true;      /* past the limits: dropped (see job.since_limits) */
    if (++j->since_limits == LIMITS_EVERY) {
        j->since_limits = 0;
        uint64_t seen = 1;
        for (int t = 0; t < REC_TYPE_COUNT; t++) seen += j->counts[t];
        if (limits_passed(j->parse)) { j->records_stopped_at = seen; return true; }
    }
    record cut;
    if (r->name && r->name_len > ANALYSIS_NAME_MAX) {
        cut = *r;
        cut.name_len = utf8_cut(r->name, r->name_len, ANALYSIS_NAME_MAX);
        r = &cut;
        j->names_cut++;
    }
    if ((unsigned)r->type < REC_TYPE_COUNT) j->counts[r->type]++;
    if (j->withheld & REC_BIT(r->type)) {        /* another source of the run delivers this family */
        j->dropped_kernels++;
        return true;
    }
    int rank;
    if (record_rank(r, &rank)) j->meta_rank = rank;
    bool kernel_type = (JOB_KERNEL_TYPES & REC_BIT(r->type)) != 0;
    if (kernel_type && !j->ref->kernels_chosen) {
        j->dropped_kernels++;                     /* not the run's kernels; maybe the host analyses' */
        if (!j->ref->host_kernels_chosen) return true;
    }
    if (j->routed && (unsigned)r->type < REC_TYPE_COUNT) {
        kcc_record_seq++;                         /* odd: r's name may be memoised (kernel_class_cache.h) */
        for (unsigned k = 0; k < j->n_route[r->type]; k++) {
            size_t i = j->route[r->type][k];     /* (open, and given kernels if r is one: job_route) */
            if (!j->an[i]->consume(j->src[i], r)) {
                j->oom = true;
                kcc_record_seq++;
                return false;
            }
        }
        kcc_record_seq++;
        return true;
    }
    for (size_t i = 0; i < j->n_an; i++) {
        if (!j->src[i] || !(j->an[i]->wants & REC_BIT(r->type))) continue;
        if (kernel_type && !job_gets_kernels(j->an[i], j->ref)) continue;
        if (!j->an[i]->consume(j->src[i], r)) {
            j->oom = true;
            return false;
        }
    }
    return true;
}

/* Builds j's routes (see job.route) from the analyses whose source states are open, and
 * returns the RF_ fields they read together. Called when a read starts, when j's source
 * choices (j->ref) are final: a kernel type's route leaves out the analyses not given the
 * source's kernels (job_gets_kernels), so fan_out does not ask per record. */
static unsigned job_route(job *j) {
    unsigned fields = 0;
    memset(j->n_route, 0, sizeof j->n_route);
    j->routed = true;
    for (size_t i = 0; i < j->n_an; i++) {
        if (!j->src[i]) continue;
        fields |= j->an[i]->fields;
        for (unsigned t = 0; t < REC_TYPE_COUNT; t++) {
            if (!(j->an[i]->wants & REC_BIT(t))) continue;
            if ((JOB_KERNEL_TYPES & REC_BIT(t)) && !job_gets_kernels(j->an[i], j->ref)) continue;
            if (j->n_route[t] == ROUTE_MAX || i > UINT8_MAX) j->routed = false;
            else j->route[t][j->n_route[t]++] = (uint8_t)i;
        }
    }
    return fields;
}

record_sink run_analysis_job_sink(job *j) {
    return (record_sink){.emit = fan_out, .user = j, .fields = job_route(j)};
}

void run_analysis_job_discard(job *j, const analysis_config *cfg) {
    for (size_t i = 0; j->src && i < j->n_an; i++) {
        if (!j->src[i]) continue;
        diag_list d;
        diag_init(&d);
        void *scratch = j->an[i]->open(cfg, &d);
        if (scratch) { j->an[i]->end_source(scratch, j->src[i]); j->an[i]->close(scratch); }
        j->src[i] = NULL;
        diag_free(&d);
    }
}

void run_analysis_job_reset(job *j, const analysis_config *cfg) {
    run_analysis_job_discard(j, cfg);
    diag_free(&j->diag);
    read_facts_free(&j->facts);
    memset(j->counts, 0, sizeof j->counts);
    memset(&j->stats, 0, sizeof j->stats);
    j->dropped_kernels = 0;
    j->names_cut = 0;
    j->meta_rank = -1;
    j->oom = false;
    j->since_limits = 0, j->records_stopped_at = 0;   /* (the read again checks the limits anew) */
    free(j->src);
    j->src = NULL;
}

bool run_analysis_job_open(job *j, void *const *run) {
    j->meta_rank = -1;
    diag_init(&j->diag);
    if (!(j->src = calloc(j->n_an ? j->n_an : 1, sizeof *j->src))) return false;
    for (size_t i = 0; i < j->n_an; i++)
        if (run[i] && j->an[i]->wants && !(j->src[i] = j->an[i]->open_source(run[i], j->ref))) return false;
    return true;
}

void *run_analysis_job_read(void *arg) {
    job *j = arg;
    record_sink sink = run_analysis_job_sink(j);
    source_read_tee(j->inv->path, j->inv->rel, j->inv->format, j->parse, &sink, &j->facts, &j->diag, &j->stats, j->tee);
    if (j->oom) diag_oom(&j->diag, "%s: out of memory in an analysis; records after that are missing", j->inv->rel);
    return NULL;
}

/* Folds the job's source states into the run (driver thread, source order). */
static bool job_end(job *j, void *const *run) {
    bool ok = true;
    if (j->records_stopped_at && !source_read_stop_warned(&j->diag, 0)) {   /* (the reader did not say it) */
        const parse_limits *l = j->parse->limits;
        if (l->cancel && atomic_load(l->cancel))
            diag_add(&j->diag, "%s: read cancelled at record %llu (shutting down)", j->ref->path,
                     (unsigned long long)j->records_stopped_at);
        else
            diag_add(&j->diag, "%s: read stopped at record %llu after %d s; max_parse_s bounds a parse", j->ref->path,
                     (unsigned long long)j->records_stopped_at, l->max_seconds);
    }
    if (j->ref->rank < 0 && j->meta_rank >= 0) j->ref->rank = j->meta_rank;
    if (j->names_cut)
        diag_add(&j->diag, "%s: %llu names longer than %d bytes were cut to that length for the analyses", j->ref->path,
                 (unsigned long long)j->names_cut, ANALYSIS_NAME_MAX);
    for (size_t i = 0; i < j->n_an; i++)
        if (j->src[i]) { ok &= j->an[i]->end_source(run[i], j->src[i]); j->src[i] = NULL; }
    return ok;
}

/* Frees a job; a source state left by a failure half-way is folded (end_source frees it). */
static void job_free(job *j, void *const *run) {
    if (j->src)
        for (size_t i = 0; i < j->n_an; i++)
            if (j->src[i] && run[i]) j->an[i]->end_source(run[i], j->src[i]);
    free(j->src);
    j->src = NULL;
    diag_free(&j->diag);
    read_facts_free(&j->facts);
}

void run_analysis_defaults(run_analysis_options *o) {
    memset(o, 0, sizeof *o);
    o->cfg.kernel_wait_threshold_ns = 50000;
    o->cfg.short_kernel_ns = 10000;
    o->cfg.list_rows = 200;
    o->threads = 2;
}

/* The device-clock kernel family: the first format (registry order) among the inventory's
 * device-clock kernel sources, or NULL. */
static const artefact_parser *device_family(const run_inventory *inv) {
    const artefact_parser *best = NULL;
    size_t best_pos = SIZE_MAX;
    for (size_t i = 0; i < inv->n; i++) {
        if (!inv->src[i].kernel_source || !inv->src[i].device_clock) continue;
        size_t pos = 0;
        for (const artefact_parser *const *p = parser_list(); *p && *p != inv->src[i].format; p++) pos++;
        if (pos < best_pos) { best_pos = pos; best = inv->src[i].format; }
    }
    return best;
}

/* Reads jobs a and b (when not NULL) side by side, b on a second thread. */
static void run_analysis_job_read_pair(job *a, job *b) {
    pthread_t th;
    bool threaded = b && pthread_create(&th, NULL, run_analysis_job_read, b) == 0;
    run_analysis_job_read(a);
    if (threaded) pthread_join(th, NULL);
    else if (b) run_analysis_job_read(b);
}

#define SPLIT_BESIDE 2u                  /* see the scheduling in run_analyze */
#define FOLLOW_MAX 4u                    /* small files read on a split read's tail thread */

/* Whether a source without kernels may carry records of the families the source choice
 * covers (API calls, annotations, allocations, counters, copies): its format says it emits
 * some, or does not say (telemetry never does). */
static bool may_carry_family(const inventory_source *s) {
    if (s->format->kind == ARTEFACT_TELEMETRY) return false;
    return !s->format->emits || (s->format->emits & JOB_FAMILY_TYPES);
}

/* May source s be read whole on the tail thread of the split read of file f, before the cut
 * is chosen (core/run_split), rather than alone after it: small beside f (an eighth at most)
 * and carrying no kernels, so no kernel source choice waits on it (telemetry), nor, when f
 * carries kernels, records whose delivery depends on what f gives (may_carry_family). */
static bool follows(const inventory_source *s, const inventory_source *f) {
    return !s->kernel_source && s->size <= f->size / 8 && (!f->kernel_source || !may_carry_family(s));
}

/* The record families a source without kernels is not delivered: those the chosen kernel
 * family has delivered already (seen), so that a rocpd database's API calls and the
 * hip_api_trace.csv written beside it are not counted twice. */
static unsigned withheld_for(const inventory_source *s, unsigned seen) {
    return s->kernel_source ? 0u : seen & JOB_FAMILY_TYPES;
}

/* Whether source j was read: it gave a record (delivered or not), or its format took rows of
 * it (used, or skipped for a stated reason: a trace whose rows all have zero durations was
 * read, and holds nothing; not when its header was refused). The run's status counts the sources read (core/run_headline); the
 * others — rejected at their header, not the format their name says — are named with why, for
 * a failed run's reason. */
static void note_readable(run_analysis *out, const job *j) {
    uint64_t n = j->dropped_kernels + j->facts.rows_used;
    for (int k = 0; k < REC_TYPE_COUNT; k++) n += j->counts[k];
    /* rows skipped count, unless the header was refused (every row is then skipped for it) */
    bool header_refused = j->diag.count && strstr(j->diag.items[0], "header");
    for (size_t k = 0; k < j->facts.n_skips && !header_refused; k++) n += j->facts.skipped[k].rows;
    if (n) { out->sources_with_records++; return; }
    strbuf *u = &out->unreadable;
    if (u->len > 1024) return;                  /* enough to say why; the sources section has all */
    if (u->len) strbuf_append(u, "; ", 2);
    const char *why = j->diag.count ? j->diag.items[0] : j->stats.present ? "no records" : "not read";
    size_t rl = strlen(j->inv->rel);
    if (strncmp(why, j->inv->rel, rl) || strncmp(why + rl, ": ", 2)) {   /* (a warning names its file already) */
        strbuf_append(u, j->inv->rel, rl);
        strbuf_append(u, ": ", 2);
    }
    strbuf_append(u, why, strlen(why) < 300 ? strlen(why) : 300);
    strbuf_terminate(u);
}

bool run_analyze(const char *run_dir, const run_analysis_options *opt, run_analysis *out) {
    run_inventory inv;
    diag_list d;
    diag_init(&d);
    if (!run_inventory_build(run_dir, opt->cfg.npu_reference_dir, opt->parse.confine_root, &inv, &d)) {
        memset(out, 0, sizeof *out);
        diag_free(&d);
        return false;
    }
    return run_analyze_inventory(run_dir, &inv, &d, opt, out);
}

bool run_analyze_inventory(const char *run_dir, run_inventory *inventory, diag_list *inventory_diag,
                           const run_analysis_options *opt, run_analysis *out) {
    memset(out, 0, sizeof *out);
    out->inventory = *inventory;                /* taken over, with its warnings */
    memset(inventory, 0, sizeof *inventory);
    out->diag = *inventory_diag;
    diag_init(inventory_diag);
    const section_analysis *const *an = opt->sections ? opt->sections : section_analyses();
    size_t n_an = 0;
    while (an[n_an]) n_an++;
    analysis_config cfg = opt->cfg;
    cfg.run_dir = run_dir;
    run_inventory *inv = &out->inventory;
    void **run = calloc(n_an + 1, sizeof *run);
    source_ref *refs = calloc(inv->n + 1, sizeof *refs);
    job *jobs = calloc(inv->n + 1, sizeof *jobs);
    /* the second pieces of split reads: their refs (piece 1) and jobs */
    source_ref *tail_refs = calloc(inv->n + 1, sizeof *tail_refs);
    job *tails = calloc(inv->n + 1, sizeof *tails);
    bool ok = run && refs && jobs && tail_refs && tails;
    for (size_t i = 0; ok && i < n_an; i++) ok = (run[i] = an[i]->open(&cfg, &out->diag)) != NULL;
    parse_options unconfined = opt->parse;      /* the configured extra root's files */
    unconfined.confine_root = NULL;
    const artefact_parser *family = device_family(inv);
    bool host_trace = false;                    /* the host analyses' kernels come from it */
    for (size_t i = 0; i < inv->n; i++) host_trace |= inv->src[i].kernel_source && !inv->src[i].device_clock;
    uint64_t device_dispatches = 0;
    unsigned family_seen = 0;                   /* record types the chosen kernel family delivered */
    for (size_t i = 0; ok && i < inv->n; i++) {
        const inventory_source *s = &inv->src[i];
        refs[i] = (source_ref){.index = i, .path = s->rel, .format = s->format->name, .rank = s->rank,
                               .device_clock = s->device_clock, .kernels_chosen = true};
        if (s->kernel_source && s->device_clock) refs[i].kernels_chosen = s->format == family;
        refs[i].host_kernels_chosen = !s->kernel_source || !s->device_clock || (!host_trace && s->format == family);
        jobs[i] = (job){.an = an, .n_an = n_an, .inv = s, .ref = &refs[i],
                        .parse = s->extra_root ? &unconfined : &opt->parse, .tap = opt->tap};
        /* another device-clock family of the same run (a legacy rocprof results.json beside
         * its results.db): none of its records of the chosen families either */
        if (s->kernel_source && s->device_clock && s->format != family)
            jobs[i].withheld = JOB_FAMILY_TYPES & ~JOB_KERNEL_TYPES;
    }
    int threads = opt->threads > 0 ? opt->threads : 2;
    for (size_t i = 0; ok && i < inv->n;) {
        /* torch kernels only when the device-clock family gave none: decided after it is read */
        if (inv->src[i].kernel_source && !inv->src[i].device_clock) refs[i].kernels_chosen = device_dispatches == 0;
        job *a = &jobs[i], *b = NULL;
        bool speculative = false;      /* b, a torch trace, read without its kernels beside a */
        if (threads > 1 && i + 1 < inv->n) {
            const inventory_source *t = &inv->src[i + 1];
            bool torch_next = t->kernel_source && !t->device_clock;
            /* whether the torch trace's kernels are delivered depends on a only when a is a
             * chosen device-clock source and no dispatch has been seen yet: it is then read
             * beside a on the bet that a has dispatches (a kernel trace that is not empty),
             * and read again with its kernels in the rare case that a has none */
            bool depends = torch_next && inv->src[i].device_clock && inv->src[i].kernel_source && refs[i].kernels_chosen &&
                           device_dispatches == 0;
            if (torch_next) refs[i + 1].kernels_chosen = device_dispatches == 0 && !depends;
            speculative = depends;
            if (!depends || inv->src[i].size > 0) b = &jobs[i + 1];
            else speculative = false;
            /* a source without kernels learns what the kernel sources delivered first */
            if (inv->src[i].kernel_source && !t->kernel_source && may_carry_family(t)) b = NULL, speculative = false;
        }
        /* A file that splits (b with its kernel choice as just set) takes both threads: alone
         * when its neighbour splits too or there is none (the neighbour is read next), else
         * — when it is more than SPLIT_BESIDE times the neighbour — with the smaller
         * neighbour read whole on the tail piece's thread first; small files without kernels
         * after them (telemetry) are read there too. The cut is chosen when they are done
         * (core/run_split), so that both threads end together. */
        bool split_a = run_split_possible(a, threads), split_b = b && run_split_possible(b, threads);
        job *split = NULL, *pre[1 + FOLLOW_MAX];
        size_t n_pre = 0;
        if (split_a && (!b || split_b)) split = a, b = NULL, speculative = false;
        else if (split_a && a->inv->size > SPLIT_BESIDE * b->inv->size) split = a, pre[n_pre++] = b;
        else if (split_b && b->inv->size > SPLIT_BESIDE * a->inv->size) split = b, pre[n_pre++] = a;
        /* sources i .. i + n - 1 are read this round: a, b, then the small files that follow a split file */
        size_t n = b ? 2 : 1;
        while (split && n_pre < 1 + FOLLOW_MAX && i + n < inv->n && follows(&inv->src[i + n], split->inv))
            pre[n_pre++] = &jobs[i + n++];
        job *last = &jobs[i + n - 1];
        for (job *j = a; j <= last; j++) j->withheld |= withheld_for(j->inv, family_seen);
        for (job *j = a; ok && j <= last; j++) ok = run_analysis_job_open(j, run);
        if (!ok) break;
        for (job *j = a; opt->tap && j <= last; j++)   /* RunMetrics' readings ride on these reads (run_ingest) */
            j->tee = opt->tap->tee_for(opt->tap->user, j->inv);
        for (size_t k = i; k <= i + (b ? 1 : 0); k++) {
            tail_refs[k] = refs[k];
            tail_refs[k].piece = 1;
            tails[k] = (job){.an = an, .n_an = n_an, .inv = jobs[k].inv, .ref = &tail_refs[k], .parse = jobs[k].parse,
                             .withheld = jobs[k].withheld};
        }
        if (!split) run_analysis_job_read_pair(a, b);
        else if (!(ok = run_split_read(split, &tails[split - jobs], pre, n_pre, run, &cfg))) break;
        for (job *j = a; ok && j <= last; j++) {
            if (j == b && speculative && device_dispatches == 0) {
                /* the bet lost: a gave no dispatch, so b's kernels are the run's; read b again
                 * with them (its passenger, if any, has had every byte already) */
                run_analysis_job_reset(b, &cfg);
                if (b->split) {         /* (its second piece goes too) */
                    run_analysis_job_discard(&tails[i + 1], &cfg);
                    b->split = false;
                }
                refs[i + 1].kernels_chosen = true;
                b->tee = NULL;
                if (!(ok = run_analysis_job_open(b, run))) break;
                run_analysis_job_read(b);
            }
            ok = job_end(j, run);
            if (j->split) {             /* the second piece after the first, then one source */
                job *t = &tails[j - jobs];
                ok = ok && job_end(t, run);
                for (int k = 0; k < REC_TYPE_COUNT; k++) j->counts[k] += t->counts[k];
                j->dropped_kernels += t->dropped_kernels;
                j->names_cut += t->names_cut;
                if (j->ref->rank < 0 && t->meta_rank >= 0) j->ref->rank = t->meta_rank;
                diag_append(&j->diag, &t->diag);
            }
            if (j->inv->device_clock && j->ref->kernels_chosen) device_dispatches += j->counts[REC_KERNEL_DISPATCH];
            for (unsigned t = 0; j->inv->kernel_source && j->ref->kernels_chosen && t < REC_TYPE_COUNT; t++)
                if (j->counts[t] && (REC_BIT(t) & (j->inv->device_clock ? JOB_FAMILY_TYPES : JOB_KERNEL_TYPES)))
                    family_seen |= REC_BIT(t);
            diag_append(&out->diag, &j->diag);
            out->sources_read++;
            note_readable(out, j);
        }
        i += n;
    }
    /* finish in registry order: each sees the finished results of those before it */
    for (size_t i = 0; ok && i < n_an; i++) {
        section_results earlier = {an, run, i};
        ok = an[i]->finish(run[i], &earlier);
    }
    if (ok) {                           /* what the store keeps besides the text */
        section_results all = {an, run, n_an};
        ok = analysis_headline_collect(&out->headline, &all);
        for (size_t i = 0; ok && i < inv->n; i++)
            if (refs[i].kernels_chosen && jobs[i].counts[REC_KERNEL_DISPATCH])
                ok = analysis_headline_add_format(&out->headline, inv->src[i].format->name);
    }
    if (ok) {
        jw_out w;
        jw_begin(&w, &out->json, opt->json_indent);
        jw_object_open(&w);
        jw_key(&w, "sources");
        run_sources_render(inv, refs, jobs, &w);
        size_t k = n_an;                          /* the kernels section */
        for (size_t i = 0; i < n_an; i++) {
            jw_key(&w, an[i]->key);
            an[i]->render(run[i], &w);
            if (!strcmp(an[i]->key, "kernels")) k = i;
        }
        jw_object_close(&w);
        /* the kernel rows the store keeps: every row, not the document's first list_rows */
        if (k < n_an && an[k]->kernel_rows) ok = analysis_headline_kernel_rows(&out->headline, an[k], run[k]);
        char *real = realpath(run_dir, NULL);       /* "." names the directory it is */
        const char *name = real ? real : run_dir;
        const char *base = strrchr(name, '/');
        base = base && base[1] ? base + 1 : name;
        smd_printf(&out->report_md, "# goblind analysis: ");
        smd_cell(&out->report_md, base, strlen(base), 400);    /* the directory's name, escaped */
        smd_printf(&out->report_md, "\n\n");
        free(real);
        run_sources_md(inv, refs, jobs, &opt->cfg, &out->report_md);
        for (size_t i = 0; i < n_an; i++)
            if (an[i]->render_md) an[i]->render_md(run[i], &out->report_md);
        ok = strbuf_terminate(&out->json) && strbuf_terminate(&out->report_md);
    }
    for (size_t i = 0; jobs && run && i < inv->n; i++) job_free(&jobs[i], run);
    for (size_t i = 0; tails && run && i < inv->n; i++) job_free(&tails[i], run);
    free(tails);
    free(tail_refs);
    for (size_t i = 0; run && i < n_an; i++)
        if (run[i]) an[i]->close(run[i]);
    free(jobs);
    free(refs);
    free(run);
    if (ok && out->diag.out_of_memory) ok = false;   /* memory ran out somewhere: partial, not returned */
    if (!ok) { run_analysis_free(out); return false; }
    return true;
}

void run_analysis_free(run_analysis *a) {
    strbuf_free(&a->json);
    strbuf_free(&a->report_md);
    run_inventory_free(&a->inventory);
    diag_free(&a->diag);
    analysis_headline_free(&a->headline);
    strbuf_free(&a->unreadable);
}
