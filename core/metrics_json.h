/* metrics_json: RunMetrics as the JSON object of ../shared/schema/run_metrics.schema.json,
 * with exactly its keys (the agent's model forbids any other). */
#ifndef GOBLIN_METRICS_JSON_H
#define GOBLIN_METRICS_JSON_H

#include "core/waste_budget.h"
#include "base/text_utf8.h"

/* Renders m into out (appending). indent 0 = compact. A non-finite number is written as 0
 * and named in an extra warning. */
void metrics_json_render(const run_metrics *m, int indent, strbuf *out);

#endif
