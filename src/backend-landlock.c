/* The landlock backend: a kernel-enforced jail without any namespace, for
 * the places that forbid unprivileged user namespaces (container seccomp
 * profiles, AppArmor's userns restriction, user.max_user_namespaces=0).
 * Landlock filesystem, TCP and scope rules, the common seccomp filter
 * plus a host filter for what namespaces would have kept apart, rlimits;
 * the tree is kept by sbxrun's init, a child subreaper.
 *
 * Launch order:
 *
 *   sbxrun (parent)     reads the plan the core built (jail.h; no
 *                       mounts, the private TMPDIR among the rules, the
 *                       watch list); the keeper (keeper.h)
 *                       makes the mount symlinks (--allow-degraded) and,
 *                       for a root caller, lends the workdir to uid
 *                       65534 (sbxrun meanwhile empties its own bounding
 *                       set, which what it starts next inherits);
 *                       sbx_launch_plain().
 *   init                a fork of sbxrun: new session, child subreaper,
 *                       the caller's ids, outside any Landlock domain (so
 *                       the payload's signal scope keeps it out of the
 *                       sandbox's reach); kills the tree when the payload
 *                       exits or sbxrun dies (EOF on the life pipe), and
 *                       then, when sbxrun died, puts back the protected
 *                       entries from their copies (ll_orphaned).
 *   payload             (the setup hook, after init forked it, before the
 *                       rlimits and exec) a root caller's payload checks
 *                       its bounding set is empty (dropping what is
 *                       left) and takes uid/gid 65534 with no
 *                       groups, and checks that uid can reach the
 *                       workdir and TMPDIR by name; PDEATHSIG; every
 *                       capability dropped; no_new_privs; the Landlock
 *                       domain (filesystem, TCP when the network is fully
 *                       off, scopes); the host filter, then (listener
 *                       hook) the common filter with the metadata calls
 *                       and, under network rules, the network calls
 *                       trapped; the listener is
 *                       sent to sbxrun over a socket (SCM_RIGHTS), or,
 *                       when the network calls are trapped (sendmsg among
 *                       them), taken by sbxrun with pidfd_getfd; sbxrun
 *                       answers them.
 *
 * What the run changes on the host (the lend, the links, what the sandbox
 * makes where nothing may be made) is made and undone by sbxrun's keeper
 * (keeper.h), which outlives sbxrun and init. With network
 * rules, sbxrun spawns from a launcher thread already in the network's
 * Landlock domain (main.c, network.h), so init and the payload nest inside
 * it. Unix socket connects and addressed datagrams are refused then: with
 * the host's filesystem in view, a path could reach any host daemon, and
 * Landlock does not judge connects.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "fsutil.h"
#include "keeper.h"
#include "launch.h"
#include "linux-caps.h"
#include "linux-hostfilter.h"
#include "linux-landlock.h"
#include "linux-mount.h"
#include "linux-gitguard.h"
#include "linux-mountwatch.h"
#include "linux-owner.h"
#include "linux-probe.h"
#include "linux-protsnap.h"
#include "linux-seccomp.h"
#include "netsup.h"
#include "network.h"
#include "phase.h"
#include "plan.h"
#include "resolve.h"
#include "rlimits.h"
#include "supcfg.h"

/* The uid and gid a root caller's payload runs as: the id the namespaces
 * backend maps root to, so both backends leave the same traces. */
#define SBX_LL_NOBODY SBX_SANDBOX_ROOT_ID

/* The run's state in sbxrun. What it changes on the host (the lend, the
 * mount links, what the sandbox may make where nothing may be made) is
 * made and recorded by the keeper, which undoes it when ll_cleanup() asks,
 * or alone when sbxrun dies (keeper.h). */
struct ll_state {
	struct sbx_keeper *keeper;
	struct sbx_strv links; /* mount symlinks made in the workdir */
	struct sbx_strv targets; /* what each of them points to */
	/* For the supervisor (sbx_child.frozen, names_ruleset): the
	 * directories the plan froze, and the ruleset the name supervisor's
	 * workers enter, or -1. */
	struct sbx_strv frozen;
	int names_ruleset;
	struct sbx_protsnap *snap; /* the plan's watched paths, copied */
	/* A temp workdir that is not kept: the keeper removes it whole at the
	 * end, and nothing reads it before (no git guard either), but for
	 * another user's mounts on it, which the removal would not cross
	 * (linux-mountwatch.h). */
	bool throwaway;
	int mounts_fd; /* not ours */
	char *mounts; /* the table read before the run */
	char *workdir;
};

/* What init and the payload need after the fork (a copy of the parent's
 * memory). */
struct ll_payload {
	const struct sbx_plan *plan;
	struct ll_state *state;
	const char *workdir;
	const char *tmpdir;
	int abi;
	bool net_off;
	bool own_lo; /* ... but the sandbox's own loopback is served */
	bool net_notify; /* the listener hook loads the common filter too */
	bool trap_net; /* ... with the network calls in it */
	bool trace; /* ... and what --trace observes */
	bool trap_names; /* ... and the name-changing calls (namesup.h) */
	struct sbx_landlock_net net;
	struct sbx_ports bind, connect;
	bool seccomp;
	bool nobody; /* root caller: take SBX_LL_NOBODY */
	/* The launching thread emptied its bounding set (empty_own_bounding()
	 * returned with every capability gone): init and the payload were
	 * born with it empty, and the payload reads it no more. */
	bool bset_empty;
	int wd; /* the workdir's pinned descriptor */
	int ruleset; /* made by sbxrun from the pins, or -1 (ABI 0) */
	/* The filters, prepared by sbxrun: the payload only loads them
	 * (it runs in init's memory, launch.h's vfork_safe). */
	struct sbx_bpf_prog common; /* empty when the listener hook loads it */
	struct sbx_bpf_prog host;
	struct sbx_bpf_prog listen;
};

static bool
net_fully_off(const struct sbx_policy *p)
{
	return sbx_policy_net_off(p);
}

/* seccomp(SET_MODE_FILTER) without a program: the kernel copies the
 * program before it checks anything else, so EFAULT means filters are
 * there; EINVAL means a kernel without them. No fork needed. */
static bool
seccomp_filters_work(void)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL) < 0 && errno == EFAULT;
}

/* A run measures what it needs (linux-probe.h): the supervisor reads the
 * paths of the trapped metadata calls from the sandbox's memory, by
 * process_vm_readv or else /proc/PID/mem. The listener travels over a
 * socket (not pidfd_getfd), so only the network rules need pidfd_getfd
 * (ll_enforces). A root caller's sandbox runs as uid 65534 on a lent
 * workdir: without CAP_SETUID, CAP_SETGID and CAP_CHOWN (a container
 * started with --cap-drop ALL) it would run as uid 0 and read what only
 * root may read, so the backend is refused, by name. */
static int
ll_probe(struct sbx_caps *caps, struct sbx_err *err)
{
	caps->landlock_abi = sbx_landlock_abi();
	if (!caps->full_probe)
		caps->seccomp = seccomp_filters_work(); /* --probe measured it already */
	if (caps->landlock_abi == 0 && !caps->seccomp)
		return sbx_err_set(err, SBX_EUNAVAIL,
		    "neither Landlock nor seccomp filters are available in this kernel");
	if (caps->caller_uid == 0 && geteuid() == 0 &&
	    !(sbx_caps_has(CAP_SETUID) && sbx_caps_has(CAP_SETGID) && sbx_caps_has(CAP_CHOWN)))
		return sbx_err_set(err, SBX_EUNAVAIL,
		    "the caller is root without CAP_SETUID, CAP_SETGID and CAP_CHOWN, so "
		    "the sandbox cannot run as uid %d and would keep root's access to files; "
		    "run sbxrun as a non-root user",
		    SBX_LL_NOBODY);
	if (caps->seccomp) {
		if (sbx_probe_supervision(caps, err) < 0)
			return -1;
		if (!caps->vm_readv && !caps->proc_mem)
			return sbx_err_set(err, SBX_EUNAVAIL, "%s", caps->mem_why);
		/* A root caller's sandbox runs as uid 65534: taking a descriptor
		 * of a process of another uid is a ptrace access that needs
		 * CAP_SYS_PTRACE (ptrace(2), "Ptrace access mode checking"),
		 * which container runtimes leave out of root's set. */
		if (caps->pidfd_getfd && caps->caller_uid == 0 && !sbx_caps_has(CAP_SYS_PTRACE)) {
			caps->pidfd_getfd = false;
			snprintf(caps->pidfd_getfd_why, sizeof(caps->pidfd_getfd_why),
			    "root without CAP_SYS_PTRACE cannot take descriptors of a uid %d "
			    "sandbox (pidfd_getfd)",
			    SBX_LL_NOBODY);
		}
	}
	return 0;
}

/* What each rule needs here. Landlock below ABI 3 does not check
 * truncate(2), so a file outside the workdir could still be emptied:
 * fs and protect need ABI 3. Host processes are unsignalable only with
 * the ABI 6 signal scope. "Nothing reachable" holds by the host filter's
 * refusal of every socket, which needs seccomp, not Landlock (its TCP
 * rules alone leave UDP, Fast Open, listen()'s automatic bind and
 * pathname unix sockets open). Every other network rule is the network
 * supervisor's, which needs seccomp too. Mounts: a path cannot be
 * remapped without a mount namespace (--allow-degraded gets a symlink
 * instead). */
static uint32_t
ll_enforces(const struct sbx_policy *p, const struct sbx_caps *caps)
{
	uint32_t r = SBX_RULE_BIT(SBX_RULE_TIMEOUT) | sbx_limits_rlimit_rules(p);
	int abi = caps->landlock_abi;

	if (abi >= 1)
		r |= SBX_RULE_BIT(SBX_RULE_DENY);
	/* Metadata changes (chmod, chown, times, xattrs) are the supervisor's:
	 * without seccomp the caller's own files could change mode. */
	if (abi >= 3 && caps->seccomp)
		r |= SBX_RULE_BIT(SBX_RULE_FS) | SBX_RULE_BIT(SBX_RULE_PROTECT);
	if (abi >= 6)
		r |= SBX_RULE_BIT(SBX_RULE_PROCESSES);
	if (caps->seccomp && net_fully_off(p))
		r |= SBX_RULE_BIT(SBX_RULE_NETWORK);
	/* The network supervisor acts on the sandbox's sockets, which it
	 * takes with pidfd_getfd(): where that is refused (Docker's default
	 * seccomp profile), no network rule but "off" holds. */
	if (!net_fully_off(p) && caps->seccomp && caps->pidfd_getfd)
		r |= SBX_RULE_BIT(SBX_RULE_NETWORK) | SBX_RULE_BIT(SBX_RULE_LISTEN) |
		    SBX_RULE_BIT(SBX_RULE_CONNECT) | SBX_RULE_BIT(SBX_RULE_LOOPBACK) |
		    SBX_RULE_BIT(SBX_RULE_PROXY);
	return r;
}

static unsigned
host_filter_rules(const struct sbx_policy *p)
{
	return SBX_HOSTF_NOIPC | SBX_HOSTF_NOSETID | (net_fully_off(p) ? SBX_HOSTF_NOSOCKET : 0);
}

static int
ll_describe(const struct sbx_jail *j, struct sbx_buf *out, SBX_UNUSED struct sbx_err *err)
{
	const struct sbx_policy *p = j->policy;
	const struct sbx_exec *x = j->exec;
	const struct sbx_caps *caps = j->caps;
	const struct sbx_plan *plan = &j->plan;
	int abi = caps->landlock_abi;

	sbx_buf_printf(out,
	    "# backend landlock: no namespaces; Landlock ABI %d%s, seccomp%s, "
	    "rlimits\n",
	    abi, abi ? "" : " (none here: no filesystem rules)",
	    caps->seccomp ? "" : " (none here)");
	sbx_buf_puts(out,
	    "# tree: sbxrun's init (a fork of sbxrun, outside the Landlock domain) "
	    "is a child subreaper in a new session; the payload is its child\n");
	if (x->caller_uid == 0)
		sbx_buf_printf(out,
		    "# ids: uid %d gid %d, no groups (the caller is root); the "
		    "workdir is lent to uid %d for the run and handed back after it\n",
		    SBX_LL_NOBODY, SBX_LL_NOBODY, SBX_LL_NOBODY);
	else
		sbx_buf_printf(out, "# ids: uid %u gid %u, the caller's own\n",
		    (unsigned)x->caller_uid, (unsigned)x->caller_gid);
	sbx_buf_printf(out,
	    "# tmp: TMPDIR=%s, private, removed after the run; /tmp itself is "
	    "the host's and stays unwritable\n",
	    x->tmpdir);
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct sbx_mount *m = &p->mounts[i];

		sbx_buf_printf(out, "# mount %s <- %s %s: landlock cannot remap a path; %s\n",
		    m->target, m->source, m->rw ? "rw" : "ro",
		    p->allow_degraded ? "made a symbolic link to the source instead (degraded)"
				      : "refused (--allow-degraded makes a symbolic link instead)");
		sbx_buf_printf(
		    out, "symlink    %s/%s -> %s\n", x->fs->workdir, m->target, m->source);
	}
	sbx_plan_describe(plan, out);
	for (size_t i = 0; i < plan->watch.n; i++)
		sbx_buf_printf(out,
		    "# protected (built-in list): %s/%s is copied before the run; if the "
		    "sandbox touched it, what it left is moved aside and the copy put back "
		    "(too large to copy, or holding a file with another hard link: read-only "
		    "rules instead)\n",
		    x->fs->workdir, plan->watch.v[i]);
	for (size_t i = 0; i < plan->frozen.n; i++)
		sbx_buf_printf(out,
		    "# frozen: %s takes no new entry, removal or rename (a hidden or "
		    "protected path lies below)\n",
		    plan->frozen.v[i]);
	if (plan->guard_names)
		sbx_buf_printf(out,
		    "# names: %s keeps its write rights although protected paths lie below; "
		    "sbxrun's supervisor judges every call that makes, removes, renames, "
		    "writes or truncates a file (refused at or below .git and the protected "
		    "paths)\n",
		    x->fs->workdir);
	if (net_fully_off(p) && abi >= 4)
		sbx_buf_puts(out, "landlock   tcp bind: none, tcp connect: none\n");
	if (abi >= 6)
		sbx_buf_puts(out, "landlock   scopes: abstract unix sockets, signals\n");
	else
		sbx_buf_printf(out,
		    "# landlock ABI %d has no scopes: host processes of the same uid "
		    "stay signalable\n",
		    abi);
	if (caps->seccomp) {
		sbx_seccomp_describe(x->trace ? SBX_SECCOMP_TRACE_NOTIFY : 0, out);
		sbx_hostfilter_describe(host_filter_rules(p), out);
	}
	sbx_buf_printf(out,
	    "# process: new session, no capabilities (%s), no_new_privs, "
	    "SIGKILL on the death of init (PR_SET_PDEATHSIG)\n",
	    x->caller_uid == 0 ? "bounding set empty"
			       : "the bounding set stays: emptying it needs CAP_SETPCAP, and "
				 "no_new_privs keeps exec from granting any");
	sbx_limits_describe(x, out);
	sbx_buf_puts(out,
	    "# not covered by Landlock: host processes stay visible in /proc; the "
	    "metadata (stat, readlink, inotify) of paths outside the rules stays visible\n");
	sbx_buf_puts(out,
	    "# judged by sbxrun's supervisor: chmod, chown, times and xattr changes (only in the "
	    "workdir, the private TMPDIR and rw mount sources)\n");
	sbx_buf_puts(out,
	    "# judged by sbxrun's supervisor: setpriority, ioprio_set, prlimit64 (setting), "
	    "sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr naming a "
	    "task (only the caller's own thread or process; no process group but its own, "
	    "no user's)\n");
	return 0;
}

/* A root caller's payload becomes SBX_LL_NOBODY. The bounding set goes
 * first, while CAP_SETPCAP is held: leaving uid 0 empties the other sets
 * (no SECBIT_KEEP_CAPS) but not this one. The raw system calls change
 * this task's credentials only (credentials(7)); glibc's wrappers would
 * take a lock to broadcast the change to threads, in memory the payload
 * shares with init (launch.h, vfork_safe). The payload is one task. */
static int
drop_root(const struct ll_payload *pl, struct sbx_err *err)
{
	/* Empty already, as a rule: sbxrun emptied its own while the keeper
	 * lent the workdir (lend_to_nobody()), and init and the payload
	 * inherit it (credentials(7): a child's are a copy of its parent
	 * thread's). Emptied here when that failed. */
	if (!pl->bset_empty && sbx_caps_bset_empty() < 0 && errno != EPERM)
		return sbx_err_sys(err, "cannot empty the bounding set");
	if (syscall(SYS_setgroups, 0, NULL) < 0)
		return sbx_err_sys(err, "setgroups");
	if (syscall(SYS_setresgid, SBX_LL_NOBODY, SBX_LL_NOBODY, SBX_LL_NOBODY) < 0 ||
	    syscall(SYS_setresuid, SBX_LL_NOBODY, SBX_LL_NOBODY, SBX_LL_NOBODY) < 0)
		return sbx_err_sys(err, "cannot take uid %d", SBX_LL_NOBODY);
	return 0;
}

/* Runs in the payload while sbxrun's descriptors are still open: the
 * workdir is entered by its pinned descriptor (the launcher's chdir went
 * by name), and the ruleset sbxrun built from the pins is kept for
 * payload_setup(). */
static int
payload_prepare(void *ctx, int *keep, struct sbx_err *err)
{
	const struct ll_payload *pl = ctx;

	if (fchdir(pl->wd) < 0)
		return sbx_err_sys(err, "cannot enter the workdir");
	*keep = pl->ruleset;
	return 0;
}

/* Runs in the payload, before the rlimits and exec. */
static int
payload_setup(void *ctx, struct sbx_err *err)
{
	const struct ll_payload *pl = ctx;
	pid_t init = getppid();

	/* The workdir and TMPDIR are lent by now (lend_to_nobody()); the
	 * payload, with the ids it runs as, checks it can reach them by
	 * name ($HOME, $PWD, $TMPDIR), before anything of the caller's
	 * runs, so that a closed parent is refused with its name instead
	 * of failing the command. */
	if (pl->nobody) {
		if (drop_root(pl, err) < 0)
			return -1;
		if (sbx_owner_check_reach((const char *const[]){ pl->workdir, pl->tmpdir }, 2,
			SBX_LL_NOBODY, err) < 0)
			return sbx_err_wrap(err,
			    "landlock: the caller is root, so the sandbox runs as uid %d",
			    SBX_LL_NOBODY);
	}
	/* Set after the ids (a change of credentials clears it). Init is
	 * only ever killed with the whole tree, but if it dies first the
	 * payload must not run on as sbxrun's orphan; init itself has no
	 * PDEATHSIG (launch.c: it must outlive sbxrun to kill the tree). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return sbx_err_sys(err, "PR_SET_PDEATHSIG");
	if (getppid() != init)
		return sbx_err_set(err, ESRCH, "the jail's init died while starting");
	if (sbx_caps_drop_all(err) < 0 || sbx_no_new_privs(err) < 0)
		return -1;
	if (pl->ruleset >= 0) {
		int kept = sbx_payload_kept_fd();

		if (sbx_landlock_enforce(kept, err) < 0)
			return -1;
		close(kept);
	}
	if (!pl->seccomp)
		return 0;
	/* With a listener, its hook loads the common filter (with the traps). */
	if (sbx_bpf_prog_load(&pl->common, NULL, err) < 0)
		return -1;
	return sbx_bpf_prog_load(&pl->host, NULL, err);
}

/* Runs in the payload after its setup: the filter that traps the
 * metadata calls (Landlock does not judge chmod, chown, times, xattrs)
 * and, under network rules, the network calls to sbxrun's supervisor.
 * Loaded here, not in init, which stays unfiltered. */
static int
payload_listener(void *ctx, int *fd, struct sbx_err *err)
{
	const struct ll_payload *pl = ctx;

	return sbx_bpf_prog_load(&pl->listen, fd, err);
}

/* The payload's filters, made before the launch (sbx_seccomp_prepare):
 * the precomputed programs, or libseccomp's built here, so that the
 * payload only loads them. */
static int
prepare_filters(struct ll_payload *pl, struct sbx_err *err)
{
	unsigned what = SBX_HOSTF_NOIPC | SBX_HOSTF_NOSETID |
	    (pl->own_lo           ? SBX_HOSTF_INETONLY
		    : pl->net_off ? SBX_HOSTF_NOSOCKET
				  : 0);
	unsigned flags = SBX_SECCOMP_META_NOTIFY | (pl->trap_net ? SBX_SECCOMP_NET_NOTIFY : 0) |
	    (pl->trace ? SBX_SECCOMP_TRACE_NOTIFY : 0) |
	    (pl->trap_names ? SBX_SECCOMP_NAME_NOTIFY : 0);
	struct sbx_bpf m;

	if (!pl->seccomp)
		return 0;
	/* The payload loads the common filter (without a listener), the host
	 * filter, then the listener's: a pair made one program at build time
	 * is loaded as that one (linux-seccomp.h). */
	if (!pl->net_notify && sbx_bpf_merged_find(0, what, true, &m)) {
		pl->common = (struct sbx_bpf_prog){ .insns = m.insns, .len = m.len };
		return 0;
	}
	if (pl->net_notify && sbx_bpf_merged_find(flags, what, false, &m)) {
		pl->listen =
		    (struct sbx_bpf_prog){ .insns = m.insns, .len = m.len, .listener = true };
		return 0;
	}
	if (!pl->net_notify && sbx_seccomp_prepare(0, &pl->common, err) < 0)
		return -1;
	if (sbx_hostfilter_prepare(what, &pl->host, err) < 0)
		return -1;
	if (pl->net_notify && sbx_seccomp_prepare(flags, &pl->listen, err) < 0)
		return -1;
	return 0;
}

static void
free_filters(struct ll_payload *pl)
{
	sbx_bpf_prog_free(&pl->common);
	sbx_bpf_prog_free(&pl->host);
	sbx_bpf_prog_free(&pl->listen);
}

/* Under --allow-degraded a mount becomes WORKDIR/TARGET -> SOURCE: the
 * source's own rules apply wherever it is reached from, but it is a
 * symlink, not a mount (find and cp -r do not descend into it, an
 * atomic rename over a file mount replaces the link). An existing
 * target is refused: it would have to be moved away. */
static int
make_links(
    const struct sbx_policy *p, const struct sbx_exec *x, struct ll_state *st, struct sbx_err *err)
{
	int wd = sbx_fsview_workdir_fd(x->fs);

	for (size_t i = 0; i < p->nmounts; i++) {
		const struct sbx_mount *m = &p->mounts[i];

		if (sbx_keeper_link(st->keeper, wd, m->target, m->source, err) < 0)
			return -1;
		sbx_strv_push_take(&st->links, sbx_path_join(x->fs->workdir, m->target));
		sbx_strv_push(&st->targets, m->source);
	}
	return 0;
}

/* The directories the plan froze, which the supervisor's on-behalf calls
 * leave alone as the Landlock rules leave them to the sandbox's own; where
 * the workdir kept its write rights, the directories leading to a
 * protected path keep their names too (namesup.h). */
static void
make_frozen(const struct sbx_plan *plan, struct sbx_strv *frozen)
{
	sbx_strv_copy(frozen, &plan->frozen);
	for (size_t i = 0; plan->guard_names && i < plan->guarded.n; i++)
		sbx_strv_push(frozen, plan->guarded.v[i]);
}

/* What sbxrun does while the keeper lends: its own bounding set emptied,
 * which init, the payload and sbxrun's later threads (the supervisor's)
 * inherit, so that the threads only check it and the payload not even
 * that (~40 drops, ~2 us each, off the payload's path;
 * doc/design/startup.md, sections 23 and 30). The
 * capabilities sbxrun holds stay: the set bounds only what an exec could
 * gain, and no process of sbxrun's execs after this but the payload,
 * which drops its own capabilities. *emptied says whether every one went;
 * when not, the payload drops its own (drop_root()). */
static void
empty_own_bounding(void *emptied)
{
	*(bool *)emptied = sbx_caps_bset_empty() == 0;
}

/* A root caller's workdir and TMPDIR become the sandbox's for the run:
 * the keeper lends them, so that they are handed back even if sbxrun is
 * killed during the lend, the run or the hand-back. */
static int
lend_to_nobody(const struct sbx_policy *p, const struct sbx_exec *x, struct ll_state *st,
    struct ll_payload *pl, struct sbx_err *err)
{
	struct sbx_strv skip = { 0 };
	int r;

	sbx_owner_skips(p, x->fs, &skip);
	/* A temp workdir that is not kept is removed whole at the end:
	 * nothing of it needs handing back. */
	r = sbx_keeper_lend(st->keeper, sbx_fsview_workdir_fd(x->fs), x->fs->workdir, x->tmpdir,
	    x->caller_uid, x->caller_gid, SBX_LL_NOBODY, SBX_LL_NOBODY, &skip, st->throwaway,
	    SBX_KEEPER_ACLS_NONE, empty_own_bounding, &pl->bset_empty, err);
	sbx_strv_free(&skip);
	return r;
}

static void
warn(struct sbx_report *r, char *text)
{
	sbx_strv_push_take(&r->warnings, text);
}

/* Once the tree is gone (or the spawn failed): the built-in protected
 * entries the sandbox touched are put back from their copies; then the
 * keeper moves aside what the sandbox made where nothing may be made (a
 * .git, a protected path that did not exist), so that no git or direnv of
 * the caller's reads it, removes the links and hands the workdir back.
 * With ask_only (after the run, a thrown-away workdir) the undo is asked
 * and not waited for: its answer is read with the keeper's FINISH, and
 * its warnings join the report there (main.c, cleanup_files()). */
static void
state_free(struct ll_state *st, struct sbx_report *r, bool ask_only)
{
	sbx_protsnap_restore(st->snap, r ? &r->warnings : NULL);
	st->snap = NULL;
	if (ask_only)
		sbx_keeper_undo_run_ask(st->keeper);
	else
		sbx_keeper_undo_run(st->keeper, r ? &r->warnings : NULL);
	sbx_strv_free(&st->links);
	sbx_strv_free(&st->targets);
	sbx_strv_free(&st->frozen);
	free(st->mounts);
	free(st->workdir);
	if (st->names_ruleset >= 0)
		close(st->names_ruleset);
	free(st);
}

/* In init, once the tree is killed and reaped, when sbxrun died first
 * (launch.h): the protected entries the sandbox touched are put back as
 * state_free() puts them back after a run sbxrun saw to its end, and
 * before the same order's next step, the keeper's undo, which waits for
 * init to close its hold pipe. Nothing of the sandbox's is left to
 * plant them again. Init has the caller's ids, as sbxrun, and no
 * Landlock filesystem rule or seccomp filter. No report is left to
 * warn in: a copy that cannot be put back stays where it is (the keeper
 * is told to leave it). */
static void
ll_orphaned(void *ctx)
{
	struct ll_payload *pl = ctx;

	sbx_protsnap_restore(pl->state->snap, NULL);
	pl->state->snap = NULL;
}

/* After the run (the tree is gone): links away, the workdir back. */
static void
ll_cleanup(struct sbx_child *c, struct sbx_report *r)
{
	struct ll_state *st = c->priv;

	if (st && st->throwaway && st->mounts)
		sbx_mountwatch_check(st->mounts_fd, &st->mounts, st->workdir, false, &r->warnings);
	if (st)
		state_free(st, r, st->throwaway);
	c->priv = NULL;
}

/* Copies the plan's watched paths before anything of the sandbox runs
 * (and before a root caller's lend, which leaves them alone). When they
 * cannot be copied (too large, another filesystem, or a file there with
 * another hard link, whose other names a copy cannot keep), *plan becomes
 * the core's other lowering of the same view (sbx_jail_plan_unwatched(),
 * in own), with read-only rules for them:
 * the directories above them then take no new entry (unless the
 * supervisor judges the workdir's names: plan->guard_names). */
static void
watch_or_rebuild(const struct sbx_jail *j, struct ll_state *st, const struct sbx_plan **plan,
    struct sbx_plan *own, struct sbx_report *r)
{
	const struct sbx_exec *x = j->exec;
	struct sbx_err why = { 0 };

	if ((*plan)->watch.n == 0 ||
	    sbx_protsnap_take(
		x->keeper, sbx_fsview_workdir_fd(x->fs), &(*plan)->watch, &st->snap, &why) == 0)
		return;
	warn(r,
	    sbx_xasprintf("landlock: %s; the built-in protected paths get read-only rules "
			  "instead",
		why.msg));
	sbx_jail_plan_unwatched(j, own);
	*plan = own;
}

/* The ruleset, built in sbxrun from the descriptors resolve pinned (the
 * workdir, mount sources, read paths) and the keeper's private TMPDIR:
 * no rule's path is looked up by name again below them (linux-landlock.h,
 * doc/design/paths.md). -1 without Landlock. */
static int
make_ruleset(
    const struct sbx_exec *x, const struct ll_payload *pl, struct ll_state *st, struct sbx_err *err)
{
	struct sbx_landlock_anchor *a;
	_cleanup_close_ int tmp = -1;
	size_t n = 0;
	int r;

	if (pl->abi < 1)
		return -1;
	if (sbx_keeper_tmp_fd(st->keeper, x->tmpdir, &tmp, err) < 0)
		return sbx_err_wrap(err, "landlock: the private TMPDIR");
	a = sbx_xcalloc(x->fs->npins + 1, sizeof(*a));
	for (size_t i = 0; i < x->fs->npins; i++)
		a[n++] = (struct sbx_landlock_anchor){ x->fs->pins[i].path, x->fs->pins[i].fd };
	a[n++] = (struct sbx_landlock_anchor){ x->tmpdir, tmp };
	r = sbx_landlock_ruleset(pl->plan, pl->abi, &pl->net,
	    SBX_LANDLOCK_SCOPE_ABSTRACT | SBX_LANDLOCK_SCOPE_SIGNAL, a, n, err);
	free(a);
	return r;
}

/* The host side of the jail, just before the launch: the mount links
 * and a root caller's lend (the links first, so that the lend covers the
 * directories made for them), then the Landlock ruleset. */
static int
ready_host(const struct sbx_policy *p, const struct sbx_exec *x, struct ll_state *st,
    struct ll_payload *pl, struct sbx_err *err)
{
	/* pl->bset_empty is set by this thread, which launches next: init is
	 * a copy of it. */
	if ((p->nmounts > 0 && make_links(p, x, st, err) < 0) ||
	    (x->caller_uid == 0 && lend_to_nobody(p, x, st, pl, err) < 0))
		return -1;
	sbx_phase("landlock: links, lend");
	if (pl->abi >= 1 && (pl->ruleset = make_ruleset(x, pl, st, err)) < 0)
		return -1;
	sbx_phase("landlock: ruleset");
	return 0;
}

static int
ll_spawn(const struct sbx_jail *j, struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	const struct sbx_policy *p = j->policy;
	const struct sbx_exec *x = j->exec;
	const struct sbx_caps *caps = j->caps;
	struct ll_state *st = sbx_xcalloc(1, sizeof(*st));
	bool throwaway = x->fs->workdir_temp && !p->keep;
	/* What the run leaves in the workdir is checked for the caller's git
	 * (linux-gitguard.h), unless the workdir goes whole. */
	_cleanup_gitguard_ struct sbx_gitguard *git_guard =
	    throwaway ? NULL : sbx_gitguard_new(sbx_fsview_workdir_fd(x->fs), x->fs->workdir);
	/* The core's lowering, or its other one when the watched paths
	 * cannot be copied (own). */
	const struct sbx_plan *plan = &j->plan;
	struct sbx_plan own = { 0 };
	struct ll_payload pl = {
		.state = st,
		.workdir = x->fs->workdir,
		.tmpdir = x->tmpdir,
		.abi = caps->landlock_abi,
		.net_off = net_fully_off(p),
		.seccomp = caps->seccomp,
		.nobody = x->caller_uid == 0,
		.wd = sbx_fsview_workdir_fd(x->fs),
		.ruleset = -1,
	};
	struct sbx_payload_hooks hooks = {
		.prepare = payload_prepare,
		.setup = payload_setup,
		.vfork_safe = true,
		.ctx = &pl,
	};

	pl.net.enabled = true;
	pl.net.bind = &pl.bind;
	pl.net.connect = &pl.connect;
	sbx_netrules_landlock_ports(x->net, &pl.bind, &pl.connect, &pl.net.connect_any);
	/* Probed here once, so that the payload asks nothing (linux-caps.h). */
	(void)sbx_caps_last();
	if (caps->seccomp) {
		pl.net_notify = true;
		/* Without pidfd_getfd the network rules were refused, unless
		 * --allow-degraded: then the calls go untrapped. */
		pl.trap_net = x->net != NULL && caps->pidfd_getfd;
		pl.trace = x->trace;
		/* With the network fully off, the sandbox's own loopback (an
		 * ephemeral port on 127.0.0.1 or ::1, connects to its own
		 * listeners) is still the supervisor's to give, where it can
		 * take the sandbox's sockets; elsewhere no socket at all. */
		if (pl.net_off && caps->pidfd_getfd) {
			pl.own_lo = pl.trap_net = true;
			sbx_ports_add(&pl.bind, 0);
			pl.net.connect_any = true;
		}
		hooks.listener = payload_listener;
		/* Untrapped, sendmsg can carry the listener to sbxrun (no
		 * pidfd_getfd needed); trapped, it would wait on itself. */
		hooks.send_listener = !pl.trap_net;
	}
	st->names_ruleset = -1;
	st->throwaway = throwaway;
	st->mounts_fd = x->mounts_fd;
	if (throwaway && x->fs->mountinfo) {
		st->mounts = sbx_xstrdup(x->fs->mountinfo);
		st->workdir = sbx_xstrdup(x->fs->workdir);
	}
	watch_or_rebuild(j, st, &plan, &own, r);
	pl.plan = plan;
	/* sbxrun puts the copies back in ll_cleanup(), init when sbxrun was
	 * killed: one of the two, never both (launch.h). */
	if (st->snap) {
		hooks.orphaned = ll_orphaned;
		hooks.norphaned_fds =
		    sbx_protsnap_fds(st->snap, hooks.orphaned_fds, SBX_ORPHANED_FDS);
	}
	st->keeper = x->keeper;
	make_frozen(plan, &st->frozen);
	/* The core asked for it only where the supervisor can judge names
	 * (jail.c). */
	if (plan->guard_names) {
		/* The workers that make these calls enter the same Landlock
		 * filesystem domain as the sandbox (namesup.h). */
		struct sbx_landlock_anchor *a = sbx_xcalloc(x->fs->npins + 1, sizeof(*a));

		for (size_t i = 0; i < x->fs->npins; i++)
			a[i] =
			    (struct sbx_landlock_anchor){ x->fs->pins[i].path, x->fs->pins[i].fd };
		st->names_ruleset =
		    sbx_landlock_fs_ruleset(plan, caps->landlock_abi, a, x->fs->npins, err);
		free(a);
		if (st->names_ruleset < 0) {
			sbx_plan_free(&own);
			free(pl.bind.v);
			free(pl.connect.v);
			state_free(st, NULL, false);
			return -1;
		}
		pl.trap_names = true;
	}
	/* Recorded before anything runs: the keeper moves these aside after
	 * the run, or after sbxrun's death. */
	{
		struct sbx_strv none = { 0 }, orphan = { 0 };

		sbx_gitguard_orphan_names(git_guard, &orphan);
		sbx_keeper_watch(st->keeper, sbx_fsview_workdir_fd(x->fs), "landlock", &none,
		    &plan->scrub, &orphan, NULL);
		sbx_strv_free(&orphan);
	}
	sbx_phase("landlock: plan, copies, guard");
	if (prepare_filters(&pl, err) < 0 || ready_host(p, x, st, &pl, err) < 0 ||
	    sbx_launch_plain(x, &hooks, c, err) < 0) {
		if (pl.ruleset >= 0)
			close(pl.ruleset);
		free_filters(&pl);
		/* What was put back or moved aside goes in the spawn's
		 * report. */
		state_free(st, r, false);
		sbx_plan_free(&own);
		free(pl.bind.v);
		free(pl.connect.v);
		return -1;
	}
	if (pl.ruleset >= 0)
		close(pl.ruleset);
	free_filters(&pl);
	free(pl.bind.v);
	free(pl.connect.v);
	/* Unix sockets: refused (see the top); metadata: judged, as the
	 * core configured the supervisor (supcfg.h), away from what this
	 * plan froze. */
	c->frozen = &st->frozen;
	c->names_ruleset = st->names_ruleset;
	if (c->notify_fd >= 0)
		r->layers.seccomp_notify = true;
	c->priv = st;
	c->cleanup = ll_cleanup;
	sbx_gitguard_watch_mounts(git_guard, x->mounts_fd, x->fs->mountinfo);
	sbx_gitguard_attach(&git_guard, c);

	for (size_t i = 0; i < st->links.n; i++)
		warn(r,
		    sbx_xasprintf("landlock: mount %s is a symbolic link to %s, not a mount",
			st->links.v[i], st->targets.v[i]));
	for (size_t i = 0; pl.abi >= 1 && i < plan->frozen.n; i++)
		warn(r,
		    sbx_xasprintf("landlock: %s takes no new entry, removal or rename (a "
				  "protected or hidden path lies below it)",
			plan->frozen.v[i]));
	if (c->notify_fd < 0)
		warn(r,
		    sbx_xstrdup(
			"landlock: mode, group, times and extended attributes of the "
			"caller's own files outside the workdir stay changeable (no seccomp to "
			"judge them; their contents stay out of reach)"));
	sbx_plan_free(&own);
	r->layers.landlock_abi = caps->landlock_abi;
	r->layers.seccomp = caps->seccomp;
	r->layers.no_new_privs = r->layers.caps_dropped = true;
	r->layers.new_session = r->layers.subreaper = true;
	return 0;
}

const struct sbx_backend sbx_backend_landlock = {
	.name = "landlock",
	.id = SBX_BACKEND_LANDLOCK,
	.needs_tmpdir = true,
	.probe = ll_probe,
	.enforces = ll_enforces,
	.describe = ll_describe,
	.spawn = ll_spawn,
};
