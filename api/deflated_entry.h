/* deflated_entry: a libzip source that hands libzip a file's bytes already deflated (zlib, raw
 * deflate), with the file's size and CRC-32 in its stat, read once beforehand.
 *
 * Why not zip_source_file: for a plain file, libzip 1.7's zip_close wraps the source in a CRC
 * layer and a compression layer of its own, and when an allocation fails while it builds the
 * CRC layer it leaks that layer's state (one block per archive entry: found by the allocation
 * walk of tests/check_alloc_failure_api.c). For an entry whose stat says it is deflated
 * already, zip_close adds neither layer and copies the bytes. Memory: a few hundred bytes per
 * entry until the archive is closed, and for the entry being written (between libzip's OPEN
 * and CLOSE) zlib's deflate state and a 64 KiB read buffer; the file is read twice (its CRC,
 * then its data), and the second read must find the same bytes (else the write fails:
 * ZIP_ER_CHANGED). A failed READ fails every READ after it until the source is opened again. */
#ifndef GOBLIN_DEFLATED_ENTRY_H
#define GOBLIN_DEFLATED_ENTRY_H

#include <zip.h>

/* A source for zip_file_add of archive z reading the file at path (its size and CRC-32 are read
 * now); NULL when the file cannot be read or memory runs out. The source owns what it holds. */
zip_source_t *deflated_entry_source(zip_t *z, const char *path);

#endif
