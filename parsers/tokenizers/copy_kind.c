/* copy_kind: one table of the spellings profilers use for a copy's direction (see
 * copy_kind.h). A name is searched for each spelling in table order; the bare "Peer"/"PEER"
 * come last, so "MEMORY_COPY_PEER_TO_PEER" and "hipMemcpyPeer" are both peer copies while a
 * name that spells a host/device direction keeps it. */
#include "parsers/tokenizers/copy_kind.h"

#include <string.h>

static const struct {
    const char *word;
    copy_kind kind;
} SPELLINGS[] = {
    {"HOST_TO_DEVICE", COPY_HTOD},   {"HostToDevice", COPY_HTOD},     {"Host-to-Device", COPY_HTOD},
    {"HtoD", COPY_HTOD},             {"H2D", COPY_HTOD},
    {"DEVICE_TO_HOST", COPY_DTOH},   {"DeviceToHost", COPY_DTOH},     {"Device-to-Host", COPY_DTOH},
    {"DtoH", COPY_DTOH},             {"D2H", COPY_DTOH},
    {"DEVICE_TO_DEVICE", COPY_DTOD}, {"DeviceToDevice", COPY_DTOD},   {"Device-to-Device", COPY_DTOD},
    {"DtoD", COPY_DTOD},             {"D2D", COPY_DTOD},
    {"PEER_TO_PEER", COPY_PTOP},     {"PeerToPeer", COPY_PTOP},       {"Peer-to-Peer", COPY_PTOP},
    {"PtoP", COPY_PTOP},             {"P2P", COPY_PTOP},
    {"HOST_TO_HOST", COPY_HTOH},     {"HostToHost", COPY_HTOH},       {"Host-to-Host", COPY_HTOH},
    {"HtoH", COPY_HTOH},             {"H2H", COPY_HTOH},
    {"PEER", COPY_PTOP},             {"Peer", COPY_PTOP},
};

copy_kind copy_kind_of_name(const char *name, size_t len) {
    if (!name) return COPY_UNKNOWN;
    for (size_t i = 0; i < sizeof SPELLINGS / sizeof *SPELLINGS; i++)
        if (memmem(name, len, SPELLINGS[i].word, strlen(SPELLINGS[i].word))) return SPELLINGS[i].kind;
    return COPY_UNKNOWN;
}
