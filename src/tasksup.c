/* Which tasks the sandbox may re-schedule or re-limit under the landlock
 * backend (tasksup.h). Pure: the supervisor (netsup.c) supplies the
 * caller's ids and answers. */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "tasksup.h"

/* linux/ioprio.h, not in every libc's headers. */
#define WHO_PROCESS 1
#define WHO_PGRP 2
#define WHO_USER 3

const struct sbx_task_call sbx_tasksup_calls[] = {
	{ "setpriority", SYS_setpriority, 0, PRIO_PROCESS, PRIO_PGRP, PRIO_USER, 1, -1 },
	{ "ioprio_set", SYS_ioprio_set, 0, WHO_PROCESS, WHO_PGRP, WHO_USER, 1, -1 },
	{ "prlimit64", SYS_prlimit64, -1, 0, -1, -1, 0, 2 },
	{ "sched_setaffinity", SYS_sched_setaffinity, -1, 0, -1, -1, 0, -1 },
	{ "sched_setscheduler", SYS_sched_setscheduler, -1, 0, -1, -1, 0, -1 },
	{ "sched_setparam", SYS_sched_setparam, -1, 0, -1, -1, 0, -1 },
	{ "sched_setattr", SYS_sched_setattr, -1, 0, -1, -1, 0, -1 },
	/* Trapped when it names a group (its pgid): judged below. */
	{ "setpgid", SYS_setpgid, -1, 0, -1, -1, 1, -1 },
	{ NULL, 0, -1, 0, -1, -1, 0, -1 },
};

static const struct sbx_task_call *
find(int nr)
{
	for (const struct sbx_task_call *t = sbx_tasksup_calls; t->name; t++)
		if (t->nr == nr)
			return t;
	return NULL;
}

bool
sbx_tasksup_handles(int nr)
{
	return find(nr) != NULL;
}

enum sbx_task_verdict
sbx_tasksup_judge(int nr, const uint64_t *args, pid_t *target, const char **why)
{
	const struct sbx_task_call *t = find(nr);
	/* The kernel takes these arguments as ints: the low 32 bits. */
	int who;

	*target = 0;
	*why = "the scheduling or limits of another process";
	if (t == NULL)
		return SBX_TASK_REFUSE;
	who = (int)(uint32_t)args[t->who];
	if (nr == SYS_setpgid) {
		/* The payload's group is its own (launch.c); the one group of
		 * its session it must not join is init's, whose members
		 * setpriority(PRIO_PGRP, 0) and ioprio_set reach. */
		*why = "joining the process group of the jail's init";
		*target = who;
		return who == 0 ? SBX_TASK_ALLOW : SBX_TASK_UNLESS_LEADER;
	}
	if (t->which >= 0) {
		int which = (int)(uint32_t)args[(int)t->which];

		if (which == t->group_which) {
			/* 0 is the caller's own group: its members are in the
			 * sandbox's own sessions (init's, or one made inside),
			 * which no process outside can join. */
			*why = "the scheduling of another process group";
			return who == 0 ? SBX_TASK_ALLOW : SBX_TASK_REFUSE;
		}
		if (which == t->user_which) {
			/* Every process of a uid, outside the sandbox too. */
			*why = "the scheduling of every process of a user";
			return SBX_TASK_REFUSE;
		}
		if (which != t->self_which)
			return SBX_TASK_ALLOW; /* the kernel's EINVAL */
	}
	if (who == 0 || (t->setting >= 0 && args[(int)t->setting] == 0))
		return SBX_TASK_ALLOW;
	*target = who;
	return SBX_TASK_IF_CALLER;
}

void
sbx_tasksup_describe(int nr, const uint64_t *args, char *buf, size_t size)
{
	const struct sbx_task_call *t = find(nr);
	const char *kind = "pid";

	if (t == NULL) {
		snprintf(buf, size, "syscall %d", nr);
		return;
	}
	if (t->which >= 0) {
		int which = (int)(uint32_t)args[(int)t->which];

		if (which == t->group_which)
			kind = "process group";
		else if (which == t->user_which)
			kind = "user";
	}
	snprintf(buf, size, "%s %s %d", t->name, kind, (int)(uint32_t)args[t->who]);
}
