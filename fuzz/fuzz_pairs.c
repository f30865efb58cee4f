/* libFuzzer harness, differential: every format with a pair state (open_records_pair, one
 * tokenization for the daemon's two readings) must give each reading exactly what that
 * reading's own read gives: the same records field by field, facts and warnings. Aborts on
 * the first difference.
 *
 * Input: byte 0 picks the format among the registry's pair formats, byte 1 the readings
 * (bit 0/1: seed rules for the first/second; bit 2/3: all fields or none for the
 * first/second) and byte 2 the chunk size; the rest is the file. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parsers/parser_registry.h"
#include "parsers/record.h"

static const size_t CHUNKS[8] = {1, 2, 3, 7, 64, 4096, 65536, 1 << 20};

/* One reading and what it received. */
typedef struct reading {
    parse_options opt;
    const char *label;
    strbuf text;             /* the records, one line each, then the facts and warnings */
    read_facts facts;
    diag_list diag;
    record_sink sink;
} reading;

static void put(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(strbuf *b, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);           /* whole lines: a column name may be 4 KiB */
    va_end(ap);
    char *h = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (h) {
        vsnprintf(h, (size_t)n + 1, fmt, again);
        strbuf_append(b, h, (size_t)n);
        free(h);
    }
    va_end(again);
}

static void put_i128(strbuf *b, i128 v) {
    uint64_t w[2];
    memcpy(w, &v, sizeof w);
    put(b, " %016" PRIx64 "%016" PRIx64, w[1], w[0]);
}

/* Every field a CSV format fills, as text. */
static bool take(void *user, const record *r) {
    strbuf *b = &((reading *)user)->text;
    put(b, "t=%d has=%x line=%" PRIu64 " dev=%" PRId64 " str=%" PRId64 " corr=%" PRIu64 " pid=%" PRId64 " tid=%" PRId64
        " grid=%u,%u,%u wg=%u,%u,%u res=%u,%u,%u,%u num=%a vram=%a util=%a power=%a temp=%a used=%" PRIu64
        " total=%" PRIu64,
        (int)r->type, r->has, r->line, r->device, r->stream, r->correlation_id, r->pid, r->tid, r->grid[0], r->grid[1],
        r->grid[2], r->workgroup[0], r->workgroup[1], r->workgroup[2], r->lds_bytes, r->scratch_bytes, r->vgpr, r->sgpr,
        r->number, r->vram_gib, r->util_pct, r->power_w, r->temp_c, r->vram_used_bytes, r->vram_total_bytes);
    put_i128(b, r->start_ns);
    put_i128(b, r->end_ns);
    put_i128(b, r->duration_ns);
    strbuf_append(b, " name=", 6);
    if (r->name) strbuf_append(b, r->name, r->name_len);
    strbuf_append(b, " key=", 5);
    if (r->key) strbuf_append(b, r->key, strlen(r->key));
    strbuf_append(b, " value=", 7);
    if (r->value) strbuf_append(b, r->value, r->value_len);
    for (size_t i = 0; i < r->n_fields; i++) {
        put(b, " %s=", r->fields[i].key);
        strbuf_append(b, r->fields[i].value, r->fields[i].value_len);
    }
    strbuf_putc(b, '\n');
    return true;
}

static void reading_init(reading *x, bool seed, bool all_fields, const char *label) {
    memset(x, 0, sizeof *x);
    x->opt.seed_compat = seed;
    x->label = label;
    diag_init(&x->diag);
    x->sink = (record_sink){.emit = take, .user = x, .fields = all_fields ? RF_ALL : 0};
}

/* The facts and warnings after the records. */
static void reading_end(reading *x) {
    strbuf *b = &x->text;
    for (size_t i = 0; i < x->diag.count; i++) put(b, "warn %s\n", x->diag.items[i]);
    const read_facts *f = &x->facts;
    put(b, "rows=%" PRIu64 " truncated=%d\n", f->rows_used, (int)f->truncated);
    for (size_t i = 0; i < f->n_skips; i++) put(b, "skip %s: %" PRIu64 "\n", f->skipped[i].reason, f->skipped[i].rows);
    for (size_t i = 0; i < f->n_columns; i++)
        put(b, "col %s <- %s\n", f->columns[i].quantity, f->columns[i].column ? f->columns[i].column : "-");
}

static void reading_free(reading *x) {
    strbuf_free(&x->text);
    read_facts_free(&x->facts);
    diag_free(&x->diag);
}

static void feed(const artefact_parser *p, void *st, const uint8_t *data, size_t size, size_t chunk) {
    for (size_t i = 0; i < size; i += chunk)
        if (!p->feed(st, data + i, size - i < chunk ? size - i : chunk)) break;
    p->finish(st);
    p->close(st);
}

static void same(const reading *a, const reading *b) {
    if (a->text.len != b->text.len || (a->text.len && memcmp(a->text.data, b->text.data, a->text.len))) {
        fprintf(stderr, "pair:\n%.*s\napart:\n%.*s\n", (int)a->text.len, a->text.data, (int)b->text.len, b->text.data);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    const artefact_parser *pairs[16];
    size_t n = 0;
    for (const artefact_parser *const *p = parser_list(); *p && n < 16; p++)
        if ((*p)->open_records_pair && (*p)->open_records) pairs[n++] = *p;
    if (!n) return 0;
    const artefact_parser *p = pairs[data[0] % n];
    unsigned how = data[1];
    size_t chunk = CHUNKS[data[2] & 7];
    data += 3;
    size -= 3;
    reading x, y, xa, ya;
    reading_init(&x, how & 1, how & 4, "run/file.csv");
    reading_init(&y, how & 2, how & 8, "file.csv");
    reading_init(&xa, how & 1, how & 4, "run/file.csv");
    reading_init(&ya, how & 2, how & 8, "file.csv");
    record_reading second = {&y.opt, y.label, &y.sink, &y.facts, &y.diag};
    void *st = p->open_records_pair(&x.opt, x.label, &x.sink, &x.facts, &x.diag, &second);
    void *sa = p->open_records(&xa.opt, xa.label, &xa.sink, &xa.facts, &xa.diag);
    void *sb = p->open_records(&ya.opt, ya.label, &ya.sink, &ya.facts, &ya.diag);
    if (st && sa && sb) {
        feed(p, st, data, size, chunk);
        feed(p, sa, data, size, chunk);
        feed(p, sb, data, size, chunk);
        reading_end(&x), reading_end(&y), reading_end(&xa), reading_end(&ya);
        same(&x, &xa);
        same(&y, &ya);
    } else {
        if (st) p->close(st);
        if (sa) p->close(sa);
        if (sb) p->close(sb);
    }
    reading_free(&x), reading_free(&y), reading_free(&xa), reading_free(&ya);
    return 0;
}
