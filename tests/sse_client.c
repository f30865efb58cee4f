/* sse_client: a test's client of GET /events that allocates nothing (see sse_client.h). */
#include "tests/sse_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* Opens /events (after last_id when non-zero). */
bool sse_open(sse *s, int port) {
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (s->fd < 0) return false;
    struct timeval tv = {.tv_sec = 20};
    setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char req[256], last[64] = "";
    if (s->last_id) snprintf(last, sizeof last, "Last-Event-ID: %llu\r\n", s->last_id);
    int n = snprintf(req, sizeof req, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", last);
    if (connect(s->fd, (struct sockaddr *)&sa, sizeof sa) != 0 || send(s->fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        close(s->fd);
        return false;
    }
    s->raw_len = s->text_len = s->chunk_left = 0;
    s->head_done = s->need_crlf = s->ended = false;
    return true;
}

/* Drops the first n raw bytes (taken into the text, or framing). */
static void drop_raw(sse *s, size_t n) {
    memmove(s->raw, s->raw + n, s->raw_len - n);
    s->raw_len -= n;
}

/* Moves what it can of the raw bytes into the text: past the HTTP head, chunk by chunk. */
static void sse_decode(sse *s) {
    for (;;) {
        if (!s->head_done) {
            char *h = memmem(s->raw, s->raw_len, "\r\n\r\n", 4);
            if (!h) return;
            if (strncmp(s->raw, "HTTP/1.1 200", 12)) { s->ended = true; return; }   /* a 503: no stream */
            drop_raw(s, (size_t)(h - s->raw) + 4);
            s->head_done = true;
        }
        if (!s->chunk_left) {
            if (s->need_crlf) {
                if (s->raw_len < 2) return;
                drop_raw(s, 2);
                s->need_crlf = false;
            }
            char *crlf = memmem(s->raw, s->raw_len, "\r\n", 2);
            if (!crlf) return;
            s->chunk_left = strtoul(s->raw, NULL, 16);
            drop_raw(s, (size_t)(crlf - s->raw) + 2);
            if (!s->chunk_left) { s->ended = true; return; }
        }
        size_t n = s->chunk_left < s->raw_len ? s->chunk_left : s->raw_len;
        if (!n || s->text_len + n > s->half) return;
        memcpy(s->text + s->text_len, s->raw, n);
        s->text_len += n;
        drop_raw(s, n);
        s->chunk_left -= n;
        if (!s->chunk_left) s->need_crlf = true;
    }
}

/* The next SSE message's text (up to its blank line) into out; false when the stream ended
 * (closed, broken off) or nothing came within 20 s (*hung). */
bool sse_next(sse *s, char *out, size_t cap, bool *hung) {
    *hung = false;
    for (;;) {
        char *end = memmem(s->text, s->text_len, "\n\n", 2);
        if (end) {
            size_t n = (size_t)(end - s->text) + 2, m = n < cap - 1 ? n : cap - 1;
            memcpy(out, s->text, m);
            out[m] = '\0';
            memmove(s->text, s->text + n, s->text_len - n);
            s->text_len -= n;
            return true;
        }
        if (s->ended || s->raw_len == s->half) return false;
        ssize_t r = recv(s->fd, s->raw + s->raw_len, s->half - s->raw_len, 0);
        if (r <= 0) {
            *hung = r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
            return false;
        }
        s->raw_len += (size_t)r;
        sse_decode(s);
    }
}

