/* sse_client: a client of GET /events for tests that count allocations (it allocates
 * nothing: the buffer is the caller's): opens the stream over a plain socket, removes the
 * HTTP head and the chunked framing, and hands out one SSE message at a time. */
#ifndef GOBLIN_SSE_CLIENT_H
#define GOBLIN_SSE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/* An open GET /events stream: the raw bytes, de-chunked into the text. */
typedef struct sse {
    int fd;
    char *raw, *text;         /* two halves of the caller's buffer, `half` bytes each */
    size_t half;
    size_t raw_len, text_len;
    bool head_done, need_crlf, ended;
    size_t chunk_left;
    unsigned long long last_id;   /* sent as Last-Event-ID when non-zero */
} sse;

/* Opens /events on 127.0.0.1:port (after last_id when non-zero); false when it cannot connect. */
bool sse_open(sse *s, int port);
/* The next SSE message's text (up to its blank line) into out; false when the stream ended
 * (closed, broken off, not a 200) or nothing came within 20 s (*hung). */
bool sse_next(sse *s, char *out, size_t cap, bool *hung);

#endif
