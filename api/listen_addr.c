/* listen_addr: parsing and classifying the listen address. */
#include "api/listen_addr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool listen_addr_split(const char *listen, char *host, int *port) {
    const char *colon = strrchr(listen, ':');
    if (!colon || colon == listen) return false;
    size_t hl = (size_t)(colon - listen);
    if (listen[0] == '[') {                         /* [::1]:9477 */
        if (hl < 3 || listen[hl - 1] != ']') return false;
        listen++;
        hl -= 2;
    }
    if (hl >= 256) return false;
    memcpy(host, listen, hl);
    host[hl] = '\0';
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || p < 0 || p > 65535) return false;
    *port = (int)p;
    return true;
}

bool listen_addr_is_loopback(const char *host) {
    return !strncmp(host, "127.", 4) || !strcmp(host, "::1") || !strcmp(host, "localhost");
}
