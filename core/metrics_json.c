/* metrics_json: RunMetrics -> schema-exact JSON. */
#include "core/metrics_json.h"

#include <math.h>
#include <stdio.h>

#include "base/json_writer.h"

static void number(jw_out *j, const char *key, double v, const char **nonfinite) {
    jw_key(j, key);
    if (!isfinite(v) && !*nonfinite) *nonfinite = key;
    jw_number(j, isfinite(v) ? v : 0.0);
}

void metrics_json_render(const run_metrics *m, int indent, strbuf *out) {
    jw_out j;
    const char *bad = NULL;
    jw_begin(&j, out, indent);
    jw_object_open(&j);
    jw_key(&j, "steps");
    jw_int(&j, m->steps);
    number(&j, "tokens_per_sec", m->tokens_per_sec, &bad);
    number(&j, "mfu_pct", m->mfu_pct, &bad);
    number(&j, "hbm_peak_gb", m->hbm_peak_gb, &bad);
    number(&j, "hbm_avg_gb", m->hbm_avg_gb, &bad);
    number(&j, "gpu_util_pct", m->gpu_util_pct, &bad);
    jw_key(&j, "top_kernels");
    jw_array_open(&j);
    for (size_t i = 0; i < m->n_top; i++) {
        jw_object_open(&j);
        jw_key(&j, "name");
        jw_string_n(&j, m->top[i].name, m->top[i].name_len);   /* (a NUL in a name is "\u0000", as json.dumps) */
        number(&j, "pct_time", m->top[i].pct_time, &bad);
        jw_object_close(&j);
    }
    jw_array_close(&j);
    jw_key(&j, "attention_kernel_loaded");
    jw_string(&j, m->attention);
    jw_key(&j, "waste_budget");
    jw_object_open(&j);
    for (int b = 0; b < W_COUNT; b++) number(&j, WASTE_BUCKETS[b], m->waste[b], &bad);
    jw_object_close(&j);
    jw_key(&j, "warnings");
    jw_array_open(&j);
    for (size_t i = 0; i < m->warnings.count; i++) jw_string(&j, m->warnings.items[i]);
    if (m->warnings.dropped) {
        char b[64];
        snprintf(b, sizeof b, "... and %zu more warnings", m->warnings.dropped);
        jw_string(&j, b);
    }
    if (bad) {
        char b[96];
        snprintf(b, sizeof b, "%s was not a finite number (inputs out of range); reported as 0", bad);
        jw_string(&j, b);
    }
    jw_array_close(&j);
    jw_key(&j, "rocm_version");
    jw_string(&j, m->rocm_version);
    jw_key(&j, "pytorch_version");
    jw_string(&j, m->pytorch_version);
    jw_key(&j, "runner_kind");
    jw_string(&j, "live");
    jw_object_close(&j);
    strbuf_terminate(out);
}
