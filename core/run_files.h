/* run_files: which file in a run directory is which artefact.
 *
 * goblin_runner writes trace.csv, torch_profile.json (or .json.gz) and amd_smi.csv;
 * rocprofv3 left to itself writes <host>/<pid>_kernel_trace.csv, so when trace.csv is
 * absent the kernel trace is the first *kernel_trace.csv (by name) in the run
 * directory or one level below it. */
#ifndef GOBLIN_RUN_FILES_H
#define GOBLIN_RUN_FILES_H

#include "parsers/artefact.h"

typedef struct run_files {
    char *path[ARTEFACT_KIND_COUNT];   /* always set: the expected path when nothing was found */
} run_files;

/* false only on allocation failure. */
bool run_files_find(const char *run_dir, run_files *out);
void run_files_free(run_files *f);
const char *artefact_kind_name(artefact_kind k);     /* "kernel trace", ... */
/* A run's id is its directory name: [A-Za-z0-9._-]{1,128}, and not "." or "..". */
bool run_id_valid(const char *id);

#endif
