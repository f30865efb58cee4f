/* log: stderr logging with levels. */
#include "daemon/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Atomic int current = LOG_INFO;     /* SIGHUP changes it while other threads log */
static const char *const NAMES[] = {"error", "warn", "info", "debug"};
static const int SYSLOG_PRIO[] = {3, 4, 6, 7};
_Static_assert(sizeof NAMES / sizeof *NAMES == LOG_DEBUG + 1, "NAMES: one per log level");
_Static_assert(sizeof SYSLOG_PRIO / sizeof *SYSLOG_PRIO == LOG_DEBUG + 1, "SYSLOG_PRIO: one per log level");

void log_set_level(log_level l) { atomic_store(&current, (int)l); }

/* The process's stderr before log_file took it over: process-wide like stderr itself, and only
 * the loop thread touches it (startup and SIGHUP, through log_reopen). */
static int original_stderr = -1;

bool log_reopen(const char *path, char *err, size_t errlen) {
    if (!path) {
        if (original_stderr >= 0) dup2(original_stderr, STDERR_FILENO);
        return true;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf(err, errlen, "log_file %s: %s", path, strerror(errno));
        return false;
    }
    if (original_stderr < 0) original_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    bool ok = dup2(fd, STDERR_FILENO) >= 0;
    if (!ok) snprintf(err, errlen, "log_file %s: %s", path, strerror(errno));
    close(fd);
    return ok;
}
bool log_enabled(log_level l) { return (int)l <= atomic_load(&current); }

bool log_level_parse(const char *s, log_level *out) {
    for (int i = 0; i <= LOG_DEBUG; i++)
        if (!strcmp(s, NAMES[i])) { *out = (log_level)i; return true; }
    return false;
}

void log_msg(log_level l, const char *fmt, ...) {
    if ((int)l > atomic_load(&current)) return;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* Control characters (a directory named "x\ngoblind error: ...") would forge lines:
     * written as \xNN. UTF-8 and other bytes pass through. */
    char safe[sizeof line * 4];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) o += (size_t)snprintf(safe + o, sizeof safe - o, "\\x%02x", *p);
        else safe[o++] = (char)*p;
    }
    safe[o] = '\0';
    if (getenv("JOURNAL_STREAM")) fprintf(stderr, "<%d>%s: %s\n", SYSLOG_PRIO[l], NAMES[l], safe);
    else fprintf(stderr, "goblind %s: %s\n", NAMES[l], safe);
}
