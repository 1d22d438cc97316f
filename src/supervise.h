/* The supervisor: one poll loop in sbxrun that waits for the jail, enforces
 * the deadline, turns SIGTERM/SIGINT/SIGHUP into stopping the tree, and
 * collects the status and resource usage of the whole tree. */
#ifndef SBX_SUPERVISE_H
#define SBX_SUPERVISE_H

#include <stdint.h>
#include <sys/resource.h>

#include "backend.h"
#include "diag.h"
#include "err.h"

/* Monotonic clock in milliseconds. */
uint64_t sbx_now_ms(void);

/* Adds a reaped process's CPU time to r and raises its peak memory. */
void sbx_report_add_usage(struct sbx_report *r, const struct rusage *ru);

/* What init writes on its status pipe once the tree is gone: the
 * payload's wait status and what the tree used, init's own use and that
 * of everything it reaped (getrusage(2)), as wait4(2) on init would tell
 * it. One write, well under PIPE_BUF: read whole or not at all. */
struct sbx_init_end {
	int status;
	struct rusage ru;
};

/* Fills ru with the calling process's own use and its reaped children's:
 * CPU times added, the larger peak. */
void sbx_tree_usage(struct rusage *ru);

/* Reaps init (pid, from c->reap_late) once sbx_supervise() took the tree
 * as gone on init's message, waiting for the rest of its exit; 0: no-op.
 * sbxrun calls it last, after its report. The wait has a bound even if
 * the message were not init's own: sbx_child_close() has closed sbxrun's
 * end of the life pipe by then, and at its end of file init kills what is
 * left and exits (launch.h; attack-supervisor.sh, section d). */
void sbx_reap_late(pid_t pid);

/* The payload's wait status as init wrote it, once init is gone; init's
 * own status init_st when it died before writing one (timeout, killed by
 * the tree). */
int sbx_payload_status(const struct sbx_child *c, int init_st);

/* Prepares sbxrun to supervise: blocks the signals it handles (children
 * reset them) and makes sbxrun the reaper of orphans of the tree. Returns
 * a descriptor that becomes readable when such a signal arrives. */
int sbx_supervise_setup(struct sbx_err *err);

/* Supervises c until the tree is gone. sfd comes from
 * sbx_supervise_setup(); start_ms is when the spawn began. Fills the
 * payload's status, timing and usage in r. */
int sbx_supervise(struct sbx_child *c, int sfd, uint64_t start_ms, uint64_t timeout_ms,
    struct sbx_report *r, struct sbx_err *err);

/* The grace between the tree's SIGTERM and its SIGKILL when sbxrun is
 * stopped by a signal (sbxrun(1), SIGNALS): 2000 ms unless set here, for
 * tests, from SBXRUN_TEST_GRACE (sbxrun(1), ENVIRONMENT). */
void sbx_supervise_set_grace(uint64_t ms);

/* Kills a tree that never got to run (used when exec failed). */
void sbx_child_abort(struct sbx_child *c);

#endif
