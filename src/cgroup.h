/* Whether a cgroup v2 leaf with the memory and pids controllers can be
 * made for a run: a pure decision over facts read from the machine
 * (linux-cgroup.c), so that every case is unit-tested, including those no
 * test machine offers. doc/design/docker.md, "cgroup v2". */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

/* What the machine says, as read by sbx_cgroup_read_facts(). Strings are
 * the files' contents (NULL: could not be read). */
struct sbx_cg_facts {
	const char *mount; /* where cgroup2 is mounted, or NULL */
	const char *self; /* our cgroup: the path of the "0::" line of
	                     /proc/self/cgroup, or NULL */
	const char *controllers; /* MOUNT/SELF/cgroup.controllers */
	const char *subtree_control; /* MOUNT/SELF/cgroup.subtree_control */
	bool dir_writable; /* we may make and remove directories in MOUNT/SELF */
	bool procs_writable; /* we may write MOUNT/SELF/cgroup.procs (moves
	                        within the subtree need it) */
	bool subtree_writable; /* ... and MOUNT/SELF/cgroup.subtree_control */
	int nprocs; /* processes in MOUNT/SELF/cgroup.procs, us included;
	               -1: unknown */
	const char *root_subtree_control; /* MOUNT/cgroup.subtree_control */
	bool root_writable; /* we may make directories in MOUNT and write
	                       MOUNT/cgroup.procs (root, not in a container
	                       that mounts it read-only) */
};

enum sbx_cg_way {
	SBX_CG_NONE, /* no leaf: rlimits, for the reason given */
	/* The root group hands memory and pids to its children and is ours
	 * (a root caller): the leaf goes right below the root, wherever we
	 * are (a move needs the common ancestor's cgroup.procs: the root's). */
	SBX_CG_AT_ROOT,
	/* Our cgroup offers memory and pids but does not hand them down yet,
	 * and holds no process but ours: sbxrun first moves itself into a
	 * child of its own (a cgroup with processes cannot enable controllers
	 * for its children), then enables them, then makes the leaf beside
	 * it. */
	SBX_CG_MOVE_SELF,
};

struct sbx_cg_decision {
	enum sbx_cg_way way;
	char why[256]; /* SBX_CG_NONE: why not, a phrase ("the cgroup v2 ...") */
};

/* Decides from f whether and how a leaf can be made; fills d. */
void sbx_cgroup_decide(const struct sbx_cg_facts *f, struct sbx_cg_decision *d);

/* Whether the space-separated list s names word. */
bool sbx_cgroup_has(const char *s, const char *word);

/* Reads the facts from this machine (linux-cgroup.c) and decides: the
 * probe. Reads only: it makes, moves and enables nothing. */
void sbx_cgroup_probe(struct sbx_cg_decision *d);

#endif
