/* ingest_doc: a run_result as the store's document. */
#include "core/ingest_doc.h"

#include <string.h>

#include "analyses/kernel_class.h"
#include "core/metrics_json.h"
#include "core/read_facts_json.h"
#include "core/run_parse.h"

_Static_assert(W_COUNT == INGEST_WASTE_BUCKETS, "INGEST_WASTE_BUCKETS must be W_COUNT");
_Static_assert((int)KF_COLLECTIVE == (int)INGEST_KF_COLLECTIVE && (int)KF_GEMM_WIDE == (int)INGEST_KF_GEMM_WIDE &&
               (int)KF_GENERIC == (int)INGEST_KF_GENERIC, "the stored kernel flags are the KF_* bits");
const char *const *const INGEST_WASTE_KEYS = WASTE_BUCKETS;

static int64_t clamp64(i128 v) { return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v; }

/* Row i of the run's kernel table. */
static bool kernel_at(const ingest_doc *d, size_t i, ingest_kernel *k) {
    const kernel_table *t = d->kernels;
    if (!t || i >= t->count) return false;
    const kernel_stat *s = &t->items[i];
    *k = (ingest_kernel){.name = s->name, .name_len = s->name_len, .calls = (int64_t)s->calls,
                         .total_ns = clamp64(s->total_ns), .min_ns = clamp64(s->min_ns), .max_ns = clamp64(s->max_ns),
                         .flags = s->flags, .kernel_class = kernel_class_key(kernel_class_of(s->name, s->name_len))};
    return true;
}

bool ingest_doc_build(const struct run_result *r, ingest_doc *d) {
    memset(d, 0, sizeof *d);
    const run_metrics *m = &r->metrics;
    headline_known known = run_result_known(r);
    d->headline = (ingest_headline){.tokens_per_sec = m->tokens_per_sec, .mfu_pct = m->mfu_pct,
                                    .gpu_util_pct = m->gpu_util_pct, .hbm_peak_gb = m->hbm_peak_gb,
                                    .has_step_seconds = known.step_time, .step_seconds = m->step_time.v,
                                    .has_tokens_per_sec = known.tokens_per_sec, .has_mfu_pct = known.mfu_pct,
                                    .has_gpu_util_pct = known.gpu_util_pct, .has_hbm_peak_gb = known.hbm,
                                    .has_hbm_avg_gb = known.hbm_avg, .hbm_avg_gb = m->hbm_avg_gb,
                                    .has_waste = known.step_time};
    for (int b = 0; b < W_COUNT; b++) d->headline.waste[b] = m->waste[b];
    metrics_json_render(m, 0, &d->metrics);
    d->metrics_json = d->metrics.data;
    bool ok = d->metrics_json != NULL;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        const artefact_info *a = &r->info[k];
        if (a->format || k == ARTEFACT_TORCH_PROFILE) {     /* the step sources, even without the file */
            read_facts_render(run_result_facts(r, (artefact_kind)k), a->format != NULL, &d->readings[k]);
            ok = ok && d->readings[k].data;
        }
        d->artefacts[k] = (ingest_artefact){.kind = artefact_kind_key((artefact_kind)k),
                                            .path = r->files.path[k] ? r->files.path[k] : "", .format = a->format,
                                            .error = a->error, .reading = d->readings[k].data, .present = a->present,
                                            .size = a->size, .inode = a->inode, .bytes_parsed = a->bytes_parsed,
                                            .mtime_ns = a->mtime_ns, .parse_ms = a->parse_ms};
    }
    d->n_artefacts = ARTEFACT_KIND_COUNT;
    d->kernels = &r->kernels.kernels;
    d->kernel_at = kernel_at;
    if (r->kernels.kernels.count) {     /* the kernel trace's rows, or the torch fallback's */
        d->kernels_source = "run_metrics";
        const artefact_info *kt = &r->info[ARTEFACT_KERNEL_TRACE], *tp = &r->info[ARTEFACT_TORCH_PROFILE];
        d->kernels_formats = kt->format && r->kernels.facts.rows_used ? kt->format : tp->format;
    }
    return ok;
}

uint64_t ingest_doc_bytes(const ingest_doc *d) {
    uint64_t n = 1024;                          /* the run's row, its columns */
    const char *texts[] = {d->metrics_json, d->analysis_json, d->report_md};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) n += texts[i] ? strlen(texts[i]) : 0;
    for (size_t i = 0; i < d->n_artefacts; i++) {
        const ingest_artefact *a = &d->artefacts[i];
        n += 128 + (a->path ? strlen(a->path) : 0) + (a->reading ? strlen(a->reading) : 0) + (a->error ? strlen(a->error) : 0);
    }
    ingest_kernel k;                            /* each row and its key's index: run id and name twice */
    for (size_t i = 0; d->kernel_at && d->kernel_at(d, i, &k); i++) n += 2 * (k.name_len + 64) + 48;
    return n + d->n_gauges * 48;
}

void ingest_doc_forget_numbers(ingest_doc *d) {
    ingest_headline *h = &d->headline;
    h->has_tokens_per_sec = h->has_mfu_pct = h->has_gpu_util_pct = h->has_hbm_peak_gb = false;
    h->has_hbm_avg_gb = h->has_step_seconds = h->has_waste = false;
    d->gauges = NULL;
    d->n_gauges = 0;
}

void ingest_doc_free(ingest_doc *d) {
    strbuf_free(&d->metrics);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) strbuf_free(&d->readings[k]);
    memset(d, 0, sizeof *d);
}
