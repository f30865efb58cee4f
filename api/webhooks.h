/* webhooks: POSTs each run event's JSON to the configured URLs (webhook_url), from one thread
 * of their own, so a slow or dead receiver never delays ingest or the API. The queue is
 * bounded (WEBHOOK_QUEUE events; when full the oldest is dropped and counted); each POST is
 * tried up to WEBHOOK_ATTEMPTS times, 1 s then 2 s apart, and any 2xx answer is success. */
#ifndef GOBLIN_WEBHOOKS_H
#define GOBLIN_WEBHOOKS_H

#include <stddef.h>

#define WEBHOOK_QUEUE 1024
#define WEBHOOK_ATTEMPTS 3
#define WEBHOOK_MAX_URLS 8

typedef struct webhooks webhooks;

/* NULL when n == 0. urls are copied. */
webhooks *webhooks_start(const char *const *urls, size_t n);
/* Queues one event body (copied); never blocks on the network. Thread-safe. */
void webhooks_post(webhooks *w, const char *json);
/* Tries what is queued once more (bounded by the attempts already under way), then joins. */
void webhooks_stop(webhooks *w);

#endif
