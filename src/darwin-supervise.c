/* The macOS system layer under every backend: the launcher (init and
 * payload, launch.h) and the supervisor (supervise.h), written with POSIX
 * calls only.
 *
 * macOS has no pid namespace, no child subreaper and no signalfd, so:
 *
 *   the tree     is the process group of init. Init is a session leader;
 *                everything it starts stays in its group unless it leaves
 *                (setsid, setpgid, a shell's job control). The group is
 *                what a stop, a timeout or the end of the payload kills.
 *                What left it lives on (still inside its sandbox, if any).
 *   signals      SIGCHLD, SIGTERM, SIGINT and SIGHUP are caught by a
 *                handler that writes their number to a non-blocking
 *                self-pipe; poll() on its read end replaces signalfd.
 *   orphans      go to launchd, not to us: nobody but the group kill
 *                reaches them, and their usage is not counted.
 *
 * The protocol with the parent is the Linux one: setup and exec failures
 * on the close-on-exec error pipe, the payload's wait status on the
 * status pipe, and init's death when the life pipe reaches EOF. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "launch.h"
#include "rlimits.h"
#include "supervise.h"

/* How long a stopped tree gets between SIGTERM and SIGKILL. */
#define SBX_GRACE_MS 2000

static uint64_t grace_ms = SBX_GRACE_MS;

void
sbx_supervise_set_grace(uint64_t ms)
{
	grace_ms = ms;
}

/* How many group kills the sweep after a run sends at most. */
#define SBX_SWEEP_TRIES 3

/* The self-pipe of this process: its signal handler writes here. */
static int sig_pipe[2] = { -1, -1 };
/* Set in init: signals init sent to its own group are not news. */
static volatile sig_atomic_t sig_skip_self;

static void
sig_handler(int sig, siginfo_t *si, SBX_UNUSED void *uc)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	if (!(sig_skip_self && si != NULL && si->si_pid == getpid()))
		(void)write(sig_pipe[1], &c, 1);
	errno = saved;
}

static void
set_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl >= 0)
		fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

static void
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Makes this process's self-pipe, routes the supervised signals to it and
 * unblocks them; returns the read end. */
static int
sig_pipe_setup(bool skip_self, struct sbx_err *err)
{
	struct sigaction sa;
	sigset_t set;
	const int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP };

	if (sbx_pipe_cloexec(sig_pipe) < 0)
		return sbx_err_sys(err, "pipe");
	set_nonblock(sig_pipe[0]);
	set_nonblock(sig_pipe[1]);
	sig_skip_self = skip_self;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sig_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < SBX_ARRAY_LEN(sigs); i++) {
		if (sigaction(sigs[i], &sa, NULL) < 0) {
			sbx_err_sys(err, "sigaction");
			close(sig_pipe[0]);
			close(sig_pipe[1]);
			sig_pipe[0] = sig_pipe[1] = -1;
			return -1;
		}
	}
	sbx_signals_supervised(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return sig_pipe[0];
}

/* Reads the next signal number from the self-pipe; 0 when it is empty. */
static int
sig_next(int fd)
{
	unsigned char c;
	ssize_t n;

	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? c : 0;
}

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Closes every descriptor from lowfd up but those in keep. The open ones
 * are listed from /dev/fd (fdesc on macOS); without it, every number below
 * the descriptor limit is tried. */
static void
close_fds_from(int lowfd, const int *keep, size_t nkeep)
{
	int *open_fds = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir("/dev/fd");

	if (d != NULL) {
		struct dirent *de;

		while ((de = readdir(d)) != NULL) {
			char *end;
			long fd = strtol(de->d_name, &end, 10);

			if (*end != '\0' || end == de->d_name || fd < lowfd || fd == dirfd(d) ||
			    fd > INT_MAX)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				open_fds = sbx_xreallocarray(open_fds, cap, sizeof(*open_fds));
			}
			open_fds[n++] = (int)fd;
		}
		closedir(d);
	} else {
		long max = sysconf(_SC_OPEN_MAX);

		if (max < 0 || max > 65536)
			max = 65536;
		cap = max > lowfd ? (size_t)(max - lowfd) : 0;
		open_fds = sbx_xcalloc(cap, sizeof(*open_fds));
		for (long fd = lowfd; fd < max; fd++)
			open_fds[n++] = (int)fd;
	}
	qsort(open_fds, n, sizeof(*open_fds), cmp_int);
	for (size_t i = 0; i < n; i++) {
		bool kept = false;

		for (size_t k = 0; k < nkeep; k++)
			kept = kept || keep[k] == open_fds[i];
		if (!kept)
			close(open_fds[i]);
	}
	free(open_fds);
}

/* execve() of a file that is not a binary: what execvp does, sh runs it. */
static void
exec_script(const char *file, char *const argv[], char *const envp[])
{
	size_t n = 0;
	char **sh_argv;

	while (argv[n])
		n++;
	sh_argv = sbx_xcalloc(n + 2, sizeof(*sh_argv));
	sh_argv[0] = (char *)"sh";
	sh_argv[1] = (char *)file;
	for (size_t i = 1; i < n; i++)
		sh_argv[i + 1] = argv[i];
	execve("/bin/sh", sh_argv, envp);
	free(sh_argv);
	errno = ENOEXEC;
}

/* execvpe(): macOS has execvP(), but it searches the PATH of our own
 * environment, not that of envp. Returns with errno set. */
static void
exec_search(char *const argv[], char *const envp[])
{
	const char *name = argv[0], *path, *dir;
	char buf[PATH_MAX];
	int saved = ENOENT;

	if (strchr(name, '/') != NULL) {
		execve(name, argv, envp);
		if (errno == ENOEXEC)
			exec_script(name, argv, envp);
		return;
	}
	path = sbx_env_get(envp, "PATH");
	if (path == NULL)
		path = "/usr/bin:/bin";
	for (dir = path;; dir++) {
		size_t len = strcspn(dir, ":");
		int n =
		    snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, dir, len ? "/" : "./", name);

		if (n > 0 && (size_t)n < sizeof(buf)) {
			execve(buf, argv, envp);
			if (errno == ENOEXEC)
				exec_script(buf, argv, envp);
			if (errno == EACCES)
				saved = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR && saved != EACCES)
				saved = errno;
		}
		dir += len;
		if (*dir == '\0')
			break;
	}
	errno = saved;
}

/* Runs in the payload process: the last steps before exec. The error pipe
 * is moved to descriptor 3 before the hooks run, so that a hook may report
 * an exec failure itself with sbx_child_fail(3, SBX_FAIL_EXEC, ...). */
static noreturn void
payload_main(const struct sbx_init_args *a)
{
	const struct sbx_exec *x = a->exec;
	struct sbx_err err = { 0 };

	sbx_signals_reset();
	umask(x->umask);
	if (x->stdin_fd >= 0 && dup2(x->stdin_fd, 0) < 0) {
		sbx_err_sys(&err, "cannot set up standard input");
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
	}
	if (chdir(x->cwd) < 0) {
		sbx_err_sys(&err, "cannot enter the workdir %s", x->cwd);
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
	}
	if (a->err_fd != 3) {
		if (dup2(a->err_fd, 3) < 0) {
			sbx_err_sys(&err, "cannot move the error pipe");
			sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
		}
	}
	set_cloexec(3);
	close_fds_from(4, NULL, 0);
	if (a->hooks && a->hooks->setup && a->hooks->setup(a->hooks->ctx, &err) < 0)
		sbx_child_fail(3, SBX_FAIL_SETUP, &err);
	/* Limits last: a low descriptor or CPU limit must not break the setup
	 * above, only the payload. */
	for (size_t i = 0; i < x->nrlimits; i++) {
		struct rlimit rl = { (rlim_t)x->rlimits[i].value, (rlim_t)x->rlimits[i].value };

		if (setrlimit(x->rlimits[i].resource, &rl) < 0) {
			sbx_err_sys(&err,
			    "cannot set %s to %" PRIu64 " (above what this caller may set)",
			    sbx_rlimit_what(x->rlimits[i].resource), (uint64_t)x->rlimits[i].value);
			sbx_child_fail(3, SBX_FAIL_SETUP, &err);
		}
	}
	exec_search(x->argv, x->envp);
	sbx_err_sys(&err, "%s", x->argv[0]);
	sbx_child_fail(3, SBX_FAIL_EXEC, &err);
}

noreturn void
sbx_init_main(const struct sbx_init_args *a)
{
	struct sbx_err err = { 0 };
	struct pollfd pfd[2];
	pid_t payload, pgid = getpgrp();
	int sfd, status = 0;

	/* The supervised signals arrive blocked (sbx_launch_plain); they are
	 * unblocked once init's own handler and pipe replace sbxrun's. */
	sfd = sig_pipe_setup(true, &err);
	if (sfd < 0)
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);

	payload = fork();
	if (payload < 0) {
		sbx_err_sys(&err, "init: cannot fork the payload");
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
	}
	if (payload == 0)
		payload_main(a);

	/* Init keeps nothing of the caller's: no terminal, no pipes, none of
	 * sbxrun's descriptors. */
	{
		int keep[] = { sig_pipe[0], sig_pipe[1], a->status_fd, a->life_fd };

		close_fds_from(3, keep, SBX_ARRAY_LEN(keep));
	}
	/* After the sweep, which would close a /dev/null opened before it. */
	sbx_stdio_to_null();

	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = a->life_fd, .events = POLLIN };
	for (;;) {
		pid_t pid = waitpid(payload, &status, WNOHANG);
		int sig;

		if (pid == payload || (pid < 0 && errno == ECHILD))
			break;
		if (poll(pfd, a->life_fd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			/* sbxrun is gone: nothing may run unsupervised. */
			kill(-pgid, SIGKILL);
			_exit(125);
		}
		while ((sig = sig_next(sfd)) != 0)
			if (sig != SIGCHLD)
				kill(-pgid, sig);
	}
	/* The status first: the group kill below takes init with it. */
	{
		struct sbx_init_end end = { .status = status };

		sbx_tree_usage(&end.ru);
		sbx_write_all(a->status_fd, &end, sizeof(end));
	}
	close(a->status_fd);
	kill(-pgid, SIGKILL);
	_exit(0);
}

int
sbx_launch_plain(const struct sbx_exec *x, const struct sbx_payload_hooks *hooks,
    struct sbx_child *c, struct sbx_err *err)
{
	struct sbx_launch_pipes lp;
	struct sbx_init_args a = { .exec = x, .hooks = hooks, .pid1 = false };

	if (sbx_fork_session_init(&lp, &a, c, err) < 0)
		return -1;
	close(lp.ack[1]);
	c->pidfd = -1;
	return 0;
}

int
sbx_supervise_setup(struct sbx_err *err)
{
	return sig_pipe_setup(false, err);
}

/* Signals the tree: init's process group, or init alone while it has not
 * made its session yet. */
static void
kill_tree(const struct sbx_child *c, int sig)
{
	if (kill(-c->pid, sig) < 0)
		kill(c->pid, sig);
}

/* Kills what is left of the group, a few times: a process that was
 * forking when the group was killed can leave a child behind. Members that
 * launchd has not reaped yet still answer, so this does not wait for
 * silence. */
static void
sweep_group(const struct sbx_child *c)
{
	for (int i = 0; i < SBX_SWEEP_TRIES && kill(-c->pid, SIGKILL) == 0; i++) {
		struct timespec ts = { 0, (long)(i + 1) * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
}

int
sbx_supervise(struct sbx_child *c, int sfd, uint64_t start_ms, uint64_t timeout_ms,
    struct sbx_report *r, struct sbx_err *err)
{
	uint64_t deadline = timeout_ms ? start_ms + timeout_ms : 0, grace = 0;
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };
	struct rusage ru;
	int st = 0;

	for (;;) {
		uint64_t now, at[2];
		int wait_ms, sig;
		pid_t pid = wait4(c->pid, &st, WNOHANG, &ru);

		if (pid == c->pid)
			break;
		if (pid < 0 && errno != EINTR)
			return sbx_err_sys(err, "wait for the jail");
		now = sbx_now_ms();
		if (deadline && now >= deadline && !r->timed_out) {
			r->timed_out = true;
			kill_tree(c, SIGKILL);
		}
		if (grace && now >= grace) {
			grace = 0;
			kill_tree(c, SIGKILL);
		}
		at[0] = r->timed_out ? 0 : deadline;
		at[1] = grace;
		wait_ms = sbx_poll_timeout(now, at, SBX_ARRAY_LEN(at));
		if (poll(&pfd, 1, wait_ms) < 0 && errno != EINTR)
			return sbx_err_sys(err, "poll");
		while ((sig = sig_next(sfd)) != 0) {
			if (sig == SIGCHLD)
				continue;
			if (grace) {
				/* A second request: no more grace. */
				grace = 0;
				kill_tree(c, SIGKILL);
				continue;
			}
			sbx_strv_push_take(
			    &r->warnings, sbx_xasprintf("stopped by %s", sbx_signal_name(sig)));
			/* Init passes it on to the whole group. */
			kill(c->pid, SIGTERM);
			grace = sbx_now_ms() + grace_ms;
		}
	}
	r->wall_ms = sbx_now_ms() - start_ms;
	sbx_report_add_usage(r, &ru);

	sbx_report_set_wait_status(r, sbx_payload_status(c, st));
	sweep_group(c);
	return 0;
}

void
sbx_child_abort(struct sbx_child *c)
{
	int st;

	kill_tree(c, SIGKILL);
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	sweep_group(c);
}
