/* gunzip: streaming multi-member gzip decoding on zlib. */
#include "parsers/tokenizers/gunzip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define OUT_CHUNK (1u << 20)

struct gunzip {
    z_stream z;
    uint8_t *out;
    gunzip_sink sink;
    void *user;
    bool member_open, sink_done, failed, oom;
    uint64_t in_off, err_off;
    uint64_t inflated;       /* the bytes of the members before this one (z.total_out: this one's) */
    char err[128];
};

gunzip *gunzip_new(gunzip_sink sink, void *user) {
    gunzip *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->out = malloc(OUT_CHUNK);
    if (!g->out || inflateInit2(&g->z, 15 + 16) != Z_OK) {
        free(g->out);
        free(g);
        return NULL;
    }
    g->sink = sink;
    g->user = user;
    g->member_open = true;
    return g;
}

void gunzip_free(gunzip *g) {
    if (!g) return;
    inflateEnd(&g->z);
    free(g->out);
    free(g);
}

static bool fail(gunzip *g, int zret, const char *what) {
    g->failed = true;
    g->oom = zret == Z_MEM_ERROR;
    g->err_off = g->in_off - g->z.avail_in;
    snprintf(g->err, sizeof g->err, "%s", what);
    return false;
}

/* Hands what the last inflate() call produced to the sink; returns its size. */
static size_t deliver(gunzip *g) {
    size_t produced = OUT_CHUNK - g->z.avail_out;
    if (produced && !g->sink_done) g->sink_done = !g->sink(g->user, g->out, produced);
    return produced;
}

bool gunzip_feed(gunzip *g, const uint8_t *in, size_t n) {
    if (g->failed) return false;
    g->z.next_in = (Bytef *)in;
    g->z.avail_in = (uInt)n;
    g->in_off += n;
    for (;;) {
        if (g->sink_done) return true;   /* the reader wants no more: nothing more is inflated (a
                                          * sniff's 512 bytes no longer cost its 4 KiB's megabytes) */
        if (!g->member_open) {                         /* between members: NUL padding only */
            while (g->z.avail_in && *g->z.next_in == 0) { g->z.next_in++; g->z.avail_in--; }
            if (!g->z.avail_in) return true;
            g->inflated += g->z.total_out;
            inflateReset(&g->z);
            g->member_open = true;
        }
        if (!g->z.avail_in) return true;
        g->z.next_out = g->out;
        g->z.avail_out = OUT_CHUNK;
        int r = inflate(&g->z, Z_NO_FLUSH);
        size_t produced = deliver(g);
        if (r == Z_STREAM_END) { g->member_open = false; continue; }
        if (r == Z_OK) continue;
        if (r == Z_BUF_ERROR && g->z.avail_in == 0 && produced == 0) return true;   /* needs input */
        if (r == Z_BUF_ERROR) continue;
        return fail(g, r, g->z.msg ? g->z.msg : "invalid gzip data");
    }
}

bool gunzip_finish(gunzip *g) {
    if (g->failed) return false;
    if (g->sink_done) return true;   /* (the reader stopped: the rest is not its business) */
    /* flush what inflate still holds (output larger than one chunk at the very end) */
    while (g->member_open) {
        g->z.next_out = g->out;
        g->z.avail_out = OUT_CHUNK;
        int r = inflate(&g->z, Z_FINISH);
        size_t produced = deliver(g);
        if (r == Z_STREAM_END) { g->member_open = false; break; }
        if (r == Z_BUF_ERROR && produced == 0) return fail(g, r, "gzip data truncated");
        if (r != Z_OK && r != Z_BUF_ERROR) return fail(g, r, g->z.msg ? g->z.msg : "invalid gzip data");
    }
    return true;
}

const char *gunzip_error(const gunzip *g) { return g->err; }
uint64_t gunzip_inflated(const gunzip *g) { return g->inflated + g->z.total_out; }
uint64_t gunzip_error_offset(const gunzip *g) { return g->err_off; }
bool gunzip_out_of_memory(const gunzip *g) { return g->oom; }
