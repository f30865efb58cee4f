/* run_inventory: the (file, format) pairs of a run directory (see run_inventory.h). */
#include "core/run_inventory.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/artefact_reader.h"
#include "parsers/gunzip.h"
#include "parsers/parser_registry.h"

int inventory_rank_from_name(const char *name) {
    for (const char *p = name; (p = strstr(p, "rank")) != NULL; p += 4) {
        const char *q = p + 4;
        if (*q == '-' || *q == '_' || *q == '.') q++;
        if (!isdigit((unsigned char)*q)) continue;
        long v = 0;
        while (isdigit((unsigned char)*q) && v < 1000000) v = v * 10 + (*q++ - '0');
        return v < 1000000 ? (int)v : -1;
    }
    return -1;
}

typedef struct head_buf {
    uint8_t b[SNIFF_BYTES];
    size_t n;
} head_buf;

static bool head_take(void *user, const uint8_t *buf, size_t n) {
    head_buf *h = user;
    size_t k = n < sizeof h->b - h->n ? n : sizeof h->b - h->n;
    memcpy(h->b + h->n, buf, k);
    h->n += k;
    return h->n < sizeof h->b;   /* enough: stop inflating */
}

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* The file's first bytes (inflated for .gz), for sniffing. */
static void read_head(const char *path, head_buf *h) {
    h->n = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    uint8_t raw[SNIFF_BYTES * 8];
    ssize_t got = read(fd, raw, ends_with(path, ".gz") ? sizeof raw : SNIFF_BYTES);
    close(fd);
    if (got <= 0) return;
    if (!ends_with(path, ".gz")) { memcpy(h->b, raw, (size_t)got); h->n = (size_t)got; return; }
    gunzip *g = gunzip_new(head_take, h);
    if (!g) return;
    gunzip_feed(g, raw, (size_t)got);
    gunzip_free(g);
}

static int slashes(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '/';
    return n;
}

/* Does a format's pattern match rel ("name", "sub/name", "a/b/name")? A pattern matches at
 * the depth it names: as many slashes as rel. */
static bool pattern_matches(const char *pat, const char *rel) {
    if (slashes(pat) != slashes(rel)) return false;
    return fnmatch(pat, rel, FNM_PATHNAME | FNM_PERIOD) == 0;
}

static int group_of(const inventory_source *s) {
    if (s->kernel_source && s->device_clock) return 0;
    return s->kernel_source ? 1 : 2;
}

static int cmp_sources(const void *a, const void *b) {
    const inventory_source *x = a, *y = b;
    int gx = group_of(x), gy = group_of(y);
    if (gx != gy) return gx - gy;
    return strcmp(x->rel, y->rel);
}

/* Claims one regular file (rel names it, relative to the run directory). */
static bool consider(run_inventory *inv, const char *path, const char *rel, uint64_t size,
                     const char *confine_root) {
    uint64_t sz, ino;
    int64_t mt;
    if (confine_root && !artefact_identity(path, confine_root, &sz, &mt, &ino)) return true;
    const artefact_parser *best = NULL;
    const char *found_by = NULL;
    int best_score = -1;
    head_buf h;
    bool have_head = false;
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    if (!strcmp(rel, "goblind.json")) return true;   /* the run's sidecar (core/run_sidecar), not a source */
    char sniff_name[256];
    snprintf(sniff_name, sizeof sniff_name, "%s", base);
    if (ends_with(sniff_name, ".gz")) sniff_name[strlen(sniff_name) - 3] = 0;
    for (const artefact_parser *const *pp = parser_list(); *pp; pp++) {
        const artefact_parser *p = *pp;
        if (!p->open_records || !p->names) continue;
        const char *pat = NULL;
        for (const char *const *n = p->names; *n && !pat; n++)
            if (pattern_matches(*n, rel)) pat = *n;
        if (!pat) continue;
        if (!have_head) { read_head(path, &h); have_head = true; }
        int score = p->sniff(ends_with(base, ".gz") && h.n ? sniff_name : base, h.b, h.n);
        if (score > best_score) { best = p; best_score = score; found_by = pat; }
    }
    if (!best) {                          /* no name claims it: content alone, when sure */
        if (!have_head) read_head(path, &h);
        for (const artefact_parser *const *pp = parser_list(); *pp; pp++) {
            const artefact_parser *p = *pp;
            if (!p->open_records) continue;
            int score = p->sniff(sniff_name, h.b, h.n);
            if (score >= INVENTORY_SNIFF_SURE && score > best_score) { best = p; best_score = score; found_by = "sniff"; }
        }
    }
    if (!best) return true;
    if (inv->n == INVENTORY_MAX_SOURCES) {    /* counted; one warning when the scan ends */
        inv->sources_over++;
        return true;
    }
    if (inv->n == inv->cap) {
        size_t nc = inv->cap ? inv->cap * 2 : 16;
        inventory_source *ns = realloc(inv->src, nc * sizeof *ns);
        if (!ns) return false;
        inv->src = ns;
        inv->cap = nc;
    }
    inventory_source *s = &inv->src[inv->n];
    memset(s, 0, sizeof *s);
    s->rel = strdup(rel);
    s->path = strdup(path);
    if (!s->rel || !s->path) { free(s->rel); free(s->path); return false; }
    s->format = best;
    s->sniff_score = best_score < 0 ? 0 : best_score;
    s->found_by = found_by;
    s->rank = inventory_rank_from_name(base);
    s->size = size;
    s->extra_root = inv->scanning_extra;
    kernel_source_kind ks = best->kernels;
    if (ks == KERNELS_BY_KIND)
        ks = best->kind == ARTEFACT_KERNEL_TRACE ? KERNELS_DEVICE_CLOCK
           : best->kind == ARTEFACT_TORCH_PROFILE ? KERNELS_HOST_TRACE : KERNELS_NONE;
    s->kernel_source = ks == KERNELS_DEVICE_CLOCK || ks == KERNELS_HOST_TRACE;
    s->device_clock = ks == KERNELS_DEVICE_CLOCK;
    inv->n++;
    return true;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The visible entry names of dir, sorted (NULL on failure; *n set). */
static char **list_dir(const char *dir, size_t *n) {
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) return NULL;
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn) break;
            names = nn;
            cap = nc;
        }
        if (!(names[*n] = strdup(e->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (names) qsort(names, *n, sizeof *names, cmp_names);
    return names;
}

static void free_names(char **names, size_t n) {
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* Scans dir (rel: its path relative to the run directory, "" for the run directory itself)
 * and, while depth < INVENTORY_MAX_DEPTH, the real directories below it: rocprofv3 writes
 * <host>/<pid>_*.csv, msprof PROF_<id>/mindstudio_profiler_output/op_summary_<n>.csv. A file
 * may be a symlink (the reader then applies the daemon's confinement); a directory is
 * entered only when it is a real one (no loops, no escapes). At most INVENTORY_MAX_ENTRIES
 * entries are looked at per run, so a directory of checkpoints cannot make a scan slow. */
static bool scan_dir(run_inventory *inv, const char *dir, const char *rel, int depth, const char *confine_root,
                     diag_list *diag) {
    size_t n;
    char **names = list_dir(dir, &n);
    if (!names) {
        if (inv->scanning_extra && depth == 0) diag_add(diag, "%s: the directory cannot be read", dir);
        return true;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        if (++inv->entries_seen > INVENTORY_MAX_ENTRIES) {
            if (inv->entries_seen == INVENTORY_MAX_ENTRIES + 1)
                diag_add(diag, "%s: more than %d directory entries; the rest of the run directory is not looked at",
                         dir, INVENTORY_MAX_ENTRIES);
            break;
        }
        char *path = NULL, *r = NULL;
        struct stat st, lst;
        if (asprintf(&path, "%s/%s", dir, names[i]) < 0) { ok = false; break; }
        if (asprintf(&r, "%s%s%s", rel, *rel ? "/" : "", names[i]) < 0) { free(path); ok = false; break; }
        if (lstat(path, &lst) == 0 && stat(path, &st) == 0) {
            if (S_ISREG(st.st_mode)) ok = consider(inv, path, r, (uint64_t)st.st_size, confine_root);
            else if (S_ISDIR(lst.st_mode) && depth < INVENTORY_MAX_DEPTH)
                ok = scan_dir(inv, path, r, depth + 1, confine_root, diag);
        }
        free(path);
        free(r);
    }
    free_names(names, n);
    return ok;
}

bool run_inventory_build(const char *run_dir, const char *extra_root, const char *confine_root, run_inventory *out,
                         diag_list *diag) {
    memset(out, 0, sizeof *out);
    bool ok = scan_dir(out, run_dir, "", 0, confine_root, diag);
    if (ok && extra_root && *extra_root) {
        char *a = realpath(run_dir, NULL), *b = realpath(extra_root, NULL);
        size_t al = a ? strlen(a) : 0;
        bool inside = a && b && !strncmp(a, b, al) && (b[al] == '/' || b[al] == 0);
        if (!inside) {
            const char *slash = strrchr(extra_root, '/');
            out->scanning_extra = true;
            /* configured: trusted; its files are named "<its base name>/<file>" */
            ok = scan_dir(out, extra_root, slash && slash[1] ? slash + 1 : extra_root, INVENTORY_MAX_DEPTH, NULL, diag);
        }
        free(a);
        free(b);
    }
    out->scanning_extra = false;
    if (out->sources_over)
        diag_add(diag, "%s: %u files beyond the first %d that formats read are not read", run_dir, out->sources_over,
                 INVENTORY_MAX_SOURCES);
    if (!ok) { run_inventory_free(out); return false; }
    if (out->n) qsort(out->src, out->n, sizeof *out->src, cmp_sources);
    return true;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const uint8_t *b = data;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
    return h;
}

bool run_inventory_fingerprint(const char *run_dir, const char *extra_root, const char *confine_root,
                               inventory_fingerprint *out) {
    run_inventory inv;
    diag_list d;
    diag_init(&d);
    memset(out, 0, sizeof *out);
    bool ok = run_inventory_build(run_dir, extra_root, confine_root, &inv, &d);
    diag_free(&d);
    if (!ok) return false;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < inv.n; i++) {
        uint64_t size = 0, inode = 0;
        int64_t mtime = 0;
        /* a source that cannot be opened (refused, gone) counts by its path alone */
        if (!artefact_identity(inv.src[i].path, inv.src[i].extra_root ? NULL : confine_root, &size, &mtime, &inode))
            size = inode = UINT64_MAX;
        h = fnv(h, inv.src[i].rel, strlen(inv.src[i].rel) + 1);
        h = fnv(h, inv.src[i].format->name, strlen(inv.src[i].format->name) + 1);
        h = fnv(h, &size, sizeof size);
        h = fnv(h, &mtime, sizeof mtime);
        h = fnv(h, &inode, sizeof inode);
    }
    out->sources = inv.n;
    out->hash = h;
    run_inventory_free(&inv);
    return true;
}

/* Hashes the entries of dir (and one level down when depth is 0) into h. */
static uint64_t listing_hash(uint64_t h, const char *dir, int depth) {
    size_t n;
    char **names = list_dir(dir, &n);
    if (!names) return fnv(h, "!", 1);
    for (size_t i = 0; i < n; i++) {
        char *path = NULL;
        struct stat st, lst;
        if (asprintf(&path, "%s/%s", dir, names[i]) < 0) continue;
        h = fnv(h, names[i], strlen(names[i]) + 1);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
            uint64_t size = (uint64_t)st.st_size, ino = (uint64_t)st.st_ino;
            h = fnv(h, &size, sizeof size);
            h = fnv(h, &mtime, sizeof mtime);
            h = fnv(h, &ino, sizeof ino);
        } else if (depth == 0 && lstat(path, &lst) == 0 && S_ISDIR(lst.st_mode)) {
            h = listing_hash(fnv(h, "/", 1), path, 1);
        }
        free(path);
    }
    free_names(names, n);
    return h;
}

uint64_t run_inventory_listing_hash(const char *run_dir, const char *extra_root) {
    uint64_t h = listing_hash(1469598103934665603ULL, run_dir, 0);
    return extra_root && *extra_root ? listing_hash(fnv(h, "+", 1), extra_root, 0) : h;
}

void run_inventory_free(run_inventory *inv) {
    for (size_t i = 0; i < inv->n; i++) { free(inv->src[i].rel); free(inv->src[i].path); }
    free(inv->src);
    memset(inv, 0, sizeof *inv);
}
