/* kernels_body: kernel rows as JSON, and the streaming producer (kernels_body.h). */
#include "api/kernels_body.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/kernel_cursor.h"

#define FLUSH_BYTES (32u * 1024u)

struct kernels_job {
    store *st;
    char id[130];
    kernel_sort sort;
    int limit;
    char source[32], formats[256];
};

void kernels_body_row(jw_out *j, const kernel_row *k) {
    jw_object_open(j);
    jw_key(j, "name");
    jw_string_n(j, k->name, k->name_len);
    jw_key(j, "class");
    if (k->kernel_class) jw_string(j, k->kernel_class); else jw_null(j);
    jw_key(j, "calls");
    jw_int(j, k->calls);
    jw_key(j, "total_ns");
    jw_int(j, k->total_ns);
    jw_key(j, "avg_ns");
    jw_number(j, k->avg_ns);
    jw_key(j, "min_ns");
    jw_int(j, k->min_ns);
    jw_key(j, "max_ns");
    jw_int(j, k->max_ns);
    jw_key(j, "pct_time");
    jw_number(j, k->pct_time);
    jw_key(j, "gemm");
    jw_bool(j, k->gemm);
    jw_key(j, "collective");
    jw_bool(j, k->collective);
    jw_key(j, "generic_gemm");
    jw_bool(j, k->generic_gemm);
    jw_object_close(j);
}

void kernels_body_head(jw_out *j, const char *run_id, const char *source, const char *formats) {
    jw_key(j, "run");
    jw_string(j, run_id);
    jw_key(j, "source");
    if (*source) jw_string(j, source); else jw_null(j);
    jw_key(j, "source_formats");
    jw_array_open(j);
    for (const char *p = formats; *p;) {
        size_t n = strcspn(p, ",");
        jw_string_n(j, p, n);
        p += n + (p[n] == ',');
    }
    jw_array_close(j);
    jw_key(j, "kernels");
}

kernels_job *kernels_job_new(store *st, const char *run_id, kernel_sort sort, int limit, const char *source,
                             const char *formats) {
    kernels_job *job = calloc(1, sizeof *job);
    if (!job) return NULL;
    job->st = st;
    snprintf(job->id, sizeof job->id, "%s", run_id);
    job->sort = sort;
    job->limit = limit;
    snprintf(job->source, sizeof job->source, "%s", source);
    snprintf(job->formats, sizeof job->formats, "%s", formats);
    return job;
}

void kernels_job_free(void *job) { free(job); }

/* Hands what is written so far to the stream; false once the stream is cancelled. */
/* Sends the text buffered so far; one that lost bytes for lack of memory is never sent (a row
 * with a part missing would look whole): the body is broken off instead. */
static bool flush(body_stream *s, strbuf *out) {
    bool ok = !out->failed && body_stream_write(s, out->data ? out->data : "", out->len);
    out->len = 0;
    return ok;
}

bool kernels_body_produce(body_stream *s, void *arg) {
    kernels_job *job = arg;
    char err[256];
    kernel_cursor *k = kernel_cursor_open(job->st, job->id, job->sort, job->limit, body_stream_cancel_flag(s), err,
                                          sizeof err);
    if (!k) return false;
    strbuf out = {0};
    jw_out j;
    jw_begin(&j, &out, 0);
    jw_object_open(&j);
    kernels_body_head(&j, job->id, job->source, job->formats);
    jw_array_open(&j);
    kernel_row row;
    int rc;
    bool ok = true;
    while (ok && (rc = kernel_cursor_next(k, &row)) == 1) {
        kernels_body_row(&j, &row);
        if (out.len >= FLUSH_BYTES) ok = flush(s, &out);
    }
    kernel_cursor_close(k);
    if (ok && rc == 0) {
        jw_array_close(&j);
        jw_object_close(&j);
        ok = flush(s, &out);
    } else {
        ok = false;                                 /* an error or a cancel part way: broken off */
    }
    strbuf_free(&out);
    return ok;
}
