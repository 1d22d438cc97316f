/* The jail plan: the filesystem view (fsplan.h) lowered into an ordered
 * list of mount operations and the Landlock rules that mirror them. Pure:
 * the facts come through struct sbx_fsfacts, so the plan can be built and
 * golden-tested without touching the machine. The namespaces backend runs
 * the mount list; both Linux backends apply the Landlock rules. */
#ifndef SBX_PLAN_H
#define SBX_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "fsplan.h"
#include "policy.h"
#include "resolve.h"
#include "util.h"

enum sbx_op_kind {
	SBX_OP_BIND, /* src (host) at dst */
	SBX_OP_ATTACH, /* the copy of src made by the parent (trees[tree]) at dst */
	SBX_OP_TMPFS, /* an empty tmpfs at dst (mode) */
	SBX_OP_SYMLINK, /* dst is a symlink with content src */
	SBX_OP_MKDIR, /* an empty directory at dst in the new root */
	SBX_OP_PROC, /* a fresh procfs for the jail's pid namespace */
	SBX_OP_DEVPTS, /* a private devpts instance */
	SBX_OP_HIDE, /* cover dst with an empty, unreadable dir or file */
	SBX_OP_REMOUNT_RO, /* make the mount at dst read-only */
};

#define SBX_OPF_RO 0x01u /* read-only, recursively */
#define SBX_OPF_FILE 0x02u /* dst is a file, not a directory */
#define SBX_OPF_MKTARGET 0x04u /* create a missing dst inside the workdir */
#define SBX_OPF_SELF 0x10u /* a bind of a path onto itself (pin/protect) */

struct sbx_op {
	enum sbx_op_kind kind;
	char *src;
	char *dst;
	unsigned flags;
	unsigned mode; /* TMPFS and HIDE */
	uint64_t size; /* TMPFS: its size= in bytes, 0 for the kernel's default */
	int tree; /* ATTACH: index in plan->trees */
};

/* A host tree the parent clones (open_tree) for the child to attach: the
 * way a root caller's jail reaches host paths, because the child runs as
 * an unprivileged uid from its first step. */
struct sbx_tree {
	char *src;
	unsigned flags; /* SBX_OPF_RO, SBX_OPF_FILE */
	bool idmap; /* seen through the jail's id mapping */
	bool dev; /* a device node: keep it usable */
};

/* Landlock access classes; linux-landlock.c turns them into ABI bits. */
#define SBX_LL_LIST 0x01u /* list directories */
#define SBX_LL_READ 0x02u /* read files */
#define SBX_LL_EXEC 0x04u
#define SBX_LL_WRITE 0x08u /* create, write, remove, rename, truncate */
#define SBX_LL_DEV 0x10u /* ioctl on devices */
#define SBX_LL_RO (SBX_LL_LIST | SBX_LL_READ | SBX_LL_EXEC)
#define SBX_LL_RW (SBX_LL_RO | SBX_LL_WRITE)

struct sbx_ll_rule {
	char *path;
	unsigned access;
	bool is_dir;
};

struct sbx_plan {
	struct sbx_op *ops;
	size_t nops;
	struct sbx_ll_rule *rules;
	size_t nrules;
	struct sbx_tree *trees; /* trees the parent must make */
	size_t ntrees;
	struct sbx_strv notes; /* what was left out, for --print-backend */
	struct sbx_strv created; /* mount targets made in the workdir, to
	                                   remove after the run if still empty */
	struct sbx_strv frozen; /* Landlock-only plans: directories that
	                                   take no new entry, removal or rename,
	                                   because they lead to a hidden or a
	                                   protected path */
	struct sbx_strv scrub; /* paths relative to the workdir that must
	                                   not be made but cannot be kept from
	                                   it without writing the caller's disk;
	                                   what is there after the run is moved
	                                   aside */
	struct sbx_strv held; /* paths relative to the workdir of protected
	                                   entries that exist and are kept
	                                   read-only by a bind onto themselves:
	                                   after the run, another file under
	                                   that name was made in the run (a
	                                   second run moved the one bound
	                                   aside: the bind goes with it) and is
	                                   moved aside */
	struct sbx_strv scrub_trees; /* the same below read-write mounts'
	                                   sources, in pairs: the source, then
	                                   a path relative to it */
	struct sbx_strv watch; /* Landlock-only plans (opts->watch): built-in
	                                   protected paths, relative to the
	                                   workdir, that exist and get no rule;
	                                   the backend copies them before the
	                                   run and puts the copy back if they
	                                   were touched */
	struct sbx_strv guarded; /* Landlock-only plans (opts->guard_names):
	                                   the directories from the workdir down
	                                   to its protected paths, which keep
	                                   their write rights; the supervisor
	                                   keeps their names instead */
	bool guard_names; /* the workdir got its write rights although
	                     protected paths lie below it: the calls that
	                     make, remove, rename or write a name must be
	                     trapped (namesup.h) */
};

struct sbx_plan_opts {
	bool parent_trees; /* host binds are cloned by the parent (root caller) */
	bool idmap_rw; /* rw trees go through idmapped mounts (root caller) */
	bool mounts; /* build the mount list (namespaces backend) */
	const char *tmpdir; /* the private /tmp seen by Landlock-only jails, or NULL */
	bool watch; /* Landlock-only: existing built-in protected paths go to
	               plan->watch instead of getting read-only rules */
	bool guard_names; /* Landlock-only: a workdir whose protected paths
	                     (not hidden ones) would freeze it keeps its write
	                     rights, the supervisor judging names instead */
};

/* Builds the plan for p: its filesystem view (fsplan.h), lowered by
 * sbx_plan_lower(). fs holds the canonical paths (resolve.h). */
int sbx_plan_build(const struct sbx_policy *p, const struct sbx_fsview *fs,
    const struct sbx_fsfacts *facts, const struct sbx_plan_opts *opts, struct sbx_plan *plan,
    struct sbx_err *err);

/* Lowers view (built from p, fs and facts) into the mount table and the
 * Landlock rules. Every path decision comes from the view; facts serve
 * only to walk the trees it names (the Landlock rules go around hidden
 * and protected paths entry by entry) and to ask what the sandbox's ids
 * could read. */
void sbx_plan_lower(const struct sbx_fsplan *view, const struct sbx_policy *p,
    const struct sbx_fsview *fs, const struct sbx_fsfacts *facts, const struct sbx_plan_opts *opts,
    struct sbx_plan *plan);

void sbx_plan_free(struct sbx_plan *plan);

/* Writes the mount table and the Landlock rules as text, one per line. */
void sbx_plan_describe(const struct sbx_plan *plan, struct sbx_buf *out);

#endif
