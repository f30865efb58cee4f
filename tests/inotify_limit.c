/* Test shim (LD_PRELOAD): inotify_add_watch fails with ENOSPC after
 * GOBLIND_TEST_WATCH_LIMIT successful calls, as when fs.inotify.max_user_watches is
 * exhausted on a busy node. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int inotify_add_watch(int fd, const char *path, uint32_t mask) {
    static int calls;
    static int (*real)(int, const char *, uint32_t);
    const char *lim = getenv("GOBLIND_TEST_WATCH_LIMIT");
    if (lim && calls >= atoi(lim)) {
        errno = ENOSPC;
        return -1;
    }
    if (!real) real = (int (*)(int, const char *, uint32_t))dlsym(RTLD_NEXT, "inotify_add_watch");
    calls++;
    return real(fd, path, mask);
}
