/* log: leveled logging to stderr. Under systemd (JOURNAL_STREAM set) each line gets a
 * <N> syslog priority prefix so journald files it at the right level; journald adds
 * the time, so we do not. */
#ifndef GOBLIN_LOG_H
#define GOBLIN_LOG_H

#include <stdbool.h>

typedef enum { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG } log_level;

void log_set_level(log_level l);
/* Whether a message of level l would be written. */
bool log_enabled(log_level l);
bool log_level_parse(const char *s, log_level *out);
void log_msg(log_level l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
