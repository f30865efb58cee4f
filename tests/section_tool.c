/* section_tool: runs formats and every registered section analysis over files, without the
 * run driver, and prints the analysis document. For unit-level tests of a format or an
 * analysis (tests compare its output with an independent computation in Python):
 *
 *   section_tool FORMAT=FILE [FORMAT=FILE ...]
 *   section_tool --records FORMAT=FILE ...   one JSON line per record instead (every field
 *                                            asked for; only fields whose RF_ bit is set)
 *   section_tool --max-parse-s N ...         (first) the daemon's parse deadline on every read
 *
 * Each FILE is one source (in argument order) read whole by the named format (a `.gz`
 * file is inflated first; a format with read_fd gets the opened file). Every source's kernels
 * are delivered (no source choice: that is the driver's). Warnings go to stderr. */
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section_registry.h"
#include "parsers/tokenizers/gunzip.h"
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

static const char *const TYPE_NAMES[] = {
    "kernel_dispatch", "memory_copy", "api_call", "annotation", "cpu_op", "telemetry_sample", "metadata",
    "memset", "allocation", "counter", "kernel_stats", "npu_op", "aie_event", "trace_event"};
_Static_assert(sizeof TYPE_NAMES / sizeof *TYPE_NAMES == REC_TYPE_COUNT, "TYPE_NAMES: one entry per value below REC_TYPE_COUNT");

static void jw_i128(jw_out *w, const char *key, i128 v) {
    jw_key(w, key);
    if (v >= (i128)INT64_MIN && v <= (i128)INT64_MAX) jw_int(w, (int64_t)v);
    else jw_number(w, (double)v);
}

/* One record as one compact JSON line (the --records mode). */
static bool dump_record(void *user, const record *r) {
    (void)user;
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    jw_object_open(&w);
    jw_key(&w, "type");
    jw_string(&w, (unsigned)r->type < REC_TYPE_COUNT ? TYPE_NAMES[r->type] : "?");
    jw_key(&w, "line");
    jw_int(&w, (int64_t)r->line);
    if (r->name) { jw_key(&w, "name"); jw_string_n(&w, r->name, r->name_len); }
    if (r->key) { jw_key(&w, "key"); jw_string(&w, r->key); }
    if (r->value) { jw_key(&w, "value"); jw_string_n(&w, r->value, r->value_len); }
    if (r->category) { jw_key(&w, "category"); jw_string_n(&w, r->category, r->category_len); }
    if (r->track) { jw_key(&w, "track"); jw_string_n(&w, r->track, r->track_len); }
    if (r->args) { jw_key(&w, "args"); jw_string_n(&w, r->args, r->args_len); }
    if (r->phase) { char ph[2] = {r->phase, 0}; jw_key(&w, "phase"); jw_string(&w, ph); }
    if (r->type == REC_MEMORY_COPY) { jw_key(&w, "copy"); jw_int(&w, r->copy); }
    if (r->type == REC_API_CALL) { jw_key(&w, "domain"); jw_int(&w, r->domain); }
    if (r->has & RF_DEVICE) { jw_key(&w, "device"); jw_int(&w, r->device); }
    if (r->has & RF_STREAM) { jw_key(&w, "stream"); jw_int(&w, r->stream); }
    if (r->has & RF_START) jw_i128(&w, "start_ns", r->start_ns);
    if (r->has & RF_END) jw_i128(&w, "end_ns", r->end_ns);
    if (r->has & RF_DURATION) jw_i128(&w, "duration_ns", r->duration_ns);
    if (r->has & RF_CORRELATION) { jw_key(&w, "correlation_id"); jw_u64(&w, r->correlation_id); }
    if (r->has & RF_BYTES) { jw_key(&w, "bytes"); jw_u64(&w, r->bytes); }
    if (r->has & RF_ADDRESS) {   /* exact, above 2^63 too (only Python reads this dump) */
        char a[24];
        int n = snprintf(a, sizeof a, "%llu", (unsigned long long)r->address);
        jw_key(&w, "address");
        jw_json(&w, a, (size_t)n);
    }
    if (r->has & RF_VRAM) { jw_key(&w, "vram_gib"); jw_number(&w, r->vram_gib); }
    if (r->has & RF_UTIL) { jw_key(&w, "util_pct"); jw_number(&w, r->util_pct); }
    if (r->has & RF_PID_TID) { jw_key(&w, "pid"); jw_int(&w, r->pid); jw_key(&w, "tid"); jw_int(&w, r->tid); }
    if (r->has & RF_PEER) { jw_key(&w, "peer_device"); jw_int(&w, r->peer_device); }
    if (r->has & RF_EXTERNAL) { jw_key(&w, "external_id"); jw_u64(&w, r->external_id); }
    if (r->has & RF_GRID) {
        jw_key(&w, "grid");
        jw_array_open(&w);
        for (int i = 0; i < 3; i++) jw_int(&w, r->grid[i]);
        jw_array_close(&w);
        jw_key(&w, "workgroup");
        jw_array_open(&w);
        for (int i = 0; i < 3; i++) jw_int(&w, r->workgroup[i]);
        jw_array_close(&w);
    }
    if (r->has & RF_RESOURCES) {
        jw_key(&w, "lds_bytes"); jw_int(&w, r->lds_bytes);
        jw_key(&w, "scratch_bytes"); jw_int(&w, r->scratch_bytes);
        jw_key(&w, "vgpr"); jw_int(&w, r->vgpr);
        jw_key(&w, "sgpr"); jw_int(&w, r->sgpr);
    }
    if (r->has & RF_POWER) { jw_key(&w, "power_w"); jw_number(&w, r->power_w); }
    if (r->has & RF_TEMP) { jw_key(&w, "temp_c"); jw_number(&w, r->temp_c); }
    if (r->has & RF_VRAM_BYTES) { jw_key(&w, "vram_used_bytes"); jw_u64(&w, r->vram_used_bytes); }
    if (r->has & RF_VRAM_TOTAL) { jw_key(&w, "vram_total_bytes"); jw_u64(&w, r->vram_total_bytes); }
    if (r->has & RF_VALUE) { jw_key(&w, "number"); jw_number(&w, r->number); }
    if (r->has & RF_CALLS) {
        jw_key(&w, "calls"); jw_u64(&w, r->calls);
        jw_i128(&w, "min_ns", r->min_ns);
        jw_i128(&w, "max_ns", r->max_ns);
    }
    if (r->has & RF_US_FLOAT) { jw_key(&w, "ts_us"); jw_number(&w, r->ts_us); jw_key(&w, "dur_us"); jw_number(&w, r->dur_us); }
    if (r->has & RF_CYCLES) jw_i128(&w, "cycles", r->cycles);
    if (r->n_fields) {
        jw_key(&w, "fields");
        jw_object_open(&w);
        for (size_t i = 0; i < r->n_fields; i++) {
            jw_key(&w, r->fields[i].key);
            jw_string_n(&w, r->fields[i].value, r->fields[i].value_len);
        }
        jw_object_close(&w);
    }
    jw_object_close(&w);
    fwrite(b.data, 1, b.len, stdout);
    fputc('\n', stdout);
    strbuf_free(&b);
    return true;
}

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
static int read_source(const artefact_parser *p, const char *path, const record_sink *sink, diag_list *diag,
                       const parse_limits *lim) {
    parse_options opt = {.limits = lim};
    read_facts facts = {0};
    void *st = p->open_records(&opt, path, sink, &facts, diag);
    if (!st) return 1;
    if (p->read_fd) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) { perror(path); p->close(st); return 1; }
        p->read_fd(st, fd, path);
        close(fd);
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
    parse_limits lim = {0};
    if (argc > 2 && !strcmp(argv[1], "--max-parse-s")) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        lim.max_seconds = atoi(argv[2]);
        lim.deadline_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + lim.max_seconds * 1000LL;
        argv += 2, argc -= 2;
    }
    if (argc > 1 && !strcmp(argv[1], "--records")) {
        for (int a = 2; a < argc; a++) {
            char *eq = strchr(argv[a], '=');
            const artefact_parser *p = eq ? (*eq = 0, format_named(argv[a])) : NULL;
            if (!p || !p->open_records) { fprintf(stderr, "usage: section_tool --records FORMAT=FILE ...\n"); return 2; }
            record_sink sink = {.emit = dump_record, .user = NULL, .fields = ~0u};
            rc |= read_source(p, eq + 1, &sink, &diag, &lim);
        }
        for (size_t i = 0; i < diag.count; i++) fprintf(stderr, "warning: %s\n", diag.items[i]);
        for (size_t i = 0; i < n_an; i++) an[i]->close(run[i]);
        diag_free(&diag);
        free(run);
        free(src);
        return rc;
    }
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
        rc |= read_source(p, eq + 1, &sink, &diag, &lim);
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
