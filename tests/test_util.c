/* test_util: helpers shared by the Check suites. */
#include "tests/test_util.h"

#include "core/artefact_reader.h"
#include "core/metrics_json.h"
#include "core/read_facts_json.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *tu_tempdir(void) {
    const char *base = getenv("TMPDIR");
    char *t = NULL;
    ck_assert(asprintf(&t, "%s/goblind-test-XXXXXX", base && *base ? base : "/tmp") > 0);
    ck_assert_ptr_nonnull(mkdtemp(t));
    return t;
}

void tu_rmrf(const char *dir) {
    char *cmd = NULL;
    if (asprintf(&cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir) > 0) {
        if (system(cmd) != 0) { /* best effort */ }
    }
    free(cmd);
}

void tu_write(const char *dir, const char *name, const void *data, size_t n) {
    char *p = NULL;
    ck_assert(asprintf(&p, "%s/%s", dir, name) > 0);
    FILE *f = fopen(p, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", p);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    fclose(f);
    free(p);
}

void tu_write_str(const char *dir, const char *name, const char *text) { tu_write(dir, name, text, strlen(text)); }

char *tu_read(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    size_t got = fread(b, 1, (size_t)len, f);
    fclose(f);
    b[got] = '\0';
    if (n) *n = got;
    return b;
}

const char *tu_fixture(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/fixtures/%s", GOBLIN_SHARED_DIR, rel);
    return buf;
}

void tu_copy_fixture(const char *rel, const char *dir, const char *name) {
    size_t n;
    char *data = tu_read(tu_fixture(rel), &n);
    ck_assert_msg(data != NULL, "missing fixture %s", rel);
    tu_write(dir, name, data, n);
    free(data);
}

void tu_parse(const char *dir, bool seed_compat, run_result *r) {
    run_options o = {0};
    o.parse.seed_compat = seed_compat;
    ck_assert(run_parse(dir, &o, r));
}

bool tu_warned(const run_result *r, const char *needle) {
    for (size_t i = 0; i < r->metrics.warnings.count; i++)
        if (strstr(r->metrics.warnings.items[i], needle)) return true;
    return false;
}

void tu_read_artefact(const char *path, artefact_kind kind, uint64_t tail_bytes, void *summary, diag_list *diag,
                      artefact_info *info) {
    parse_options opt = {.split_min_bytes = 1};
    diag_init(diag);
    if (tail_bytes == 0) artefact_read(path, kind, &opt, summary, diag, info);
    else artefact_read_end(artefact_read_begin(path, kind, &opt, summary, diag, info, tail_bytes));
}

char *tu_metrics_text(const run_result *r) {
    strbuf out = {0};
    metrics_json_render(&r->metrics, 0, &out);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        strbuf_putc(&out, '\n');
        read_facts_render(run_result_facts(r, (artefact_kind)k), &out);
        char line[160];
        int n = snprintf(line, sizeof line, " present=%d format=%s bytes=%llu error=%s", r->info[k].present,
                         r->info[k].format ? r->info[k].format : "-", (unsigned long long)r->info[k].bytes_parsed,
                         r->info[k].error ? "yes" : "no");
        strbuf_append(&out, line, (size_t)n);
    }
    strbuf_terminate(&out);
    return out.data;
}
