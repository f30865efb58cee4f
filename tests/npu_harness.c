/* npu_harness: the check_npu suites' harness (see npu_harness.h). */
#include "tests/npu_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/section_registry.h"
#include "parsers/parser_registry.h"

static const char *const KEYS[] = {"npu_ops", "npu_hotspots", "aie_cores", "aie_aggregate"};
#define N_KEYS 4

typedef struct fan {
    const section_analysis *an[N_KEYS];
    void *src[N_KEYS];
} fan;

static bool fan_emit(void *user, const record *r) {
    fan *f = user;
    for (int i = 0; i < N_KEYS; i++)
        if (f->src[i] && (f->an[i]->wants & REC_BIT(r->type)) && !f->an[i]->consume(f->src[i], r)) return false;
    return true;
}

const artefact_parser *format_named(const char *name) {
    for (const artefact_parser *const *p = parser_list(); *p; p++)
        if (!strcmp((*p)->name, name)) return *p;
    return NULL;
}

/* The numbers every test asks for through section_number (the derived analyses' view). */
static const char *const NUMBERS[][2] = {
    {"npu_ops", "ops"}, {"npu_ops", "signatures"}, {"npu_ops", "total_us"}, {"npu_ops", "reference.signatures"},
    {"npu_ops", "missing_reference"}, {"npu_hotspots", "count"}, {"npu_hotspots", "worst_off_by"},
    {"aie_cores", "cores"}, {"aie_cores", "kernels"}, {"aie_aggregate", "runtime_cycles"},
    {"aie_aggregate", "gmacs_avg"}, {"aie_aggregate", "gmacs_best"}, {"aie_aggregate", "gmacs_worst"},
    {"aie_aggregate", "perf_iterations"}, {"aie_aggregate", "peak_gmacs"}, {"aie_aggregate", "efficiency_pct"},
    {"npu_ops", "no.such.path"}};

void run_doc(const input *in, size_t n, doc *d) {
    fan f = {0};
    void *run[N_KEYS];
    analysis_config cfg = {.run_dir = "."};
    diag_init(&d->diag);
    for (int i = 0; i < N_KEYS; i++) {
        f.an[i] = section_analysis_named(KEYS[i]);
        ck_assert_ptr_nonnull(f.an[i]);
        run[i] = f.an[i]->open(&cfg, &d->diag);
    }
    for (size_t k = 0; k < n; k++) {
        const artefact_parser *p = format_named(in[k].format);
        ck_assert_ptr_nonnull(p);
        source_ref ref = {.index = k, .path = in[k].label, .format = p->name, .rank = -1, .kernels_chosen = true};
        for (int i = 0; i < N_KEYS; i++) f.src[i] = f.an[i]->wants ? f.an[i]->open_source(run[i], &ref) : NULL;
        record_sink sink = {.emit = fan_emit, .user = &f, .fields = ~0u};
        parse_options opt = {0};
        read_facts facts = {0};
        void *st = p->open_records(&opt, in[k].label, &sink, &facts, &d->diag);
        ck_assert_ptr_nonnull(st);
        size_t len = strlen(in[k].text);
        for (size_t off = 0; off < len; off += 7)          /* small chunks: any split must work */
            p->feed(st, (const uint8_t *)in[k].text + off, len - off < 7 ? len - off : 7);
        p->finish(st);
        p->close(st);
        read_facts_free(&facts);
        for (int i = 0; i < N_KEYS; i++)
            if (f.src[i]) ck_assert(f.an[i]->end_source(run[i], f.src[i]));
    }
    /* the registry gives each analysis the ones before it; here: our four, in order */
    section_results done = {f.an, run, 0};
    strbuf js = {0}, md = {0};
    jw_out w;
    jw_begin(&w, &js, 0);
    jw_object_open(&w);
    for (int i = 0; i < N_KEYS; i++) {
        done.n = (size_t)i;
        ck_assert(f.an[i]->finish(run[i], &done));
        jw_key(&w, KEYS[i]);
        f.an[i]->render(run[i], &w);
        if (f.an[i]->render_md) f.an[i]->render_md(run[i], &md);
    }
    jw_object_close(&w);
    done.n = N_KEYS;
    d->numbers = json_object();
    for (size_t i = 0; i < sizeof NUMBERS / sizeof NUMBERS[0]; i++) {
        double v;
        char name[96];
        snprintf(name, sizeof name, "%s/%s", NUMBERS[i][0], NUMBERS[i][1]);
        if (section_number(&done, NUMBERS[i][0], NUMBERS[i][1], &v)) json_object_set_new(d->numbers, name, json_real(v));
    }
    strbuf_terminate(&js);
    strbuf_terminate(&md);
    json_error_t err;
    d->json = json_loads(js.data, 0, &err);
    ck_assert_msg(d->json != NULL, "bad JSON: %s\n%s", err.text, js.data);
    d->md = md.data;
    for (int i = 0; i < N_KEYS; i++) f.an[i]->close(run[i]);
    strbuf_free(&js);
}

void doc_free(doc *d) {
    json_decref(d->numbers);
    json_decref(d->json);
    free(d->md);
    diag_free(&d->diag);
}

bool warned(const doc *d, const char *needle) {
    for (size_t i = 0; i < d->diag.count; i++)
        if (strstr(d->diag.items[i], needle)) return true;
    return false;
}

double num(json_t *v) {
    ck_assert_msg(json_is_number(v), "not a number");
    return json_number_value(v);
}

bool close_to(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }
