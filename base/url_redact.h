/* url_redact: a URL as it may be logged — credentials out.
 *
 * A webhook or client URL may carry secrets in its userinfo (http://user:pass@host/) or in its
 * query (?token=...). Log lines show the URL with the userinfo replaced by "***", every query
 * value (and a bare query item) by "***", and a fragment by "***"; scheme, host, port and path
 * stay, so the line still says which receiver it is. */
#ifndef GOBLIN_URL_REDACT_H
#define GOBLIN_URL_REDACT_H

#include <stddef.h>

/* Writes the redacted form of url into out (always NUL-terminated, cut to n - 1 bytes);
 * returns out. */
char *url_redact(const char *url, char *out, size_t n);

#endif
