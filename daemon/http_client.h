/* http_client: the GETs the CLI (`goblind runs`, `goblind show`) makes to a daemon, on
 * libcurl: HTTP or HTTPS (server CA, client certificate), bearer token, bounded reply size,
 * a timeout that covers long polls. */
#ifndef GOBLIN_HTTP_CLIENT_H
#define GOBLIN_HTTP_CLIENT_H

#include <stddef.h>

typedef struct http_target {
    const char *base;          /* "HOST:PORT", "http://HOST:PORT" or "https://HOST:PORT" */
    const char *token;         /* bearer token, or NULL */
    const char *cacert;        /* PEM file of the CA that signed the daemon's certificate, or NULL (system CAs) */
    const char *cert, *key;    /* client certificate and its key (PEM), or NULL */
} http_target;

typedef struct http_reply {
    int status;                /* 0 when the request failed (see error) */
    char *body;                /* NUL-terminated; caller frees */
    size_t len;
    char run_status[16];       /* the Goblind-Run-Status header, "" when absent */
    char error[1200];
} http_reply;

/* One GET of path (starting with '/') at the target; fills *out (status 0 and error on failure). */
void http_client_get(const http_target *t, const char *path, http_reply *out);
/* The same with DELETE (goblind forget). */
void http_client_delete(const http_target *t, const char *path, http_reply *out);

#endif
