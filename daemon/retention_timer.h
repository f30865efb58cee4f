/* retention_timer: applies the retention policy (storage/retention.c) from the loop: every
 * RETENTION_PERIOD_MS a pass on the worker pool evicts the oldest finished runs beyond
 * retention_max_runs / retention_max_age_days / db_max_size_mb, logs each eviction and tells
 * the API (cache, long polls). An ingest refused for lack of room (the database at
 * db_max_size_mb) triggers a pass within a second that evicts the oldest finished runs until
 * about as much room as the run lacks is free (retention_room_for: once per refused run, none
 * beyond 90 % of the limit), so the tracker's retry finds room. At most one pass runs at a
 * time. */
#ifndef GOBLIN_RETENTION_TIMER_H
#define GOBLIN_RETENTION_TIMER_H

#include <uv.h>

#include "api/http_api.h"
#include "storage/retention.h"

#define RETENTION_PERIOD_MS 10000

typedef struct retention_timer retention_timer;

/* NULL (nothing to do) when the policy has no limit. */
retention_timer *retention_timer_start(uv_loop_t *loop, store *st, const retention_policy *p, api *http);
/* Closes the timer and detaches the API: when it returns, no pass tells the API anything (a
 * pass in flight ends after the eviction under way, logged, and the memory goes once it is
 * done, so shutdown does not wait for a pass of thousands of evictions). Call it before
 * api_stop, once (loop thread). */
void retention_timer_stop(retention_timer *rt);

#endif
