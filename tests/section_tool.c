/* section_tool: runs formats and every registered section analysis over files, without the
 * run driver, and prints the analysis document. For unit-level tests of a format or an
 * analysis (tests compare its output with an independent computation in Python):
 *
 *   section_tool FORMAT=FILE [FORMAT=FILE ...]
 *
 * Each FILE is one source (in argument order) read whole by the named format (a `.gz`
 * file is inflated first; a format with read_path gets the path). Every source's kernels
 * are delivered (no source choice: that is the driver's). Warnings go to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/section_registry.h"
#include "parsers/gunzip.h"
#include "parsers/parser_registry.h"

typedef struct fanout {
    const section_analysis *const *an;
    void **src;
} fanout;

static bool fan_emit(void *user, const record *r) {
    fanout *f = user;
    for (size_t i = 0; f->an[i]; i++)
        if (f->src[i] && (f->an[i]->wants & REC_BIT(r->type)) && !f->an[i]->consume(f->src[i], r)) return false;
    return true;
}

typedef struct feed_ctx {
    const artefact_parser *p;
    void *st;
} feed_ctx;

static bool feed_inflated(void *user, const uint8_t *buf, size_t n) {
    feed_ctx *c = user;
    return c->p->feed(c->st, buf, n);
}

static const artefact_parser *format_named(const char *name) {
    for (const artefact_parser *const *p = parser_list(); *p; p++)
        if (!strcmp((*p)->name, name)) return *p;
    return NULL;
}

/* Reads one source through format p into the analyses' source states. */
static int read_source(const artefact_parser *p, const char *path, const record_sink *sink, diag_list *diag) {
    parse_options opt = {0};
    read_facts facts = {0};
    void *st = p->open_records(&opt, path, sink, &facts, diag);
    if (!st) return 1;
    if (p->read_path) {
        p->read_path(st, path);
    } else {
        FILE *fp = fopen(path, "rb");
        if (!fp) { perror(path); p->close(st); return 1; }
        size_t len = strlen(path);
        bool gz = len > 3 && !strcmp(path + len - 3, ".gz");
        feed_ctx ctx = {p, st};
        gunzip *g = gz ? gunzip_new(feed_inflated, &ctx) : NULL;
        uint8_t buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
            if (g ? !gunzip_feed(g, buf, n) : !p->feed(st, buf, n)) break;
        }
        if (g) { if (!gunzip_finish(g)) fprintf(stderr, "%s: %s\n", path, gunzip_error(g)); gunzip_free(g); }
        fclose(fp);
    }
    p->finish(st);
    p->close(st);
    read_facts_free(&facts);
    return 0;
}

int main(int argc, char **argv) {
    const section_analysis *const *an = section_analyses();
    size_t n_an = 0;
    while (an[n_an]) n_an++;
    analysis_config cfg = {.kernel_wait_threshold_ns = 50000, .short_kernel_ns = 10000, .run_dir = "."};
    diag_list diag;
    diag_init(&diag);
    void **run = calloc(n_an + 1, sizeof *run), **src = calloc(n_an + 1, sizeof *src);
    for (size_t i = 0; i < n_an; i++) run[i] = an[i]->open(&cfg, &diag);
    int rc = 0;
    for (int a = 1; a < argc; a++) {
        char *eq = strchr(argv[a], '=');
        if (!eq) { fprintf(stderr, "usage: section_tool FORMAT=FILE ...\n"); return 2; }
        *eq = 0;
        const artefact_parser *p = format_named(argv[a]);
        if (!p || !p->open_records) { fprintf(stderr, "no record format %s\n", argv[a]); return 2; }
        source_ref ref = {.index = (size_t)(a - 1), .path = eq + 1, .format = p->name, .rank = -1,
                          .kernels_chosen = true};
        unsigned fields = 0;
        for (size_t i = 0; i < n_an; i++) {
            src[i] = an[i]->wants ? an[i]->open_source(run[i], &ref) : NULL;
            fields |= an[i]->fields;
        }
        fanout f = {an, src};
        record_sink sink = {.emit = fan_emit, .user = &f, .fields = fields};
        rc |= read_source(p, eq + 1, &sink, &diag);
        for (size_t i = 0; i < n_an; i++)
            if (src[i]) an[i]->end_source(run[i], src[i]);
    }
    section_results done = {an, run, 0};
    strbuf out;
    strbuf out_init = {0};
    out = out_init;
    jw_out w;
    jw_begin(&w, &out, 2);
    jw_object_open(&w);
    for (size_t i = 0; i < n_an; i++) {
        done.n = i;
        an[i]->finish(run[i], &done);
        jw_key(&w, an[i]->key);
        an[i]->render(run[i], &w);
    }
    jw_object_close(&w);
    fwrite(out.data, 1, out.len, stdout);
    fputc('\n', stdout);
    for (size_t i = 0; i < diag.count; i++) fprintf(stderr, "warning: %s\n", diag.items[i]);
    for (size_t i = 0; i < n_an; i++) an[i]->close(run[i]);
    strbuf_free(&out);
    diag_free(&diag);
    free(run);
    free(src);
    return rc;
}
