/* Calls that change another task's scheduling or limits, under the
 * landlock backend. There is no pid namespace there: a pid the sandbox
 * names may be sbxrun, its keeper or any process of the same uid, and
 * the kernel judges these calls by uid alone (Landlock has no scope for
 * them). They are trapped when they name a task explicitly and allowed
 * only on the caller's own thread or process, the two ids that cannot be
 * given to anyone else while the caller waits in the call
 * (doc/design/supervisor.md, "Scheduling and limits"). */
#ifndef SBX_TASKSUP_H
#define SBX_TASKSUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One trapped call. The filter traps it when args[who] is not 0, when
 * args[which] (if any) is not self_which, and, with setting >= 0, only
 * when args[setting] is not 0 too (a read of the limits changes
 * nothing). */
struct sbx_task_call {
	const char *name; /* libseccomp's name */
	int nr;
	signed char which; /* the argument saying what who is; -1: none */
	int self_which; /* the value of which naming one task */
	int group_which; /* the value naming a process group */
	int user_which; /* the value naming every process of a uid */
	unsigned char who;
	signed char setting;
};

/* The calls, ended by a NULL name. */
extern const struct sbx_task_call sbx_tasksup_calls[];

enum sbx_task_verdict {
	SBX_TASK_ALLOW, /* acts on the caller, or changes nothing */
	SBX_TASK_IF_CALLER, /* names *target: allowed if it is the caller */
	SBX_TASK_REFUSE, /* a process group or every process of a user */
	SBX_TASK_UNLESS_LEADER, /* setpgid to the group *target: allowed
	                           unless it is the caller's session's
	                           leader's (init's) */
};

/* Whether nr is one of the calls. */
bool sbx_tasksup_handles(int nr);

/* The verdict for nr with args, read as the kernel reads them (32-bit
 * ints). *why gets the reason of a refusal. */
enum sbx_task_verdict sbx_tasksup_judge(
    int nr, const uint64_t *args, pid_t *target, const char **why);

/* What the call names, for the diagnostics' denied list. */
void sbx_tasksup_describe(int nr, const uint64_t *args, char *buf, size_t size);

#endif
