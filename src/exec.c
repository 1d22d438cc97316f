#include "config.h"

#include <libgen.h>
#include <string.h>

#include "exec.h"

char *
sbx_exec_script_name(const char *interp)
{
	_cleanup_free_ char *copy = sbx_xstrdup(interp);
	const char *base = basename(copy);

	if (sbx_str_has_prefix(base, "python") || sbx_str_has_prefix(base, "pypy"))
		return sbx_xstrdup("main.py");
	if (strcmp(base, "node") == 0 || strcmp(base, "nodejs") == 0 || strcmp(base, "deno") == 0 ||
	    strcmp(base, "bun") == 0)
		return sbx_xstrdup("main.js");
	if (strcmp(base, "sh") == 0 || strcmp(base, "bash") == 0 || strcmp(base, "dash") == 0 ||
	    strcmp(base, "zsh") == 0 || strcmp(base, "ksh") == 0 || strcmp(base, "mksh") == 0)
		return sbx_xstrdup("main.sh");
	return sbx_xstrdup("main");
}

const char *
sbx_env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* Sets NAME=VALUE in env, replacing an earlier value of NAME. */
static void
env_set(struct sbx_strv *env, const char *name, const char *value)
{
	size_t n = strlen(name);
	char *entry = sbx_xasprintf("%s=%s", name, value);

	for (size_t i = 0; i < env->n; i++) {
		if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = entry;
			return;
		}
	}
	sbx_strv_push_take(env, entry);
}

int
sbx_exec_build(struct sbx_exec *x, const struct sbx_policy *p, const char *workdir,
    const char *tmpdir, char *const *command, const char *interp, const char *script_path,
    const struct sbx_caller *caller, char *const *caller_env, const struct sbx_strv *extra_env,
    struct sbx_err *err)
{
	struct sbx_strv env = { 0 }, argv = { 0 };
	const char *lang = sbx_env_get(caller_env, "LANG");

	env_set(&env, "PATH", SBX_SANDBOX_PATH);
	env_set(&env, "HOME", workdir);
	env_set(&env, "TMPDIR", tmpdir);
	env_set(&env, "LANG", lang && *lang ? lang : "C.UTF-8");
	env_set(&env, "USER", caller->user);
	env_set(&env, "LOGNAME", caller->user);
	env_set(&env, "PWD", workdir);
	env_set(&env, "SHELL", "/bin/sh");
	for (size_t i = 0; i < p->env_pass.n; i++) {
		const char *v = sbx_env_get(caller_env, p->env_pass.v[i]);

		if (v != NULL)
			env_set(&env, p->env_pass.v[i], v);
	}
	for (size_t i = 0; i < p->nenv; i++)
		env_set(&env, p->env[i].name, p->env[i].value);
	for (size_t i = 0; extra_env && i < extra_env->n; i++) {
		const char *eq = strchr(extra_env->v[i], '=');
		_cleanup_free_ char *name = NULL;

		if (eq == NULL)
			continue;
		name = sbx_xstrndup(extra_env->v[i], (size_t)(eq - extra_env->v[i]));
		env_set(&env, name, eq + 1);
	}

	if (command != NULL) {
		for (size_t i = 0; command[i]; i++)
			sbx_strv_push(&argv, command[i]);
	} else if (script_path != NULL) {
		sbx_strv_push(&argv, interp);
		sbx_strv_push(&argv, script_path);
	} else {
		sbx_strv_push(&argv, "/bin/sh");
		sbx_strv_push(&argv, "-s");
	}
	if (argv.n == 0 || argv.v[0][0] == '\0') {
		sbx_strv_free(&env);
		sbx_strv_free(&argv);
		return sbx_err_set(err, EINVAL, "empty command");
	}
	x->argv = argv.v;
	x->envp = env.v;
	x->cwd = workdir;
	x->stdin_fd = -1;
	x->caller_uid = caller->uid;
	x->umask = caller->umask;
	x->sched_normal = caller->realtime;
	x->caller_gid = caller->gid;
	return 0;
}

void
sbx_exec_free(struct sbx_exec *x)
{
	for (size_t i = 0; x->argv && x->argv[i]; i++)
		free(x->argv[i]);
	free(x->argv);
	for (size_t i = 0; x->envp && x->envp[i]; i++)
		free(x->envp[i]);
	free(x->envp);
	x->argv = x->envp = NULL;
}
