/* Whether a cgroup v2 leaf with the memory and/or pids controllers can be
 * made for a run, what goes into it, and what its event files say: pure
 * decisions over facts read from the machine (linux-cgroup.c), so that
 * every case is unit-tested, including those no test machine offers.
 * doc/design/limits.md. */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
	bool clone_into; /* the kernel has clone3(CLONE_INTO_CGROUP) (5.7) */
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

/* The controllers a run's limits ask for, and a leaf gets. */
#define SBX_CG_MEMORY 1u
#define SBX_CG_PIDS 2u

struct sbx_cg_decision {
	enum sbx_cg_way way;
	unsigned ctl; /* SBX_CG_* the leaf gets: those wanted and offered */
	/* SBX_CG_NONE: why not, a phrase ("the cgroup v2 ..."); otherwise
	 * empty, or why a wanted controller is left to its rlimit. */
	char why[256];
};

/* Decides from f whether and how a leaf with the controllers of want
 * (SBX_CG_*) can be made; fills d. A leaf is made with those of want
 * that the group offers, if any. */
void sbx_cgroup_decide(const struct sbx_cg_facts *f, unsigned want, struct sbx_cg_decision *d);

/* Whether sbx_cgroup_decide() looks at more than the hierarchy, our
 * group's path, the kernel, the root's subtree_control (and, when that
 * hands a wanted controller down, the root's writability) and our
 * group's controllers: our group's subtree_control, processes and
 * writability. A probe reads those only then (each is a file read or an
 * access check on every run). */
bool sbx_cgroup_needs_group_facts(const struct sbx_cg_facts *f, unsigned want);

/* The leaf's name: unique per run (pid and a random word), so that runs
 * side by side never share one and a leftover is never reused. */
void sbx_cgroup_leaf_name(char *buf, size_t n, pid_t pid, unsigned rnd);

/* The child of our group that sbxrun moves itself into (SBX_CG_MOVE_SELF). */
#define SBX_CG_SUP_NAME "sbxrun.sup"

/* One file to write in a new leaf. */
struct sbx_cg_write {
	const char *file;
	char value[32];
	/* Absent on some kernels: memory.swap.max without swap accounting. */
	bool optional;
};

#define SBX_CG_MAX_WRITES 3

/* What to write in a leaf with the controllers ctl for a memory limit of
 * memory bytes and a pids limit of pids tasks (0: not asked): memory.max,
 * memory.swap.max 0 (memory means memory plus swap), pids.max. Returns
 * how many of out are filled. */
size_t sbx_cgroup_writes(
    unsigned ctl, uint64_t memory, uint64_t pids, struct sbx_cg_write out[SBX_CG_MAX_WRITES]);

/* The value of key in a flat keyed file (memory.events: "oom_kill 3"),
 * or false when absent or malformed. */
bool sbx_cgroup_key(const char *text, const char *key, uint64_t *v);

/* The "+memory +pids" line for cgroup.subtree_control. */
void sbx_cgroup_enable_line(unsigned ctl, char *buf, size_t n);

/* Whether the kernel release (uname -r: "6.1.0-18-amd64") is at least
 * major.minor. */
bool sbx_cgroup_release_at_least(const char *release, int major, int minor);

/* Whether the space-separated list s names word. */
bool sbx_cgroup_has(const char *s, const char *word);

/* ---- linux-cgroup.c ---- */

/* Where a leaf goes, as the probe found it. */
struct sbx_cg_place {
	char *parent; /* the directory the leaf is made in */
	bool move_self; /* SBX_CG_MOVE_SELF: the keeper first moves sbxrun
	                   into parent/SBX_CG_SUP_NAME and enables ctl */
	bool test; /* a tree given by SBXRUN_TEST_CGROUP_ROOT (not cgroup2) */
};

/* Reads the facts from this machine (linux-cgroup.c) and decides: the
 * probe. Reads only: it makes, moves and enables nothing. The cgroup2
 * mount is looked up in mountinfo, the text of /proc/self/mountinfo the
 * caller read (sbx_mountinfo_read(); NULL: none is found). The hidden
 * environment variable SBXRUN_TEST_CGROUP_ROOT points it at a fake tree
 * instead of the cgroup2 mount (SBXRUN_TEST_CGROUP_SELF: our group's path
 * in it, "/" when unset), for the tests. When d->way is not SBX_CG_NONE
 * and place is not NULL, fills place (free it with sbx_cgroup_place_free). */
void sbx_cgroup_probe(
    unsigned want, const char *mountinfo, struct sbx_cg_decision *d, struct sbx_cg_place *place);

void sbx_cgroup_place_free(struct sbx_cg_place *place);

/* What a leaf saw, read after the run. */
struct sbx_cg_stats {
	uint64_t oom_kill; /* memory.events */
	uint64_t memory_peak; /* memory.peak, 0 when absent */
	uint64_t pids_max; /* pids.events: forks refused at pids.max */
};

/* Reads the leaf whose directory is leaf (any descriptor, O_PATH too). */
void sbx_cgroup_read_stats(int leaf, struct sbx_cg_stats *s);

struct clone_args;

/* clone3(args) into the leaf whose directory is leaf (-1: none): with
 * CLONE_INTO_CGROUP on a cgroup2 directory, so that the child is born
 * in the leaf; in a test tree the parent writes the child's pid into
 * its cgroup.procs instead. Returns as clone3 does. */
pid_t sbx_cgroup_clone(struct clone_args *args, int leaf);

#endif
