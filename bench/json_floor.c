/* json_floor: what the JSON tokenizer alone costs on a file, for docs/PERFORMANCE.md "The
 * tokenizer's floor". The file is read into memory first, then fed in 1 MiB chunks to
 * parsers/tokenizers/json_tokenizer.c three ways, best of N each:
 *   validate  emit depth 0 (only the root's own tokens reported): json.loads' validation;
 *   parse     about goblind parse's pattern (emit depth 3, event keys other than
 *             name/cat/ts/dur declined; root keys are not);
 *   report    every token reported to an empty callback (emit depth 9).
 * usage: json_floor FILE [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parsers/tokenizers/json_tokenizer.h"

typedef struct counter {
    long tokens;
} counter;

static bool take_all(void *user, const jt_token *t) {
    (void)t;
    ((counter *)user)->tokens++;
    return true;
}

/* goblind parse's events state takes an event's name, cat, ts and dur (depth 3) only. */
static bool take_event_keys(void *user, const jt_token *t) {
    ((counter *)user)->tokens++;
    if (t->kind != JT_KEY || t->depth < 3) return true;
    return (t->len == 2 && !memcmp(t->text, "ts", 2)) || (t->len == 3 && !memcmp(t->text, "dur", 3)) ||
           (t->len == 3 && !memcmp(t->text, "cat", 3)) || (t->len == 4 && !memcmp(t->text, "name", 4));
}

static double run(const uint8_t *b, size_t n, unsigned depth, jt_callback cb, long *tokens) {
    counter c = {0};
    jt_tokenizer t;
    if (!jt_init(&t, depth, 65536, cb, &c)) exit(1);
    struct timespec a, z;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (size_t off = 0; off < n; off += 1u << 20) jt_feed(&t, b + off, n - off < (1u << 20) ? n - off : 1u << 20);
    bool ok = jt_finish(&t);
    clock_gettime(CLOCK_MONOTONIC, &z);
    jt_free(&t);
    if (!ok) { fprintf(stderr, "not valid JSON: %s\n", jt_error(&t)); exit(1); }
    *tokens = c.tokens;
    return (double)(z.tv_sec - a.tv_sec) + (double)(z.tv_nsec - a.tv_nsec) / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: json_floor FILE [RUNS]\n"); return 2; }
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n ? n : 1);
    if (!b || fread(b, 1, n, f) != n) return 1;
    fclose(f);
    static const struct { const char *name; unsigned depth; jt_callback cb; } WAYS[] = {
        {"validate", 0, take_all}, {"parse", 3, take_event_keys}, {"report", 9, take_all}};
    printf("%s: %.1f MB\n", argv[1], (double)n / 1e6);
    for (size_t w = 0; w < 3; w++) {
        double best = 1e9;
        long tokens = 0;
        for (int r = 0; r < runs; r++) {
            double s = run(b, n, WAYS[w].depth, WAYS[w].cb, &tokens);
            if (s < best) best = s;
        }
        printf("%-9s %.3f s  %.2f ns/byte  %ld tokens reported (best of %d)\n", WAYS[w].name, best, best * 1e9 / (double)n,
               tokens, runs);
    }
    free(b);
    return 0;
}
