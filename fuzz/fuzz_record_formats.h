/* fuzz_record_formats: the harness body for every registered byte-stream record format
 * (the CSV record formats), shared by fuzz/fuzz_record_formats.c and the replay of its findings in
 * tests/check_formats_csv.c.
 *
 * Byte 0 picks the format among parser_list()'s record formats that read a byte stream
 * (open_records + feed; read_fd formats such as SQLite are skipped: fuzz_sqlite covers them), byte 1 seeds the
 * chunk sizes and says whether the sink asks for every optional field or none; the rest is
 * fed in pseudo-random chunks through open_records/feed/finish/close. The sink checks what
 * every record must satisfy whatever the bytes: a known type, only known RF_ bits, names
 * and texts valid UTF-8 of their stated length, start <= end when both are given,
 * durations >= 0, enums in range, a line number. A violation aborts (a finding). */
#ifndef GOBLIN_FUZZ_RECORD_FORMATS_H
#define GOBLIN_FUZZ_RECORD_FORMATS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_utf8.h"
#include "parsers/parser_registry.h"

#define ALL_RF RF_ALL

static void frf_fail(const char *fmt, const char *what) {
    fprintf(stderr, "record invariant broken (%s): %s\n", fmt, what);
    abort();
}

static void frf_text_ok(const char *fmt, const char *s, size_t n, const char *what) {
    if (!s) {
        if (n) frf_fail(fmt, what);
        return;
    }
    if (!utf8_valid((const uint8_t *)s, n)) frf_fail(fmt, what);
}

static bool frf_check_record(void *user, const record *r) {
    const char *fmt = user;
    if ((unsigned)r->type >= REC_TYPE_COUNT) frf_fail(fmt, "type out of range");
    if (r->has & ~ALL_RF) frf_fail(fmt, "unknown RF_ bit");
    if (r->line == 0) frf_fail(fmt, "no line");
    frf_text_ok(fmt, r->name, r->name_len, "name not valid UTF-8 of name_len");
    frf_text_ok(fmt, r->category, r->category_len, "category not valid UTF-8");
    frf_text_ok(fmt, r->track, r->track_len, "track not valid UTF-8");
    frf_text_ok(fmt, r->args, r->args_len, "args not valid UTF-8");
    if (r->value) frf_text_ok(fmt, r->value, r->value_len, "value not valid UTF-8");
    if (r->n_fields && !r->fields) frf_fail(fmt, "n_fields without fields");
    for (size_t i = 0; i < r->n_fields; i++) {
        if (!r->fields[i].key || !utf8_valid((const uint8_t *)r->fields[i].key, strlen(r->fields[i].key)))
            frf_fail(fmt, "field key");
        frf_text_ok(fmt, r->fields[i].value, r->fields[i].value_len, "field value not valid UTF-8");
    }
    if ((r->has & RF_START) && (r->has & RF_END) && r->end_ns < r->start_ns) frf_fail(fmt, "end before start");
    if ((r->has & RF_DURATION) && r->duration_ns < 0) frf_fail(fmt, "negative duration");
    if ((unsigned)r->copy > COPY_HTOH) frf_fail(fmt, "copy kind out of range");
    if ((unsigned)r->domain > API_OTHER) frf_fail(fmt, "API domain out of range");
    if (r->type == REC_KERNEL_STATS && (r->has & RF_CALLS) && (r->min_ns < 0 || r->max_ns < 0))
        frf_fail(fmt, "negative min/max");
    return true;
}

/* The formats byte 0 picks among, in registry order: every registered format that reads a byte
 * stream (fuzz/fuzz_formats lists them, so fuzz/run.sh seeds each one). Returns how many. */
static size_t frf_formats(const artefact_parser **out, size_t cap) {
    size_t n = 0;
    for (const artefact_parser *const *p = parser_list(); *p && n < cap; p++)
        if ((*p)->open_records && (*p)->feed) out[n++] = *p;
    return n;
}

/* One input: byte 0 picks the format, byte 1 the chunking and the fields asked for. */
static void fuzz_record_formats_one(const uint8_t *data, size_t size) {
    static const artefact_parser *formats[64];
    static size_t n_formats;
    if (!n_formats) n_formats = frf_formats(formats, 64);
    if (size < 2 || !n_formats) return;
    const artefact_parser *p = formats[data[0] % n_formats];
    uint32_t rng = data[1] * 2654435761u + 1;
    unsigned fields = (data[1] & 1) ? ALL_RF : 0;
    data += 2;
    size -= 2;
    read_facts facts;
    memset(&facts, 0, sizeof facts);
    diag_list diag;
    diag_init(&diag);
    parse_options opt = {.seed_compat = (rng >> 7) & 1};
    record_sink sink = {.emit = frf_check_record, .user = (void *)p->name, .fields = fields};
    void *st = p->open_records(&opt, "fuzz", &sink, &facts, &diag);
    if (st) {
        for (size_t i = 0; i < size;) {
            rng = rng * 1103515245u + 12345u;
            static const size_t CHUNK[8] = {1, 2, 3, 7, 64, 509, 4096, 65536};
            size_t chunk = CHUNK[(rng >> 16) & 7];      /* boundaries everywhere, in reasonable time */
            if (chunk > size - i) chunk = size - i;
            if (!p->feed(st, data + i, chunk)) break;
            i += chunk;
        }
        p->finish(st);
        p->close(st);
    }
    read_facts_free(&facts);
    diag_free(&diag);
}

#endif
