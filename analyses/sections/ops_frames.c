/* ops_frames: user Python frames and the innermost one around a point (see ops_frames.h). */
#include "analyses/sections/ops_frames.h"

#include <stdlib.h>
#include <string.h>

static bool contains(const char *s, size_t n, const char *w) {
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(s + i, w, k)) return true;
    return false;
}

bool ops_frame_is_user(const char *name, size_t len) {
    if (!name || !len || name[0] == '<') return false;
    /* FILE(LINE): FUNC */
    const char *paren = memchr(name, '(', len);
    if (!paren || paren == name || !contains(paren, len - (size_t)(paren - name), "): ")) return false;
    size_t flen = (size_t)(paren - name);
    if (flen >= 6 && !memcmp(name, "torch/", 6)) return false;
    return !contains(name, flen, "site-packages/") && !contains(name, flen, "dist-packages/") &&
           !contains(name, flen, "/lib/python") && !contains(name, flen, "/torch/") && !contains(name, flen, "<frozen");
}

bool ops_frames_add(py_frames *f, py_frame fr) {
    if (f->n >= PY_FRAMES_MAX) {
        f->dropped++;
        return true;
    }
    if (f->n == f->cap) {
        size_t c = f->cap ? f->cap * 2 : 256;
        py_frame *v = realloc(f->v, c * sizeof *v);
        if (!v) return false;
        f->v = v;
        f->cap = c;
    }
    f->v[f->n++] = fr;
    f->sorted = f->oom = false;
    return true;
}

static int cmp_frame(const void *x, const void *y) {
    const py_frame *a = x, *b = y;
    if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->end < b->end) - (a->end > b->end);  /* outer (longer) first at equal starts */
}

/* Links each frame (sorted) to its enclosing one: the nearest earlier frame of its thread
 * still open at its start, kept on a stack (frames that ended before it are popped). */
static bool link_parents(py_frames *f) {
    free(f->parent);
    f->parent = malloc((f->n ? f->n : 1) * sizeof *f->parent);
    uint32_t *stack = malloc((f->n ? f->n : 1) * sizeof *stack);
    if (!f->parent || !stack) { free(stack); free(f->parent); f->parent = NULL; return false; }
    size_t top = 0;
    for (size_t i = 0; i < f->n; i++) {
        const py_frame *p = &f->v[i];
        if (i && (f->v[i - 1].pid != p->pid || f->v[i - 1].tid != p->tid)) top = 0;   /* another thread */
        while (top && f->v[stack[top - 1]].end < p->start) top--;
        f->parent[i] = top ? stack[top - 1] + 1 : 0;
        stack[top++] = (uint32_t)i;
    }
    free(stack);
    return true;
}

uint32_t ops_frames_innermost(py_frames *f, int64_t pid, int64_t tid, int64_t t) {
    if (!f->sorted) {
        if (f->n > 1) qsort(f->v, f->n, sizeof *f->v, cmp_frame);
        f->sorted = true;                /* (even without the index: a sorted set is only read) */
        if (!link_parents(f)) f->oom = true;
    }
    if (!f->parent) return UINT32_MAX;
    /* the last frame of (pid, tid) starting at or before t */
    size_t lo = 0, hi = f->n;
    py_frame key = {t, INT64_MIN, pid, tid, 0};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_frame(&f->v[mid], &key) <= 0) lo = mid + 1;
        else hi = mid;
    }
    /* The innermost frame open at t is the latest-starting one that holds t: every frame that
     * holds t and starts by t was still open at the start of the last frame starting by t
     * (lo - 1), so it is on that frame's chain of enclosing frames (latest start first). */
    if (!lo || f->v[lo - 1].pid != pid || f->v[lo - 1].tid != tid) return UINT32_MAX;
    for (size_t i = lo, steps = 0; i && steps < PY_FRAME_WALK_MAX; i = f->parent[i - 1], steps++) {
        const py_frame *p = &f->v[i - 1];
        if (p->start <= t && p->end >= t) return p->name;
    }
    return UINT32_MAX;
}

void ops_frames_free(py_frames *f) {
    free(f->v);
    free(f->parent);
    memset(f, 0, sizeof *f);
}
