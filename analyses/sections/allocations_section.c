/* allocations_section: the `allocations` section: per device, how many allocations and frees,
 * how many bytes, and the peak of the running sum (allocated - freed) in time order; and the
 * largest totals an allocator reported (torch.profiler's [memory] events).
 *
 * Inputs: REC_ALLOCATION (category "alloc" / "free", bytes, device, start_ns). A free's size
 * is its RF_BYTES when the format knows it, else the size of the allocation at the same
 * address (RF_ADDRESS) from a bounded map of live allocations (ADDR_CAP); a free without a
 * device is charged to that allocation's device. A free matched by neither is counted in
 * unmatched_frees and then the peak is an upper bound (peak_exact false). RF_VALUE, when a
 * format gives the allocator's own total after the event, is reported as
 * reported_peak_bytes. A record of category "total" (record.h: an allocator's state, no
 * allocation of its own) gives only that: its number is the bytes allocated (the largest is
 * reported_peak_bytes), its RF_BYTES the bytes reserved (the largest is reserved_peak_bytes).
 *
 * Bounded memory: events are buffered (EV_CAP), sorted by time per device and folded into a
 * segment summary (net bytes, highest prefix), which composes exactly: peak(a then b) =
 * max(peak a, net a + peak b). An event older than an already folded batch breaks time
 * order (time_ordered false). Sources compose in inventory order. Not splittable (a free's
 * allocation may sit in the other piece), except a torch trace's: it gives totals only, whose
 * largest values fold exactly in any order (split_ok; split_exact refuses two pieces that both
 * hold allocations or frees). docs/ANALYSIS.md. */
#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"
#include "analyses/structures/name_agg.h"
#include "analyses/section.h"
#include "analyses/section_md.h"

#define MAX_DEVICES 64
#define NO_DEVICE INT64_MIN
#define EV_CAP (1u << 16)
#define ADDR_CAP (1u << 16)         /* live allocations remembered by address */
#define ADDR_SLOTS (ADDR_CAP * 2)

typedef struct alloc_event {
    i128 ts;
    i128 delta;
    int64_t device;
    uint64_t seq;                   /* file order, for a stable sort */
} alloc_event;

typedef struct dev_seg {
    int64_t device;
    i128 net, peak;                 /* net bytes, highest running sum (>= 0) */
    uint64_t allocs, frees, unmatched;
    i128 alloc_bytes, free_bytes;
    bool have_ts, order_broken, have_reported, have_reserved;
    i128 max_ts;
    double reported_peak;
    uint64_t reserved_peak;         /* the largest reserved total ("total" records' RF_BYTES) */
    uint64_t totals;                /* "total" records */
} dev_seg;

typedef struct addr_slot {
    uint64_t addr, bytes;
    int64_t device;                 /* the allocation's device (NO_DEVICE when unknown) */
    uint8_t used;                   /* 0 empty, 1 live, 2 freed (tombstone) */
} addr_slot;

typedef struct alloc_state {
    dev_seg dev[MAX_DEVICES];
    size_t n_dev;
    alloc_event *ev;
    size_t n_ev;
    uint64_t seq;
    i128 last_ts;
    addr_slot *addr;
    size_t n_addr, n_tomb;          /* live entries, tombstones */
    uint64_t untracked, dropped;    /* allocations past ADDR_CAP; events of devices past MAX_DEVICES */
    bool oom;
    diag_list *diag;
} alloc_state;

static void *al_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg;
    alloc_state *s = calloc(1, sizeof *s);
    if (s) s->diag = diag;
    return s;
}

static void *al_open_source(void *run, const source_ref *src) {
    (void)src;
    return al_open(NULL, ((alloc_state *)run)->diag);
}

static dev_seg *dev_of(alloc_state *s, int64_t device) {
    for (size_t i = 0; i < s->n_dev; i++)
        if (s->dev[i].device == device) return &s->dev[i];
    if (s->n_dev == MAX_DEVICES) return NULL;
    dev_seg *d = &s->dev[s->n_dev++];
    *d = (dev_seg){.device = device};
    return d;
}

static int cmp_event(const void *x, const void *y) {
    const alloc_event *a = x, *b = y;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Sorts the buffered events by (device, time) and folds them into the device segments. */
static void flush_events(alloc_state *s) {
    if (!s->n_ev) return;
    qsort(s->ev, s->n_ev, sizeof *s->ev, cmp_event);
    for (size_t i = 0; i < s->n_ev; i++) {
        const alloc_event *e = &s->ev[i];
        dev_seg *d = dev_of(s, e->device);
        if (!d) continue;
        bool first_of_device = i == 0 || s->ev[i - 1].device != e->device;
        if (first_of_device && d->have_ts && e->ts < d->max_ts) d->order_broken = true;
        d->net = i128_add(d->net, e->delta);
        if (d->net > d->peak) d->peak = d->net;
        if (!d->have_ts || e->ts > d->max_ts) d->max_ts = e->ts;
        d->have_ts = true;
    }
    s->n_ev = 0;
}

/* Keyed by the process's random str_hash_key: addresses are file content, and a plain
 * multiply lets a file choose addresses that all share one slot. */
static uint64_t addr_hash(uint64_t a) {
    uint64_t h = (a ^ str_hash_key) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    return (h * 0xff51afd7ed558ccdULL) >> 20;
}

static addr_slot *addr_find(alloc_state *s, uint64_t a, bool for_insert) {
    if (!s->addr) {
        if (!for_insert || !(s->addr = calloc(ADDR_SLOTS, sizeof *s->addr))) return NULL;
    }
    addr_slot *tomb = NULL;
    for (size_t j = addr_hash(a) % ADDR_SLOTS, n = 0; n < ADDR_SLOTS; j = (j + 1) % ADDR_SLOTS, n++) {
        addr_slot *x = &s->addr[j];
        if (!x->used) return for_insert ? (tomb ? tomb : x) : NULL;
        if (x->used == 2) { if (!tomb) tomb = x; continue; }
        if (x->addr == a) return x;
    }
    return for_insert ? tomb : NULL;
}

/* Rebuilds the address table without its tombstones once they crowd it (keeps probes short
 * under endless alloc/free churn). false: out of memory (the table is kept as it was). */
static bool addr_compact(alloc_state *s) {
    addr_slot *old = s->addr, *fresh = calloc(ADDR_SLOTS, sizeof *fresh);
    if (!fresh) return false;
    s->addr = fresh;
    for (size_t i = 0; i < ADDR_SLOTS; i++)
        if (old[i].used == 1) *addr_find(s, old[i].addr, true) = old[i];
    free(old);
    s->n_tomb = 0;
    return true;
}

/* A "total" record: the allocator's totals after an event, folded by their largest values. */
static void add_total(alloc_state *s, const record *r) {
    dev_seg *d = dev_of(s, (r->has & RF_DEVICE) ? r->device : NO_DEVICE);
    if (!d) { s->dropped++; return; }
    d->totals++;
    if ((r->has & RF_VALUE) && (!d->have_reported || r->number > d->reported_peak))
        d->reported_peak = r->number, d->have_reported = true;
    if ((r->has & RF_BYTES) && (!d->have_reserved || r->bytes > d->reserved_peak))
        d->reserved_peak = r->bytes, d->have_reserved = true;
}

static bool al_consume(void *st, const record *r) {
    alloc_state *s = st;
    if (!r->category) return true;
    bool is_free = r->category_len == 4 && !memcmp(r->category, "free", 4);
    bool is_alloc = r->category_len == 5 && !memcmp(r->category, "alloc", 5);
    if (r->category_len == 5 && !memcmp(r->category, "total", 5)) { add_total(s, r); return true; }
    if (!is_free && !is_alloc) return true;
    bool has_addr = (r->has & RF_ADDRESS) != 0;
    int64_t device = (r->has & RF_DEVICE) ? r->device : NO_DEVICE;
    /* a free's allocation, by address: rocprofv3 writes frees without an agent, so such a
     * free is charged to the device of the allocation it releases */
    addr_slot *freed = is_free && has_addr ? addr_find(s, r->address, false) : NULL;
    if (freed && device == NO_DEVICE) device = freed->device;
    dev_seg *d = dev_of(s, device);
    if (!d) { s->dropped++; return true; }
    if (r->has & RF_VALUE) {
        if (!d->have_reported || r->number > d->reported_peak) d->reported_peak = r->number;
        d->have_reported = true;
    }
    i128 delta = 0;
    if (is_alloc) {
        d->allocs++;
        if (!(r->has & RF_BYTES)) return true;
        delta = (i128)r->bytes;
        d->alloc_bytes = i128_add(d->alloc_bytes, delta);
        if (has_addr) {
            addr_slot *x = s->n_addr < ADDR_CAP ? addr_find(s, r->address, true) : NULL;
            if (x && x->used == 2) s->n_tomb--;
            if (x && x->used != 1) s->n_addr++;
            if (x) *x = (addr_slot){.addr = r->address, .bytes = r->bytes, .device = device, .used = 1};
            else s->untracked++;
        }
    } else {
        d->frees++;
        uint64_t bytes;
        if (r->has & RF_BYTES) bytes = r->bytes;
        else if (freed) bytes = freed->bytes;
        else { d->unmatched++; return true; }
        if (freed) freed->used = 2, s->n_addr--, s->n_tomb++;
        if (s->n_tomb > ADDR_SLOTS / 4 && !addr_compact(s)) { s->oom = true; return false; }
        delta = -(i128)bytes;
        d->free_bytes = i128_add(d->free_bytes, (i128)bytes);
    }
    if (!s->ev && !(s->ev = malloc(EV_CAP * sizeof *s->ev))) { s->oom = true; return false; }
    if (r->has & RF_START) s->last_ts = r->start_ns;
    s->ev[s->n_ev++] = (alloc_event){.ts = s->last_ts, .delta = delta, .device = device, .seq = s->seq++};
    if (s->n_ev == EV_CAP) flush_events(s);
    return true;
}

static void al_close(void *run) {
    alloc_state *s = run;
    if (!s) return;
    free(s->ev);
    free(s->addr);
    free(s);
}

static bool al_end_source(void *run, void *src) {
    alloc_state *r = run, *s = src;
    flush_events(s);
    for (size_t i = 0; i < s->n_dev; i++) {
        const dev_seg *b = &s->dev[i];
        dev_seg *a = dev_of(r, b->device);
        if (!a) { r->dropped += b->allocs + b->frees + b->totals; continue; }
        i128 joined = i128_add(a->net, b->peak);
        if (joined > a->peak) a->peak = joined;
        a->net = i128_add(a->net, b->net);
        a->allocs += b->allocs, a->frees += b->frees, a->unmatched += b->unmatched;
        a->alloc_bytes = i128_add(a->alloc_bytes, b->alloc_bytes);
        a->free_bytes = i128_add(a->free_bytes, b->free_bytes);
        a->order_broken |= b->order_broken;
        if (b->have_reported && (!a->have_reported || b->reported_peak > a->reported_peak))
            a->reported_peak = b->reported_peak, a->have_reported = true;
        if (b->have_reserved && (!a->have_reserved || b->reserved_peak > a->reserved_peak))
            a->reserved_peak = b->reserved_peak, a->have_reserved = true;
        a->totals += b->totals;
    }
    r->untracked += s->untracked;
    r->dropped += s->dropped;
    r->oom |= s->oom;
    al_close(s);
    return true;
}

static int cmp_dev(const void *x, const void *y) {
    int64_t a = ((const dev_seg *)x)->device, b = ((const dev_seg *)y)->device;
    return (a > b) - (a < b);
}

static bool al_finish(void *run, const section_results *earlier) {
    (void)earlier;
    alloc_state *s = run;
    qsort(s->dev, s->n_dev, sizeof *s->dev, cmp_dev);
    if (s->untracked)
        diag_add(s->diag, "allocations: more than %u live allocations: %llu were not remembered by address and "
                 "their frees cannot be matched", ADDR_CAP, (unsigned long long)s->untracked);
    if (s->dropped) diag_add(s->diag, "allocations: events of devices past the first %d are not counted", MAX_DEVICES);
    if (s->oom) diag_oom(s->diag, "allocations: out of memory; the figures are partial");
    return true;
}

static uint64_t total_allocs(const alloc_state *s) {
    uint64_t n = 0;
    for (size_t i = 0; i < s->n_dev; i++) n += s->dev[i].allocs;
    return n;
}

static bool dev_events(const dev_seg *d) { return d->allocs || d->frees; }

/* Whether any allocation or free was seen (the running-sum figures are known). */
static bool any_events(const alloc_state *s) {
    for (size_t i = 0; i < s->n_dev; i++)
        if (dev_events(&s->dev[i])) return true;
    return false;
}

/* Whether any allocator total was seen. */
static bool any_totals(const alloc_state *s) {
    for (size_t i = 0; i < s->n_dev; i++)
        if (s->dev[i].totals) return true;
    return false;
}

/* The largest reported allocated (reserved: false) or reserved (true) total over the devices;
 * false when none reported one. */
static bool largest_total(const alloc_state *s, bool reserved, double *out) {
    bool any = false;
    for (size_t i = 0; i < s->n_dev; i++) {
        const dev_seg *d = &s->dev[i];
        bool has = reserved ? d->have_reserved : d->have_reported;
        double v = reserved ? (double)d->reserved_peak : d->reported_peak;
        if (has && (!any || v > *out)) *out = v, any = true;
    }
    return any;
}

static void render_total(jw_out *w, const char *key, bool has, double v) {
    jw_key(w, key);
    if (has) jw_whole(w, v); else jw_null(w);
}

/* The run's peak: the largest per-device peak (devices are separate memories). */
static i128 peak_of(const alloc_state *s) {
    i128 p = 0;
    for (size_t i = 0; i < s->n_dev; i++)
        if (s->dev[i].peak > p) p = s->dev[i].peak;
    return p;
}

static void al_render(const void *run, jw_out *w) {
    const alloc_state *s = run;
    bool events = any_events(s);
    if (!events && !any_totals(s)) { jw_null(w); return; }
    bool exact = true;
    for (size_t i = 0; i < s->n_dev; i++) exact &= !s->dev[i].unmatched && !s->dev[i].order_broken;
    jw_object_open(w);
    jw_key(w, "allocation_count"); jw_u64(w, total_allocs(s));
    /* the running sum's figures are unknown (null) without one allocation or free */
    jw_key(w, "peak_bytes"); if (events) jw_i128_value(w, peak_of(s)); else jw_null(w);
    jw_key(w, "peak_exact"); if (events) jw_bool(w, exact); else jw_null(w);
    double v = 0;
    bool has = largest_total(s, false, &v);
    render_total(w, "reported_peak_bytes", has, v);
    has = largest_total(s, true, &v);
    render_total(w, "reserved_peak_bytes", has, v);
    jw_key(w, "devices");
    jw_array_open(w);
    for (size_t i = 0; i < s->n_dev; i++) {
        const dev_seg *d = &s->dev[i];
        jw_object_open(w);
        jw_key(w, "device");
        if (d->device == NO_DEVICE) jw_null(w); else jw_int(w, d->device);
        jw_key(w, "allocations"); jw_u64(w, d->allocs);
        jw_key(w, "frees"); jw_u64(w, d->frees);
        jw_key(w, "allocated_bytes"); jw_i128_value(w, d->alloc_bytes);
        jw_key(w, "freed_bytes"); jw_i128_value(w, d->free_bytes);
        jw_key(w, "peak_bytes"); if (dev_events(d)) jw_i128_value(w, d->peak); else jw_null(w);
        jw_key(w, "unmatched_frees"); jw_u64(w, d->unmatched);
        jw_key(w, "time_ordered"); if (dev_events(d)) jw_bool(w, !d->order_broken); else jw_null(w);
        render_total(w, "reported_peak_bytes", d->have_reported, d->reported_peak);
        render_total(w, "reserved_peak_bytes", d->have_reserved, (double)d->reserved_peak);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_object_close(w);
}

/* The allocators' reported totals: one row per device that reported one (MiB). */
static void totals_md(const alloc_state *s, strbuf *out) {
    smd_printf(out, "| device | reported allocated, largest (MiB) | reported reserved, largest (MiB) |\n|---|---:|---:|\n");
    for (size_t i = 0; i < s->n_dev; i++) {
        const dev_seg *d = &s->dev[i];
        if (!d->totals) continue;
        if (d->device == NO_DEVICE) smd_printf(out, "| — |");
        else smd_printf(out, "| %lld |", (long long)d->device);
        if (d->have_reported) smd_num(out, d->reported_peak / 1048576.0, 2, true); else smd_printf(out, " — |");
        if (d->have_reserved) smd_num(out, (double)d->reserved_peak / 1048576.0, 2, true); else smd_printf(out, " — |");
        strbuf_putc(out, '\n');
    }
    strbuf_putc(out, '\n');
}

/* The report's allocation table: one row per device (MiB = 2^20 bytes); then the reported
 * totals, when an allocator reported them. */
static void al_render_md(const void *run, strbuf *out) {
    const alloc_state *s = run;
    if (!any_events(s)) {
        if (any_totals(s)) smd_printf(out, "## Allocations\n\n"), totals_md(s, out);
        return;
    }
    smd_printf(out, "## Allocations\n\n| device | allocations | frees | allocated (MiB) | peak (MiB) | unmatched frees |\n"
                    "|---|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < s->n_dev; i++) {
        const dev_seg *d = &s->dev[i];
        if (!dev_events(d)) continue;
        if (d->device == NO_DEVICE) smd_printf(out, "| — |");
        else smd_printf(out, "| %lld |", (long long)d->device);
        smd_printf(out, " %llu | %llu |", (unsigned long long)d->allocs, (unsigned long long)d->frees);
        smd_num(out, (double)d->alloc_bytes / 1048576.0, 2, true);
        smd_num(out, (double)d->peak / 1048576.0, 2, true);
        smd_printf(out, " %llu |\n", (unsigned long long)d->unmatched);
    }
    strbuf_putc(out, '\n');
    if (any_totals(s)) totals_md(s, out);
}

/* "peak_bytes" (largest per-device peak), "allocation_count" (both known once an allocation
 * or free was seen); "reported_peak_bytes", "reserved_peak_bytes" (the largest device's). */
static bool al_number(const void *run, const char *path, double *out) {
    const alloc_state *s = run;
    if (!strcmp(path, "reported_peak_bytes")) return largest_total(s, false, out);
    if (!strcmp(path, "reserved_peak_bytes")) return largest_total(s, true, out);
    if (!any_events(s)) return false;
    if (!strcmp(path, "peak_bytes")) *out = (double)peak_of(s);
    else if (!strcmp(path, "allocation_count")) *out = (double)total_allocs(s);
    else return false;
    return true;
}

/* A torch trace gives "total" records only (parsers/formats/torch_memory.h): their largest
 * values fold exactly in any order, so its pieces may be read apart. */
static bool al_split_ok(const source_ref *src) { return !strcmp(src->format, "torch-trace-json"); }

/* The running sum composes across pieces only when one of them holds no allocation or free
 * (a free's allocation, by address, may sit in the other). */
static bool al_split_exact(const void *first, const void *second) {
    return !any_events(first) || !any_events(second);
}

const section_analysis allocations_section = {
    .key = "allocations",
    .wants = REC_BIT(REC_ALLOCATION),
    .fields = RF_DEVICE | RF_BYTES | RF_START | RF_VALUE | RF_ADDRESS,
    .splittable = false,
    .split_ok = al_split_ok,
    .split_exact = al_split_exact,
    .open = al_open,
    .open_source = al_open_source,
    .consume = al_consume,
    .end_source = al_end_source,
    .finish = al_finish,
    .render = al_render,
    .render_md = al_render_md,
    .number = al_number,
    .close = al_close,
};
