/* sqlite_mem: SQLite's allocator wrapped to count failures per thread (see sqlite_mem.h). */
#include "storage/sqlite_mem.h"

#include <sqlite3.h>

/* SQLite's own allocator and whether ours is installed: written once, by the constructor
 * before main, and only read after. */
static sqlite3_mem_methods sqlite_default_mem;
static bool sqlite_mem_installed;

/* This thread's failed SQLite allocations: a count only its own thread reads. */
static _Thread_local unsigned long sqlite_mem_failed;

static void *counting_malloc(int n) {
    void *p = sqlite_default_mem.xMalloc(n);
    if (!p) sqlite_mem_failed++;
    return p;
}

static void *counting_realloc(void *p, int n) {
    void *q = sqlite_default_mem.xRealloc(p, n);
    if (!q && n > 0) sqlite_mem_failed++;
    return q;
}

/* Installs the counting allocator before main, before any SQLite use of the process
 * (sqlite3_config must come before sqlite3_initialize). */
__attribute__((constructor)) static void sqlite_mem_install(void) {
    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_default_mem) != SQLITE_OK) return;
    sqlite3_mem_methods m = sqlite_default_mem;
    m.xMalloc = counting_malloc;
    m.xRealloc = counting_realloc;
    sqlite_mem_installed = sqlite3_config(SQLITE_CONFIG_MALLOC, &m) == SQLITE_OK;
}

unsigned long sqlite_mem_failures(void) { return sqlite_mem_failed; }
bool sqlite_mem_counting(void) { return sqlite_mem_installed; }
