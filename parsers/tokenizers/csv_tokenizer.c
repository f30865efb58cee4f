/* csv_tokenizer: Python-csv-compatible streaming CSV tokenizer. */
#include "parsers/tokenizers/csv_tokenizer.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { START_RECORD, START_FIELD, IN_FIELD, IN_QUOTED, QUOTE_IN_QUOTED };

/* Bytes that end a run of ordinary field text outside quotes. */
static const bool special[256] = {[','] = true, ['\n'] = true, ['\r'] = true};

void csv_init(csv_tokenizer *t, size_t cap, csv_record_fn fn, void *user) {
    memset(t, 0, sizeof *t);
    t->cap = cap;
    t->line = 1;
    t->capture_all = true;
    t->on_record = fn;
    t->user = user;
}

void csv_free(csv_tokenizer *t) {
    for (size_t i = 0; i < t->rec.n_captured; i++) strbuf_free(&t->rec.captured[i].text);
    for (size_t i = 0; i < t->all_cap; i++) strbuf_free(&t->rec.all[i]);
    free(t->rec.captured);
    free(t->rec.all);
    free(t->slot_of);
    memset(t, 0, sizeof *t);
}

bool csv_capture_columns(csv_tokenizer *t, const size_t *cols, size_t n) {
    size_t maxc = 0;
    for (size_t i = 0; i < n; i++) if (cols[i] + 1 > maxc) maxc = cols[i] + 1;
    int *slot = malloc((maxc ? maxc : 1) * sizeof *slot);
    csv_field *f = calloc(n ? n : 1, sizeof *f);
    if (!slot || !f) { free(slot); free(f); return false; }
    for (size_t i = 0; i < maxc; i++) slot[i] = -1;
    for (size_t i = 0; i < n; i++) { slot[cols[i]] = (int)i; f[i].index = cols[i]; }
    for (size_t i = 0; i < t->rec.n_captured; i++) strbuf_free(&t->rec.captured[i].text);
    free(t->rec.captured);
    free(t->slot_of);
    t->slot_of = slot;
    t->slot_of_len = maxc;
    t->rec.captured = f;
    t->rec.n_captured = n;
    t->capture_all = false;
    return true;
}

/* begin_field in capture-all mode (a header line): every field gets a buffer, up to
 * CSV_ALL_MAX_FIELDS (past it the record is cut: not reported, counted in csv_wide). */
static __attribute__((noinline)) void begin_field_all(csv_tokenizer *t) {
    t->cur = NULL;
    t->cur_trunc = NULL;
    if (t->cut || t->field >= CSV_ALL_MAX_FIELDS) {   /* (a cut record's further cells: not copied) */
        t->cut = true;
        return;
    }
    if (t->field >= t->all_cap) {
        size_t nc = t->all_cap ? t->all_cap * 2 : 16;
        strbuf *a = realloc(t->rec.all, nc * sizeof *a);
        if (!a) { t->oom = true; return; }
        memset(a + t->all_cap, 0, (nc - t->all_cap) * sizeof *a);
        t->rec.all = a;
        t->all_cap = nc;
    }
    t->cur = &t->rec.all[t->field];
    t->cur->len = 0;
    t->rec.n_all = t->field + 1;
}

/* Points t->cur at the buffer for field t->field, or NULL when it is not wanted. Inline:
 * it runs once per field of every row (a call each was ~2 % of `goblind analyze`). */
static inline __attribute__((always_inline)) void begin_field(csv_tokenizer *t) {
    if (t->capture_all) { begin_field_all(t); return; }
    t->cur = NULL;
    t->cur_trunc = NULL;
    if (t->field < t->slot_of_len && t->slot_of[t->field] >= 0) {
        csv_field *f = &t->rec.captured[t->slot_of[t->field]];
        f->present = true;
        f->truncated = false;
        f->text.len = 0;
        t->cur = &f->text;
        t->cur_trunc = &f->truncated;
    }
}

/* Appends n bytes to the field being read (when captured), up to the cap. A short piece
 * that fits the buffer is copied here (fields are a few bytes: strbuf_append's call chain
 * and memcpy's were most of the cost of a captured field); strbuf_append grows it. */
static void add(csv_tokenizer *t, const uint8_t *p, size_t n) {
    strbuf *b = t->cur;
    if (!b || n == 0) return;
    if (n <= 16 && b->len + 16 < b->cap && b->len + n <= t->cap) {
        char *d = b->data + b->len;          /* (the 16 bytes fit: a fixed-size copy is two moves) */
        if (n >= 8) { uint64_t x, y; memcpy(&x, p, 8); memcpy(&y, p + n - 8, 8); memcpy(d, &x, 8); memcpy(d + n - 8, &y, 8); }
        else if (n >= 4) { uint32_t x, y; memcpy(&x, p, 4); memcpy(&y, p + n - 4, 4); memcpy(d, &x, 4); memcpy(d + n - 4, &y, 4); }
        else { d[0] = (char)p[0]; d[n / 2] = (char)p[n / 2]; d[n - 1] = (char)p[n - 1]; }
        b->len += n;
        return;
    }
    size_t room = t->cap > b->len ? t->cap - b->len : 0;
    if (n > room) { n = room; if (t->cur_trunc) *t->cur_trunc = true; }
    if (!n) return;
    if (!t->capture_all) {
        if (!strbuf_append(b, p, n)) t->oom = true;
        return;
    }
    /* capture-all: the buffers' capacity in all (all_held) stays under CSV_ALL_MAX_BYTES (a
     * growth at most doubles); past it the record is cut (not reported, counted in csv_wide) */
    if (b->len + n >= b->cap && 2 * (b->len + n + 1) > CSV_ALL_MAX_BYTES - t->all_held) {
        t->cut = true;
        t->cur = NULL;
        return;
    }
    size_t before = b->cap;
    if (!strbuf_append(b, p, n)) t->oom = true;
    t->all_held += b->cap - before;
}

/* A NUL after the field's bytes (the buffer's room for it is the common case); `all`: one of
 * the capture-all buffers, whose growth all_held follows. */
static inline void terminate(csv_tokenizer *t, strbuf *b, bool all) {
    if (b->len < b->cap) { b->data[b->len] = '\0'; return; }
    size_t before = b->cap;
    if (!strbuf_terminate(b)) t->oom = true;
    if (all) t->all_held += b->cap - before;
}

static void start_record(csv_tokenizer *t) {
    t->rec.line = t->line;
    t->rec.unterminated = false;
    t->cut = false;
    if (t->all_held > CSV_ALL_KEEP_BYTES) {   /* wide records before: their buffers go */
        for (size_t i = 0; i < t->all_cap; i++) strbuf_free(&t->rec.all[i]);
        t->all_held = 0;
    }
    t->rec.n_all = 0;
    for (size_t i = 0; i < t->rec.n_captured; i++) t->rec.captured[i].present = false;
    t->field = 0;
    begin_field(t);
}

/* The next field of the record (inline: once per field of every row, from fast_line). */
static inline __attribute__((always_inline)) void end_field(csv_tokenizer *t) {
    t->field++;
    begin_field(t);
}

static void end_record(csv_tokenizer *t) {
    t->state = START_RECORD;
    if (t->cut) {                             /* past the capture-all bounds: counted, not reported */
        if (!t->wide++) t->wide_line = t->rec.line;
        return;
    }
    t->rec.n_fields = t->field + 1;
    if (t->capture_all && t->rec.n_all > t->rec.n_fields) t->rec.n_all = t->rec.n_fields;
    for (size_t i = 0; t->capture_all && i < t->rec.n_all; i++) terminate(t, &t->rec.all[i], true);
    for (size_t i = 0; i < t->rec.n_captured; i++) terminate(t, &t->rec.captured[i].text, false);
    t->on_record(t->user, &t->rec);
}

uint64_t csv_wide(const csv_tokenizer *t, uint64_t *first_line) {
    *first_line = t->wide_line;
    return t->wide;
}


/* First byte equal to c in [q, lim), or lim. Fields are short, so this is inlined
 * rather than a memchr call per field; 16 bytes at a time while the buffer allows. */
static inline const uint8_t *find_byte(const uint8_t *q, const uint8_t *lim, const uint8_t *end, uint8_t c) {
#ifdef __SSE2__
    const __m128i v = _mm_set1_epi8((char)c);
    while (q < lim && end - q >= 16) {
        int m = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)q), v));
        if (m) { q += __builtin_ctz((unsigned)m); return q < lim ? q : lim; }
        q += 16;
    }
    if (q >= lim) return lim;
#else
    (void)end;
#endif
    while (q < lim && *q != c) q++;
    return q;
}

/* Fast path for the usual record: the whole of it on one line inside this buffer, no CR.
 * Same rules as the state machine below (a quote opens a field only at its start, ""
 * is a quote, text after the closing quote is kept up to the delimiter). Returns p
 * unchanged, before any record is reported, when it does not apply: a quoted field that
 * goes on past the line end, a CR other than CRLF's, a blank line or a line cut by the
 * buffer's end. */
static const uint8_t *fast_line(csv_tokenizer *t, const uint8_t *p, const uint8_t *end) {
    const uint8_t *le = memchr(p, '\n', (size_t)(end - p));
    if (!le) return p;
    const uint8_t *next = le + 1, *cr = memchr(p, '\r', (size_t)(le - p));
    if (cr && cr != le - 1) return p;
    if (cr) le = cr;                                 /* CRLF: one line end */
    if (le == p) return p;
    start_record(t);
    const uint8_t *q = p;
    for (;;) {
        if (q < le && *q == '"') {
            for (q++;;) {
                const uint8_t *r = find_byte(q, le, end, '"');
                if (r == le) return p;               /* the quoted field spans lines */
                add(t, q, (size_t)(r - q));
                q = r + 1;
                if (q < le && *q == '"') { add(t, q, 1); q++; continue; }
                break;
            }
        }
        const uint8_t *r = find_byte(q, le, end, ',');
        add(t, q, (size_t)(r - q));
        if (r == le) break;
        q = r + 1;
        end_field(t);
    }
    t->line++;
    end_record(t);
    return next;
}

#ifdef __SSE2__
#define MASK_LINE_WORDS 16   /* lines of up to 1,024 bytes take mask_line */

/* Bit i set where the 64 bytes at p equal c. */
static inline uint64_t eq_mask64(const uint8_t *p, __m128i c) {
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, c)) << (16 * i);
    }
    return m;
}

/* Bit i set when an odd number of bits at or below i are set in x. */
static inline uint64_t prefix_xor(uint64_t x) {
    x ^= x << 1; x ^= x << 2; x ^= x << 4; x ^= x << 8; x ^= x << 16; x ^= x << 32;
    return x;
}

/* Faster path for the commonest record: one line of at most 1,024 bytes with its LF, whole
 * in this buffer with the rest of its last 64-byte block (the masks are taken a whole block
 * at a time), no CR but CRLF's, and every field either free of quotes or one quoted text
 * with no quote inside ("a,b" but not "a""b" or "a"b).
 * Quotes, commas and the line end are found as bit masks, 64 bytes per step, and the
 * quoted stretches by a prefix XOR of the quote mask (a quote opens, the next one
 * closes). The line qualifies exactly when every opening quote starts a field and every
 * closing quote ends one: then Python's csv reads it as these masks do. Returns p
 * unchanged, before any record is reported, when the line does not qualify; fast_line
 * and the state machine then read it. */
static const uint8_t *mask_line(csv_tokenizer *t, const uint8_t *p, const uint8_t *end) {
    const __m128i quote = _mm_set1_epi8('"'), comma = _mm_set1_epi8(','), lf = _mm_set1_epi8('\n'),
                  cr = _mm_set1_epi8('\r');
    uint64_t qm[MASK_LINE_WORDS], dm[MASK_LINE_WORDS];
    size_t avail = (size_t)(end - p), len = 0, words = 0;
    bool crlf = false;
    for (size_t w = 0;; w++) {
        if (w == MASK_LINE_WORDS || avail < 64 * (w + 1)) return p;
        const uint8_t *b = p + 64 * w;
        uint64_t nl = eq_mask64(b, lf), r = eq_mask64(b, cr);
        qm[w] = eq_mask64(b, quote);
        dm[w] = eq_mask64(b, comma);
        if (!nl) {
            if (r) return p;
            continue;
        }
        size_t at = (size_t)__builtin_ctzll(nl);
        uint64_t before = r & ((1ull << at) - 1);     /* CRs before the LF in this word */
        len = 64 * w + at;
        if (before) {                                   /* (a CR in an earlier word returned) */
            if (before != 1ull << (at - 1)) return p;   /* a CR that is not CRLF's */
            crlf = true;
            len--;
        }
        words = w + 1;
        break;
    }
    if (len == 0) return p;                              /* a blank line */
    /* Only the line's own bytes count: clear the masks from len on. */
    for (size_t w = 0; w < words; w++) {
        size_t lo = 64 * w;
        uint64_t keep = len >= lo + 64 ? ~0ull : len > lo ? (1ull << (len - lo)) - 1 : 0;
        qm[w] &= keep;
        dm[w] &= keep;
    }
    uint64_t carry = 0, open[MASK_LINE_WORDS], close[MASK_LINE_WORDS];
    for (size_t w = 0; w < words; w++) {
        uint64_t inside = prefix_xor(qm[w]) ^ carry;    /* in quotes, opening quote included */
        carry = 0 - (inside >> 63);
        open[w] = qm[w] & inside;
        close[w] = qm[w] & ~inside;
        dm[w] &= ~inside;                                /* commas that separate fields */
    }
    if (carry) return p;                                 /* a quoted field goes on past the LF */
    for (size_t w = 0; w < words; w++) {
        uint64_t starts = dm[w] << 1 | (w ? dm[w - 1] >> 63 : 1);
        uint64_t ends = dm[w] >> 1 | (w + 1 < words ? dm[w + 1] << 63 : 0);
        if ((len - 1) / 64 == w) ends |= 1ull << ((len - 1) % 64);
        if ((open[w] & ~starts) | (close[w] & ~ends)) return p;
    }
    start_record(t);
    size_t a = 0;
    for (size_t w = 0; w <= words; w++) {
        uint64_t d = w < words ? dm[w] : 0;
        for (;;) {
            size_t e;
            if (d) { e = 64 * w + (size_t)__builtin_ctzll(d); d &= d - 1; }
            else if (w == words) e = len;
            else break;
            if (t->cur) {
                if (p[a] == '"') add(t, p + a + 1, e - a - 2);
                else add(t, p + a, e - a);
            }
            if (e == len) goto done;
            end_field(t);
            a = e + 1;
        }
    }
done:
    t->line++;
    end_record(t);
    return p + len + (crlf ? 2 : 1);
}
#endif

bool csv_at_record_start(const csv_tokenizer *t) { return t->state == START_RECORD && !t->prev_cr; }

void csv_feed(csv_tokenizer *t, const uint8_t *buf, size_t n) {
    const uint8_t *p = buf, *end = buf + n;
    while (p < end) {
        if (t->state == START_RECORD && !t->prev_cr) {
#ifdef __SSE2__
            const uint8_t *m = mask_line(t, p, end);
            if (m != p) { p = m; continue; }
#endif
            const uint8_t *q = fast_line(t, p, end);
            if (q != p) { p = q; continue; }
        }
        uint8_t c = *p;
        if (t->prev_cr) {                 /* CRLF is one line end */
            t->prev_cr = false;
            if (c == '\n') { p++; continue; }
        }
        if (c == '\r') { t->prev_cr = true; c = '\n'; }
        if (c == '\n') t->line++;
        switch (t->state) {
        case START_RECORD:
            if (c == '\n') {                        /* blank line: an empty record */
                t->rec.line = t->line - 1;
                t->rec.n_fields = 0;
                t->rec.n_all = 0;
                t->rec.unterminated = false;
                for (size_t i = 0; i < t->rec.n_captured; i++) t->rec.captured[i].present = false;
                t->on_record(t->user, &t->rec);
                p++;
                continue;
            }
            start_record(t);
            t->state = START_FIELD;
            /* fall through */
        case START_FIELD:
            if (c == '\n') { end_record(t); p++; continue; }
            if (c == '"') { t->state = IN_QUOTED; p++; continue; }
            if (c == ',') { end_field(t); p++; continue; }
            t->state = IN_FIELD;
            /* fall through */
        case IN_FIELD: {
            if (c == '\n') { end_record(t); p++; continue; }
            if (c == ',') { end_field(t); t->state = START_FIELD; p++; continue; }
            const uint8_t *s = p;                    /* a '"' inside an unquoted field is literal */
            while (p < end && !special[*p]) p++;
            add(t, s, (size_t)(p - s));
            continue;
        }
        case IN_QUOTED: {
            if (c == '\n') { add(t, (const uint8_t *)"\n", 1); p++; continue; }
            if (c == '"') { t->state = QUOTE_IN_QUOTED; p++; continue; }
            const uint8_t *s = p;
            while (p < end && *p != '"' && *p != '\n' && *p != '\r') p++;
            add(t, s, (size_t)(p - s));
            continue;
        }
        case QUOTE_IN_QUOTED:
            if (c == '"') { add(t, p, 1); t->state = IN_QUOTED; p++; continue; }
            if (c == ',') { end_field(t); t->state = START_FIELD; p++; continue; }
            if (c == '\n') { end_record(t); p++; continue; }
            add(t, p, 1);                            /* strict=False: keep the character */
            t->state = IN_FIELD;
            p++;
            continue;
        }
    }
}

void csv_finish(csv_tokenizer *t) {
    if (t->state == START_RECORD) return;
    t->rec.unterminated = t->state == IN_QUOTED;
    end_record(t);
}
