/* kernel_export: the two reads of the per-kernel export and its CSV / JSON-lines text (see
 * kernel_export.h). */
#include "core/kernel_export.h"
#include "base/clock.h"
#include "core/source_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyses/kernel_rows.h"
#include "analyses/sections/layers.h"
#include "base/json_writer.h"

#define FLUSH_BYTES ((size_t)64 << 10)   /* output is handed to the sink in pieces of about this */

typedef struct writer {
    kexport_format fmt;
    kexport_write_fn w;
    void *user;
    strbuf buf;
    bool failed;
} writer;

/* Sends the rows buffered so far; a buffer that lost bytes for lack of memory is never sent
 * (a row with a field missing would look whole): the export fails. */
static bool flush(writer *o) {
    if (o->buf.failed) o->failed = true;
    if (!o->failed && o->buf.len && !o->w(o->user, o->buf.data, o->buf.len)) o->failed = true;
    o->buf.len = 0;
    return !o->failed;
}

static void put_str(strbuf *b, const char *s) { strbuf_append(b, s, strlen(s)); }

static void put_int(strbuf *b, bool has, int64_t v) {
    char t[24];
    if (has) strbuf_append(b, t, (size_t)snprintf(t, sizeof t, "%" PRId64, v));
}

/* A CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break). */
static void put_csv(strbuf *b, const char *s, size_t n) {
    if (!s) return;
    if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\n', n) && !memchr(s, '\r', n)) {
        strbuf_append(b, s, n);
        return;
    }
    strbuf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') strbuf_putc(b, '"');
        strbuf_putc(b, s[i]);
    }
    strbuf_putc(b, '"');
}

static void csv_row(strbuf *b, const krow *k) {
    put_int(b, k->has_start, k->start_ns), strbuf_putc(b, ',');
    put_int(b, k->has_end, k->end_ns), strbuf_putc(b, ',');
    put_int(b, k->has_device, k->device), strbuf_putc(b, ',');
    put_int(b, k->has_stream, k->stream), strbuf_putc(b, ',');
    put_int(b, k->rank >= 0, k->rank), strbuf_putc(b, ',');
    put_csv(b, k->name, k->name_len), strbuf_putc(b, ',');
    put_str(b, k->cls), strbuf_putc(b, ',');
    put_str(b, k->phase), strbuf_putc(b, ',');
    put_int(b, k->layer >= 0, k->layer), strbuf_putc(b, ',');
    put_csv(b, k->cpu_op, k->cpu_op_len), strbuf_putc(b, ',');
    put_csv(b, k->python_frame, k->python_frame_len), strbuf_putc(b, ',');
    put_int(b, true, k->duration_ns), strbuf_putc(b, ',');
    if (k->owner) put_str(b, k->owner);
    strbuf_putc(b, '\n');
}

static void jint(jw_out *j, const char *key, bool has, int64_t v) {
    jw_key(j, key);
    if (has) jw_int(j, v);
    else jw_null(j);
}

static void jstr(jw_out *j, const char *key, const char *s, size_t n) {
    jw_key(j, key);
    if (s) jw_string_n(j, s, n);
    else jw_null(j);
}

/* One JSON object a line, the CSV's columns as keys, null for an empty cell. */
static void jsonl_row(strbuf *b, const krow *k) {
    jw_out j;
    jw_begin(&j, b, 0);
    jw_object_open(&j);
    jint(&j, "start_ns", k->has_start, k->start_ns);
    jint(&j, "end_ns", k->has_end, k->end_ns);
    jint(&j, "device", k->has_device, k->device);
    jint(&j, "stream", k->has_stream, k->stream);
    jint(&j, "rank", k->rank >= 0, k->rank);
    jstr(&j, "name", k->name, k->name_len);
    jstr(&j, "class", k->cls, strlen(k->cls));
    jstr(&j, "phase", k->phase, strlen(k->phase));
    jint(&j, "layer", k->layer >= 0, k->layer);
    jstr(&j, "cpu_op", k->cpu_op, k->cpu_op_len);
    jstr(&j, "python_frame", k->python_frame, k->python_frame_len);
    jint(&j, "duration_ns", true, k->duration_ns);
    jstr(&j, "owner", k->owner, k->owner ? strlen(k->owner) : 0);
    jw_object_close(&j);
    strbuf_putc(b, '\n');
}

static bool take_row(void *user, const krow *k) {
    writer *o = user;
    if (o->fmt == KEXPORT_CSV) csv_row(&o->buf, k);
    else jsonl_row(&o->buf, k);
    return o->buf.len < FLUSH_BYTES || flush(o);
}

bool kernel_export(const char *run_dir, const run_analysis_options *opt, kexport_format fmt, bool host,
                   kexport_write_fn w, void *user, kexport_result *res, diag_list *diag) {
    memset(res, 0, sizeof *res);
    size_t first = diag->count;
    writer o = {.fmt = fmt, .w = w, .user = user};
    kernel_rows_ctx *ctx = kernel_rows_new(take_row, &o);
    if (!ctx) return false;
    run_analysis_options p = *opt;
    p.cfg.kernel_rows = ctx;
    p.tap = NULL;
    /* pass 1: the labelling tables (layers first: the labels take its finished layers); it
     * writes nothing to w, so a max_seconds without a deadline starts its clock here (pass 2
     * writes as it reads: a slow reader of w is not a slow parse, so it has none) */
    const section_analysis *const labels[] = {&layers_analysis, &kernel_labels_analysis, NULL};
    p.sections = labels;
    parse_limits lim1, lim2;
    if (opt->parse.limits) {
        lim1 = lim2 = *opt->parse.limits;
        if (lim1.max_seconds && !lim1.deadline_ms) lim1.deadline_ms = clk_mono_ms() + lim1.max_seconds * 1000LL;
        p.parse.limits = &lim1;
    }
    run_analysis a;
    bool ok = run_analyze(run_dir, &p, &a);
    if (ok) {
        diag_append(diag, &a.diag);
        run_analysis_free(&a);
    }
    /* pass 2: the rows, one source at a time so that they come in file order */
    const section_analysis *const rows[] = {host ? &kernel_rows_host_analysis : &kernel_rows_analysis, NULL};
    p.sections = rows;
    p.threads = 1;
    if (opt->parse.limits) p.parse.limits = &lim2;
    if (ok && fmt == KEXPORT_CSV) put_str(&o.buf, KERNEL_EXPORT_HEADER "\n");
    if (ok && (ok = run_analyze(run_dir, &p, &a))) {
        diag_append(diag, &a.diag);      /* (a bound or cancel in this pass too: the caller's to see) */
        run_analysis_free(&a);
    }
    if (ok) flush(&o);
    res->rows = kernel_rows_written(ctx);
    res->labels_dropped = kernel_rows_dropped(ctx);
    res->write_failed = o.failed || kernel_rows_write_failed(ctx);
    res->cut = source_read_stop_warned(diag, first);
    if (res->labels_dropped)
        diag_add(diag, "export: %llu entries of the labelling tables were past their bounds; their labels are absent",
                 (unsigned long long)res->labels_dropped);
    kernel_rows_free(ctx);
    strbuf_free(&o.buf);
    return ok && !res->write_failed;
}
