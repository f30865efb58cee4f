/* artefact_open: where a run directory's file may be opened from, and how (see
 * artefact_reader.h: artefact_identity, artefact_open), shared by every reader. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/artefact_reader.h"

/* The resolved path when path lies inside root_path, NULL otherwise (caller frees), with errno
 * ENOMEM when memory ran out (realpath's copies) rather than the path being outside.
 * quick: run directories and their sub-directories are only taken when lstat() says they
 * are real directories, so for change polling a non-symlink last component is inside as it
 * is. The open itself always resolves fully (a directory swapped for a link after
 * discovery must not lead out either). */
static char *resolve_inside(const char *path, const char *root_path, bool quick) {
    struct stat lst;
    if (quick && lstat(path, &lst) == 0 && !S_ISLNK(lst.st_mode)) return strdup(path);   /* NULL: ENOMEM */
    char *real = realpath(path, NULL);
    bool oom = !real && errno == ENOMEM;
    char *root = realpath(root_path, NULL);
    oom = oom || (!root && errno == ENOMEM);
    size_t rl = root ? strlen(root) : 0;
    bool inside = real && root && !strncmp(real, root, rl) && real[rl] == '/';
    free(root);
    if (!inside) {
        free(real);
        errno = oom ? ENOMEM : EXDEV;
        return NULL;
    }
    return real;
}

bool artefact_identity(const char *path, const char *confine_root, uint64_t *size, int64_t *mtime_ns, uint64_t *inode) {
    struct stat st;
    if (stat(path, &st) != 0) return false;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return false;
    }
    if (confine_root) {
        char *real = resolve_inside(path, confine_root, true);
        if (!real) return false;
        free(real);
    }
    *size = (uint64_t)st.st_size;
    *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    *inode = (uint64_t)st.st_ino;
    return true;
}

/* 1 when the file open as fd lies inside root (its path as the kernel names the open file:
 * whatever was swapped along the path, this is what was opened), 0 when it does not, -1 when
 * memory ran out resolving the root. */
static int fd_inside(int fd, const char *root_path) {
    char link[64], real[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, real, sizeof real - 1);
    char *root = realpath(root_path, NULL);
    if (!root && errno == ENOMEM) return -1;
    bool inside = false;
    if (n > 0 && root) {
        real[n] = 0;
        size_t rl = strlen(root);
        inside = !strncmp(real, root, rl) && real[rl] == '/';
    }
    free(root);
    return inside;
}

int artefact_open(const char *path, const char *confine_root, struct stat *st) {
    char *real = NULL;
    if (confine_root && !(real = resolve_inside(path, confine_root, false))) return errno == ENOMEM ? -1 : -2;
    /* O_NONBLOCK: a FIFO swapped in after a check must not block the open. O_NOFOLLOW on the
     * resolved path: a symlink swapped in after realpath() is not followed either; a
     * directory swapped for a link is caught by fd_inside() on the file actually opened. */
    int fd = real ? open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
                  : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    free(real);
    if (fd < 0) return -1;
    int inside = confine_root ? fd_inside(fd, confine_root) : 1;
    if (inside <= 0) {
        close(fd);
        if (inside < 0) errno = ENOMEM;   /* close() may have changed it */
        return inside < 0 ? -1 : -2;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) { close(fd); errno = EINVAL; return -1; }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}
