/* run_headline: a run's verdict, profile and headline numbers from whatever it holds
 * (run_headline.h; the rules are docs/ANALYSIS.md "Headline numbers" and docs/API.md "Run
 * states"). Reads the finished analysis's numbers and RunMetrics' summaries, never a file. */
#include "core/run_headline.h"
#include "core/source_read.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_writer.h"
#include "core/waste_budget.h"

#define GIB 1073741824.0

/* The families in their fixed order (the profile lists them in this order). */
static const char *const FAMILIES[] = {"goblin", "kineto", "rocprofv3", "rocpd", "rocprof", "nsys",
                                       "nvprof", "smi", "msprof", "aie", NULL};

/* Format name prefix -> family (first match). */
/* goblin_runner's file names: a run holding one of them (where RunMetrics looks) is a goblin run. */
static const char *const GOBLIN_NAMES[] = {"trace.csv", "torch_profile.json", "torch_profile.json.gz", "amd_smi.csv",
                                           NULL};

const char *run_profile_family(const artefact_parser *format) {
    return format ? format->family : NULL;
}

static const char *base_name(const char *p) {
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p ? p : "";
}

static bool is_goblin_name(const char *path) {
    for (int i = 0; GOBLIN_NAMES[i]; i++)
        if (!strcmp(base_name(path), GOBLIN_NAMES[i])) return true;
    return false;
}

bool run_headline_goblin_named(const run_result *res) {
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++)
        if (res->info[k].present && is_goblin_name(res->files.path[k])) return true;
    return false;
}

/* The profile: every family of the inventory's formats, goblin when a RunMetrics file is there. */
static void profile_of(const run_result *res, const run_analysis *an, char *out, size_t n) {
    bool has[sizeof FAMILIES / sizeof *FAMILIES] = {0};
    has[0] = run_headline_goblin_named(res);
    for (size_t i = 0; i < an->inventory.n; i++) {
        const char *f = run_profile_family(an->inventory.src[i].format);
        for (int k = 0; f && FAMILIES[k]; k++)
            if (!strcmp(f, FAMILIES[k])) has[k] = true;
    }
    size_t used = 0;
    out[0] = 0;
    for (int k = 0; FAMILIES[k]; k++)
        if (has[k]) {
            int w = snprintf(out + used, n - used, "%s%s", used ? "," : "", FAMILIES[k]);
            if (w < 0 || (size_t)w >= n - used) break;
            used += (size_t)w;
        }
}

/* Whether name is one of the comma-separated list's items. */
static bool in_list(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !strncmp(p, name, n)) return true;
        p += m + (p[m] == ',');
    }
    return false;
}

/* Comma-separated relative paths of the inventory's sources of one family (formats NULL), read
 * by one of `formats` (comma-separated), or all (both NULL), at most 3 then "and N more". */
static void files_of_any(const run_analysis *an, const char *family, const char *formats, char *out, size_t n) {
    size_t used = 0, listed = 0, more = 0;
    out[0] = 0;
    for (size_t i = 0; i < an->inventory.n; i++) {
        const inventory_source *s = &an->inventory.src[i];
        const char *f = run_profile_family(s->format);
        if (formats ? !in_list(formats, s->format->name) : family && (!f || strcmp(f, family))) continue;
        if (listed == 3) { more++; continue; }
        int w = snprintf(out + used, n - used, "%s%s", used ? ", " : "", s->rel);
        if (w < 0 || (size_t)w >= n - used) break;
        used += (size_t)w;
        listed++;
    }
    if (more) snprintf(out + used, n - used, " and %zu more", more);
}

static void files_of(const run_analysis *an, const char *family, char *out, size_t n) {
    files_of_any(an, family, NULL, out, n);
}

/* The files whose kernels the analysis chose (its timeline's and kernel table's source). */
static void kernel_files(const run_analysis *an, char *out, size_t n) {
    const char *formats = an->headline.kernel_formats.len ? an->headline.kernel_formats.data : "";
    files_of_any(an, NULL, formats, out, n);
    if (!out[0]) snprintf(out, n, "%s", *formats ? formats : "timeline");
}

/* One field's origin in the JSON (source NULL: unknown, rendered null). */
static void origin(jw_out *w, const char *field, const char *source, const char *rule) {
    jw_key(w, field);
    if (!source) { jw_null(w); return; }
    jw_object_open(w);
    jw_key(w, "source");
    jw_string(w, source);
    jw_key(w, "rule");
    jw_string(w, rule);
    jw_object_close(w);
}

static const char *rm_step_rule(const char *s) {
    return !strcmp(s, "metadata") ? "goblin metadata step time"
         : !strcmp(s, "profiler_steps") ? "mean ProfilerStep#N duration"
         : !strcmp(s, "span") ? "trace span"
         : !strcmp(s, "span_per_step") ? "trace span / steps" : s;
}

/* The verdict: complete when a source was read (or RunMetrics' files parse), empty when
 * nothing was recognised, failed otherwise (and when a parse bound stopped a file, for
 * RunMetrics or for the analysis document alone: a second rank's trace, a database table). */
static bool verdict_of(const run_result *res, const run_analysis *an, run_headline *h) {
    run_outcome o = run_result_outcome(res);
    if (!o.limited) o.limited = source_read_bound_warning(&an->diag, 0);
    h->limited = o.limited;
    /* found: a source, or goblin_runner's kernel trace or torch profile by name (a broken one of
     * those fails the run: its run is goblin's); a telemetry file under goblin's name whose content
     * no format reads is another tool's log, not a profile (the run is then empty) */
    bool found = an->inventory.n > 0;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) found |= res->info[k].present && k != ARTEFACT_TELEMETRY;
    if (o.limited) {
        h->verdict = RUN_VERDICT_FAILED;
        return (h->error = strdup(o.limited)) != NULL;
    }
    if (o.ok || an->sources_with_records > 0) { h->verdict = RUN_VERDICT_COMPLETE; return true; }
    if (!found) { h->verdict = RUN_VERDICT_EMPTY; return true; }
    h->verdict = RUN_VERDICT_FAILED;
    /* what was found and why it was not read: a source's first warning, else a file no format
     * accepted (named like goblin's, its content is not), else RunMetrics' own */
    const char *why = an->unreadable.len ? an->unreadable.data
                    : an->inventory.n_unrec && an->inventory.unrec[0].why ? an->inventory.unrec[0].why : o.error;
    size_t n = strlen(why) + 64;
    if (!(h->error = malloc(n))) return false;
    snprintf(h->error, n, "no source could be read: %s", why);
    return true;
}

/* A warning in RunMetrics' list naming a number the run does not give (the body keeps the
 * schema's 0 for it). */
/* A number a client must not take as measured: never lost to the list's bound (diag_add_reserved). */
static void unknown_warning(run_metrics *m, const char *field, const char *why) {
    diag_add_reserved(&m->warnings, "%s unknown (%s): reported as 0", field, why);
}

/* A run of another profiler does not miss goblin_runner's files: RunMetrics' "<kind> not
 * found: <goblin name>" warnings leave its list (its sources are listed instead) for `kept`,
 * which owns them from then on (an artefact's first warning may point at one). */
static void drop_goblin_not_found(run_metrics *m, diag_list *kept_aside) {
    size_t kept = 0;
    for (size_t i = 0; i < m->warnings.count; i++) {
        char *w = m->warnings.items[i];
        bool drop = false;
        for (int k = 0; k < ARTEFACT_KIND_COUNT && !drop; k++) {
            const char *kind = artefact_kind_name((artefact_kind)k);
            drop = !strncmp(w, kind, strlen(kind)) && !strncmp(w + strlen(kind), " not found: ", 12);
        }
        if (drop && kept_aside->count < DIAG_MAX) kept_aside->items[kept_aside->count++] = w;
        else m->warnings.items[kept++] = w;
    }
    m->warnings.count = kept;
}

unsigned run_headline_unknown_buckets(const run_result *res) {
    const run_metrics *m = &res->metrics;
    const torch_summary *tr = &res->torch;
    const telemetry_summary *sm = &res->telemetry;
    if (!m->step_time.has) return 0;
    unsigned u = 0;
    if (!tr->host_busy_fraction.has) u |= 1u << W_DATA_WAIT | 1u << W_HOST_GAP;
    if (!sm->gpu_util_pct.has && !m->gpu_util_known)
        u |= 1u << W_DATA_WAIT | 1u << W_HOST_GAP | 1u << W_KERNEL_SHAPE | 1u << W_PRECISION_PATH;
    if (!sm->hbm_peak_gb.has) u |= 1u << W_MEMORY_HEADROOM;
    if (!res->kernels.kernels.dispatches) u |= 1u << W_COMM_EXCESS | 1u << W_KERNEL_SHAPE | 1u << W_PRECISION_PATH;
    if (u) u |= 1u << W_USEFUL_GPU;
    return u;
}

void run_headline_warn_unknown(run_result *res, unsigned waste_unknown, bool reference_body) {
    run_metrics *m = &res->metrics;
    const torch_summary *tr = &res->torch;
    const telemetry_summary *sm = &res->telemetry;
    for (int b = 0; b < W_COUNT && !reference_body; b++)
        if (waste_unknown & (1u << b)) m->waste[b] = 0.0;
    if (!m->step_time.has) unknown_warning(m, "step time and waste_budget", "no ProfilerStep, range or timeline");
    if (!tr->tokens_per_sec.has)
        unknown_warning(m, "tokens_per_sec", "no tokens per step declared (metadata or " RUN_SIDECAR_NAME "), no step "
                        "time, or their ratio not a finite number");
    if (!tr->mfu_pct.has)
        unknown_warning(m, "mfu_pct", "no model FLOPs and peak TFLOPS declared, no tokens/s, or their product not a "
                        "finite number");
    if (!m->gpu_util_known && !sm->gpu_util_pct.has) unknown_warning(m, "gpu_util_pct", "no telemetry or timeline");
    if (!sm->hbm_peak_gb.has) unknown_warning(m, "hbm_peak_gb", "no telemetry, allocation trace or torch memory totals");
    if (!sm->hbm_avg_gb.has) unknown_warning(m, "hbm_avg_gb", "no telemetry VRAM samples");
    for (int b = 0; b < W_COUNT; b++) {
        if (!(waste_unknown & (1u << b))) continue;
        if (m->waste[b] == 0.0) unknown_warning(m, WASTE_BUCKETS[b], "an input of its formula is unknown");
        else diag_add_reserved(&m->warnings, "%s unknown (an input of its formula is unknown): reported as goblin_runner's "
                      "formula gives it with that input taken as 0, not a measurement", WASTE_BUCKETS[b]);
    }
}

bool run_headline_apply(run_result *res, const run_options *opt, const run_analysis *an, const run_sidecar *sc,
                        run_headline *h) {
    memset(h, 0, sizeof *h);
    if (!verdict_of(res, an, h)) return false;
    profile_of(res, an, h->profile, sizeof h->profile);
    const analysis_headline *ah = &an->headline;
    run_metrics *m = &res->metrics;
    torch_summary *tr = &res->torch;
    telemetry_summary *sm = &res->telemetry;
    const char *torch_file = base_name(res->files.path[ARTEFACT_TORCH_PROFILE]);
    const char *smi_file = base_name(res->files.path[ARTEFACT_TELEMETRY]);
    const char *kt_file = base_name(res->files.path[ARTEFACT_KERNEL_TRACE]);
    bool goblin = strstr(h->profile, "goblin") == h->profile;
    bool had_step = m->step_time.has, had_util = m->gpu_util_known, had_hbm = sm->hbm_peak_gb.has;
    bool had_kernels = res->kernels.kernels.dispatches > 0, had_tps = tr->tokens_per_sec.has, had_mfu = tr->mfu_pct.has;
    bool kernels_from_torch = false;
    for (size_t i = 0; i < m->warnings.count; i++)
        kernels_from_torch |= !strncmp(m->warnings.items[i], "kernels taken from the torch profile", 36);

    char step_src[512] = "", util_src[512] = "", hbm_src[512] = "", kern_src[512] = "";
    const char *step_rule = NULL, *util_rule = NULL, *hbm_rule = NULL, *kern_rule = NULL;
    /* what RunMetrics knows stays; its origin */
    if (had_step) snprintf(step_src, sizeof step_src, "%s", torch_file), step_rule = rm_step_rule(m->step_time_source);
    if (had_util && sm->gpu_util_pct.has) snprintf(util_src, sizeof util_src, "%s", smi_file), util_rule = "mean telemetry utilisation";
    else if (had_util) snprintf(util_src, sizeof util_src, "%s", kernels_from_torch ? torch_file : kt_file),
                       util_rule = "kernel time / (step time x steps)";
    if (had_hbm) snprintf(hbm_src, sizeof hbm_src, "%s", smi_file), hbm_rule = "telemetry VRAM peak";
    if (had_kernels) snprintf(kern_src, sizeof kern_src, "%s", kernels_from_torch ? torch_file : kt_file),
                     kern_rule = kernels_from_torch ? "torch profile GPU kernel events" : "kernel trace";

    /* A goblin run keeps goblin_runner's rules exactly (its daemon RunMetrics is `goblind parse`'s,
     * a partial one included); only a run of other profilers takes numbers from the analysis. */
    bool may_fill = !goblin;
    /* the sidecar's declarations */
    run_options o = *opt;
    if (sc->has_steps && !o.steps_given) o.steps_given = true, o.steps = sc->steps, h->filled = true;
    if (sc->precision && !o.precision) o.precision = sc->precision, h->filled = true;
    /* kernels: the analysis's kernel rows (its kernel source choice, device clock first) */
    if (may_fill && !had_kernels && ah->n_kernels) {
        for (size_t i = 0; i < ah->n_kernels; i++) {
            const ingest_kernel *k = &ah->kernels[i];
            if (k->calls < 1 || k->total_ns < 0) continue;
            if (!kernel_table_add_aggregate(&res->kernels.kernels, k->name, k->name_len, (uint64_t)k->calls, k->total_ns,
                                            k->min_ns, k->max_ns))
                return false;
        }
        kernel_files(an, kern_src, sizeof kern_src);
        kern_rule = "the analysis's kernel source (device clock first)";
        h->filled = h->kernels_from_analysis = true;
    }
    /* step time: ProfilerStep#N in any torch trace (slowest rank's mean), else the span */
    if (!may_fill) {
        /* (nothing from the analysis) */
    } else if (!had_step && ah->has_in[AH_STEP_MEAN_NS] && ah->in[AH_STEP_MEAN_NS] > 0) {
        tr->step_time_seconds = (opt_num){true, ah->in[AH_STEP_MEAN_NS] / 1e9};
        tr->step_time_is_span = false;
        tr->profiled_steps = ah->has_in[AH_STEP_COUNT] ? (int64_t)ah->in[AH_STEP_COUNT] : 0;
        tr->facts.step_time_source = "profiler_steps";
        files_of(an, "kineto", step_src, sizeof step_src);
        step_rule = "mean ProfilerStep#N duration, slowest rank";
        h->filled = true;
    } else if (!had_step && ah->has_in[AH_RANGE_MEAN_NS] && ah->in[AH_RANGE_MEAN_NS] > 0) {
        tr->step_time_seconds = (opt_num){true, ah->in[AH_RANGE_MEAN_NS] / 1e9};
        tr->step_time_is_span = false;
        tr->profiled_steps = ah->has_in[AH_RANGE_COUNT] ? (int64_t)ah->in[AH_RANGE_COUNT] : 0;
        tr->facts.step_time_source = "profiler_steps";
        files_of_any(an, NULL, NULL, step_src, sizeof step_src);   /* (whichever source held them) */
        step_rule = "mean of the ranges named like steps (rocTX / NVTX / annotations), slowest rank";
        h->filled = true;
    } else if (!had_step && ah->has_in[AH_SPAN_NS] && ah->in[AH_SPAN_NS] > 0) {
        tr->step_time_seconds = (opt_num){true, ah->in[AH_SPAN_NS] / 1e9};
        tr->step_time_is_span = true;
        tr->facts.step_time_source = "span";
        kernel_files(an, step_src, sizeof step_src);
        step_rule = "timeline span / steps";
        h->filled = true;
    }
    /* GPU utilisation: telemetry, else the timeline's busy / span */
    if (!may_fill) {
        /* (nothing from the analysis) */
    } else if (!had_util && ah->has_in[AH_UTIL_MEAN_PCT]) {
        sm->gpu_util_pct = (opt_num){true, ah->in[AH_UTIL_MEAN_PCT]};
        files_of(an, "smi", util_src, sizeof util_src);
        util_rule = "mean telemetry utilisation";
        h->filled = true;
    } else if (!had_util && ah->has_in[AH_BUSY_NS] && ah->has_in[AH_SPAN_NS] && ah->in[AH_SPAN_NS] > 0) {
        sm->gpu_util_pct = (opt_num){true, 100.0 * ah->in[AH_BUSY_NS] / ah->in[AH_SPAN_NS]};
        kernel_files(an, util_src, sizeof util_src);
        util_rule = "timeline busy / span";
        h->filled = true;
    }
    /* HBM peak: telemetry, else the allocation trace's peak, else the largest Total Allocated of
     * torch's [memory] events (the allocator's reported totals, allocations.reported_peak_bytes:
     * the peak the PyTorch profiler's memory view reports, docs/ANALYSIS.md) */
    if (may_fill && !had_hbm) {
        int src = ah->has_in[AH_VRAM_PEAK_BYTES] ? AH_VRAM_PEAK_BYTES : ah->has_in[AH_ALLOC_PEAK_BYTES] && ah->in[AH_ALLOC_PEAK_BYTES] > 0
                ? AH_ALLOC_PEAK_BYTES : ah->has_in[AH_ALLOC_REPORTED_PEAK_BYTES] ? AH_ALLOC_REPORTED_PEAK_BYTES : -1;
        if (src >= 0) {
            sm->hbm_peak_gb = (opt_num){true, ah->in[src] / GIB};
            if (src == AH_VRAM_PEAK_BYTES && ah->has_in[AH_VRAM_MEAN_BYTES])
                sm->hbm_avg_gb = (opt_num){true, ah->in[AH_VRAM_MEAN_BYTES] / GIB};
            if (src == AH_VRAM_PEAK_BYTES) files_of(an, "smi", hbm_src, sizeof hbm_src);
            else if (src == AH_ALLOC_REPORTED_PEAK_BYTES) files_of_any(an, NULL, "torch-trace-json", hbm_src, sizeof hbm_src);
            else snprintf(hbm_src, sizeof hbm_src, "allocations section");
            hbm_rule = src == AH_VRAM_PEAK_BYTES ? "telemetry VRAM peak"
                     : src == AH_ALLOC_PEAK_BYTES ? "allocation trace peak (allocated - freed)"
                                                  : "torch [memory] events' Total Allocated peak, largest device";
            h->filled = true;
        }
    }
    if (h->filled) {                  /* the same formulas over the completed inputs */
        waste_inputs in = {.kernels = &res->kernels, .torch = tr, .telemetry = sm, .seed_compat = o.parse.seed_compat,
                           .steps_given = o.steps_given, .steps = o.steps, .precision = o.precision};
        waste_budget_compute(&in, m);
        tr->facts.steps_source = m->steps_source;
        tr->facts.step_time_source = m->step_time_source;
    }
    /* tokens/s and MFU: only when declared (goblin metadata, or the sidecar), and finite (a
     * declared 1e308 tokens a step overflows: unknown, not an infinite rate) */
    const char *tps_src = had_tps ? torch_file : NULL, *mfu_src = had_mfu ? torch_file : NULL;
    bool tps_declared = false, mfu_declared = false;
    if (!had_tps && sc->has_tokens_per_step && m->step_time.has && m->step_time.v > 0 &&
        isfinite(sc->tokens_per_step / m->step_time.v)) {
        m->tokens_per_sec = sc->tokens_per_step / m->step_time.v;
        tr->tokens_per_sec = (opt_num){true, m->tokens_per_sec};
        tps_src = RUN_SIDECAR_NAME;
        tps_declared = h->filled = true;
        double mfu = sc->has_flops_per_token && sc->has_peak_tflops
                         ? 100.0 * m->tokens_per_sec * sc->flops_per_token / (sc->peak_tflops * 1e12) : NAN;
        if (!had_mfu && isfinite(mfu)) {
            m->mfu_pct = mfu;
            tr->mfu_pct = (opt_num){true, m->mfu_pct};
            mfu_src = RUN_SIDECAR_NAME;
            mfu_declared = true;
        }
    }
    if (h->filled) waste_budget_clamp(m);
    bool reference_body = goblin && !h->filled;
    h->waste_unknown = run_headline_unknown_buckets(res);
    if (!goblin) drop_goblin_not_found(m, &h->aside);
    run_headline_warn_unknown(res, h->waste_unknown, reference_body);

    jw_out w;
    jw_begin(&w, &h->json, 0);
    jw_object_open(&w);
    jw_key(&w, "sources");
    jw_object_open(&w);
    bool failed = h->verdict == RUN_VERDICT_FAILED;   /* its numbers are not stored: no source either */
    origin(&w, "step_time_seconds", step_rule && !failed ? step_src : NULL, step_rule);
    origin(&w, "gpu_util_pct", util_rule && !failed ? util_src : NULL, util_rule);
    origin(&w, "hbm_peak_gb", hbm_rule && !failed ? hbm_src : NULL, hbm_rule);
    origin(&w, "top_kernels", kern_rule && !failed ? kern_src : NULL, kern_rule);
    origin(&w, "tokens_per_sec", failed ? NULL : tps_src, tps_declared ? "tokens_per_step / step time" : "goblin metadata");
    origin(&w, "mfu_pct", failed ? NULL : mfu_src, mfu_declared ? "tokens/s x model_flops_per_token / peak_tflops"
                                                             : "goblin metadata");
    jw_object_close(&w);
    jw_key(&w, "precision");              /* the declared precision, for the series fingerprint */
    if (o.precision) jw_string(&w, o.precision);
    else jw_null(&w);
    jw_key(&w, "labels");
    if (sc->labels_json) jw_json(&w, sc->labels_json, strlen(sc->labels_json));
    else jw_null(&w);
    jw_object_close(&w);
    /* a warning lost for lack of memory here counts as the reading's would (run_ingest) */
    return strbuf_terminate(&h->json) && !m->warnings.out_of_memory;
}

void run_headline_free(run_headline *h) {
    free(h->error);
    diag_free(&h->aside);
    strbuf_free(&h->json);
    memset(h, 0, sizeof *h);
}
