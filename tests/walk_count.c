/* Test shim (LD_PRELOAD): logs what a process does to one run directory, so a test can count
 * how often an ingest walks it, opens each of its files and starts a gzip inflation, and on
 * which thread. GOBLIND_TEST_WALK_DIR names the directory (as the process spells it),
 * GOBLIND_TEST_WALK_LOG the log file; one line per event:
 *
 *   opendir <thread> <path>    a directory at or below GOBLIND_TEST_WALK_DIR listed
 *   open <thread> <path>       a file below it opened
 *   inflate <thread>           a zlib inflation started (any file: the tests' runs are the only
 *                              gzip the process reads)
 *
 * <thread> is "main" for the process's first thread (the daemon's event loop runs there) and
 * "other" for any other. Nothing is changed in what the calls do. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

/* Appends one line to the log (raw syscalls: the shim's own I/O is not counted). */
static void walk_log(const char *what, const char *path) {
    const char *log = getenv("GOBLIND_TEST_WALK_LOG");
    if (!log) return;
    int saved = errno;
    char line[4352];
    const char *th = syscall(SYS_gettid) == getpid() ? "main" : "other";
    int n = snprintf(line, sizeof line, "%s %s%s%s\n", what, th, path ? " " : "", path ? path : "");
    int fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (syscall(SYS_write, fd, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : 0) < 0) {}
        syscall(SYS_close, fd);
    }
    errno = saved;
}

/* path is GOBLIND_TEST_WALK_DIR or below it (strictly below when below_only). */
static bool watched(const char *path, bool below_only) {
    const char *dir = getenv("GOBLIND_TEST_WALK_DIR");
    if (!dir || !path) return false;
    size_t n = strlen(dir);
    if (strncmp(path, dir, n)) return false;
    return path[n] == '/' || (!below_only && path[n] == 0);
}

DIR *opendir(const char *name) {
    static DIR *(*real)(const char *);
    if (!real) real = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
    if (watched(name, false)) walk_log("opendir", name);
    return real(name);
}

#define WRAP_OPEN(fn)                                                              \
    int fn(const char *path, int flags, ...) {                                     \
        static int (*real)(const char *, int, ...);                                \
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #fn);  \
        mode_t mode = 0;                                                           \
        if (flags & O_CREAT) {                                                     \
            va_list ap;                                                            \
            va_start(ap, flags);                                                   \
            mode = (mode_t)va_arg(ap, int);                                        \
            va_end(ap);                                                            \
        }                                                                          \
        if (!(flags & O_DIRECTORY) && watched(path, true)) walk_log("open", path); \
        return real(path, flags, mode);                                            \
    }
WRAP_OPEN(open)
WRAP_OPEN(open64)

#define WRAP_OPENAT(fn)                                                                  \
    int fn(int dirfd, const char *path, int flags, ...) {                               \
        static int (*real)(int, const char *, int, ...);                                 \
        if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #fn);   \
        mode_t mode = 0;                                                                 \
        if (flags & O_CREAT) {                                                           \
            va_list ap;                                                                  \
            va_start(ap, flags);                                                         \
            mode = (mode_t)va_arg(ap, int);                                              \
            va_end(ap);                                                                  \
        }                                                                                \
        if (!(flags & O_DIRECTORY) && watched(path, true)) walk_log("open", path);       \
        return real(dirfd, path, flags, mode);                                           \
    }
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

int inflateInit2_(z_streamp strm, int window_bits, const char *version, int stream_size) {
    static int (*real)(z_streamp, int, const char *, int);
    if (!real) real = (int (*)(z_streamp, int, const char *, int))dlsym(RTLD_NEXT, "inflateInit2_");
    walk_log("inflate", NULL);
    return real(strm, window_bits, version, stream_size);
}
