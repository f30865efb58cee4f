/* http_client: blocking GETs on libcurl for the CLI. */
#include "daemon/http_client.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/url_redact.h"

#define MAX_REPLY (64u << 20)
#define TIMEOUT_S 75L              /* covers ?wait=60 */

typedef struct sink {
    char *data;
    size_t len, cap;
    bool too_large;
    http_reply *reply;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *user) {
    sink *s = user;
    size_t add = size * n;
    if (s->len + add > MAX_REPLY) { s->too_large = true; return 0; }
    if (s->len + add + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap < s->len + add + 1) cap *= 2;
        char *d = realloc(s->data, cap);
        if (!d) return 0;
        s->data = d;
        s->cap = cap;
    }
    memcpy(s->data + s->len, p, add);
    s->len += add;
    s->data[s->len] = '\0';
    return add;
}

/* Keeps the Goblind-Run-Status header (the state of the run a /metrics body belongs to). */
static size_t on_header(char *p, size_t size, size_t n, void *user) {
    sink *s = user;
    size_t len = size * n;
    static const char NAME[] = "Goblind-Run-Status:";
    if (len > sizeof NAME - 1 && !strncasecmp(p, NAME, sizeof NAME - 1)) {
        const char *v = p + sizeof NAME - 1;
        size_t vn = len - (sizeof NAME - 1);
        while (vn && (*v == ' ' || *v == '\t')) { v++; vn--; }
        while (vn && (v[vn - 1] == '\r' || v[vn - 1] == '\n' || v[vn - 1] == ' ')) vn--;
        snprintf(s->reply->run_status, sizeof s->reply->run_status, "%.*s", (int)vn, v);
    }
    return len;
}

/* One request (method GET or DELETE) of path at the target. */
static void request(const http_target *t, const char *method, const char *path, http_reply *out) {
    memset(out, 0, sizeof *out);
    bool has_scheme = !strncmp(t->base, "http://", 7) || !strncmp(t->base, "https://", 8);
    if (!has_scheme && strstr(t->base, "://")) {
        char shown[512];
        snprintf(out->error, sizeof out->error, "bad daemon address '%s' (want HOST:PORT, http://HOST:PORT or https://HOST:PORT)",
                 url_redact(t->base, shown, sizeof shown));
        return;
    }
    size_t blen = strlen(t->base);
    while (blen && t->base[blen - 1] == '/') blen--;
    char url[512];
    int n = snprintf(url, sizeof url, "%s%.*s%s", has_scheme ? "" : "http://", (int)blen, t->base, path);
    if (n < 0 || (size_t)n >= sizeof url) { snprintf(out->error, sizeof out->error, "address too long"); return; }
    CURL *c = curl_easy_init();
    if (!c) { snprintf(out->error, sizeof out->error, "cannot initialise libcurl"); return; }
    sink s = {.reply = out};
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *hdr = curl_slist_append(NULL, "Accept: application/json");
    char auth[600];
    if (t->token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", t->token);
        hdr = curl_slist_append(hdr, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    if (strcmp(method, "GET")) curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, TIMEOUT_S);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "goblind-cli");
    if (t->cacert) curl_easy_setopt(c, CURLOPT_CAINFO, t->cacert);
    if (t->cert) curl_easy_setopt(c, CURLOPT_SSLCERT, t->cert);
    if (t->key) curl_easy_setopt(c, CURLOPT_SSLKEY, t->key);
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (rc != CURLE_OK) {
        const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
        char shown[512];                        /* printed: credentials in the URL stay out */
        url_redact(url, shown, sizeof shown);
        if (s.too_large) snprintf(out->error, sizeof out->error, "%s: reply larger than %u MiB", shown, MAX_REPLY >> 20);
        else if (rc == CURLE_COULDNT_CONNECT)
            snprintf(out->error, sizeof out->error, "%s: %s (is goblind serve running?)", shown, why);
        else snprintf(out->error, sizeof out->error, "%s: %s", shown, why);
        free(s.data);
    } else {
        out->status = (int)code;
        out->body = s.data ? s.data : strdup("");
        out->len = s.len;
    }
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
}

void http_client_get(const http_target *t, const char *path, http_reply *out) { request(t, "GET", path, out); }

void http_client_delete(const http_target *t, const char *path, http_reply *out) { request(t, "DELETE", path, out); }
