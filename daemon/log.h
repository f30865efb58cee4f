/* log: leveled logging to stderr. Under systemd (JOURNAL_STREAM set) each line gets a
 * <N> syslog priority prefix so journald files it at the right level; journald adds
 * the time, so we do not. */
#ifndef GOBLIN_LOG_H
#define GOBLIN_LOG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG } log_level;

/* Lines below level l are left out from now on (any thread). */
void log_set_level(log_level l);
/* Sends the log to `path` (appended; created 0640) instead of the stderr it started with, or
 * back to that stderr when path is NULL. Called again with the same path it reopens the file:
 * SIGHUP after logrotate moved it. The switch is one dup2() of fd 2, so lines other threads
 * are writing meanwhile go whole to one file or the other. false with err when it cannot open. */
bool log_reopen(const char *path, char *err, size_t errlen);
/* Whether a message of level l would be written. */
bool log_enabled(log_level l);
bool log_level_parse(const char *s, log_level *out);
void log_msg(log_level l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
