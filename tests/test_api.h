/* test_api: the HTTP API started in a test's process on 127.0.0.1 (an ephemeral port), over a
 * store the test opened. Tests only. */
#ifndef GOBLIN_TEST_API_H
#define GOBLIN_TEST_API_H

#include "api/http_api.h"
#include "storage/store.h"

/* Starts the API on st, ready, with the tests' usual limits (16 connections, 16 KiB requests,
 * 10 runs in /metrics) and connection_timeout_s (0: none); counters must outlive it. Asserts
 * it started. */
api *tu_api_start(store *st, goblind_counters *counters, int connection_timeout_s);

#endif
