/* The filesystem view of a jail: policy + resolved paths + filesystem
 * facts -> one ordered list of host paths, each with one disposition
 * (read-only, read-write, hidden, protected, placeholder). It is the only
 * place that decides what the sandbox may do with a path; the mount
 * table and the Landlock rules (plan.c) and the Seatbelt profile
 * (seatbelt.c) lower it, each with the means its mechanism has. Pure: the
 * facts come through struct sbx_fsfacts. doc/design/plan-view.md. */
#ifndef SBX_FSPLAN_H
#define SBX_FSPLAN_H

#include <stdbool.h>

#include "err.h"
#include "policy.h"
#include "resolve.h"
#include "util.h"

enum sbx_file_kind {
	SBX_KIND_NONE, /* does not exist (or cannot be seen) */
	SBX_KIND_DIR,
	SBX_KIND_FILE, /* anything that is not a dir or a symlink */
	SBX_KIND_SYMLINK,
};

/* Facts about the host filesystem the plan depends on. */
struct sbx_fsfacts {
	void *ctx;
	/* The kind of path, not following a final symlink; for a symlink,
	 * *target (malloc'd) receives its content. */
	enum sbx_file_kind (*kind)(void *ctx, const char *path, char **target);
	/* The names in a directory (no "." or ".."); -1 when unreadable. */
	int (*list)(void *ctx, const char *dir, struct sbx_strv *names);
	/* The same, but -1 when reaching dir would enter another mount (a
	 * FUSE server that never answers, on a protected name); may be NULL
	 * (nothing is listed that way then). */
	int (*list_here)(void *ctx, const char *dir, struct sbx_strv *names);
	/* Whether the sandbox's ids could not read path even without
	 * Landlock (file permissions alone keep it out); may be NULL. */
	bool (*sealed)(void *ctx, const char *path);
};

/* What the sandbox may do with a path and everything below it. */
enum sbx_fsdisp {
	SBX_FSD_RO, /* read and execute, never write */
	SBX_FSD_RW, /* read, write and execute */
	SBX_FSD_HIDDEN, /* neither read nor write, in every mode; wins over all */
	SBX_FSD_PROTECTED, /* inside the workdir, kept read-only; it and the
	                      directories above it up to the workdir cannot be
	                      renamed, removed or replaced */
	SBX_FSD_PLACEHOLDER, /* a protected name that does not exist: the
	                        sandbox must not leave one there */
};

/* Why a path is in the view. */
enum sbx_fsorigin {
	SBX_FSO_ROOT, /* a system root (strict and allowlist) */
	SBX_FSO_TOP, /* an entry of / (open) */
	SBX_FSO_READ, /* an allowlist [read] path */
	SBX_FSO_WORKDIR,
	SBX_FSO_MOUNT, /* a [mounts] source */
	SBX_FSO_SECRET, /* the secret list and [deny] */
	SBX_FSO_GIT, /* the workdir's .git, kept whole */
	SBX_FSO_DEFAULT, /* the built-in protect list */
	SBX_FSO_PROTECT, /* [protect] */
	SBX_FSO_LINK, /* where a protected symlink leads, inside the workdir */
};

struct sbx_fsentry {
	char *path; /* the host path */
	char *at; /* MOUNT: where the policy places it (workdir/target) */
	char *rel; /* relative to the workdir: a MOUNT's target, or the
	              protected name (GIT, DEFAULT, PROTECT, LINK) */
	char *target; /* a SYMLINK's content */
	char *note; /* what the view could not do for it, or NULL */
	char *tree; /* a SECRET with rel below a read-write mount's source:
	               that source, rel relative to it (NULL: the workdir) */
	enum sbx_fsdisp disp;
	enum sbx_fsorigin origin;
	enum sbx_file_kind kind; /* NONE as well when the view has no facts */
	enum sbx_file_kind git; /* a read-write directory MOUNT: what .git at
	                           the top of its source is (NONE: nothing) */
	bool builtin; /* protected by the built-in list alone */
	bool via_link; /* a directory between the workdir and it is a symlink */
};

/* The view, in order: what is readable (system roots, the entries of /
 * or the [read] paths), the workdir and the [mounts] sources, the hidden
 * paths, then the protected ones (.git first). */
struct sbx_fsplan {
	struct sbx_fsentry *v;
	size_t n;
	const char *workdir; /* borrowed from the fsview */
	bool workdir_in_jail; /* made in the jail's own /tmp: nothing protected */
	bool facts; /* built with facts: kinds, link targets, placeholders */
};

/* Builds the view of p. facts may be NULL: then the view judges names
 * alone, as Seatbelt does (no kinds, no entries of / in open mode, no
 * link targets, no placeholders), and does not depend on the machine. */
int sbx_fsplan_build(const struct sbx_policy *p, const struct sbx_fsview *fs,
    const struct sbx_fsfacts *facts, struct sbx_fsplan *v, struct sbx_err *err);

void sbx_fsplan_free(struct sbx_fsplan *v);

/* Writes the view as text, one entry per line. */
void sbx_fsplan_describe(const struct sbx_fsplan *v, struct sbx_buf *out);

/* The entry of the workdir, or NULL. */
const struct sbx_fsentry *sbx_fsplan_workdir(const struct sbx_fsplan *v);

/* One entry of the built-in protect list: a path relative to the workdir,
 * whether it counts only when the workdir is the caller's home, and why
 * it is on the list. */
struct sbx_protect_default {
	const char *path;
	bool home_only;
	const char *why;
};

/* The built-in protect list, ended by an entry whose path is NULL. */
extern const struct sbx_protect_default sbx_protect_defaults[];

/* Whether the workdir is the caller's home, so that the home-only entries
 * of the built-in list apply. */
bool sbx_protect_home(const struct sbx_fsview *fs);

/* The paths a jail keeps read-only inside the workdir, relative to it:
 * .git/hooks and .git/config, the built-in list (unless protect_defaults
 * is off; its home-only entries when the workdir is the home), then
 * [protect]. The view takes its protected entries from here. */
void sbx_protect_list(
    const struct sbx_policy *p, const struct sbx_fsview *fs, struct sbx_strv *out);

/* Whether rel is on that list by the built-in list alone (not also a
 * [protect] path). */
bool sbx_protect_is_default(const struct sbx_policy *p, const char *rel);

#endif
