/* steps_render: the steps section's run state, as its finish leaves it, and its output: the
 * JSON section, the report.md part and the numbers other sections and the headline read
 * (section_analysis.render, render_md, number). analyses/sections/steps.c fills the state
 * (open, consume, fold, finish); steps_render.c only reads it. */
#ifndef GOBLIN_STEPS_RENDER_H
#define GOBLIN_STEPS_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "analyses/section.h"
#include "analyses/sections/steps_retire.h"
#include "base/diag.h"
#include "base/json_writer.h"
#include "base/strbuf.h"

/* The section's run state: one rank_data per rank, sorted by rank after finish (the unknown
 * rank, -1, first). */
typedef struct steps_run {
    rank_data *ranks;
    size_t n;
    diag_list *diag;
    const analysis_config *cfg;  /* list_rows, read at render */
    bool oom;
    size_t last_index;      /* the last folded source and the rank its metadata named, so */
    int last_metadata_rank; /* that a split read's second piece joins the same rank */
} steps_run;

/* The section's JSON value (a steps_run after finish); null when it saw no timed record. */
void steps_render(const void *run, jw_out *w);
/* report.md: the mean step's breakdown (or the run's when there are no steps). */
void steps_render_md(const void *run, strbuf *out);
/* A number of the section by path (docs/ANALYSIS.md "steps"); false when unknown. */
bool steps_number(const void *run, const char *path, double *out);

#endif
