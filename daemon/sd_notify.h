/* sd_notify: the systemd notification protocol (Type=notify), without libsystemd.
 * READY=1 after the start-up scan, WATCHDOG=1 from the loop, STOPPING=1 on shutdown.
 * Does nothing when NOTIFY_SOCKET is not set. */
#ifndef GOBLIN_SD_NOTIFY_H
#define GOBLIN_SD_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

/* Sends one state string ("READY=1\nSTATUS=..."). false when not under systemd or on error. */
bool sd_notify_send(const char *state);
/* The watchdog interval in microseconds asked for by systemd (WatchdogSec=), 0 if none. */
uint64_t sd_watchdog_usec(void);

#endif
