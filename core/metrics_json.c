/* metrics_json: RunMetrics -> schema-exact JSON. */
#include "core/metrics_json.h"

#include <math.h>
#include <stdio.h>

#include "core/json_out.h"

static void number(json_out *j, const char *key, double v, const char **nonfinite) {
    json_key(j, key);
    if (!isfinite(v) && !*nonfinite) *nonfinite = key;
    json_number(j, isfinite(v) ? v : 0.0);
}

void metrics_json_render(const run_metrics *m, int indent, strbuf *out) {
    json_out j;
    const char *bad = NULL;
    json_begin(&j, out, indent);
    json_object_open(&j);
    json_key(&j, "steps");
    json_int(&j, m->steps);
    number(&j, "tokens_per_sec", m->tokens_per_sec, &bad);
    number(&j, "mfu_pct", m->mfu_pct, &bad);
    number(&j, "hbm_peak_gb", m->hbm_peak_gb, &bad);
    number(&j, "hbm_avg_gb", m->hbm_avg_gb, &bad);
    number(&j, "gpu_util_pct", m->gpu_util_pct, &bad);
    json_key(&j, "top_kernels");
    json_array_open(&j);
    for (size_t i = 0; i < m->n_top; i++) {
        json_object_open(&j);
        json_key(&j, "name");
        json_string(&j, m->top[i].name);
        number(&j, "pct_time", m->top[i].pct_time, &bad);
        json_object_close(&j);
    }
    json_array_close(&j);
    json_key(&j, "attention_kernel_loaded");
    json_string(&j, m->attention);
    json_key(&j, "waste_budget");
    json_object_open(&j);
    for (int b = 0; b < W_COUNT; b++) number(&j, WASTE_BUCKETS[b], m->waste[b], &bad);
    json_object_close(&j);
    json_key(&j, "warnings");
    json_array_open(&j);
    for (size_t i = 0; i < m->warnings.count; i++) json_string(&j, m->warnings.items[i]);
    if (m->warnings.dropped) {
        char b[64];
        snprintf(b, sizeof b, "... and %zu more warnings", m->warnings.dropped);
        json_string(&j, b);
    }
    if (bad) {
        char b[96];
        snprintf(b, sizeof b, "%s was not a finite number (inputs out of range); reported as 0", bad);
        json_string(&j, b);
    }
    json_array_close(&j);
    json_key(&j, "rocm_version");
    json_string(&j, m->rocm_version);
    json_key(&j, "pytorch_version");
    json_string(&j, m->pytorch_version);
    json_key(&j, "runner_kind");
    json_string(&j, "live");
    json_object_close(&j);
    strbuf_terminate(out);
}
