/* journald: structured entries through libsystemd's sd_journal_send (kept apart from
 * daemon/log.h: <syslog.h>, which sd-journal.h includes, defines LOG_INFO and friends). */
#ifndef GOBLIN_JOURNALD_H
#define GOBLIN_JOURNALD_H

#include <stdbool.h>

/* Sends one info-priority entry with MESSAGE=msg and GOBLIND_RUN=, GOBLIND_STATUS=,
 * GOBLIND_PARSE_MS=, GOBLIND_REASON= fields. false when journald did not take it. */
bool journald_run_entry(const char *msg, const char *run, const char *status, const char *parse_ms, const char *reason);

#endif
