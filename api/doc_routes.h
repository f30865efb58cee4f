/* doc_routes: GET /runs/<id>/analysis (the stored analysis document) and GET /runs/<id>/report.md
 * (the stored Markdown report). Internal to api/. */
#ifndef GOBLIN_DOC_ROUTES_H
#define GOBLIN_DOC_ROUTES_H

#include "api/routes.h"
#include "storage/run_analysis.h"

/* Answers with the run's stored document of `kind` exactly as stored, with the same status
 * codes, ETag / If-None-Match and ?wait= long poll as /runs/<id>/metrics (docs/API.md). */
enum MHD_Result route_stored_doc(api *a, api_request *req, struct MHD_Connection *c, const char *id, stored_doc_kind kind);

#endif
