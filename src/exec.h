/* What runs inside the jail: argv and the environment, built from the
 * policy and the caller's identity. Pure: the caller's environment is
 * passed in, never read from the process. */
#ifndef SBX_EXEC_H
#define SBX_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "policy.h"

struct sbx_fsview;
struct sbx_keeper;
struct sbx_netrules;

/* One setrlimit for the payload: resource is an RLIMIT_* number. */
struct sbx_rlimit {
	int resource;
	uint64_t value;
	/* value is the sandbox's share: the uid's task count, which comes
	 * at the launch (sbx_exec.uid_tasks_late), is added to it. */
	bool plus_tasks;
	/* A default, not asked for: above the caller's hard limit (the
	 * uid's task count added) it is that limit instead, never a refusal
	 * (sbxrun(1), LIMITS). */
	bool builtin;
};

#define SBX_MAX_RLIMITS 8

/* What runs inside the jail, and where. Pure data, built by exec.c. */
struct sbx_exec {
	const struct sbx_fsview *fs; /* the resolved filesystem view (resolve.h) */
	const struct sbx_netrules *net; /* NULL: network fully off; else the jail
	                                   traps its network calls (network.h) */
	char **argv; /* argv[0] without '/' is looked up in PATH */
	char **envp;
	const char *cwd; /* the workdir */
	const char *tmpdir; /* the host directory made for the sandbox as
	                               its TMPDIR (needs_tmpdir), else NULL */
	int stdin_fd; /* handed to the payload as fd 0; -1 keeps 0 */
	struct sbx_keeper *keeper; /* records what the run changes (keeper.h) */
	/* /proc/self/mountinfo, opened before fs->mountinfo was read, so
	 * that a change of the table since is seen (linux-mountwatch.h); -1
	 * when the table was not read. */
	int mounts_fd;
	bool trace; /* --trace: the jail also traps what the trace observes */
	uid_t caller_uid;
	gid_t caller_gid;
	mode_t umask; /* the payload's, set just before its exec: the caller's */
	/* The caller's realtime policy is not the payload's: it is put back
	 * to SCHED_OTHER before its exec (launch.c). */
	bool sched_normal;
	struct sbx_rlimit rlimits[SBX_MAX_RLIMITS];
	size_t nrlimits;
	/* The uid's tasks for the pids rlimit, when counted before the plan
	 * (sbx_limits_uid_tasks()); else the plan counts them. */
	bool uid_tasks_counted;
	uint64_t uid_tasks;
	/* Instead, the count is the keeper's, asked and not read yet: the
	 * launch reads it once init is forked and hands it to the payload
	 * (sbx_launch_plain(); doc/design/startup.md, section 32). */
	bool uid_tasks_late;
	/* The cgroup v2 leaf the jail's init is cloned into (doc/design/
	 * limits.md): its directory, and the SBX_CG_* controllers it holds
	 * (cgroup.h); cgroup_test: a fake tree, which enforces nothing. */
	bool cgroup;
	int cgroup_fd;
	unsigned cgroup_ctl;
	bool cgroup_test;
};

struct sbx_caller {
	uid_t uid;
	gid_t gid;
	mode_t umask; /* the caller's; sbxrun itself works under 022 (main.c) */
	bool realtime; /* the caller runs under a realtime scheduling policy */
	char *user;
	char *home;
};

#define SBX_SANDBOX_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* The default --script-name for an interpreter ("main.py" for python3). */
char *sbx_exec_script_name(const char *interp);

/* Builds x->argv and x->envp. command is the COMMAND argv or NULL; when
 * script_path is set, argv is "interp script_path"; otherwise "/bin/sh -s".
 * extra_env (NAME=VALUE strings, may be NULL) is added last, for variables
 * a backend or the proxy must set. */
int sbx_exec_build(struct sbx_exec *x, const struct sbx_policy *p, const char *workdir,
    const char *tmpdir, char *const *command, const char *interp, const char *script_path,
    const struct sbx_caller *caller, char *const *caller_env, const struct sbx_strv *extra_env,
    struct sbx_err *err);

void sbx_exec_free(struct sbx_exec *x);

/* Looks up name in envp ("NAME=VALUE" strings); NULL when unset. */
const char *sbx_env_get(char *const *envp, const char *name);

#endif
