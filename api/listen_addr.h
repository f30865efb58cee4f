/* listen_addr: the HOST:PORT form of goblind's listen address, and whether it is loopback. */
#ifndef GOBLIN_LISTEN_ADDR_H
#define GOBLIN_LISTEN_ADDR_H

#include <stdbool.h>

/* Splits "HOST:PORT" or "[V6]:PORT" (port 0..65535). host must hold 256 bytes. */
bool listen_addr_split(const char *listen, char *host, int *port);
struct sockaddr;

/* True when the address is loopback: 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104. */
bool listen_addr_sockaddr_loopback(const struct sockaddr *sa);
/* True when host, resolved as the daemon resolves it to bind (getaddrinfo, passive; the first
 * answer is the one bound), is a loopback address. Decided from the address, never from the
 * spelling: a name that starts with "127." may resolve to 0.0.0.0. False when it does not resolve. */
bool listen_addr_is_loopback(const char *host);

#endif
