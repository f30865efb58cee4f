/* deflated_entry: a file deflated while libzip reads it, its CRC-32 and size known beforehand
 * (see deflated_entry.h). */
#include "api/deflated_entry.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

typedef struct deflated_entry {
    char *path;
    uint64_t size;                  /* the file's, from the first read */
    uint32_t crc;
    int fd;                         /* open between ZIP_SOURCE_OPEN and ZIP_SOURCE_CLOSE */
    z_stream z;
    bool z_open, eof, finished;
    bool failed;                    /* a READ failed: every READ fails until the next OPEN */
    uint64_t read_size;             /* what the second read found */
    uint32_t read_crc;
    zip_error_t error;
    unsigned char *in;              /* READ_BUFFER bytes, between OPEN and CLOSE only */
} deflated_entry;

#define READ_BUFFER 65536

static zip_int64_t fail(deflated_entry *e, int zip_err, int sys_err) {
    zip_error_set(&e->error, zip_err, sys_err);
    return -1;
}

/* The file's size and CRC-32 (the first read). */
static bool measure(deflated_entry *e) {
    unsigned char *buf = malloc(READ_BUFFER);
    int fd = buf ? open(e->path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) { free(buf); return false; }
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t size = 0;
    ssize_t n;
    while ((n = read(fd, buf, READ_BUFFER)) > 0) {
        crc = crc32(crc, buf, (uInt)n);
        size += (uint64_t)n;
    }
    close(fd);
    free(buf);
    e->size = size;
    e->crc = (uint32_t)crc;
    return n == 0;
}

static void end_read(deflated_entry *e) {
    if (e->z_open) deflateEnd(&e->z);
    e->z_open = false;
    if (e->fd >= 0) close(e->fd);
    e->fd = -1;
    free(e->in);
    e->in = NULL;
}

static zip_int64_t open_read(deflated_entry *e) {
    end_read(e);
    e->failed = false;
    if (!(e->in = malloc(READ_BUFFER))) return fail(e, ZIP_ER_MEMORY, 0);
    if ((e->fd = open(e->path, O_RDONLY | O_CLOEXEC)) < 0) {
        end_read(e);
        return fail(e, ZIP_ER_OPEN, errno);
    }
    memset(&e->z, 0, sizeof e->z);
    if (deflateInit2(&e->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        end_read(e);
        return fail(e, ZIP_ER_MEMORY, 0);
    }
    e->z_open = true;
    e->eof = e->finished = false;
    e->read_size = 0;
    e->read_crc = (uint32_t)crc32(0L, Z_NULL, 0);
    return 0;
}

/* A READ that fails: the stream is broken from here on (what it produced is lost). */
static zip_int64_t read_failed(deflated_entry *e, int zip_err, int sys_err) {
    e->failed = true;
    return fail(e, zip_err, sys_err);
}

/* Up to len deflated bytes into out; 0 once the stream has ended. */
static zip_int64_t read_deflated(deflated_entry *e, void *out, zip_uint64_t len) {
    if (e->failed) return -1;                   /* the error set then still stands */
    if (!e->z_open) return read_failed(e, ZIP_ER_INTERNAL, 0);
    if (e->finished || len == 0) return 0;
    uInt room = len > UINT_MAX ? UINT_MAX : (uInt)len;
    e->z.next_out = out;
    e->z.avail_out = room;
    while (e->z.avail_out > 0 && !e->finished) {
        if (e->z.avail_in == 0 && !e->eof) {
            ssize_t n = read(e->fd, e->in, READ_BUFFER);
            if (n < 0) return read_failed(e, ZIP_ER_READ, errno);
            e->eof = n == 0;
            e->read_crc = (uint32_t)crc32(e->read_crc, e->in, (uInt)n);
            e->read_size += (uint64_t)n;
            e->z.next_in = e->in;
            e->z.avail_in = (uInt)n;
        }
        int rc = deflate(&e->z, e->eof ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_END) e->finished = true;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) return read_failed(e, ZIP_ER_ZLIB, 0);
    }
    if (e->finished && (e->read_size != e->size || e->read_crc != e->crc))   /* not the bytes stat gave */
        return read_failed(e, ZIP_ER_CHANGED, 0);
    return (zip_int64_t)(room - e->z.avail_out);
}

static zip_int64_t callback(void *user, void *data, zip_uint64_t len, zip_source_cmd_t cmd) {
    deflated_entry *e = user;
    switch (cmd) {
    case ZIP_SOURCE_OPEN: return open_read(e);
    case ZIP_SOURCE_READ: return read_deflated(e, data, len);
    case ZIP_SOURCE_CLOSE: end_read(e); return 0;
    case ZIP_SOURCE_STAT: {
        if (len < sizeof(zip_stat_t)) return fail(e, ZIP_ER_INVAL, 0);
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->valid = ZIP_STAT_SIZE | ZIP_STAT_CRC | ZIP_STAT_COMP_METHOD;
        st->size = e->size;
        st->crc = e->crc;
        st->comp_method = ZIP_CM_DEFLATE;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR: return zip_error_to_data(&e->error, data, len);
    case ZIP_SOURCE_FREE:
        end_read(e);
        zip_error_fini(&e->error);
        free(e->path);
        free(e);
        return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default: return fail(e, ZIP_ER_OPNOTSUPP, 0);
    }
}

zip_source_t *deflated_entry_source(zip_t *z, const char *path) {
    deflated_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->fd = -1;
    zip_error_init(&e->error);
    zip_source_t *s = NULL;
    if ((e->path = strdup(path)) && measure(e)) s = zip_source_function(z, callback, e);
    if (!s) {                                   /* libzip never took e: it is still ours */
        zip_error_fini(&e->error);
        free(e->path);
        free(e);
    }
    return s;
}
