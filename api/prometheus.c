/* prometheus: exposition of daemon, process and per-run metrics. */
#include "base/text_utf8.h"
#include "api/prometheus.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "api/series.h"
#include "base/json_writer.h"
#include "storage/run_gauges.h"

#define GIB 1073741824.0   /* the reference's "GB" is MiB / 1024 */

/* Every label name goblind's own series carry: the exposition below writes them through these
 * macros, and metrics_labels may use none of them (a duplicate label name breaks the scrape). */
#define L_VERSION "version"
#define L_STATUS "status"
#define L_RESULT "result"
#define L_LE "le"
#define L_CODE "code"
#define L_RUN "run"
#define L_BUCKET "bucket"
#define L_CLASS "class"
#define L_GPU "gpu"
#define L_SERIES "series"

static const struct taken_label {
    const char *name, *why;
} TAKEN_LABELS[] = {
    {L_VERSION, "goblind_build_info uses it"},
    {L_STATUS, "goblind_runs and goblind_run_info use it"},
    {L_RESULT, "goblind_ingests_total uses it"},
    {L_LE, "the histograms' buckets use it"},
    {L_CODE, "goblind_http_requests_total uses it"},
    {L_RUN, "every per-run series uses it"},
    {L_BUCKET, "goblind_run_waste_seconds uses it"},
    {L_CLASS, "goblind_run_kernel_class_seconds uses it"},
    {L_GPU, "the per-GPU series (goblind_run_device_*) use it"},
    {L_SERIES, "the per-series gauges (goblind_series_*) use it"},
    {"quantile", "Prometheus summaries use it"},
    {"instance", "Prometheus sets it on every scraped series (use a target label, docs/OPERATIONS.md)"},
    {"job", "Prometheus sets it on every scraped series (use a target label, docs/OPERATIONS.md)"},
};

typedef struct writer {
    strbuf *out;
    bool om;
} writer;

static void put(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(writer *w, const char *fmt, ...) {
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n > 0) strbuf_append(w->out, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

/* HELP and TYPE; OpenMetrics names a counter family without its _total suffix. */
static void family(writer *w, const char *name, const char *type, const char *help) {
    char fam[128];
    snprintf(fam, sizeof fam, "%s", name);
    size_t n = strlen(fam);
    if (w->om && !strcmp(type, "counter") && n > 6 && !strcmp(fam + n - 6, "_total")) fam[n - 6] = '\0';
    put(w, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam, type);
}

/* A sample value. A product past a double (hbm_peak_gb 1.66e305 is 1.8e314 bytes) is +Inf or
 * -Inf, as the exposition format spells them, never the 0.0 that looks like a real reading. */
static void value(writer *w, double v) {
    char b[32];
    if (isinf(v)) snprintf(b, sizeof b, "%s", v > 0 ? "+Inf" : "-Inf");
    else if (isnan(v)) snprintf(b, sizeof b, "NaN");
    else jw_format_double(v, b);
    strbuf_append(w->out, b, strlen(b));
    strbuf_putc(w->out, '\n');
}

/* A label value, escaped: backslash, double quote and newline. */
static void label_value(writer *w, const char *v) {
    for (; *v; v++) {
        if (*v == '\\' || *v == '"') { strbuf_putc(w->out, '\\'); strbuf_putc(w->out, *v); }
        else if (*v == '\n') strbuf_append(w->out, "\\n", 2);
        else strbuf_putc(w->out, *v);
    }
}

static void histogram_out(writer *w, const char *name, const char *help, histogram *h) {
    family(w, name, "histogram", help);
    uint64_t cum = 0;
    for (size_t i = 0; i < h->n; i++) {
        cum += atomic_load(&h->buckets[i]);
        char le[32];
        jw_format_double(h->bounds[i], le);
        put(w, "%s_bucket{" L_LE "=\"%s\"} %llu\n", name, le, (unsigned long long)cum);
    }
    uint64_t count = atomic_load(&h->count);
    put(w, "%s_bucket{" L_LE "=\"+Inf\"} %llu\n", name, (unsigned long long)count);
    put(w, "%s_sum ", name);
    value(w, (double)atomic_load(&h->sum_us) / 1e6);
    put(w, "%s_count %llu\n", name, (unsigned long long)count);
}

/* The process_* series Prometheus's client libraries export, from /proc. A number that cannot
 * be read is left out (never 0); false when memory ran out reading one (the scrape then fails
 * rather than come back missing series). */
static bool process_metrics(writer *w) {
    long page = sysconf(_SC_PAGESIZE), tick = sysconf(_SC_CLK_TCK);
    bool oom = false;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, rss = 0;
    bool have_mem = f && fscanf(f, "%lu %lu", &size, &rss) == 2;
    if (f) fclose(f);
    else oom |= errno == ENOMEM;
    if (have_mem) {
        family(w, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
        put(w, "process_resident_memory_bytes %llu\n", (unsigned long long)rss * (unsigned long long)page);
        family(w, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
        put(w, "process_virtual_memory_bytes %llu\n", (unsigned long long)size * (unsigned long long)page);
    }
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        int fds = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) if (e->d_name[0] != '.') fds++;
        closedir(d);
        fds--;                                          /* the directory handle itself */
        family(w, "process_open_fds", "gauge", "Number of open file descriptors.");
        put(w, "process_open_fds %d\n", fds);
    } else {
        oom |= errno == ENOMEM;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        family(w, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
        put(w, "process_max_fds %llu\n", (unsigned long long)rl.rlim_cur);
    }
    char stat[1024] = "";
    f = fopen("/proc/self/stat", "r");
    if (f) { if (!fgets(stat, sizeof stat, f)) stat[0] = '\0'; fclose(f); }
    else oom |= errno == ENOMEM;
    const char *p = strrchr(stat, ')');                 /* fields after the command name */
    unsigned long long ut = 0, st = 0, start = 0;
    if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu",
                    &ut, &st, &start) == 3) {
        family(w, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
        put(w, "process_cpu_seconds_total ");
        value(w, (double)(ut + st) / (double)tick);
        double boot = 0;
        FILE *u = fopen("/proc/stat", "r");
        char line[256];
        while (u && fgets(line, sizeof line, u))
            if (!strncmp(line, "btime ", 6)) boot = atof(line + 6);
        if (u) fclose(u);
        else oom |= errno == ENOMEM;
        if (boot > 0) {                                 /* else not known: left out */
            family(w, "process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch in seconds.");
            put(w, "process_start_time_seconds ");
            value(w, boot + (double)start / (double)tick);
        }
    }
    return !oom;
}

/* ---- per run ---------------------------------------------------------------------- */

typedef struct run_sample {
    char *id;
    run_status status;
    double updated_s;
    opt_num tokens, mfu, peak, avg, util, step;   /* has == false: not measured, not exported */
    opt_num waste[INGEST_WASTE_BUCKETS];         /* has == false: a bucket the parse could not know */
    opt_num gauge[IG_COUNT];                     /* the analysis numbers (storage/run_gauges.h) */
} run_sample;

typedef struct run_list {
    run_sample *items;
    size_t n, cap;
    bool failed;                /* a run could not be kept (memory) */
} run_list;

/* A stored headline column scaled by `scale`, when the parse measured it (a negative value is
 * not a measurement either: left out). */
static opt_num known(opt_num col, double scale) {
    opt_num o = {col.has, col.v * scale};
    if (!(o.v >= 0)) o.has = false;
    return o;
}

static void collect(void *user, const run_row *r) {
    run_list *l = user;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        run_sample *it = realloc(l->items, l->cap * sizeof *it);
        if (!it) {
            l->cap = l->n;
            l->failed = true;
            return;
        }
        l->items = it;
    }
    run_sample *s = &l->items[l->n];
    memset(s, 0, sizeof *s);
    s->id = strdup(r->id);
    if (!s->id) {
        l->failed = true;
        return;
    }
    s->status = r->status;
    s->updated_s = (double)r->updated_at / 1e3;
    /* every number from the stored headline columns (NULL: the parse did not measure it) */
    s->step = r->step_seconds;
    s->tokens = known(r->tokens_per_sec, 1.0);
    s->mfu = known(r->mfu_pct, 0.01);
    s->peak = known(r->hbm_peak_gb, GIB);
    s->avg = known(r->hbm_avg_gb, GIB);                      /* same VRAM samples as the peak */
    s->util = known(r->gpu_util_pct, 0.01);
    for (int b = 0; b < INGEST_WASTE_BUCKETS; b++) s->waste[b] = r->waste[b];
    l->n++;
}

/* A per-run gauge: one series per run, identified by `run` alone, so a run keeps the same
 * series when its state changes. A value not known (yet) is left out, never exported as 0
 * (a measured 0, such as an idle GPU's utilisation, is exported). */
static void run_series(writer *w, const run_list *l, const char *name, const char *type, const char *help,
                       size_t field) {
    family(w, name, type, help);
    for (size_t i = 0; i < l->n; i++) {
        const run_sample *s = &l->items[i];
        const opt_num *v = (const opt_num *)((const char *)s + field);
        if (!v->has) continue;
        put(w, "%s{" L_RUN "=\"", name);
        label_value(w, s->id);
        put(w, "\"} ");
        value(w, v->v);
    }
}

/* The run's state: as a number (alerts compare it) and as an info series (dashboards show it). */
static void run_state_series(writer *w, const run_list *l) {
    family(w, "goblind_run_state", "gauge",
           "State of the run: 0 pending, 1 running, 2 complete, 3 failed, 4 gone, 5 empty.");
    for (size_t i = 0; i < l->n; i++) {
        put(w, "goblind_run_state{" L_RUN "=\"");
        label_value(w, l->items[i].id);
        put(w, "\"} %d\n", (int)l->items[i].status);
    }
    family(w, "goblind_run_info", "gauge", "Always 1; the run's state as the status label.");
    for (size_t i = 0; i < l->n; i++) {
        put(w, "goblind_run_info{" L_RUN "=\"");
        label_value(w, l->items[i].id);
        put(w, "\"," L_STATUS "=\"%s\"} 1\n", store_run_status_name(l->items[i].status));
    }
}

/* ---- per run: the analysis numbers (timeline, kernel classes) ---------------------- */

static int by_id(const void *a, const void *b) {
    return strcmp((*(run_sample *const *)a)->id, (*(run_sample *const *)b)->id);
}

typedef struct gauge_fill {
    run_sample **sorted;        /* the listed runs, by id */
    size_t n;
} gauge_fill;

/* A stored number of a listed run into its sample; the numbers of runs past the bound are
 * not listed (the same runs as every other per-run series). */
static void fill_gauge(void *user, const char *run_id, int g, double v) {
    gauge_fill *f = user;
    run_sample key = {.id = (char *)run_id}, *kp = &key;
    run_sample **hit = bsearch(&kp, f->sorted, f->n, sizeof *f->sorted, by_id);
    if (hit) (*hit)->gauge[g] = (opt_num){true, v};
}

/* Reads the analysis numbers of the listed runs (same reader as the listing); false when they
 * could not be read. */
static bool read_gauges(store_reader *rd, run_list *l, int max_runs) {
    gauge_fill f = {calloc(l->n ? l->n : 1, sizeof *f.sorted), l->n};
    if (!f.sorted) return false;
    for (size_t i = 0; i < l->n; i++) f.sorted[i] = &l->items[i];
    qsort(f.sorted, f.n, sizeof *f.sorted, by_id);
    int n = store_newest_gauges(rd, max_runs, fill_gauge, &f);
    free(f.sorted);
    return n >= 0;
}

/* One gauge per run from analysis number g, times scale (ns to seconds, % to a ratio); a run
 * whose analysis did not know it has no sample. */
static void gauge_series(writer *w, const run_list *l, const char *name, const char *help, int g, double scale) {
    family(w, name, "gauge", help);
    for (size_t i = 0; i < l->n; i++) {
        const run_sample *s = &l->items[i];
        if (!s->gauge[g].has) continue;
        put(w, "%s{" L_RUN "=\"", name);
        label_value(w, s->id);
        put(w, "\"} ");
        value(w, s->gauge[g].v * scale);
    }
}

/* The timeline and kernel-class series (docs/OPERATIONS.md "Analysis gauges"). */
static void analysis_series(writer *w, const run_list *l) {
    gauge_series(w, l, "goblind_run_span_seconds", "Trace span of the run's GPU timeline (analysis timeline.run.span_ns).",
                 IG_SPAN_NS, 1e-9);
    gauge_series(w, l, "goblind_run_busy_seconds", "GPU busy time: union of kernel, memcpy and memset intervals (timeline.run.busy_ns).",
                 IG_BUSY_NS, 1e-9);
    gauge_series(w, l, "goblind_run_idle_seconds", "GPU idle time within the span (timeline.run.idle_ns).", IG_IDLE_NS, 1e-9);
    gauge_series(w, l, "goblind_run_communication_seconds", "Communication kernel time, union (timeline.run.communication_ns).",
                 IG_COMMUNICATION_NS, 1e-9);
    gauge_series(w, l, "goblind_run_exposed_communication_seconds",
                 "Communication not overlapped by compute (timeline.run.exposed_communication_ns).",
                 IG_EXPOSED_COMMUNICATION_NS, 1e-9);
    gauge_series(w, l, "goblind_run_communication_overlap_ratio",
                 "Share of communication overlapped by compute, 0..1 (timeline.run.overlap_pct / 100).", IG_OVERLAP_PCT, 0.01);
    family(w, "goblind_run_kernel_class_seconds", "gauge",
           "GPU time per kernel class (classes.by_class[].total_ns); class is a fixed label set.");
    for (size_t i = 0; i < l->n; i++) {
        const run_sample *s = &l->items[i];
        for (int k = 0; k < INGEST_KERNEL_CLASSES; k++) {
            const opt_num *v = &s->gauge[IG_CLASS_FIRST + k];
            if (!v->has) continue;
            put(w, "goblind_run_kernel_class_seconds{" L_RUN "=\"");
            label_value(w, s->id);
            put(w, "\"," L_CLASS "=\"%s\"} ", INGEST_CLASS_KEYS[k]);
            value(w, v->v * 1e-9);
        }
    }
}

/* One per-GPU family: for each listed run, each GPU its telemetry knew with a device index (at
 * most INGEST_GPU_SLOTS a run, core/ingest_doc.h), labelled run and gpu (the device index, as
 * DCGM exporter's `gpu`), field f of the slot times scale; unknown values are left out. */
static void gpu_series(writer *w, const run_list *l, const char *name, const char *help, int f, double scale) {
    family(w, name, "gauge", help);
    for (size_t i = 0; i < l->n; i++) {
        const run_sample *s = &l->items[i];
        for (int k = 0; k < INGEST_GPU_SLOTS; k++) {
            const opt_num *dev = &s->gauge[IG_GPU_FIRST + k * INGEST_GPU_FIELDS + IGF_DEVICE];
            const opt_num *v = &s->gauge[IG_GPU_FIRST + k * INGEST_GPU_FIELDS + f];
            if (!dev->has || !v->has) continue;
            put(w, "%s{" L_RUN "=\"", name);
            label_value(w, s->id);
            put(w, "\"," L_GPU "=\"%lld\"} ", (long long)dev->v);
            value(w, v->v * scale);
        }
    }
}

/* The per-GPU telemetry means of each run (docs/OPERATIONS.md "Running a fleet"). */
static void gpu_device_series(writer *w, const run_list *l) {
    gpu_series(w, l, "goblind_run_device_utilization_ratio",
               "Mean GPU utilisation of one GPU over the run, 0..1 (analysis telemetry.gpus[].util_mean_pct / 100).",
               IGF_UTIL_MEAN_PCT, 0.01);
    gpu_series(w, l, "goblind_run_device_power_watts", "Mean power of one GPU over the run (telemetry.gpus[].power_mean_w).",
               IGF_POWER_MEAN_W, 1.0);
    gpu_series(w, l, "goblind_run_device_vram_peak_bytes", "Peak VRAM used on one GPU (telemetry.gpus[].vram_peak_bytes).",
               IGF_VRAM_PEAK_BYTES, 1.0);
}

/* Copies the exposition in `text` to out with `labels` (rendered `k="v",...`) added to
 * every sample line, so goblind's series join with node and GPU exporters' series. */
static void add_static_labels(const char *text, size_t len, const char *labels, strbuf *out) {
    const char *p = text, *end = text + len;
    size_t ln = strlen(labels);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl + 1 : end;
        if (*p == '#' || *p == '\n') {
            strbuf_append(out, p, (size_t)(le - p));
        } else {
            size_t name = strcspn(p, "{ ");
            strbuf_append(out, p, name);
            strbuf_putc(out, '{');
            strbuf_append(out, labels, ln);
            if (p[name] == '{') {
                if (p[name + 1] != '}') strbuf_putc(out, ',');
                strbuf_append(out, p + name + 1, (size_t)(le - (p + name + 1)));
            } else {
                strbuf_putc(out, '}');
                strbuf_append(out, p + name, (size_t)(le - (p + name)));
            }
        }
        p = le;
    }
}

/* Why a metrics_labels name cannot be used, or NULL when it can: the exposition grammar, the
 * names Prometheus reserves (__*), the names goblind's series and Prometheus's scrape use. */
static const char *label_name_refused(const char *s, size_t n) {
    if (n == 0 || n > 64) return "a label name has 1 to 64 characters";
    if (n >= 2 && s[0] == '_' && s[1] == '_') return "names starting with __ are reserved to Prometheus";
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return "a label name is [a-zA-Z_][a-zA-Z0-9_]*";
    }
    for (size_t i = 0; i < sizeof TAKEN_LABELS / sizeof TAKEN_LABELS[0]; i++)
        if (strlen(TAKEN_LABELS[i].name) == n && !memcmp(TAKEN_LABELS[i].name, s, n)) return TAKEN_LABELS[i].why;
    return NULL;
}

/* Whether an item of spec before `end` names the label name[0..n) (items split as below). */
static bool named_before(const char *spec, const char *end, const char *name, size_t n) {
    for (const char *p = spec; p < end;) {
        while (p < end && (*p == ' ' || *p == ',')) p++;
        size_t item = strcspn(p, ",");
        const char *eq = memchr(p, '=', item);
        size_t kn = eq ? (size_t)(eq - p) : 0;
        while (kn && p[kn - 1] == ' ') kn--;
        if (p < end && kn == n && !memcmp(p, name, n)) return true;
        p += item;
    }
    return false;
}

bool prometheus_labels_render(const char *spec, char **rendered, char *err, size_t errlen) {
    *rendered = NULL;
    strbuf b = {0};
    writer w = {&b, false};
    const char *p = spec;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        size_t item = strcspn(p, ",");
        const char *eq = memchr(p, '=', item);
        size_t kn = eq ? (size_t)(eq - p) : 0;
        while (kn && p[kn - 1] == ' ') kn--;
        if (!eq) {
            snprintf(err, errlen, "expected name=value[,name=value...], got '%.*s'", (int)item, p);
            strbuf_free(&b);
            return false;
        }
        const char *why = label_name_refused(p, kn);
        if (!why && named_before(spec, p, p, kn)) why = "it is given twice";
        if (why) {
            snprintf(err, errlen, "label name '%.*s' cannot be used: %s", (int)kn, p, why);
            strbuf_free(&b);
            return false;
        }
        const char *v = eq + 1;
        while (*v == ' ' && v < p + item) v++;
        size_t vn = (size_t)(p + item - v);
        while (vn && v[vn - 1] == ' ') vn--;
        if (!utf8_valid((const uint8_t *)v, vn)) {   /* the exposition is UTF-8: a scraper refuses it all */
            snprintf(err, errlen, "label '%.*s': its value is not UTF-8", (int)kn, p);
            strbuf_free(&b);
            return false;
        }
        if (b.len) strbuf_putc(&b, ',');
        strbuf_append(&b, p, kn);
        strbuf_append(&b, "=\"", 2);
        char val[256];
        snprintf(val, sizeof val, "%.*s", (int)utf8_cut(v, vn, 255), v);   /* (never within a character) */
        label_value(&w, val);
        strbuf_putc(&b, '"');
        p += item;
    }
    if (!b.len) { strbuf_free(&b); return true; }
    if (!strbuf_terminate(&b)) { strbuf_free(&b); snprintf(err, errlen, "out of memory"); return false; }
    *rendered = b.data;
    return true;
}

/* Per webhook receiver (receiver="0" is the first webhook_url: an index, never the URL,
 * which may hold credentials): events dropped (its full queue, or never queued), and POSTs by outcome. */
static void webhook_series(writer *w, webhooks *hooks) {
    size_t n = webhooks_receivers(hooks);
    if (!n) return;
    unsigned long dropped[WEBHOOK_MAX_URLS], failed[WEBHOOK_MAX_URLS], delivered[WEBHOOK_MAX_URLS];
    for (size_t i = 0; i < n; i++) webhooks_receiver_counts(hooks, i, &dropped[i], &failed[i], &delivered[i]);
    family(w, "goblind_webhook_events_dropped_total", "counter",
           "Run events a webhook receiver will never get: dropped from its full queue, or never queued "
           "(no memory, or its thread could not start) (receiver: index of its webhook_url).");
    for (size_t i = 0; i < n; i++) put(w, "goblind_webhook_events_dropped_total{receiver=\"%zu\"} %lu\n", i, dropped[i]);
    family(w, "goblind_webhook_deliveries_total", "counter",
           "Run events a webhook receiver got (delivered) or did not after every attempt (failed).");
    for (size_t i = 0; i < n; i++) {
        put(w, "goblind_webhook_deliveries_total{receiver=\"%zu\",result=\"delivered\"} %lu\n", i, delivered[i]);
        put(w, "goblind_webhook_deliveries_total{receiver=\"%zu\",result=\"failed\"} %lu\n", i, failed[i]);
    }
}

/* The series verdict cache's counters (docs/OPERATIONS.md): how often a verdict was reused or
 * had to be computed, entries replaced, and its size. */
static void series_cache_series(writer *w, series_cache *cache) {
    series_cache_stats st;
    series_cache_stats_get(cache, &st);
    family(w, "goblind_series_verdict_cache_hits_total", "counter",
           "Series verdicts (GET /series, /metrics, regression events) taken from the cache instead of a bootstrap test.");
    put(w, "goblind_series_verdict_cache_hits_total %llu\n", (unsigned long long)st.hits);
    family(w, "goblind_series_verdict_cache_misses_total", "counter",
           "Series verdicts not in the cache: computed (a bootstrap test) and stored.");
    put(w, "goblind_series_verdict_cache_misses_total %llu\n", (unsigned long long)st.misses);
    family(w, "goblind_series_verdict_cache_evictions_total", "counter",
           "Series verdicts dropped from the full cache, the least recently used first.");
    put(w, "goblind_series_verdict_cache_evictions_total %llu\n", (unsigned long long)st.evictions);
    family(w, "goblind_series_verdict_cache_entries", "gauge", "Series verdicts held in the cache.");
    put(w, "goblind_series_verdict_cache_entries %zu\n", st.entries);
    family(w, "goblind_series_verdict_cache_capacity", "gauge", "The most series verdicts the cache holds.");
    put(w, "goblind_series_verdict_cache_capacity %zu\n", st.capacity);
}

bool prometheus_render(const prometheus_source *src, bool om, strbuf *out) {
    strbuf own = {0};
    bool relabel = src->labels && *src->labels;
    writer w = {relabel ? &own : out, om};
    goblind_counters *c = src->counters;
    family(&w, "goblind_build_info", "gauge", "goblind version; always 1.");
    put(&w, "goblind_build_info{" L_VERSION "=\"%s\"} 1\n", src->version);

    store_reader *rd = store_reader_acquire(src->st);
    int64_t counts[RUN_STATUS_COUNT];
    bool ok = store_count_by_status(rd, counts);
    run_list runs = {0};
    char next[300];
    ok = ok && store_list_runs(rd, -1, src->max_runs, NULL, false, collect, &runs, next, sizeof next) >= 0 && !runs.failed;
    ok = ok && read_gauges(rd, &runs, src->max_runs) && !store_reader_failed(rd);
    store_reader_release(src->st, rd);

    family(&w, "goblind_runs", "gauge", "Runs known to the daemon, by status.");
    for (int s = 0; s < RUN_STATUS_COUNT; s++)
        put(&w, "goblind_runs{" L_STATUS "=\"%s\"} %lld\n", store_run_status_name((run_status)s), (long long)counts[s]);
    family(&w, "goblind_ingests_total", "counter",
           "Run parses stored (ok: kernel trace and torch profile parse; incomplete: not yet) or not stored (error).");
    for (int r = 0; r < INGEST_RESULTS; r++)
        put(&w, "goblind_ingests_total{" L_RESULT "=\"%s\"} %llu\n", INGEST_RESULT_NAMES[r],
            (unsigned long long)atomic_load(&c->ingests[r]));
    histogram_out(&w, "goblind_parse_duration_seconds", "Time to parse one run directory.", &c->parse_seconds);
    family(&w, "goblind_parsed_bytes_total", "counter", "Artefact bytes parsed (after gzip inflation).");
    put(&w, "goblind_parsed_bytes_total %llu\n", (unsigned long long)atomic_load(&c->parsed_bytes));
    family(&w, "goblind_watched_directories", "gauge", "Directories watched with inotify (roots, runs, rocprofv3 sub-directories).");
    put(&w, "goblind_watched_directories %lld\n", (long long)atomic_load(&c->watched_dirs));
    family(&w, "goblind_http_requests_total", "counter", "HTTP requests answered, by status code.");
    for (int i = 0; i < HTTP_CODES; i++) {
        uint64_t v = atomic_load(&c->http_requests[i]);
        if (HTTP_CODE_VALUES[i]) put(&w, "goblind_http_requests_total{" L_CODE "=\"%u\"} %llu\n", HTTP_CODE_VALUES[i], (unsigned long long)v);
        else put(&w, "goblind_http_requests_total{" L_CODE "=\"other\"} %llu\n", (unsigned long long)v);
    }
    histogram_out(&w, "goblind_http_request_duration_seconds", "Time from request to response.", &c->http_seconds);
    webhook_series(&w, src->hooks);
    ok = process_metrics(&w) && ok;

    run_state_series(&w, &runs);
    run_series(&w, &runs, "goblind_run_tokens_per_second", "gauge", "Training throughput of the run.",
               offsetof(run_sample, tokens));
    run_series(&w, &runs, "goblind_run_mfu_ratio", "gauge", "Model FLOPs utilisation (0..1).", offsetof(run_sample, mfu));
    run_series(&w, &runs, "goblind_run_hbm_peak_bytes", "gauge", "Peak HBM used.", offsetof(run_sample, peak));
    run_series(&w, &runs, "goblind_run_hbm_avg_bytes", "gauge", "Mean HBM used.", offsetof(run_sample, avg));
    run_series(&w, &runs, "goblind_run_gpu_utilization_ratio", "gauge", "GPU utilisation (0..1).",
               offsetof(run_sample, util));
    run_series(&w, &runs, "goblind_run_step_seconds", "gauge", "Step time.", offsetof(run_sample, step));
    family(&w, "goblind_run_waste_seconds", "gauge", "Waste budget: step time per bucket, seconds per step.");
    for (size_t i = 0; i < runs.n; i++) {
        const run_sample *s = &runs.items[i];
        if (!s->step.has) continue;           /* no step time: the split is not known */
        for (int b = 0; b < INGEST_WASTE_BUCKETS; b++) {
            if (!s->waste[b].has) continue;   /* a bucket not known (NULL column): left out */
            put(&w, "goblind_run_waste_seconds{" L_RUN "=\"");
            label_value(&w, s->id);
            put(&w, "\"," L_BUCKET "=\"%s\"} ", INGEST_WASTE_KEYS[b]);
            value(&w, s->waste[b].v);
        }
    }
    analysis_series(&w, &runs);
    gpu_device_series(&w, &runs);
    family(&w, "goblind_run_updated_timestamp_seconds", "gauge", "When the run last changed.");
    for (size_t i = 0; i < runs.n; i++) {
        put(&w, "goblind_run_updated_timestamp_seconds{" L_RUN "=\"");
        label_value(&w, runs.items[i].id);
        put(&w, "\"} ");
        value(&w, runs.items[i].updated_s);
    }
    store_reader *srd = store_reader_acquire(src->st);   /* per series: the latest run against its baseline */
    ok = series_metrics(srd, src->max_runs, src->series_baseline_runs > 0 ? src->series_baseline_runs : SERIES_BASELINE_DEFAULT,
                        src->series_cache, w.out) && !store_reader_failed(srd) && ok;
    store_reader_release(src->st, srd);
    if (src->series_cache) series_cache_series(&w, src->series_cache);
    if (om) put(&w, "# EOF\n");
    for (size_t i = 0; i < runs.n; i++) free(runs.items[i].id);
    free(runs.items);
    if (relabel) {
        ok = ok && !own.failed;
        add_static_labels(own.data ? own.data : "", own.len, src->labels, out);
        strbuf_free(&own);
    }
    return strbuf_terminate(out) && ok;
}
