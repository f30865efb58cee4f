/* npu_reference_export: a run's npu_ops written in the msprof reference CSV layout (see the
 * header and docs/ANALYSIS.md "npu_ops: reference export").
 *
 * The run's msprof files are listed by the run inventory and only those read by the two
 * msprof formats (operator tables and references) are read again, through the npu_ops
 * analysis itself (open_source / consume / end_source / finish): the numbers are the
 * section's, by construction. Memory: the npu_ops state (at most NPU_MAX_GROUPS signatures,
 * each with its durations for the exact median, as for the analysis document) plus one index
 * per signature; every CSV is written row by row to its file. */
#include "core/npu_reference_export.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyses/sections/npu_ops.h"
#include "core/run_inventory.h"
#include "core/source_read.h"
#include "parsers/formats/msprof_csv.h"

extern const section_analysis npu_ops_analysis;

#define NAME_MAX_BYTES 200   /* an operator type longer than this is not a file name */

/* The record sink: every record to the npu_ops source state. */
static bool to_npu_ops(void *user, const record *r) { return npu_ops_analysis.consume(user, r); }

/* Reads the msprof sources of run_dir into R (opened by the caller) and finishes it. */
static bool load(const char *run_dir, const char *reference_dir, const parse_options *parse, npu_ops_run *R,
                 size_t *sources, diag_list *diag) {
    run_inventory inv;
    const char *confine = parse ? parse->confine_root : NULL;
    if (!run_inventory_build(run_dir, reference_dir, confine, &inv, diag)) return false;
    parse_options none = {0};
    parse_options unconfined = parse ? *parse : none;
    unconfined.confine_root = NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < inv.n; i++) {
        const inventory_source *s = &inv.src[i];
        if (s->format != &msprof_op_csv_parser && s->format != &msprof_reference_csv_parser) continue;
        source_ref ref = {.index = i, .path = s->rel, .format = s->format->name, .rank = s->rank,
                          .kernels_chosen = true, .host_kernels_chosen = true};
        void *src = npu_ops_analysis.open_source(R, &ref);
        if (!src) { ok = false; break; }
        record_sink sink = {.emit = to_npu_ops, .user = src, .fields = npu_ops_analysis.fields,
                            .types = npu_ops_analysis.wants};
        read_facts facts = {0};
        source_read_stats st = {0};
        source_read_tee(s->path, s->rel, s->format, s->extra_root ? &unconfined : (parse ? parse : &none), &sink, &facts,
                        diag, &st, NULL);
        read_facts_free(&facts);
        /* a file read in part for lack of memory (source_read_tee says so only in diag) would
         * export fewer operators as if that were all of them */
        ok = npu_ops_analysis.end_source(R, src) && !diag->out_of_memory;
        (*sources)++;
    }
    run_inventory_free(&inv);
    section_results none_before = {0};
    return ok && !diag->out_of_memory && npu_ops_analysis.finish(R, &none_before);
}

/* Whether an operator type can name a file: not empty, no '/' or '\\', no control byte, not
 * starting with '.', at most NAME_MAX_BYTES. */
static bool safe_name(const char *t) {
    size_t n = strlen(t);
    if (!n || n > NAME_MAX_BYTES || t[0] == '.') return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c < 0x20 || c == 0x7f || c == '/' || c == '\\') return false;
    }
    return true;
}

/* One CSV cell (RFC 4180 quoting when needed); NULL: an empty cell. wrap: the text between
 * one pair of double quotes, as msprof and the reference database write shapes. */
static void csv_cell(FILE *f, const char *s, bool wrap, bool first) {
    if (!first) fputc(',', f);
    if (!s) return;
    bool quote = wrap || strpbrk(s, ",\"\r\n") || s[0] == ' ' || (s[0] && s[strlen(s) - 1] == ' ');
    if (!quote) { fputs(s, f); return; }
    fputc('"', f);
    if (wrap) fputs("\"\"", f);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    if (wrap) fputs("\"\"", f);
    fputc('"', f);
}

static void csv_number(FILE *f, double v, bool has) {
    fputc(',', f);
    if (has) fprintf(f, "%.6f", v);
}

/* Groups of one type together (by type), each type's by total time as npu_ops lists them. */
typedef struct order_ctx {
    const npu_table *t;
    const size_t *rank;      /* position of each group in the run's order */
} order_ctx;

static int cmp_type_rank(const void *a, const void *b, void *ctx) {
    const order_ctx *o = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(o->t->groups[x].op_type, o->t->groups[y].op_type);
    if (c) return c;
    return (o->rank[x] > o->rank[y]) - (o->rank[x] < o->rank[y]);
}

/* Writes groups idx[from, to) (one operator type) to out_dir/<type>.csv through a temporary
 * file renamed into place. false with the reason in diag. */
static bool write_type(const npu_table *t, const size_t *idx, size_t from, size_t to, const char *out_dir,
                       diag_list *diag) {
    const char *type = t->groups[idx[from]].op_type;
    bool has_counter[NPU_MAX_COUNTERS] = {0};
    for (size_t k = from; k < to; k++) {
        const npu_group *g = &t->groups[idx[k]];
        for (size_t c = 0; c < g->n_counter_slots && c < NPU_MAX_COUNTERS; c++) has_counter[c] |= g->counter_n[c] > 0;
    }
    size_t plen = strlen(out_dir) + strlen(type) + 16;
    char *path = malloc(plen), *tmp = malloc(plen);
    if (!path || !tmp) { free(path); free(tmp); diag_oom(diag, "npu reference export: out of memory"); return false; }
    snprintf(path, plen, "%s/%s.csv", out_dir, type);
    snprintf(tmp, plen, "%s/.%s.csv.tmp", out_dir, type);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        diag_add(diag, "npu reference export: %s: %s", tmp, strerror(errno));
        free(path), free(tmp);
        return false;
    }
    static const char *const BASE[] = {"OP State", "Accelerator Core", "Input Shapes", "Input Data Types",
                                       "Input Formats", "Output Shapes", "Output Data Types", "Output Formats",
                                       "Average Duration(us)", "Profiling Average Duration(us)",
                                       "Profiling Median Duration(us)", "Profiling Std Duration(us)"};
    for (size_t i = 0; i < sizeof BASE / sizeof BASE[0]; i++) csv_cell(f, BASE[i], false, i == 0);
    for (size_t c = 0; c < t->n_counters && c < NPU_MAX_COUNTERS; c++) {
        if (!has_counter[c]) continue;
        fputs(",", f);
        char head[300];
        snprintf(head, sizeof head, "Profiling Average %s", t->counters[c]);
        csv_cell(f, head, false, true);
    }
    fputs("\r\n", f);
    for (size_t k = from; k < to; k++) {
        const npu_group *g = &t->groups[idx[k]];
        assert(!strcmp(g->op_type, type));
        double avg = (double)g->sum_ns / (double)g->count / 1000.0;
        csv_cell(f, g->op_state, false, true);
        csv_cell(f, g->task_type, false, false);
        csv_cell(f, g->sig[0], true, false);         /* input_shapes */
        csv_cell(f, g->sig[1], false, false);
        csv_cell(f, g->sig[2], false, false);
        csv_cell(f, g->sig[3], true, false);         /* output_shapes */
        csv_cell(f, g->sig[4], false, false);
        csv_cell(f, g->output_formats, false, false);
        csv_number(f, g->has_reference ? g->reference_us : avg, true);
        csv_number(f, avg, true);
        csv_number(f, g->median_us, g->has_median);
        csv_number(f, g->std_us, g->has_std);
        for (size_t c = 0; c < t->n_counters && c < NPU_MAX_COUNTERS; c++) {
            if (!has_counter[c]) continue;
            bool has = c < g->n_counter_slots && g->counter_n[c] > 0;
            csv_number(f, has ? g->counter_sum[c] / (double)g->counter_n[c] : 0, has);
        }
        fputs("\r\n", f);
    }
    bool ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok) diag_add(diag, "npu reference export: %s: write failed: %s", tmp, strerror(errno));
    if (ok && rename(tmp, path) != 0) {
        diag_add(diag, "npu reference export: %s: %s", path, strerror(errno));
        ok = false;
    }
    if (!ok) unlink(tmp);
    free(path), free(tmp);
    return ok;
}

/* Writes every operator type of the finished state R into out_dir. */
static bool write_all(const npu_ops_run *R, const char *out_dir, npu_reference_summary *sum, diag_list *diag) {
    const npu_table *t = &R->t;
    if (!t->n) return true;
    size_t *idx = malloc(t->n * sizeof *idx), *rank = malloc(t->n * sizeof *rank);
    if (!idx || !rank) { free(idx); free(rank); diag_oom(diag, "npu reference export: out of memory"); return false; }
    for (size_t o = 0; o < t->n; o++) rank[R->order[o]] = o, idx[o] = o;
    order_ctx ctx = {t, rank};
    qsort_r(idx, t->n, sizeof *idx, cmp_type_rank, &ctx);
    bool ok = true;
    for (size_t from = 0; ok && from < t->n;) {
        size_t to = from + 1;
        while (to < t->n && !strcmp(t->groups[idx[to]].op_type, t->groups[idx[from]].op_type)) to++;
        const char *type = t->groups[idx[from]].op_type;
        if (!safe_name(type)) {
            diag_add(diag, "npu reference export: operator type '%.80s' is not a file name; its %zu signature(s) are "
                     "not written", type, to - from);
            sum->types_skipped++;
        } else if ((ok = write_type(t, idx, from, to, out_dir, diag))) {
            sum->files++;
            sum->rows += to - from;
        }
        from = to;
    }
    free(idx);
    free(rank);
    return ok;
}

bool npu_reference_export(const char *run_dir, const char *reference_dir, const parse_options *parse,
                          const char *out_dir, npu_reference_summary *sum, diag_list *diag) {
    memset(sum, 0, sizeof *sum);
    size_t first = diag->count;
    struct stat st;
    if (mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
        diag_add(diag, "npu reference export: %s: %s", out_dir, strerror(errno));
        return false;
    }
    if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        diag_add(diag, "npu reference export: %s: not a directory", out_dir);
        return false;
    }
    analysis_config cfg = {.npu_reference_dir = reference_dir, .run_dir = run_dir, .list_rows = 0};
    npu_ops_run *R = npu_ops_analysis.open(&cfg, diag);
    if (!R) { diag_oom(diag, "npu reference export: out of memory"); return false; }
    bool ok = load(run_dir, reference_dir, parse, R, &sum->sources, diag);
    if (!ok) diag_oom(diag, "npu reference export: out of memory reading %s", run_dir);
    ok = ok && write_all(R, out_dir, sum, diag);
    sum->cut = source_read_stop_warned(diag, first);
    npu_ops_analysis.close(R);
    return ok;
}

int npu_reference_export_dir(const char *run_dir, const char *out_dir, FILE *err) {
    struct stat st;
    if (stat(run_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(err, "goblind export: %s: not a directory\n", run_dir);
        return 1;
    }
    diag_list diag;
    diag_init(&diag);
    npu_reference_summary sum;
    bool ok = npu_reference_export(run_dir, NULL, NULL, out_dir, &sum, &diag);
    for (size_t i = 0; i < diag.count; i++) fprintf(err, "goblind export: warning: %s\n", diag.items[i]);
    diag_free(&diag);
    if (!ok) return 1;
    if (!sum.files && !sum.types_skipped) fprintf(err, "goblind export: %s: no msprof operator to export\n", run_dir);
    return 0;
}
