#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "rlimits.h"

static const struct {
	enum sbx_limit_id id;
	int resource;
	const char *name;
	const char *what; /* for a message: the rlimit, the flag, the key */
} map[] = {
	/* Address space, not resident memory: the only memory rlimit that
	 * the kernel enforces on every allocation. */
	{ SBX_LIMIT_MEMORY, RLIMIT_AS, "RLIMIT_AS", "RLIMIT_AS (--memory, memory)" },
	{ SBX_LIMIT_PIDS, RLIMIT_NPROC, "RLIMIT_NPROC", "RLIMIT_NPROC (--pids, pids)" },
	{ SBX_LIMIT_CPU, RLIMIT_CPU, "RLIMIT_CPU", "RLIMIT_CPU (--cpu, cpu)" },
	{ SBX_LIMIT_FILE_SIZE, RLIMIT_FSIZE, "RLIMIT_FSIZE",
	    "RLIMIT_FSIZE (--file-size, file_size)" },
	{ SBX_LIMIT_OPEN_FILES, RLIMIT_NOFILE, "RLIMIT_NOFILE",
	    "RLIMIT_NOFILE (--open-files, open_files)" },
};

const char *
sbx_rlimit_what(int resource)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(map); i++)
		if (map[i].resource == resource)
			return map[i].what;
	return "a resource limit";
}

uint32_t
sbx_limits_rlimit_rules(const struct sbx_policy *p)
{
	uint32_t rules = 0;

	for (size_t i = 0; i < SBX_ARRAY_LEN(map); i++)
		if (p->limits[map[i].id].set)
			rules |= SBX_RULE_BIT(sbx_limit_rule(map[i].id));
	return rules;
}

/* The tasks (processes and threads) of uid, as the kernel counts them
 * against RLIMIT_NPROC; 0 where /proc cannot be read. One stat of each
 * process's /proc directory, whose owner is the process's effective uid
 * whether or not it is dumpable (unlike the files in it), and for uid's
 * own a stat of its task directory: the same owner, a link count two
 * plus one per thread (proc's getattr adds the thread count; a zombie
 * has one); checked for a process that made itself non-dumpable, whose
 * /proc directory still shows its uid. Looking up every process's task
 * directory cost more: 145 against 124 us over 78 processes, none of
 * them the caller's, 620 against 340 us on a busy machine (section 31 of
 * doc/design/startup.md). Reading each status file cost ~25 us a process
 * (the kernel formats all of it): the whole count on a desktop with a
 * few hundred processes of the user, and most of a landlock start beside
 * an init that reaps other sandboxes' orphans late (section 23).
 *
 * The kernel counts by real uid. A process of another real uid running
 * as uid (a set-uid program of uid's that someone else runs, a daemon
 * acting as uid through seteuid) is counted too, a limit looser by its
 * tasks; one of uid running as another (a set-uid program it runs), or
 * hidden from us (hidepid), is missed, a stricter one.
 *
 * The walk costs 1.5-5 us per process on the machine, whoever owns it
 * (doc/design/startup.md, section 12). When no task at all has uid as
 * its real uid, as for 65534 on most machines, getpriority(PRIO_USER)
 * says so in one call (ESRCH: the kernel found no user record, or no task
 * of it among the tasks visible in our pid namespace, as /proc lists
 * them) and nothing is walked. */
uint64_t
sbx_limits_uid_tasks(uid_t uid)
{
	DIR *d;
	struct dirent *e;
	uint64_t n = 0;

#ifdef __linux__
	/* who 0 would mean our own uid, and a uid we run as has a task: us.
	 * -1 is also a valid nice value. */
	errno = 0;
	if (uid != 0 && uid != getuid() && getpriority(PRIO_USER, (id_t)uid) == -1 &&
	    errno == ESRCH)
		return 0;
#endif
	d = opendir("/proc");
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char task[64];
		struct stat st;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		/* Gone since (ENOENT), another's, or not what proc makes. */
		if (fstatat(dirfd(d), e->d_name, &st, 0) < 0 || st.st_uid != uid)
			continue;
		snprintf(task, sizeof(task), "%s/task", e->d_name);
		if (fstatat(dirfd(d), task, &st, 0) < 0 || st.st_uid != uid ||
		    !S_ISDIR(st.st_mode) || st.st_nlink < 3)
			continue;
		n += (uint64_t)st.st_nlink - 2;
	}
	closedir(d);
	return n;
}

uint64_t
sbx_rlimit_hard(int resource)
{
	struct rlimit rl;

	if (getrlimit((rlimit_resource)resource, &rl) < 0 || rl.rlim_max == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_max;
}

/* Backends without a user namespace of their own: RLIMIT_NPROC counts
 * every task of the uid on the host. */
static bool
counts_in(const struct sbx_backend *b)
{
	return b->id != SBX_BACKEND_NAMESPACES && b->id != SBX_BACKEND_DOCKER;
}

/* landlock runs a root caller's payload as uid 65534. */
static uid_t
counted_uid(const struct sbx_backend *b, uid_t caller)
{
	return caller == 0 && b->id == SBX_BACKEND_LANDLOCK ? 65534 : caller;
}

bool
sbx_limits_counts_uid(const struct sbx_policy *p, const struct sbx_backend *b,
    const struct sbx_caps *caps, uid_t caller_uid, uid_t *uid)
{
	const struct sbx_limit *l = &p->limits[SBX_LIMIT_PIDS];

	if (!l->set || !counts_in(b))
		return false;
	if (l->builtin && !(b->enforces(p, caps) & SBX_RULE_BIT(sbx_limit_rule(SBX_LIMIT_PIDS))))
		return false;
	*uid = counted_uid(b, caller_uid);
	return true;
}

void
sbx_limits_plan(const struct sbx_policy *p, const struct sbx_backend *b,
    const struct sbx_caps *caps, struct sbx_exec *x, struct sbx_report *r)
{
	uint32_t held = b->enforces(p, caps);

	x->nrlimits = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(map); i++) {
		const struct sbx_limit *l = &p->limits[map[i].id];
		const char *by = "rlimit";
		bool plus = false;
		uint64_t v;

		r->limits[map[i].id].by = NULL;
		if (!l->set || x->nrlimits >= SBX_MAX_RLIMITS)
			continue;
		if (l->builtin && !(held & SBX_RULE_BIT(sbx_limit_rule(map[i].id))))
			continue;
		/* A cgroup v2 leaf holds it for the whole tree (doc/design/
		 * limits.md); a test tree enforces nothing, so the rlimit
		 * stays there as well. */
		if (x->cgroup &&
		    ((map[i].id == SBX_LIMIT_MEMORY && (x->cgroup_ctl & SBX_CG_MEMORY)) ||
			(map[i].id == SBX_LIMIT_PIDS && (x->cgroup_ctl & SBX_CG_PIDS)))) {
			r->limits[map[i].id].by = "cgroup";
			if (!x->cgroup_test)
				continue;
			by = "cgroup";
		}
		v = l->value;
		if (map[i].id == SBX_LIMIT_CPU)
			v = (v + 999) / 1000; /* RLIMIT_CPU counts whole seconds */
		/* The kernel counts RLIMIT_NPROC per user namespace and uid
		 * (ucounts). The namespaces backend's jail has a user namespace
		 * of its own, so the count is the sandbox's tree. Elsewhere it
		 * is every task of the uid on the host, the payload's or not:
		 * the limit is what the uid holds now plus the sandbox's share,
		 * so that the uid's other processes do not eat into it (nor can
		 * the sandbox take more than its share while they run). */
		if (map[i].id == SBX_LIMIT_PIDS && counts_in(b)) {
			uint64_t now = x->uid_tasks_late ? 0
			    : x->uid_tasks_counted
			    ? x->uid_tasks
			    : sbx_limits_uid_tasks(counted_uid(b, x->caller_uid));

			v = v + now < v ? UINT64_MAX : v + now;
			plus = x->uid_tasks_late;
			if (strcmp(by, "cgroup") != 0)
				by = "rlimit-uid";
		}
		/* A default above what the caller may set (a service's or a
		 * CI runner's hard limit): the caller's own lower limit
		 * stays, and the default is not held. */
		if (l->builtin && sbx_rlimit_hard(map[i].resource) < (plus ? l->value : v))
			continue;
		x->rlimits[x->nrlimits++] =
		    (struct sbx_rlimit){ map[i].resource, v, plus, l->builtin };
		r->limits[map[i].id].by = by;
	}
}

void
sbx_limits_describe(const struct sbx_exec *x, struct sbx_buf *out)
{
	for (size_t i = 0; i < x->nrlimits; i++)
		for (size_t k = 0; k < SBX_ARRAY_LEN(map); k++)
			if (map[k].resource == x->rlimits[i].resource)
				sbx_buf_printf(out, "rlimit %s %" PRIu64 "\n", map[k].name,
				    x->rlimits[i].value);
}
