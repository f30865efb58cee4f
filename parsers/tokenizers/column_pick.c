/* column_pick: the reference's pick_column() over a CSV header. */
#include "parsers/tokenizers/column_pick.h"

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

/* The first two steps shared by both picks: exact, then case-insensitive. */
static ssize_t pick_named(const strbuf *names, const strbuf *low, const bool *usable, size_t n,
                          const char *const *cands) {
    for (size_t c = 0; cands[c]; c++)                        /* 1. exact */
        for (size_t i = 0; i < n; i++)
            if (usable[i] && same(&names[i], cands[c])) return last_named(names, n, i);
    for (size_t c = 0; cands[c]; c++) {                      /* 2. case-insensitive, first column wins */
        char lc[128];
        ascii_lower(cands[c], lc, sizeof lc);
        for (size_t i = 0; i < n; i++)
            if (usable[i] && same(&low[i], lc)) return last_named(names, n, i);
    }
    return -1;
}

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The next name token of s[0..n) at or after *i: its start and length, *i moved past it;
 * false when there is none. */
static bool next_token(const char *s, size_t n, size_t *i, size_t *start, size_t *len_out) {
    while (*i < n) {
        size_t at = *i, len = 0, u = 0;
        while (at + u < n && is_upper(s[at + u])) u++;
        /* [A-Z]+(?![a-z]): the longest upper run not followed by a lower-case letter */
        if (u && !(at + u < n && is_lower(s[at + u]))) len = u;
        else if (u > 1) len = u - 1;
        if (!len) {                                          /* [A-Z]?[a-z]+ */
            size_t j = at + (u ? 1 : 0), l = 0;
            while (j + l < n && is_lower(s[j + l])) l++;
            if (l) len = (j - at) + l;
        }
        if (!len) {                                          /* [0-9]+ */
            while (at + len < n && is_digit(s[at + len])) len++;
        }
        if (!len) { (*i)++; continue; }
        *start = at;
        *len_out = len;
        *i = at + len;
        return true;
    }
    return false;
}

size_t column_name_tokens(const char *s, size_t n, size_t (*tok)[2], size_t max) {
    size_t count = 0, i = 0, start, len;
    while (next_token(s, n, &i, &start, &len)) {
        if (count < max) { tok[count][0] = start; tok[count][1] = len; }
        count++;
    }
    return count;
}

static bool token_is(const char *s, const size_t t[2], const char *word) {
    size_t wl = strlen(word);
    if (t[1] != wl) return false;
    for (size_t k = 0; k < wl; k++) {
        char c = s[t[0] + k];
        if ((is_upper(c) ? (char)(c + 32) : c) != word[k]) return false;
    }
    return true;
}

/* Whether word (lower-case) is one of the name tokens of s, however many tokens s has: one
 * linear pass (a header cell may be a megabyte long). */
bool column_has_name_token(const char *s, size_t n, const char *word) {
    size_t i = 0, t[2];
    while (next_token(s, n, &i, &t[0], &t[1]))
        if (token_is(s, t, word)) return true;
    return false;
}

/* Step 3 of column_pick_timing(): every name token of cand is a whole name token of the
 * column's original name. */
static bool all_name_tokens(const char *cand, const strbuf *name, const strbuf *low) {
    (void)low;
    size_t ct[16][2];
    size_t nc = column_name_tokens(cand, strlen(cand), ct, 16);
    if (nc == 0 || nc > 16) return false;
    const char *f = name->data ? name->data : "";
    for (size_t k = 0; k < nc; k++) {
        char word[64];
        size_t wl = ct[k][1] < sizeof word - 1 ? ct[k][1] : sizeof word - 1;
        for (size_t b = 0; b < wl; b++) {
            char ch = cand[ct[k][0] + b];
            word[b] = is_upper(ch) ? (char)(ch + 32) : ch;
        }
        word[wl] = '\0';
        if (!column_has_name_token(f, name->len, word)) return false;
    }
    return true;
}

/* Step 3 of column_pick() (the seed heuristics): every '_'/' '-separated token of cand is a
 * substring of the lower-cased column name. */
static bool all_tokens_contained(const char *cand, const strbuf *name, const strbuf *low) {
    (void)name;
    char lc[128];
    ascii_lower(cand, lc, sizeof lc);
    char *tokens[16];
    size_t nt = 0;
    for (char *p = lc; *p && nt < 16;) {
        while (*p == '_' || *p == ' ') *p++ = '\0';
        if (!*p) break;
        tokens[nt++] = p;
        while (*p && *p != '_' && *p != ' ') p++;
    }
    if (nt == 0) return false;
    for (size_t k = 0; k < nt; k++)
        if (!text_contains(low->data, low->len, tokens[k])) return false;
    return true;
}

/* Both pickers: columns lower-cased, those naming an excluded word set aside, then exact
 * and case-insensitive names (pick_named), then the first candidate that `matches` a usable
 * column (in candidate order, then column order). */
static ssize_t pick(const strbuf *names, size_t n, const char *const *cands, const char *const *exclude,
                    bool (*matches)(const char *cand, const strbuf *name, const strbuf *low)) {
    strbuf *low = calloc(n ? n : 1, sizeof *low);
    bool *usable = calloc(n ? n : 1, sizeof *usable);
    ssize_t found = COLUMN_PICK_OUT_OF_MEMORY;
    if (!low || !usable) goto out;
    for (size_t i = 0; i < n; i++) {
        if (!text_fold_lower(names[i].data ? names[i].data : "", names[i].len, &low[i])) goto out;
        usable[i] = true;
        for (size_t x = 0; exclude && exclude[x]; x++)
            if (text_contains(low[i].data, low[i].len, exclude[x])) usable[i] = false;
    }
    if ((found = pick_named(names, low, usable, n, cands)) >= 0) goto out;
    found = -1;
    for (size_t c = 0; cands[c]; c++)
        for (size_t i = 0; i < n; i++)
            if (usable[i] && matches(cands[c], &names[i], &low[i])) { found = last_named(names, n, i); goto out; }
out:
    for (size_t i = 0; low && i < n; i++) strbuf_free(&low[i]);
    free(low);
    free(usable);
    return found;
}

ssize_t column_pick_timing(const strbuf *names, size_t n, const char *const *cands) {
    return pick(names, n, cands, NULL, all_name_tokens);
}

ssize_t column_pick(const strbuf *names, size_t n, const char *const *cands, const char *const *exclude) {
    return pick(names, n, cands, exclude, all_tokens_contained);
}
