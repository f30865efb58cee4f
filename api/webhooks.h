/* webhooks: POSTs each run event's JSON to the configured URLs (webhook_url), so a slow or
 * dead receiver never delays ingest, the API, or another receiver. Each receiver has a work
 * queue of its own (base/work_queue.h: its thread, WEBHOOK_QUEUE events; when full its oldest
 * is dropped and counted for that receiver only); each POST is tried up to WEBHOOK_ATTEMPTS times, 1 s then
 * 2 s apart, and any 2xx answer is success. Log lines name a receiver by its URL with the
 * credentials redacted (base/url_redact.h). Shutdown drains for 1 s: each queued event is tried
 * once (an event waiting between attempts gets one more), and a POST still in flight then is
 * aborted within about a second (libcurl's progress callback), so shutdown takes at most about
 * 2 s. */
#ifndef GOBLIN_WEBHOOKS_H
#define GOBLIN_WEBHOOKS_H

#include <stddef.h>

#define WEBHOOK_QUEUE 1024
#define WEBHOOK_ATTEMPTS 3
#define WEBHOOK_MAX_URLS 8

typedef struct webhooks webhooks;

/* NULL when n == 0. urls are copied. */
webhooks *webhooks_start(const char *const *urls, size_t n);
/* Queues one event body (copied) for every receiver; never blocks on the network. Thread-safe. */
void webhooks_post(webhooks *w, const char *json);
/* The receivers (0 when w is NULL), and per receiver i (in webhook_url order): events dropped
 * (from its full queue, or never queued: no memory for them, or its thread could not start),
 * events not delivered after every attempt, events delivered. Thread-safe. */
size_t webhooks_receivers(webhooks *w);
void webhooks_receiver_counts(webhooks *w, size_t i, unsigned long *dropped, unsigned long *failed,
                              unsigned long *delivered);
/* Tries what is queued once more (bounded by the attempts already under way), then joins. */
void webhooks_stop(webhooks *w);

#endif
