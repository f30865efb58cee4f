/* body_budget: a cap on the bytes of response bodies held in memory at once.
 *
 * An ordinary answer is built whole in memory and kept until libmicrohttpd has sent it; a
 * client that asks and never reads keeps it until the connection times out. A thousand such
 * clients of a few-hundred-kilobyte answer (/runs?limit=1000) would hold hundreds of
 * megabytes. Every in-memory body is counted here from its response's creation to its release;
 * a body of at least `small` bytes that would take the total past `cap` is refused (the caller
 * answers 503), so small answers (/healthz, errors) are never refused. Streamed bodies
 * (body_stream.h) have their own bound. Thread-safe. */
#ifndef GOBLIN_BODY_BUDGET_H
#define GOBLIN_BODY_BUDGET_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct body_budget {
    atomic_size_t used;
    size_t cap, small;
} body_budget;

/* An empty budget of `cap` bytes; bodies under `small` bytes are never refused. */
void body_budget_init(body_budget *b, size_t cap, size_t small);
/* A response that owns body (malloc'd) and counts it until libmicrohttpd frees it. NULL
 * (body freed) when it does not fit the cap or memory runs out. */
struct MHD_Response *body_budget_response(body_budget *b, char *body, size_t len);
/* Bytes of bodies held now. */
size_t body_budget_used(body_budget *b);

#endif
