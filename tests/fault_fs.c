/* Test shim (LD_PRELOAD): while the file named by GOBLIND_TEST_FAULT_FILE exists, writes and
 * syncs to files whose path contains ".db" fail with the errno it names ("EROFS" or "ENOSPC"),
 * as on a file system remounted read-only or full. Removing the file clears the fault.
 * GOBLIND_TEST_READ_FAULT (below) makes reads of one artefact fail from a given byte, and
 * GOBLIND_TEST_SLOW_READ makes them slow (a parse that is in flight for as long as a test needs). */
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

/* GOBLIND_TEST_READ_FAULT="NAME@BYTE": reads of a file whose path ends in NAME that would
 * touch byte BYTE or a later one fail with EIO, as from a bad sector on a run's disk. */
static int read_fault(int fd, off_t at, size_t n) {
    const char *spec = getenv("GOBLIND_TEST_READ_FAULT");
    const char *sep = spec ? strrchr(spec, '@') : NULL;
    if (!sep || n == 0) return 0;
    int saved = errno;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t tl = readlink(link, target, sizeof target - 1);
    errno = saved;
    if (tl <= 0) return 0;
    target[tl] = '\0';
    size_t name_len = (size_t)(sep - spec);
    if ((size_t)tl < name_len || memcmp(target + tl - name_len, spec, name_len) != 0) return 0;
    return at + (off_t)n > (off_t)strtoll(sep + 1, NULL, 10) ? EIO : 0;
}

/* GOBLIND_TEST_SLOW_READ="NAME@MS": each read of a file whose path ends in NAME first sleeps
 * MS milliseconds. */
static void slow_read(int fd) {
    const char *spec = getenv("GOBLIND_TEST_SLOW_READ");
    const char *sep = spec ? strrchr(spec, '@') : NULL;
    if (!sep) return;
    int saved = errno;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t tl = readlink(link, target, sizeof target - 1);
    size_t name_len = (size_t)(sep - spec);
    if (tl > 0 && (size_t)tl >= name_len && memcmp(target + tl - name_len, spec, name_len) == 0)
        usleep((useconds_t)strtol(sep + 1, NULL, 10) * 1000);
    errno = saved;
}

#define WRAP_READ(name, params, args, fd, at, n)                              \
    ssize_t name params {                                                     \
        static ssize_t(*real) params;                                         \
        slow_read(fd);                                                        \
        int e = read_fault(fd, at, n);                                        \
        if (e) { errno = e; return -1; }                                      \
        if (!real) real = (ssize_t(*) params)dlsym(RTLD_NEXT, #name);         \
        return real args;                                                     \
    }

WRAP_READ(pread, (int fd, void *b, size_t n, off_t o), (fd, b, n, o), fd, o, n)
WRAP_READ(pread64, (int fd, void *b, size_t n, off_t o), (fd, b, n, o), fd, o, n)
WRAP_READ(read, (int fd, void *b, size_t n), (fd, b, n), fd, lseek(fd, 0, SEEK_CUR), n)
