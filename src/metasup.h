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
#include <sys/types.h>

#include "util.h"

struct sbx_fsview;

/* The plan's paths that on-behalf calls must leave alone as the sandbox's
 * own calls are made to (absolute, as the plan computed them). */
struct sbx_meta_guard {
	struct sbx_strv hidden; /* the secret list and --deny-read: nothing at
	                           or below is changed, bound or connected to */
	struct sbx_strv protect; /* .git/hooks, .git/config, --protect: nothing
	                            at or below changes or takes a new entry */
	struct sbx_strv frozen; /* directories that take no new entry and
	                           keep their own metadata */
	struct sbx_strv names; /* with guard_names: paths that may not be made,
	                          removed or renamed to (namesup.h) */
	bool guard_names; /* trap the name-changing calls (namesup.h) */
	int ruleset; /* the sandbox's Landlock filesystem ruleset, for the
	                workers that make those calls; -1: none */
	/* The resolved paths: every path above is looked at through the
	 * deepest pin that holds it (sbx_fsview_stat()), not by name; NULL:
	 * by name. */
	const struct sbx_fsview *fs;
};

/* One guarded file, by identity: what a path resolves to is compared, not
 * its spelling. */
struct sbx_meta_id {
	dev_t dev;
	ino_t ino;
	unsigned what; /* SBX_GUARD_* */
};

#define SBX_GUARD_HIDDEN 0x1u
#define SBX_GUARD_PROTECT 0x2u
#define SBX_GUARD_FROZEN 0x4u

struct sbx_meta_ctx {
	const struct sbx_strv *writable; /* canonical directories */
	int as_uid; /* the sandbox's ids outside; -1: the caller's own */
	int as_gid;
	struct sbx_meta_id *ids; /* the guard's paths as they resolved at start */
	size_t nids;
};

/* The syscalls handled here (libseccomp numbers), for the filter. */
extern const char *const sbx_metasup_calls[];

/* Whether nr is one of them. */
bool sbx_metasup_handles(int nr);

/* Whether the open descriptor fd lies in one of m's writable trees. */
bool sbx_metasup_in_writable(const struct sbx_meta_ctx *m, int fd);

/* Records in m the identities (device and inode, of the path itself and,
 * for a symlink, of its target) of g's paths that exist now, and of m's
 * writable trees. Done once, after m's writable trees are set and before
 * the sandbox runs, with sbxrun's own rights. */
void sbx_metasup_set_guard(struct sbx_meta_ctx *m, const struct sbx_meta_guard *g);

void sbx_metasup_guard_free(struct sbx_meta_guard *g);

/* Whether the open descriptor fd (resolved in the sandbox's view) is, or
 * lies below, one of m's guarded paths of a kind in what: fd itself is
 * compared to every kind, its ancestors (found by opening ".." upwards,
 * the file's own directory checked to hold it) only to the hidden and
 * protected ones, up to the root of a writable tree (or of the
 * filesystem). Sets *reason (static) when it does. An ancestor that
 * cannot be opened counts as guarded: refuse rather than guess. */
bool sbx_metasup_guarded(const struct sbx_meta_ctx *m, int fd, unsigned what, const char **reason);

/* One allowed change, ready to be made (opaque). */
struct sbx_meta_op;

/* Decides the trapped call req, copying everything it needs out of the
 * caller: on the supervisor's thread that can read the sandbox. When the
 * call is allowed, *op is the change to make (with sbx_metasup_apply, on a
 * thread holding the sandbox's credentials); else *op is NULL and
 * *errnum is the answer, with *reason (static) when refused by policy;
 * then what (what_size bytes) describes the call for a person, as "chmod
 * .git/hooks": its name and the path as copied for the decision (for a
 * call on a descriptor, where our copy of it leads). The text is the
 * sandbox's. Returns -1 when the notification is no longer valid
 * (nothing to answer). */
int sbx_metasup_prepare(const struct sbx_meta_ctx *m, int notify_fd,
    const struct seccomp_notif *req, struct sbx_meta_op **op, int *errnum, const char **reason,
    char *what, size_t what_size);

/* Makes the change op: the call's result (>= 0) or -errno. It takes no
 * decision: the calling thread's credentials are the last judge. */
int64_t sbx_metasup_apply(const struct sbx_meta_op *op);

void sbx_metasup_op_free(struct sbx_meta_op *op);

/* Whether making op cannot block: its file lies on a local disk or memory
 * filesystem (ext2/3/4, xfs, btrfs, f2fs, tmpfs), where a change of mode,
 * owner, times or an attribute takes the inode's lock and returns. Any
 * other filesystem (network, FUSE, overlay over one) may wait on a server
 * and gets false. */
bool sbx_metasup_cannot_block(const struct sbx_meta_op *op);

#endif
