/* Measuring, in a throwaway child bounded in time, whether each step a
 * Linux backend takes works here (see doc/design/containers.md). */
#ifndef SBX_LINUX_PROBE_H
#define SBX_LINUX_PROBE_H

#include "backend.h"

/* Makes, in a child killed after a deadline, the namespaces, maps and
 * mounts of the namespaces backend, a fresh /proc included (with a network
 * namespace when net). Fills caps->userns and, when not, caps->userns_why
 * with the step that failed; -1 with SBX_EUNAVAIL in err then. */
int sbx_probe_namespaces(struct sbx_caps *caps, bool net, struct sbx_err *err);

/* Tries, once, what the supervisor does to a sandbox process:
 * pidfd_getfd, process_vm_readv and a read of /proc/PID/mem. For --probe
 * (caps->full_probe) on a child of ours; for a run on sbxrun itself, which
 * needs no process (the run then meets the real sandbox process). Fills
 * the caps fields; -1 only when no child could be made. */
int sbx_probe_supervision(struct sbx_caps *caps, struct sbx_err *err);

#endif
