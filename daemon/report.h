/* report: RunMetrics and run lists as text tables for people on the node
 * (`goblind show`, `goblind runs`, `goblind parse --format table`). */
#ifndef GOBLIN_REPORT_H
#define GOBLIN_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Unicode block bars when the terminal's charset is UTF-8, '#' otherwise. */
bool report_use_unicode(void);
/* metrics: a RunMetrics object; title: first line (may be NULL). known: an object whose
 * tokens_per_sec, mfu_pct, gpu_util_pct and hbm_peak_gb are null for a number the parse did
 * not measure (GET /runs/<id>), shown as "-" rather than RunMetrics' 0; with a null (or absent)
 * step_time_seconds, or status "failed", the waste budget is printed as unknown rather than
 * zero bars, and steps from the default as "-"; NULL: all measured. */
void report_metrics(FILE *out, const char *title, json_t *metrics, json_t *known, bool unicode);
/* How each artefact was read: artefacts is the "artefacts" array of GET /runs/<id> (kind,
 * path, format, error, columns, rows_used, rows_skipped, steps_source, step_time_source);
 * metrics (may be NULL) supplies the steps and step time the sources explain. */
void report_reading(FILE *out, json_t *artefacts, json_t *metrics, double step_time_s);
/* A run's profile, labels and where each headline number came from (GET /runs/<id>'s
 * profile, labels, headline_sources). */
void report_sources(FILE *out, json_t *run);
/* Whether the run's profile holds goblin (goblin_runner's file names). */
bool report_is_goblin(json_t *run);
/* The analysis's sources of a run (GET /runs/<id>'s "sources"): file, format, records. */
void report_run_sources(FILE *out, json_t *sources);
/* runs: the body of GET /runs (with each run's profile). */
void report_runs(FILE *out, json_t *runs);

#endif
