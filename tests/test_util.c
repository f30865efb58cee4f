/* test_util: helpers shared by the Check suites. */
#include "tests/test_util.h"

#include "core/artefact_reader.h"
#include "core/metrics_json.h"
#include "core/read_facts_json.h"
#include "core/run_ingest.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *tu_tempdir(void) {
    const char *base = getenv("TMPDIR");
    char *t = NULL;
    ck_assert(asprintf(&t, "%s/goblind-test-XXXXXX", base && *base ? base : "/tmp") > 0);
    ck_assert_ptr_nonnull(mkdtemp(t));
    return t;
}

void tu_rmrf(const char *dir) {
    char *cmd = NULL;
    if (asprintf(&cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir) > 0) {
        if (system(cmd) != 0) { /* best effort */ }
    }
    free(cmd);
}

void tu_write(const char *dir, const char *name, const void *data, size_t n) {
    char *p = NULL;
    ck_assert(asprintf(&p, "%s/%s", dir, name) > 0);
    FILE *f = fopen(p, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", p);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    fclose(f);
    free(p);
}

void tu_write_str(const char *dir, const char *name, const char *text) { tu_write(dir, name, text, strlen(text)); }

char *tu_read(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    size_t got = fread(b, 1, (size_t)len, f);
    fclose(f);
    b[got] = '\0';
    if (n) *n = got;
    return b;
}

const char *tu_fixture(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/fixtures/%s", GOBLIN_SHARED_DIR, rel);
    return buf;
}

void tu_copy_fixture(const char *rel, const char *dir, const char *name) {
    size_t n;
    char *data = tu_read(tu_fixture(rel), &n);
    ck_assert_msg(data != NULL, "missing fixture %s", rel);
    tu_write(dir, name, data, n);
    free(data);
}

void tu_parse(const char *dir, bool seed_compat, run_result *r) {
    run_options o = {0};
    o.parse.seed_compat = seed_compat;
    ck_assert(run_parse(dir, &o, r));
}

bool tu_warned(const run_result *r, const char *needle) {
    for (size_t i = 0; i < r->metrics.warnings.count; i++)
        if (strstr(r->metrics.warnings.items[i], needle)) return true;
    return false;
}

void tu_read_artefact(const char *path, artefact_kind kind, uint64_t tail_bytes, void *summary, diag_list *diag,
                      artefact_info *info) {
    parse_options opt = {.split_min_bytes = 1};
    diag_init(diag);
    if (tail_bytes == 0) artefact_read(path, kind, &opt, summary, diag, info);
    else artefact_read_end(artefact_read_begin(path, kind, &opt, summary, diag, info, tail_bytes));
}

char *tu_metrics_text(const run_result *r) {
    strbuf out = {0};
    metrics_json_render(&r->metrics, 0, &out);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        strbuf_putc(&out, '\n');
        read_facts_render(run_result_facts(r, (artefact_kind)k), r->info[k].format != NULL, &out);
        char line[160];
        int n = snprintf(line, sizeof line, " present=%d format=%s bytes=%llu error=%s", r->info[k].present,
                         r->info[k].format ? r->info[k].format : "-", (unsigned long long)r->info[k].bytes_parsed,
                         r->info[k].error ? "yes" : "no");
        strbuf_append(&out, line, (size_t)n);
    }
    strbuf_terminate(&out);
    return out.data;
}

char *tu_goblin_run(int kernels, int events, bool cut_torch) {
    char *d = tu_tempdir();
    strbuf csv = {0}, js = {0};
    const char *hdr = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n";
    strbuf_append(&csv, hdr, strlen(hdr));
    const char *names[] = {"Cijk_Alik_Bljk_gemm", "flash_fwd_kernel", "elementwise_add", "rccl_allreduce"};
    for (int i = 0; i < kernels; i++) {
        char line[256];
        int n = snprintf(line, sizeof line, "\"KERNEL_DISPATCH\",1,%d,\"%s\",%d,%lld,%lld\n", i % 3, names[i % 4], i,
                         1000000000LL + i * 3000LL, 1000000000LL + i * 3000LL + 1000 + (i % 7) * 113);
        strbuf_append(&csv, line, (size_t)n);
    }
    const char *head = "{\"metadata\": {\"tokens_per_sec\": 1234.5, \"pytorch_version\": \"2.5.1\"},\n \"traceEvents\": [\n";
    strbuf_append(&js, head, strlen(head));
    for (int i = 0; i < events; i++) {
        char line[256];
        int n = i % 300 == 0 ? snprintf(line, sizeof line, "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"ts\": %d.125, \"dur\": 2999.7},\n", i / 300, i * 10)
                             : snprintf(line, sizeof line, "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"ts\": %d.333, \"dur\": %d.1},\n",
                                        i % 2 ? "cpu_op" : "kernel", names[i % 4], i * 10, 1 + i % 9);
        strbuf_append(&js, line, (size_t)n);
    }
    const char *tail = cut_torch ? "  {\"ph\": \"X\", \"name\": \"last\", \"ts\": 1, \"dur\": 1}\n ]\n" /* cut: no '}' */
                                         : "  {\"ph\": \"X\", \"name\": \"last\", \"ts\": 1, \"dur\": 1}\n ]\n}\n";
    strbuf_append(&js, tail, strlen(tail));
    tu_write(d, "trace.csv", csv.data, csv.len);
    tu_write(d, "torch_profile.json", js.data, js.len);
    tu_write_str(d, "amd_smi.csv", "timestamp,gpu,vram_used,gfx_activity\n1,0,65536 MB,80\n2,0,70000 MB,90\n");
    strbuf_free(&csv);
    strbuf_free(&js);
    return d;
}

void tu_ingest(const char *dir, tu_ingested *x) {
    run_options opt = {0};
    run_analysis_options aopt;
    run_analysis_defaults(&aopt);
    run_sidecar sc;                             /* goblind.json, as daemon/ingest_job.c reads it */
    diag_list scw;
    diag_init(&scw);
    run_sidecar_read(dir, &sc, &scw);
    if (sc.has_steps) opt.steps_given = true, opt.steps = sc.steps;
    if (sc.precision) opt.precision = sc.precision;
    ck_assert(run_ingest(dir, &opt, &aopt, &x->res, &x->an));
    diag_append(&x->res.metrics.warnings, &scw);
    diag_free(&scw);
    ck_assert(run_headline_apply(&x->res, &opt, &x->an, &sc, &x->h));
    run_sidecar_free(&sc);
    ck_assert(ingest_doc_build(&x->res, &x->doc));
    if (x->h.kernels_from_analysis) x->doc.kernels = NULL;
    ingest_doc_attach_analysis(&x->doc, &x->an);
    x->doc.headline.waste_unknown = x->h.waste_unknown;
}

ingest_record tu_ingested_record(const tu_ingested *x, const char *id, const char *root, const char *path) {
    return (ingest_record){.id = id, .root = root, .path = path, .status = RUN_COMPLETE, .now_ms = 1000,
                           .doc = &x->doc, .metrics_json = x->doc.metrics_json, .error = x->h.error, .parse_ms = 1.0,
                           .profile = x->h.profile, .headline_json = x->h.json.data};
}

void tu_ingested_free(tu_ingested *x) {
    ingest_doc_free(&x->doc);
    run_headline_free(&x->h);
    run_result_free(&x->res);
    run_analysis_free(&x->an);
}
