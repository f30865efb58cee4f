/* ns_intervals: sorted disjoint nanosecond interval sets (see ns_intervals.h). */
#include "analyses/ns_intervals.h"

#include <stdlib.h>
#include <string.h>

static bool reserve(ns_span **v, size_t *cap, size_t need) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    ns_span *nv = realloc(*v, c * sizeof *nv);
    if (!nv) return false;
    *v = nv;
    *cap = c;
    return true;
}

/* The first span whose end is >= t (a span ending exactly at t touches t). */
static size_t first_reaching(const ns_span *v, size_t n, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].end < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

bool nsi_add(ns_intervals *s, int64_t start, int64_t end) {
    if (end <= start) return true;
    /* The common case: records arrive roughly in time order. */
    if (s->n && start >= s->v[s->n - 1].start && start <= s->v[s->n - 1].end) {
        if (end > s->v[s->n - 1].end) s->v[s->n - 1].end = end;
        return true;
    }
    size_t i = first_reaching(s->v, s->n, start);
    size_t j = i;  /* spans i..j-1 overlap or touch [start, end) */
    while (j < s->n && s->v[j].start <= end) j++;
    if (j > i) {
        ns_span m = {start < s->v[i].start ? start : s->v[i].start, end > s->v[j - 1].end ? end : s->v[j - 1].end};
        s->v[i] = m;
        memmove(s->v + i + 1, s->v + j, (s->n - j) * sizeof *s->v);
        s->n -= j - i - 1;
        return true;
    }
    if (s->max_spans && s->n >= s->max_spans) {
        s->dropped++;
        return true;
    }
    if (!reserve(&s->v, &s->cap, s->n + 1)) return false;
    memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
    s->v[i] = (ns_span){start, end};
    s->n++;
    return true;
}

/* Merges two sorted disjoint span lists into out (sorted, disjoint, touching spans joined). */
static size_t merge_lists(const ns_span *a, size_t na, const ns_span *b, size_t nb, ns_span *out) {
    size_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        ns_span x = (j >= nb || (i < na && a[i].start <= b[j].start)) ? a[i++] : b[j++];
        if (n && x.start <= out[n - 1].end) {
            if (x.end > out[n - 1].end) out[n - 1].end = x.end;
        } else {
            out[n++] = x;
        }
    }
    return n;
}

bool nsi_merge(ns_intervals *dst, const ns_intervals *src) {
    if (!src->n) return true;
    size_t alloc = dst->n + src->n;
    ns_span *out = malloc(alloc * sizeof *out);
    if (!out) return false;
    size_t n = merge_lists(dst->v, dst->n, src->v, src->n, out);
    free(dst->v);
    dst->v = out;
    dst->n = n;
    dst->cap = alloc;
    dst->dropped += src->dropped;
    return true;
}

int64_t nsi_total(const ns_intervals *s) {
    int64_t t = 0;
    for (size_t i = 0; i < s->n; i++) t += s->v[i].end - s->v[i].start;
    return t;
}

int64_t nsi_total_within(const ns_intervals *s, int64_t lo, int64_t hi) {
    int64_t t = 0;
    for (size_t i = first_reaching(s->v, s->n, lo); i < s->n && s->v[i].start < hi; i++) {
        int64_t a = s->v[i].start > lo ? s->v[i].start : lo, b = s->v[i].end < hi ? s->v[i].end : hi;
        if (b > a) t += b - a;
    }
    return t;
}

void nsi_free(ns_intervals *s) {
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

bool nsi_priority_split(const ns_intervals *cats, size_t n, int64_t lo, int64_t hi, int64_t *part) {
    for (size_t i = 0; i <= n; i++) part[i] = 0;
    if (hi <= lo) return true;
    size_t total_cap = 0;
    for (size_t c = 0; c < n; c++) total_cap += cats[c].n;
    /* claimed: the union of the higher-priority categories inside the window so far. */
    ns_span *claimed = malloc((total_cap + 1) * sizeof *claimed), *next = malloc((total_cap + 1) * sizeof *next);
    ns_span *clip = malloc((total_cap + 1) * sizeof *clip);
    if (!claimed || !next || !clip) {
        free(claimed), free(next), free(clip);
        return false;
    }
    size_t nclaimed = 0;
    int64_t claimed_len = 0, used = 0;
    for (size_t c = 0; c < n; c++) {
        const ns_intervals *s = &cats[c];
        size_t nclip = 0;
        for (size_t i = first_reaching(s->v, s->n, lo); i < s->n && s->v[i].start < hi; i++) {
            int64_t a = s->v[i].start > lo ? s->v[i].start : lo, b = s->v[i].end < hi ? s->v[i].end : hi;
            if (b > a) clip[nclip++] = (ns_span){a, b};
        }
        size_t nn = merge_lists(claimed, nclaimed, clip, nclip, next);
        int64_t len = 0;
        for (size_t i = 0; i < nn; i++) len += next[i].end - next[i].start;
        part[c] = len - claimed_len;
        used += part[c];
        claimed_len = len;
        ns_span *t = claimed;
        claimed = next;
        next = t;
        nclaimed = nn;
    }
    part[n] = (hi - lo) - used;
    free(claimed), free(next), free(clip);
    return true;
}
