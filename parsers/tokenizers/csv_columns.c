/* csv_columns: header → captured columns. */
#include "parsers/tokenizers/csv_columns.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parsers/tokenizers/column_pick.h"

bool csv_header_oversized(const csv_record *r, size_t max_fields, size_t max_bytes) {
    if (r->n_all > max_fields) return true;
    size_t bytes = 0;
    for (size_t i = 0; i < r->n_all && bytes <= max_bytes; i++) bytes += r->all[i].len;
    return bytes > max_bytes;
}

void csv_columns_warn_oversized(const csv_columns *c, const char *label, unsigned long long line, diag_list *diag) {
    if (c->oversized)
        diag_add(diag, "%s: line %llu: a header of more than %d cells or %u MiB is not read; no column taken", label,
                 line, CSV_HEADER_MAX_FIELDS, CSV_HEADER_MAX_BYTES >> 20);
}

bool csv_columns_pick(csv_columns *c, csv_tokenizer *t, const csv_record *h, const csv_want *want, size_t n) {
    memset(c, 0, sizeof *c);
    c->n = n < CSV_COLUMNS_MAX ? n : CSV_COLUMNS_MAX;
    for (size_t w = 0; w < CSV_COLUMNS_MAX; w++) c->col[w] = c->slot[w] = -1;   /* (absent, even after a failure) */
    if (csv_header_oversized(h, CSV_HEADER_MAX_FIELDS, CSV_HEADER_MAX_BYTES)) {
        c->oversized = true;
        return csv_capture_columns(t, NULL, 0);
    }
    strbuf *names = calloc(h->n_all ? h->n_all : 1, sizeof *names);
    if (!names) return false;
    bool ok = true;
    for (size_t i = 0; i < h->n_all; i++)              /* (a name lost for lack of memory: a failed pick) */
        if (!utf8_sanitize((const uint8_t *)(h->all[i].data ? h->all[i].data : ""), h->all[i].len, &names[i])) ok = false;
    size_t cols[CSV_COLUMNS_MAX], ncols = 0;
    for (size_t w = 0; w < c->n; w++) {
        c->col[w] = want[w].whole_tokens ? column_pick_timing(names, h->n_all, want[w].candidates)
                                         : column_pick(names, h->n_all, want[w].candidates, want[w].exclude);
        c->slot[w] = -1;
        if (c->col[w] == COLUMN_PICK_OUT_OF_MEMORY) ok = false;   /* (a failed pick, its column absent) */
        if (c->col[w] < 0) { c->col[w] = -1; continue; }
        const strbuf *nm = &names[c->col[w]];
        c->name[w] = strndup(nm->data ? nm->data : "", nm->len);
        if (!c->name[w]) ok = false;              /* (a column without its name is a failed pick) */
        for (size_t k = 0; k < ncols; k++)                   /* two quantities may share a column */
            if (cols[k] == (size_t)c->col[w]) c->slot[w] = (int)k;
        if (c->slot[w] < 0) { c->slot[w] = (int)ncols; cols[ncols++] = (size_t)c->col[w]; }
    }
    for (size_t i = 0; i < h->n_all; i++) strbuf_free(&names[i]);
    free(names);
    return csv_capture_columns(t, cols, ncols) && ok;
}

int *csv_capture_union(csv_tokenizer *fed, const csv_tokenizer *other) {
    const csv_record *mine = &other->rec;
    size_t n = fed->rec.n_captured, m = mine->n_captured, k = n;
    size_t *cols = malloc((n + m + 1) * sizeof *cols);
    int *map = malloc((m + 1) * sizeof *map);
    bool ok = cols && map;
    for (size_t i = 0; ok && i < n; i++) cols[i] = fed->rec.captured[i].index;
    for (size_t j = 0; ok && j < m; j++) {
        size_t c = mine->captured[j].index;
        bool have = c < fed->slot_of_len && fed->slot_of[c] >= 0;
        for (size_t i = n; i < k && !have; i++) have = cols[i] == c;
        if (!have) cols[k++] = c;
    }
    ok = ok && (k == n || csv_capture_columns(fed, cols, k));
    for (size_t j = 0; ok && j < m; j++) {
        size_t c = mine->captured[j].index;
        assert(c < fed->slot_of_len && fed->slot_of[c] >= 0);
        map[j] = fed->slot_of[c];
    }
    free(cols);
    if (!ok) { free(map); return NULL; }
    return map;
}

void csv_columns_remap(csv_columns *c, const int *map) {
    for (size_t w = 0; w < c->n; w++)
        if (c->slot[w] >= 0) c->slot[w] = map[c->slot[w]];
}

void csv_columns_free(csv_columns *c) {
    for (size_t w = 0; w < CSV_COLUMNS_MAX; w++) free(c->name[w]);
    memset(c, 0, sizeof *c);
}

const csv_field *csv_columns_field(const csv_columns *c, size_t which, const csv_record *r) {
    if (which >= c->n || c->slot[which] < 0) return NULL;
    const csv_field *f = &r->captured[c->slot[which]];
    return f->present ? f : NULL;
}

bool csv_name_is_csv(const char *name) {
    size_t l = strlen(name);
    return l >= 4 && strcmp(name + l - 4, ".csv") == 0;
}

bool csv_head_has(const uint8_t *head, size_t n, const char *word) {
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (strncasecmp((const char *)head + i, word, w) == 0) return true;
    return false;
}

bool csv_first_line_has(const uint8_t *head, size_t n, const char *word) {
    const uint8_t *nl = memchr(head, '\n', n);
    return csv_head_has(head, nl ? (size_t)(nl - head) : n, word);
}
