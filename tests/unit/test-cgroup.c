/* The cgroup v2 probe's decision (cgroup.c) over injected facts: every
 * kind of machine, including those no test machine here offers (a root
 * with memory and pids handed down, a delegated systemd user slice). */
#include "config.h"

#include <string.h>

#include "cgroup.h"
#include "tap.h"

/* A delegated user slice where sbxrun is alone: the good case. */
static struct sbx_cg_facts
delegated(void)
{
	return (struct sbx_cg_facts){
		.mount = "/sys/fs/cgroup",
		.self = "/user.slice/user-1000.slice/user@1000.service/app.slice/run.scope",
		.controllers = "cpu io memory pids\n",
		.subtree_control = "\n",
		.dir_writable = true,
		.procs_writable = true,
		.subtree_writable = true,
		.nprocs = 1,
		.root_subtree_control = "cpu io memory pids\n",
		.root_writable = false,
	};
}

static void
decide(const struct sbx_cg_facts *f, enum sbx_cg_way want, const char *why_has, const char *desc)
{
	struct sbx_cg_decision d;

	sbx_cgroup_decide(f, &d);
	if (!ok(d.way == want, "%s: way %d", desc, (int)want))
		diag("got way %d: %s", (int)d.way, d.why);
	if (want == SBX_CG_NONE)
		ok(why_has && strstr(d.why, why_has) != NULL, "%s: why names '%s' (%s)", desc,
		    why_has, d.why);
	else
		is_str(d.why, "", "%s: no reason", desc);
}

int
main(void)
{
	struct sbx_cg_facts f;

	/* The word list of cgroup.controllers. */
	ok(sbx_cgroup_has("cpu memory pids\n", "pids"), "has: last word before the newline");
	ok(sbx_cgroup_has("memory", "memory"), "has: the only word");
	ok(!sbx_cgroup_has("hugetlb memory_x\n", "memory"), "has: not a prefix");
	ok(!sbx_cgroup_has("cpumemory\n", "memory"), "has: not a suffix");
	ok(!sbx_cgroup_has(NULL, "memory"), "has: an unreadable file has nothing");
	ok(!sbx_cgroup_has("", "pids"), "has: an empty file has nothing");

	f = delegated();
	decide(&f, SBX_CG_MOVE_SELF, NULL, "a delegated slice, sbxrun alone in it");

	/* This machine: hybrid, memory and pids bound to v1. */
	f = (struct sbx_cg_facts){ .mount = "/sys/fs/cgroup/unified",
		.self = "/",
		.controllers = "hugetlb\n",
		.subtree_control = "\n",
		.dir_writable = true,
		.procs_writable = true,
		.subtree_writable = true,
		.nprocs = 40,
		.root_subtree_control = "\n",
		.root_writable = true };
	decide(&f, SBX_CG_NONE, "/sys/fs/cgroup/unified has no memory and pids controller",
	    "hybrid: memory and pids bound to v1");
	f.controllers = "hugetlb pids\n";
	decide(&f, SBX_CG_NONE, "has no memory controller", "hybrid: only memory missing");
	f.controllers = "memory hugetlb\n";
	decide(&f, SBX_CG_NONE, "has no pids controller", "hybrid: only pids missing");
	/* Controllers in the root, not handed down: never enabled. */
	f.controllers = "cpu memory pids\n";
	decide(&f, SBX_CG_NONE, "never enables controllers for the whole machine",
	    "root group without subtree_control: nothing enabled machine-wide");
	/* Root with memory and pids handed down (systemd's root group). */
	f.root_subtree_control = "cpu memory pids\n";
	decide(&f, SBX_CG_AT_ROOT, NULL, "root caller, controllers handed down by the root");
	f = delegated();
	f.root_subtree_control = "memory pids\n";
	f.root_writable = true;
	f.nprocs = 7;
	decide(&f, SBX_CG_AT_ROOT, NULL, "root caller in a crowded session: below the root");
	f.root_subtree_control = "memory\n";
	decide(&f, SBX_CG_NONE, "holds other processes",
	    "root hands only memory down: not at the root");

	/* Nothing mounted, no v2 line. */
	f = delegated();
	f.mount = NULL;
	decide(&f, SBX_CG_NONE, "no cgroup v2 hierarchy is mounted", "no cgroup2 mount");
	f = delegated();
	f.self = NULL;
	decide(&f, SBX_CG_NONE, "no 0:: line", "no 0:: line in /proc/self/cgroup");
	f.self = "relative";
	decide(&f, SBX_CG_NONE, "no 0:: line", "a 0:: path that is not absolute");
	f = delegated();
	f.controllers = NULL;
	decide(&f, SBX_CG_NONE, "cannot be read", "cgroup.controllers unreadable");

	/* Not delegated: any of the three files. */
	f = delegated();
	f.dir_writable = false;
	decide(&f, SBX_CG_NONE, "is not delegated to us", "directory not writable");
	f = delegated();
	f.procs_writable = false;
	decide(&f, SBX_CG_NONE, "is not delegated to us", "cgroup.procs not writable");
	f = delegated();
	f.subtree_writable = false;
	decide(&f, SBX_CG_NONE, "is not delegated to us", "subtree_control not writable");
	/* Others in the group: the controllers cannot be enabled below. */
	f = delegated();
	f.nprocs = 3;
	decide(&f, SBX_CG_NONE, "holds other processes", "a shared session scope");
	f.nprocs = -1;
	decide(&f, SBX_CG_NONE, "holds other processes", "cgroup.procs unreadable");
	/* A root not ours: a delegated user is not let below the root. */
	f = delegated();
	f.root_subtree_control = "memory pids\n";
	f.root_writable = false;
	decide(&f, SBX_CG_MOVE_SELF, NULL, "the root's controllers do not make it ours");
	/* The group's controllers offered but another controller missing
	 * from the parent: names the group, not the mount. */
	f = delegated();
	f.controllers = "cpu\n";
	decide(&f, SBX_CG_NONE, "run.scope has no memory and pids controller",
	    "a slice whose parent handed neither down");
	return done_testing();
}
