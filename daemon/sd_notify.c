/* sd_notify: one datagram per notification to $NOTIFY_SOCKET. */
#include "daemon/sd_notify.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

bool sd_notify_send(const char *state) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !*path || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) return false;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(path);
    memcpy(sa.sun_path, path, n);
    if (sa.sun_path[0] == '@') sa.sun_path[0] = '\0';          /* abstract namespace */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    ssize_t r = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
    close(fd);
    return r == (ssize_t)strlen(state);
}

uint64_t sd_watchdog_usec(void) {
    const char *us = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
    if (!us) return 0;
    if (pid && strtol(pid, NULL, 10) != (long)getpid()) return 0;   /* meant for another process */
    return strtoull(us, NULL, 10);
}
