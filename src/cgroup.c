#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cgroup.h"

bool
sbx_cgroup_has(const char *s, const char *word)
{
	size_t n = strlen(word);

	if (s == NULL)
		return false;
	while (*s) {
		size_t k = strcspn(s, " \t\n");

		if (k == n && strncmp(s, word, n) == 0)
			return true;
		s += k;
		s += strspn(s, " \t\n");
	}
	return false;
}

static void
no(struct sbx_cg_decision *d, const char *why)
{
	d->way = SBX_CG_NONE;
	snprintf(d->why, sizeof(d->why), "%s", why);
}

/* The names of the controllers missing from list, as "memory and pids". */
static void
missing(const char *list, char *out, size_t n)
{
	bool m = !sbx_cgroup_has(list, "memory"), p = !sbx_cgroup_has(list, "pids");

	snprintf(out, n, "%s%s%s", m ? "memory" : "", m && p ? " and " : "", p ? "pids" : "");
}

void
sbx_cgroup_decide(const struct sbx_cg_facts *f, struct sbx_cg_decision *d)
{
	char miss[32], why[256];
	bool is_root;

	memset(d, 0, sizeof(*d));
	if (f->mount == NULL)
		return no(d, "no cgroup v2 hierarchy is mounted");
	if (f->self == NULL || f->self[0] != '/')
		return no(d,
		    "this process is in no cgroup v2 group (no 0:: line in "
		    "/proc/self/cgroup)");
	is_root = strcmp(f->self, "/") == 0;
	if (f->root_writable && sbx_cgroup_has(f->root_subtree_control, "memory") &&
	    sbx_cgroup_has(f->root_subtree_control, "pids")) {
		d->way = SBX_CG_AT_ROOT;
		return;
	}
	if (f->controllers == NULL)
		return no(d, "our cgroup's cgroup.controllers cannot be read");
	/* A controller bound to a v1 hierarchy is absent from every v2
	 * group, the root's included (hybrid set-ups). */
	if (!sbx_cgroup_has(f->controllers, "memory") || !sbx_cgroup_has(f->controllers, "pids")) {
		missing(f->controllers, miss, sizeof(miss));
		snprintf(why, sizeof(why),
		    "the cgroup v2 group %s%s has no %s controller, which is bound to "
		    "cgroup v1 or not delegated",
		    f->mount, is_root ? "" : f->self, miss);
		return no(d, why);
	}
	/* The root's controllers are there but not handed down: enabling
	 * them would change every group of the machine. */
	if (is_root)
		return no(d,
		    "the root cgroup does not hand memory and pids down, and "
		    "sbxrun never enables controllers for the whole machine");
	/* Making the leaf and moving the jail's init into it both need the
	 * group to be ours: its directory and cgroup.procs writable (the
	 * kernel checks the common ancestor's cgroup.procs on a move). */
	if (!f->dir_writable || !f->procs_writable || !f->subtree_writable) {
		snprintf(why, sizeof(why), "the cgroup v2 group %s%s is not delegated to us",
		    f->mount, f->self);
		return no(d, why);
	}
	/* A group other than the root cannot hold processes and hand domain
	 * controllers to its children at once: with others beside us, the
	 * controllers cannot be enabled below. */
	if (f->nprocs != 1) {
		snprintf(why, sizeof(why),
		    "the cgroup v2 group %s%s holds other processes than sbxrun, so no "
		    "controller can be enabled below it",
		    f->mount, f->self);
		return no(d, why);
	}
	d->way = SBX_CG_MOVE_SELF;
}
