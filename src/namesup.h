/* Name changes under the landlock backend when the workdir holds .git
 * (or another protected path that would freeze its top level): the
 * workdir then gets every Landlock write right, which reaches every
 * directory below it (Landlock unions the rules of a file's ancestors),
 * so the calls that make, remove, rename, write or truncate a file are
 * trapped and judged here instead (doc/design/everyday.md, section 3).
 *
 * The dispatcher (netsup.c) copies the path(s) out of the caller once,
 * resolves them in the caller's view, component by component, to the
 * parent directory (an O_PATH descriptor) and the final name, or to the
 * file itself; it refuses with EPERM what lies at or below .git or a
 * protected path, the protected names themselves, and the directories
 * leading to them; a worker then makes the call relative to those
 * descriptors, inside the sandbox's own Landlock domain and with its
 * credentials. An opened file is installed in the caller with
 * SECCOMP_IOCTL_NOTIF_ADDFD. */
#ifndef SBX_NAMESUP_H
#define SBX_NAMESUP_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "metasup.h"
#include "util.h"

/* The names the sandbox may not make, remove or rename to, by the
 * identity of their directory (recorded before the run). */
struct sbx_namesup;

/* Makes the table from absolute paths (the parent of each must exist
 * now to be recorded). With sbxrun's own rights, before the run. */
struct sbx_namesup *sbx_namesup_new(const struct sbx_strv *names, const struct sbx_fsview *fs);

void sbx_namesup_free(struct sbx_namesup *n);

/* Adds the traps to a libseccomp filter (a scmp_filter_ctx): the open
 * family only when the flags ask to create, write or truncate (compared
 * on the low 32 bits, as the kernel reads an int). 0 or -errno. */
int sbx_namesup_filter(void *scmp_ctx);

/* Whether the trapped call nr is one of ours. */
bool sbx_namesup_handles(int nr);

/* Whether the trapped call (nr, args) is one this supervisor judges: a
 * name-changing call, or an open that writes, creates or truncates. A
 * read-only open trapped for a trace is not, nor an O_PATH open. */
bool sbx_namesup_judges(int nr, const __u64 *args);

/* Whether the trapped call (nr, args) is an open with O_PATH, trapped for
 * its other flags: one to let go on (doc/design/supervisor.md, "Never
 * CONTINUE"). */
bool sbx_namesup_passes(int nr, const __u64 *args);

/* One allowed call, ready to be made (opaque). */
struct sbx_name_op;

/* Decides the trapped call req on the dispatcher, copying what it needs
 * out of the caller. Allowed: *op is set. Else *errnum is the answer and
 * *reason (static) says why when refused by policy, and what (what_size
 * bytes) describes the call for the list of refusals, as "openat
 * .git/config", from the path as copied for the decision. Returns -1
 * when the notification is no longer valid. */
int sbx_namesup_prepare(const struct sbx_namesup *n, const struct sbx_meta_ctx *m, int notify_fd,
    const struct seccomp_notif *req, struct sbx_name_op **op, int *errnum, const char **reason,
    char *what, size_t what_size);

/* Makes the call on a worker: the result (>= 0; for an open, a
 * descriptor of ours) or -errno. notify_fd and id: the notification,
 * asked again before a cut that had to wait for a lease. */
int64_t sbx_namesup_apply(const struct sbx_name_op *op, int notify_fd, uint64_t id);

/* For an open: the flags for SECCOMP_IOCTL_NOTIF_ADDFD's newfd_flags
 * (O_CLOEXEC when the caller asked for it); -1 when op is not an open. */
int sbx_namesup_addfd_flags(const struct sbx_name_op *op);

void sbx_name_op_free(struct sbx_name_op *op);

/* Prepares the calling (worker) thread: its own umask of 0 (the caller's
 * is applied to each mode here) and the sandbox's Landlock filesystem
 * domain (ruleset, when >= 0). 0 or -1 (errno set). */
int sbx_namesup_enter_thread(int ruleset);

#endif
