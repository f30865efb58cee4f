/* log: stderr logging with levels. */
#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static log_level current = LOG_INFO;
static const char *const NAMES[] = {"error", "warn", "info", "debug"};
static const int SYSLOG_PRIO[] = {3, 4, 6, 7};

void log_set_level(log_level l) { current = l; }
bool log_enabled(log_level l) { return l <= current; }

bool log_level_parse(const char *s, log_level *out) {
    for (int i = 0; i <= LOG_DEBUG; i++)
        if (!strcmp(s, NAMES[i])) { *out = (log_level)i; return true; }
    return false;
}

void log_msg(log_level l, const char *fmt, ...) {
    if (l > current) return;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (getenv("JOURNAL_STREAM")) fprintf(stderr, "<%d>%s: %s\n", SYSLOG_PRIO[l], NAMES[l], line);
    else fprintf(stderr, "goblind %s: %s\n", NAMES[l], line);
}
