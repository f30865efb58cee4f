/* http_client: the few GETs the CLI (`goblind runs`, `goblind show`) makes to the local
 * daemon. HTTP/1.0 over TCP, no keep-alive, bounded response size. */
#ifndef GOBLIN_HTTP_CLIENT_H
#define GOBLIN_HTTP_CLIENT_H

#include <stddef.h>

typedef struct http_reply {
    int status;                /* 0 when the request failed (see error) */
    char *body;                /* NUL-terminated; caller frees */
    size_t len;
    char error[640];
} http_reply;

/* base: "http://HOST:PORT" or "HOST:PORT"; token: bearer token or NULL. */
void http_get(const char *base, const char *path, const char *token, http_reply *out);

#endif
