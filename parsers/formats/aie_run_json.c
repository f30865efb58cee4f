/* aie_run_json: aie_run.json, the description of an mlir-aie run, as REC_METADATA records.
 *
 * A small JSON object written beside the trace by whoever ran the design:
 *   {"M": 512, "K": 512, "N": 512, "m": 64, "k": 64, "n": 64, "rows": 4, "cols": 4,
 *    "warmup": 1, "iterations": 10, "clock_ghz": 1.25, "macs_per_cycle": 64}
 * Every top-level scalar member becomes one record with key "aie.<member>" and the value's
 * JSON text (numbers as written, strings decoded); the analysis (analyses/sections/aie_cores.c)
 * decides which it needs and what a bad value means. Nested values are ignored; a document
 * that is not an object is a warning naming the byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/formats/aie_trace_json.h"
#include "parsers/tokenizers/json_tokenizer.h"

typedef struct state {
    record_sink sink;
    diag_list *diag;
    read_facts *facts;
    const char *label;
    jt_tokenizer jt;
    bool failed, oom, not_object;
    char key[72];
    bool have_key;
    uint64_t members;
} state;

static bool on_token(void *user, const jt_token *t) {
    state *s = user;
    if (t->depth == 0) {
        if (t->kind != JT_OBJECT_BEGIN && t->kind != JT_OBJECT_END) s->not_object = true;
        return false;
    }
    if (t->depth != 1) return false;
    if (t->kind == JT_KEY) {
        s->have_key = !t->truncated && t->len + 5 < sizeof s->key;
        if (s->have_key) snprintf(s->key, sizeof s->key, "aie.%.*s", (int)t->len, t->text);
        return s->have_key;
    }
    if (!s->have_key || s->oom) return false;
    s->have_key = false;
    if (t->kind != JT_NUMBER && t->kind != JT_STRING && t->kind != JT_TRUE && t->kind != JT_FALSE) return false;
    const char *v = t->kind == JT_TRUE ? "true" : t->kind == JT_FALSE ? "false" : t->text;
    size_t vl = t->kind == JT_TRUE ? 4 : t->kind == JT_FALSE ? 5 : t->len;
    record r = {.type = REC_METADATA, .line = t->offset, .key = s->key, .value = v, .value_len = vl};
    s->members++;
    if (!record_emit(&s->sink, &r)) s->oom = true;
    return false;
}

static void *ar_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    (void)opt;
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->diag = diag;
    s->facts = facts;
    s->label = label;
    if (!jt_init(&s->jt, 1, 256, on_token, s)) { free(s); return NULL; }
    return s;
}

static bool ar_feed(void *st, const uint8_t *buf, size_t n) {
    state *s = st;
    if (s->failed) return false;
    if (!jt_feed(&s->jt, buf, n)) {
        s->failed = true;
        diag_add(s->diag, "%s: byte %llu: %s", s->label, (unsigned long long)jt_error_offset(&s->jt), jt_error(&s->jt));
        return false;
    }
    if (s->not_object) {
        s->failed = true;
        diag_add(s->diag, "%s: byte 0: not a JSON object (aie_run.json describes one run: {\"M\": ..., ...})", s->label);
        return false;
    }
    return !s->oom;
}

static void ar_finish(void *st) {
    state *s = st;
    if (!s->failed && !jt_finish(&s->jt))
        diag_add(s->diag, "%s: byte %llu: %s", s->label, (unsigned long long)jt_error_offset(&s->jt), jt_error(&s->jt));
    if (s->oom) diag_oom(s->diag, "%s: out of memory", s->label);
    s->facts->rows_used = s->members;
}

static void ar_close(void *st) {
    state *s = st;
    if (!s) return;
    jt_free(&s->jt);
    free(s);
}

static const char *const AR_NAMES[] = {"aie_run.json", NULL};

static int ar_sniff(const char *name, const uint8_t *head, size_t n) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (!strcmp(base, "aie_run.json")) return 100;
    bool iters = false, m = false;
    for (size_t i = 0; i + 12 <= n; i++) {
        if (!memcmp(head + i, "\"iterations\"", 12)) iters = true;
    }
    for (size_t i = 0; i + 3 <= n; i++)
        if (!memcmp(head + i, "\"M\"", 3)) m = true;
    return iters && m ? 60 : 0;
}

const artefact_parser aie_run_json_parser = {
    .name = "aie-run-json",
    .family = "aie",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .names = AR_NAMES,
    .sniff = ar_sniff,
    .open_records = ar_open,
    .feed = ar_feed,
    .finish = ar_finish,
    .close = ar_close,
};
