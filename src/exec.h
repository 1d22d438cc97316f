/* What runs inside the jail: argv and the environment, built from the
 * policy and the caller's identity. Pure: the caller's environment is
 * passed in, never read from the process. */
#ifndef SBX_EXEC_H
#define SBX_EXEC_H

#include <sys/types.h>

#include "backend.h"
#include "err.h"
#include "policy.h"

struct sbx_caller {
	uid_t uid;
	gid_t gid;
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
