/* run_files: artefact discovery in one run directory, driven by the formats' names. */
#include "core/run_files.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parsers/parser_registry.h"

static const char *const KIND_NAMES[ARTEFACT_KIND_COUNT] = {"kernel trace", "torch profile", "amd-smi telemetry"};

const char *artefact_kind_name(artefact_kind k) { return k < ARTEFACT_KIND_COUNT ? KIND_NAMES[k] : "artefact"; }


static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static bool has_wildcard(const char *p) { return strpbrk(p, "*?[") != NULL; }

/* Where the entry names come from: a walk's listings, or the directory itself; and whether
 * memory ran out while choosing (a file not found for lack of memory is not "not found"). */
typedef struct listing {
    run_files_names_fn names;
    void *user;
    bool oom;
} listing;

/* "a/b", or NULL with l->oom set. */
static char *join(listing *l, const char *a, const char *b) {
    char *s = NULL;
    if (asprintf(&s, "%s/%s", a, b) < 0) { l->oom = true; return NULL; }
    return s;
}

/* A copy of s (NULL for NULL), or NULL with l->oom set. */
static char *copy(listing *l, const char *s) {
    char *c = s ? strdup(s) : NULL;
    if (s && !c) l->oom = true;
    return c;
}

/* The smallest of names[0..n) matching pattern (a copy), or NULL. */
static char *smallest_of(listing *l, char *const *names, size_t n, const char *pattern) {
    const char *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (fnmatch(pattern, names[i], 0) == 0 && (!best || strcmp(names[i], best) < 0)) best = names[i];
    return copy(l, best);
}

/* The smallest entry name of dir (rel below the run directory) matching `pattern` (a plain
 * name: when it exists), or NULL. */
static char *smallest_match(listing *l, const char *dir, const char *rel, const char *pattern) {
    if (!has_wildcard(pattern)) {
        char *p = join(l, dir, pattern);
        bool found = p && exists(p);
        free(p);
        return found ? copy(l, pattern) : NULL;
    }
    size_t n = 0;
    char *const *listed = l->names ? l->names(l->user, rel, &n) : NULL;
    if (listed) return smallest_of(l, listed, n, pattern);
    DIR *d = opendir(dir);
    if (!d) { if (errno == ENOMEM) l->oom = true; return NULL; }
    char *best = NULL;
    struct dirent *e;
    while (!l->oom && (e = readdir(d)) != NULL) {
        if (fnmatch(pattern, e->d_name, 0) != 0) continue;
        if (!best || strcmp(e->d_name, best) < 0) { free(best); best = copy(l, e->d_name); }
    }
    closedir(d);
    return best;
}

/* Entry `name` of run_dir for a pattern "SUB/NAME" (sub_pat = SUB, leaf = NAME): when it is a
 * real (not symlinked, not hidden) directory matching SUB holding a match of NAME, that
 * "name/match" replaces *best if smaller. */
static void nested_candidate(listing *l, const char *run_dir, const char *name, const char *sub_pat, const char *leaf,
                             char **best) {
    if (name[0] == '.' || fnmatch(sub_pat, name, 0) != 0) return;
    char *sub = join(l, run_dir, name);
    struct stat st;
    char *m = sub && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode) ? smallest_match(l, sub, name, leaf) : NULL;
    char *cand = m ? join(l, name, m) : NULL;
    if (cand && (!*best || strcmp(cand, *best) < 0)) { free(*best); *best = cand; }
    else free(cand);
    free(m);
    free(sub);
}

/* "sub/name" for a pattern "SUB/NAME": the smallest such pair over the real (not symlinked,
 * not hidden) sub-directories of run_dir matching SUB, or NULL. The run directory's own names
 * come from the walk's listing, else from readdir one at a time (never held all at once). */
static char *smallest_nested_match(listing *l, const char *run_dir, const char *pattern) {
    const char *slash = strchr(pattern, '/');
    char *sub_pat = strndup(pattern, (size_t)(slash - pattern));
    if (!sub_pat) { l->oom = true; return NULL; }
    size_t n = 0;
    char *const *listed = l->names ? l->names(l->user, "", &n) : NULL;
    char *best = NULL;
    if (listed) {
        for (size_t i = 0; i < n && !l->oom; i++) nested_candidate(l, run_dir, listed[i], sub_pat, slash + 1, &best);
    } else {
        DIR *d = opendir(run_dir);
        if (!d && errno == ENOMEM) l->oom = true;
        struct dirent *e;
        while (d && !l->oom && (e = readdir(d)) != NULL) nested_candidate(l, run_dir, e->d_name, sub_pat, slash + 1, &best);
        if (d) closedir(d);
    }
    free(sub_pat);
    return best;
}

/* The path of `kind` in run_dir: the first pattern (formats in registry order, each
 * format's names in order) that matches; when none does, the first pattern's path, so
 * the warning names the file that was expected. */
static char *find_kind(listing *l, const char *run_dir, artefact_kind kind, const char **found_by) {
    const char *expected = NULL;
    *found_by = NULL;
    for (const artefact_parser *const *p = parser_list(); *p; p++) {
        if ((*p)->kind != kind || !(*p)->names) continue;
        for (const char *const *pat = (*p)->names; *pat; pat++) {
            if (!expected) expected = *pat;
            char *rel = strchr(*pat, '/') ? smallest_nested_match(l, run_dir, *pat) : smallest_match(l, run_dir, "", *pat);
            if (l->oom) { free(rel); return NULL; }
            if (rel) {
                char *path = join(l, run_dir, rel);
                free(rel);
                *found_by = *pat;
                return path;
            }
        }
    }
    return join(l, run_dir, expected ? expected : artefact_kind_name(kind));
}

bool run_files_choose(const char *run_dir, run_files_names_fn names, void *user, run_files *out) {
    memset(out, 0, sizeof *out);
    listing l = {names, user, false};
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        out->path[k] = find_kind(&l, run_dir, (artefact_kind)k, &out->found_by[k]);
        if (!out->path[k] || l.oom) { run_files_free(out); return false; }
    }
    return true;
}

bool run_files_find(const char *run_dir, run_files *out) { return run_files_choose(run_dir, NULL, NULL, out); }

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
