/* interval_set: sorted island vector + out-of-order buffer (see interval_set.h). */
#include "analyses/interval_set.h"

#include <stdlib.h>
#include <string.h>

/* Which launch an island keeps when two intervals starting at the same time meet: the
 * known one, and of two known ones the earlier (host_wait then needs both late). */
static int64_t launch_of_tie(int64_t a, int64_t b) {
    if (a == IV_NO_LAUNCH) return b;
    if (b == IV_NO_LAUNCH) return a;
    return a < b ? a : b;
}

static bool grow(iv **v, size_t *cap, size_t need) {
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    iv *p = realloc(*v, nc * sizeof *p);
    if (!p) return false;
    *v = p;
    *cap = nc;
    return true;
}

static int by_start(const void *a, const void *b) {
    const iv *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Appends x to out[0..*n) (sorted by start), merging it into the last island when they
 * overlap or touch. */
static void push_merge(iv *out, size_t *n, iv x) {
    if (*n) {
        iv *last = &out[*n - 1];
        if (x.start <= last->end) {
            if (x.end > last->end) last->end = x.end;
            if (x.start == last->start) last->launch = launch_of_tie(last->launch, x.launch);
            return;
        }
    }
    out[(*n)++] = x;
}

bool iset_flush(interval_set *s) {
    if (!s->nb) return true;
    qsort(s->buf, s->nb, sizeof *s->buf, by_start);
    iv *out = malloc((s->n + s->nb) * sizeof *out);
    if (!out) return false;
    size_t i = 0, j = 0, n = 0;
    while (i < s->n || j < s->nb) {
        bool take_v = j >= s->nb || (i < s->n && s->v[i].start <= s->buf[j].start);
        push_merge(out, &n, take_v ? s->v[i++] : s->buf[j++]);
    }
    free(s->v);
    s->cap = s->n + s->nb;   /* what was allocated above */
    s->v = out;
    s->n = n;
    s->nb = 0;
    return true;
}

bool iset_add(interval_set *s, int64_t start, int64_t end, int64_t launch) {
    if (end <= start) return true;
    iv x = {start, end, launch};
    if (!s->n || start > s->v[s->n - 1].end) {            /* in order: a new island */
        if (!grow(&s->v, &s->cap, s->n + 1)) return false;
        s->v[s->n++] = x;
        return true;
    }
    if (start >= s->v[s->n - 1].start) {                  /* overlaps or touches the last island */
        push_merge(s->v, &s->n, x);
        return true;
    }
    if (!s->buf && !(s->buf = malloc(IV_BUFFER * sizeof *s->buf))) return false;
    s->buf[s->nb++] = x;
    return s->nb < IV_BUFFER || iset_flush(s);
}

bool iset_add_all(interval_set *dst, const interval_set *src) {
    for (size_t i = 0; i < src->n; i++)
        if (!iset_add(dst, src->v[i].start, src->v[i].end, src->v[i].launch)) return false;
    return true;
}

int64_t iset_total(const interval_set *s) {
    int64_t t = 0;
    for (size_t i = 0; i < s->n; i++) t += s->v[i].end - s->v[i].start;
    return t;
}

int64_t iset_overlap(const interval_set *a, const interval_set *b) {
    int64_t t = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (hi > lo) t += hi - lo;
        if (a->v[i].end < b->v[j].end) i++;
        else j++;
    }
    return t;
}

bool iset_intersect(const interval_set *a, const interval_set *b, interval_set *out) {
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (hi > lo && !iset_add(out, lo, hi, IV_NO_LAUNCH)) return false;
        if (a->v[i].end < b->v[j].end) i++;
        else j++;
    }
    return iset_flush(out);
}

bool iset_set_launch(interval_set *s, int64_t start, int64_t launch) {
    if (!iset_flush(s)) return false;
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].start < start) lo = mid + 1;
        else hi = mid;
    }
    if (lo < s->n && s->v[lo].start == start) s->v[lo].launch = launch_of_tie(s->v[lo].launch, launch);
    return true;
}

void iset_free(interval_set *s) {
    free(s->v);
    free(s->buf);
    memset(s, 0, sizeof *s);
}
