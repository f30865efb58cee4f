/* formats_csv_sink: the collecting sink and read helpers the fmtcsv Check tests share
 * (tests/check_formats_csv.c, tests/check_formats_csv_files.c): a format fed from bytes in
 * chunks of any size, its records copied (strings live only during the emit call). */
#ifndef GOBLIN_FORMATS_CSV_SINK_H
#define GOBLIN_FORMATS_CSV_SINK_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/tokenizers/csv_rows.h"
#include "parsers/parser_registry.h"

#define MAX_RECS 64
#define ALL_FIELDS 0xffffffffu

typedef struct collected {
    record r[MAX_RECS];
    char name[MAX_RECS][256];
    char category[MAX_RECS][32];
    char field0[MAX_RECS][64];   /* "key=value" of the first named field */
    size_t n, total;
} collected;

static inline bool collect(void *user, const record *r) {
    collected *c = user;
    c->total++;
    if (c->n == MAX_RECS) return true;
    c->r[c->n] = *r;
    if (r->name) snprintf(c->name[c->n], sizeof c->name[0], "%.*s", (int)r->name_len, r->name);
    if (r->category) snprintf(c->category[c->n], sizeof c->category[0], "%.*s", (int)r->category_len, r->category);
    if (r->n_fields)
        snprintf(c->field0[c->n], sizeof c->field0[0], "%s=%.*s", r->fields[0].key, (int)r->fields[0].value_len,
                 r->fields[0].value);
    c->r[c->n].name = c->r[c->n].category = NULL;
    c->r[c->n].fields = NULL;
    c->n++;
    return true;
}

static inline const artefact_parser *format_named(const char *name) {
    for (const artefact_parser *const *p = parser_list(); *p; p++)
        if (!strcmp((*p)->name, name)) return *p;
    return NULL;
}

/* Feeds n bytes of text to format `name` in chunks of `chunk`. */
static inline void read_n(const char *name, const char *text, size_t n, size_t chunk, unsigned fields, collected *c,
                   read_facts *f, diag_list *d) {
    const artefact_parser *p = format_named(name);
    ck_assert_msg(p != NULL, "no format %s", name);
    memset(c, 0, sizeof *c);
    memset(f, 0, sizeof *f);
    diag_init(d);
    parse_options opt = {0};
    record_sink sink = {.emit = collect, .user = c, .fields = fields};
    void *st = p->open_records(&opt, "bytes.csv", &sink, f, d);
    ck_assert_ptr_nonnull(st);
    for (size_t i = 0; i < n; i += chunk) p->feed(st, (const uint8_t *)text + i, n - i < chunk ? n - i : chunk);
    p->finish(st);
    p->close(st);
}

static inline void read_text(const char *name, const char *text, size_t chunk, collected *c, read_facts *f, diag_list *d) {
    read_n(name, text, strlen(text), chunk, ALL_FIELDS, c, f, d);
}

/* True when some warning contains every one of the (NULL-terminated) words. */
static inline bool warned(const diag_list *d, const char *w1, const char *w2) {
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i], w1) && (!w2 || strstr(d->items[i], w2))) return true;
    return false;
}

static inline void done(read_facts *f, diag_list *d) {
    read_facts_free(f);
    diag_free(d);
}

#endif
