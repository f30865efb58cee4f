/* ranks: the cross-rank summary of a multi-rank run (section "ranks").
 *
 * One trace per rank (the source's rank, or its REC_METADATA "rank"). Every
 * communication-class kernel (analyses/kernel_class.h) is a collective occurrence; the
 * n-th occurrence of a kernel name on one rank is matched with the n-th occurrence of
 * that name on every other rank (in start-time order), as HTA's and TraceLens's
 * cross-rank views do. Per collective name: start skew (max start - min start across
 * ranks, per occurrence; mean and max), the rank most often slowest and fastest (by
 * duration) and the straggler (most often the latest to start). Per rank: collectives
 * and their summed duration. Ranks' clocks must agree for skews to mean anything (one
 * host, or synchronised hosts); docs/ANALYSIS.md "ranks". null with fewer than two ranks
 * holding collectives. */
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/str_pool.h"
#include "analyses/kernel_class_cache.h"
#include "analyses/section.h"

#define MAX_OCCURRENCES ((size_t)1 << 20)
#define MAX_NAME_BYTES ((size_t)6 << 20)   /* the pool's names, each counted with STR_POOL_ENTRY_BYTES */
#define LISTED 100

typedef struct occurrence {
    uint32_t name;
    int rank;
    int64_t start, dur;
} occurrence;

typedef struct occ_list {
    occurrence *v;
    size_t n, cap;
    uint64_t dropped;
} occ_list;

typedef struct coll_summary {
    uint32_t name;
    size_t ranks, occurrences;
    int64_t max_skew, mean_skew;
    int slowest, fastest, straggler;
    size_t straggler_times;
    bool uneven;             /* ranks saw different numbers of this collective */
} coll_summary;

typedef struct rank_total {
    int rank;
    uint64_t collectives;
    int64_t time_ns;
    uint64_t straggler_times;
} rank_total;

typedef struct ranks_run {
    diag_list *diag;
    const analysis_config *cfg;  /* list_rows, read at render */
    str_pool pool;
    occ_list occ;
    size_t last_index;
    int last_metadata_rank;
    coll_summary *coll;
    size_t ncoll;
    rank_total *per_rank;
    size_t nranks;
    int straggler;
    bool oom;
} ranks_run;

typedef struct ranks_src {
    size_t index;
    unsigned piece;
    int source_rank, metadata_rank;
    str_pool pool;
    occ_list occ;
    kernel_class_cache classes;
} ranks_src;

static void *ranks_open(const analysis_config *cfg, diag_list *diag) {
    ranks_run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->diag = diag;
    r->cfg = cfg;
    r->pool.max_bytes = MAX_NAME_BYTES;
    r->last_index = (size_t)-1;
    r->last_metadata_rank = -1;
    return r;
}

static void *ranks_open_source(void *run, const source_ref *src) {
    (void)run;
    ranks_src *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->index = src->index, s->piece = src->piece;
    s->source_rank = src->rank, s->metadata_rank = -1;
    s->pool.max_bytes = MAX_NAME_BYTES;
    return s;
}

static bool occ_push(occ_list *l, occurrence o) {
    if (l->n >= MAX_OCCURRENCES) {
        l->dropped++;
        return true;
    }
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 256;
        occurrence *v = realloc(l->v, c * sizeof *v);
        if (!v) return false;
        l->v = v, l->cap = c;
    }
    l->v[l->n++] = o;
    return true;
}

static bool ranks_consume(void *src, const record *r) {
    ranks_src *s = src;
    if (r->type == REC_METADATA) {
        int rank;
        if (record_rank(r, &rank)) s->metadata_rank = rank;
        return true;
    }
    if (!r->name || kcc_class_of(&s->classes, r->name, r->name_len) != KC_COMMUNICATION) return true;
    if (!(r->has & RF_START) || !(r->has & (RF_END | RF_DURATION))) return true;
    i128 end = (r->has & RF_END) ? r->end_ns : i128_add(r->start_ns, r->duration_ns);
    const i128 lim = (i128)INT64_MAX / 2;
    if (r->start_ns < -lim || r->start_ns > lim || end < r->start_ns || end > lim) return true;
    uint32_t name = str_pool_intern(&s->pool, r->name, r->name_len);
    if (name == ID_MAP_OOM) return false;
    if (name == ID_MAP_NONE) {
        s->occ.dropped++;
        return true;
    }
    return occ_push(&s->occ, (occurrence){name, -1, (int64_t)r->start_ns, (int64_t)(end - r->start_ns)});
}

static void src_free(ranks_src *s) {
    str_pool_free(&s->pool);
    free(s->occ.v);
    kcc_free(&s->classes);
    free(s);
}

static bool ranks_end_source(void *run, void *src) {
    ranks_run *r = run;
    ranks_src *s = src;
    if (s->metadata_rank < 0 && s->piece > 0 && s->index == r->last_index) s->metadata_rank = r->last_metadata_rank;
    r->last_index = s->index;
    r->last_metadata_rank = s->metadata_rank;
    int rank = s->metadata_rank >= 0 ? s->metadata_rank : s->source_rank;
    bool ok = true;
    uint32_t *map = malloc((s->pool.n + 1) * sizeof *map);
    if (!map) ok = false;
    for (size_t i = 0; ok && i < s->pool.n; i++)
        ok = (map[i] = str_pool_intern(&r->pool, s->pool.s[i], s->pool.len[i])) != ID_MAP_OOM;
    for (size_t i = 0; ok && i < s->occ.n; i++) {
        occurrence o = s->occ.v[i];
        o.name = map[o.name], o.rank = rank;
        if (o.name == ID_MAP_NONE) r->occ.dropped++;
        else ok = occ_push(&r->occ, o);
    }
    r->occ.dropped += s->occ.dropped;
    free(map);
    src_free(s);
    if (!ok) r->oom = true;
    return ok;
}

static int cmp_occ(const void *x, const void *y) {
    const occurrence *a = x, *b = y;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

static rank_total *total_of(ranks_run *r, int rank) {
    for (size_t i = 0; i < r->nranks; i++)
        if (r->per_rank[i].rank == rank) return &r->per_rank[i];
    return NULL;
}

/* The rank with the highest count in counts[0..n) (ranks[] alongside), lowest rank on ties. */
static int most_often(const size_t *counts, const int *ranks, size_t n, size_t *times) {
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (counts[i] > counts[best]) best = i;
    if (times) *times = counts[best];
    return ranks[best];
}

/* Summarises one collective name: occ[0..n) sorted by rank then start. */
static bool summarise(ranks_run *r, const occurrence *occ, size_t n) {
    size_t nr = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || occ[i].rank != occ[i - 1].rank) nr++;
    if (nr < 2) return true;
    /* per rank of this name: first index, count, and how often slowest / fastest / latest */
    size_t *starts = calloc(nr, sizeof *starts), *counts = calloc(nr, sizeof *counts);
    size_t *slow = calloc(nr, sizeof *slow), *fast = calloc(nr, sizeof *fast), *late = calloc(nr, sizeof *late);
    int *ranks = calloc(nr, sizeof *ranks);
    bool ok = starts && counts && slow && fast && late && ranks;
    if (ok) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!i || occ[i].rank != occ[i - 1].rank) starts[k] = i, ranks[k++] = occ[i].rank;
        for (k = 0; k < nr; k++) counts[k] = (k + 1 < nr ? starts[k + 1] : n) - starts[k];
        size_t m = counts[0];
        bool uneven = false;
        for (k = 1; k < nr; k++) {
            if (counts[k] != m) uneven = true;
            if (counts[k] < m) m = counts[k];
        }
        int64_t max_skew = 0;
        __int128 skew_sum = 0;
        for (size_t j = 0; j < m; j++) {
            size_t s = 0, f = 0, l = 0, e = 0;
            for (k = 1; k < nr; k++) {
                const occurrence *o = &occ[starts[k] + j];
                if (o->dur > occ[starts[s] + j].dur) s = k;
                if (o->dur < occ[starts[f] + j].dur) f = k;
                if (o->start > occ[starts[l] + j].start) l = k;
                if (o->start < occ[starts[e] + j].start) e = k;
            }
            slow[s]++, fast[f]++, late[l]++;
            int64_t skew = occ[starts[l] + j].start - occ[starts[e] + j].start;
            skew_sum += skew;
            if (skew > max_skew) max_skew = skew;
            rank_total *t = total_of(r, ranks[l]);
            if (t) t->straggler_times++;
        }
        coll_summary *v = m ? realloc(r->coll, (r->ncoll + 1) * sizeof *v) : r->coll;
        if (m && !v) ok = false;
        if (m && v) {
            r->coll = v;
            coll_summary *c = &r->coll[r->ncoll++];
            *c = (coll_summary){.name = occ[0].name, .ranks = nr, .occurrences = m, .max_skew = max_skew,
                                .mean_skew = (int64_t)(skew_sum / (__int128)m), .uneven = uneven};
            c->slowest = most_often(slow, ranks, nr, NULL);
            c->fastest = most_often(fast, ranks, nr, NULL);
            c->straggler = most_often(late, ranks, nr, &c->straggler_times);
        }
    }
    free(starts), free(counts), free(slow), free(fast), free(late), free(ranks);
    return ok;
}

static int cmp_coll(const void *x, const void *y) {
    const coll_summary *a = x, *b = y;
    if (a->max_skew != b->max_skew) return a->max_skew > b->max_skew ? -1 : 1;
    return (a->name > b->name) - (a->name < b->name);
}

static bool ranks_finish(void *run, const section_results *earlier) {
    (void)earlier;
    ranks_run *r = run;
    if (r->oom) return false;
    /* Sources of unknown rank belong to the run's only known rank, when it has one. */
    int known = -1;
    bool several = false, unknown = false;
    for (size_t i = 0; i < r->occ.n; i++) {
        int rk = r->occ.v[i].rank;
        if (rk < 0) unknown = true;
        else if (known < 0) known = rk;
        else if (rk != known) several = true;
    }
    if (unknown && known >= 0 && !several)
        for (size_t i = 0; i < r->occ.n; i++)
            if (r->occ.v[i].rank < 0) r->occ.v[i].rank = known;
    if (r->occ.n > 1) qsort(r->occ.v, r->occ.n, sizeof *r->occ.v, cmp_occ);
    for (size_t i = 0; i < r->occ.n; i++) {  /* per-rank totals */
        rank_total *t = total_of(r, r->occ.v[i].rank);
        if (!t) {
            rank_total *v = realloc(r->per_rank, (r->nranks + 1) * sizeof *v);
            if (!v) return !(r->oom = true);
            r->per_rank = v;
            t = &r->per_rank[r->nranks++];
            *t = (rank_total){.rank = r->occ.v[i].rank};
        }
        t->collectives++;
        t->time_ns += r->occ.v[i].dur;
    }
    for (size_t i = 0, j; i < r->occ.n; i = j) {
        for (j = i + 1; j < r->occ.n && r->occ.v[j].name == r->occ.v[i].name;) j++;
        if (!summarise(r, r->occ.v + i, j - i)) return !(r->oom = true);
    }
    if (r->ncoll > 1) qsort(r->coll, r->ncoll, sizeof *r->coll, cmp_coll);
    /* per_rank sorted by rank (insertion followed the sorted occurrences of the first name only) */
    for (size_t a = 1; a < r->nranks; a++)
        for (size_t b = a; b > 0 && r->per_rank[b - 1].rank > r->per_rank[b].rank; b--) {
            rank_total t = r->per_rank[b];
            r->per_rank[b] = r->per_rank[b - 1];
            r->per_rank[b - 1] = t;
        }
    r->straggler = -1;
    uint64_t best = 0;
    for (size_t i = 0; i < r->nranks; i++)
        if (r->per_rank[i].straggler_times > best) best = r->per_rank[i].straggler_times, r->straggler = r->per_rank[i].rank;
    if (r->occ.dropped)
        diag_add(r->diag, "ranks: more than %zu collective kernels; %llu were not compared", MAX_OCCURRENCES,
                 (unsigned long long)r->occ.dropped);
    return true;
}

static void rank_value(jw_out *w, int rank) {
    if (rank >= 0) jw_int(w, rank);
    else jw_null(w);
}

static void ranks_render(const void *run, jw_out *w) {
    const ranks_run *r = run;
    if (r->oom || r->nranks < 2) {
        jw_null(w);
        return;
    }
    jw_object_open(w);
    jw_key(w, "complete");
    jw_bool(w, !r->occ.dropped);
    jw_key(w, "straggler_rank");
    if (r->straggler >= 0 || r->ncoll) rank_value(w, r->straggler);
    else jw_null(w);
    size_t ranks_listed = section_listed(r->cfg, r->nranks);
    jw_key(w, "per_rank");
    jw_array_open(w);
    for (size_t i = 0; i < ranks_listed; i++) {
        jw_object_open(w);
        jw_key(w, "rank");
        rank_value(w, r->per_rank[i].rank);
        jw_key(w, "collectives");
        jw_int(w, (int64_t)r->per_rank[i].collectives);
        jw_key(w, "collective_time_ns");
        jw_int(w, r->per_rank[i].time_ns);
        jw_key(w, "straggler_times");
        jw_int(w, (int64_t)r->per_rank[i].straggler_times);
        jw_object_close(w);
    }
    jw_array_close(w);
    section_render_cut(w, "per_rank_listed", "per_rank_unlisted", "ranks", ranks_listed, r->nranks);
    size_t coll_listed = section_listed(r->cfg, r->ncoll < LISTED ? r->ncoll : LISTED);
    jw_key(w, "collectives");
    jw_array_open(w);
    for (size_t i = 0; i < coll_listed; i++) {
        const coll_summary *c = &r->coll[i];
        jw_object_open(w);
        jw_key(w, "name");
        jw_string(w, r->pool.s[c->name]);
        jw_key(w, "ranks");
        jw_int(w, (int64_t)c->ranks);
        jw_key(w, "occurrences");
        jw_int(w, (int64_t)c->occurrences);
        jw_key(w, "uneven_counts");
        jw_bool(w, c->uneven);
        jw_key(w, "max_skew_ns");
        jw_int(w, c->max_skew);
        jw_key(w, "mean_skew_ns");
        jw_int(w, c->mean_skew);
        jw_key(w, "slowest_rank");
        rank_value(w, c->slowest);
        jw_key(w, "fastest_rank");
        rank_value(w, c->fastest);
        jw_key(w, "straggler_rank");
        rank_value(w, c->straggler);
        jw_key(w, "straggler_times");
        jw_int(w, (int64_t)c->straggler_times);
        jw_object_close(w);
    }
    jw_array_close(w);
    section_render_cut(w, "collectives_listed", "collectives_unlisted", "collectives", coll_listed, r->ncoll);
    jw_object_close(w);
}

/* "ranks", "straggler_rank", "max_skew_ns" (over every collective). */
static bool ranks_number(const void *run, const char *path, double *out) {
    const ranks_run *r = run;
    if (r->oom || r->nranks < 2) return false;
    if (!strcmp(path, "ranks")) return *out = (double)r->nranks, true;
    if (!strcmp(path, "straggler_rank")) return r->straggler >= 0 ? (*out = r->straggler, true) : false;
    if (!strcmp(path, "max_skew_ns")) return r->ncoll ? (*out = (double)r->coll[0].max_skew, true) : false;
    return false;
}

static void ranks_close(void *run) {
    ranks_run *r = run;
    if (!r) return;
    str_pool_free(&r->pool);
    free(r->occ.v);
    free(r->coll);
    free(r->per_rank);
    free(r);
}

const section_analysis ranks_analysis = {
    .key = "ranks",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_METADATA),
    .fields = RF_START | RF_END | RF_DURATION,
    .splittable = true,
    .host_clock = true,           /* joins kernels to the host trace's operators, launches and steps */
    .open = ranks_open,
    .open_source = ranks_open_source,
    .consume = ranks_consume,
    .end_source = ranks_end_source,
    .finish = ranks_finish,
    .render = ranks_render,
    .number = ranks_number,
    .close = ranks_close,
};
