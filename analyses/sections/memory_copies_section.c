/* memory_copies_section: the `memory_copies` section: per copy direction (HtoD, DtoH, DtoD,
 * PtoP, HtoH, unknown), calls, bytes, time and achieved bandwidth — the rows of rocprofv3's
 * memory_copy stats and nsys cuda_gpu_mem_time_sum / cuda_gpu_mem_size_sum, by direction.
 *
 * Inputs: REC_MEMORY_COPY (bytes, duration_ns else end - start). Bandwidth is bytes / ns =
 * decimal GB/s, over the copies that carry both bytes and a time; null when that time is 0.
 * When the run has no copy record, stats rows (REC_KERNEL_STATS category "memory_copy")
 * fill the table by the direction their name says, without bytes.
 * Integer sums only: splittable. docs/ANALYSIS.md. */
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section.h"
#include "analyses/section_md.h"
#include "parsers/tokenizers/copy_kind.h"

#define N_DIR 6

typedef struct dir_agg {
    uint64_t calls;
    uint64_t with_bytes, with_time;   /* copies carrying bytes, a time */
    unsigned __int128 bytes;
    i128 time_ns;
    unsigned __int128 bw_bytes;       /* over copies with both */
    i128 bw_ns;
} dir_agg;

typedef struct copies_state {
    dir_agg d[N_DIR];
    dir_agg st[N_DIR];                /* from stats rows: used only when no copy record came */
    bool from_stats;                  /* after finish: d[] holds st[] */
} copies_state;

/* Indexed by copy_kind. */
static const char *const DIR_KEY[N_DIR] = {"unknown", "HtoD", "DtoH", "DtoD", "PtoP", "HtoH"};
static const int RENDER_ORDER[N_DIR] = {COPY_HTOD, COPY_DTOH, COPY_DTOD, COPY_PTOP, COPY_HTOH, COPY_UNKNOWN};

static void *c_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg, (void)diag;
    return calloc(1, sizeof(copies_state));
}

static void *c_open_source(void *run, const source_ref *src) {
    (void)run, (void)src;
    return calloc(1, sizeof(copies_state));
}

static bool c_consume(void *st, const record *r) {
    copies_state *s = st;
    if (r->type == REC_KERNEL_STATS) {
        na_stats_row row;
        if (!r->category || r->category_len != 11 || memcmp(r->category, "memory_copy", 11) || !r->name ||
            !na_stats_row_of(r, &row))
            return true;
        dir_agg *d = &s->st[copy_kind_of_name(r->name, r->name_len)];
        d->calls += row.calls;
        d->with_time += row.calls;
        d->time_ns = i128_add(d->time_ns, row.total);
        return true;
    }
    unsigned k = (unsigned)r->copy < N_DIR ? (unsigned)r->copy : COPY_UNKNOWN;
    dir_agg *d = &s->d[k];
    d->calls++;
    i128 t = 0;
    bool has_time = record_duration(r, &t);
    if (has_time) d->with_time++, d->time_ns = i128_add(d->time_ns, t);
    if (r->has & RF_BYTES) d->with_bytes++, d->bytes += r->bytes;
    if (has_time && (r->has & RF_BYTES)) d->bw_bytes += r->bytes, d->bw_ns = i128_add(d->bw_ns, t);
    return true;
}

static bool c_end_source(void *run, void *src) {
    copies_state *r = run, *s = src;
    for (int i = 0; i < 2 * N_DIR; i++) {
        dir_agg *a = i < N_DIR ? &r->d[i] : &r->st[i - N_DIR], *b = i < N_DIR ? &s->d[i] : &s->st[i - N_DIR];
        a->calls += b->calls;
        a->with_bytes += b->with_bytes;
        a->with_time += b->with_time;
        a->bytes += b->bytes;
        a->time_ns = i128_add(a->time_ns, b->time_ns);
        a->bw_bytes += b->bw_bytes;
        a->bw_ns = i128_add(a->bw_ns, b->bw_ns);
    }
    free(s);
    return true;
}

/* No copy record but stats rows: the table comes from the stats rows (no bytes). */
static bool c_finish(void *run, const section_results *earlier) {
    (void)earlier;
    copies_state *s = run;
    uint64_t copies = 0;
    for (int i = 0; i < N_DIR; i++) copies += s->d[i].calls;
    s->from_stats = !copies;
    if (s->from_stats) memcpy(s->d, s->st, sizeof s->d);
    return true;
}

static void u128_value(jw_out *w, unsigned __int128 v) {
    if (v <= (unsigned __int128)INT64_MAX) jw_int(w, (int64_t)v);
    else jw_number(w, (double)v);
}

/* The sums over every direction. */
static dir_agg total_of(const copies_state *s) {
    dir_agg t = {0};
    for (int i = 0; i < N_DIR; i++) {
        t.calls += s->d[i].calls;
        t.with_bytes += s->d[i].with_bytes;
        t.with_time += s->d[i].with_time;
        t.bytes += s->d[i].bytes;
        t.time_ns = i128_add(t.time_ns, s->d[i].time_ns);
        t.bw_bytes += s->d[i].bw_bytes;
        t.bw_ns = i128_add(t.bw_ns, s->d[i].bw_ns);
    }
    return t;
}

static void render_dir(jw_out *w, const dir_agg *d) {
    jw_object_open(w);
    jw_key(w, "calls");
    jw_u64(w, d->calls);
    jw_key(w, "bytes");
    if (d->with_bytes) u128_value(w, d->bytes); else jw_null(w);
    jw_key(w, "time_ns");
    if (d->with_time) jw_i128_value(w, d->time_ns); else jw_null(w);
    jw_key(w, "gbps");
    if (d->bw_ns > 0) jw_number(w, (double)d->bw_bytes / (double)d->bw_ns); else jw_null(w);
    jw_object_close(w);
}

static void c_render(const void *run, jw_out *w) {
    const copies_state *s = run;
    dir_agg t = total_of(s);
    if (!t.calls) { jw_null(w); return; }
    jw_object_open(w);
    jw_key(w, "from");
    jw_string(w, s->from_stats ? "stats" : "copies");
    jw_key(w, "total");
    render_dir(w, &t);
    jw_key(w, "by_direction");
    jw_object_open(w);
    for (int i = 0; i < N_DIR; i++) {
        int k = RENDER_ORDER[i];
        if (!s->d[k].calls) continue;
        jw_key(w, DIR_KEY[k]);
        render_dir(w, &s->d[k]);
    }
    jw_object_close(w);
    jw_object_close(w);
}

static void md_row(strbuf *out, const char *key, const dir_agg *d) {
    smd_printf(out, "| %s | %llu |", key, (unsigned long long)d->calls);
    smd_num(out, (double)d->bytes / 1e6, 3, d->with_bytes > 0);
    smd_num(out, (double)d->time_ns / 1e6, 3, d->with_time > 0);
    smd_num(out, d->bw_ns > 0 ? (double)d->bw_bytes / (double)d->bw_ns : 0, 2, d->bw_ns > 0);
    strbuf_putc(out, '\n');
}

/* The report's copy table: one row per direction and the total (MB = 10^6 bytes). */
static void c_render_md(const void *run, strbuf *out) {
    const copies_state *s = run;
    dir_agg t = total_of(s);
    if (!t.calls) return;
    smd_printf(out, "## Memory copies\n\n| direction | calls | MB | time (ms) | GB/s |\n|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < N_DIR; i++)
        if (s->d[RENDER_ORDER[i]].calls) md_row(out, DIR_KEY[RENDER_ORDER[i]], &s->d[RENDER_ORDER[i]]);
    md_row(out, "total", &t);
    strbuf_putc(out, '\n');
}

/* One field of a direction's row. */
static bool dir_number(const dir_agg *d, const char *field, double *out) {
    if (!strcmp(field, "calls")) *out = (double)d->calls;
    else if (!strcmp(field, "bytes") && d->with_bytes) *out = (double)d->bytes;
    else if (!strcmp(field, "time_ns") && d->with_time) *out = (double)d->time_ns;
    else if (!strcmp(field, "gbps") && d->bw_ns > 0) *out = (double)d->bw_bytes / (double)d->bw_ns;
    else return false;
    return true;
}

/* "total.<field>" and "by_direction.<HtoD|DtoH|...>.<field>", field = calls, bytes, time_ns, gbps. */
static bool c_number(const void *run, const char *path, double *out) {
    const copies_state *s = run;
    dir_agg t = total_of(s);
    if (!t.calls) return false;
    if (!strncmp(path, "total.", 6)) return dir_number(&t, path + 6, out);
    if (strncmp(path, "by_direction.", 13)) return false;
    path += 13;
    for (int k = 0; k < N_DIR; k++) {
        size_t n = strlen(DIR_KEY[k]);
        if (!strncmp(path, DIR_KEY[k], n) && path[n] == '.')
            return s->d[k].calls && dir_number(&s->d[k], path + n + 1, out);
    }
    return false;
}

static void c_close(void *run) { free(run); }

const section_analysis memory_copies_section = {
    .key = "memory_copies",
    .wants = REC_BIT(REC_MEMORY_COPY) | REC_BIT(REC_KERNEL_STATS),
    .fields = RF_DURATION | RF_START | RF_END | RF_BYTES | RF_CALLS,
    .splittable = true,
    .open = c_open,
    .open_source = c_open_source,
    .consume = c_consume,
    .end_source = c_end_source,
    .finish = c_finish,
    .render = c_render,
    .render_md = c_render_md,
    .number = c_number,
    .close = c_close,
};
