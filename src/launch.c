#include "config.h"

#include <unistd.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "exec.h"
#include "keeper.h"
#include "launch.h"
#include "phase.h"
#include "proc.h"
#include "rlimits.h"
#include "supervise.h"

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void
sbx_close_fds_except(const int *keep, size_t n)
{
	int sorted[16];
	unsigned int from = 3;

	if (n > SBX_ARRAY_LEN(sorted))
		n = SBX_ARRAY_LEN(sorted);
	memcpy(sorted, keep, n * sizeof(*keep));
	qsort(sorted, n, sizeof(*sorted), cmp_int);
	for (size_t i = 0; i < n; i++) {
		if (sorted[i] < (int)from)
			continue;
		if ((unsigned int)sorted[i] > from)
			close_range(from, (unsigned int)sorted[i] - 1, 0);
		from = (unsigned int)sorted[i] + 1;
	}
	close_range(from, ~0U, 0);
}

const bool sbx_launch_subreaper = true;

int
sbx_send_fd(int sock, int fd)
{
	char byte = 'l';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u = { 0 };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	ssize_t n;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

int
sbx_recv_fd(int sock)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u = { 0 };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	c = CMSG_FIRSTHDR(&mh);
	if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int))) {
		errno = EIO;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* execve(2) of file, searched in the PATH of envp (not of our own
 * environment) as execvpe(3) would search it: a name with a slash as it
 * is; else each directory in turn (an empty one is the current
 * directory), going on after ENOENT, ENOTDIR, ESTALE, ENODEV and
 * ETIMEDOUT, and reporting EACCES if any directory gave it; a file the
 * kernel cannot execute (ENOEXEC) goes to /bin/sh as a script. No
 * allocation (the payload may run in init's memory). Returns only on
 * failure, with errno. */
static void
exec_search(const char *file, char *const argv[], char *const envp[])
{
	const char *path = sbx_env_get(envp, "PATH");
	size_t flen = strlen(file);
	bool eacces = false;
	char buf[PATH_MAX];

	if (strchr(file, '/') != NULL) {
		execve(file, argv, envp);
		if (errno == ENOEXEC)
			goto script;
		return;
	}
	if (flen > NAME_MAX) {
		errno = ENAMETOOLONG;
		return;
	}
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		size_t dlen = (size_t)(end - p);

		if (dlen + 1 + flen < sizeof(buf)) {
			memcpy(buf, p, dlen);
			if (dlen > 0)
				buf[dlen++] = '/';
			memcpy(buf + dlen, file, flen + 1);
			execve(buf, argv, envp);
			if (errno == ENOEXEC) {
				file = buf;
				goto script;
			}
			if (errno == EACCES)
				eacces = true;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE &&
			    errno != ENODEV && errno != ETIMEDOUT)
				return;
		}
		if (*end == '\0')
			break;
		p = end;
	}
	errno = eacces ? EACCES : ENOENT;
	return;
script : {
	/* As execvpe: /bin/sh FILE ARGS... (a bounded copy, no allocation). */
	const char *sh[1024];
	size_t n = 2;

	sh[0] = "/bin/sh";
	sh[1] = file;
	for (size_t i = 1; argv[i] != NULL; i++) {
		if (n + 1 >= SBX_ARRAY_LEN(sh)) {
			errno = E2BIG;
			return;
		}
		sh[n++] = argv[i];
	}
	sh[n] = NULL;
	execve(sh[0], (char *const *)sh, envp);
	errno = ENOEXEC;
}
}

/* AddressSanitizer knows one stack per thread: a child on a stack of its
 * own trips its no-return check (a report per run), so a sanitized build
 * forks the payload. */
#ifdef SBX_SANITIZED
#define SPAWN_IN_PLACE 0
#else
#define SPAWN_IN_PLACE 1
#endif

/* A payload started in init's memory that makes a listener for sbxrun to
 * take with pidfd_getfd() shares init's descriptor table too: the
 * listener it makes is then in init's table as well, where sbxrun takes
 * it while the payload goes on to its exec, and the round trip of an
 * acknowledgement leaves the payload's path (doc/design/startup.md,
 * section 26). The exec gives the payload a table of its own before it
 * gives init its memory back (begin_new_exec() unshares the table before
 * exec_mmap()), and closes there what is close-on-exec. Init is outside
 * the sandbox's Landlock domain, which may not ptrace it, so neither
 * pidfd_getfd() nor /proc/PID/fd of the sandbox's reaches init's copy. */
static bool
listener_left_in_init(const struct sbx_init_args *a)
{
	return SPAWN_IN_PLACE && a->hooks && a->hooks->vfork_safe && a->hooks->listener &&
	    !a->hooks->send_listener;
}

/* In init's memory, which such a payload shares: what init keeps of the
 * table (set before the payload starts; all close-on-exec; the pipes,
 * then the orphaned hook's descriptors) and the
 * listener's number there (set by the payload). Init keeps the listener
 * until sbxrun has taken it: sbxrun closes its end of the
 * acknowledgement socket once it has, and init does not exit before
 * that end of file (a command that fails at once ends before sbxrun
 * takes it). */
#define INIT_KEEPS (5 + SBX_ORPHANED_FDS)
static int init_keeps[INIT_KEEPS] = { -1, -1, -1, -1, -1, -1, -1, -1, -1 };
static int held_listener = -1;

/* Where setup finds the descriptor prepare kept (launch.h). */
static int payload_kept = SBX_PAYLOAD_KEPT_FD;

int
sbx_payload_kept_fd(void)
{
	return payload_kept;
}

/* Runs in the payload process: the last steps before exec. */
static noreturn void
payload_main(const struct sbx_init_args *a)
{
	const struct sbx_exec *x = a->exec;
	struct sbx_err err = { 0 };
	/* Init's table until the exec: nothing is moved in it, and failures
	 * go to the error pipe's own number. */
	bool shared = listener_left_in_init(a);
	int kept = -1, errfd = shared ? a->err_fd : 3;
	uint64_t tasks = 0;

	/* sbxrun sends it once init is forked, from the keeper's count,
	 * made long before: no wait here in practice. No count (sbxrun or
	 * its keeper died first) fails the run. */
	if (a->tasks_late) {
		ssize_t n;

		do
			n = read(a->tasks_fd, &tasks, sizeof(tasks));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(tasks)) {
			sbx_err_set(&err, EIO, "the count of the uid's tasks did not come");
			sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
		}
		close(a->tasks_fd);
	}
	sbx_signals_reset_mask(a->sigs_noted ? &a->sigs_nondefault : NULL);
	umask(x->umask);
	/* A caller's SCHED_FIFO or SCHED_RR, handed on, would let a busy
	 * loop of the sandbox's starve sbxrun's own threads at the same
	 * priority, and the timeout and every kill with them. */
	if (x->sched_normal) {
		struct sched_param sp = { 0 };

		if (sched_setscheduler(0, SCHED_OTHER, &sp) < 0) {
			sbx_err_sys(&err, "cannot leave the caller's realtime scheduling");
			sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
		}
	}
	if (x->stdin_fd >= 0 && dup2(x->stdin_fd, 0) < 0) {
		sbx_err_sys(&err, "cannot set up standard input");
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
	}
	if (chdir(x->cwd) < 0) {
		sbx_err_sys(&err, "cannot enter the workdir %s", x->cwd);
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
	}
	if (a->hooks && a->hooks->prepare) {
		if (a->hooks->prepare(a->hooks->ctx, &kept, &err) < 0)
			sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
		/* Above the numbers the pipes move to below. */
		if (kept >= 0 && (kept = fcntl(kept, F_DUPFD_CLOEXEC, 10)) < 0) {
			sbx_err_sys(&err, "cannot keep a descriptor for the setup");
			sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
		}
	}
	/* Only 0-2 and the error pipe survive; the pipe closes on exec. */
	if (shared) {
		/* Kept where it is: setup finds it there. */
	} else if (a->err_fd != 3) {
		if (dup3(a->err_fd, 3, O_CLOEXEC) < 0) {
			sbx_err_sys(&err, "cannot move the error pipe");
			sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
		}
	}
	if (!shared && a->ack_fd >= 0 && a->ack_fd != 4 && dup3(a->ack_fd, 4, O_CLOEXEC) < 0) {
		sbx_err_sys(&err, "cannot move the acknowledgement pipe");
		sbx_child_fail(3, SBX_FAIL_SETUP, &err);
	}
	if (!shared && kept >= 0) {
		if (dup3(kept, SBX_PAYLOAD_KEPT_FD, O_CLOEXEC) < 0) {
			sbx_err_sys(&err, "cannot keep a descriptor for the setup");
			sbx_child_fail(3, SBX_FAIL_SETUP, &err);
		}
		kept = SBX_PAYLOAD_KEPT_FD;
	}
	if (!shared) {
		int keep[] = { 3, a->ack_fd >= 0 ? 4 : 3, kept >= 0 ? SBX_PAYLOAD_KEPT_FD : 3 };

		sbx_close_fds_except(keep, SBX_ARRAY_LEN(keep));
	}
	payload_kept = kept;
	sbx_phase("payload: forked");
	if (a->hooks && a->hooks->setup && a->hooks->setup(a->hooks->ctx, &err) < 0)
		sbx_child_fail(errfd, SBX_FAIL_SETUP, &err);
	sbx_phase("payload: setup hook (landlock)");
	if (a->hooks && a->hooks->listener) {
		struct sbx_child_msg ready = { .kind = SBX_MSG_READY, .fd = -1, .fd2 = -1 };
		char ack;

		if (a->hooks->listener(a->hooks->ctx, &ready.fd, &err) < 0)
			sbx_child_fail(errfd, SBX_FAIL_SETUP, &err);
		if (shared) {
			/* Left in init's table: of that table only what init
			 * keeps and the error pipe stay open till the exec. */
			int keep[2 + INIT_KEEPS] = { errfd, ready.fd };

			memcpy(keep + 2, init_keeps, sizeof(init_keeps));
			held_listener = ready.fd;
			sbx_close_fds_except(keep, SBX_ARRAY_LEN(keep));
			ready.kind = SBX_MSG_READY_HELD;
			ready.pid = getppid();
			sbx_write_all(errfd, &ready, sizeof(ready));
		} else if (a->hooks->send_listener && ready.fd >= 0 &&
		    sbx_send_fd(4, ready.fd) < 0) {
			sbx_err_sys(&err, "cannot send the seccomp listener to sbxrun");
			sbx_child_fail(3, SBX_FAIL_SETUP, &err);
		}
		if (!shared) {
			ready.pid = getpid();
			sbx_write_all(3, &ready, sizeof(ready));
		}
		/* Taken with pidfd_getfd, our copy may only go once sbxrun
		 * holds its own. Sent, the message holds the listener until
		 * sbxrun receives it: no wait, and the payload goes on to its
		 * exec while sbxrun takes it (doc/design/startup.md, section
		 * 24). A call trapped meanwhile waits for the supervisor, as
		 * one made before its start always did. */
		if (!shared) {
			if (!(a->hooks->send_listener && ready.fd >= 0) && read(4, &ack, 1) != 1)
				_exit(125);
			close(4);
			if (ready.fd >= 0)
				close(ready.fd);
		}
	}
	/* A process group of its own: init was in the payload's, so
	 * setpriority(PRIO_PGRP, 0) and ioprio_set(IOPRIO_WHO_PGRP, 0)
	 * reached it, and a starved init ended the run seconds late. Going
	 * back to init's group is refused (tasksup.c, linux-seccomp.c). Not
	 * a session of its own: with scheduler autogroups that made and
	 * freed one per run, 0.1 ms (doc/design/lifecycle.md). */
	if (setpgid(0, 0) < 0) {
		sbx_err_sys(&err, "setpgid");
		sbx_child_fail(errfd, SBX_FAIL_SETUP, &err);
	}
	/* Limits last: a low descriptor or memory limit must not break the
	 * setup above, only the payload. */
	for (size_t i = 0; i < x->nrlimits; i++) {
		uint64_t v = x->rlimits[i].value;
		struct rlimit rl;

		if (x->rlimits[i].plus_tasks)
			v = v + tasks < v ? UINT64_MAX : v + tasks;
		rl.rlim_cur = rl.rlim_max = (rlim_t)v;

		/* A default held at the plan, whose share with the uid's
		 * tasks counted since passes the caller's hard limit: that
		 * limit, stricter than the default. */
		if (x->rlimits[i].builtin && sbx_rlimit_hard(x->rlimits[i].resource) < v)
			rl.rlim_cur = rl.rlim_max = (rlim_t)sbx_rlimit_hard(x->rlimits[i].resource);
		if (setrlimit((rlimit_resource)x->rlimits[i].resource, &rl) < 0) {
			sbx_err_sys(&err,
			    "cannot set %s to %" PRIu64 " (above what this caller may set)",
			    sbx_rlimit_what(x->rlimits[i].resource), v);
			sbx_child_fail(errfd, SBX_FAIL_SETUP, &err);
		}
	}
	sbx_phase("payload: before exec");
	exec_search(x->argv[0], x->argv, x->envp);
	sbx_err_sys(&err, "%s", x->argv[0]);
	sbx_child_fail(errfd, SBX_FAIL_EXEC, &err);
}

static int
payload_entry(void *arg)
{
	payload_main(arg);
}

/* The payload, started in init's memory on a stack of its own: init is
 * suspended until the payload's exec (or exit) gives the memory back
 * (CLONE_VFORK), so the two never run on it at once, and nothing the
 * sandbox runs can reach it (exec gives the payload a new address space
 * first). Unlike fork, no page table is copied and no copy-on-write fault
 * follows in init. The payload keeps its own descriptor table, working
 * directory, signal dispositions, credentials, seccomp filters and
 * Landlock domain: CLONE_FILES, CLONE_FS, CLONE_SIGHAND and CLONE_THREAD
 * are not given. Every signal is blocked across the clone, so that no
 * handler of init's runs on the payload's stack; the payload resets the
 * dispositions before it unblocks them (sbx_signals_reset). The hooks
 * promise not to allocate or write outside their stack (vfork_safe).
 * Returns the payload's pid, or -1 with errno. */
static pid_t
spawn_in_place(const struct sbx_init_args *a)
{
	/* Enough for the setup's deepest chain (snprintf of an error); the
	 * lowest page is a guard. Only the pages touched are ever faulted. */
	const size_t size = 256 * 1024;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	sigset_t all, old;
	char *stack;
	pid_t pid;
	int saved;

	stack = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	if (mprotect(stack, page, PROT_NONE) < 0) {
		saved = errno;
		munmap(stack, size + page);
		errno = saved;
		return -1;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = clone(payload_entry, stack + page + size,
	    CLONE_VM | CLONE_VFORK | (listener_left_in_init(a) ? CLONE_FILES : 0) | SIGCHLD,
	    (void *)a);
	saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	munmap(stack, size + page);
	errno = saved;
	return pid;
}

/* Whether sbxrun closed its end of the acknowledgement socket fd (it
 * writes nothing there when the listener is held by init). */
static bool
listener_taken(int fd)
{
	char b[8];
	ssize_t n;

	do
		n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
	while (n > 0 || (n < 0 && errno == EINTR));
	return n == 0 || errno != EAGAIN;
}

/* Signals every process of the tree but init itself. */
static void
signal_tree(bool pid1, int sig)
{
	if (pid1)
		kill(-1, sig);
	else
		sbx_proc_signal_descendants(getpid(), 0, sig);
}

/* Kills and reaps every process of the tree that is left: orphans keep
 * arriving here (init is their reaper) until none is left, and waitpid()
 * says ECHILD. Notes the payload's wait status when it comes. */
static void
reap_tree(const struct sbx_init_args *a, pid_t payload, int *status, bool *payload_done)
{
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);

		if (pid == 0) {
			/* Someone is still alive: kill, then wait. */
			signal_tree(a->pid1, SIGKILL);
			pid = waitpid(-1, &st, 0);
		}
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return;
		if (pid == payload && !*payload_done) {
			*status = st;
			*payload_done = true;
		}
	}
}

noreturn void
sbx_init_main(const struct sbx_init_args *a)
{
	struct pollfd pfd[3];
	sigset_t set;
	pid_t payload;
	int sfd, status = 0;
	bool payload_done = false, orphaned = false;
	int hold = sbx_keeper_hold_fd(a->exec->keeper);
	struct sbx_err err = { 0 };

	if (a->tasks_late)
		close(a->tasks_wfd);
	if (!a->pid1)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	sbx_signals_supervised(&set);
	sigaddset(&set, SIGUSR1); /* from sbxrun: kill the whole tree now */
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		sbx_err_sys(&err, "init: signalfd");
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
	}

	/* The payload is born with sbxrun's own CPU mask, and so is the
	 * command it execs: from here on sbxrun (its ack, the supervisor's
	 * start) and the payload (its setup, its exec) work at once, on
	 * either CPU (doc/design/startup.md, sections 9 and 23). */
	sbx_cpu_release();
	init_keeps[0] = sfd;
	init_keeps[1] = a->status_fd;
	init_keeps[2] = a->life_fd;
	init_keeps[3] = hold;
	init_keeps[4] = a->ack_fd;
	if (a->hooks && a->hooks->orphaned)
		for (size_t i = 0; i < a->hooks->norphaned_fds && i < SBX_ORPHANED_FDS; i++)
			init_keeps[5 + i] = a->hooks->orphaned_fds[i];
	if (SPAWN_IN_PLACE && a->hooks && a->hooks->vfork_safe)
		payload = spawn_in_place(a);
	else
		payload = fork();
	if (payload < 0) {
		sbx_err_sys(&err, "init: cannot fork the payload");
		sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &err);
	}
	if (payload == 0)
		payload_main(a);

	/* Init keeps nothing of the caller's: no terminal, no pipes, none of
	 * sbxrun's descriptors, but its copy of the keeper's hold pipe, whose
	 * end of file tells the keeper that the tree is gone (keeper.h), and
	 * what the backend's orphaned hook needs. */
	{
		int keep[6 + SBX_ORPHANED_FDS] = { sfd, a->status_fd, a->life_fd, hold,
			held_listener, held_listener >= 0 ? a->ack_fd : -1 };

		memcpy(keep + 6, init_keeps + 5, SBX_ORPHANED_FDS * sizeof(int));
		sbx_close_fds_except(keep, SBX_ARRAY_LEN(keep));
	}
	sbx_stdio_to_null();

	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = a->life_fd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = held_listener >= 0 ? a->ack_fd : -1, .events = POLLIN };
	for (;;) {
		struct signalfd_siginfo si;
		pid_t pid;
		int st;

		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			if (pid == payload) {
				status = st;
				payload_done = true;
			}
		}
		if (pid < 0 && errno == ECHILD)
			break;
		if (payload_done || orphaned) {
			/* Whatever the payload left behind dies with it. */
			reap_tree(a, payload, &status, &payload_done);
			break;
		}
		if (poll(pfd, SBX_ARRAY_LEN(pfd), -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			/* sbxrun is gone: nothing may run unsupervised. */
			orphaned = true;
			pfd[1].fd = -1;
		}
		if (pfd[2].revents && listener_taken(pfd[2].fd)) {
			close(held_listener);
			held_listener = -1;
			pfd[2].fd = -1;
		}
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGUSR1)
				signal_tree(a->pid1, SIGKILL);
			else if (si.ssi_signo != SIGCHLD)
				signal_tree(a->pid1, (int)si.ssi_signo);
		}
	}
	/* Not before sbxrun has the listener (or is gone). */
	while (held_listener >= 0 && !orphaned) {
		if (poll(pfd + 1, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
			orphaned = true;
		if (pfd[2].revents && listener_taken(pfd[2].fd)) {
			close(held_listener);
			held_listener = -1;
		}
	}
	if (!orphaned && a->life_fd >= 0) {
		/* sbxrun keeps its end open until init is gone: a hangup now
		 * means it died after the payload did. */
		struct pollfd life = { .fd = a->life_fd, .events = POLLIN };

		orphaned = poll(&life, 1, 0) > 0;
	}
	/* The hook undoes what the sandbox could still change: nothing of
	 * the tree may be left then, however the loop above ended. */
	if (orphaned && a->hooks && a->hooks->orphaned) {
		reap_tree(a, payload, &status, &payload_done);
		a->hooks->orphaned(a->hooks->ctx);
	}
	/* Every process of the tree is reaped: the keeper may undo from
	 * here on, beside init's exit, which would hold the pipe open until
	 * its memory is gone (~0.1 ms). A pid namespace's init keeps it to
	 * its death, which ends the namespace (keeper.h). */
	if (!a->pid1 && hold >= 0) {
		sigset_t sigpipe;

		/* A word first: the keeper, asleep, wakes now, beside sbxrun,
		 * and not at sbxrun's first undo request. A keeper gone makes
		 * it EPIPE, not a SIGPIPE that would end init before its
		 * message. */
		sigemptyset(&sigpipe);
		sigaddset(&sigpipe, SIGPIPE);
		sigprocmask(SIG_BLOCK, &sigpipe, NULL);
		if (write(hold, "", 1) < 0) {
			/* nothing to wake */
		}
		close(hold);
	}
	{
		struct sbx_init_end end = { .status = status };

		sbx_tree_usage(&end.ru);
		sbx_write_all(a->status_fd, &end, sizeof(end));
	}
	/* sbxrun, woken by that message, most often shares this CPU and
	 * would wait for the exit below (~0.07 ms: this copy of its memory
	 * unmapped) to run: it goes first, and the exit runs in its waits
	 * (doc/design/startup.md, section 32). */
	sched_yield();
	_exit(0);
}

int
sbx_launch_plain(const struct sbx_exec *x, const struct sbx_payload_hooks *hooks,
    struct sbx_child *c, struct sbx_err *err)
{
	struct sbx_launch_pipes lp;
	struct sbx_init_args a = { .exec = x, .hooks = hooks, .pid1 = false };
	_cleanup_close_ int tasks_w = -1;
	int tasks[2];
	pid_t pid;

	/* A socket pair, not a pipe: sent with MSG_NOSIGNAL, the count to an
	 * init that died before the payload read it is an error, not the
	 * SIGPIPE that would end sbxrun. */
	if (x->uid_tasks_late) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, tasks) < 0)
			return sbx_err_sys(err, "socketpair");
		a.tasks_late = true;
		a.tasks_fd = tasks[0];
		a.tasks_wfd = tasks_w = tasks[1];
	}
	pid = sbx_fork_session_init(&lp, &a, c, err);
	if (a.tasks_late)
		close(a.tasks_fd);
	if (pid < 0)
		return -1;
	/* Before the payload's first message, which comes after its read of
	 * the count. A count that cannot be had is not sent: the payload then
	 * fails the run. An init gone already is found below. */
	if (tasks_w >= 0) {
		uint64_t n;

		if (sbx_keeper_count_take(x->keeper, &n) == 0 &&
		    send(tasks_w, &n, sizeof(n), MSG_NOSIGNAL) < 0) {
			/* the reading below says what became of init */
		}
		close(steal_fd(&tasks_w));
	}
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (c->pidfd < 0) {
		sbx_err_sys(err, "pidfd_open");
		goto fail;
	}
	if (hooks && hooks->listener) {
		struct sbx_child_msg m;
		int holder;
		ssize_t n;

		do
			n = read(c->err_fd, &m, sizeof(m));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(m)) {
			sbx_err_set(err, EIO, "the jail's init died while starting");
			goto fail;
		}
		m.msg[sizeof(m.msg) - 1] = '\0';
		if (m.kind != SBX_MSG_READY && m.kind != SBX_MSG_READY_HELD) {
			sbx_err_set(err, m.errnum, "%s", m.msg);
			goto fail;
		}
		if (m.kind == SBX_MSG_READY_HELD) {
			/* In init's table (listener_left_in_init): taken from
			 * init, whose pidfd is at hand; the payload waits for
			 * nothing. */
			if (m.fd >= 0)
				c->notify_fd = (int)syscall(SYS_pidfd_getfd, c->pidfd, m.fd, 0);
			if (m.fd >= 0 && c->notify_fd < 0) {
				/* Init gone (killed) since it wrote: said as any
				 * other death of init while starting. */
				if (errno == ESRCH)
					sbx_err_set(
					    err, EIO, "the jail's init died while starting");
				else
					sbx_err_sys(err, "cannot take the jail's seccomp listener");
				goto fail;
			}
			if (c->notify_fd >= 0)
				fcntl(c->notify_fd, F_SETFD, FD_CLOEXEC);
		} else if (m.fd >= 0 && hooks->send_listener) {
			c->notify_fd = sbx_recv_fd(lp.ack[1]);
			if (c->notify_fd < 0) {
				sbx_err_sys(err, "cannot receive the jail's seccomp listener");
				goto fail;
			}
		} else if (m.fd >= 0) {
			/* The payload waits for our ack, so its pid is its own. */
			holder = (int)syscall(SYS_pidfd_open, m.pid, 0);
			c->notify_fd =
			    holder < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, holder, m.fd, 0);
			if (holder >= 0)
				close(holder);
			if (c->notify_fd < 0) {
				sbx_err_sys(err, "cannot take the jail's seccomp listener");
				goto fail;
			}
			fcntl(c->notify_fd, F_SETFD, FD_CLOEXEC);
		}
		/* A payload that sent its listener waits for nothing (and has
		 * closed its end). */
		if (m.kind == SBX_MSG_READY && !(m.fd >= 0 && hooks->send_listener) &&
		    write(lp.ack[1], "a", 1) != 1) {
			sbx_err_sys(err, "the jail's payload died while starting");
			goto fail;
		}
	}
	close(lp.ack[1]);
	return 0;
fail:
	close(lp.ack[1]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	sbx_child_close(c, NULL);
	return -1;
}
