/* listen_addr: the HOST:PORT form of goblind's listen address. */
#ifndef GOBLIN_LISTEN_ADDR_H
#define GOBLIN_LISTEN_ADDR_H

#include <stdbool.h>

/* Splits "HOST:PORT" or "[V6]:PORT" (port 0..65535). host must hold 256 bytes. */
bool listen_addr_split(const char *listen, char *host, int *port);
/* True when host is a loopback address (127.0.0.0/8, ::1, localhost). */
bool listen_addr_is_loopback(const char *host);

#endif
