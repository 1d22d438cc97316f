/* The docker backend: one container per run, started by the docker client
 * with the command line of docker-argv.c (never through a shell):
 *
 *   sbxrun -> init (new session, child subreaper) -> docker run -i ...
 *
 * The client is the payload of the common launcher; the script on
 * sbxrun's standard input reaches the container's "sh -s" through it. The
 * container has a name (sbxrun-PID-RANDOM) and the label "sbxrun", and
 * sbxrun, not the daemon, removes it: after the run it asks the engine
 * whether the kernel's OOM killer struck (State.OOMKilled, which a
 * container removed on exit no longer has), then "docker rm --force
 * --volumes",
 * which also ends a container whose client was killed by the timeout or a
 * signal. If sbxrun itself dies, init does the same from its copy of the
 * state. Every docker command sbxrun runs itself is bounded in time and
 * killed when it overruns.
 *
 * The daemon is asked only when the run names this backend ("auto" never
 * does), with "docker info" under a hard limit of four seconds. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "docker-argv.h"
#include "fsutil.h"
#include "keeper.h"
#include "launch.h"
#include "linux-gitguard.h"
#include "linux-owner.h"
#include "plan.h"
#include "resolve.h"
#include "supervise.h"

extern char **environ;

/* The hard limits on the docker commands sbxrun runs itself. */
#define DK_PROBE_MS 4000
#define DK_INSPECT_MS 5000
#define DK_RM_MS 10000
/* Making a kept container may pull its image. */
#define DK_CREATE_MS 120000
#define DK_START_MS 30000
/* The kill waits up to 3 s inside for a run that had not started. */
#define DK_KILL_MS 10000

/* The ids a root caller's container runs as, as under the other Linux
 * backends; the workdir is lent to them for the run. */
#define DK_NOBODY 65534

/* What the run changed on the host, undone after it (dk_cleanup), or by
 * init when sbxrun died (dk_orphaned). */
struct dk_state {
	struct sbx_strv rm; /* docker rm --force --volumes NAME; empty for a kept one */
	struct sbx_strv inspect;
	struct sbx_strv kill; /* a kept container: kill this run's group */
	bool oom_before; /* a kept container: State.OOMKilled before the run */
	char *keep_name;
	char *workdir;
	struct sbx_keeper *keeper; /* holds a root caller's lend (keeper.h) */
	bool leased;
	struct sbx_strv scrub; /* protected paths absent before the run */
	struct sbx_strv orphan; /* ... and moved aside only in init, when sbxrun was
				  killed (sbx_gitguard_orphan_names()) */
	struct sbx_strv made; /* mount targets made for the run, outermost first */
	bool keep_made; /* a kept container binds them: they stay (keep_ready) */
	int wd; /* the workdir, O_PATH, for them */
	struct sbx_report *report; /* during dk_cleanup() only, else NULL */
};

/* Runs argv (the client is looked up on the caller's PATH) with its
 * output in out, killing it once ms have passed. Returns its exit status,
 * or -1 with err when it could not run or was killed. */
static int
run_bounded(char *const *argv, int ms, struct sbx_buf *out, struct sbx_err *err)
{
	int fds[2], pidfd, st = 0;
	uint64_t deadline = sbx_now_ms() + (uint64_t)ms;
	bool exited = false;
	pid_t pid;

	pid = sbx_fork_piped(fds, err);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		sbx_signals_reset();
		if (null >= 0)
			dup2(null, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		closefrom(3);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(fds[1]);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd pfd[2] = { { .fd = fds[0], .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN } };
		uint64_t now = sbx_now_ms();
		char chunk[1024];
		ssize_t n;

		if (now >= deadline)
			break;
		if (poll(pfd, pidfd >= 0 ? 2 : 1, (int)(deadline - now)) < 0 && errno != EINTR)
			break;
		while ((n = read(fds[0], chunk, sizeof(chunk))) > 0)
			if (out && out->len < 8192)
				sbx_buf_add(out, chunk, (size_t)n);
		if (n == 0 || (pfd[1].revents & POLLIN)) {
			exited = true;
			break;
		}
	}
	if (!exited) {
		kill(pid, SIGKILL);
		sbx_err_set(err, ETIMEDOUT, "%s %s did not answer within %d ms and was killed",
		    argv[0], argv[1], ms);
	}
	close(fds[0]);
	if (pidfd >= 0)
		close(pidfd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!exited)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && (out == NULL || out->len == 0))
		return sbx_err_set(err, ENOENT, "no %s client on the PATH", argv[0]);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The first line of a client's output that says something, for a
 * message (docker info prints an empty line before its error). */
static const char *
first_line(struct sbx_buf *b)
{
	char *s = b->data;

	if (s == NULL)
		return "no output";
	s += strspn(s, " \r\n");
	s[strcspn(s, "\r\n")] = '\0';
	return s[0] ? s : "no output";
}

static int
docker_probe(struct sbx_caps *caps, struct sbx_err *err)
{
	struct sbx_strv argv = { 0 };
	struct sbx_buf out = { 0 };
	int rc;

	caps->docker = false;
	sbx_docker_info_argv(NULL, &argv);
	rc = run_bounded(argv.v, DK_PROBE_MS, &out, err);
	sbx_strv_free(&argv);
	if (rc < 0) {
		sbx_buf_free(&out);
		return sbx_err_wrap(err, "the docker daemon cannot be asked");
	}
	if (rc != 0) {
		sbx_err_set(err, SBX_EUNAVAIL,
		    "the docker daemon does not answer (docker info: %s)", first_line(&out));
		sbx_buf_free(&out);
		return -1;
	}
	sbx_buf_free(&out);
	caps->docker = true;
	return 0;
}

/* The container is a root of its own: the host's files are not there,
 * only the image, /work and the mounts (see docker_spawn for what is
 * bound and hidden). Its cgroup holds memory and pids; the other limits
 * are rlimits given by the engine. Its network is either none (an empty
 * namespace) or docker's bridge, where no port rule and no local-address
 * rule can be kept: a container there reaches the bridge's gateway, which
 * is the host. Nor is listen kept there: --publish forwards the listed
 * ports from the host's loopback, but the container binds any port it
 * likes on its bridge address, which every host process reaches. With
 * no port and the network off there is nothing to listen on, which
 * holds. */
static uint32_t
docker_enforces(const struct sbx_policy *p, SBX_UNUSED const struct sbx_caps *caps)
{
	uint32_t r = SBX_RULE_BIT(SBX_RULE_FS) | SBX_RULE_BIT(SBX_RULE_DENY) |
	    SBX_RULE_BIT(SBX_RULE_PROTECT) | SBX_RULE_BIT(SBX_RULE_MOUNTS) |
	    SBX_RULE_BIT(SBX_RULE_PROCESSES) | SBX_RULE_BIT(SBX_RULE_TIMEOUT);

	for (int i = 0; i < SBX_LIMIT__COUNT; i++)
		if (p->limits[i].set)
			r |= SBX_RULE_BIT(sbx_limit_rule((enum sbx_limit_id)i));
	if (!sbx_docker_net_open(p))
		r |= SBX_RULE_BIT(SBX_RULE_NETWORK) | SBX_RULE_BIT(SBX_RULE_LISTEN);
	return r;
}

/* The pin a path lies strictly below, the deepest one; NULL when none. */
static const struct sbx_pin *
pin_above(const struct sbx_fsview *fs, const char *path)
{
	const struct sbx_pin *best = NULL;

	for (size_t i = 0; i < fs->npins; i++)
		if (sbx_path_is_under(path, fs->pins[i].path) &&
		    strcmp(path, fs->pins[i].path) != 0 &&
		    (best == NULL || strlen(fs->pins[i].path) > strlen(best->path)))
			best = &fs->pins[i];
	return best;
}

/* Docker takes its bind sources by name, and its daemon resolves them as
 * root when the container is made. Right before the client runs, each
 * name must still lead where resolve pinned it (a mount source, the
 * workdir) or, below the workdir, to what the workdir's descriptor
 * reaches following nothing; otherwise the run is refused. What the
 * daemon does after this check is out of sbxrun's reach
 * (doc/design/paths.md). */
static int
check_binds(const struct sbx_exec *x, const struct sbx_docker_binds *b, struct sbx_err *err)
{
	const char *wd = x->fs->workdir;

	for (size_t i = 0; i < b->n + 1; i++) {
		const char *src = i < b->n ? b->v[i].source : wd;
		const struct sbx_pin *pin, *base;
		struct stat now, want;
		_cleanup_close_ int fd = -1;

		if (src == NULL || (pin = sbx_fsview_pin(x->fs, src)) == NULL) {
			/* Below the workdir or a mount source (a .git bound
			 * read-only there): what that pin reaches now. */
			if (src == NULL || strcmp(src, "/dev/null") == 0 ||
			    (base = pin_above(x->fs, src)) == NULL)
				continue; /* an empty volume, or /dev/null */
			fd = sbx_open_nofollow(base->fd, src + strlen(base->path) + 1, &want);
			if (fd < 0)
				return sbx_err_sys(err, "docker: bind source %s", src);
		} else
			want = pin->st;
		if (stat(src, &now) < 0 || !sbx_same_file(&now, &want))
			return sbx_err_set(err, ESTALE,
			    "docker: bind source %s changed after it was checked", src);
	}
	return 0;
}

/* Makes rel below the workdir wd and each missing directory on the way
 * to it, the last one a file when file, one component at a time from
 * wd and following no symbolic link (a second sandbox on the workdir may
 * plant one); each one made goes to made. */
static int
make_target(int wd, const char *rel, bool file, struct sbx_strv *made, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);
	int dir = fcntl(wd, F_DUPFD_CLOEXEC, 3);

	if (dir < 0)
		return sbx_err_sys(err, "docker: cannot open the workdir");
	for (char *c = copy;; c++) {
		bool last = (c = strchr(c, '/')) == NULL;
		const char *name;
		int r, next;

		if (!last)
			*c = '\0';
		name = strrchr(copy, '/');
		name = name ? name + 1 : copy;
		if (last && file) {
			r = openat(
			    dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (r >= 0)
				close(r);
		} else {
			r = mkdirat(dir, name, 0755);
		}
		if (r >= 0)
			sbx_strv_push(made, copy);
		else if (errno != EEXIST)
			break;
		if (last) {
			close(dir);
			return 0;
		}
		next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		dir = next;
		if (dir < 0)
			break;
		*c = '/';
	}
	sbx_err_sys(err, "docker: cannot make the mount target %s (at %s)", rel, copy);
	if (dir >= 0)
		close(dir);
	return -1;
}

/* Makes each missing mount target of the view below the workdir wd, as
 * the caller, so that docker does not make it as root; a target has no
 * ".." (policy.c). */
static int
make_targets(int wd, const struct sbx_fsplan *view, struct sbx_strv *made, struct sbx_err *err)
{
	for (size_t i = 0; i < view->n; i++) {
		const struct sbx_fsentry *e = &view->v[i];
		struct stat st;
		int fd;

		if (e->origin != SBX_FSO_MOUNT)
			continue;
		fd = sbx_open_nofollow(wd, e->rel, &st);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (make_target(wd, e->rel, e->kind == SBX_KIND_FILE, made, err) < 0)
			return -1;
	}
	return 0;
}

static void
warn(struct sbx_report *r, char *text)
{
	if (r)
		sbx_strv_push_take(&r->warnings, text);
	else
		free(text);
}

/* Everything after the container: removed, the workdir back to the
 * caller, what may not be made moved aside, mount targets gone. */
static void
undo(struct dk_state *st, bool kill_run, bool orphaned)
{
	struct sbx_err err = { 0 };
	struct sbx_buf out = { 0 };
	int rc;

	if (st->rm.n > 0) {
		rc = run_bounded(st->rm.v, DK_RM_MS, &out, &err);
		if (rc != 0 && !(out.data && strstr(out.data, "No such container")))
			warn(st->report,
			    sbx_xasprintf("docker: the container %s may be left behind: %s",
				st->rm.v[st->rm.n - 1], rc < 0 ? err.msg : first_line(&out)));
		sbx_buf_free(&out);
	}
	/* A kept container stays; only this run's process group ends. */
	if (st->kill.n > 0 && kill_run) {
		rc = run_bounded(st->kill.v, DK_KILL_MS, &out, &err);
		if (rc != 0 && !(out.data && strstr(out.data, "No such"))) {
			warn(st->report,
			    sbx_xasprintf("docker: this run's processes in the kept container %s "
					  "may still run: %s",
				st->keep_name, rc < 0 ? err.msg : first_line(&out)));
			if (st->report)
				st->report->kill_unsure = true;
		}
		sbx_buf_free(&out);
	}
	for (size_t i = 0; i < st->scrub.n; i++) {
		struct sbx_err merr = { 0 };
		_cleanup_free_ char *made = NULL;
		_cleanup_free_ char *aside =
		    st->wd >= 0 ? sbx_move_aside_way(st->wd, st->scrub.v[i], &made, &merr) : NULL;

		/* No scrubbed name passed through a symlink at the start
		 * (docker-argv.c): one on the way now is the run's. */
		if (aside) {
			warn(st->report,
			    sbx_xasprintf("docker: the sandbox made %s, where nothing may be "
					  "made (a symlink on the way to %s); it was moved aside "
					  "to %s",
				made, st->scrub.v[i], aside));
			continue;
		}
		if (!merr.msg[0])
			aside = sbx_move_aside(st->wd, st->workdir, st->scrub.v[i], &merr);
		if (merr.msg[0])
			warn(st->report, sbx_xasprintf("docker: %s", merr.msg));
		if (aside)
			warn(st->report,
			    sbx_xasprintf("docker: the sandbox made %s, where nothing may be made; "
					  "it was moved aside to %s",
				st->scrub.v[i], aside));
	}
	/* sbxrun's checks after the run do not come when it was killed. */
	for (size_t i = 0; orphaned && st->wd >= 0 && i < st->orphan.n; i++) {
		struct sbx_err merr = { 0 };

		free(sbx_move_aside_at(st->wd, st->orphan.v[i], &merr));
	}
	/* Through the workdir's descriptor, following no symbolic link: the
	 * workdir may be lent to uid 65534 still, and a second sandbox on it
	 * may have put one on the way. A kept container's mounts are bound
	 * onto these targets for its whole life: removing one detaches its
	 * mount there (the kernel takes a mount off a directory that is
	 * removed), so once such a container is ready they stay. */
	for (size_t i = st->made.n; i-- > 0 && !st->keep_made;)
		sbx_remove_empty_at(st->wd, st->made.v[i]);
	/* The keeper hands the lend back; in init (orphaned) it does so
	 * alone, once init, which removed the container first, is gone. */
	if (st->leased && !orphaned)
		sbx_keeper_undo_run(st->keeper, st->report ? &st->report->warnings : NULL);
	st->leased = false;
}

static void
state_free(struct dk_state *st)
{
	sbx_strv_free(&st->rm);
	sbx_strv_free(&st->inspect);
	sbx_strv_free(&st->kill);
	sbx_strv_free(&st->scrub);
	sbx_strv_free(&st->orphan);
	sbx_strv_free(&st->made);
	if (st->wd >= 0)
		close(st->wd);
	free(st->workdir);
	free(st->keep_name);
	free(st);
}

/* In init, when sbxrun was killed: the client is dead, the container may
 * not be. */
static void
dk_orphaned(void *ctx)
{
	struct dk_state *st = ctx;

	st->report = NULL;
	undo(st, true, true);
}

/* Asks the engine about the kept container name. Returns 1 and fills k
 * when it exists, 0 when there is none, -1 with err when the engine could
 * not say. */
static int
keep_inspect(const char *name, struct sbx_docker_kept *k, struct sbx_err *err)
{
	struct sbx_strv argv = { 0 };
	struct sbx_buf out = { 0 };
	int rc;

	sbx_docker_keep_inspect_argv(NULL, name, &argv);
	rc = run_bounded(argv.v, DK_INSPECT_MS, &out, err);
	sbx_strv_free(&argv);
	if (rc < 0) {
		sbx_buf_free(&out);
		return -1;
	}
	if (rc != 0) {
		bool none = out.data && strstr(out.data, "No such");

		if (!none)
			sbx_err_set(
			    err, SBX_EUNAVAIL, "docker inspect %s: %s", name, first_line(&out));
		sbx_buf_free(&out);
		return none ? 0 : -1;
	}
	rc = out.data && sbx_docker_parse_keep(out.data, k) == 0 ? 1 : -1;
	if (rc < 0)
		sbx_err_set(err, EPROTO, "docker inspect %s: unexpected answer: %s", name,
		    first_line(&out));
	sbx_buf_free(&out);
	return rc;
}

/* Whether the container k, named name, is the one this run would make:
 * made by sbxrun for name, the same workdir, image and options. */
static int
keep_matches(const char *name, const struct sbx_docker_kept *k, const char *workdir,
    const char *image, const char *spec, struct sbx_err *err)
{
	const char *what = NULL;
	const char *had = "", *want = "";

	if (strcmp(k->keep, name) != 0)
		return sbx_err_set(err, EEXIST,
		    "docker: a container named %s exists, but sbxrun --docker-keep did not make "
		    "it (no label " SBX_DOCKER_KEEP_LABEL "=%s); it is left alone",
		    name, name);
	if (strcmp(k->workdir, workdir) != 0)
		what = "workdir", had = k->workdir, want = workdir;
	else if (strcmp(k->image, image) != 0)
		what = "image", had = k->image, want = image;
	else if (strcmp(k->spec, spec) != 0)
		return sbx_err_set(err, EEXIST,
		    "docker: the kept container %s was made with other options (user, limits, "
		    "mounts, protected paths, ports or network) than this run asks for; "
		    "remove it with --docker-rm %s",
		    name, name);
	if (what)
		return sbx_err_set(err, EEXIST,
		    "docker: the kept container %s was made for the %s %s, not %s; remove it "
		    "with --docker-rm %s",
		    name, what, had, want, name);
	return 0;
}

/* Makes sure the kept container runs and is the one asked for: found and
 * checked, started when stopped, or made. */
static int
keep_ready(const char *name, char *const *create, const char *workdir, const char *image,
    const char *spec, bool *oom_before, struct sbx_err *err)
{
	struct sbx_docker_kept k = { 0 };
	int found = keep_inspect(name, &k, err);

	if (found == 0) {
		struct sbx_buf out = { 0 };
		int rc = run_bounded(create, DK_CREATE_MS, &out, err);

		if (rc != 0) {
			/* Another run may have made it meanwhile. */
			found = keep_inspect(name, &k, err);
			if (found <= 0) {
				if (rc > 0)
					sbx_err_set(err, SBX_EUNAVAIL,
					    "docker: cannot make the kept container %s: %s", name,
					    first_line(&out));
				sbx_buf_free(&out);
				return -1;
			}
		}
		sbx_buf_free(&out);
		if (found == 0) {
			*oom_before = false;
			return 0;
		}
	}
	if (found < 0)
		return -1;
	if (keep_matches(name, &k, workdir, image, spec, err) < 0) {
		sbx_docker_kept_free(&k);
		return -1;
	}
	*oom_before = k.oom_killed;
	if (!k.running) {
		struct sbx_strv argv = { 0 };
		struct sbx_buf out = { 0 };
		int rc;

		sbx_docker_start_argv(NULL, name, &argv);
		rc = run_bounded(argv.v, DK_START_MS, &out, err);
		sbx_strv_free(&argv);
		if (rc > 0)
			sbx_err_set(err, SBX_EUNAVAIL,
			    "docker: cannot start the kept container %s: %s", name,
			    first_line(&out));
		sbx_buf_free(&out);
		if (rc != 0) {
			sbx_docker_kept_free(&k);
			return -1;
		}
	}
	sbx_docker_kept_free(&k);
	return 0;
}

/* After a run in a kept container: its group killed when the run did not
 * end by itself, and OOMKilled compared with its value before the run
 * (the engine sets it on any OOM kill in the container and never clears
 * it while the container lives). */
static void
keep_cleanup(struct dk_state *st, struct sbx_report *r, int stopped_by)
{
	struct sbx_docker_kept k = { 0 };
	struct sbx_err err = { 0 };
	bool ended = r->exited && !r->timed_out && stopped_by == 0;

	/* "docker exec" does not pass a signal on: the client leaves with 0
	 * and the run goes on inside until its group is killed below. The
	 * run ended by the signal sbxrun was stopped with, not by itself. */
	if (stopped_by && !r->timed_out) {
		r->exited = false;
		r->signal = stopped_by;
	}

	undo(st, !ended, false);
	/* The checks after the run (undo(), the git guard, a root caller's
	 * hand-back) see the workdir as it is now; processes the run left
	 * in the container keep it bound and may change it afterwards. */
	warn(r,
	    sbx_xasprintf("docker: the kept container %s is left running with the workdir "
			  "bound; what runs in it after this run (processes the run left in "
			  "the background) is not checked: the checks after the run hold at "
			  "its end only",
		st->keep_name));
	if (keep_inspect(st->keep_name, &k, &err) == 1) {
		if (st->oom_before)
			warn(r,
			    sbx_xasprintf("docker: the kept container %s had an OOM kill "
					  "before this run: oom_killed cannot tell this "
					  "run's",
				st->keep_name));
		else
			r->oom_killed = k.oom_killed;
		if (!k.running)
			warn(r,
			    sbx_xasprintf("docker: the kept container %s is not running "
					  "after this run",
				st->keep_name));
	} else {
		warn(r,
		    sbx_xasprintf("docker: %s",
			err.msg[0] ? err.msg
				   : "the kept container "
				     "is gone"));
	}
	sbx_docker_kept_free(&k);
	state_free(st);
}

int
sbx_docker_keep_remove(const char *name, struct sbx_err *err)
{
	struct sbx_docker_kept k = { 0 };
	struct sbx_strv argv = { 0 };
	struct sbx_buf out = { 0 };
	int found = keep_inspect(name, &k, err), rc;

	if (found < 0)
		return sbx_err_wrap(err, "--docker-rm %s", name);
	if (found == 0)
		return sbx_err_set(
		    err, ENOENT, "--docker-rm: there is no container named %s", name);
	if (strcmp(k.keep, name) != 0) {
		sbx_docker_kept_free(&k);
		return sbx_err_set(err, EEXIST,
		    "--docker-rm: the container %s is not one that sbxrun --docker-keep made "
		    "(no label " SBX_DOCKER_KEEP_LABEL "=%s); it is left alone",
		    name, name);
	}
	sbx_docker_kept_free(&k);
	sbx_docker_rm_argv(NULL, name, &argv);
	rc = run_bounded(argv.v, DK_RM_MS, &out, err);
	sbx_strv_free(&argv);
	if (rc > 0)
		sbx_err_set(err, SBX_EUNAVAIL, "--docker-rm %s: %s", name, first_line(&out));
	sbx_buf_free(&out);
	return rc == 0 ? 0 : -1;
}

/* After the run: what the engine knows of it, then undo(). */
static void
dk_cleanup(struct sbx_child *c, struct sbx_report *r)
{
	struct dk_state *st = c->priv;
	struct sbx_err err = { 0 };
	struct sbx_buf out = { 0 };
	bool running = false, oom = false, started = false;
	int code = 0, rc;

	c->priv = NULL;
	st->report = r;
	if (st->kill.n > 0) {
		keep_cleanup(st, r, c->stopped_by);
		return;
	}
	rc = run_bounded(st->inspect.v, DK_INSPECT_MS, &out, &err);
	if (rc == 0 && out.data &&
	    sbx_docker_parse_inspect(out.data, &running, &oom, &code, &started) == 0) {
		r->oom_killed = oom;
	} else if (rc < 0) {
		warn(r, sbx_xasprintf("docker: %s", err.msg));
	}
	/* docker run's own 125: the container never ran. */
	if (r->exited && r->exit_code == 125 && !started && r->error == NULL)
		r->error = sbx_xstrdup("docker could not run the container (docker run exited "
				       "with 125; its own message is above)");
	sbx_buf_free(&out);
	undo(st, false, false);
	state_free(st);
}

/* A name no other run has: our pid and 64 random bits. */
static char *
container_name(void)
{
	uint64_t rnd = 0;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint64_t)sbx_now_ms() ^ ((uint64_t)getpid() << 32);
	return sbx_xasprintf("sbxrun-%d-%016" PRIx64, (int)getpid(), rnd);
}

/* The run's docker command line in argv: "docker run" of a container of
 * its own, or with docker_keep "docker exec" into the kept container,
 * whose "docker run --detach" goes to create (with spec, its fingerprint)
 * when create is not NULL. The values argv names alone go to client_env
 * (NAME=VALUE), for the client's environment. */
static int
build_argv(const struct sbx_policy *p, const struct sbx_exec *x, const char *name,
    const char *pgid_file, const struct sbx_docker_binds *b, struct sbx_strv *argv,
    struct sbx_strv *client_env, struct sbx_strv *create, char **spec, struct sbx_err *err)
{
	struct sbx_docker_run run = {
		.name = p->docker_keep ? p->docker_keep : name,
		.workdir = x->fs->workdir,
		.binds = b->v,
		.nbinds = b->n,
		.uid = x->caller_uid == 0 ? DK_NOBODY : x->caller_uid,
		.gid = x->caller_uid == 0 ? DK_NOBODY : x->caller_gid,
		.envp = x->envp,
		.caller_env = environ,
		.client_env = client_env,
		.argv = x->argv,
	};

	if (p->docker_keep == NULL)
		return sbx_docker_argv(p, &run, argv, err);
	if (create && sbx_docker_keep_argv(p, &run, create, spec, err) < 0)
		return -1;
	return sbx_docker_exec_argv(p, &run, pgid_file, argv, err);
}

static void
set_report(const struct sbx_policy *p, struct sbx_report *r)
{
	r->layers.mountns = r->layers.pidns = r->layers.ipcns = r->layers.utsns = true;
	r->layers.netns = true;
	r->layers.cgroup = true;
	r->layers.no_new_privs = r->layers.caps_dropped = true;
	r->layers.new_session = r->layers.subreaper = true;
	for (int i = 0; i < SBX_LIMIT__COUNT; i++)
		if (p->limits[i].set)
			r->limits[i].by =
			    (i == SBX_LIMIT_MEMORY || i == SBX_LIMIT_PIDS) ? "cgroup" : "rlimit";
	sbx_strv_push_take(&r->warnings,
	    sbx_xasprintf(
		"docker: the fs mode (%s), the read list and the host's secret list "
		"do not apply inside the image: the container sees the image, the workdir "
		"and the mounts, nothing else of the host",
		sbx_fs_name(p->fs)));
	/* On docker's bridge the host is the gateway: its services, loopback
	 * ones published there included, cannot be kept out. */
	if (sbx_docker_net_open(p)) {
		r->requested |= SBX_RULE_BIT(SBX_RULE_LOOPBACK);
		sbx_strv_push(&r->warnings,
		    "docker: the container is on docker's bridge network: host services "
		    "(the bridge gateway, host.docker.internal) are not kept out");
	}
}

static int
docker_describe(const struct sbx_jail *j, struct sbx_buf *out, struct sbx_err *err)
{
	const struct sbx_policy *p = j->policy;
	const struct sbx_exec *x = j->exec;
	const struct sbx_docker_binds *b = &j->binds;
	struct sbx_strv argv = { 0 }, create = { 0 }, env = { 0 };
	_cleanup_free_ char *spec = NULL;

	if (build_argv(p, x, "sbxrun-PID-RANDOM", "/tmp/.sbxrun-run-RANDOM", b, &argv, &env,
		&create, &spec, err) < 0) {
		sbx_strv_free(&argv);
		sbx_strv_free(&env);
		sbx_strv_free(&create);
		return -1;
	}
	if (p->docker_keep) {
		sbx_buf_printf(out,
		    "# backend docker: each run in the kept container %s, made on first use "
		    "by:\n",
		    p->docker_keep);
		sbx_docker_render(create.v, out);
		sbx_buf_puts(out, "# and the run:\n");
		sbx_strv_free(&create);
	} else {
		sbx_buf_puts(out, "# backend docker: one container per run, removed after it\n");
	}
	for (size_t i = 0; i < b->notes.n; i++)
		sbx_buf_printf(out, "# %s\n", b->notes.v[i]);
	for (size_t i = 0; i < b->scrub.n; i++)
		sbx_buf_printf(out, "# %s does not exist: one made during the run is moved aside\n",
		    b->scrub.v[i]);
	if (x->caller_uid == 0)
		sbx_buf_printf(out,
		    "# the caller is root: the workdir is lent to uid %d for the run\n", DK_NOBODY);
	if (env.n > 0) {
		sbx_buf_puts(out, "# the values of these are in the client's environment:");
		for (size_t i = 0; i < env.n; i++)
			sbx_buf_printf(out, " %.*s", (int)strcspn(env.v[i], "="), env.v[i]);
		sbx_buf_putc(out, '\n');
	}
	sbx_strv_free(&env);
	sbx_docker_render(argv.v, out);
	sbx_strv_free(&argv);
	return 0;
}

/* The client's environment in out: the caller's, each variable of env
 * (NAME=VALUE) replacing the caller's of that name. */
static void
client_env(const struct sbx_strv *env, struct sbx_strv *out)
{
	for (size_t i = 0; environ[i]; i++) {
		size_t n = strcspn(environ[i], "=");
		bool replaced = false;

		for (size_t j = 0; j < env->n && !replaced; j++)
			replaced = strncmp(env->v[j], environ[i], n) == 0 && env->v[j][n] == '=';
		if (!replaced)
			sbx_strv_push(out, environ[i]);
	}
	sbx_strv_copy(out, env);
	if (out->v == NULL) /* env -i: an empty one, not none */
		out->v = sbx_xcalloc(1, sizeof(*out->v));
}

/* A value set with --env or [env] for a variable the client reads itself
 * is on its command line (docker-argv.c, push_env): said in warnings. */
static void
warn_env_on_argv(const struct sbx_policy *p, struct sbx_report *r)
{
	for (size_t i = 0; i < p->nenv; i++)
		if (sbx_docker_client_reads(p->env[i].name))
			sbx_strv_push_take(&r->warnings,
			    sbx_xasprintf("docker: the value of %s is on the docker client's "
					  "command line, which every local user can read: the "
					  "client reads that variable itself, so it cannot take "
					  "the value from its environment",
				p->env[i].name));
}

static int
docker_spawn(
    const struct sbx_jail *j, struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	const struct sbx_policy *p = j->policy;
	const struct sbx_exec *x = j->exec;
	const struct sbx_docker_binds *b = &j->binds;
	struct dk_state *st;
	struct sbx_payload_hooks hooks = { .orphaned = dk_orphaned };
	struct sbx_exec client = *x;
	struct sbx_strv argv = { 0 }, create = { 0 }, env = { 0 }, client_envp = { 0 };
	_cleanup_free_ char *name = NULL, *pgid_file = NULL, *spec = NULL;
	_cleanup_gitguard_ struct sbx_gitguard *git_guard = NULL;

	if (p->docker_keep && p->workdir == NULL)
		return sbx_err_set(err, EINVAL,
		    "docker_keep %s needs a workdir (-w DIR): a kept container keeps the one it "
		    "was made with",
		    p->docker_keep);
	if (p->docker_keep && strpbrk(x->fs->workdir, "\r\n"))
		return sbx_err_set(err, EINVAL,
		    "docker_keep: the workdir's path holds a line break, which its label "
		    "cannot carry");
	st = sbx_xcalloc(1, sizeof(*st));
	st->wd = -1;
	hooks.ctx = st;
	name = container_name();
	st->workdir = sbx_xstrdup(x->fs->workdir);
	if (p->docker_keep) {
		/* The run's own file in the container's private /tmp. */
		pgid_file = sbx_xasprintf("/tmp/.sbxrun-run-%s", strrchr(name, '-') + 1);
		st->keep_name = sbx_xstrdup(p->docker_keep);
		sbx_docker_kill_argv(NULL, p->docker_keep,
		    x->caller_uid == 0 ? DK_NOBODY : x->caller_uid,
		    x->caller_uid == 0 ? DK_NOBODY : x->caller_gid, pgid_file, &st->kill);
	} else {
		sbx_docker_rm_argv(NULL, name, &st->rm);
		sbx_docker_inspect_argv(NULL, name, &st->inspect);
	}
	st->wd = fcntl(sbx_fsview_workdir_fd(x->fs), F_DUPFD_CLOEXEC, 3);
	if (st->wd < 0) {
		sbx_err_sys(err, "docker: cannot open the workdir %s", x->fs->workdir);
		goto fail;
	}
	/* Init keeps it for the orphaned hook (launch.h): its moves and
	 * removals go through it, and init closes everything else of ours. */
	hooks.orphaned_fds[0] = st->wd;
	hooks.norphaned_fds = 1;
	if (make_targets(st->wd, &j->view, &st->made, err) < 0)
		goto fail;
	if (build_argv(p, x, name, pgid_file, b, &argv, &env, &create, &spec, err) < 0)
		goto fail;
	if (p->docker_keep &&
	    keep_ready(p->docker_keep, create.v, x->fs->workdir,
		p->docker_image ? p->docker_image : SBX_DOCKER_DEFAULT_IMAGE, spec, &st->oom_before,
		err) < 0)
		goto fail;
	st->keep_made = p->docker_keep != NULL;
	sbx_strv_copy(&st->scrub, &b->scrub);
	if (x->caller_uid == 0) {
		struct sbx_strv skip = { 0 };
		int rc;

		sbx_strv_copy(&skip, &x->fs->hidden);
		/* An empty cover has no source. */
		for (size_t i = 0; i < b->n; i++)
			if (b->v[i].ro && b->v[i].source &&
			    sbx_path_is_under(b->v[i].source, x->fs->workdir))
				sbx_strv_push(&skip, b->v[i].source);
		/* Through the keeper, as under landlock: a killed sbxrun
		 * (during the lend, or after init ended while the container
		 * was being removed) still has the workdir handed back. A temp
		 * workdir that is not kept goes whole at the end instead. The
		 * engine's seccomp profile lets the container set POSIX ACLs,
		 * and the container is in the host's user namespace: a named
		 * entry may name any local user, so the hand-back takes them
		 * off (acls): from every entry when the container is a kept
		 * one, whose leftover processes may set one while the lend
		 * is made, before the time it takes as its end. */
		st->keeper = x->keeper;
		rc = st->keeper
		    ? sbx_keeper_lend(st->keeper, sbx_fsview_workdir_fd(x->fs), x->fs->workdir,
			  NULL, x->caller_uid, x->caller_gid, DK_NOBODY, DK_NOBODY, &skip,
			  x->fs->workdir_temp && !p->keep,
			  p->docker_keep ? SBX_KEEPER_ACLS_ALL : SBX_KEEPER_ACLS_CHANGED, NULL,
			  NULL, err)
		    : sbx_err_set(err, EINVAL,
			  "docker: a root caller's workdir is lent through the keeper, "
			  "and there is none");
		sbx_strv_free(&skip);
		if (rc < 0)
			goto fail;
		st->leased = true;
	}
	/* As late as can be: each bind source name still leads to its pin
	 * (the daemon resolves the names itself, as root). */
	if (check_binds(x, b, err) < 0)
		goto fail;
	/* The repositories and modes the run leaves in the workdir and in
	 * each read-write mount's source, as under the other Linux backends
	 * (linux-gitguard.h). */
	git_guard = sbx_gitguard_add_mounts(
	    sbx_gitguard_new(sbx_fsview_workdir_fd(x->fs), x->fs->workdir), &j->view, x->fs);
	sbx_gitguard_orphan_names(git_guard, &st->orphan);
	/* The engine's default seccomp profile lets the container chmod a
	 * file set-id, and a caller other than root owns what it leaves:
	 * the bits go after the run (a root caller's hand-back clears them
	 * on every entry it gives back). See docker.md, "Set-id bits". */
	if (x->caller_uid != 0) {
		sbx_gitguard_clear_setid(git_guard);
		/* And the container, in the host's user namespace, can put
		 * ACL entries naming any local user on the caller's files. */
		sbx_gitguard_reduce_acls(git_guard);
	}
	/* The client runs as the caller would run it: the caller's
	 * environment (DOCKER_HOST, DOCKER_CONFIG...) with the values that
	 * argv names alone, no limits of the sandbox's; only what argv names
	 * with --env reaches the container. */
	client_env(&env, &client_envp);
	client.argv = argv.v;
	client.envp = client_envp.v;
	client.nrlimits = 0;
	client.cwd = "/";
	if (sbx_launch_plain(&client, &hooks, c, err) < 0)
		goto fail;
	sbx_strv_free(&argv);
	sbx_strv_free(&create);
	sbx_strv_free(&env);
	sbx_strv_free(&client_envp);
	warn_env_on_argv(p, r);
	for (size_t i = 0; i < j->warnings.n; i++)
		sbx_strv_push(&r->warnings, j->warnings.v[i]);
	c->priv = st;
	c->cleanup = dk_cleanup;
	sbx_gitguard_attach(&git_guard, c);
	set_report(p, r);
	return 0;
fail:
	sbx_strv_free(&argv);
	sbx_strv_free(&create);
	sbx_strv_free(&env);
	sbx_strv_free(&client_envp);
	st->report = NULL;
	undo(st, false, false);
	state_free(st);
	return -1;
}

const struct sbx_backend sbx_backend_docker = {
	.name = "docker",
	.id = SBX_BACKEND_DOCKER,
	.probe = docker_probe,
	.enforces = docker_enforces,
	.describe = docker_describe,
	.spawn = docker_spawn,
};
