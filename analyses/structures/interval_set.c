/* interval_set: sorted island vector + out-of-order buffer (see interval_set.h). */
#include "analyses/structures/interval_set.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Which launch an island keeps when two intervals starting at the same time meet: the
 * known one, and of two known ones the earlier (host_wait then needs both late). */
static int64_t launch_of_tie(int64_t a, int64_t b) {
    if (a == IV_NO_LAUNCH) return b;
    if (b == IV_NO_LAUNCH) return a;
    return a < b ? a : b;
}

/* Room for `need` islands (growing by half: the vectors are the timeline's memory). */
static bool grow(interval_set *s, size_t need) {
    if (need <= s->cap) return true;
    size_t nc = s->cap ? s->cap + s->cap / 2 : 64;
    if (nc < need) nc = need;
    iv *p = realloc(s->v, nc * sizeof *p);
    if (!p) return false;
    s->v = p;
    if (s->launch) {
        int64_t *l = realloc(s->launch, nc * sizeof *l);
        if (!l) return false;
        s->launch = l;
    }
    s->cap = nc;
    return true;
}

/* Gives the set a launch array (all unknown) the first time a launch is known. */
static bool want_launch(interval_set *s) {
    if (s->launch) return true;
    size_t cap = s->cap ? s->cap : 1;
    if (!(s->launch = malloc(cap * sizeof *s->launch))) return false;
    for (size_t i = 0; i < s->n; i++) s->launch[i] = IV_NO_LAUNCH;
    return true;
}

static int by_start(const void *a, const void *b) {
    const iv_launch *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Appends x to (v, l)[0..*n) (sorted by start), merging it into the last island when they
 * overlap or touch. l may be NULL (no launches kept). */
static inline void push_merge(iv *v, int64_t *l, size_t *n, iv_launch x) {
    if (*n) {
        iv *last = &v[*n - 1];
        assert(x.start >= last->start);   /* pushed in start order */
        if (x.start <= last->end) {
            if (x.end > last->end) last->end = x.end;
            if (l && x.start == last->start) l[*n - 1] = launch_of_tie(l[*n - 1], x.launch);
            return;
        }
    }
    v[*n] = (iv){x.start, x.end};
    if (l) l[*n] = x.launch;
    (*n)++;
}

/* Element j of a sorted run merge_run takes: a buffered entry, or another set's island. */
typedef iv_launch (*run_at)(const void *run, size_t j);
static iv_launch buf_at(const void *run, size_t j) { return ((const iv_launch *)run)[j]; }
static iv_launch set_at(const void *run, size_t j) {
    const interval_set *o = run;
    return (iv_launch){o->v[j].start, o->v[j].end, iset_launch(o, j)};
}

/* Merges the m sorted elements of run into s's islands in place (s has room for s->n + m,
 * and for launches when the run has any: the caller grows it first): from the back, no second
 * array, s's island first at an equal start; then overlapping and touching neighbours are
 * coalesced front to back. iset_flush (the buffer) and iset_add_all (a large set) share it. */
static void merge_run(interval_set *s, const void *run, size_t m, run_at at) {
    size_t i = s->n, j = m, k = s->n + m;
    while (j > 0) {
        k--;
        iv_launch y = at(run, j - 1);
        if (i > 0 && s->v[i - 1].start > y.start) {
            i--;
            s->v[k] = s->v[i];
            if (s->launch) s->launch[k] = s->launch[i];
        } else {
            j--;
            s->v[k] = (iv){y.start, y.end};
            if (s->launch) s->launch[k] = y.launch;
        }
    }
    size_t total = s->n + m, n = 0;
    for (size_t x = 0; x < total; x++) {
        iv_launch it = {s->v[x].start, s->v[x].end, iset_launch(s, x)};
        push_merge(s->v, s->launch, &n, it);
    }
    s->n = n;
}

bool iset_flush(interval_set *s) {
    if (!s->nb) return true;
    qsort(s->buf, s->nb, sizeof *s->buf, by_start);
    bool launches = s->launch != NULL;
    for (size_t j = 0; !launches && j < s->nb; j++) launches = s->buf[j].launch != IV_NO_LAUNCH;
    if ((launches && !want_launch(s)) || !grow(s, s->n + s->nb)) return false;
    merge_run(s, s->buf, s->nb, buf_at);
    s->nb = 0;
    return true;
}

bool iset_add(interval_set *s, int64_t start, int64_t end, int64_t launch) {
    if (end < start) return true;
    iv_launch x = {start, end, launch};
    if (!s->n || start >= s->v[s->n - 1].start) {   /* in order: a new island or the last one grows */
        if (launch != IV_NO_LAUNCH && !s->launch && !want_launch(s)) return false;
        if (s->n == s->cap && !grow(s, s->n + 1)) return false;   /* the checks inline: every operation comes here twice */
        push_merge(s->v, s->launch, &s->n, x);
        return true;
    }
    if (!s->buf && !(s->buf = malloc(IV_BUFFER * sizeof *s->buf))) return false;
    s->buf[s->nb++] = x;
    return s->nb < IV_BUFFER || iset_flush(s);
}

/* The union is a function of the intervals alone (an island keeps the tie of the launches of
 * the intervals starting where it starts, launch_of_tie being symmetric), so adding src's
 * islands one by one and merging the two sorted vectors give the same set. A small src, or
 * one that lies after dst, goes through iset_add (amortised by the buffer); a large one
 * that interleaves with dst is merged in place like a flush (one linear pass, not one pass
 * over dst per IV_BUFFER of src). */
bool iset_add_all(interval_set *dst, const interval_set *src) {
    if (src->n < IV_BUFFER || !dst->n || src->v[0].start >= dst->v[dst->n - 1].start) {
        for (size_t i = 0; i < src->n; i++)
            if (!iset_add(dst, src->v[i].start, src->v[i].end, iset_launch(src, i))) return false;
        return true;
    }
    if (!iset_flush(dst) || (src->launch && !want_launch(dst)) || !grow(dst, dst->n + src->n)) return false;
    merge_run(dst, src, src->n, set_at);
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
    if (lo < s->n && s->v[lo].start == start && launch != IV_NO_LAUNCH) {
        if (!want_launch(s)) return false;
        s->launch[lo] = launch_of_tie(s->launch[lo], launch);
    }
    return true;
}

int64_t iset_total_below(const interval_set *s, int64_t hi) {
    int64_t t = 0;
    for (size_t i = 0; i < s->n && s->v[i].start < hi; i++) t += (s->v[i].end < hi ? s->v[i].end : hi) - s->v[i].start;
    return t;
}

int64_t iset_overlap_below(const interval_set *a, const interval_set *b, int64_t hi) {
    int64_t t = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        int64_t h = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (lo >= hi) break;
        if (h > hi) h = hi;
        if (h > lo) t += h - lo;
        if (a->v[i].end < b->v[j].end) i++;
        else j++;
    }
    return t;
}

void iset_totals_below(const interval_set *a, const interval_set *b, int64_t hi, int64_t *ta, int64_t *tb, int64_t *both) {
    int64_t sa = 0, sb = 0, t = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {   /* iset_overlap_below's walk; an island is summed as it is passed */
        const iv *x = &a->v[i], *y = &b->v[j];
        int64_t lo = x->start > y->start ? x->start : y->start;
        int64_t h = x->end < y->end ? x->end : y->end;
        if (lo >= hi) break;
        if (h > hi) h = hi;
        if (h > lo) t += h - lo;
        if (x->end < y->end) sa += (x->end < hi ? x->end : hi) - x->start, i++;
        else sb += (y->end < hi ? y->end : hi) - y->start, j++;
    }
    for (; i < a->n && a->v[i].start < hi; i++) sa += (a->v[i].end < hi ? a->v[i].end : hi) - a->v[i].start;
    for (; j < b->n && b->v[j].start < hi; j++) sb += (b->v[j].end < hi ? b->v[j].end : hi) - b->v[j].start;
    *ta = sa, *tb = sb, *both = t;
}

bool iset_add_prefix(interval_set *dst, const interval_set *src, int64_t hi) {
    for (size_t i = 0; i < src->n && src->v[i].start < hi; i++)
        if (!iset_add(dst, src->v[i].start, src->v[i].end < hi ? src->v[i].end : hi, iset_launch(src, i))) return false;
    return true;
}

void iset_drop_prefix(interval_set *s, int64_t hi) {
    size_t k = 0;
    while (k < s->n && s->v[k].end <= hi && s->v[k].start < hi) k++;   /* an instant at hi stays */
    if (k < s->n && s->v[k].start < hi) {   /* crosses hi: its start (and launch) are retired */
        s->v[k].start = hi;
        if (s->launch) s->launch[k] = IV_NO_LAUNCH;
    }
    if (!k) return;
    memmove(s->v, s->v + k, (s->n - k) * sizeof *s->v);
    if (s->launch) memmove(s->launch, s->launch + k, (s->n - k) * sizeof *s->launch);
    s->n -= k;
}

void iset_free(interval_set *s) {
    free(s->v);
    free(s->launch);
    free(s->buf);
    memset(s, 0, sizeof *s);
}
