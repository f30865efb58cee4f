/* run_inventory: the (file, format) pairs of a run directory (see run_inventory.h). */
#include "core/run_inventory.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/artefact_reader.h"
#include "parsers/tokenizers/csv_columns.h"
#include "parsers/tokenizers/gunzip.h"
#include "parsers/parser_registry.h"

int run_inventory_rank_from_name(const char *name) {
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
    int fd;                    /* the file, opened with artefact_open's checks (-1: not opened) */
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

/* The file's first bytes (inflated for .gz) into h, for sniffing; none when it cannot be read.
 * Opened as the readers open it (artefact_open: a FIFO or a link out of confine_root swapped in
 * is not read). false only when memory ran out (the inventory then fails as an allocation
 * failure). */
static bool read_head(const char *path, const char *confine_root, head_buf *h) {
    h->n = 0;
    struct stat st;
    int fd = h->fd = artefact_open(path, confine_root, &st);
    if (fd < 0) return !(fd == -1 && errno == ENOMEM);
    uint8_t raw[SNIFF_BYTES * 8];
    ssize_t got = read(fd, raw, ends_with(path, ".gz") ? sizeof raw : SNIFF_BYTES);
    if (got <= 0) return true;
    if (!ends_with(path, ".gz")) { memcpy(h->b, raw, (size_t)got); h->n = (size_t)got; return true; }
    gunzip *g = gunzip_new(head_take, h);
    if (!g) return false;
    bool oom = !gunzip_feed(g, raw, (size_t)got) && gunzip_out_of_memory(g);
    gunzip_free(g);
    return !oom;
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

/* The name a format's sniff() sees when only the content may speak: the file's extension
 * (".csv", ".json", ".db") on a neutral stem, so no format recognises its own file names. */
static void content_name(const char *sniff_name, char *out, size_t cap) {
    const char *ext = strrchr(sniff_name, '.');
    snprintf(out, cap, "x%s", ext && strlen(ext) < 12 ? ext : "");
}

/* Extensions of files that look like profiler output: one no format reads is listed as
 * unrecognised (other files of a run directory — logs, checkpoints, scripts — are not). */
static bool data_extension(const char *sniff_name) {
    static const char *const EXT[] = {".csv", ".json", ".db", ".sqlite", ".tsv", NULL};
    for (const char *const *e = EXT; *e; e++)
        if (ends_with(sniff_name, *e)) return true;
    return false;
}

/* What a file no format reads seems to be, when its first bytes say so: a known shape that
 * holds nothing a format can use (per-name totals of another tool), for the warning. */
static const char *known_unread(const head_buf *h) {
    static const struct { const char *a, *b, *what; } SHAPES[] = {
        {"Time(%)", "Calls", "an nvprof summary (`nvprof --csv` without `--print-gpu-trace`: per-name totals, no "
                             "dispatches; rerun with --print-gpu-trace for a trace goblind reads)"},
        {"Count", "Avg Time(us)", "an msprof op_statistic table (msprof's own per-operator totals; its op_summary_*.csv "
                                  "holds the operators)"},
    };
    for (size_t i = 0; i < sizeof SHAPES / sizeof *SHAPES; i++)
        if (csv_head_has(h->b, h->n, SHAPES[i].a) && csv_head_has(h->b, h->n, SHAPES[i].b)) return SHAPES[i].what;
    return NULL;
}

/* Lists a file no format's content test accepts (when it looks like profiler output, or a
 * format's name pattern claimed it), with the warning the sources section shows. */
static bool add_unrecognised(run_inventory *inv, const char *rel, uint64_t size, const head_buf *h, const char *named) {
    if (inv->n_unrec == INVENTORY_MAX_UNRECOGNISED) return true;
    if (inv->n_unrec == inv->cap_unrec) {
        size_t nc = inv->cap_unrec ? inv->cap_unrec * 2 : 8;
        inventory_unrecognised *nu = realloc(inv->unrec, nc * sizeof *nu);
        if (!nu) return false;
        inv->unrec = nu;
        inv->cap_unrec = nc;
    }
    char first[81];                       /* the first line, printable ASCII only */
    size_t k = 0;
    for (size_t i = 0; i < h->n && k + 1 < sizeof first && h->b[i] != '\n' && h->b[i] != '\r'; i++)
        first[k++] = h->b[i] >= 0x20 && h->b[i] < 0x7f ? (char)h->b[i] : '?';
    first[k] = 0;
    const char *what = known_unread(h);
    inventory_unrecognised *u = &inv->unrec[inv->n_unrec];
    u->size = size;
    u->rel = strdup(rel);
    u->why = NULL;
    int rc = what ? asprintf(&u->why, "%s: unrecognised, not read: %s", rel, what)
             : named ? asprintf(&u->why, "%s: unrecognised, not read: named like %s files, but its content is not "
                                "(%s%s%s)", rel, named, h->n ? "first line \"" : "empty or unreadable",
                                first, h->n ? "\"" : "")
             : asprintf(&u->why, "%s: unrecognised, not read: no format reads its content (%s%s%s)", rel,
                        h->n ? "first line \"" : "empty or unreadable", first, h->n ? "\"" : "");
    if (rc < 0) u->why = NULL;
    if (!u->rel || !u->why) { free(u->rel); free(u->why); return false; }
    inv->n_unrec++;
    return true;
}

/* Classifies one regular file (rel names it, relative to the run directory; hb its first
 * bytes and descriptor). Content decides:
 * every format's sniff() is asked about the first bytes under a neutral name (the file's
 * extension only) and, when it accepts them (>= INVENTORY_SNIFF_ACCEPT) and the format has
 * one, its sniff_file() about the file itself; the highest score wins, and a format whose
 * name pattern matches the file only breaks ties (then registry order). A file without
 * content to judge (empty, unreadable, a .gz that does not inflate, an SQLite file whose
 * schema cannot be read) goes to the format its
 * name says, whose reader then warns what is wrong; a file no format accepts is listed as
 * unrecognised. */
static bool classify(run_inventory *inv, const char *path, const char *rel, uint64_t size, const head_buf *hb) {
    const head_buf h = *hb;
    const artefact_parser *best = NULL;
    const char *found_by = NULL, *named = NULL;
    int best_score = -1;
    bool best_named = false, unreadable = false;
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    if (!strcmp(rel, "goblind.json")) return true;   /* the run's sidecar (core/run_sidecar), not a source */
    char sniff_name[256], neutral[16];
    snprintf(sniff_name, sizeof sniff_name, "%s", base);
    if (ends_with(sniff_name, ".gz")) sniff_name[strlen(sniff_name) - 3] = 0;
    content_name(sniff_name, neutral, sizeof neutral);
    const artefact_parser *named_fmt = NULL;
    const char *named_pat = NULL;
    for (const artefact_parser *const *pp = parser_list(); *pp; pp++) {
        const artefact_parser *p = *pp;
        if (!p->open_records) continue;
        const char *pat = NULL;
        for (const char *const *n = p->names; n && *n && !pat; n++)
            if (pattern_matches(*n, rel)) pat = *n;
        if (pat && !named) named = p->name, named_fmt = p, named_pat = pat;
        int score = h.n ? p->sniff(neutral, h.b, h.n) : 0;
        if (score >= INVENTORY_SNIFF_ACCEPT && p->sniff_file && (score = h.fd >= 0 ? p->sniff_file(h.fd) : -1) < 0) {
            if (score == SNIFF_OUT_OF_MEMORY) return false;
            unreadable = true;
        }
        if (score < INVENTORY_SNIFF_ACCEPT) continue;
        if (!best || score > best_score || (score == best_score && pat && !best_named)) {
            best = p;
            best_score = score;
            best_named = pat != NULL;
            found_by = pat ? pat : "sniff";
        }
    }
    if (!best && (!h.n || unreadable) && named_fmt) {  /* no content to judge (empty, unreadable, not
                                                         * inflatable, a corrupt database): */
        best = named_fmt;                 /* the name's format reads it and says what is wrong */
        best_score = 0;
        found_by = named_pat;
    }
    if (!best) return named || data_extension(sniff_name) ? add_unrecognised(inv, rel, size, &h, named) : true;
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
    s->rank = run_inventory_rank_from_name(base);
    s->size = size;
    s->extra_root = inv->scanning_extra;
    kernel_source_kind ks = artefact_kernel_source(best);
    s->kernel_source = ks == KERNELS_DEVICE_CLOCK || ks == KERNELS_HOST_TRACE;
    s->device_clock = ks == KERNELS_DEVICE_CLOCK;
    inv->n++;
    return true;
}

/* Claims one regular file (see classify), opened once with artefact_open's checks: its first
 * bytes and an SQLite format's schema are read through that one descriptor (a file swapped
 * for a link or a FIFO between the checks and the reads is not followed). */
static bool consider(run_inventory *inv, const char *path, const char *rel, uint64_t size,
                     const char *confine_root) {
    uint64_t sz, ino;
    int64_t mt;
    if (confine_root && !artefact_identity(path, confine_root, &sz, &mt, &ino)) return errno != ENOMEM;
    head_buf h;
    bool ok = read_head(path, confine_root, &h) && classify(inv, path, rel, size, &h);
    if (h.fd >= 0) close(h.fd);
    return ok;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Moves h[i] down the max-heap h[0..n) (by strcmp) to its place. */
static void sift_down(char **h, size_t n, size_t i) {
    for (;;) {
        size_t big = i, a = 2 * i + 1, b = a + 1;
        if (a < n && strcmp(h[a], h[big]) > 0) big = a;
        if (b < n && strcmp(h[b], h[big]) > 0) big = b;
        if (big == i) return;
        char *t = h[i];
        h[i] = h[big], h[big] = t;
        i = big;
    }
}

/* The entry names of dir but "." and "..", sorted (*n set): at most LIST_MAX of them, the
 * smallest (*cut set when there were more), so a directory of millions of files costs
 * LIST_MAX names, not millions; past LIST_MAX they are kept as a max-heap whose largest
 * name gives way to a smaller one. NULL when dir cannot be listed; *oom then says whether
 * memory ran out (opendir's own or the list's), so a run is never taken for an empty or
 * unreadable one for lack of memory. */
static char **list_dir(const char *dir, size_t *n, bool *cut, bool *oom) {
    *n = 0;
    *cut = *oom = false;
    DIR *d = opendir(dir);
    if (!d) { *oom = errno == ENOMEM; return NULL; }
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while (!*oom && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (*n == LIST_MAX) {
            if (!*cut) {
                *cut = true;
                for (size_t i = LIST_MAX / 2; i-- > 0;) sift_down(names, LIST_MAX, i);
            }
            if (strcmp(e->d_name, names[0]) >= 0) continue;
            char *c = strdup(e->d_name);
            if (!c) { *oom = true; break; }
            free(names[0]);
            names[0] = c;
            sift_down(names, LIST_MAX, 0);
            continue;
        }
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn) { *oom = true; break; }
            names = nn;
            cap = nc;
        }
        if (!(names[*n] = strdup(e->d_name))) { *oom = true; break; }
        (*n)++;
    }
    closedir(d);
    if (!*oom && !names && !(names = calloc(1, sizeof *names))) *oom = true;  /* empty: listed, no names */
    if (*oom) {
        for (size_t i = 0; i < *n; i++) free(names[i]);
        free(names);
        *n = 0;
        return NULL;
    }
    qsort(names, *n, sizeof *names, cmp_names);
    return names;
}

static void free_names(char **names, size_t n) {
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* Keeps the names of the directory rel (owned from now on). false only on allocation failure. */
static bool keep_listing(run_inventory *inv, const char *rel, char **names, size_t n) {
    if (inv->n_dirs == inv->cap_dirs) {
        size_t nc = inv->cap_dirs ? inv->cap_dirs * 2 : 4;
        inventory_dir *nd = realloc(inv->dirs, nc * sizeof *nd);
        if (!nd) return false;
        inv->dirs = nd;
        inv->cap_dirs = nc;
    }
    char *r = strdup(rel);
    if (!r) return false;
    inv->dirs[inv->n_dirs++] = (inventory_dir){r, names, n};
    return true;
}

/* run_files_names_fn over the listings the walk kept. */
static char *const *listed_names(void *user, const char *rel, size_t *n) {
    const run_inventory *inv = user;
    for (size_t i = 0; i < inv->n_dirs; i++)
        if (!strcmp(inv->dirs[i].rel, rel)) { *n = inv->dirs[i].n; return inv->dirs[i].names; }
    return NULL;
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
    bool cut, oom;
    char **names = list_dir(dir, &n, &cut, &oom);
    if (!names) {
        if (oom) return false;
        if (inv->scanning_extra && depth == 0) diag_add(diag, "%s: the directory cannot be read", dir);
        return true;
    }
    if (cut)
        diag_add(diag, "%s: more than %d names; the names after the first %d by name (hidden ones too) are not "
                 "looked at", dir, LIST_MAX, LIST_MAX);
    bool ok = true;
    bool keep = !inv->scanning_extra && depth <= 1;   /* RunMetrics' file choice reads these names */
    for (size_t i = 0; ok && i < n; i++) {
        if (names[i][0] == '.') continue;             /* hidden: not a source, not entered */
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
    if (keep && ok && keep_listing(inv, rel, names, n)) return true;
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
    /* RunMetrics' three files, chosen from the names this walk listed */
    if (ok) ok = run_files_choose(run_dir, listed_names, out, &out->files);
    if (!ok) { run_inventory_free(out); return false; }
    if (out->n) qsort(out->src, out->n, sizeof *out->src, cmp_sources);
    for (size_t i = 0; i < out->n_unrec; i++) diag_add(diag, "%s", out->unrec[i].why);
    return true;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const uint8_t *b = data;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
    return h;
}

void run_inventory_fingerprint_of(const run_inventory *inv, const char *confine_root, inventory_fingerprint *out) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < inv->n; i++) {
        uint64_t size = 0, inode = 0;
        int64_t mtime = 0;
        /* a source that cannot be opened (refused, gone) counts by its path alone */
        if (!artefact_identity(inv->src[i].path, inv->src[i].extra_root ? NULL : confine_root, &size, &mtime, &inode))
            size = inode = UINT64_MAX;
        h = fnv(h, inv->src[i].rel, strlen(inv->src[i].rel) + 1);
        h = fnv(h, inv->src[i].format->name, strlen(inv->src[i].format->name) + 1);
        h = fnv(h, &size, sizeof size);
        h = fnv(h, &mtime, sizeof mtime);
        h = fnv(h, &inode, sizeof inode);
    }
    out->sources = inv->n;
    out->hash = h;
}

/* Hashes the entries of dir into h, and of the real directories below it down to the depth the
 * inventory reads (INVENTORY_MAX_DEPTH: msprof's PROF_*<dir>/mindstudio_profiler_output/ files
 * change there without anything one level down changing). */
static uint64_t listing_hash(uint64_t h, const char *dir, int depth) {
    size_t n;
    bool cut, oom;             /* unlisted for any reason: a hash of its own (the run is read again) */
    char **names = list_dir(dir, &n, &cut, &oom);   /* (cut: the names the walk looks at, as it) */
    if (!names) return fnv(h, "!", 1);
    for (size_t i = 0; i < n; i++) {
        char *path = NULL;
        struct stat st, lst;
        if (names[i][0] == '.') continue;             /* hidden: the inventory skips it too */
        if (asprintf(&path, "%s/%s", dir, names[i]) < 0) continue;
        h = fnv(h, names[i], strlen(names[i]) + 1);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
            uint64_t size = (uint64_t)st.st_size, ino = (uint64_t)st.st_ino;
            h = fnv(h, &size, sizeof size);
            h = fnv(h, &mtime, sizeof mtime);
            h = fnv(h, &ino, sizeof ino);
        } else if (depth < INVENTORY_MAX_DEPTH && lstat(path, &lst) == 0 && S_ISDIR(lst.st_mode)) {
            h = listing_hash(fnv(h, "/", 1), path, depth + 1);
        }
        free(path);
    }
    free_names(names, n);
    return h;
}

uint64_t run_inventory_listing_hash(const char *run_dir, const char *extra_root) {
    uint64_t h = listing_hash(1469598103934665603ULL, run_dir, 0);
    /* (the inventory reads extra_root's own entries only) */
    return extra_root && *extra_root ? listing_hash(fnv(h, "+", 1), extra_root, INVENTORY_MAX_DEPTH) : h;
}

void run_inventory_free(run_inventory *inv) {
    for (size_t i = 0; i < inv->n; i++) { free(inv->src[i].rel); free(inv->src[i].path); }
    free(inv->src);
    for (size_t i = 0; i < inv->n_unrec; i++) { free(inv->unrec[i].rel); free(inv->unrec[i].why); }
    free(inv->unrec);
    for (size_t i = 0; i < inv->n_dirs; i++) { free(inv->dirs[i].rel); free_names(inv->dirs[i].names, inv->dirs[i].n); }
    free(inv->dirs);
    run_files_free(&inv->files);
    memset(inv, 0, sizeof *inv);
}
