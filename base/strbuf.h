/* strbuf: a growable byte buffer, the one every parser, the JSON writer and the
 * renderers append to. Allocation failure is reported by a false return, never by an
 * abort, so a hostile file can only cost a warning; it is also remembered (`failed`), so
 * that a writer which appends without looking at each return (the JSON writer) learns at
 * strbuf_terminate that its text lost bytes. */
#ifndef GOBLIN_STRBUF_H
#define GOBLIN_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf {
    char *data;
    size_t len, cap;
    bool failed;      /* an append or terminate failed since the last strbuf_free: bytes are missing */
} strbuf;

/* Frees the bytes and leaves an empty buffer (reusable). */
void strbuf_free(strbuf *b);
/* Appends n bytes of p (p may be NULL when n is 0). false on allocation failure. */
bool strbuf_append(strbuf *b, const void *p, size_t n);
/* Appends one byte. false on allocation failure. */
bool strbuf_putc(strbuf *b, char c);
/* Guarantees data[len] == '\0' (data is never NULL afterwards unless allocation failed).
 * false when that allocation fails or an earlier one did (b->failed): the text is incomplete. */
bool strbuf_terminate(strbuf *b);

#endif
