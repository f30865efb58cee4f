/* steps_render: the steps section's output from its finished run state (steps_render.h):
 * the JSON section (the primary rank's steps and summary, every rank's summary), the
 * report.md breakdown table and the numbers read by path (section_number). Nothing here
 * changes the state; analyses/sections/steps.c builds it. */
#include "analyses/sections/steps_render.h"

#include <string.h>

#include "analyses/section_md.h"

static const char *const PART_KEYS[N_PARTS] = {"kernel_ns",  "memcpy_ns",     "memset_ns",   "communication_ns",
                                               "runtime_ns", "dataloader_ns", "cpu_exec_ns", "other_ns"};

/* The primary rank: the lowest known rank, else the unknown one. */
static const rank_data *primary(const steps_run *r) {
    if (!r->n) return NULL;
    return r->n > 1 && r->ranks[0].rank < 0 ? &r->ranks[1] : &r->ranks[0];
}

static void render_parts(jw_out *w, const int64_t *parts) {
    jw_key(w, "parts");
    jw_object_open(w);
    for (int p = 0; p < N_PARTS; p++) {
        jw_key(w, PART_KEYS[p]);
        jw_int(w, parts[p]);
    }
    jw_object_close(w);
}

static void render_summary(jw_out *w, const rank_data *d) {
    jw_key(w, "count");
    jw_int(w, (int64_t)d->nsteps);
    jw_key(w, "mean");
    if (d->nsteps) {
        jw_object_open(w);
        jw_key(w, "wall_ns");
        jw_int(w, d->mean_wall);
        render_parts(w, d->mean_parts);
        jw_object_close(w);
    } else {
        jw_null(w);
    }
    jw_key(w, "slowest");
    if (d->nsteps) {
        jw_object_open(w);
        jw_key(w, "name");
        jw_string(w, d->steps[d->slowest].name);
        jw_key(w, "wall_ns");
        jw_int(w, d->steps[d->slowest].end - d->steps[d->slowest].start);
        jw_object_close(w);
    } else {
        jw_null(w);
    }
    jw_key(w, "run");
    jw_object_open(w);
    jw_key(w, "start_ns");
    jw_int(w, d->lo);
    jw_key(w, "wall_ns");
    jw_int(w, d->hi - d->lo);
    render_parts(w, d->run_parts);
    jw_object_close(w);
}

void steps_render(const void *run, jw_out *w) {
    const steps_run *r = run;
    const rank_data *d = primary(r);
    if (!d || r->oom) {
        jw_null(w);
        return;
    }
    bool complete = true;
    for (size_t i = 0; i < r->n; i++) {
        for (int p = 0; p < P_TIMED; p++) complete &= !r->ranks[i].part[p].dropped;
        complete &= !r->ranks[i].steps_dropped && !r->ranks[i].out_of_range;
    }
    jw_object_open(w);
    jw_key(w, "rank");
    if (d->rank >= 0) jw_int(w, d->rank);
    else jw_null(w);
    jw_key(w, "complete");
    jw_bool(w, complete);
    bool exact = true;
    for (size_t i = 0; i < r->n; i++) exact &= !r->ranks[i].inexact;
    jw_key(w, "exact");
    jw_bool(w, exact);
    size_t listed = section_listed(r->cfg, d->nsteps);
    jw_key(w, "items");
    jw_array_open(w);
    for (size_t i = 0; i < listed; i++) {
        jw_object_open(w);
        jw_key(w, "name");
        jw_string(w, d->steps[i].name);
        jw_key(w, "start_ns");
        jw_int(w, d->steps[i].start);
        jw_key(w, "end_ns");
        jw_int(w, d->steps[i].end);
        jw_key(w, "wall_ns");
        jw_int(w, d->steps[i].end - d->steps[i].start);
        render_parts(w, d->step_parts[i]);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_key(w, "listed");
    jw_int(w, (int64_t)listed);
    if (listed < d->nsteps) {     /* the steps past analysis_list_rows: how many, how long */
        int64_t rest = 0;
        for (size_t i = listed; i < d->nsteps; i++) rest += d->steps[i].end - d->steps[i].start;
        jw_key(w, "unlisted");
        jw_object_open(w);
        jw_key(w, "steps");
        jw_int(w, (int64_t)(d->nsteps - listed));
        jw_key(w, "wall_ns");
        jw_int(w, rest);
        jw_object_close(w);
    }
    render_summary(w, d);
    size_t ranks_listed = r->n > 1 ? section_listed(r->cfg, r->n) : 0;
    jw_key(w, "ranks");
    jw_array_open(w);
    for (size_t i = 0; i < ranks_listed; i++) {
        jw_object_open(w);
        jw_key(w, "rank");
        if (r->ranks[i].rank >= 0) jw_int(w, r->ranks[i].rank);
        else jw_null(w);
        render_summary(w, &r->ranks[i]);
        jw_object_close(w);
    }
    jw_array_close(w);
    if (ranks_listed < (r->n > 1 ? r->n : 0)) {
        jw_key(w, "ranks_unlisted");
        jw_int(w, (int64_t)(r->n - ranks_listed));
    }
    jw_object_close(w);
}

/* report.md: the mean step's breakdown (or the run's when there are no steps). */
void steps_render_md(const void *run, strbuf *out) {
    const steps_run *r = run;
    const rank_data *d = primary(r);
    if (!d || r->oom) return;
    const int64_t *parts = d->nsteps ? d->mean_parts : d->run_parts;
    int64_t wall = d->nsteps ? d->mean_wall : d->hi - d->lo;
    smd_printf(out, "## Step time breakdown\n\n");
    if (d->nsteps) {
        smd_printf(out, "%zu ProfilerStep ranges; mean step %.3f ms; slowest ", d->nsteps, (double)wall / 1e6);
        smd_cell(out, d->steps[d->slowest].name, strlen(d->steps[d->slowest].name), 200);   /* the trace's name */
        smd_printf(out, " (%.3f ms).\n\n", (double)(d->steps[d->slowest].end - d->steps[d->slowest].start) / 1e6);
    } else
        smd_printf(out, "No ProfilerStep ranges: the whole run (%.3f ms).\n\n", (double)wall / 1e6);
    smd_printf(out, "| part | %s ms | share |\n|---|---:|---:|\n", d->nsteps ? "mean" : "run");
    for (int p = 0; p < N_PARTS; p++) {
        size_t n = strlen(PART_KEYS[p]) - 3;  /* the key without "_ns" */
        smd_printf(out, "| %.*s | %.3f | %.1f %% |\n", (int)n, PART_KEYS[p], (double)parts[p] / 1e6,
                  wall > 0 ? 100.0 * (double)parts[p] / (double)wall : 0.0);
    }
    smd_printf(out, "\n");
}

/* "count", "{mean,run}.wall_ns", "{mean,run}.parts.<part>_ns", "slowest.wall_ns" of the
 * primary rank; "slowest_rank.mean.wall_ns", "slowest_rank.count", "slowest_rank.rank" of the
 * rank whose mean step is the longest (the run's step time, core/run_headline);
 * "step_ranges.mean.wall_ns", "step_ranges.count": ranges named like steps (steps_is_range_step), of
 * the rank whose mean such range is the longest. */
bool steps_number(const void *run, const char *path, double *out) {
    const steps_run *r = run;
    const rank_data *d = primary(r);
    if (!d || r->oom) return false;
    if (!strncmp(path, "step_ranges.", 12) || !strncmp(path, "slowest_rank.", 13))
        return steps_ranks_number(r->ranks, r->n, path, out);
    if (!strcmp(path, "count")) return *out = (double)d->nsteps, true;
    if (!strcmp(path, "slowest.wall_ns"))
        return d->nsteps ? (*out = (double)(d->steps[d->slowest].end - d->steps[d->slowest].start), true) : false;
    const int64_t *parts;
    int64_t wall;
    if (!strncmp(path, "mean.", 5)) {
        if (!d->nsteps) return false;
        parts = d->mean_parts, wall = d->mean_wall, path += 5;
    } else if (!strncmp(path, "run.", 4)) {
        parts = d->run_parts, wall = d->hi - d->lo, path += 4;
    } else {
        return false;
    }
    if (!strcmp(path, "wall_ns")) return *out = (double)wall, true;
    if (strncmp(path, "parts.", 6)) return false;
    for (int p = 0; p < N_PARTS; p++)
        if (!strcmp(path + 6, PART_KEYS[p])) return *out = (double)parts[p], true;
    return false;
}
