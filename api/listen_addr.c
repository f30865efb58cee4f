/* listen_addr: parsing and classifying the listen address. */
#include "api/listen_addr.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
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

bool listen_addr_sockaddr_loopback(const struct sockaddr *sa) {
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

bool listen_addr_is_loopback(const char *host) {
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | AI_PASSIVE}, *ai = NULL;
    if (getaddrinfo(host, "0", &hints, &ai) != 0 || !ai) return false;
    bool loop = listen_addr_sockaddr_loopback(ai->ai_addr);    /* api_start binds the first answer */
    freeaddrinfo(ai);
    return loop;
}
