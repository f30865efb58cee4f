/* run_files: which file in a run directory is which artefact.
 *
 * Data-driven: every registered format declares the names its files have
 * (artefact_parser.names), and the first pattern that matches wins for its kind. With
 * today's formats: trace.csv, else the first *kernel_trace.csv (by name) in the run
 * directory, else one level below it (rocprofv3 left to itself writes
 * <host>/<pid>_kernel_trace.csv); torch_profile.json, else .json.gz; amd_smi.csv.
 * Which format's content then reads the file is the reader's sniff (parser_for). */
#ifndef GOBLIN_RUN_FILES_H
#define GOBLIN_RUN_FILES_H

#include "parsers/artefact.h"

typedef struct run_files {
    char *path[ARTEFACT_KIND_COUNT];   /* always set: the expected path when nothing was found */
    const char *found_by[ARTEFACT_KIND_COUNT]; /* the name pattern that matched (static), NULL when none did */
} run_files;

/* The entry names (all but "." and "..", hidden ones too) of the directory rel below the run
 * directory ("" for the run directory itself) as a walk already listed them, or NULL when that
 * walk did not list it (the directory is then read here). */
typedef char *const *(*run_files_names_fn)(void *user, const char *rel, size_t *n);

/* Chooses the files from the listings names() gives (core/run_inventory's walk: no directory
 * is listed twice); names NULL: every directory is read here. false only on allocation failure. */
bool run_files_choose(const char *run_dir, run_files_names_fn names, void *user, run_files *out);
/* run_files_choose(run_dir, NULL, NULL, out). false only on allocation failure. */
bool run_files_find(const char *run_dir, run_files *out);
void run_files_free(run_files *f);
const char *artefact_kind_name(artefact_kind k);     /* "kernel trace", ... */
/* A run's id is its directory name: [A-Za-z0-9._-]{1,128}, and not "." or "..". */
bool run_id_valid(const char *id);

#endif
