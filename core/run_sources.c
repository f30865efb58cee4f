/* run_sources: the "sources" section of the analysis document and report.md's sources table,
 * from what each of the driver's jobs read (see run_job.h). */
#include <stdio.h>

#include "analyses/section_md.h"
#include "core/run_job.h"

static const char *const TYPE_KEYS[] = {
    "kernel_dispatch", "memory_copy", "api_call", "annotation", "cpu_op", "telemetry_sample", "metadata",
    "memset", "allocation", "counter", "kernel_stats", "npu_op", "aie_event", "trace_event"};
_Static_assert(sizeof TYPE_KEYS / sizeof *TYPE_KEYS == REC_TYPE_COUNT, "TYPE_KEYS: one entry per value below REC_TYPE_COUNT");

void run_sources_render(const run_inventory *inv, const source_ref *refs, job *jobs, jw_out *w) {
    jw_array_open(w);
    for (size_t i = 0; i < inv->n; i++) {
        const inventory_source *s = &inv->src[i];
        job *j = &jobs[i];
        jw_object_open(w);
        jw_key(w, "path"); jw_string(w, s->rel);
        jw_key(w, "format"); jw_string(w, s->format->name);
        jw_key(w, "found_by"); jw_string(w, s->found_by);
        jw_key(w, "sniff_score"); jw_int(w, s->sniff_score);
        jw_key(w, "rank"); if (refs[i].rank >= 0) jw_int(w, refs[i].rank); else jw_null(w);
        jw_key(w, "size_bytes"); jw_int(w, (int64_t)s->size);
        jw_key(w, "read"); jw_bool(w, j->stats.present);
        jw_key(w, "bytes_read"); jw_int(w, (int64_t)j->stats.bytes_read);
        jw_key(w, "parse_ms"); jw_number(w, j->stats.parse_ms);
        jw_key(w, "pieces"); jw_int(w, j->split ? 2 : 1);
        jw_key(w, "device_clock"); jw_bool(w, s->device_clock);
        jw_key(w, "kernels_chosen"); jw_bool(w, refs[i].kernels_chosen);
        jw_key(w, "records");
        jw_object_open(w);
        for (int t = 0; t < REC_TYPE_COUNT; t++)
            if (j->counts[t]) { jw_key(w, TYPE_KEYS[t]); jw_int(w, (int64_t)j->counts[t]); }
        jw_object_close(w);
        jw_key(w, "records_not_delivered"); jw_int(w, (int64_t)j->dropped_kernels);
        jw_key(w, "rows_used"); jw_int(w, (int64_t)j->facts.rows_used);
        jw_key(w, "skipped");
        jw_object_open(w);
        for (size_t k = 0; k < j->facts.n_skips; k++) { jw_key(w, j->facts.skipped[k].reason); jw_int(w, (int64_t)j->facts.skipped[k].rows); }
        jw_object_close(w);
        jw_key(w, "truncated"); jw_bool(w, j->facts.truncated);
        jw_key(w, "unrecognised"); jw_bool(w, false);
        jw_key(w, "warnings");
        jw_array_open(w);
        for (size_t k = 0; k < j->diag.count; k++) jw_string(w, j->diag.items[k]);
        jw_array_close(w);
        jw_object_close(w);
    }
    for (size_t i = 0; i < inv->n_unrec; i++) {     /* no format reads it: listed, not read */
        const inventory_unrecognised *u = &inv->unrec[i];
        jw_object_open(w);
        jw_key(w, "path"); jw_string(w, u->rel);
        jw_key(w, "format"); jw_null(w);
        jw_key(w, "found_by"); jw_null(w);
        jw_key(w, "sniff_score"); jw_null(w);
        jw_key(w, "rank"); jw_null(w);
        jw_key(w, "size_bytes"); jw_int(w, (int64_t)u->size);
        jw_key(w, "read"); jw_bool(w, false);
        jw_key(w, "bytes_read"); jw_int(w, 0);
        jw_key(w, "parse_ms"); jw_null(w);
        jw_key(w, "pieces"); jw_int(w, 0);
        jw_key(w, "device_clock"); jw_bool(w, false);
        jw_key(w, "kernels_chosen"); jw_bool(w, false);
        jw_key(w, "records"); jw_object_open(w); jw_object_close(w);
        jw_key(w, "records_not_delivered"); jw_int(w, 0);
        jw_key(w, "rows_used"); jw_int(w, 0);
        jw_key(w, "skipped"); jw_object_open(w); jw_object_close(w);
        jw_key(w, "truncated"); jw_bool(w, false);
        jw_key(w, "unrecognised"); jw_bool(w, true);
        jw_key(w, "warnings"); jw_array_open(w); jw_string(w, u->why); jw_array_close(w);
        jw_object_close(w);
    }
    jw_array_close(w);
}

void run_sources_md(const run_inventory *inv, const source_ref *refs, job *jobs, const analysis_config *cfg, strbuf *md) {
    static const char head[] = "## Sources\n\n| file | format | records | kernels chosen | warnings |\n|---|---|---|---|---|\n";
    strbuf_append(md, head, sizeof head - 1);
    size_t listed = section_listed(cfg, inv->n);
    for (size_t i = 0; i < listed; i++) {
        uint64_t total = 0;
        for (int t = 0; t < REC_TYPE_COUNT; t++) total += jobs[i].counts[t];
        strbuf_append(md, "| ", 2);
        smd_text(md, inv->src[i].rel);                 /* a file name: anything but '/' and NUL */
        smd_printf(md, " | %s | %llu | %s | %zu |\n", inv->src[i].format->name, (unsigned long long)total,
                   refs[i].kernels_chosen ? "yes" : "no", jobs[i].diag.count);
    }
    for (size_t i = 0; i < inv->n_unrec; i++) {
        strbuf_append(md, "| ", 2);
        smd_text(md, inv->unrec[i].rel);
        smd_printf(md, " | (unrecognised: not read) | 0 | no | 1 |\n");
    }
    if (!inv->n && !inv->n_unrec) { static const char none[] = "| (no file any format reads) | | | | |\n"; strbuf_append(md, none, sizeof none - 1); }
    if (listed < inv->n) smd_printf(md, "\n%zu more files (the analysis document's `sources` lists them all).\n", inv->n - listed);
    strbuf_putc(md, '\n');
}
