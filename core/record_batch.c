/* record_batch: records with their strings copied into an arena (see record_batch.h). */
#include "core/record_batch.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Arena block size; a larger string gets a block of its own. Blocks are mapped, not
 * malloc'ed: a worker thread's malloc arena would keep them resident after the read, where
 * the driver's later allocations cannot reuse them (+2 MB of peak RSS on the 1 GB run). */
#define BLOCK_MIN (256u << 10)

struct record_batch_block {
    record_batch_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void record_batch_init(record_batch *b) { memset(b, 0, sizeof *b); }

/* n bytes (aligned to 16) from the arena; NULL on allocation failure. */
static void *arena_alloc(record_batch *b, size_t n) {
    n = (n + 15u) & ~(size_t)15u;
    record_batch_block *k = b->blocks;
    if (!k || k->cap - k->used < n) {
        record_batch_block **pp = &b->spare;      /* a spare block large enough, else a new one */
        while (*pp && (*pp)->cap < n) pp = &(*pp)->next;
        if (*pp) { k = *pp; *pp = k->next; }
        else {
            size_t cap = n > BLOCK_MIN - sizeof *k ? n : BLOCK_MIN - sizeof *k;
            void *m = mmap(NULL, sizeof *k + cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) return NULL;
            k = m;
            k->cap = cap;
        }
        k->used = 0;
        k->next = b->blocks;
        b->blocks = k;
    }
    void *p = k->data + k->used;
    k->used += n;
    b->bytes += n;
    return p;
}

/* A NUL-terminated copy of s[0..len) in the arena; *ok false on failure. NULL stays NULL. */
static const char *copy_str(record_batch *b, const char *s, size_t len, bool *ok) {
    if (!s) return NULL;
    char *d = arena_alloc(b, len + 1);
    if (!d) { *ok = false; return NULL; }
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

bool record_batch_add(record_batch *b, const record *r) {
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        record **nr = realloc(b->recs, cap * sizeof *nr);
        if (!nr) return false;
        b->recs = nr;
        b->cap = cap;
    }
    record *c = arena_alloc(b, sizeof *c);
    if (!c) return false;
    *c = *r;
    bool ok = true;
    c->name = copy_str(b, r->name, r->name_len, &ok);
    c->key = r->key ? copy_str(b, r->key, strlen(r->key), &ok) : NULL;
    c->value = copy_str(b, r->value, r->value_len, &ok);
    c->category = copy_str(b, r->category, r->category_len, &ok);
    c->track = copy_str(b, r->track, r->track_len, &ok);
    c->args = copy_str(b, r->args, r->args_len, &ok);
    if (r->fields && r->n_fields) {
        record_field *f = arena_alloc(b, r->n_fields * sizeof *f);
        if (!f) return false;
        for (size_t i = 0; i < r->n_fields; i++) {
            f[i].key = r->fields[i].key ? copy_str(b, r->fields[i].key, strlen(r->fields[i].key), &ok) : NULL;
            f[i].value = copy_str(b, r->fields[i].value, r->fields[i].value_len, &ok);
            f[i].value_len = r->fields[i].value_len;
        }
        c->fields = f;
    }
    if (!ok) return false;        /* (the arena bytes taken stay until the batch is cleared) */
    b->recs[b->n++] = c;
    b->bytes += sizeof *b->recs;
    return true;
}

void record_batch_clear(record_batch *b) {
    while (b->blocks) {
        record_batch_block *k = b->blocks;
        b->blocks = k->next;
        k->next = b->spare;
        b->spare = k;
    }
    b->n = 0;
    b->bytes = 0;
}

void record_batch_free(record_batch *b) {
    record_batch_clear(b);
    while (b->spare) {
        record_batch_block *k = b->spare;
        b->spare = k->next;
        munmap(k, sizeof *k + k->cap);
    }
    free(b->recs);
    record_batch_init(b);
}
