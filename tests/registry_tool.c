/* registry_tool: what the format and section registries hold, for tests/registry_check.py.
 *
 *   registry_tool formats          one line per registered format: NAME<TAB>stream|path<TAB>PAIR
 *                                  <TAB>KERNELS (whether it reads a byte stream, as the
 *                                  record-format fuzzer needs; whether it has a pair state: -,
 *                                  pair, or pair-without-resumed when it splits but its pair
 *                                  cannot; the kernel source it declares, as the run inventory
 *                                  reads .kernels: device, host or none)
 *   registry_tool sections         one line per registered section analysis: KEY
 *   registry_tool sniff FILE...    one line per file: FILE<TAB>FORMAT<TAB>SCORE, the format whose
 *                                  sniff scores the file's first SNIFF_BYTES highest (ties: the
 *                                  registry's order, as discovery does), or "-" when none does
 *   registry_tool dispatches FORMAT FILE
 *                                  how many kernel dispatch records FORMAT's open_records emits
 *                                  reading FILE whole (to a sink taking every type but the trace
 *                                  events) */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyses/section_registry.h"
#include "parsers/parser_registry.h"

/* Prints the best-scoring format for one file, as "FILE\tNAME\tSCORE"; 1 when it cannot be read. */
static int sniff_head(const char *path) {
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

/* The kernel source a format declares, as the run inventory reads it. */
static const char *kernel_source(const artefact_parser *f) {
    kernel_source_kind ks = artefact_kernel_source(f);
    return ks == KERNELS_DEVICE_CLOCK ? "device" : ks == KERNELS_HOST_TRACE ? "host" : "none";
}

/* Counts the kernel dispatches a read emits. */
static bool count_dispatch(void *user, const record *r) {
    if (r->type == REC_KERNEL_DISPATCH) ++*(unsigned long *)user;
    return true;
}

/* Reads path whole with the format named `name` and prints how many kernel dispatches it
 * emitted; 1 when the format is unknown or the file cannot be opened or read. */
static int dispatches(const char *name, const char *path) {
    const artefact_parser *p = NULL;
    for (const artefact_parser *const *q = parser_list(); *q; q++)
        if (!strcmp((*q)->name, name)) p = *q;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (!p || fd < 0) {
        fprintf(stderr, "registry_tool: %s: %s\n", name, p ? "cannot open the file" : "no such format");
        if (fd >= 0) close(fd);
        return 1;
    }
    unsigned long n_dispatch = 0;
    parse_options opt = {0};
    read_facts facts = {0};
    diag_list diag;
    diag_init(&diag);
    record_sink sink = {.emit = count_dispatch, .user = &n_dispatch};
    void *st = p->open_records(&opt, path, &sink, &facts, &diag);
    if (st) {
        if (p->read_fd) p->read_fd(st, fd, path);
        else {
            uint8_t buf[65536];
            ssize_t n;
            while ((n = read(fd, buf, sizeof buf)) > 0 && p->feed(st, buf, (size_t)n)) {}
        }
        p->finish(st);
        p->close(st);
    }
    close(fd);
    read_facts_free(&facts);
    diag_free(&diag);
    printf("%lu\n", n_dispatch);
    return st ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "formats")) {
        for (const artefact_parser *const *p = parser_list(); *p; p++) {
            const artefact_parser *f = *p;
            /* a pair state that a split read could not resume is a registry error */
            const char *pair = !f->open_records_pair ? "-"
                               : f->open_records_resumed && !f->open_records_pair_resumed ? "pair-without-resumed"
                                                                                           : "pair";
            printf("%s\t%s\t%s\t%s\n", f->name, f->open_records && f->feed ? "stream" : "path", pair,
                   kernel_source(f));
        }
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "sections")) {
        for (const section_analysis *const *a = section_analyses(); *a; a++) printf("%s\n", (*a)->key);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "sniff")) {
        int rc = 0;
        for (int i = 2; i < argc; i++) rc |= sniff_head(argv[i]);
        return rc;
    }
    if (argc == 4 && !strcmp(argv[1], "dispatches")) return dispatches(argv[2], argv[3]);
    fprintf(stderr, "usage: registry_tool formats | sections | sniff FILE... | dispatches FORMAT FILE\n");
    return 2;
}
