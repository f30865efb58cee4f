/* webhooks: one bounded queue and one libcurl sender thread per receiver (see webhooks.h). */
#include "api/webhooks.h"

#include <assert.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/url_redact.h"

typedef struct receiver {
    struct webhooks *w;
    char *url;
    char shown[512];            /* the URL as logged: credentials redacted */
    char *queue[WEBHOOK_QUEUE]; /* under w->lock */
    size_t head, count;
    unsigned long dropped, failed, delivered;
    pthread_cond_t wake;
    pthread_t thread;
    bool started;
} receiver;

struct webhooks {
    receiver rx[WEBHOOK_MAX_URLS];
    size_t n;
    bool stopping;
    time_t stop_deadline;       /* after stop: what is still queued then is dropped */
    pthread_mutex_t lock;       /* every queue and counter; held only for moments */
};

static size_t discard(char *p, size_t size, size_t n, void *user) {
    (void)p; (void)user;
    return size * n;
}

/* True once shutdown's grace for draining the queues is over. */
static bool past_deadline(webhooks *w) {
    pthread_mutex_lock(&w->lock);
    bool over = w->stopping && time(NULL) >= w->stop_deadline;
    pthread_mutex_unlock(&w->lock);
    return over;
}

/* libcurl's progress callback: aborts a POST in flight once the shutdown grace is over, so a
 * receiver that accepts and never answers cannot hold shutdown for the 5 s timeout per try. */
static int abort_at_deadline(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un) {
    (void)dt; (void)dn; (void)ut; (void)un;
    return past_deadline(user) ? 1 : 0;
}

static bool is_stopping(webhooks *w) {
    pthread_mutex_lock(&w->lock);
    bool s = w->stopping;
    pthread_mutex_unlock(&w->lock);
    return s;
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

/* Sleeps up to ms on rx's own condition, less when stopping. Caller holds no lock. */
static void backoff(receiver *rx, int ms) {
    webhooks *w = rx->w;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&w->lock);
    while (!w->stopping && pthread_cond_timedwait(&rx->wake, &w->lock, &until) == 0) {}
    pthread_mutex_unlock(&w->lock);
}

/* Caller holds the lock: takes the oldest queued event (NULL when none). */
static char *take_locked(receiver *rx) {
    if (!rx->count) return NULL;
    char *json = rx->queue[(rx->head + WEBHOOK_QUEUE - rx->count) % WEBHOOK_QUEUE];
    rx->count--;
    return json;
}

/* One receiver's thread: its queue, in order, each event up to WEBHOOK_ATTEMPTS times. */
static void *sender(void *arg) {
    receiver *rx = arg;
    webhooks *w = rx->w;
    CURL *c = curl_easy_init();
    for (;;) {
        pthread_mutex_lock(&w->lock);
        while (!rx->count && !w->stopping) pthread_cond_wait(&rx->wake, &w->lock);
        if (rx->count && w->stopping && time(NULL) >= w->stop_deadline) {
            fprintf(stderr, "goblind warn: webhook %s: %zu events not delivered at shutdown\n", rx->shown, rx->count);
            for (char *j; (j = take_locked(rx));) free(j);
        }
        char *json = take_locked(rx);
        pthread_mutex_unlock(&w->lock);
        if (!json) break;
        bool delivered = false;
        for (int attempt = 1; c && attempt <= WEBHOOK_ATTEMPTS; attempt++) {
            if ((delivered = post_once(w, c, rx->url, json))) break;
            bool stopping = is_stopping(w);             /* shutting down: one try only */
            if (attempt == WEBHOOK_ATTEMPTS || stopping) {
                fprintf(stderr, "goblind warn: webhook %s: event not delivered after %d attempt%s%s\n", rx->shown,
                        attempt, attempt == 1 ? "" : "s", stopping ? " (shutting down)" : "");
                break;
            }
            backoff(rx, 1000 << (attempt - 1));
        }
        pthread_mutex_lock(&w->lock);
        if (delivered) rx->delivered++;
        else rx->failed++;
        pthread_mutex_unlock(&w->lock);
        free(json);
    }
    if (c) curl_easy_cleanup(c);
    return NULL;
}

webhooks *webhooks_start(const char *const *urls, size_t n) {
    if (n == 0) return NULL;
    webhooks *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    pthread_mutex_init(&w->lock, NULL);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    for (size_t i = 0; i < n && i < WEBHOOK_MAX_URLS; i++) {
        receiver *rx = &w->rx[w->n];
        if (!(rx->url = strdup(urls[i]))) continue;
        rx->w = w;
        url_redact(urls[i], rx->shown, sizeof rx->shown);
        pthread_cond_init(&rx->wake, NULL);
        w->n++;
        rx->started = pthread_create(&rx->thread, NULL, sender, rx) == 0;
        if (!rx->started) fprintf(stderr, "goblind warn: webhook %s: cannot start its thread; not delivered\n", rx->shown);
    }
    return w;
}

void webhooks_post(webhooks *w, const char *json) {
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < w->n; i++) {
        receiver *rx = &w->rx[i];
        char *copy = rx->started ? strdup(json) : NULL;
        if (!copy) continue;
        if (rx->count == WEBHOOK_QUEUE) {                 /* full: its oldest goes */
            free(take_locked(rx));
            if (rx->dropped++ == 0)
                fprintf(stderr, "goblind warn: webhook %s: queue full; dropping its oldest events\n", rx->shown);
        }
        rx->queue[rx->head] = copy;
        rx->head = (rx->head + 1) % WEBHOOK_QUEUE;
        rx->count++;
        pthread_cond_signal(&rx->wake);
    }
    pthread_mutex_unlock(&w->lock);
}

size_t webhooks_receivers(webhooks *w) { return w ? w->n : 0; }

void webhooks_receiver_counts(webhooks *w, size_t i, unsigned long *dropped, unsigned long *failed,
                              unsigned long *delivered) {
    assert(w && i < w->n);
    pthread_mutex_lock(&w->lock);
    *dropped = w->rx[i].dropped;
    *failed = w->rx[i].failed;
    *delivered = w->rx[i].delivered;
    pthread_mutex_unlock(&w->lock);
}

void webhooks_stop(webhooks *w) {
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    w->stop_deadline = time(NULL) + 2;
    for (size_t i = 0; i < w->n; i++) pthread_cond_broadcast(&w->rx[i].wake);
    pthread_mutex_unlock(&w->lock);
    for (size_t i = 0; i < w->n; i++) {                   /* the threads drain side by side */
        receiver *rx = &w->rx[i];
        if (rx->started) pthread_join(rx->thread, NULL);
        for (char *j; (j = take_locked(rx));) free(j);
        free(rx->url);
        pthread_cond_destroy(&rx->wake);
    }
    pthread_mutex_destroy(&w->lock);
    free(w);
    curl_global_cleanup();
}
