/* torch_summary_tool: RunMetrics' torch_summary of one torch profile, read the way
 * `goblind parse` reads it (core/artefact_reader: the format's REC_TRACE_EVENT records into
 * analyses/summaries/torch_stats), as one JSON object on stdout, for tests/torch_summary.py to
 * compare with the reference's read_torch().
 *
 * usage: torch_summary_tool [--seed] [--split-every] FILE
 *   --seed         the original heuristics (seed_compat)
 *   --split-every  also read FILE in two pieces at every resume point (tail of 1..size-1
 *                  bytes) and fail (exit 1) unless every read equals the sequential one to
 *                  the bit; prints how many reads were split and joined ("joined").
 * Floats are printed with %.17g (exact round trip); null when absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/artefact_reader.h"
#include "base/json_writer.h"

static void read_one(const char *path, const parse_options *opt, uint64_t tail, torch_summary *t, diag_list *d,
                     artefact_info *info) {
    memset(t, 0, sizeof *t);
    memset(info, 0, sizeof *info);
    diag_init(d);
    if (!tail) { artefact_read(path, ARTEFACT_TORCH_PROFILE, opt, t, d, info); return; }
    artefact_reading *r = artefact_read_begin(path, ARTEFACT_TORCH_PROFILE, opt, t, d, info, tail);
    artefact_read_end(r);
}

static bool opt_same(opt_num a, opt_num b) { return a.has == b.has && (!a.has || memcmp(&a.v, &b.v, sizeof a.v) == 0); }

/* Every field the heuristics and --explain read, and the warnings, equal to the bit. */
static bool same(const torch_summary *a, const diag_list *da, const torch_summary *b, const diag_list *db) {
    bool s = opt_same(a->tokens_per_sec, b->tokens_per_sec) && opt_same(a->mfu_pct, b->mfu_pct) &&
             opt_same(a->step_time_seconds, b->step_time_seconds) && opt_same(a->host_busy_fraction, b->host_busy_fraction) &&
             a->n_steps == b->n_steps && a->profiled_steps == b->profiled_steps && a->complete == b->complete &&
             a->step_time_is_span == b->step_time_is_span && a->step_events == b->step_events &&
             !a->pytorch_version == !b->pytorch_version &&
             (!a->pytorch_version || !strcmp(a->pytorch_version, b->pytorch_version)) &&
             kernel_table_equal(&a->kernels, &b->kernels) && a->facts.rows_used == b->facts.rows_used &&
             a->facts.n_skips == b->facts.n_skips && da->count == db->count;
    for (size_t i = 0; s && i < a->facts.n_skips; i++) s = a->facts.skipped[i].rows == b->facts.skipped[i].rows;
    for (size_t i = 0; s && i < da->count; i++) s = !strcmp(da->items[i], db->items[i]);
    return s;
}

static void put_opt(const char *key, opt_num v) {
    if (v.has) printf("\"%s\": %.17g, ", key, v.v);
    else printf("\"%s\": null, ", key);
}

static void put_str(const char *s) {
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    jw_string(&w, s);
    fwrite(b.data, 1, b.len, stdout);
    strbuf_free(&b);
}

int main(int argc, char **argv) {
    parse_options opt = {.split_min_bytes = 1};
    bool every = false;
    int i = 1;
    for (; i < argc - 1; i++) {
        if (!strcmp(argv[i], "--seed")) opt.seed_compat = true;
        else if (!strcmp(argv[i], "--split-every")) every = true;
        else break;
    }
    if (i != argc - 1) { fprintf(stderr, "usage: torch_summary_tool [--seed] [--split-every] FILE\n"); return 2; }
    const char *path = argv[i];
    torch_summary t;
    diag_list d;
    artefact_info info;
    read_one(path, &opt, 0, &t, &d, &info);
    long joined = -1;
    if (every) {
        struct stat st;
        if (stat(path, &st)) return 2;
        joined = 0;
        for (uint64_t tail = 1; tail < (uint64_t)st.st_size; tail++) {
            torch_summary t2;
            diag_list d2;
            artefact_info i2;
            read_one(path, &opt, tail, &t2, &d2, &i2);
            if (i2.pieces == 2) joined++;
            bool ok = same(&t, &d, &t2, &d2);
            torch_summary_free(&t2);
            diag_free(&d2);
            if (!ok) { fprintf(stderr, "split read with a tail of %llu bytes differs\n", (unsigned long long)tail); return 1; }
        }
    }
    printf("{");
    put_opt("tokens_per_sec", t.tokens_per_sec);
    put_opt("mfu_pct", t.mfu_pct);
    put_opt("step_time_seconds", t.step_time_seconds);
    put_opt("host_busy_fraction", t.host_busy_fraction);
    printf("\"pytorch_version\": ");
    if (t.pytorch_version) put_str(t.pytorch_version);
    else printf("null");
    printf(", \"n_steps\": %lld, \"profiled_steps\": %lld, \"step_events\": %llu, \"span\": %s, \"complete\": %s, ",
           (long long)t.n_steps, (long long)t.profiled_steps, (unsigned long long)t.step_events,
           t.step_time_is_span ? "true" : "false", t.complete ? "true" : "false");
    printf("\"rows_used\": %llu, \"joined\": %ld, \"warnings\": %zu, \"kernels\": [", (unsigned long long)t.facts.rows_used,
           joined, d.count);
    for (size_t k = 0; k < t.kernels.count; k++) {
        const kernel_stat *ks = &t.kernels.items[k];
        printf("%s[", k ? ", " : "");
        put_str(ks->name);
        if (ks->total_ns >= 0 && ks->total_ns <= (i128)INT64_MAX) printf(", %llu, %lld]", (unsigned long long)ks->calls, (long long)ks->total_ns);
        else printf(", %llu, %.17g]", (unsigned long long)ks->calls, (double)ks->total_ns);
    }
    printf("]}\n");
    torch_summary_free(&t);
    diag_free(&d);
    return 0;
}
