/* run_files: artefact discovery in one run directory, driven by the formats' names. */
#include "core/run_files.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parsers/parser_registry.h"

static const char *const KIND_NAMES[ARTEFACT_KIND_COUNT] = {"kernel trace", "torch profile", "amd-smi telemetry"};

const char *artefact_kind_name(artefact_kind k) { return k < ARTEFACT_KIND_COUNT ? KIND_NAMES[k] : "artefact"; }

static char *join(const char *a, const char *b) {
    char *s = NULL;
    return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static bool has_wildcard(const char *p) { return strpbrk(p, "*?[") != NULL; }

/* The smallest entry name of dir matching `pattern` (a plain name: when it exists), or NULL. */
static char *smallest_match(const char *dir, const char *pattern) {
    if (!has_wildcard(pattern)) {
        char *p = join(dir, pattern);
        bool found = p && exists(p);
        free(p);
        return found ? strdup(pattern) : NULL;
    }
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char *best = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (fnmatch(pattern, e->d_name, 0) != 0) continue;
        if (!best || strcmp(e->d_name, best) < 0) { free(best); best = strdup(e->d_name); }
    }
    closedir(d);
    return best;
}

/* "sub/name" for a pattern "SUB/NAME": the smallest such pair over the real (not symlinked,
 * not hidden) sub-directories of run_dir matching SUB, or NULL. */
static char *smallest_nested_match(const char *run_dir, const char *pattern) {
    const char *slash = strchr(pattern, '/');
    char *sub_pat = strndup(pattern, (size_t)(slash - pattern));
    DIR *d = sub_pat ? opendir(run_dir) : NULL;
    char *best = NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || fnmatch(sub_pat, e->d_name, 0) != 0) continue;
        char *sub = join(run_dir, e->d_name);
        struct stat st;
        char *name = sub && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode) ? smallest_match(sub, slash + 1) : NULL;
        char *cand = name ? join(e->d_name, name) : NULL;
        if (cand && (!best || strcmp(cand, best) < 0)) { free(best); best = cand; }
        else free(cand);
        free(name);
        free(sub);
    }
    if (d) closedir(d);
    free(sub_pat);
    return best;
}

/* The path of `kind` in run_dir: the first pattern (formats in registry order, each
 * format's names in order) that matches; when none does, the first pattern's path, so
 * the warning names the file that was expected. */
static char *find_kind(const char *run_dir, artefact_kind kind, const char **found_by) {
    const char *expected = NULL;
    *found_by = NULL;
    for (const artefact_parser *const *p = parser_list(); *p; p++) {
        if ((*p)->kind != kind || !(*p)->names) continue;
        for (const char *const *pat = (*p)->names; *pat; pat++) {
            if (!expected) expected = *pat;
            char *rel = strchr(*pat, '/') ? smallest_nested_match(run_dir, *pat) : smallest_match(run_dir, *pat);
            if (rel) {
                char *path = join(run_dir, rel);
                free(rel);
                *found_by = *pat;
                return path;
            }
        }
    }
    return join(run_dir, expected ? expected : artefact_kind_name(kind));
}

bool run_files_find(const char *run_dir, run_files *out) {
    memset(out, 0, sizeof *out);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        out->path[k] = find_kind(run_dir, (artefact_kind)k, &out->found_by[k]);
        if (!out->path[k]) { run_files_free(out); return false; }
    }
    return true;
}

void run_files_free(run_files *f) {
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) { free(f->path[k]); f->path[k] = NULL; }
}

bool run_id_valid(const char *id) {
    size_t n = strlen(id);
    if (n < 1 || n > 128 || !strcmp(id, ".") || !strcmp(id, "..")) return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}
