/* db_lock: the exclusive lock file beside the database (see db_lock.h). */
#include "daemon/db_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int db_lock_take(const char *db_path, char *err, size_t errlen) {
    char *path = NULL;
    if (asprintf(&path, "%s.lock", db_path) < 0) { snprintf(err, errlen, "out of memory"); return -1; }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "database %s: lock file %s: %s", db_path, path, strerror(errno));
        free(path);
        return -1;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        int e = errno;
        struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        long pid = (e == EACCES || e == EAGAIN) && fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK
                 ? (long)who.l_pid : 0;
        if (pid > 0)
            snprintf(err, errlen, "database %s is in use by another goblind (pid %ld holds %s); refusing to start",
                     db_path, pid, path);
        else if (e == EACCES || e == EAGAIN)
            snprintf(err, errlen, "database %s is in use by another process (it holds %s); refusing to start",
                     db_path, path);
        else
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(e));
        close(fd);
        free(path);
        return -1;
    }
    char pid[32];                                /* for people: `cat goblind.db.lock` */
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) { /* informative only */ }
    free(path);
    return fd;
}
