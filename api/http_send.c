/* http_send: how answers are queued — JSON headers, the status noted for the counters,
 * Connection: close when asked for, and every in-memory body counted against the body budget
 * (body_budget.h; over it, a small 503 instead). Used on the HTTP thread only. */
#include "api/http_send.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json_text.h"
#include "api/routes.h"

/* The status of the response queued last on this (the HTTP) thread, for the counters. */
static _Thread_local unsigned last_status;
/* Set by api_close_after_response(): the next response queued closes its connection. */
static _Thread_local bool close_after;
/* The body budget of the request this (the HTTP) thread is answering; NULL: bodies uncounted. */
static _Thread_local body_budget *answering;

void api_close_after_response(void) { close_after = true; }

/* Adds Connection: close when asked for: an answer given only because the server is full frees
 * its slot at once rather than keeping an idle keep-alive connection. */
static void closing_header(struct MHD_Response *r) {
    if (!close_after) return;
    close_after = false;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
}

void http_send_begin(body_budget *b) {
    last_status = 0;
    close_after = false;
    answering = b;
}

unsigned http_send_end(void) {
    unsigned st = last_status;
    last_status = 0;
    close_after = false;
    answering = NULL;
    return st;
}

void http_note_status(unsigned status) { last_status = status; }

enum MHD_Result http_queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r) {
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    return MHD_queue_response(c, status, r);
}

void http_common_headers(struct MHD_Response *r) {
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-store");
}

/* Too many bytes of answers are waiting for their clients (body_budget.h): a small 503 instead,
 * and the connection closes. */
static enum MHD_Result send_over_budget(struct MHD_Connection *c) {
    static const char BUSY[] = "{\"error\":\"busy\",\"detail\":\"too many answers are waiting for their clients; retry\"}";
    struct MHD_Response *r = MHD_create_response_from_buffer(sizeof BUSY - 1, (void *)BUSY, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    http_common_headers(r);
    MHD_add_response_header(r, "Retry-After", "2");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    close_after = false;
    last_status = MHD_HTTP_SERVICE_UNAVAILABLE;
    enum MHD_Result ret = http_queue(c, MHD_HTTP_SERVICE_UNAVAILABLE, r);
    MHD_destroy_response(r);
    return ret;
}

/* A response owning body (malloc'd), counted against the body budget; NULL (body freed) when
 * over it, or out of memory. */
static struct MHD_Response *owned_response(char *body, size_t len) {
    if (answering) return body_budget_response(answering, body, len);
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) free(body);
    return r;
}

/* A copy of body, counted; NULL when over the budget or out of memory. */
static struct MHD_Response *copied_response(const char *body, size_t len) {
    char *copy = malloc(len ? len : 1);
    if (!copy) return NULL;
    memcpy(copy, body, len);
    return owned_response(copy, len);
}

/* Whether a failed response was refused by the budget (rather than out of memory). */
static bool over_budget(size_t len) {
    return answering && len >= answering->small && body_budget_used(answering) + len > answering->cap;
}

/* The dashboard page's Content-Security-Policy: its own inline script and style, requests to
 * this daemon only, nothing loaded from anywhere else (GPU nodes are often offline, and a page
 * that cannot reach out cannot leak either). */
#define PAGE_CSP "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " \
                 "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

enum MHD_Result api_send_body(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
                              const char *content_type) {
    struct MHD_Response *r = copied_response(body, len);
    if (!r) return over_budget(len) ? send_over_budget(c) : MHD_NO;
    MHD_add_response_header(r, "Content-Type", content_type);
    if (!strncmp(content_type, "text/html", 9)) MHD_add_response_header(r, "Content-Security-Policy", PAGE_CSP);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    closing_header(r);
    last_status = status;
    enum MHD_Result ret = http_queue(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_buffer(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
                                   const char *etag, int retry_after);

enum MHD_Result api_send_text(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
                              const char *etag, int retry_after) {
    struct MHD_Response *r = copied_response(body, len);
    if (!r) return over_budget(len) ? send_over_budget(c) : MHD_NO;
    return send_buffer(c, status, r, etag, retry_after);
}

enum MHD_Result api_send_response(struct MHD_Connection *c, unsigned status, struct MHD_Response *r) {
    return send_buffer(c, status, r, NULL, 0);
}

enum MHD_Result api_send_owned(struct MHD_Connection *c, unsigned status, char *body, size_t len, const char *etag) {
    struct MHD_Response *r = owned_response(body, len);
    if (!r) return over_budget(len) ? send_over_budget(c) : MHD_NO;
    return send_buffer(c, status, r, etag, 0);
}

enum MHD_Result api_send_run_owned(struct MHD_Connection *c, unsigned status, char *body, size_t len, const char *etag,
                                   const char *run_status) {
    struct MHD_Response *r = owned_response(body, len);
    if (!r) return over_budget(len) ? send_over_budget(c) : MHD_NO;
    MHD_add_response_header(r, "Goblind-Run-Status", run_status);
    return send_buffer(c, status, r, etag, 0);
}

/* Queues r with Content-Type content_type (NULL: application/json), no-store, ETag, Retry-After. */
static enum MHD_Result send_typed(struct MHD_Connection *c, unsigned status, struct MHD_Response *r, const char *etag,
                                  int retry_after, const char *content_type) {
    if (!r) return MHD_NO;
    if (content_type) {
        MHD_add_response_header(r, "Content-Type", content_type);
        MHD_add_response_header(r, "Cache-Control", "no-store");
    } else {
        http_common_headers(r);
    }
    closing_header(r);
    last_status = status;
    if (etag) MHD_add_response_header(r, "ETag", etag);
    if (retry_after > 0) {
        char b[16];
        snprintf(b, sizeof b, "%d", retry_after);
        MHD_add_response_header(r, "Retry-After", b);
    }
    enum MHD_Result ret = http_queue(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_buffer(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
                                   const char *etag, int retry_after) {
    return send_typed(c, status, r, etag, retry_after, NULL);
}

enum MHD_Result api_send_typed_owned(struct MHD_Connection *c, unsigned status, char *body, size_t len, const char *etag,
                                     const char *run_status, const char *content_type) {
    struct MHD_Response *r = owned_response(body, len);
    if (!r) return over_budget(len) ? send_over_budget(c) : MHD_NO;
    MHD_add_response_header(r, "Goblind-Run-Status", run_status);
    return send_typed(c, status, r, etag, 0, content_type);
}

enum MHD_Result api_send_json(struct MHD_Connection *c, unsigned status, json_t *body, const char *etag, int retry_after) {
    size_t len = 0;
    char *s = body ? json_text(body, &len) : NULL;    /* numbers as RunMetrics writes them */
    json_decref(body);
    if (!s) return MHD_NO;
    enum MHD_Result ret = api_send_text(c, status, s, len, etag, retry_after);
    free(s);
    return ret;
}

enum MHD_Result api_send_error(struct MHD_Connection *c, unsigned status, const char *error, const char *detail) {
    return api_send_json(c, status, json_pack("{s:s, s:s}", "error", error, "detail", detail), NULL, 0);
}


enum MHD_Result api_send_not_allowed(struct MHD_Connection *c, const char *allow) {
    json_t *body = json_pack("{s:s, s:s}", "error", "method_not_allowed", "detail",
                             "DELETE is only allowed on /runs/<id>; everything else is GET and HEAD");
    char *s = body ? json_text(body, NULL) : NULL;
    json_decref(body);
    if (!s) return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE);
    if (!r) { free(s); return MHD_NO; }
    MHD_add_response_header(r, "Allow", allow);
    return send_buffer(c, MHD_HTTP_METHOD_NOT_ALLOWED, r, NULL, 0);
}

enum MHD_Result api_send_response_typed(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
                                        const char *content_type) {
    return send_typed(c, status, r, NULL, 0, content_type);
}
