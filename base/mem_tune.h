/* mem_tune: the process's malloc settings, set once at start by the one-shot
 * commands that read a run (daemon/main.c: parse, analyze; not the daemon, whose heap would
 * otherwise stay at its largest run's peak).
 *
 * goblind's analyses build tables of a few to a few tens of megabytes that grow by doubling
 * (id maps, interval sets, per-kernel arrays) and free them at the end of a run. With glibc's
 * defaults every such table is a fresh mmap (or a fresh stretch of heap) whose 4 KiB pages
 * each fault on first touch, and this VM's page faults are expensive: on the 208 MB run they
 * were ~7,700 faults and ~20 % of `goblind analyze`'s CPU (docs/PERFORMANCE.md "malloc
 * settings"). mem_tune_process keeps blocks up to 4 MiB on the heap, grows the heap in
 * 40 MiB steps and asks the kernel for transparent huge pages on its first step, so a
 * table's memory faults once per 2 MiB instead of once per 4 KiB. GOBLIND_MALLOC_DEFAULTS=1 in the environment
 * leaves glibc's defaults (for measuring). */
#ifndef GOBLIN_MEM_TUNE_H
#define GOBLIN_MEM_TUNE_H

/* Sets the malloc thresholds and advises huge pages on the heap (glibc only; elsewhere, under
 * sanitizers or with GOBLIND_MALLOC_DEFAULTS set, it does nothing). Call first in main, before
 * any thread starts. */
void mem_tune_process(void);

#endif
