/* The supervisor: one poll loop in sbxrun that waits for the jail, enforces
 * the deadline, turns SIGTERM/SIGINT/SIGHUP into stopping the tree, and
 * collects the status and resource usage of the whole tree. */
#ifndef SBX_SUPERVISE_H
#define SBX_SUPERVISE_H

#include <stdint.h>

#include "backend.h"
#include "diag.h"
#include "err.h"

/* Monotonic clock in milliseconds. */
uint64_t sbx_now_ms(void);

/* Prepares sbxrun to supervise: blocks the signals it handles (children
 * reset them) and makes sbxrun the reaper of orphans of the tree. Returns
 * a descriptor that becomes readable when such a signal arrives. */
int sbx_supervise_setup(struct sbx_err *err);

/* Supervises c until the tree is gone. sfd comes from sbx_supervise_setup(); start_ms is when the spawn began. Fills the
 * payload's status, timing and usage in r. */
int sbx_supervise(struct sbx_child *c, int sfd, uint64_t start_ms, uint64_t timeout_ms,
    struct sbx_report *r, struct sbx_err *err);

/* Kills a tree that never got to run (used when exec failed). */
void sbx_child_abort(struct sbx_child *c);

#endif
