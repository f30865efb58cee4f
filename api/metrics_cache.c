/* metrics_cache: a small open-addressing table behind one mutex. */
#include "api/metrics_cache.h"

#include "base/str_hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PROBE 8
#define VERSION_STRIPES 1024     /* a version per stripe of ids: a drop refuses only puts of its stripe */

typedef struct entry {
    char id[130];
    bool used;
    uint64_t stamp;              /* insertion order, for replacement */
    cached_run run;
} entry;

struct metrics_cache {
    pthread_mutex_t lock;
    entry *slots;
    size_t n;
    uint64_t clock;
    uint64_t versions[VERSION_STRIPES];
};

static uint64_t *version_of(metrics_cache *c, const char *id) { return &c->versions[str_hash(id) % VERSION_STRIPES]; }

uint64_t metrics_cache_version(metrics_cache *c, const char *id) {
    pthread_mutex_lock(&c->lock);
    uint64_t v = *version_of(c, id);
    pthread_mutex_unlock(&c->lock);
    return v;
}

metrics_cache *metrics_cache_new(size_t capacity) {
    metrics_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->n = capacity < PROBE ? PROBE : capacity;
    c->slots = calloc(c->n, sizeof *c->slots);
    if (!c->slots) { free(c); return NULL; }
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void metrics_cache_free(metrics_cache *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) free(c->slots[i].run.body);
    free(c->slots);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static entry *find(metrics_cache *c, const char *id) {
    size_t h = str_hash(id) % c->n;
    for (size_t k = 0; k < PROBE; k++) {
        entry *e = &c->slots[(h + k) % c->n];
        if (e->used && !strcmp(e->id, id)) return e;
    }
    return NULL;
}

bool metrics_cache_get(metrics_cache *c, const char *id, cached_run *out) {
    bool hit = false;
    pthread_mutex_lock(&c->lock);
    entry *e = find(c, id);
    if (e) {
        *out = e->run;
        out->body = NULL;
        if (e->run.body && (out->body = malloc(e->run.len + 1)) != NULL) memcpy(out->body, e->run.body, e->run.len + 1);
        hit = !e->run.body || out->body;
    }
    pthread_mutex_unlock(&c->lock);
    return hit;
}

void metrics_cache_put(metrics_cache *c, const char *id, const cached_run *run, uint64_t version) {
    if (strlen(id) >= sizeof c->slots[0].id) return;
    char *body = NULL;
    if (run->body && !(body = malloc(run->len + 1))) return;
    if (body) memcpy(body, run->body, run->len + 1);
    pthread_mutex_lock(&c->lock);
    if (*version_of(c, id) != version) {        /* dropped since the read began: it may be stale */
        pthread_mutex_unlock(&c->lock);
        free(body);
        return;
    }
    entry *e = find(c, id);
    if (!e) {                                   /* a free slot in the window, else the oldest */
        size_t h = str_hash(id) % c->n;
        for (size_t k = 0; k < PROBE; k++) {
            entry *x = &c->slots[(h + k) % c->n];
            if (!x->used) { e = x; break; }
            if (!e || x->stamp < e->stamp) e = x;
        }
    }
    free(e->run.body);
    strcpy(e->id, id);
    e->used = true;
    e->stamp = ++c->clock;
    e->run = *run;
    e->run.body = body;
    pthread_mutex_unlock(&c->lock);
}

void metrics_cache_drop(metrics_cache *c, const char *id) {
    pthread_mutex_lock(&c->lock);
    ++*version_of(c, id);
    entry *e = find(c, id);
    if (e) {
        free(e->run.body);
        memset(e, 0, sizeof *e);
    }
    pthread_mutex_unlock(&c->lock);
}
