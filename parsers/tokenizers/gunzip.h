/* gunzip: gzip.decompress() semantics as a push stream: one or more gzip members, NUL
 * padding between members, CRC and length checked, any trailing garbage an error.
 * Compressed bytes in, decompressed chunks out to a sink; memory is two fixed buffers. */
#ifndef GOBLIN_GUNZIP_H
#define GOBLIN_GUNZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Receives decompressed bytes; returns false when it needs no more. */
typedef bool (*gunzip_sink)(void *user, const uint8_t *buf, size_t n);

typedef struct gunzip gunzip;

/* A decompressor sending its output to sink; NULL on OOM. */
gunzip *gunzip_new(gunzip_sink sink, void *user);
void gunzip_free(gunzip *g);
/* false on invalid data (see gunzip_error); the sink declining input is not an error, and
 * from then on nothing more is inflated (the rest of the input is neither read nor checked). */
bool gunzip_feed(gunzip *g, const uint8_t *in, size_t n);
/* End of input: false when the last member is incomplete (true once the sink declined). */
bool gunzip_finish(gunzip *g);
/* Bytes inflated so far (all members). */
uint64_t gunzip_inflated(const gunzip *g);
/* What was wrong ("" when nothing) and where (compressed byte offset): for the warning
 * that names the file and offset. */
const char *gunzip_error(const gunzip *g);
uint64_t gunzip_error_offset(const gunzip *g);   /* compressed byte offset */
/* Whether the error was zlib running out of memory (not bad data): the caller says so. */
bool gunzip_out_of_memory(const gunzip *g);

#endif
