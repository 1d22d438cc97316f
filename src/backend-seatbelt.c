/* The seatbelt backend (macOS): the profile of the run (seatbelt.c) handed
 * to /usr/bin/sandbox-exec, which applies it to itself and executes the
 * command:
 *
 *   /usr/bin/sandbox-exec -D SBX_TMPDIR=DIR -p PROFILE COMMAND [ARG]...
 *
 * The common launcher starts init and the payload; the payload execs
 * sandbox-exec, so sbxrun and init stay outside the sandbox and the tree
 * is init's process group (darwin-supervise.c). DIR is a private temp dir
 * made for the run, TMPDIR inside, removed after it. Before the run the
 * same invocation runs /usr/bin/true: a profile that sandbox-exec refuses,
 * or under which even true fails, ends the run with status 125 and
 * sandbox-exec's own words, rather than passing for the script's failure.
 *
 * This is the one file that knows the OS (__APPLE__). Elsewhere the profile
 * is still generated and printed by --print-backend, and spawn refuses. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend.h"
#include "launch.h"
#include "resolve.h"
#include "rlimits.h"
#include "seatbelt.h"

#ifdef __APPLE__
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "exec.h"
#include "fsutil.h"
#include "supervise.h"

/* How long the trial run of a profile may take. */
#define SEATBELT_TRIAL_MS 10000

struct seatbelt_state {
	char *tmpdir;
};

/* The command sandbox-exec is to run, looked up on the PATH of the built
 * environment in the payload, before sandbox-exec sees it: a command that
 * is missing or not executable ends with 127 or 126 as under every other
 * backend, not with whatever status sandbox-exec chooses. */
struct command_ctx {
	char **argv; /* sandbox-exec's argv */
	size_t cmd; /* the command's index in it */
	char *const *envp;
};

static bool
executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;
		return false;
	}
	return access(path, X_OK) == 0;
}

/* A payload hook: runs after the launcher moved the error pipe to
 * descriptor 3, so an exec failure is reported from here as such. */
static int
find_command(void *ctx, SBX_UNUSED struct sbx_err *err)
{
	struct command_ctx *k = ctx;
	const char *name = k->argv[k->cmd], *path, *dir;
	struct sbx_err e = { 0 };
	char *found = NULL;
	int saved = ENOENT;

	if (strchr(name, '/') != NULL) {
		if (executable(name))
			found = sbx_xstrdup(name);
		else
			saved = errno;
	} else {
		path = sbx_env_get(k->envp, "PATH");
		for (dir = path ? path : "/usr/bin:/bin"; found == NULL; dir++) {
			size_t len = strcspn(dir, ":");
			char *cand =
			    sbx_xasprintf("%.*s%s%s", (int)len, dir, len ? "/" : "./", name);

			if (executable(cand))
				found = cand;
			else {
				if (errno == EACCES)
					saved = EACCES;
				free(cand);
			}
			dir += len;
			if (*dir == '\0')
				break;
		}
	}
	if (found == NULL) {
		errno = saved;
		sbx_err_sys(&e, "%s", name);
		sbx_child_fail(3, SBX_FAIL_EXEC, &e);
	}
	/* sandbox-exec would take a leading '-' for one of its options. */
	if (found[0] == '-') {
		char *dotted = sbx_xasprintf("./%s", found);

		free(found);
		found = dotted;
	}
	k->argv[k->cmd] = found;
	return 0;
}

static int
make_tmpdir(char **out, struct sbx_err *err)
{
	const char *base = getenv("TMPDIR");
	_cleanup_free_ char *tmpl = NULL;

	if (base == NULL || base[0] != '/')
		base = "/tmp";
	tmpl = sbx_path_join(base, "sbxrun-tmp.XXXXXX");
	if (mkdtemp(tmpl) == NULL)
		return sbx_err_sys(err, "cannot create a private temp dir in %s", base);
	/* The profile names it as Seatbelt sees it: /var/folders/... is
	 * /private/var/folders/... there. */
	*out = realpath(tmpl, NULL);
	if (*out == NULL) {
		sbx_err_sys(err, "%s", tmpl);
		rmdir(tmpl);
		return -1;
	}
	return 0;
}

/* Runs /usr/bin/true under the profile (tmpdef is the -D argument, or
 * NULL). 0 when it exits 0; otherwise err says why, in sandbox-exec's
 * words when it wrote any. */
static int
try_profile(const char *profile, const char *tmpdef, struct sbx_err *err)
{
	char *argv[8], *envp[] = { (char *)"PATH=/usr/bin:/bin", NULL };
	char msg[400];
	size_t n = 0, len = 0;
	uint64_t deadline = sbx_now_ms() + SEATBELT_TRIAL_MS;
	bool late = false;
	int fds[2], st = 0;
	pid_t pid;

	argv[n++] = (char *)"sandbox-exec";
	if (tmpdef) {
		argv[n++] = (char *)"-D";
		argv[n++] = (char *)tmpdef;
	}
	argv[n++] = (char *)"-p";
	argv[n++] = (char *)profile;
	argv[n++] = (char *)"/usr/bin/true";
	argv[n] = NULL;
	pid = sbx_fork_piped(fds, err);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		sbx_signals_reset();
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(fds[1], 2) < 0)
			_exit(126);
		execve(SBX_SEATBELT_EXEC, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		uint64_t now = sbx_now_ms();
		ssize_t r;

		if (now >= deadline) {
			late = true;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, (int)(deadline - now)) < 0 && errno != EINTR)
			break;
		if (pfd.revents == 0)
			continue;
		r = read(fds[0], msg + len, sizeof(msg) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == sizeof(msg) - 1)
			break;
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	msg[len] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	if (!late && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (late)
		return sbx_err_set(err, ETIMEDOUT,
		    "%s did not finish a trial run of the profile in %d s", SBX_SEATBELT_EXEC,
		    SEATBELT_TRIAL_MS / 1000);
	if (msg[0] != '\0')
		return sbx_err_set(
		    err, EPERM, "%s refused the profile: %s", SBX_SEATBELT_EXEC, msg);
	if (WIFSIGNALED(st))
		return sbx_err_set(err, EPERM, "/usr/bin/true under the profile was killed by %s",
		    sbx_signal_name(WTERMSIG(st)));
	return sbx_err_set(
	    err, EPERM, "/usr/bin/true under the profile exited with status %d", WEXITSTATUS(st));
}

static void
seatbelt_cleanup(struct sbx_child *c, SBX_UNUSED struct sbx_report *r)
{
	struct seatbelt_state *s = c->priv;
	struct sbx_err err = { 0 };

	if (s == NULL)
		return;
	if (s->tmpdir)
		sbx_rm_rf(s->tmpdir, &err);
	free(s->tmpdir);
	free(s);
	c->priv = NULL;
}
#endif /* __APPLE__ */

static int
seatbelt_probe(struct sbx_caps *caps, struct sbx_err *err)
{
#ifdef __APPLE__
	if (access(SBX_SEATBELT_EXEC, X_OK) < 0) {
		sbx_err_sys(err, "%s", SBX_SEATBELT_EXEC);
		err->errnum = SBX_EUNAVAIL;
		return -1;
	}
	if (caps->full_probe && try_profile("(version 1)\n(allow default)\n", NULL, err) < 0) {
		err->errnum = SBX_EUNAVAIL;
		return -1;
	}
	caps->seatbelt = true;
	return 0;
#else
	/* --probe says what this machine offers. For a run, the backend is
	 * accepted so that --print-backend prints its profile anywhere; spawn
	 * refuses to run it. */
	if (caps->full_probe)
		return sbx_err_set(err, SBX_EUNAVAIL, "the seatbelt backend runs only on macOS");
	return 0;
#endif
}

/* What the profile holds, and what it cannot (see the man page's table):
 * mounts cannot be placed inside the workdir; "connect" and "network on"
 * let this machine's own non-loopback addresses through (Seatbelt names a
 * host only as "*" or "localhost"); no proxy runs to give back yet;
 * RLIMIT_AS counts the address space every macOS process reserves, so it
 * bounds nothing useful; root escapes RLIMIT_NPROC, and in open mode reads
 * root-only files that no path rule names. */
static uint32_t
seatbelt_enforces(const struct sbx_policy *p, const struct sbx_caps *caps)
{
	uint32_t r = SBX_RULE_BIT(SBX_RULE_DENY) | SBX_RULE_BIT(SBX_RULE_PROTECT) |
	    SBX_RULE_BIT(SBX_RULE_LISTEN) | SBX_RULE_BIT(SBX_RULE_LOOPBACK) |
	    SBX_RULE_BIT(SBX_RULE_PROCESSES) | SBX_RULE_BIT(SBX_RULE_TIMEOUT) |
	    (sbx_limits_rlimit_rules(p) & ~SBX_RULE_BIT(SBX_RULE_MEMORY));

	if (p->fs != SBX_FS_OPEN || caps->caller_uid != 0)
		r |= SBX_RULE_BIT(SBX_RULE_FS);
	if (caps->caller_uid == 0)
		r &= ~SBX_RULE_BIT(SBX_RULE_PIDS);
	if (!p->network)
		r |= SBX_RULE_BIT(SBX_RULE_NETWORK);
	return r;
}

/* The run's profile: the core lowered the view, built on this machine's
 * facts as the Linux backends' is, into the plan (jail.h). */
static int
seatbelt_describe(const struct sbx_jail *j, struct sbx_buf *out, SBX_UNUSED struct sbx_err *err)
{
	sbx_buf_puts(out, j->profile.data ? j->profile.data : "");
	return 0;
}

static int
seatbelt_spawn(SBX_UNUSED const struct sbx_jail *j, SBX_UNUSED struct sbx_child *c,
    SBX_UNUSED struct sbx_report *r, struct sbx_err *err)
{
#ifdef __APPLE__
	const struct sbx_exec *x = j->exec;
	const char *profile = j->profile.data;
	struct sbx_strv argv = { 0 }, env = { 0 };
	struct command_ctx cmd;
	struct sbx_payload_hooks hooks = { .setup = find_command, .ctx = &cmd };
	struct sbx_exec sx;
	struct seatbelt_state *s;
	_cleanup_free_ char *tmpdef = NULL, *tmpenv = NULL;
	char *tmpdir = NULL;
	bool have_tmpdir = false;
	int rc = -1;

	if (profile == NULL)
		return sbx_err_set(err, EINVAL, "seatbelt: the plan holds no profile");
	if (make_tmpdir(&tmpdir, err) < 0)
		return -1;
	tmpdef = sbx_xasprintf("%s=%s", SBX_SEATBELT_TMPDIR_PARAM, tmpdir);
	if (try_profile(profile, tmpdef, err) < 0)
		goto out;

	sbx_strv_push(&argv, SBX_SEATBELT_EXEC);
	sbx_strv_push(&argv, "-D");
	sbx_strv_push(&argv, tmpdef);
	sbx_strv_push(&argv, "-p");
	sbx_strv_push(&argv, profile);
	cmd.cmd = argv.n;
	for (size_t i = 0; x->argv[i]; i++)
		sbx_strv_push(&argv, x->argv[i]);
	/* /tmp is the host's on macOS: TMPDIR is the run's own dir. */
	tmpenv = sbx_xasprintf("TMPDIR=%s", tmpdir);
	for (size_t i = 0; x->envp && x->envp[i]; i++) {
		if (sbx_str_has_prefix(x->envp[i], "TMPDIR=")) {
			sbx_strv_push(&env, tmpenv);
			have_tmpdir = true;
		} else {
			sbx_strv_push(&env, x->envp[i]);
		}
	}
	if (!have_tmpdir)
		sbx_strv_push(&env, tmpenv);
	cmd.argv = argv.v;
	cmd.envp = env.v;

	sx = *x;
	sx.argv = argv.v;
	sx.envp = env.v;
	/* No RLIMIT_AS: every macOS process reserves far more address space
	 * than any sensible memory limit (enforces() leaves memory out). */
	sx.nrlimits = 0;
	for (size_t i = 0; i < x->nrlimits; i++)
		if (x->rlimits[i].resource != RLIMIT_AS)
			sx.rlimits[sx.nrlimits++] = x->rlimits[i];
	r->limits[SBX_LIMIT_MEMORY].by = NULL;

	if (sbx_launch_plain(&sx, &hooks, c, err) < 0)
		goto out;
	s = sbx_xcalloc(1, sizeof(*s));
	s->tmpdir = steal_ptr(&tmpdir);
	c->priv = s;
	c->cleanup = seatbelt_cleanup;
	r->layers.new_session = true;
	r->layers.seatbelt = true;
	rc = 0;
out:
	if (tmpdir != NULL) {
		struct sbx_err ignored = { 0 };

		sbx_rm_rf(tmpdir, &ignored);
		free(tmpdir);
	}
	sbx_strv_free(&argv);
	sbx_strv_free(&env);
	return rc;
#else
	return sbx_err_set(err, SBX_EUNAVAIL, "the seatbelt backend runs only on macOS");
#endif
}

const struct sbx_backend sbx_backend_seatbelt = {
	.name = "seatbelt",
	.id = SBX_BACKEND_SEATBELT,
	.probe = seatbelt_probe,
	.enforces = seatbelt_enforces,
	.describe = seatbelt_describe,
	.spawn = seatbelt_spawn,
};
