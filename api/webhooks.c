/* webhooks: a bounded queue and one libcurl sender thread. */
#include "api/webhooks.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct webhooks {
    char *urls[WEBHOOK_MAX_URLS];
    size_t n_urls;
    char *queue[WEBHOOK_QUEUE];
    size_t head, count;
    unsigned long dropped;
    bool stopping;
    time_t stop_deadline;       /* after stop: what is still queued then is dropped */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
};

static size_t discard(char *p, size_t size, size_t n, void *user) {
    (void)p; (void)user;
    return size * n;
}

/* One POST; true on a 2xx answer. */
static bool post_once(CURL *c, const char *url, const char *json) {
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
    long code = 0;
    bool ok = curl_easy_perform(c) == CURLE_OK && curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK &&
              code >= 200 && code < 300;
    curl_slist_free_all(h);
    return ok;
}

/* Sleeps up to ms, less when stopping. Caller holds no lock. */
static void backoff(webhooks *w, int ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&w->lock);
    while (!w->stopping && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0) {}
    pthread_mutex_unlock(&w->lock);
}

static void *sender(void *arg) {
    webhooks *w = arg;
    CURL *c = curl_easy_init();
    for (;;) {
        pthread_mutex_lock(&w->lock);
        while (!w->count && !w->stopping) pthread_cond_wait(&w->wake, &w->lock);
        if (w->count && w->stopping && time(NULL) > w->stop_deadline) {
            fprintf(stderr, "goblind warn: webhooks: %zu events not delivered at shutdown\n", w->count);
            while (w->count) free(w->queue[(w->head + WEBHOOK_QUEUE - w->count--) % WEBHOOK_QUEUE]);
        }
        if (!w->count) { pthread_mutex_unlock(&w->lock); break; }
        char *json = w->queue[(w->head + WEBHOOK_QUEUE - w->count) % WEBHOOK_QUEUE];
        w->count--;
        bool stopping = w->stopping;
        pthread_mutex_unlock(&w->lock);
        for (size_t u = 0; c && u < w->n_urls; u++)
            for (int attempt = 1; attempt <= WEBHOOK_ATTEMPTS; attempt++) {
                if (post_once(c, w->urls[u], json)) break;
                if (attempt == WEBHOOK_ATTEMPTS || stopping) {
                    fprintf(stderr, "goblind warn: webhook %s: event not delivered after %d attempts\n", w->urls[u],
                            WEBHOOK_ATTEMPTS);
                } else if (!stopping) {
                    backoff(w, 1000 << (attempt - 1));
                }
            }
        free(json);
    }
    if (c) curl_easy_cleanup(c);
    return NULL;
}

webhooks *webhooks_start(const char *const *urls, size_t n) {
    if (n == 0) return NULL;
    webhooks *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    for (size_t i = 0; i < n && i < WEBHOOK_MAX_URLS; i++) w->urls[w->n_urls++] = strdup(urls[i]);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (pthread_create(&w->thread, NULL, sender, w) != 0) {
        for (size_t i = 0; i < w->n_urls; i++) free(w->urls[i]);
        free(w);
        return NULL;
    }
    return w;
}

void webhooks_post(webhooks *w, const char *json) {
    if (!w) return;
    char *copy = strdup(json);
    if (!copy) return;
    pthread_mutex_lock(&w->lock);
    if (w->count == WEBHOOK_QUEUE) {                  /* full: the oldest goes */
        size_t oldest = (w->head + WEBHOOK_QUEUE - w->count) % WEBHOOK_QUEUE;
        free(w->queue[oldest]);
        w->count--;
        if (w->dropped++ == 0) fprintf(stderr, "goblind warn: webhook queue full; dropping the oldest events\n");
    }
    w->queue[w->head] = copy;
    w->head = (w->head + 1) % WEBHOOK_QUEUE;
    w->count++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
}

void webhooks_stop(webhooks *w) {
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    w->stop_deadline = time(NULL) + 2;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    for (size_t i = 0; i < w->n_urls; i++) free(w->urls[i]);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w);
    curl_global_cleanup();
}
