/* http_send: queueing answers on the HTTP thread (see http_send.c); the api_send_* functions
 * themselves are declared in routes.h. */
#ifndef GOBLIN_HTTP_SEND_H
#define GOBLIN_HTTP_SEND_H

#include <microhttpd.h>
#include <stdbool.h>

#include "api/body_budget.h"

/* Before a request's answer: counts its in-memory body against b (NULL: uncounted). */
void http_send_begin(body_budget *b);
/* After it: the status queued (0: none), and the per-request state cleared. */
unsigned http_send_end(void);
/* Content-Type: application/json and Cache-Control: no-store. */
void http_common_headers(struct MHD_Response *r);
/* Queues r for c with the headers every answer carries (X-Content-Type-Options: nosniff: a
 * browser never guesses HTML out of a JSON, Markdown or text body). Every response goblind
 * builds goes through here, never through MHD_queue_response directly. */
enum MHD_Result http_queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r);
/* The status of a response queued without api_send_* (for the counters). */
void http_note_status(unsigned status);

#endif
