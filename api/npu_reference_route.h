/* npu_reference_route: GET /runs/<id>/npu_reference.zip (npu_reference_route.c). Internal to api/. */
#ifndef GOBLIN_NPU_REFERENCE_ROUTE_H
#define GOBLIN_NPU_REFERENCE_ROUTE_H

#include "api/routes.h"

/* The run's msprof operators as reference CSVs, one per operator type, in a zip streamed
 * from a body stream's thread: 404 for an unknown run, 410 when its directory is gone, 503
 * when too many streams run. */
enum MHD_Result route_npu_reference_zip(api *a, struct MHD_Connection *c, const char *id);

#endif
