/* Metadata changes under the landlock backend: Landlock (up to ABI 7)
 * judges reads, writes, creations and removals, but not chmod, chown,
 * timestamps or extended attributes. Those calls are trapped and handed
 * here by the supervisor (netsup.c): the target is resolved in the
 * caller's context to an O_PATH descriptor, allowed only when it lies in a
 * writable tree (the workdir, the private TMPDIR, rw mount sources), and
 * the change is then made on that very descriptor, so a path swapped
 * after the check changes nothing, by a worker thread holding the
 * sandbox's own credentials (netsup.h). Extended attributes outside
 * user.* are refused. */
#ifndef SBX_METASUP_H
#define SBX_METASUP_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct sbx_meta_ctx {
	const struct sbx_strv *writable; /* canonical directories */
	int as_uid; /* the sandbox's ids outside; -1: the caller's own */
	int as_gid;
};

/* The syscalls handled here (libseccomp numbers), for the filter. */
extern const char *const sbx_metasup_calls[];

/* Whether nr is one of them. */
bool sbx_metasup_handles(int nr);

/* Whether the open descriptor fd lies in one of m's writable trees. */
bool sbx_metasup_in_writable(const struct sbx_meta_ctx *m, int fd);

/* One allowed change, ready to be made (opaque). */
struct sbx_meta_op;

/* Decides the trapped call req, copying everything it needs out of the
 * caller: on the supervisor's thread that can read the sandbox. When the
 * call is allowed, *op is the change to make (with sbx_metasup_apply, on a
 * thread holding the sandbox's credentials); else *op is NULL and
 * *errnum is the answer, with *reason (static) when refused by policy.
 * Returns -1 when the notification is no longer valid (nothing to
 * answer). */
int sbx_metasup_prepare(const struct sbx_meta_ctx *m, int notify_fd,
    const struct seccomp_notif *req, struct sbx_meta_op **op, int *errnum, const char **reason);

/* Makes the change op: the call's result (>= 0) or -errno. It takes no
 * decision: the calling thread's credentials are the last judge. */
int64_t sbx_metasup_apply(const struct sbx_meta_op *op);

void sbx_metasup_op_free(struct sbx_meta_op *op);

#endif
