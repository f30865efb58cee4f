/* csv_rows: header search, row loop, skip counts and warnings for table-driven CSV formats. */
#include "parsers/tokenizers/csv_rows.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/py_number.h"

#define FIELD_CAP (1u << 20)   /* longest cell kept (kernel names reach ~10 KB) */
#define HEADER_SEARCH 100      /* records looked at for a header before giving up */
/* A searched-for header (nsys, nvprof: tens of columns) past either bound is not tried: a
 * pick over such lines, for each of the 100 searched, is the CPU a hostile file would burn. */
#define SEARCH_MAX_FIELDS 1024
#define SEARCH_MAX_BYTES (64u << 10)


/* A cheap test before the full column pick: some cell names a candidate of a required
 * quantity (ASCII case aside, surrounding spaces ignored). */
static bool names_a_required_column(const csv_rows_spec *sp, const csv_record *r) {
    for (size_t i = 0; i < r->n_all; i++) {
        const char *t = r->all[i].data ? r->all[i].data : "";
        size_t n = r->all[i].len;
        while (n && (*t == ' ' || *t == '\t')) t++, n--;
        while (n && (t[n - 1] == ' ' || t[n - 1] == '\t')) n--;
        for (size_t q = 0; q < sp->n_want; q++) {
            if (!(sp->required & (1u << q))) continue;
            for (size_t c = 0; sp->want[q].candidates[c]; c++)
                if (strlen(sp->want[q].candidates[c]) == n && !strncasecmp(t, sp->want[q].candidates[c], n)) return true;
        }
    }
    return false;
}

static void on_header_candidate(csv_rows *s, const csv_record *r) {
    const csv_rows_spec *sp = s->spec;
    s->header_line = r->line;
    if (sp->header_search && csv_header_oversized(r, SEARCH_MAX_FIELDS, SEARCH_MAX_BYTES)) {
        if (!s->oversized_headers++) s->oversized_header_line = r->line;
        s->before_header++;
        return;
    }
    if (sp->header_search && !names_a_required_column(sp, r)) { s->before_header++; return; }
    csv_columns_free(&s->cols);
    if (!csv_columns_pick(&s->cols, &s->csv, r, sp->want, sp->n_want)) { s->oom = true; return; }
    csv_columns_warn_oversized(&s->cols, s->label, (unsigned long long)r->line, s->diag);
    for (size_t q = 0; q < sp->n_want; q++)
        if ((sp->required & (1u << q)) && s->cols.col[q] < 0) {
            s->csv.capture_all = true;           /* not the header: keep looking, copying every cell */
            s->before_header++;
            return;
        }
    s->have_header = true;
    if (sp->join_surplus_into) {                 /* every cell of every row, to realign them */
        s->header_fields = r->n_all;
        s->csv.capture_all = true;
    }
    for (size_t q = 0; q < sp->n_want; q++)
        if (sp->quantity && sp->quantity[q] && !read_facts_column(s->facts, sp->quantity[q], s->cols.name[q]))
            s->oom = true;
}

/* join_surplus_into: r (every cell captured) as a record of the wanted columns, with a
 * surplus of fields over the header joined back into the named column. false on OOM. */
static bool realign(csv_rows *s, const csv_record *r, csv_record *out) {
    size_t into = s->spec->join_surplus_into - 1;
    ssize_t jc = into < s->cols.n ? s->cols.col[into] : -1;
    size_t extra = jc >= 0 && r->n_all > s->header_fields ? r->n_all - s->header_fields : 0;
    if (extra) {
        s->joined.len = 0;
        for (size_t i = (size_t)jc; i <= (size_t)jc + extra; i++)
            if ((i > (size_t)jc && !strbuf_putc(&s->joined, ',')) ||
                !strbuf_append(&s->joined, r->all[i].data ? r->all[i].data : "", r->all[i].len))
                return false;
        if (!strbuf_terminate(&s->joined)) return false;
        s->rejoined++;
    }
    *out = *r;
    out->captured = s->fixed;
    out->n_captured = 0;
    for (size_t q = 0; q < s->cols.n; q++) {
        int slot = s->cols.slot[q];
        if (slot < 0 || slot >= CSV_COLUMNS_MAX) continue;
        ssize_t c = s->cols.col[q];
        size_t at = c < 0 ? SIZE_MAX : jc >= 0 && c > jc ? (size_t)c + extra : (size_t)c;
        csv_field *f = &s->fixed[slot];
        memset(f, 0, sizeof *f);
        f->index = (size_t)c;
        f->present = at < r->n_all;
        if (f->present) f->text = extra && c == jc ? s->joined : r->all[at];   /* (borrowed: never freed here) */
        if ((size_t)slot + 1 > out->n_captured) out->n_captured = (size_t)slot + 1;
    }
    return true;
}

static void on_record(void *user, const csv_record *r) {
    csv_rows *s = user;
    if (s->oom) return;
    if (!s->have_header) {
        if (r->n_fields == 0) return;
        if (s->before_header < (s->spec->header_search ? HEADER_SEARCH : 1)) on_header_candidate(s, r);
        else s->before_header++;
        return;
    }
    if (r->n_fields == 0) return;
    if (r->unterminated) {
        s->facts->truncated = true;
        diag_add(s->diag, "%s: line %llu: last record ends inside a quoted field (file truncated?)", s->label,
                 (unsigned long long)r->line);
        read_facts_skip(s->facts, "truncated last record", 1);   /* warned just above */
        return;
    }
    if (s->spec->join_surplus_into) {
        csv_record fixed;
        if (!realign(s, r, &fixed)) { s->oom = true; return; }
        s->spec->row(s, &fixed);
        return;
    }
    s->spec->row(s, r);
}

csv_rows *csv_rows_open(const csv_rows_spec *spec, const char *label, const record_sink *sink, read_facts *facts,
                        diag_list *diag) {
    csv_rows *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->spec = spec;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    for (size_t q = 0; q < CSV_COLUMNS_MAX; q++) s->cols.col[q] = -1, s->cols.slot[q] = -1;
    csv_init(&s->csv, FIELD_CAP, on_record, s);
    return s;
}

bool csv_rows_feed(void *st, const uint8_t *buf, size_t n) {
    csv_rows *s = st;
    csv_feed(&s->csv, buf, n);
    return !s->oom;
}

/* "'A', 'B'" or "'A' or 'B'": the candidate names of a missing required quantity. */
static void candidates(const csv_want *w, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; w->candidates[i] && len + 1 < cap; i++) {
        int k = snprintf(out + len, cap - len, "%s'%s'", i ? ", " : "", w->candidates[i]);
        if (k < 0) break;
        len += (size_t)k;
    }
}

void csv_finish_warned(csv_tokenizer *t, const char *label, diag_list *diag, read_facts *facts) {
    csv_finish(t);
    csv_warn_wide(t, label, diag, facts);
}

void csv_warn_wide(const csv_tokenizer *t, const char *label, diag_list *diag, read_facts *facts) {
    uint64_t line, n = csv_wide(t, &line);
    if (!n) return;
    diag_add(diag, "%s: line %llu: %llu record(s) of more than %u cells, or whose cells need more than %zu MiB of "
             "buffers (about half that of text), not read", label, (unsigned long long)line, (unsigned long long)n,
             CSV_ALL_MAX_FIELDS, CSV_ALL_MAX_BYTES >> 20);
    read_facts_skip(facts, "record of more than 65536 cells or 32 MiB", n);
}

void csv_rows_finish(void *st) {
    csv_rows *s = st;
    const csv_rows_spec *sp = s->spec;
    csv_finish_warned(&s->csv, s->label, s->diag, s->facts);
    if (s->csv.oom) s->oom = true;
    if (!s->have_header && s->oversized_headers)
        diag_add(s->diag, "%s: %llu lines too large for a header (over %d cells or %u KiB) not taken for one "
                 "(first at line %llu)", s->label, (unsigned long long)s->oversized_headers, SEARCH_MAX_FIELDS,
                 SEARCH_MAX_BYTES >> 10, (unsigned long long)s->oversized_header_line);
    if (!s->have_header) {
        if (!s->before_header) {
            diag_add(s->diag, "%s: empty %s (no header line)", s->label, sp->what);
        } else {
            char missing[256] = "";
            for (size_t q = 0; q < sp->n_want; q++)
                if ((sp->required & (1u << q)) && s->cols.col[q] < 0) { candidates(&sp->want[q], missing, sizeof missing); break; }
            if (sp->header_search)
                diag_add(s->diag, "%s: no %s header in the first %d lines (a required column is missing: one of %s)",
                         s->label, sp->what, HEADER_SEARCH, missing);
            else
                diag_add(s->diag, "%s: line %llu: the %s header lacks a required column (one of %s); nothing read",
                         s->label, (unsigned long long)s->header_line, sp->what, missing);
        }
    }
    if (s->oom) diag_oom(s->diag, "%s: out of memory; the %s was read in part", s->label, sp->what);
    read_facts *f = s->facts;
    f->rows_used = s->emitted;
    if (s->rejoined)
        diag_add(s->diag, "%s: %llu rows had more fields than the header (a name with unquoted commas): the surplus "
                 "was joined back into the %s", s->label, (unsigned long long)s->rejoined,
                 sp->quantity && sp->quantity[sp->join_surplus_into - 1] ? sp->quantity[sp->join_surplus_into - 1]
                                                                          : "name");
    if (s->have_header) read_facts_skip(f, "lines before the header", s->before_header);
    for (size_t i = 0; i < s->n_skips; i++) {
        if (s->skips[i].kept) {
            diag_add(s->diag, "%s: %llu rows kept without their %s (first at line %llu)", s->label,
                     (unsigned long long)s->skips[i].rows, s->skips[i].reason, (unsigned long long)s->skips[i].first_line);
            continue;
        }
        read_facts_skip(f, s->skips[i].reason, s->skips[i].rows);
        diag_add(s->diag, "%s: %llu rows skipped: %s (first at line %llu)", s->label,
                 (unsigned long long)s->skips[i].rows, s->skips[i].reason, (unsigned long long)s->skips[i].first_line);
    }
}

void csv_rows_close(void *st) {
    csv_rows *s = st;
    if (!s) return;
    csv_free(&s->csv);
    csv_columns_free(&s->cols);
    strbuf_free(&s->joined);
    for (size_t i = 0; i < CSV_ROWS_TEXTS; i++) strbuf_free(&s->text[i]);
    free(s);
}

const csv_field *csv_rows_field(const csv_rows *s, size_t q, const csv_record *r) {
    const csv_field *f = csv_columns_field(&s->cols, q, r);
    if (!f || f->truncated) return NULL;
    const char *p = f->text.data;
    size_t n = f->text.len;
    utf8_strip(&p, &n);
    return n ? f : NULL;
}

bool csv_rows_int(const csv_rows *s, size_t q, const csv_record *r, i128 *out) {
    const csv_field *f = csv_rows_field(s, q, r);
    return f && py_integer(f->text.data, f->text.len, out);
}

bool csv_rows_num(const csv_rows *s, size_t q, const csv_record *r, double *out) {
    const csv_field *f = csv_rows_field(s, q, r);
    return f && py_number(f->text.data, f->text.len, out);
}

bool csv_rows_agent(const csv_rows *s, size_t q, const csv_record *r, int64_t *out) {
    const csv_field *f = csv_rows_field(s, q, r);
    if (!f) return false;
    i128 v;
    if (py_integer(f->text.data, f->text.len, &v) && v >= INT64_MIN && v <= INT64_MAX) {
        *out = (int64_t)v;
        return true;
    }
    /* "Agent 3", "GPU 0": a word, white space, then the number */
    const char *p = f->text.data, *end = p + f->text.len;
    while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))) p++;
    if (p == f->text.data || p == end || *p != ' ') return false;
    while (p < end && *p == ' ') p++;
    int64_t n = 0;
    const char *digits = p;
    while (p < end && *p >= '0' && *p <= '9' && n < INT64_MAX / 10) n = n * 10 + (*p++ - '0');
    while (p < end && *p == ' ') p++;
    if (p != end || p == digits) return false;
    *out = n;
    return true;
}

bool csv_rows_text(csv_rows *s, size_t slot, size_t q, const csv_record *r, const char **out, size_t *n) {
    const csv_field *f = csv_rows_field(s, q, r);
    if (!f || slot >= CSV_ROWS_TEXTS) return false;
    strbuf *b = &s->text[slot];
    b->len = 0;
    if (!utf8_sanitize((const uint8_t *)f->text.data, f->text.len, b)) { s->oom = true; return false; }
    const char *p = b->data;
    size_t len = b->len;
    utf8_strip(&p, &len);
    if (!len) return false;
    *out = p;
    *n = len;
    return true;
}

/* Counts row r under `reason`, as skipped or as kept with a part lost. */
static void count_row(csv_rows *s, const char *reason, bool kept, const csv_record *r) {
    for (size_t i = 0; i < s->n_skips; i++)
        if (s->skips[i].kept == kept && !strcmp(s->skips[i].reason, reason)) { s->skips[i].rows++; return; }
    if (s->n_skips == CSV_ROWS_SKIPS) return;
    s->skips[s->n_skips].reason = reason;
    s->skips[s->n_skips].kept = kept;
    s->skips[s->n_skips].rows = 1;
    s->skips[s->n_skips++].first_line = r->line;
}

void csv_rows_skip(csv_rows *s, const char *reason, const csv_record *r) { count_row(s, reason, false, r); }

void csv_rows_kept_without(csv_rows *s, const char *what, const csv_record *r) { count_row(s, what, true, r); }

void csv_rows_emit(csv_rows *s, const csv_record *r, record *rec) {
    rec->line = r->line;
    if (!record_emit(&s->sink, rec)) { s->oom = true; return; }
    s->emitted++;
}

bool csv_rows_decimal_scaled(const char *s, size_t n, int pow10, i128 *out) {
    utf8_strip(&s, &n);
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    i128 mant = 0;
    int digits = 0, frac = 0;
    bool dot = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (mant > ((i128)1 << 100)) return false;     /* far past 64 bits: not a time or size */
            mant = mant * 10 + (c - '0');
            digits++;
            if (dot) frac++;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (!digits) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        int e = 0, ed = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, ed++)
            if (e < 1000) e = e * 10 + (s[i] - '0');
        if (!ed) return false;
        pow10 += eneg ? -e : e;
    }
    if (i != n) return false;
    int shift = pow10 - frac;                                  /* value = mant * 10^shift */
    if (shift < -60) { *out = 0; return true; }               /* far below one unit: rounds to 0 */
    if (shift > 30) { if (mant) return false; *out = 0; return true; }
    i128 v = mant;
    for (; shift > 0; shift--) {
        if (v > INT64_MAX) return false;                       /* (and never an i128 overflow) */
        v *= 10;
    }
    if (shift < 0) {
        i128 div = 1;
        for (; shift < 0; shift++) {
            if (div > ((i128)1 << 100)) { v = 0; div = 1; break; }
            div *= 10;
        }
        i128 q = v / div, rem = v % div;
        v = q + (rem * 2 >= div ? 1 : 0);                       /* half away from zero (mant >= 0) */
    }
    if (v > INT64_MAX) return false;
    *out = neg ? -v : v;
    return true;
}

bool csv_rows_name_matches(const char *name, const char *const *patterns) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; patterns[i]; i++)
        if (!strchr(patterns[i], '/') && fnmatch(patterns[i], base, 0) == 0) return true;
    return false;
}
