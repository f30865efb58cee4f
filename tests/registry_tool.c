/* registry_tool: what the format and section registries hold, for tests/registry_check.py.
 *
 *   registry_tool formats          one line per registered format: NAME<TAB>stream|path<TAB>PAIR
 *                                  (whether it reads a byte stream, as the record-format fuzzer
 *                                  needs; whether it has a pair state: -, pair, or
 *                                  pair-without-resumed when it splits but its pair cannot)
 *   registry_tool sections         one line per registered section analysis: KEY
 *   registry_tool sniff FILE...    one line per file: FILE<TAB>FORMAT<TAB>SCORE, the format whose
 *                                  sniff scores the file's first SNIFF_BYTES highest (ties: the
 *                                  registry's order, as discovery does), or "-" when none does */
#include <stdio.h>
#include <string.h>

#include "analyses/section_registry.h"
#include "parsers/parser_registry.h"

/* Prints the best-scoring format for one file, as "FILE\tNAME\tSCORE"; 1 when it cannot be read. */
static int sniff_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 1; }
    uint8_t head[SNIFF_BYTES];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const artefact_parser *best = NULL;
    int score = 0;
    for (const artefact_parser *const *p = parser_list(); *p; p++) {
        int s = (*p)->sniff(base, head, n);
        if (s > score) best = *p, score = s;
    }
    printf("%s\t%s\t%d\n", path, best ? best->name : "-", score);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "formats")) {
        for (const artefact_parser *const *p = parser_list(); *p; p++) {
            const artefact_parser *f = *p;
            /* a pair state that a split read could not resume is a registry error */
            const char *pair = !f->open_records_pair ? "-"
                               : f->open_records_resumed && !f->open_records_pair_resumed ? "pair-without-resumed"
                                                                                           : "pair";
            printf("%s\t%s\t%s\n", f->name, f->open_records && f->feed ? "stream" : "path", pair);
        }
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "sections")) {
        for (const section_analysis *const *a = section_analyses(); *a; a++) printf("%s\n", (*a)->key);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "sniff")) {
        int rc = 0;
        for (int i = 2; i < argc; i++) rc |= sniff_file(argv[i]);
        return rc;
    }
    fprintf(stderr, "usage: registry_tool formats | sections | sniff FILE...\n");
    return 2;
}
