/* run_files: artefact discovery in one run directory. */
#include "core/run_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Smallest name ending in *kernel_trace.csv in dir (not following into subdirectories). */
static char *first_kernel_trace(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char *best = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, "kernel_trace.csv")) continue;
        if (!best || strcmp(e->d_name, best) < 0) { free(best); best = strdup(e->d_name); }
    }
    closedir(d);
    if (!best) return NULL;
    char *p = join(dir, best);
    free(best);
    return p;
}

static char *find_kernel_trace(const char *run_dir) {
    char *p = join(run_dir, "trace.csv");
    if (!p || exists(p)) return p;
    char *found = first_kernel_trace(run_dir);
    if (found) { free(p); return found; }
    DIR *d = opendir(run_dir);                       /* rocprofv3: <host>/<pid>_kernel_trace.csv */
    if (!d) return p;
    char *best = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char *sub = join(run_dir, e->d_name);
        struct stat st;
        if (sub && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
            char *cand = first_kernel_trace(sub);
            if (cand && (!best || strcmp(cand, best) < 0)) { free(best); best = cand; }
            else free(cand);
        }
        free(sub);
    }
    closedir(d);
    if (best) { free(p); return best; }
    return p;
}

bool run_files_find(const char *run_dir, run_files *out) {
    memset(out, 0, sizeof *out);
    out->path[ARTEFACT_KERNEL_TRACE] = find_kernel_trace(run_dir);
    char *torch = join(run_dir, "torch_profile.json");
    if (torch && !exists(torch)) {
        char *gz = join(run_dir, "torch_profile.json.gz");
        if (gz && exists(gz)) { free(torch); torch = gz; }
        else free(gz);
    }
    out->path[ARTEFACT_TORCH_PROFILE] = torch;
    out->path[ARTEFACT_TELEMETRY] = join(run_dir, "amd_smi.csv");
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++)
        if (!out->path[k]) { run_files_free(out); return false; }
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
