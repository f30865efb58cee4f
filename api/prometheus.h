/* prometheus: GET /metrics in the Prometheus text exposition format (0.0.4), or
 * OpenMetrics 1.0 when the scraper asks for it. Names follow Prometheus conventions:
 * base units, _seconds, _bytes, _ratio, _total. Per-run series exist only for the
 * newest metrics_max_runs runs, so label cardinality stays bounded. */
#ifndef GOBLIN_PROMETHEUS_H
#define GOBLIN_PROMETHEUS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/counters.h"
#include "base/text_utf8.h"
#include "api/series_cache.h"
#include "api/webhooks.h"
#include "storage/store.h"

typedef struct prometheus_source {
    store *st;
    goblind_counters *counters;
    int max_runs;
    const char *version;
    const char *labels;     /* NULL, or rendered static labels (k="v",...) added to every sample */
    webhooks *hooks;        /* NULL: no webhook_url configured */
    int series_baseline_runs;   /* runs pooled into a series baseline (0: SERIES_BASELINE_DEFAULT) */
    series_cache *series_cache; /* the series verdict cache (NULL: none, and no goblind_series_verdict_cache_*) */
} prometheus_source;

/* Renders a config value "name=value[,name=value...]" as exposition label text
 * (name="value",...) in *rendered (caller frees; NULL when spec is empty). false with a
 * message in err naming the label and the reason for a bad name, a name given twice, or a
 * name goblind's series or Prometheus's scrape use. */
bool prometheus_labels_render(const char *spec, char **rendered, char *err, size_t errlen);

/* The exposition text of every goblind series into out. false when the store could not be read
 * or memory ran out (the caller answers an error: a scrape missing runs, or a count read as 0,
 * would look real). */
bool prometheus_render(const prometheus_source *src, bool openmetrics, strbuf *out);

#endif
