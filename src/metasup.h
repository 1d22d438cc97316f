/* Metadata changes under the landlock backend: Landlock (up to ABI 7)
 * judges reads, writes, creations and removals, but not chmod, chown,
 * timestamps or extended attributes. Those calls are trapped and handed
 * here by the supervisor (netsup.c): the target is resolved in the
 * caller's context to an O_PATH descriptor, allowed only when it lies in a
 * writable tree (the workdir, the private TMPDIR, rw mount sources), and
 * the change is then made by sbxrun on that very descriptor, so a path
 * swapped after the check changes nothing. */
#ifndef SBX_METASUP_H
#define SBX_METASUP_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct sbx_meta_ctx {
	const struct sbx_strv *writable; /* canonical directories */
	int as_uid; /* -1: sbxrun's own ids */
	int as_gid;
};

/* The syscalls handled here (libseccomp numbers), for the filter. */
extern const char *const sbx_metasup_calls[];

/* Whether nr is one of them. */
bool sbx_metasup_handles(int nr);

/* Whether the open descriptor fd lies in one of m's writable trees. */
bool sbx_metasup_in_writable(const struct sbx_meta_ctx *m, int fd);

/* Decides and, when allowed, makes the trapped call req. Fills *val or
 * *errnum for the answer, and *reason (static) when refused by policy.
 * Returns -1 when the notification is no longer valid (nothing to answer). */
int sbx_metasup_run(const struct sbx_meta_ctx *m, int notify_fd, const struct seccomp_notif *req,
    int64_t *val, int *errnum, const char **reason);

#endif
