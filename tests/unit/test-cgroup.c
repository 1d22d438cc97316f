/* The cgroup v2 probe's decision (cgroup.c) over injected facts: every
 * kind of machine, including those no test machine here offers (a root
 * with memory and pids handed down, a delegated systemd user slice). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "cgroup.h"
#include "tap.h"
#include "util.h"

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
		.clone_into = true,
	};
}

#define BOTH (SBX_CG_MEMORY | SBX_CG_PIDS)

static void
decide(const struct sbx_cg_facts *f, enum sbx_cg_way want, const char *why_has, const char *desc)
{
	struct sbx_cg_decision d;

	sbx_cgroup_decide(f, BOTH, &d);
	if (!ok(d.way == want, "%s: way %d", desc, (int)want))
		diag("got way %d: %s", (int)d.way, d.why);
	if (want == SBX_CG_NONE)
		ok(why_has && strstr(d.why, why_has) != NULL, "%s: why names '%s' (%s)", desc,
		    why_has, d.why);
	else {
		is_str(d.why, "", "%s: no reason", desc);
		ok(d.ctl == BOTH, "%s: both controllers (%u)", desc, d.ctl);
	}
}

/* A decision for only some controllers, or with some missing. */
static void
decide_ctl(const struct sbx_cg_facts *f, unsigned want, enum sbx_cg_way way, unsigned ctl,
    const char *why_has, const char *desc)
{
	struct sbx_cg_decision d;

	sbx_cgroup_decide(f, want, &d);
	ok(d.way == way && d.ctl == ctl, "%s: way %d ctl %u (got %d %u: %s)", desc, (int)way, ctl,
	    (int)d.way, d.ctl, d.why);
	if (why_has)
		ok(strstr(d.why, why_has) != NULL, "%s: why names '%s' (%s)", desc, why_has, d.why);
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
		.root_writable = true,
		.clone_into = true };
	decide(&f, SBX_CG_NONE, "/sys/fs/cgroup/unified has no memory and pids controller",
	    "hybrid: memory and pids bound to v1");
	f.controllers = "hugetlb pids\n";
	decide(&f, SBX_CG_NONE, "never enables controllers for the whole machine",
	    "hybrid: pids in the v2 root, not handed down");
	decide_ctl(&f, SBX_CG_MEMORY, SBX_CG_NONE, 0, "has no memory controller",
	    "hybrid: only memory wanted, pids offered");
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
	decide_ctl(&f, BOTH, SBX_CG_AT_ROOT, SBX_CG_MEMORY, "no pids controller: that limit stays",
	    "root hands only memory down: memory by the leaf, pids by rlimit");
	decide_ctl(&f, SBX_CG_PIDS, SBX_CG_NONE, 0, "holds other processes",
	    "root hands only memory down, only pids wanted: no leaf");

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
	/* A kernel without CLONE_INTO_CGROUP: no leaf, even where one could
	 * be made. */
	f = delegated();
	f.clone_into = false;
	decide(&f, SBX_CG_NONE, "CLONE_INTO_CGROUP", "Linux before 5.7");
	f.root_subtree_control = "memory pids\n";
	f.root_writable = true;
	decide(&f, SBX_CG_NONE, "CLONE_INTO_CGROUP", "Linux before 5.7, root caller");
	ok(sbx_cgroup_release_at_least("5.7.0", 5, 7), "release: 5.7.0");
	ok(sbx_cgroup_release_at_least("6.1.0-18-amd64", 5, 7), "release: 6.1 Debian");
	ok(sbx_cgroup_release_at_least("5.10", 5, 7), "release: 5.10 is not 5.1");
	ok(!sbx_cgroup_release_at_least("5.6.19", 5, 7), "release: 5.6");
	ok(!sbx_cgroup_release_at_least("4.19.0", 5, 7), "release: 4.19");
	ok(!sbx_cgroup_release_at_least("", 5, 7), "release: empty");
	ok(!sbx_cgroup_release_at_least(NULL, 5, 7), "release: unknown");

	/* Only some wanted or offered. */
	f = delegated();
	decide_ctl(&f, SBX_CG_PIDS, SBX_CG_MOVE_SELF, SBX_CG_PIDS, NULL, "only pids wanted");
	decide_ctl(&f, SBX_CG_MEMORY, SBX_CG_MOVE_SELF, SBX_CG_MEMORY, NULL, "only memory wanted");
	decide_ctl(&f, 0, SBX_CG_NONE, 0, "no memory or pids limit", "nothing wanted");
	f.controllers = "cpu pids\n";
	decide_ctl(&f, BOTH, SBX_CG_MOVE_SELF, SBX_CG_PIDS, "has no memory controller: that limit",
	    "a slice offering pids only: a pids leaf");
	decide_ctl(&f, SBX_CG_MEMORY, SBX_CG_NONE, 0, "has no memory controller, which",
	    "a slice offering pids only, memory wanted: no leaf");

	/* The leaf's name. */
	{
		char a[64], b[64];

		sbx_cgroup_leaf_name(a, sizeof(a), 4242, 0xdeadbeef);
		is_str(a, "sbxrun-4242-deadbeef", "leaf name: pid and random word");
		sbx_cgroup_leaf_name(b, sizeof(b), 4242, 0x1);
		ok(strcmp(a, b) != 0 && strchr(b, '/') == NULL, "leaf names differ: %s", b);
		ok(strncmp(b, SBX_CG_SUP_NAME, strlen(SBX_CG_SUP_NAME)) != 0,
		    "a leaf is never named like sbxrun's own group");
	}
	/* What goes into a leaf. */
	{
		struct sbx_cg_write w[SBX_CG_MAX_WRITES];
		size_t n = sbx_cgroup_writes(BOTH, 268435456, 64, w);

		ok(n == 3, "writes: three files for memory and pids (%zu)", n);
		is_str(w[0].file, "memory.max", "writes: memory.max first");
		is_str(w[0].value, "268435456", "writes: memory.max in bytes");
		ok(!w[0].optional, "writes: memory.max is required");
		is_str(w[1].file, "memory.swap.max", "writes: then memory.swap.max");
		is_str(w[1].value, "0", "writes: no swap, memory means memory plus swap");
		ok(w[1].optional, "writes: memory.swap.max may be absent (no swap accounting)");
		is_str(w[2].file, "pids.max", "writes: pids.max");
		is_str(w[2].value, "64", "writes: pids.max is the count");
		n = sbx_cgroup_writes(SBX_CG_PIDS, 268435456, 64, w);
		ok(n == 1 && strcmp(w[0].file, "pids.max") == 0,
		    "writes: a pids-only leaf gets no memory file");
		n = sbx_cgroup_writes(BOTH, 0, 64, w);
		ok(n == 1, "writes: an unset memory limit writes nothing for memory");
		n = sbx_cgroup_writes(0, 1, 1, w);
		ok(n == 0, "writes: no controller, nothing");
	}
	/* The enable line. */
	{
		char line[32];

		sbx_cgroup_enable_line(BOTH, line, sizeof(line));
		is_str(line, "+memory +pids", "enable: both");
		sbx_cgroup_enable_line(SBX_CG_PIDS, line, sizeof(line));
		is_str(line, "+pids", "enable: pids");
		sbx_cgroup_enable_line(SBX_CG_MEMORY, line, sizeof(line));
		is_str(line, "+memory", "enable: memory");
	}
	/* Flat keyed files. */
	{
		const char *ev = "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n";
		uint64_t v = 99;

		ok(sbx_cgroup_key(ev, "oom_kill", &v) && v == 1,
		    "key: oom_kill, not oom_group_kill");
		ok(sbx_cgroup_key(ev, "oom", &v) && v == 2, "key: oom, not a prefix of oom_kill");
		ok(sbx_cgroup_key(ev, "max", &v) && v == 12, "key: max");
		ok(!sbx_cgroup_key(ev, "absent", &v), "key: absent");
		ok(!sbx_cgroup_key(NULL, "oom_kill", &v), "key: unreadable file");
		ok(!sbx_cgroup_key("oom_kill x\n", "oom_kill", &v), "key: not a number");
		ok(!sbx_cgroup_key("oom_kill -1\n", "oom_kill", &v), "key: negative");
		ok(!sbx_cgroup_key("oom_kill 3x\n", "oom_kill", &v), "key: trailing junk");
		ok(sbx_cgroup_key("oom_kill 7", "oom_kill", &v) && v == 7, "key: no final newline");
	}
	/* The probe reads our group's own facts (subtree_control, procs,
	 * writability) only when sbx_cgroup_needs_group_facts() says the
	 * decision looks at them: wherever it says no, two opposite sets of
	 * them give the same decision; and the root's writability is read
	 * only when its subtree_control offers a wanted controller. */
	{
		const char *lists[] = { NULL, "", "cpu io\n", "memory\n", "pids\n",
			"cpu memory pids\n" };
		const char *selves[] = { "/", "/user.slice/app.scope", NULL };
		int checked = 0, bad = 0, needed = 0;

		for (unsigned want = 0; want <= BOTH; want++)
			for (size_t r = 0; r < SBX_ARRAY_LEN(lists); r++)
				for (size_t c = 0; c < SBX_ARRAY_LEN(lists); c++)
					for (size_t sf = 0; sf < SBX_ARRAY_LEN(selves); sf++)
						for (int rw = 0; rw < 2; rw++)
							for (int ci = 0; ci < 2; ci++) {
								struct sbx_cg_facts a = {
									.mount = "/sys/fs/cgroup",
									.self = selves[sf],
									.controllers = lists[c],
									.root_subtree_control =
									    lists[r],
									.root_writable = rw,
									.clone_into = ci,
									.subtree_control = "\n",
									.dir_writable = true,
									.procs_writable = true,
									.subtree_writable = true,
									.nprocs = 1,
								};
								struct sbx_cg_facts b = a;
								struct sbx_cg_decision da, db;

								b.subtree_control = NULL;
								b.dir_writable = false;
								b.procs_writable = false;
								b.subtree_writable = false;
								b.nprocs = 7;
								if (sbx_cgroup_needs_group_facts(
									&a, want)) {
									needed++;
									continue;
								}
								sbx_cgroup_decide(&a, want, &da);
								sbx_cgroup_decide(&b, want, &db);
								checked++;
								if (da.way != db.way ||
								    da.ctl != db.ctl ||
								    strcmp(da.why, db.why) != 0)
									bad++;
							}
		ok(checked > 0 && needed > 0 && bad == 0,
		    "group facts: unread only where no decision looks at them (%d checked, %d "
		    "needed, %d differ)",
		    checked, needed, bad);
	}
	return done_testing();
}
