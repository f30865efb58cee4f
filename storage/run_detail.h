/* run_detail: the stored parts of GET /runs/<id> that live inside stored JSON documents, taken
 * out by SQL (SQLite's JSON functions) so the API never parses a stored document: the warnings
 * of the RunMetrics body, each artefact's read facts reduced to the keys the API shows, and the
 * run's file inventory (the analysis document's sources). */
#ifndef GOBLIN_RUN_DETAIL_H
#define GOBLIN_RUN_DETAIL_H

#include "storage/store.h"

/* The RunMetrics body's warnings array as JSON text (malloc'd; "[]" when the run has no body or
 * no warnings array). NULL only when out of memory or on a read error. */
char *store_run_warnings(store_reader *r, const char *run_id);

/* An artefact row plus `facts`: a JSON object of exactly found_by, sniff_score, columns,
 * rows_used, rows_skipped, steps_source and step_time_source from its stored reading (each
 * null when absent, all null when the file was not read). */
typedef void (*artefact_facts_fn)(void *user, const run_artefact_row *row, const char *facts);
void store_get_artefact_facts(store_reader *r, const char *run_id, artefact_facts_fn fn, void *user);

/* The run's inventory from its stored analysis document: a JSON array with one object per
 * source file — path, format, found_by, sniff_score, rank, read — every file the last parse
 * chose, several of one kind included (one torch trace per rank). malloc'd; NULL when the run
 * has no stored analysis document (or out of memory, or a read error). */
char *store_run_sources(store_reader *r, const char *run_id);

#endif
