/* ns_intervals: sorted disjoint nanosecond interval sets (see ns_intervals.h). */
#include "analyses/structures/ns_intervals.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(ns_span **v, size_t *cap, size_t need) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 16;
    while (c < need) c += c / 2;  /* growth by half: less slack than doubling in the big sets */
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

/* first_reaching for a time near the set's end: records arrive nearly in time order, so
 * the answer is almost always within the last NEAR spans (checked from the end, no binary
 * search); otherwise a binary search over the spans before them. Same answer. */
#define NEAR 8
static size_t first_reaching_near(const ns_span *v, size_t n, int64_t t) {
    size_t i = n;
    for (int k = 0; k < NEAR && i > 0 && v[i - 1].end >= t; k++) i--;
    if (!i || v[i - 1].end < t) return i;
    return first_reaching(v, i, t);   /* every span from i on reaches t */
}

/* Folds the older half of the spans into retired_ns (see retire_above). */
static void retire_half(ns_intervals *s) {
    size_t k = s->n / 2;
    if (!k) return;
    if (!s->retired) s->retired_lo = s->v[0].start;
    for (size_t i = 0; i < k; i++) s->retired_ns += s->v[i].end - s->v[i].start;
    s->floor = s->v[k - 1].end;
    s->retired = true;
    memmove(s->v, s->v + k, (s->n - k) * sizeof *s->v);
    s->n -= k;
}

/* Retires when the set holds more spans than retire_above. */
static void maybe_retire(ns_intervals *s) {
    if (s->retire_above && s->n > s->retire_above) retire_half(s);
}

/* Folds every kept span (or part of one) below floor into retired_ns. */
static void fold_below_floor(ns_intervals *s) {
    if (!s->retired) return;
    size_t k = 0;
    while (k < s->n && s->v[k].end <= s->floor) {
        s->retired_ns += s->v[k].end - s->v[k].start;
        k++;
    }
    if (k < s->n && s->v[k].start < s->floor) {
        s->retired_ns += s->floor - s->v[k].start;
        s->v[k].start = s->floor;
    }
    memmove(s->v, s->v + k, (s->n - k) * sizeof *s->v);
    s->n -= k;
}

bool nsi_add(ns_intervals *s, int64_t start, int64_t end) {
    if (end <= start) return true;
    if (s->retired && start < s->floor) {   /* reaches back into the folded part */
        int64_t cut = end < s->floor ? end : s->floor;
        s->retired_ns += cut - start;
        s->inexact++;
        if (end <= s->floor) return true;
        start = s->floor;
    }
    /* The common case: records arrive roughly in time order. */
    if (s->n && start >= s->v[s->n - 1].start && start <= s->v[s->n - 1].end) {
        if (end > s->v[s->n - 1].end) s->v[s->n - 1].end = end;
        return true;
    }
    size_t i = first_reaching_near(s->v, s->n, start);
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
    maybe_retire(s);
    return true;
}

/* Merges two sorted disjoint span lists into out (sorted, disjoint, touching spans joined). */
static size_t merge_lists(const ns_span *a, size_t na, const ns_span *b, size_t nb, ns_span *out) {
    size_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        assert((i == 0 || i >= na || a[i - 1].end <= a[i].start) && (j == 0 || j >= nb || b[j - 1].end <= b[j].start));   /* sorted, disjoint */
        ns_span x = (j >= nb || (i < na && a[i].start <= b[j].start)) ? a[i++] : b[j++];
        if (n && x.start <= out[n - 1].end) {
            if (x.end > out[n - 1].end) out[n - 1].end = x.end;
        } else {
            out[n++] = x;
        }
    }
    return n;
}

static bool nsi_merge_kept(ns_intervals *dst, const ns_intervals *src);

/* Whether any of a's folded part [retired_lo, floor) may overlap b (its folded part or a
 * kept span): then the two cannot be united exactly. */
static bool folded_meets(const ns_intervals *a, const ns_intervals *b) {
    if (!a->retired) return false;
    if (b->retired && b->retired_lo < a->floor && a->retired_lo < b->floor) return true;
    size_t i = first_reaching(b->v, b->n, a->retired_lo);
    return i < b->n && b->v[i].start < a->floor && b->v[i].end > a->retired_lo;
}

/* Carries src's folded part and counters into dst (before the kept spans are merged). */
static void merge_folded(ns_intervals *dst, const ns_intervals *src) {
    if (folded_meets(dst, src) || folded_meets(src, dst)) dst->inexact++;
    dst->inexact += src->inexact;
    if (!src->retired) return;
    if (!dst->retired || src->retired_lo < dst->retired_lo) dst->retired_lo = src->retired_lo;
    if (!dst->retired || src->floor > dst->floor) dst->floor = src->floor;
    dst->retired_ns += src->retired_ns;
    dst->retired = true;
}

bool nsi_merge(ns_intervals *dst, const ns_intervals *src) {
    bool folded = src->retired || dst->retired;
    if (folded) merge_folded(dst, src);
    if (!nsi_merge_kept(dst, src)) return false;
    if (folded) fold_below_floor(dst);
    maybe_retire(dst);
    return true;
}

/* nsi_merge of the kept spans only. */
static bool nsi_merge_kept(ns_intervals *dst, const ns_intervals *src) {
    if (!src->n) {
        dst->dropped += src->dropped;
        return true;
    }
    if (!dst->n) {  /* nothing to merge with: one copy of the spans, exactly sized */
        ns_span *v = malloc(src->n * sizeof *v);
        if (!v) return false;
        memcpy(v, src->v, src->n * sizeof *v);
        free(dst->v);
        dst->v = v, dst->n = dst->cap = src->n;
        dst->dropped += src->dropped;
        return true;
    }
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

bool nsi_move(ns_intervals *dst, ns_intervals *src) {
    if (!dst->n && !dst->retired) {
        uint64_t dropped = dst->dropped + src->dropped, inexact = dst->inexact + src->inexact;
        size_t max = dst->max_spans, retire = dst->retire_above;
        free(dst->v);
        *dst = *src;
        dst->dropped = dropped, dst->max_spans = max, dst->inexact = inexact, dst->retire_above = retire;
        maybe_retire(dst);
        src->v = NULL, src->n = src->cap = 0, src->dropped = 0, src->inexact = 0;
        src->retired = false, src->retired_ns = 0;
        return true;
    }
    if (!nsi_merge(dst, src)) return false;
    nsi_free(src);
    src->dropped = 0, src->inexact = 0;
    return true;
}

int64_t nsi_total(const ns_intervals *s) {
    int64_t t = s->retired_ns;
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

bool nsi_cut(ns_intervals *s, const ns_intervals *win) {
    if (!s->n || !win->n) return true;
    size_t alloc = s->n + win->n;
    ns_span *out = malloc(alloc * sizeof *out);
    if (!out) return false;
    size_t n = 0, w = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t a = s->v[i].start, b = s->v[i].end;
        while (w < win->n && win->v[w].end <= a) w++;
        for (size_t k = w; a < b && k < win->n && win->v[k].start < b; k++) {
            if (win->v[k].start > a) out[n++] = (ns_span){a, win->v[k].start};
            if (win->v[k].end > a) a = win->v[k].end;
        }
        if (a < b) out[n++] = (ns_span){a, b};
    }
    free(s->v);
    s->v = out;
    s->n = n;
    s->cap = alloc;
    return true;
}

bool nsi_meets(const ns_intervals *s, const ns_intervals *t) {
    size_t i = 0, j = 0;
    while (i < s->n && j < t->n) {
        if (s->v[i].end <= t->v[j].start) i++;
        else if (t->v[j].end <= s->v[i].start) j++;
        else return true;
    }
    return false;
}

void nsi_free(ns_intervals *s) {
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
    s->retired = false;
    s->retired_ns = s->retired_lo = s->floor = 0;
}

bool nsi_priority_split(const ns_intervals *cats, size_t n, int64_t lo, int64_t hi, int64_t *part) {
    for (size_t i = 0; i <= n; i++) part[i] = 0;
    if (hi <= lo) return true;
    /* A sweep over the categories' boundaries: between two consecutive boundaries the
     * label is the first category covering the stretch (or "other"). No allocation. */
    size_t pos[NSI_MAX_CATS], live[NSI_MAX_CATS], nlive = 0;
    if (n > NSI_MAX_CATS) return false;
    /* only the categories with a span reaching lo take part, in priority order; one whose
     * spans run out (or start at or after hi) leaves the sweep */
    for (size_t c = 0; c < n; c++) {
        pos[c] = first_reaching(cats[c].v, cats[c].n, lo);
        if (pos[c] < cats[c].n && cats[c].v[pos[c]].start < hi) live[nlive++] = c;
    }
    /* Each stretch runs from t to the next boundary that can change its label: the end of
     * the labelling category's span or the start of a higher-priority span. Boundaries of
     * lower-priority categories cannot (the label covers them), so the scan stops at the
     * label: the kernels' spans, first in priority and covering most busy time, are mostly
     * the only ones looked at. Lower-priority positions catch up when next visited. */
    for (int64_t t = lo; t < hi;) {
        size_t label = n;
        int64_t next = hi;
        size_t kept = 0, x = 0;
        for (; x < nlive; x++) {
            size_t c = live[x];
            const ns_intervals *s = &cats[c];
            while (pos[c] < s->n && s->v[pos[c]].end <= t) pos[c]++;
            if (pos[c] >= s->n || s->v[pos[c]].start >= hi) continue;   /* out of the sweep */
            live[kept++] = c;
            const ns_span *sp = &s->v[pos[c]];
            if (sp->start <= t) {
                label = c;
                if (sp->end < next) next = sp->end;
                x++;
                break;
            }
            if (sp->start < next) next = sp->start;
        }
        for (; x < nlive; x++) live[kept++] = live[x];   /* not looked at: stay in the sweep */
        nlive = kept;
        part[label] += next - t;
        t = next;
    }
    return true;
}
