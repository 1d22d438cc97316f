#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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

bool
sbx_cgroup_release_at_least(const char *release, int major, int minor)
{
	char *end;
	long a, b = 0;

	if (release == NULL)
		return false;
	a = strtol(release, &end, 10);
	if (end == release)
		return false;
	if (*end == '.')
		b = strtol(end + 1, NULL, 10);
	return a > major || (a == major && b >= minor);
}

static void
no(struct sbx_cg_decision *d, const char *why)
{
	d->way = SBX_CG_NONE;
	snprintf(d->why, sizeof(d->why), "%s", why);
}

/* The controllers of want that the list offers. */
static unsigned
offered(const char *list, unsigned want)
{
	return ((want & SBX_CG_MEMORY) && sbx_cgroup_has(list, "memory") ? SBX_CG_MEMORY : 0) |
	    ((want & SBX_CG_PIDS) && sbx_cgroup_has(list, "pids") ? SBX_CG_PIDS : 0);
}

/* The names of the controllers of want missing from have, as "memory and
 * pids". */
static void
missing(unsigned want, unsigned have, char *out, size_t n)
{
	bool m = (want & SBX_CG_MEMORY) && !(have & SBX_CG_MEMORY);
	bool p = (want & SBX_CG_PIDS) && !(have & SBX_CG_PIDS);

	snprintf(out, n, "%s%s%s", m ? "memory" : "", m && p ? " and " : "", p ? "pids" : "");
}

/* A leaf with fewer controllers than wanted: the rest stay rlimits. */
static void
partial(struct sbx_cg_decision *d, unsigned want, const char *group)
{
	char miss[32];

	if (d->ctl == want)
		return;
	missing(want, d->ctl, miss, sizeof(miss));
	snprintf(d->why, sizeof(d->why),
	    "the cgroup v2 group %s has no %s controller: that limit stays an rlimit", group, miss);
}

void
sbx_cgroup_decide(const struct sbx_cg_facts *f, unsigned want, struct sbx_cg_decision *d)
{
	char miss[32], why[256], group[160];
	bool is_root;

	memset(d, 0, sizeof(*d));
	want &= SBX_CG_MEMORY | SBX_CG_PIDS;
	if (want == 0)
		return no(d, "no memory or pids limit is asked for");
	if (f->mount == NULL)
		return no(d, "no cgroup v2 hierarchy is mounted");
	if (f->self == NULL || f->self[0] != '/')
		return no(d,
		    "this process is in no cgroup v2 group (no 0:: line in "
		    "/proc/self/cgroup)");
	/* The jail must be born in the leaf: placed after the clone, what
	 * it forks in between would stay outside. */
	if (!f->clone_into)
		return no(d, "the kernel has no clone3(CLONE_INTO_CGROUP) (Linux 5.7)");
	is_root = strcmp(f->self, "/") == 0;
	snprintf(group, sizeof(group), "%s%s", f->mount, is_root ? "" : f->self);
	if (f->root_writable && offered(f->root_subtree_control, want) != 0) {
		d->way = SBX_CG_AT_ROOT;
		d->ctl = offered(f->root_subtree_control, want);
		partial(d, want, f->mount);
		return;
	}
	if (f->controllers == NULL)
		return no(d, "our cgroup's cgroup.controllers cannot be read");
	/* A controller bound to a v1 hierarchy is absent from every v2
	 * group, the root's included (hybrid set-ups). */
	if (offered(f->controllers, want) == 0) {
		missing(want, 0, miss, sizeof(miss));
		snprintf(why, sizeof(why),
		    "the cgroup v2 group %s has no %s controller, which is bound to "
		    "cgroup v1 or not delegated",
		    group, miss);
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
		snprintf(why, sizeof(why), "the cgroup v2 group %s is not delegated to us", group);
		return no(d, why);
	}
	/* A group other than the root cannot hold processes and hand domain
	 * controllers to its children at once: with others beside us, the
	 * controllers cannot be enabled below. */
	if (f->nprocs != 1) {
		snprintf(why, sizeof(why),
		    "the cgroup v2 group %s holds other processes than sbxrun, so no "
		    "controller can be enabled below it",
		    group);
		return no(d, why);
	}
	d->way = SBX_CG_MOVE_SELF;
	d->ctl = offered(f->controllers, want);
	partial(d, want, group);
}

bool
sbx_cgroup_needs_group_facts(const struct sbx_cg_facts *f, unsigned want)
{
	want &= SBX_CG_MEMORY | SBX_CG_PIDS;
	/* The order of sbx_cgroup_decide(): every earlier outcome is
	 * reached without the group's own facts. */
	if (want == 0 || f->mount == NULL || f->self == NULL || f->self[0] != '/' || !f->clone_into)
		return false;
	if (f->root_writable && offered(f->root_subtree_control, want) != 0)
		return false;
	if (f->controllers == NULL || offered(f->controllers, want) == 0)
		return false;
	return strcmp(f->self, "/") != 0;
}

void
sbx_cgroup_leaf_name(char *buf, size_t n, pid_t pid, unsigned rnd)
{
	snprintf(buf, n, "sbxrun-%ld-%08x", (long)pid, rnd);
}

size_t
sbx_cgroup_writes(
    unsigned ctl, uint64_t memory, uint64_t pids, struct sbx_cg_write out[SBX_CG_MAX_WRITES])
{
	size_t n = 0;

	if ((ctl & SBX_CG_MEMORY) && memory > 0) {
		out[n] = (struct sbx_cg_write){ .file = "memory.max" };
		snprintf(out[n++].value, sizeof(out[0].value), "%" PRIu64, memory);
		/* Without it, the kernel swaps a leaf out at memory.max and
		 * the limit is memory plus all the swap there is. */
		out[n] = (struct sbx_cg_write){ .file = "memory.swap.max", .optional = true };
		snprintf(out[n++].value, sizeof(out[0].value), "0");
	}
	if ((ctl & SBX_CG_PIDS) && pids > 0) {
		out[n] = (struct sbx_cg_write){ .file = "pids.max" };
		snprintf(out[n++].value, sizeof(out[0].value), "%" PRIu64, pids);
	}
	return n;
}

bool
sbx_cgroup_key(const char *text, const char *key, uint64_t *v)
{
	size_t k = strlen(key);

	while (text && *text) {
		size_t len = strcspn(text, "\n");

		if (len > k + 1 && strncmp(text, key, k) == 0 && text[k] == ' ' &&
		    text[k + 1] >= '0' && text[k + 1] <= '9') {
			char *end;
			unsigned long long x;

			errno = 0;
			x = strtoull(text + k + 1, &end, 10);
			if (errno != 0 || end == text + k + 1 || (*end != '\n' && *end != '\0'))
				return false;
			*v = x;
			return true;
		}
		text += len;
		text += *text == '\n';
	}
	return false;
}

void
sbx_cgroup_enable_line(unsigned ctl, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", ctl & SBX_CG_MEMORY ? "+memory" : "",
	    (ctl & SBX_CG_MEMORY) && (ctl & SBX_CG_PIDS) ? " " : "",
	    ctl & SBX_CG_PIDS ? "+pids" : "");
}
