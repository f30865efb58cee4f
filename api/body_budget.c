/* body_budget: an atomic byte count and a free callback per response (body_budget.h). */
#include "api/body_budget.h"

#include <stdlib.h>

typedef struct counted {
    body_budget *b;
    char *body;
    size_t len;
} counted;

void body_budget_init(body_budget *b, size_t cap, size_t small) {
    atomic_init(&b->used, 0);
    b->cap = cap;
    b->small = small;
}

size_t body_budget_used(body_budget *b) { return atomic_load(&b->used); }

/* libmicrohttpd releases the response: the body leaves the budget. */
static void release(void *cls) {
    counted *k = cls;
    atomic_fetch_sub(&k->b->used, k->len);
    free(k->body);
    free(k);
}

struct MHD_Response *body_budget_response(body_budget *b, char *body, size_t len) {
    size_t before = atomic_fetch_add(&b->used, len);
    if (len >= b->small && before + len > b->cap) {
        atomic_fetch_sub(&b->used, len);
        free(body);
        return NULL;
    }
    counted *k = malloc(sizeof *k);
    struct MHD_Response *r = k ? MHD_create_response_from_buffer_with_free_callback_cls(len, body, release, k) : NULL;
    if (!r) {
        atomic_fetch_sub(&b->used, len);
        free(body);
        free(k);
        return NULL;
    }
    *k = (counted){b, body, len};
    return r;
}
