/* Test shim (LD_PRELOAD): while the file named by GOBLIND_TEST_FAULT_FILE exists, writes and
 * syncs to files whose path contains ".db" fail with the errno it names ("EROFS" or "ENOSPC"),
 * as on a file system remounted read-only or full. Removing the file clears the fault. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int fault_for(int fd) {
    const char *flag = getenv("GOBLIND_TEST_FAULT_FILE");
    if (!flag) return 0;
    int saved = errno;
    char mode[16] = "";
    int ffd = open(flag, O_RDONLY | O_CLOEXEC);
    if (ffd < 0) { errno = saved; return 0; }
    ssize_t n = read(ffd, mode, sizeof mode - 1);
    close(ffd);
    mode[n > 0 ? n : 0] = '\0';
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t tl = readlink(link, target, sizeof target - 1);
    errno = saved;
    if (tl <= 0) return 0;
    target[tl] = '\0';
    if (!strstr(target, ".db")) return 0;
    return !strncmp(mode, "ENOSPC", 6) ? ENOSPC : EROFS;
}

#define WRAP(ret, name, params, args, fd)                                      \
    ret name params {                                                         \
        static ret(*real) params;                                             \
        int e = fault_for(fd);                                                \
        if (e) { errno = e; return (ret)-1; }                                 \
        if (!real) real = (ret(*) params)dlsym(RTLD_NEXT, #name);             \
        return real args;                                                     \
    }

WRAP(ssize_t, pwrite64, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o), fd)
WRAP(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o), fd)
WRAP(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n), fd)
WRAP(int, fsync, (int fd), (fd), fd)
WRAP(int, fdatasync, (int fd), (fd), fd)
WRAP(int, ftruncate, (int fd, off_t len), (fd, len), fd)
WRAP(int, ftruncate64, (int fd, off_t len), (fd, len), fd)
