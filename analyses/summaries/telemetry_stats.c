/* telemetry_stats: telemetry sample and metadata records -> telemetry_summary.
 *
 * HBM peak and mean (GiB) over the samples that carry VRAM, utilisation mean over those
 * that carry utilisation (the format has already dropped values the rules refuse), and
 * the first ROCm version the file names. Sums are doubles added in sample order, exactly
 * as the reference adds them. */
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"

typedef struct state {
    telemetry_summary *out;
    double hbm_max, hbm_sum, util_sum;
    uint64_t hbm_n, util_n;
} state;

static void *ts_open(const parse_options *opt, const char *label, void *summary, diag_list *diag) {
    (void)opt, (void)label, (void)diag;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->out = summary;
    memset(s->out, 0, sizeof *s->out);
    return s;
}

static bool ts_consume(void *st, const record *r) {
    state *s = st;
    telemetry_summary *o = s->out;
    if (r->type == REC_METADATA) {
        if (!o->rocm_version && r->key && !strcmp(r->key, "rocm_version") && r->value_len) {
            o->rocm_version = strndup(r->value, r->value_len);
            return o->rocm_version != NULL;
        }
        return true;
    }
    o->samples++;
    if (r->has & RF_VRAM) {
        if (!s->hbm_n || r->vram_gib > s->hbm_max) s->hbm_max = r->vram_gib;
        s->hbm_sum += r->vram_gib;
        s->hbm_n++;
    }
    if (r->has & RF_UTIL) {
        s->util_sum += r->util_pct;
        s->util_n++;
    }
    return true;
}

static void ts_finish(void *st) {
    state *s = st;
    telemetry_summary *o = s->out;
    if (s->hbm_n) {
        o->hbm_peak_gb = (opt_num){true, s->hbm_max};
        o->hbm_avg_gb = (opt_num){true, s->hbm_sum / (double)s->hbm_n};
    }
    if (s->util_n) o->gpu_util_pct = (opt_num){true, s->util_sum / (double)s->util_n};
}

static void ts_close(void *st) { free(st); }

static read_facts *ts_facts(void *summary) { return &((telemetry_summary *)summary)->facts; }

const analysis telemetry_stats_analysis = {
    .name = "telemetry-stats",
    .wants = REC_BIT(REC_TELEMETRY_SAMPLE) | REC_BIT(REC_METADATA),
    .kind = ARTEFACT_TELEMETRY,
    .open = ts_open,
    .consume = ts_consume,
    .finish = ts_finish,
    .close = ts_close,
    .facts = ts_facts,
};
