/* amd_smi_csv: amd-smi / rocm-smi telemetry CSV -> telemetry_summary. */
#ifndef GOBLIN_AMD_SMI_CSV_H
#define GOBLIN_AMD_SMI_CSV_H

#include "parsers/artefact.h"

extern const artefact_parser amd_smi_csv_parser;

#endif
