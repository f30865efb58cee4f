/* secret_file: the token and TLS files, checked before they are read (see secret_file.h). */
#include "api/secret_file.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NULL with the reason in err when st is not acceptable for kind. */
static bool checks_pass(const char *setting, const char *path, secret_kind kind, const struct stat *st, size_t max,
                        char *err, size_t errlen, char *warn, size_t warnlen) {
    unsigned mode = (unsigned)(st->st_mode & 07777);
    if (!S_ISREG(st->st_mode)) {
        snprintf(err, errlen, "%s %s is not a regular file (a FIFO, device or directory); give the file itself",
                 setting, path);
        return false;
    }
    if (st->st_uid != geteuid() && st->st_uid != 0) {
        snprintf(err, errlen, "%s %s is owned by uid %u, not by goblind's user (uid %u) or root; chown it", setting,
                 path, (unsigned)st->st_uid, (unsigned)geteuid());
        return false;
    }
    if (st->st_mode & S_IWOTH) {
        snprintf(err, errlen, "%s %s is writable by every user (mode %04o); chmod o-w it", setting, path, mode);
        return false;
    }
    if (kind == SECRET_PRIVATE_KEY && (st->st_mode & (S_IRGRP | S_IWGRP | S_IROTH))) {
        snprintf(err, errlen, "%s %s is %s (mode %04o); a private key must be chmod 600", setting, path,
                 st->st_mode & S_IROTH ? "readable by every user" : "readable or writable by its group", mode);
        return false;
    }
    if (kind == SECRET_TOKEN && (st->st_mode & S_IROTH)) {
        snprintf(err, errlen, "%s %s is readable by every user (mode %04o); chmod 600 it", setting, path, mode);
        return false;
    }
    if (kind == SECRET_TOKEN && (st->st_mode & (S_IRGRP | S_IWGRP)) && warn)
        snprintf(warn, warnlen, "%s %s is readable by its group (mode %04o); chmod 600 it", setting, path, mode);
    if (st->st_size == 0 || (uint64_t)st->st_size > max) {
        snprintf(err, errlen, "%s %s is %s", setting, path, st->st_size == 0 ? "empty" : "too large");
        return false;
    }
    return true;
}

char *secret_file_read(const char *setting, const char *path, secret_kind kind, size_t max, char *err, size_t errlen,
                       char *warn, size_t warnlen) {
    assert(setting && path && err && errlen);
    if (warn && warnlen) warn[0] = '\0';
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (kind == SECRET_PUBLIC ? 0 : O_NOFOLLOW);
    int fd = open(path, flags);
    if (fd < 0) {
        if (errno == ELOOP && kind != SECRET_PUBLIC)
            snprintf(err, errlen, "%s %s is a symbolic link; name the file itself", setting, path);
        else snprintf(err, errlen, "%s %s: %s", setting, path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0) snprintf(err, errlen, "%s %s: %s", setting, path, strerror(errno));
    else if (checks_pass(setting, path, kind, &st, max, err, errlen, warn, warnlen) && !(buf = malloc((size_t)st.st_size + 1)))
        snprintf(err, errlen, "%s %s: out of memory", setting, path);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(err, errlen, "%s %s: %s", setting, path, n < 0 ? strerror(errno) : "shorter than its size (changing?)");
            free(buf);
            buf = NULL;
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    if (buf) buf[got] = '\0';
    return buf;
}
