/* compare_diff_tool: the document-based part of /compare for two analysis documents on disk, for
 * the calibration and corpus tests (tests/compare_calibration.py, tests/compare_diff_oracle.py):
 *   compare_diff_tool BASE.json CANDIDATE.json [ROWS]
 * prints one JSON object with the keys /compare takes from api/compare_diff plus `summary`. */
#include <stdio.h>
#include <stdlib.h>

#include "api/compare_diff.h"
#include "base/strbuf.h"

/* The whole file at path (NUL-terminated), or NULL. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    strbuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (!strbuf_append(&b, chunk, n)) { fclose(f); strbuf_free(&b); return NULL; }
    fclose(f);
    if (!strbuf_terminate(&b)) { strbuf_free(&b); return NULL; }
    *len = b.len;
    return b.data;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: compare_diff_tool BASE.json CANDIDATE.json [ROWS]\n");
        return 2;
    }
    size_t la = 0, lb = 0;
    char *a = slurp(argv[1], &la), *b = slurp(argv[2], &lb);
    if (!a || !b) { fprintf(stderr, "compare_diff_tool: cannot read the documents\n"); return 1; }
    compare_diff *d = compare_diff_new(a, la, b, lb, argc == 4 ? strtoul(argv[3], NULL, 10) : COMPARE_DIFF_ROWS_DEFAULT);
    if (!d) { fprintf(stderr, "compare_diff_tool: out of memory, or a document that is not JSON\n"); return 1; }
    strbuf out = {0};
    jw_out j;
    jw_begin(&j, &out, 0);
    jw_object_open(&j);
    compare_diff_write(d, &j);
    char summary[800];
    compare_diff_summary(d, summary, sizeof summary);
    jw_key(&j, "summary");
    jw_string(&j, summary);
    jw_object_close(&j);
    int rc = strbuf_terminate(&out) && fwrite(out.data, 1, out.len, stdout) == out.len ? 0 : 1;
    putchar('\n');
    strbuf_free(&out);
    compare_diff_free(d);
    free(a);
    free(b);
    return rc;
}
