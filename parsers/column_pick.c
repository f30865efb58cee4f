/* column_pick: the reference's pick_column() over a CSV header. */
#include "parsers/column_pick.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool same(const strbuf *a, const char *b) {
    return a->len == strlen(b) && memcmp(a->data ? a->data : "", b, a->len) == 0;
}

static ssize_t last_named(const strbuf *names, size_t n, size_t i) {
    for (size_t j = n; j-- > i;)
        if (names[j].len == names[i].len &&
            (names[i].len == 0 || memcmp(names[j].data, names[i].data, names[i].len) == 0))
            return (ssize_t)j;
    return (ssize_t)i;
}

/* ASCII lower-case copy of an ASCII candidate, with '_' as a token break when split. */
static void ascii_lower(const char *s, char *out, size_t cap) {
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++) out[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    out[i] = '\0';
}

ssize_t column_pick(const strbuf *names, size_t n, const char *const *cands, const char *const *exclude) {
    strbuf *low = calloc(n ? n : 1, sizeof *low);
    bool *usable = calloc(n ? n : 1, sizeof *usable);
    ssize_t found = -1;
    if (!low || !usable) goto out;
    for (size_t i = 0; i < n; i++) {
        if (!fold_lower(names[i].data ? names[i].data : "", names[i].len, &low[i])) goto out;
        usable[i] = true;
        for (size_t x = 0; exclude && exclude[x]; x++)
            if (contains(low[i].data, low[i].len, exclude[x])) usable[i] = false;
    }
    for (size_t c = 0; cands[c]; c++)                        /* 1. exact */
        for (size_t i = 0; i < n; i++)
            if (usable[i] && same(&names[i], cands[c])) { found = last_named(names, n, i); goto out; }
    for (size_t c = 0; cands[c]; c++) {                      /* 2. case-insensitive, first column wins */
        char lc[128];
        ascii_lower(cands[c], lc, sizeof lc);
        for (size_t i = 0; i < n; i++)
            if (usable[i] && same(&low[i], lc)) { found = last_named(names, n, i); goto out; }
    }
    for (size_t c = 0; cands[c]; c++) {                      /* 3. every token is a substring */
        char lc[128];
        ascii_lower(cands[c], lc, sizeof lc);
        char *tokens[16];
        size_t nt = 0;
        for (char *p = lc; *p && nt < 16;) {
            while (*p == '_' || *p == ' ') *p++ = '\0';
            if (!*p) break;
            tokens[nt++] = p;
            while (*p && *p != '_' && *p != ' ') p++;
        }
        if (nt == 0) continue;
        for (size_t i = 0; i < n; i++) {
            if (!usable[i]) continue;
            bool all = true;
            for (size_t k = 0; k < nt && all; k++) all = contains(low[i].data, low[i].len, tokens[k]);
            if (all) { found = last_named(names, n, i); goto out; }
        }
    }
out:
    for (size_t i = 0; low && i < n; i++) strbuf_free(&low[i]);
    free(low);
    free(usable);
    return found;
}
