/* series_cache: a bounded LRU map from a digest of a verdict's inputs to the verdict
 * (series_cache.h). A fixed entry array, hash chains through it and a doubly linked recency
 * list, all indices; one mutex. */
#include "api/series_cache.h"

#include <assert.h>
#include <gnutls/crypto.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct entry {
    series_cache_key key;
    series_verdict v;
    uint32_t chain;              /* next entry of the same bucket */
    uint32_t newer, older;       /* the recency list */
} entry;

struct series_cache {
    pthread_mutex_t lock;
    entry *e;
    uint32_t *bucket;            /* heads of the hash chains */
    size_t capacity, used, nbuckets;   /* nbuckets: a power of two >= 2 capacity */
    uint32_t newest, oldest;
    uint64_t hits, misses, evictions;
};

series_cache *series_cache_new(size_t capacity) {
    assert(capacity >= 1 && capacity < NONE / 2);
    series_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->capacity = capacity;
    c->nbuckets = 1;
    while (c->nbuckets < 2 * capacity) c->nbuckets *= 2;
    c->e = calloc(capacity, sizeof *c->e);
    c->bucket = malloc(c->nbuckets * sizeof *c->bucket);
    if (!c->e || !c->bucket || pthread_mutex_init(&c->lock, NULL)) {
        free(c->e), free(c->bucket), free(c);
        return NULL;
    }
    memset(c->bucket, 0xff, c->nbuckets * sizeof *c->bucket);
    c->newest = c->oldest = NONE;
    return c;
}

void series_cache_free(series_cache *c) {
    if (!c) return;
    pthread_mutex_destroy(&c->lock);
    free(c->e);
    free(c->bucket);
    free(c);
}

bool series_cache_walls_digest(const double *walls, size_t n, uint8_t out[SERIES_CACHE_DIGEST]) {
    static const double none = 0;   /* gnutls wants a pointer even for no bytes */
    return gnutls_hash_fast(GNUTLS_DIG_SHA256, n ? (const void *)walls : &none, n * sizeof *walls, out) == 0;
}

bool series_cache_key_of(const uint8_t cand[SERIES_CACHE_DIGEST], const uint8_t *const *refs, size_t nrefs,
                         series_cache_key *key) {
    /* the method's constants are part of the key: a build with another seed or number of
     * resamples never meets this one's entries, but the cache lives in one process anyway */
    static const char TAG[] = "goblind series verdict v1";
    const uint64_t method[3] = {NS_BOOTSTRAP_SEED, NS_BOOTSTRAP_ROUNDS, NS_MIN_STEPS};
    uint64_t count = nrefs;
    /* the inputs laid end to end and hashed in one call (the same digest as hashing them one
     * after the other): gnutls_hash_init leaks its handle when it fails for lack of memory */
    size_t head = sizeof TAG + sizeof method + SERIES_CACHE_DIGEST + sizeof count;
    if (nrefs > (SIZE_MAX - head) / SERIES_CACHE_DIGEST) return false;
    uint8_t *b = malloc(head + nrefs * SERIES_CACHE_DIGEST), *p = b;
    if (!b) return false;
    memcpy(p, TAG, sizeof TAG), p += sizeof TAG;
    memcpy(p, method, sizeof method), p += sizeof method;
    memcpy(p, cand, SERIES_CACHE_DIGEST), p += SERIES_CACHE_DIGEST;
    memcpy(p, &count, sizeof count), p += sizeof count;
    for (size_t i = 0; i < nrefs; i++) memcpy(p, refs[i], SERIES_CACHE_DIGEST), p += SERIES_CACHE_DIGEST;
    bool ok = gnutls_hash_fast(GNUTLS_DIG_SHA256, b, (size_t)(p - b), key->b) == 0;
    free(b);
    return ok;
}

static size_t bucket_of(const series_cache *c, const series_cache_key *k) {
    uint64_t x;
    memcpy(&x, k->b, sizeof x);   /* a SHA-256 digest: its bytes are already uniform */
    return (size_t)(x & (c->nbuckets - 1));
}

static uint32_t find(const series_cache *c, const series_cache_key *k) {
    for (uint32_t i = c->bucket[bucket_of(c, k)]; i != NONE; i = c->e[i].chain)
        if (!memcmp(c->e[i].key.b, k->b, sizeof k->b)) return i;
    return NONE;
}

static void unlink_recency(series_cache *c, uint32_t i) {
    entry *e = &c->e[i];
    if (e->newer != NONE) c->e[e->newer].older = e->older;
    else c->newest = e->older;
    if (e->older != NONE) c->e[e->older].newer = e->newer;
    else c->oldest = e->newer;
    e->newer = e->older = NONE;
}

static void push_newest(series_cache *c, uint32_t i) {
    entry *e = &c->e[i];
    e->older = c->newest, e->newer = NONE;
    if (c->newest != NONE) c->e[c->newest].newer = i;
    c->newest = i;
    if (c->oldest == NONE) c->oldest = i;
}

static void unlink_chain(series_cache *c, uint32_t i) {
    uint32_t *p = &c->bucket[bucket_of(c, &c->e[i].key)];
    while (*p != i) {
        assert(*p != NONE);
        p = &c->e[*p].chain;
    }
    *p = c->e[i].chain;
}

bool series_cache_get(series_cache *c, const series_cache_key *key, series_verdict *out) {
    pthread_mutex_lock(&c->lock);
    uint32_t i = find(c, key);
    if (i != NONE) {
        *out = c->e[i].v;
        unlink_recency(c, i);
        push_newest(c, i);
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->lock);
    return i != NONE;
}

void series_cache_put(series_cache *c, const series_cache_key *key, const series_verdict *v) {
    pthread_mutex_lock(&c->lock);
    uint32_t i = find(c, key);
    if (i != NONE) {               /* another request computed it meanwhile: the same verdict */
        c->e[i].v = *v;
        unlink_recency(c, i);
    } else {
        if (c->used < c->capacity) {
            i = (uint32_t)c->used++;
        } else {
            i = c->oldest;
            assert(i != NONE);
            unlink_recency(c, i);
            unlink_chain(c, i);
            c->evictions++;
        }
        c->e[i].key = *key;
        c->e[i].v = *v;
        size_t b = bucket_of(c, key);
        c->e[i].chain = c->bucket[b];
        c->bucket[b] = i;
    }
    push_newest(c, i);
    pthread_mutex_unlock(&c->lock);
}

void series_cache_stats_get(series_cache *c, series_cache_stats *out) {
    pthread_mutex_lock(&c->lock);
    *out = (series_cache_stats){c->hits, c->misses, c->evictions, c->used, c->capacity,
                                sizeof *c + c->capacity * sizeof *c->e + c->nbuckets * sizeof *c->bucket};
    pthread_mutex_unlock(&c->lock);
}
