/* counters: lock-free counters and fixed-bucket histograms. */
#include "core/counters.h"

#include <string.h>

const char *const INGEST_RESULT_NAMES[INGEST_RESULTS] = {"ok", "incomplete", "error"};
const unsigned HTTP_CODE_VALUES[HTTP_CODES] = {200, 202, 304, 400, 401, 403, 404, 405, 409, 410, 422, 500, 503, 0};

static const double PARSE_BOUNDS[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
static const double HTTP_BOUNDS[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1};

void counters_init(goblind_counters *c) {
    memset(c, 0, sizeof *c);
    c->parse_seconds.bounds = PARSE_BOUNDS;
    c->parse_seconds.n = sizeof PARSE_BOUNDS / sizeof PARSE_BOUNDS[0];
    c->http_seconds.bounds = HTTP_BOUNDS;
    c->http_seconds.n = sizeof HTTP_BOUNDS / sizeof HTTP_BOUNDS[0];
}

void counters_histogram_observe(histogram *h, double seconds) {
    size_t i = 0;
    while (i < h->n && seconds > h->bounds[i]) i++;
    if (i < h->n) atomic_fetch_add(&h->buckets[i], 1);       /* beyond the last bound: only +Inf */
    atomic_fetch_add(&h->count, 1);
    atomic_fetch_add(&h->sum_us, (uint_fast64_t)(seconds > 0 ? seconds * 1e6 : 0));
}

void counters_http_count(goblind_counters *c, unsigned code) {
    size_t i = 0;
    while (i < HTTP_CODES - 1 && HTTP_CODE_VALUES[i] != code) i++;
    atomic_fetch_add(&c->http_requests[i], 1);
}

void counters_http(goblind_counters *c, unsigned code, double seconds) {
    counters_http_count(c, code);
    counters_histogram_observe(&c->http_seconds, seconds);
}
