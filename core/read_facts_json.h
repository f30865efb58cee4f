/* read_facts_json: how one artefact was read (parsers' read_facts) as a JSON object.
 *
 * One rendering for every place that shows it: stored with the artefact row (SQLite),
 * served in GET /runs/<id> (each artefact's columns, rows_used, rows_skipped,
 * steps_source, step_time_source), and read back by `goblind parse --explain` and
 * `goblind show` (docs/API.md). Never part of the RunMetrics body, whose schema forbids
 * unknown fields. */
#ifndef GOBLIN_READ_FACTS_JSON_H
#define GOBLIN_READ_FACTS_JSON_H

#include "parsers/artefact.h"
#include "base/text_utf8.h"

/* Appends {"found_by": s|null, "sniff_score": n, "columns": {quantity: column|null},
 * "rows_used": n, "rows_skipped": {reason: n}, "steps_source": s|null, "step_time_source":
 * s|null} (compact). read false (no format read the file): the first five are null, as
 * nothing is known of how it was read; the step sources still say where steps came from. */
void read_facts_render(const read_facts *f, bool read, strbuf *out);

#endif
