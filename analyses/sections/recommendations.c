/* recommendations: the `recommendations` section — deterministic advice, each item with the
 * measured evidence and the threshold it crossed (docs/ANALYSIS.md "recommendations").
 *
 * Derived: it reads earlier sections' numbers by path (section_number: steps, timeline,
 * telemetry, device), never their structs; a rule whose inputs are absent is listed in
 * `skipped` with the reason, never evaluated on zeros. It also consumes kernel dispatches
 * itself (per-name aggregates in a kernel_table, for the per-kernel rules) and metadata
 * (device_name, for the bf16 rule). All rules live in RULES[] below, one row each. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/kernel_class.h"
#include "analyses/section.h"
#include "analyses/section_md.h"
#include "parsers/kernel_table.h"

#define REC_MAX_EVIDENCE 4

typedef struct rec_state {
    kernel_table names;
    bool names_complete;          /* false when a fold could not be exact (caps) */
    char device_name[128];        /* first REC_METADATA device_name; "" when none */
    bool any_kernel;
    const section_results *earlier;
} rec_state;

typedef enum { RULE_FIRED, RULE_PASSED, RULE_SKIPPED } rule_status;

typedef struct rule_out {
    const char *evidence_key[REC_MAX_EVIDENCE];
    double evidence[REC_MAX_EVIDENCE];
    int n_evidence;
    char message[320];
    char skip_reason[160];
} rule_out;

typedef struct rule {
    const char *id;
    const char *severity;         /* "high", "medium", "low" */
    double threshold;
    const char *threshold_text;   /* what the threshold is compared with */
    rule_status (*eval)(const rec_state *s, const struct rule *r, rule_out *o);
} rule;

static void evidence(rule_out *o, const char *key, double v) {
    if (o->n_evidence < REC_MAX_EVIDENCE) { o->evidence_key[o->n_evidence] = key; o->evidence[o->n_evidence++] = v; }
}

static rule_status skip(rule_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static rule_status skip(rule_out *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->skip_reason, sizeof o->skip_reason, fmt, ap);
    va_end(ap);
    return RULE_SKIPPED;
}

static void say(rule_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(rule_out *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->message, sizeof o->message, fmt, ap);
    va_end(ap);
}

/* Two numbers of earlier sections, or a skip naming the first missing one. */
static bool need2(const rec_state *s, rule_out *o, const char *k1, const char *p1, double *v1, const char *k2,
                  const char *p2, double *v2) {
    if (!section_number(s->earlier, k1, p1, v1)) { skip(o, "%s.%s unknown", k1, p1); return false; }
    if (!section_number(s->earlier, k2, p2, v2)) { skip(o, "%s.%s unknown", k2, p2); return false; }
    return true;
}

static rule_status r_dataloader(const rec_state *s, const rule *r, rule_out *o) {
    double dl, wall;
    if (!need2(s, o, "steps", "mean.parts.dataloader_ns", &dl, "steps", "mean.wall_ns", &wall)) return RULE_SKIPPED;
    if (wall <= 0) return skip(o, "steps.mean.wall_ns is 0");
    double pct = 100.0 * dl / wall;
    evidence(o, "dataloader_ns", dl), evidence(o, "step_wall_ns", wall), evidence(o, "dataloader_pct", pct);
    say(o, "The DataLoader takes %.1f%% of the mean step: use more workers, pin_memory and prefetching.", pct);
    return pct > r->threshold ? RULE_FIRED : RULE_PASSED;
}

static rule_status r_comm(const rec_state *s, const rule *r, rule_out *o) {
    double comm, span, overlap;
    if (!need2(s, o, "timeline", "run.communication_ns", &comm, "timeline", "run.span_ns", &span)) return RULE_SKIPPED;
    if (span <= 0) return skip(o, "timeline.run.span_ns is 0");
    double pct = 100.0 * comm / span;
    evidence(o, "communication_ns", comm), evidence(o, "span_ns", span), evidence(o, "communication_pct", pct);
    if (!section_number(s->earlier, "timeline", "run.overlap_pct", &overlap)) {
        say(o, "No communication kernels.");
        return RULE_PASSED;
    }
    evidence(o, "overlap_pct", overlap);
    say(o, "Communication takes %.1f%% of the span and only %.1f%% of it overlaps compute: overlap it "
           "(DDP bucket sizes, FSDP prefetch, async collectives).", pct, overlap);
    return pct > r->threshold && overlap < 50.0 ? RULE_FIRED : RULE_PASSED;
}

static rule_status r_busy(const rec_state *s, const rule *r, rule_out *o) {
    double busy, span;
    if (!need2(s, o, "timeline", "run.busy_ns", &busy, "timeline", "run.span_ns", &span)) return RULE_SKIPPED;
    if (span <= 0) return skip(o, "timeline.run.span_ns is 0");
    double pct = 100.0 * busy / span;
    evidence(o, "busy_ns", busy), evidence(o, "span_ns", span), evidence(o, "busy_pct", pct);
    say(o, "The GPU is busy %.1f%% of the span: see the idle split (host_wait, kernel_wait, other).", pct);
    return pct < r->threshold ? RULE_FIRED : RULE_PASSED;
}

static rule_status r_memcpy(const rec_state *s, const rule *r, rule_out *o) {
    double mc, busy;
    if (!need2(s, o, "timeline", "run.memcpy_ns", &mc, "timeline", "run.busy_ns", &busy)) return RULE_SKIPPED;
    if (busy <= 0) return skip(o, "timeline.run.busy_ns is 0");
    double pct = 100.0 * mc / busy;
    evidence(o, "memcpy_ns", mc), evidence(o, "busy_ns", busy), evidence(o, "memcpy_pct", pct);
    say(o, "Memory copies and fills take %.1f%% of the busy time: keep tensors on the device, use pinned "
           "memory and non_blocking copies.", pct);
    return pct > r->threshold ? RULE_FIRED : RULE_PASSED;
}

static rule_status names_ready(const rec_state *s, rule_out *o) {
    if (!s->any_kernel) return skip(o, "no kernel dispatches");
    if (!s->names_complete || s->names.overflow.dispatches) return skip(o, "too many distinct kernel names to rank");
    return RULE_PASSED;
}

static double names_total(const rec_state *s) {
    double t = 0;
    for (size_t i = 0; i < s->names.count; i++) t += (double)s->names.items[i].total_ns;
    return t;
}

static rule_status r_dominant(const rec_state *s, const rule *r, rule_out *o) {
    if (names_ready(s, o) == RULE_SKIPPED) return RULE_SKIPPED;
    double total = names_total(s);
    const kernel_stat *top = NULL;
    for (size_t i = 0; i < s->names.count; i++)
        if (!top || s->names.items[i].total_ns > top->total_ns) top = &s->names.items[i];
    if (!top || total <= 0) return skip(o, "no kernel time");
    double pct = 100.0 * (double)top->total_ns / total;
    evidence(o, "kernel_ns", (double)top->total_ns), evidence(o, "kernel_total_ns", total), evidence(o, "pct", pct);
    say(o, "One kernel takes %.1f%% of kernel time: %.160s — tune it first.", pct, top->name);
    return pct > r->threshold ? RULE_FIRED : RULE_PASSED;
}

static rule_status r_launch_bound(const rec_state *s, const rule *r, rule_out *o) {
    if (names_ready(s, o) == RULE_SKIPPED) return RULE_SKIPPED;
    double kernels = 0, calls = 0, time = 0;
    const kernel_stat *worst = NULL;
    for (size_t i = 0; i < s->names.count; i++) {
        const kernel_stat *k = &s->names.items[i];
        if (k->calls <= 1000 || (double)k->total_ns / (double)k->calls >= r->threshold) continue;
        kernels++, calls += (double)k->calls, time += (double)k->total_ns;
        if (!worst || k->calls > worst->calls) worst = k;
    }
    evidence(o, "kernels", kernels), evidence(o, "calls", calls), evidence(o, "total_ns", time);
    if (!worst) { say(o, "No kernel is called more than 1000 times at under 10 us."); return RULE_PASSED; }
    say(o, "%.0f kernel(s) run more than 1000 times at under 10 us on average (e.g. %.120s, %llu calls): "
           "launch-bound; try CUDA/HIP graphs or fusion (torch.compile).", kernels, worst->name,
        (unsigned long long)worst->calls);
    return RULE_FIRED;
}

static rule_status r_host_wait(const rec_state *s, const rule *r, rule_out *o) {
    (void)r;
    double hw, kw, other;
    if (!need2(s, o, "timeline", "run.host_wait_ns", &hw, "timeline", "run.kernel_wait_ns", &kw)) return RULE_SKIPPED;
    if (!section_number(s->earlier, "timeline", "run.other_ns", &other)) return skip(o, "timeline.run.other_ns unknown");
    evidence(o, "host_wait_ns", hw), evidence(o, "kernel_wait_ns", kw), evidence(o, "other_ns", other);
    say(o, "Host wait is the largest part of GPU idle time: the CPU does not enqueue work fast enough "
           "(larger batches, fewer syncs, graphs, a faster input pipeline).");
    return hw > 0 && hw > kw && hw > other ? RULE_FIRED : RULE_PASSED;
}

static rule_status r_generic_gemm(const rec_state *s, const rule *r, rule_out *o) {
    (void)r;
    if (names_ready(s, o) == RULE_SKIPPED) return RULE_SKIPPED;
    double n = 0, time = 0, total = names_total(s);
    const kernel_stat *first = NULL;
    for (size_t i = 0; i < s->names.count; i++) {
        const kernel_stat *k = &s->names.items[i];
        if (!(k->flags & KF_GENERIC) || kernel_class_of(k->name, k->name_len) != KC_GEMM) continue;
        n++, time += (double)k->total_ns;
        if (!first) first = k;
    }
    evidence(o, "kernels", n), evidence(o, "total_ns", time);
    if (total > 0) evidence(o, "pct", 100.0 * time / total);
    if (!first) { say(o, "No generic or fallback GEMM kernels."); return RULE_PASSED; }
    say(o, "Generic/fallback GEMM kernels ran (e.g. %.160s): the BLAS library had no tuned kernel for "
           "these shapes or types; tune (hipBLASLt/Tensile tuning) or change the shapes.", first->name);
    return RULE_FIRED;
}

/* Devices whose matrix units run bf16 at fp16's rate (so bf16 is the safer choice). */
static bool bf16_native(const char *dev) {
    static const char *const NATIVE[] = {"gfx90a", "gfx94", "gfx95", "mi200", "mi210", "mi250", "mi300", "mi325",
                                         "mi350", "mi355", "a100", "a10", "a30", "a40", "h100", "h200", "h800",
                                         "gh200", "b100", "b200", "gb200", "l4", "l40", "rtx 30", "rtx 40", NULL};
    char low[128];
    size_t n = strlen(dev);
    if (n >= sizeof low) n = sizeof low - 1;
    for (size_t i = 0; i < n; i++) low[i] = (char)(dev[i] >= 'A' && dev[i] <= 'Z' ? dev[i] + 32 : dev[i]);
    low[n] = 0;
    for (size_t i = 0; NATIVE[i]; i++)
        if (strstr(low, NATIVE[i])) return true;
    return false;
}

static rule_status r_fp16(const rec_state *s, const rule *r, rule_out *o) {
    if (!s->device_name[0]) return skip(o, "device name unknown (no device_name metadata)");
    if (names_ready(s, o) == RULE_SKIPPED) return RULE_SKIPPED;
    if (!bf16_native(s->device_name)) return skip(o, "device %.60s: bf16 not known to be native", s->device_name);
    double time = 0, total = names_total(s);
    for (size_t i = 0; i < s->names.count; i++) {
        const kernel_stat *k = &s->names.items[i];
        if ((k->flags & KF_FP16) && !(k->flags & KF_BF16)) time += (double)k->total_ns;
    }
    if (total <= 0) return skip(o, "no kernel time");
    double pct = 100.0 * time / total;
    evidence(o, "fp16_kernel_ns", time), evidence(o, "kernel_total_ns", total), evidence(o, "fp16_pct", pct);
    say(o, "%.1f%% of kernel time is in fp16 kernels on %.60s, where bf16 runs at the same rate without "
           "loss scaling: consider bf16 autocast.", pct, s->device_name);
    return pct > r->threshold ? RULE_FIRED : RULE_PASSED;
}

static bool memory_numbers(const rec_state *s, rule_out *o, double *peak, double *total) {
    if (!section_number(s->earlier, "telemetry", "vram_peak_bytes", peak)) { skip(o, "telemetry.vram_peak_bytes unknown"); return false; }
    if (!section_number(s->earlier, "device", "memory_bytes", total) || *total <= 0) {
        skip(o, "device.memory_bytes unknown");
        return false;
    }
    evidence(o, "vram_peak_bytes", *peak), evidence(o, "memory_bytes", *total), evidence(o, "peak_pct", 100.0 * *peak / *total);
    return true;
}

static rule_status r_mem_peak(const rec_state *s, const rule *r, rule_out *o) {
    double peak, total;
    if (!memory_numbers(s, o, &peak, &total)) return RULE_SKIPPED;
    say(o, "Peak device memory is %.1f%% of the device's: close to out-of-memory (activation checkpointing, "
           "smaller micro-batches).", 100.0 * peak / total);
    return 100.0 * peak / total > r->threshold ? RULE_FIRED : RULE_PASSED;
}

static rule_status r_mem_headroom(const rec_state *s, const rule *r, rule_out *o) {
    double peak, total;
    if (!memory_numbers(s, o, &peak, &total)) return RULE_SKIPPED;
    say(o, "Peak device memory is only %.1f%% of the device's: a larger batch may raise throughput.", 100.0 * peak / total);
    return 100.0 * peak / total < r->threshold ? RULE_FIRED : RULE_PASSED;
}

/* THE rule table: id, severity, threshold, what it is compared with, the rule. */
static const rule RULES[] = {
    {"dataloader_share", "medium", 5, "steps.mean.parts.dataloader_ns / steps.mean.wall_ns > 5 %", r_dataloader},
    {"communication_exposed", "high", 10, "communication_ns / span_ns > 10 % and overlap_pct < 50 %", r_comm},
    {"low_busy", "high", 50, "timeline.run.busy_ns / span_ns < 50 %", r_busy},
    {"memcpy_heavy", "high", 20, "timeline.run.memcpy_ns / busy_ns > 20 %", r_memcpy},
    {"dominant_kernel", "high", 50, "one kernel name's time / kernel time > 50 %", r_dominant},
    {"launch_bound", "medium", 10000, "a kernel name with > 1000 calls and mean duration < 10000 ns", r_launch_bound},
    {"host_wait_dominant", "medium", 0, "host_wait_ns > kernel_wait_ns and > other_ns", r_host_wait},
    {"generic_gemm", "high", 0, "any gemm-class kernel named generic/fallback/naive/reference", r_generic_gemm},
    {"fp16_on_bf16_device", "low", 1, "fp16 kernel time / kernel time > 1 % on a bf16-native device", r_fp16},
    {"memory_peak", "high", 90, "telemetry.vram_peak_bytes / device.memory_bytes > 90 %", r_mem_peak},
    {"memory_headroom", "low", 50, "telemetry.vram_peak_bytes / device.memory_bytes < 50 %", r_mem_headroom},
};
#define N_RULES (sizeof RULES / sizeof RULES[0])

typedef struct rec_run {
    rec_state st;
    rule_status status[N_RULES];
    rule_out out[N_RULES];
    bool finished;
} rec_run;

static void *rc_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg, (void)diag;
    rec_run *r = calloc(1, sizeof *r);
    if (r) { kernel_table_init(&r->st.names); r->st.names_complete = true; }
    return r;
}

/* Without its kernels (not chosen) a source gives only REC_METADATA, of which the first
 * device_name is kept: pieces folded in order keep the same one. */
static bool rc_split_ok(const source_ref *src) { return !src->kernels_chosen; }

static void *rc_open_source(void *run, const source_ref *src) {
    (void)run, (void)src;
    rec_state *s = calloc(1, sizeof *s);
    if (s) { kernel_table_init(&s->names); s->names_complete = true; }
    return s;
}

static bool rc_consume(void *st, const record *r) {
    rec_state *s = st;
    if (r->type == REC_METADATA) {
        if (r->key && !strcmp(r->key, "device_name") && r->value && !s->device_name[0]) {
            size_t n = r->value_len < sizeof s->device_name - 1 ? r->value_len : sizeof s->device_name - 1;
            memcpy(s->device_name, r->value, n);
            s->device_name[n] = 0;
        }
        return true;
    }
    i128 d;
    if (!record_duration(r, &d)) return true;
    if (d <= 0 || !r->name) return true;
    s->any_kernel = true;
    return kernel_table_add(&s->names, r->name, r->name_len, d);
}

static bool rc_end_source(void *run, void *src) {
    rec_run *r = run;
    rec_state *s = src;
    bool ok = true;
    if (s->any_kernel) {
        if (kernel_table_can_append(&r->st.names, &s->names)) ok = kernel_table_append(&r->st.names, &s->names);
        else r->st.names_complete = false;
        r->st.any_kernel = true;
    }
    if (!r->st.device_name[0]) memcpy(r->st.device_name, s->device_name, sizeof s->device_name);
    kernel_table_free(&s->names);
    free(s);
    return ok;
}

static bool rc_finish(void *run, const section_results *earlier) {
    rec_run *r = run;
    r->st.earlier = earlier;
    for (size_t i = 0; i < N_RULES; i++) r->status[i] = RULES[i].eval(&r->st, &RULES[i], &r->out[i]);
    r->st.earlier = NULL;   /* not valid after finish */
    r->finished = true;
    return true;
}

static void rc_render(const void *run, jw_out *w) {
    const rec_run *r = run;
    if (!r || !r->finished) { jw_null(w); return; }
    jw_object_open(w);
    jw_key(w, "items");
    jw_array_open(w);
    for (size_t i = 0; i < N_RULES; i++) {
        if (r->status[i] != RULE_FIRED) continue;
        const rule_out *o = &r->out[i];
        jw_object_open(w);
        jw_key(w, "id"), jw_string(w, RULES[i].id);
        jw_key(w, "severity"), jw_string(w, RULES[i].severity);
        jw_key(w, "message"), jw_string(w, o->message);
        jw_key(w, "evidence");
        jw_object_open(w);
        for (int e = 0; e < o->n_evidence; e++) jw_key(w, o->evidence_key[e]), jw_number(w, o->evidence[e]);
        jw_object_close(w);
        jw_key(w, "threshold"), jw_number(w, RULES[i].threshold);
        jw_key(w, "rule"), jw_string(w, RULES[i].threshold_text);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_key(w, "evaluated");
    jw_array_open(w);
    for (size_t i = 0; i < N_RULES; i++) {
        if (r->status[i] == RULE_SKIPPED) continue;
        jw_object_open(w);
        jw_key(w, "id"), jw_string(w, RULES[i].id);
        jw_key(w, "fired"), jw_bool(w, r->status[i] == RULE_FIRED);
        jw_key(w, "evidence");
        jw_object_open(w);
        for (int e = 0; e < r->out[i].n_evidence; e++) jw_key(w, r->out[i].evidence_key[e]), jw_number(w, r->out[i].evidence[e]);
        jw_object_close(w);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_key(w, "skipped");
    jw_array_open(w);
    for (size_t i = 0; i < N_RULES; i++) {
        if (r->status[i] != RULE_SKIPPED) continue;
        jw_object_open(w);
        jw_key(w, "id"), jw_string(w, RULES[i].id);
        jw_key(w, "reason"), jw_string(w, r->out[i].skip_reason);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_object_close(w);
}

static void rc_render_md(const void *run, strbuf *out) {
    const rec_run *r = run;
    if (!r || !r->finished) return;
    static const char HEAD[] = "## Recommendations\n\n";
    strbuf_append(out, HEAD, sizeof HEAD - 1);
    bool any = false;
    for (size_t i = 0; i < N_RULES; i++) {
        if (r->status[i] != RULE_FIRED) continue;
        char line[512];
        int n = snprintf(line, sizeof line, "- **%s** (%s): ", RULES[i].id, RULES[i].severity);
        if (n > 0) strbuf_append(out, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        smd_text(out, r->out[i].message);
        strbuf_putc(out, '\n');
        any = true;
    }
    static const char NONE[] = "- none of the rules fired\n";
    if (!any) strbuf_append(out, NONE, sizeof NONE - 1);
    strbuf_append(out, "\n", 1);
}

/* Paths: "fired" (the number of items), "<rule id>.fired" (1/0; unknown when skipped). */
static bool rc_number(const void *run, const char *path, double *out) {
    const rec_run *r = run;
    if (!r || !r->finished) return false;
    if (!strcmp(path, "fired")) {
        double n = 0;
        for (size_t i = 0; i < N_RULES; i++) n += r->status[i] == RULE_FIRED;
        *out = n;
        return true;
    }
    for (size_t i = 0; i < N_RULES; i++) {
        size_t n = strlen(RULES[i].id);
        if (strncmp(path, RULES[i].id, n) || strcmp(path + n, ".fired") || r->status[i] == RULE_SKIPPED) continue;
        *out = r->status[i] == RULE_FIRED;
        return true;
    }
    return false;
}

static void rc_close(void *run) {
    rec_run *r = run;
    if (!r) return;
    kernel_table_free(&r->st.names);
    free(r);
}

const section_analysis recommendations_section = {
    .key = "recommendations",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_METADATA),
    .fields = RF_START | RF_END | RF_DURATION,
    /* Not splittable: past KT_MAX_NAMES / 2 distinct names per piece, kernel_table_can_append
     * declines (it counts names shared by both pieces twice) where one pass would not have
     * overflowed, and the per-name rules would be skipped. The timeline is not splittable
     * either, so this costs nothing today. */
    .splittable = false,
    .split_ok = rc_split_ok,
    .open = rc_open,
    .open_source = rc_open_source,
    .consume = rc_consume,
    .end_source = rc_end_source,
    .finish = rc_finish,
    .render = rc_render,
    .render_md = rc_render_md,
    .number = rc_number,
    .close = rc_close,
};
