/* device_section: the `device` section: what the run ran on (vendor, name, memory, compute
 * units, wave/warp size, driver/runtime/ROCm/CUDA versions), from whichever source says it.
 *
 * Inputs: REC_METADATA with the fixed keys of parsers/record.h (a device property with
 * RF_DEVICE belongs to that device, without it to the run's unnamed device), and the
 * telemetry's vram_total_bytes (RF_VRAM_TOTAL), used for memory_bytes when no metadata gives
 * it. The first value seen for a key wins (sources in inventory order), so folding the
 * pieces of a split read in order equals one pass. Values are the file's text; the integer
 * properties must read as decimal integers, else they stay null and a warning says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section.h"
#include "analyses/section_md.h"

#define MAX_DEVICES 64
#define NO_DEVICE INT64_MIN

/* Text properties first, then the integer ones (from P_MEMORY on). */
enum { P_VENDOR, P_NAME, P_CC, P_MEMORY, P_CU, P_WAVE, P_SHMEM, P_THREADS, P_REGS, N_PROP };
static const char *const PROP_KEY[N_PROP] = {"vendor", "device_name", "compute_capability", "memory_bytes",
                                             "compute_units", "wave_size", "shared_memory_per_block",
                                             "max_threads_per_block", "registers_per_block"};
static const char *const PROP_OUT[N_PROP] = {"vendor", "name", "compute_capability", "memory_bytes",
                                             "compute_units", "wave_size", "shared_memory_per_block",
                                             "max_threads_per_block", "registers_per_block"};
_Static_assert(sizeof PROP_KEY / sizeof *PROP_KEY == N_PROP && sizeof PROP_OUT / sizeof *PROP_OUT == N_PROP,
               "one key per property");
/* A wave (warp) of 64 lanes is AMD's: the vendor when no tracer version says it. */
#define AMD_WAVE_SIZE 64
enum { V_DRIVER, V_RUNTIME, V_ROCM, V_CUDA, V_ROCTRACER, V_CUPTI, V_PYTORCH, V_HOST, N_VER };
static const char *const VER_KEY[N_VER] = {"driver_version", "runtime_version", "rocm_version", "cuda_version",
                                           "roctracer_version", "cupti_version", "pytorch_version", "hostname"};

typedef struct device_facts {
    int64_t index;                 /* NO_DEVICE: facts that name no device */
    char *prop[N_PROP];
    uint64_t vram_total;           /* largest telemetry total, 0: none */
} device_facts;

typedef struct device_state {
    device_facts dev[MAX_DEVICES];
    size_t n_dev;
    char *ver[N_VER];
    uint64_t dropped;              /* facts about devices past MAX_DEVICES */
    diag_list *diag;
} device_state;

static void *d_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg;
    device_state *s = calloc(1, sizeof *s);
    if (s) s->diag = diag;
    return s;
}

static void *d_open_source(void *run, const source_ref *src) {
    (void)src;
    return d_open(NULL, ((device_state *)run)->diag);
}

static device_facts *device_of(device_state *s, int64_t index) {
    for (size_t i = 0; i < s->n_dev; i++)
        if (s->dev[i].index == index) return &s->dev[i];
    if (s->n_dev == MAX_DEVICES) { s->dropped++; return NULL; }
    device_facts *d = &s->dev[s->n_dev++];
    *d = (device_facts){.index = index};
    return d;
}

/* Keeps the first value of a fact. false: out of memory. */
static bool keep_first(char **slot, const char *v, size_t n) {
    if (*slot) return true;
    *slot = strndup(v, n);
    return *slot != NULL;
}

static bool d_consume(void *st, const record *r) {
    device_state *s = st;
    if (r->type == REC_TELEMETRY_SAMPLE) {
        if (!(r->has & RF_VRAM_TOTAL) || !r->vram_total_bytes) return true;
        device_facts *d = device_of(s, (r->has & RF_DEVICE) ? r->device : NO_DEVICE);
        if (d && r->vram_total_bytes > d->vram_total) d->vram_total = r->vram_total_bytes;
        return true;
    }
    if (!r->key || !r->value) return true;
    for (int k = 0; k < N_VER; k++)
        if (!strcmp(r->key, VER_KEY[k])) return r->value_len == 0 || keep_first(&s->ver[k], r->value, r->value_len);
    for (int k = 0; k < N_PROP; k++)
        if (!strcmp(r->key, PROP_KEY[k])) {
            if (!r->value_len) return true;
            device_facts *d = device_of(s, (r->has & RF_DEVICE) ? r->device : NO_DEVICE);
            return !d || keep_first(&d->prop[k], r->value, r->value_len);
        }
    return true;
}

static void facts_free(device_facts *d) {
    for (int k = 0; k < N_PROP; k++) free(d->prop[k]);
}

static void d_close(void *run) {
    device_state *s = run;
    if (!s) return;
    for (size_t i = 0; i < s->n_dev; i++) facts_free(&s->dev[i]);
    for (int k = 0; k < N_VER; k++) free(s->ver[k]);
    free(s);
}

static bool d_end_source(void *run, void *src) {
    device_state *r = run, *s = src;
    bool ok = true;
    for (size_t i = 0; i < s->n_dev; i++) {
        device_facts *from = &s->dev[i], *to = device_of(r, from->index);
        if (!to) continue;
        for (int k = 0; k < N_PROP; k++)
            if (!to->prop[k] && from->prop[k]) to->prop[k] = from->prop[k], from->prop[k] = NULL;
        if (from->vram_total > to->vram_total) to->vram_total = from->vram_total;
    }
    for (int k = 0; k < N_VER; k++)
        if (!r->ver[k] && s->ver[k]) r->ver[k] = s->ver[k], s->ver[k] = NULL;
    r->dropped += s->dropped;
    d_close(s);
    return ok;
}

static int cmp_dev(const void *x, const void *y) {
    int64_t a = ((const device_facts *)x)->index, b = ((const device_facts *)y)->index;
    return (a > b) - (a < b);
}

/* A property as an integer: false when absent or not a decimal integer. */
static bool prop_int(const device_facts *d, int k, uint64_t *out) {
    if (k == P_MEMORY && !d->prop[k] && d->vram_total) { *out = d->vram_total; return true; }
    const char *t = d->prop[k];
    if (!t || !*t) return false;
    char *end;
    unsigned long long v = strtoull(t, &end, 10);
    while (*end == ' ') end++;
    if (*end || *t == '-') return false;
    *out = v;
    return true;
}

static bool d_finish(void *run, const section_results *earlier) {
    (void)earlier;
    device_state *s = run;
    qsort(s->dev, s->n_dev, sizeof *s->dev, cmp_dev);   /* NO_DEVICE first, then by index */
    for (size_t i = 0; i < s->n_dev; i++)
        for (int k = P_MEMORY; k < N_PROP; k++) {
            uint64_t v;
            if (s->dev[i].prop[k] && !prop_int(&s->dev[i], k, &v))
                diag_add(s->diag, "device: %s \"%s\" is not an integer; left null", PROP_KEY[k], s->dev[i].prop[k]);
        }
    if (s->dropped) diag_add(s->diag, "device: facts about more than %d devices are not listed", MAX_DEVICES);
    return true;
}

static void prop_value(jw_out *w, const device_facts *d, int k) {
    uint64_t v;
    if (k >= P_MEMORY) { if (prop_int(d, k, &v)) jw_u64(w, v); else jw_null(w); }
    else if (d->prop[k]) jw_string(w, d->prop[k]);
    else jw_null(w);
}

static bool prop_known(const device_facts *d, int k) {
    uint64_t v;
    return k >= P_MEMORY ? prop_int(d, k, &v) : d->prop[k] != NULL;
}

/* The first device (in rendered order) that knows property k, or NULL. */
static const device_facts *first_with(const device_state *s, int k) {
    for (size_t i = 0; i < s->n_dev; i++)
        if (prop_known(&s->dev[i], k)) return &s->dev[i];
    return NULL;
}

/* The run's vendor: as a source said it, else AMD when a device's wave size is 64 (*inferred). */
static const char *run_vendor(const device_state *s, bool *inferred) {
    const device_facts *d = first_with(s, P_VENDOR);
    *inferred = false;
    if (d) return d->prop[P_VENDOR];
    uint64_t wave;
    for (size_t i = 0; i < s->n_dev; i++)
        if (prop_int(&s->dev[i], P_WAVE, &wave) && wave == AMD_WAVE_SIZE) return *inferred = true, "AMD";
    return NULL;
}

static bool any_fact(const device_state *s) {
    for (int k = 0; k < N_VER; k++)
        if (s->ver[k]) return true;
    return s->n_dev > 0;
}

/* Devices with an index; 1 when only unnamed facts exist (one device the files do not number). */
static size_t device_count(const device_state *s) {
    size_t named = 0;
    for (size_t i = 0; i < s->n_dev; i++) named += s->dev[i].index != NO_DEVICE;
    return named ? named : s->n_dev;
}

/* Whether a device's row says anything beyond the vendor (the run-wide vendor fact of a tracer
 * version is not a device of its own). */
static bool row_has_facts(const device_facts *d) {
    for (int k = P_NAME; k < N_PROP; k++)
        if (d->prop[k]) return true;
    return d->vram_total != 0;
}

static void d_render(const void *run, jw_out *w) {
    const device_state *s = run;
    if (!any_fact(s)) { jw_null(w); return; }
    jw_object_open(w);
    bool inferred;
    const char *vendor = run_vendor(s, &inferred);
    jw_key(w, PROP_OUT[P_VENDOR]);
    if (vendor) jw_string(w, vendor); else jw_null(w);
    jw_key(w, "vendor_inferred");
    if (vendor) jw_bool(w, inferred); else jw_null(w);
    for (int k = P_VENDOR + 1; k < N_PROP; k++) {
        jw_key(w, PROP_OUT[k]);
        const device_facts *d = first_with(s, k);
        if (d) prop_value(w, d, k); else jw_null(w);
    }
    jw_key(w, "device_count");
    jw_int(w, (int64_t)device_count(s));
    for (int k = 0; k < N_VER; k++) {
        jw_key(w, VER_KEY[k]);
        if (s->ver[k]) jw_string(w, s->ver[k]); else jw_null(w);
    }
    jw_key(w, "devices");
    jw_array_open(w);
    for (size_t i = 0; i < s->n_dev; i++) {
        const device_facts *d = &s->dev[i];
        if (!row_has_facts(d)) continue;    /* the run-wide vendor: said above */
        jw_object_open(w);
        jw_key(w, "device");
        if (d->index == NO_DEVICE) jw_null(w); else jw_int(w, d->index);
        for (int k = 0; k < N_PROP; k++) {
            jw_key(w, PROP_OUT[k]);
            prop_value(w, d, k);
        }
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_object_close(w);
}

/* The report's device part: the run's vendor, one row per device and the versions known. */
static void d_render_md(const void *run, strbuf *out) {
    const device_state *s = run;
    if (!any_fact(s)) return;
    smd_printf(out, "## Device\n\n");
    bool rows = false;
    for (size_t i = 0; i < s->n_dev; i++) rows |= row_has_facts(&s->dev[i]);
    if (rows) {
        smd_printf(out, "| device | name | compute capability | memory (GiB) | compute units | wave size |\n"
                        "|---|---|---|---:|---:|---:|\n");
        for (size_t i = 0; i < s->n_dev; i++) {
            const device_facts *d = &s->dev[i];
            uint64_t v;
            if (!row_has_facts(d)) continue;
            if (d->index == NO_DEVICE) smd_printf(out, "| — |");
            else smd_printf(out, "| %lld |", (long long)d->index);
            for (int k = P_NAME; k <= P_CC; k++) {
                strbuf_putc(out, ' ');
                if (d->prop[k]) smd_cell(out, d->prop[k], strlen(d->prop[k]), 80); else strbuf_append(out, "—", 3);
                strbuf_append(out, " |", 2);
            }
            bool m = prop_int(d, P_MEMORY, &v);
            smd_num(out, m ? (double)v / 1073741824.0 : 0, 1, m);
            for (int k = P_CU; k <= P_WAVE; k++) {
                bool h = prop_int(d, k, &v);
                smd_num(out, h ? (double)v : 0, 0, h);
            }
            strbuf_putc(out, '\n');
        }
        strbuf_putc(out, '\n');
    }
    bool inferred;
    const char *vendor = run_vendor(s, &inferred);
    if (vendor) {
        smd_printf(out, "- vendor: ");
        smd_cell(out, vendor, strlen(vendor), 80);
        smd_printf(out, "%s\n", inferred ? " (inferred from a wave size of 64)" : "");
    }
    for (int k = 0; k < N_VER; k++)
        if (s->ver[k]) {
            smd_printf(out, "- %s: ", VER_KEY[k]);
            smd_cell(out, s->ver[k], strlen(s->ver[k]), 200);
            strbuf_putc(out, '\n');
        }
    strbuf_putc(out, '\n');
}

/* "memory_bytes", "compute_units", "wave_size" (the first device knowing it), "device_count". */
static bool d_number(const void *run, const char *path, double *out) {
    const device_state *s = run;
    if (!any_fact(s)) return false;
    if (!strcmp(path, "device_count")) { *out = (double)device_count(s); return true; }
    for (int k = P_MEMORY; k < N_PROP; k++)
        if (!strcmp(path, PROP_OUT[k])) {
            const device_facts *d = first_with(s, k);
            uint64_t v;
            if (!d || !prop_int(d, k, &v)) return false;
            *out = (double)v;
            return true;
        }
    return false;
}

const section_analysis device_section = {
    .key = "device",
    .wants = REC_BIT(REC_METADATA) | REC_BIT(REC_TELEMETRY_SAMPLE),
    .fields = RF_DEVICE | RF_VRAM_TOTAL,
    .splittable = true,
    .open = d_open,
    .open_source = d_open_source,
    .consume = d_consume,
    .end_source = d_end_source,
    .finish = d_finish,
    .render = d_render,
    .render_md = d_render_md,
    .number = d_number,
    .close = d_close,
};
