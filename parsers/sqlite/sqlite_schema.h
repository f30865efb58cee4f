/* sqlite_schema: what tables and views an SQLite file holds, for the sniff_file() of the
 * SQLite formats (rocpd's `<pid>_results.db` and legacy rocprof's `results.db` are both
 * SQLite: their first bytes are the same, their schemas are not). */
#ifndef GOBLIN_SQLITE_SCHEMA_H
#define GOBLIN_SQLITE_SCHEMA_H

/* Reads the SQLite file open in fd (a regular file the caller opened with its checks, left
 * open; read with sqlite_guard's bounds) and counts the tables and views named in names[]
 * (NULL-terminated, exact, case-insensitive) and, into *prefixed, those whose name starts
 * with prefix. -1 when the file cannot be read as SQLite, SNIFF_OUT_OF_MEMORY
 * (parsers/artefact.h) when memory ran out. */
int sqlite_schema_match(int fd, const char *const *names, const char *prefix, int *prefixed);

#endif
