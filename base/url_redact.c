/* url_redact: a URL with its userinfo, query values and fragment replaced (see url_redact.h). */
#include "base/url_redact.h"

#include <assert.h>
#include <string.h>

typedef struct out_buf {
    char *p;
    size_t n, len;
} out_buf;

static void put(out_buf *o, const char *s, size_t k) {
    for (size_t i = 0; i < k && o->len + 1 < o->n; i++) o->p[o->len++] = s[i];
    o->p[o->len] = '\0';
}

char *url_redact(const char *url, char *out, size_t n) {
    assert(out && n > 0);
    out_buf o = {out, n, 0};
    out[0] = '\0';
    if (!url) return out;
    const char *at = url, *scheme = strstr(url, "://");
    if (scheme && (size_t)(scheme - url) < strcspn(url, "/?#")) {
        put(&o, url, (size_t)(scheme + 3 - url));
        at = scheme + 3;
    }
    size_t auth = strcspn(at, "/?#");           /* the authority: [userinfo@]host[:port] */
    const char *user_end = NULL;
    for (const char *c = at; c < at + auth; c++)
        if (*c == '@') user_end = c;
    if (user_end) {
        put(&o, "***", 3);
        put(&o, user_end, (size_t)(at + auth - user_end));
    } else {
        put(&o, at, auth);
    }
    at += auth;
    size_t path = strcspn(at, "?#");
    put(&o, at, path);
    at += path;
    if (*at == '?') {
        put(&o, "?", 1);
        at++;
        while (*at && *at != '#') {
            size_t item = strcspn(at, "&#");
            const char *eq = memchr(at, '=', item);
            if (eq) {
                put(&o, at, (size_t)(eq - at));
                put(&o, "=***", 4);
            } else if (item) {
                put(&o, "***", 3);
            }
            at += item;
            if (*at == '&') { put(&o, "&", 1); at++; }
        }
    }
    if (*at == '#') put(&o, "#***", 4);
    return out;
}
