/* section_drive: a minimal run driver for one section analysis (see section_drive.h). */
#include "tests/section_drive.h"

#include <check.h>
#include <string.h>

#include "analyses/section_registry.h"

void drive_open(drive *d, const char *key) {
    memset(d, 0, sizeof *d);
    d->an = section_analysis_named(key);
    ck_assert_msg(d->an != NULL, "no section analysis %s", key);
    diag_init(&d->diag);
    d->cfg = (analysis_config){.kernel_wait_threshold_ns = 50000, .short_kernel_ns = 10000, .run_dir = "."};
    d->run = d->an->open(&d->cfg, &d->diag);
    ck_assert_ptr_nonnull(d->run);
}

void drive_source(drive *d, size_t index, int rank, unsigned piece) {
    source_ref ref = {.index = index, .piece = piece, .path = "test", .format = "test", .rank = rank,
                      .kernels_chosen = true};
    d->src = d->an->open_source(d->run, &ref);
    ck_assert_ptr_nonnull(d->src);
}

void drive_record(drive *d, const record *r) {
    if (d->an->wants & REC_BIT(r->type)) ck_assert(d->an->consume(d->src, r));
}

void drive_end_source(drive *d) {
    ck_assert(d->an->end_source(d->run, d->src));
    d->src = NULL;
}

json_t *drive_finish(drive *d) {
    section_results none = {0};
    ck_assert(d->an->finish(d->run, &none));
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    d->an->render(d->run, &w);
    json_error_t err;
    json_t *j = json_loadb(b.data, b.len, JSON_DECODE_ANY, &err);
    ck_assert_msg(j != NULL, "render is not JSON: %s", err.text);
    strbuf_free(&b);
    return j;
}

void drive_close(drive *d) {
    d->an->close(d->run);
    diag_free(&d->diag);
}

record rec_span(record_type type, const char *name, int64_t start, int64_t end) {
    record r = {.type = type, .has = RF_START | RF_END, .start_ns = start, .end_ns = end};
    r.name = name;
    r.name_len = name ? strlen(name) : 0;
    return r;
}

record rec_meta(const char *key, const char *value) {
    record r = {.type = REC_METADATA, .key = key, .value = value, .value_len = strlen(value)};
    return r;
}
