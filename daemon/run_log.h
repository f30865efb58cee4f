/* run_log: one info line per run outcome — complete, failed (with the reason), gone,
 * deleted — with the run id and the last parse time. Under systemd (JOURNAL_STREAM set) the
 * entry goes to journald through libsystemd with structured fields GOBLIND_RUN=,
 * GOBLIND_STATUS=, GOBLIND_PARSE_MS= and GOBLIND_REASON=, so `journalctl GOBLIND_RUN=<id>`
 * finds a run's history; elsewhere it is a plain stderr line. */
#ifndef GOBLIN_RUN_LOG_H
#define GOBLIN_RUN_LOG_H

#include "storage/store.h"

/* parse_ms < 0: not parsed; reason: why it failed, or NULL. */
void run_log_outcome(const char *id, run_status status, double parse_ms, const char *reason);
/* A run deleted from the database (why: "DELETE /runs/<id>", or the retention limit that
 * evicted it). Thread-safe. */
void run_log_deleted(const char *id, const char *why);

#endif
