/* http_client: a minimal blocking HTTP GET for the CLI. */
#include "daemon/http_client.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/listen_addr.h"

#define MAX_REPLY (64u << 20)
#define TIMEOUT_MS 70000   /* covers ?wait=60 */

static int connect_to(const char *host, int port, char *err, size_t errlen) {
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(host, ps, &hints, &ai);
    if (rc) { snprintf(err, errlen, "%s: %s", host, gai_strerror(rc)); return -1; }
    int fd = -1;
    for (struct addrinfo *p = ai; p && fd < 0; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (fd >= 0 && connect(fd, p->ai_addr, p->ai_addrlen) != 0) {
            snprintf(err, errlen, "cannot connect to %s:%d: %s (is goblind serve running?)", host, port, strerror(errno));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    return fd;
}

void http_get(const char *base, const char *path, const char *token, http_reply *out) {
    memset(out, 0, sizeof *out);
    if (!strncmp(base, "http://", 7)) base += 7;
    char hostport[300], host[256];
    snprintf(hostport, sizeof hostport, "%s", base);
    char *slash = strchr(hostport, '/');
    if (slash) *slash = '\0';
    int port;
    if (!listen_addr_split(hostport, host, &port)) {
        snprintf(out->error, sizeof out->error, "bad daemon address '%s' (want HOST:PORT)", base);
        return;
    }
    int fd = connect_to(host, port, out->error, sizeof out->error);
    if (fd < 0) return;
    char req[2048];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: %s\r\nAccept: application/json\r\n%s%s%s\r\n", path,
                     hostport, token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof req || write(fd, req, (size_t)n) != n) {
        snprintf(out->error, sizeof out->error, "cannot send the request: %s", strerror(errno));
        close(fd);
        return;
    }
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, TIMEOUT_MS) <= 0) { snprintf(out->error, sizeof out->error, "timed out"); break; }
        if (len == cap) {
            if (cap >= MAX_REPLY) { snprintf(out->error, sizeof out->error, "reply too large"); break; }
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    char *body = strstr(buf, "\r\n\r\n");
    if (out->error[0] || !body || sscanf(buf, "HTTP/%*d.%*d %d", &out->status) != 1) {
        if (!out->error[0]) snprintf(out->error, sizeof out->error, "malformed reply from the daemon");
        out->status = 0;
        free(buf);
        return;
    }
    body += 4;
    out->len = len - (size_t)(body - buf);
    memmove(buf, body, out->len + 1);
    out->body = buf;
}
