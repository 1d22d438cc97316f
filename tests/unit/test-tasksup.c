/* The judge of the calls that change a task's scheduling or limits under
 * the landlock backend (src/tasksup.c): what acts on the caller passes,
 * an explicit pid waits for the supervisor's comparison with the caller's
 * ids, a process group or a user's processes are refused. */
#include "config.h"

#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "tap.h"
#include "tasksup.h"

static enum sbx_task_verdict
judge(int nr, uint64_t a0, uint64_t a1, uint64_t a2, pid_t *target)
{
	const uint64_t args[6] = { a0, a1, a2, 0, 0, 0 };
	const char *why = NULL;
	enum sbx_task_verdict v = sbx_tasksup_judge(nr, args, target, &why);

	if (v != SBX_TASK_ALLOW && (why == NULL || why[0] == '\0'))
		ok(false, "a verdict other than allow has a reason");
	return v;
}

int
main(void)
{
	static const int by_pid[] = { SYS_sched_setaffinity, SYS_sched_setscheduler,
		SYS_sched_setparam, SYS_sched_setattr };
	/* setpriority's and ioprio_set's which: one process, a process group
	 * (0: the caller's own), a user (every process of that uid). */
	static const struct tcase {
		int nr;
		uint64_t a0, a1, a2;
		enum sbx_task_verdict want;
		pid_t target;
		const char *what;
	} cases[] = {
		{ SYS_prlimit64, 0, RLIMIT_NOFILE, 0x1000, SBX_TASK_ALLOW, 0,
		    "prlimit64 on the caller passes" },
		{ SYS_prlimit64, 99, RLIMIT_NOFILE, 0, SBX_TASK_ALLOW, 0,
		    "prlimit64 reading another's limits passes" },
		{ SYS_prlimit64, 99, RLIMIT_NOFILE, 0x1000, SBX_TASK_IF_CALLER, 99,
		    "prlimit64 setting pid 99's limits is compared with the caller" },
		{ SYS_setpriority, PRIO_PROCESS, 0, 19, SBX_TASK_ALLOW, 0,
		    "setpriority on the caller passes" },
		{ SYS_setpriority, PRIO_PROCESS, 31, 19, SBX_TASK_IF_CALLER, 31,
		    "setpriority on pid 31 is compared with the caller" },
		{ SYS_setpriority, PRIO_PGRP, 0, 19, SBX_TASK_ALLOW, 0,
		    "setpriority on the caller's own process group passes" },
		{ SYS_setpriority, PRIO_PGRP, 31, 19, SBX_TASK_REFUSE, 0,
		    "setpriority on process group 31 is refused" },
		{ SYS_setpriority, PRIO_USER, 0, 19, SBX_TASK_REFUSE, 0,
		    "setpriority on the caller's uid (all its processes) is refused" },
		{ SYS_setpriority, PRIO_USER, 1000, 19, SBX_TASK_REFUSE, 0,
		    "setpriority on uid 1000 is refused" },
		{ SYS_setpriority, 0x100000000ull | PRIO_USER, 0, 19, SBX_TASK_REFUSE, 0,
		    "PRIO_USER with high junk is still PRIO_USER" },
		{ SYS_setpriority, 7, 5, 19, SBX_TASK_ALLOW, 0,
		    "an unknown which is left to the kernel (EINVAL)" },
		{ SYS_ioprio_set, 1, 0, 0, SBX_TASK_ALLOW, 0, "ioprio_set on the caller passes" },
		{ SYS_ioprio_set, 1, 8, 0, SBX_TASK_IF_CALLER, 8,
		    "ioprio_set on pid 8 is compared with the caller" },
		{ SYS_ioprio_set, 2, 8, 0, SBX_TASK_REFUSE, 0,
		    "ioprio_set on process group 8 is refused" },
		{ SYS_ioprio_set, 3, 0, 0, SBX_TASK_REFUSE, 0,
		    "ioprio_set on a user's processes is refused" },
		{ SYS_setpgid, 0, 0, 0, SBX_TASK_ALLOW, 0,
		    "setpgid to a group of the caller's own passes" },
		{ SYS_setpgid, 42, 0, 0, SBX_TASK_ALLOW, 0,
		    "setpgid of a child to a group of its own passes" },
		{ SYS_setpgid, 0, 77, 0, SBX_TASK_UNLESS_LEADER, 77,
		    "setpgid into group 77 is compared with the session's leader" },
		{ SYS_setpgid, 0, 0x100000000ull | 77, 0, SBX_TASK_UNLESS_LEADER, 77,
		    "setpgid's pgid read as an int" },
	};
	pid_t t = -1;
	char buf[64];

	for (size_t i = 0; i < sizeof(by_pid) / sizeof(by_pid[0]); i++) {
		is_int(judge(by_pid[i], 0, 0, 0, &t), SBX_TASK_ALLOW, "call %d on pid 0 passes",
		    by_pid[i]);
		is_int(judge(by_pid[i], 4242, 0, 0, &t), SBX_TASK_IF_CALLER,
		    "call %d on pid 4242 is compared with the caller", by_pid[i]);
		is_int(t, 4242, "... with 4242 as its target");
		/* The kernel reads an int: junk above 32 bits is not a pid. */
		is_int(judge(by_pid[i], 0xffffffff00000000ull, 0, 0, &t), SBX_TASK_ALLOW,
		    "call %d with only high junk acts on the caller", by_pid[i]);
		is_int(judge(by_pid[i], 0x100000000ull | 77, 0, 0, &t), SBX_TASK_IF_CALLER,
		    "call %d reads 77 out of a register with high junk", by_pid[i]);
		is_int(t, 77, "... as the kernel does");
	}

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *c = &cases[i];

		is_int(judge(c->nr, c->a0, c->a1, c->a2, &t), c->want, "%s", c->what);
		if (c->want == SBX_TASK_IF_CALLER)
			is_int(t, c->target, "... its target %d", c->target);
	}

	ok(sbx_tasksup_handles(SYS_prlimit64) && !sbx_tasksup_handles(SYS_getpriority) &&
		!sbx_tasksup_handles(SYS_sched_getaffinity),
	    "only the calls that change something are handled");
	is_int(judge(SYS_getpid, 5, 0, 0, &t), SBX_TASK_REFUSE, "an unknown call is refused");

	{
		const uint64_t a[6] = { PRIO_USER, 1001, 19 };

		sbx_tasksup_describe(SYS_setpriority, a, buf, sizeof(buf));
		is_str(buf, "setpriority user 1001", "a refusal names the call and its target");
	}
	{
		const uint64_t a[6] = { 1234, 7, 0x1000 };

		sbx_tasksup_describe(SYS_prlimit64, a, buf, sizeof(buf));
		is_str(buf, "prlimit64 pid 1234", "... a pid");
	}
	return done_testing();
}
