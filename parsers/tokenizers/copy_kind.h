/* copy_kind: which way a memory copy went, from the text a profiler names it with.
 *
 * Every format and analysis that reads a direction from a name (rocprofv3 CSV Direction and
 * JSON/rocpd operation names, legacy rocprof COPY rows, nsys and nvprof "[CUDA memcpy ...]",
 * torch "Memcpy HtoD", stats rows) calls this one function, so a spelling one profiler uses
 * is understood wherever it appears. */
#ifndef GOBLIN_COPY_KIND_H
#define GOBLIN_COPY_KIND_H

#include <stddef.h>

#include "parsers/record.h"

/* The direction name[0..len) spells: HtoD, HostToDevice, Host-to-Device, H2D,
 * (MEMORY_COPY_)HOST_TO_DEVICE and the same for DtoH, DtoD, PtoP (also PeerToPeer,
 * Peer-to-Peer, PEER_TO_PEER, and a bare "Peer"/"PEER" as in hipMemcpyPeer) and HtoH,
 * anywhere in the text (case as listed). COPY_UNKNOWN when it spells none. name may be
 * NULL (len 0). */
copy_kind copy_kind_of_name(const char *name, size_t len);

#endif
