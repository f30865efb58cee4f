/* retention: forgetting runs — DELETE /runs/<id>, and the retention policy (at most N runs, at
 * most D days old, the database under db_max_size_mb) that evicts the oldest finished runs.
 *
 * A forgotten run's row, artefacts, kernels and metrics are deleted; its artefact signature is
 * kept in forgotten_runs / forgotten_artefacts so its directory is not ingested again while its
 * files stay as they were. Two triggers make that hold whatever the tracker does: a status
 * write (an INSERT with ingest_count 0) for a forgotten id is ignored, and a real ingest
 * (ingest_count > 0) brings the run back and clears its forgotten entry. */
#ifndef GOBLIN_RETENTION_H
#define GOBLIN_RETENTION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storage/store.h"

typedef struct retention_policy {
    int max_runs;          /* 0: no limit */
    int max_age_days;      /* 0: no limit; by updated_at */
    int max_size_mb;       /* 0: no limit; evict while the used pages exceed 90% of it, down to 80% */
    int64_t room_bytes;    /* > 0: an ingest was refused on the size limit: evict the oldest finished
                              runs, even below 90%, until this many bytes are free under max_size_mb
                              (the caller keeps it within 90% of the limit) */
    const atomic_bool *cancel;   /* NULL, or set when the pass is to end after the eviction under
                                    way (shutdown): a pass may have thousands to do */
} retention_policy;

/* Creates the retention tables and triggers when missing (idempotent). 0 on success. */
int retention_init(store *s);

/* Forgets one run (why: for the log and the table). *found false when the id is unknown.
 * Thread-safe. 0 on success, -1 on a database error (store_last_error). */
int retention_forget(store *s, const char *id, int64_t now_ms, const char *why, bool *found);

/* The artefact signature a forgotten run had; false when id is not forgotten. */
bool retention_forgotten_sig(store_reader *r, const char *id, run_sig *sig);

/* For store_ingest, inside its transaction on the write connection: *dropped = true when id
 * was forgotten at or after since_ms (a parse that began reading before a DELETE must not
 * bring the run back); the forgotten signature then becomes doc's artefacts (doc may be NULL).
 * A database without the retention tables forgets nothing. SQLite result code. */
int retention_drop_if_forgotten(sqlite3 *db, const char *id, int64_t since_ms, const ingest_doc *doc, bool *dropped);

/* The room retention makes for ingests refused on db_max_size_mb, per run (the last few runs
 * refused): a refused run lacks about `need` bytes (store_refusal), and the oldest finished
 * runs go until that much is free under the limit, once per run (again once it was stored:
 * retention_room_landed). Refused again within RETENTION_ROOM_FORGET_MS of its last refusal,
 * the run does not fit in what was made, and a request beyond 90 % of the limit is none (the
 * run does not fit at all): either way no run goes for it, and its retries cannot empty the
 * database. */
#define RETENTION_ROOM_RUNS 8
#define RETENTION_ROOM_FORGET_MS 600000
typedef struct retention_room {
    struct { char id[256]; int64_t last_ms; bool warned; } run[RETENTION_ROOM_RUNS];
} retention_room;

typedef enum { ROOM_MADE, ROOM_AGAIN, ROOM_TOO_LARGE } retention_room_answer;

/* The bytes to free for run_id refused at now_ms that lacks about need bytes (> 0: room is to
 * be made), or 0 with *why ROOM_AGAIN (room was made for it already) or ROOM_TOO_LARGE;
 * *first_warning is true the first time a run gets no room (for one log line). */
int64_t retention_room_for(retention_room *r, const char *run_id, uint64_t need, int max_size_mb, int64_t now_ms,
                           retention_room_answer *why, bool *first_warning);

/* run_id was stored after a refusal: its next refusal gets room again. */
void retention_room_landed(retention_room *r, const char *run_id);

typedef void (*retention_evicted_fn)(void *user, const char *id, const char *why);

/* Evicts finished runs (complete, failed, gone) beyond the policy, oldest first, one
 * transaction each, calling evicted() after each, until none is beyond it or p->cancel is
 * set. Returns how many, or -1 on a database error. */
int retention_enforce(store *s, const retention_policy *p, int64_t now_ms, retention_evicted_fn evicted, void *user);

#endif
