/* Finding and killing a process tree through /proc, for jails without a
 * pid namespace (the tree is kept together by child subreapers). */
#ifndef SBX_PROC_H
#define SBX_PROC_H

#include <sys/types.h>

/* Sends sig to every descendant of root (not root itself) but spare, a
 * child of root, and all below it (0: none); with SIGKILL, first stops
 * them all so none can fork in between. Returns how many were
 * signalled. */
int sbx_proc_signal_descendants(pid_t root, pid_t spare, int sig);

#endif
