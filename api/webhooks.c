/* webhooks: one work queue (base/work_queue.h: bounded, the oldest dropped when full) and its
 * thread per receiver, each POSTing with libcurl (see webhooks.h). */
#include "api/webhooks.h"

#include <assert.h>
#include <curl/curl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/url_redact.h"
#include "base/work_queue.h"

/* Shutdown: what is still queued after this is dropped, and a POST in flight is aborted from
 * libcurl's progress callback, which an idle transfer calls about once a second: shutdown
 * takes at most about 2 s with a receiver that never answers. */
#define STOP_GRACE_MS 1000

typedef struct receiver {
    struct webhooks *w;
    char *url;
    char shown[512];            /* the URL as logged: credentials redacted */
    work_queue *q;              /* NULL: its thread could not start (nothing is queued for it) */
    CURL *curl;                 /* used on the queue's thread only */
    atomic_ulong failed, delivered;
    atomic_ulong lost;          /* events never queued: no memory for their copy or the ring, or no thread */
    atomic_bool warned_full;    /* the first drop from the full queue is logged, the rest counted */
    atomic_bool warned_lost[3]; /* per LOST_* reason: its first lost event is logged, the rest counted */
    unsigned long unsent;       /* the queue's thread only: dropped at shutdown, logged after the join */
} receiver;

struct webhooks {
    receiver rx[WEBHOOK_MAX_URLS];
    size_t n;
    atomic_llong deadline_ms;   /* monotonic; 0 until webhooks_stop */
};

static size_t discard(char *p, size_t size, size_t n, void *user) {
    (void)p; (void)user;
    return size * n;
}

/* True once shutdown's grace for draining the queues is over. */
static bool past_deadline(webhooks *w) {
    long long d = atomic_load(&w->deadline_ms);
    return d && clk_mono_ms() >= d;
}

/* libcurl's progress callback: aborts a POST in flight once the shutdown grace is over, so a
 * receiver that accepts and never answers cannot hold shutdown for the 5 s timeout per try. */
static int abort_at_deadline(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un) {
    (void)dt; (void)dn; (void)ut; (void)un;
    return past_deadline(user) ? 1 : 0;
}

/* One POST; true on a 2xx answer. */
static bool post_once(webhooks *w, CURL *c, const char *url, const char *json) {
    curl_easy_reset(c);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 3L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "goblind-webhook");
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, abort_at_deadline);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, w);
    long code = 0;
    bool ok = curl_easy_perform(c) == CURLE_OK && curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK &&
              code >= 200 && code < 300;
    curl_slist_free_all(h);
    return ok;
}

/* The queue's handler (batch 1): one event, up to WEBHOOK_ATTEMPTS times, 1 s then 2 s apart;
 * once the queue is stopping, one try more; past the shutdown grace, none. */
static void deliver(void *user, void *const *items, size_t n) {
    receiver *rx = user;
    assert(n == 1);
    (void)n;
    char *json = items[0];
    if (past_deadline(rx->w)) {
        rx->unsent++;
        free(json);
        return;
    }
    if (!rx->curl && !(rx->curl = curl_easy_init()))   /* (none at start: out of memory then; try again) */
        fprintf(stderr, "goblind warn: webhook %s: event not delivered: no libcurl handle (out of memory)\n", rx->shown);
    bool delivered = false;
    for (int attempt = 1; rx->curl && attempt <= WEBHOOK_ATTEMPTS; attempt++) {
        if ((delivered = post_once(rx->w, rx->curl, rx->url, json))) break;
        bool stopping = wq_stopping(rx->q);             /* shutting down: one try only */
        if (attempt == WEBHOOK_ATTEMPTS || stopping) {
            fprintf(stderr, "goblind warn: webhook %s: event not delivered after %d attempt%s%s\n", rx->shown,
                    attempt, attempt == 1 ? "" : "s", stopping ? " (shutting down)" : "");
            break;
        }
        wq_sleep(rx->q, (int64_t)1000 << (attempt - 1));   /* returns at once when stopping */
    }
    atomic_fetch_add(delivered ? &rx->delivered : &rx->failed, 1);
    free(json);
}

/* An event the full queue gave up for a newer one (on the posting thread). */
static void drop_oldest(void *user, void *item) {
    receiver *rx = user;
    free(item);
    if (!atomic_exchange(&rx->warned_full, true))
        fprintf(stderr, "goblind warn: webhook %s: queue full; dropping its oldest events\n", rx->shown);
}

/* Why an event never reached a receiver's queue. */
enum { LOST_MEMORY, LOST_NO_THREAD, LOST_STOPPING };
static const char *const LOST_WHY[] = {"out of memory", "its thread could not start", "shutting down"};

/* An event that never reached the receiver's queue (on the posting thread): counted with the
 * drops, the first one of each reason logged. */
static void lose(receiver *rx, int why) {
    assert(why >= 0 && why < (int)(sizeof LOST_WHY / sizeof *LOST_WHY));
    atomic_fetch_add(&rx->lost, 1);
    if (!atomic_exchange(&rx->warned_lost[why], true))
        fprintf(stderr, "goblind warn: webhook %s: events dropped: %s (counted in goblind_webhook_events_dropped_total)\n",
                rx->shown, LOST_WHY[why]);
}

webhooks *webhooks_start(const char *const *urls, size_t n) {
    if (n == 0) return NULL;
    webhooks *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    for (size_t i = 0; i < n && i < WEBHOOK_MAX_URLS; i++) {
        receiver *rx = &w->rx[w->n];
        if (!(rx->url = strdup(urls[i]))) continue;
        rx->w = w;
        url_redact(urls[i], rx->shown, sizeof rx->shown);
        w->n++;
        rx->curl = curl_easy_init();            /* (NULL: the queue's thread tries again per event) */
        wq_config cfg = {.capacity = WEBHOOK_QUEUE, .when_full = WQ_FULL_DROP_OLDEST, .batch = 1,
                         .handle = deliver, .drop = drop_oldest, .user = rx};
        if (!(rx->q = wq_start(&cfg)))
            fprintf(stderr, "goblind warn: webhook %s: cannot start its thread; not delivered\n", rx->shown);
    }
    return w;
}

void webhooks_post(webhooks *w, const char *json) {
    if (!w) return;
    for (size_t i = 0; i < w->n; i++) {
        receiver *rx = &w->rx[i];
        if (!rx->q) { lose(rx, LOST_NO_THREAD); continue; }
        char *copy = strdup(json);
        if (!copy) { lose(rx, LOST_MEMORY); continue; }
        if (!wq_push(rx->q, copy, 0)) {         /* no memory for the queue's ring, or shutting down */
            free(copy);
            lose(rx, wq_stopping(rx->q) ? LOST_STOPPING : LOST_MEMORY);
        }
    }
}

size_t webhooks_receivers(webhooks *w) { return w ? w->n : 0; }

void webhooks_receiver_counts(webhooks *w, size_t i, unsigned long *dropped, unsigned long *failed,
                              unsigned long *delivered) {
    assert(w && i < w->n);
    const receiver *rx = &w->rx[i];
    *dropped = (rx->q ? (unsigned long)wq_dropped(rx->q) : 0) + atomic_load(&rx->lost);
    *failed = atomic_load(&rx->failed);
    *delivered = atomic_load(&rx->delivered);
}

void webhooks_stop(webhooks *w) {
    if (!w) return;
    atomic_store(&w->deadline_ms, clk_mono_ms() + STOP_GRACE_MS);
    for (size_t i = 0; i < w->n; i++)                     /* the queues wind down side by side */
        if (w->rx[i].q) wq_close(w->rx[i].q);
    for (size_t i = 0; i < w->n; i++) {
        receiver *rx = &w->rx[i];
        wq_stop(rx->q);
        if (rx->unsent)
            fprintf(stderr, "goblind warn: webhook %s: %lu events not delivered at shutdown\n", rx->shown, rx->unsent);
        if (rx->curl) curl_easy_cleanup(rx->curl);
        free(rx->url);
    }
    free(w);
    curl_global_cleanup();
}
