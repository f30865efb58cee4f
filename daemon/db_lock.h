/* db_lock: one goblind per database. Two daemons on one database would each mark the
 * other's runs `gone` and overwrite them, so `goblind serve` holds an exclusive POSIX lock
 * on a lock file beside the database (`<db>.lock`) for its whole life. The file also holds
 * the holder's pid, so a refused start can name it. The kernel drops the lock when the
 * process dies (kill -9 included): a stale file never blocks a restart. */
#ifndef GOBLIN_DB_LOCK_H
#define GOBLIN_DB_LOCK_H

#include <stddef.h>

/* Takes the lock beside db_path. Returns the open descriptor (keep it open; closing it
 * releases the lock), or -1 with a message in err naming the holder or the error. */
int db_lock_take(const char *db_path, char *err, size_t errlen);

#endif
