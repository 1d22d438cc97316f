/* The parts of the launcher that are the same on every OS: the pipes
 * between sbxrun and a jail's init, starting that init in a session of its
 * own, how a child reports a failure before exec, and how sbxrun reads it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "supervise.h"
#ifdef __linux__
#include <linux/sched.h>
#include <sched.h>
#include <sys/syscall.h>

#include "cgroup.h"
#endif

#ifdef __linux__
/* Written by sbx_cpu_hold() only, in sbxrun's main thread before it
 * starts the jail; children read their copy (or, started in init's
 * memory, init's). */
static cpu_set_t held_mask;
static bool held;
#endif

void
sbx_cpu_hold(void)
{
#ifdef __linux__
	cpu_set_t one;
	int cpu;

	held = false;
	if (sched_getaffinity(0, sizeof(held_mask), &held_mask) < 0 || CPU_COUNT(&held_mask) < 2)
		return;
	cpu = sched_getcpu();
	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET((size_t)cpu, &held_mask))
		return;
	CPU_ZERO(&one);
	CPU_SET((size_t)cpu, &one);
	held = sched_setaffinity(0, sizeof(one), &one) == 0;
#endif
}

void
sbx_cpu_release(void)
{
#ifdef __linux__
	/* The raw call: no wrapper state is touched. A mask the cgroup's
	 * cpuset has narrowed since is narrowed by the kernel too. */
	if (held)
		(void)syscall(SYS_sched_setaffinity, 0, sizeof(held_mask), &held_mask);
#endif
}

#ifdef __linux__
bool
sbx_cpu_others(cpu_set_t *others)
{
	int cpu = sched_getcpu();

	if (held)
		*others = held_mask;
	else if (sched_getaffinity(0, sizeof(*others), others) < 0)
		return false;
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_CLR((size_t)cpu, others);
	return cpu >= 0 && CPU_COUNT(others) > 0;
}
#endif

void
sbx_signals_supervised(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

void
sbx_signals_reset_mask(const uint64_t *nondefault)
{
	sigset_t none;

	/* exec resets a caught signal, but an ignored one stays ignored. */
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP ||
		    (nondefault != NULL && (sig > 64 || !(*nondefault >> (sig - 1) & 1))))
			continue;
#ifdef __linux__
		/* The C library keeps the first real-time signals for itself
		 * (glibc 32 and 33, musl 32-34) and will not set them, but a
		 * caller may hand them on ignored: the system call does. A
		 * zeroed kernel sigaction is SIG_DFL with no flags whatever
		 * the architecture's layout. */
		if (sig >= 32 && sig < SIGRTMIN) {
			unsigned long dfl[8] = { 0 };

			(void)syscall(SYS_rt_sigaction, sig, dfl, NULL, (size_t)(_NSIG / 8));
			continue;
		}
#endif
		signal(sig, SIG_DFL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void
sbx_signals_reset(void)
{
	sbx_signals_reset_mask(NULL);
}

int
sbx_pipe_cloexec(int fds[2])
{
#ifdef HAVE_PIPE2
	return pipe2(fds, O_CLOEXEC);
#else
	if (pipe(fds) < 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

/* A connected pair of stream sockets, both close-on-exec. */
static int
socketpair_cloexec(int fds[2])
{
#ifdef SOCK_CLOEXEC
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
#else
	/* macOS has no SOCK_CLOEXEC; as in sbx_pipe_cloexec without pipe2. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

pid_t
sbx_fork_piped(int fds[2], struct sbx_err *err)
{
	pid_t pid;

	if (sbx_pipe_cloexec(fds) < 0)
		return sbx_err_sys(err, "pipe");
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return sbx_err_sys(err, "fork");
	}
	return pid;
}

int
sbx_launch_pipes_open(struct sbx_launch_pipes *lp, struct sbx_err *err)
{
	lp->err[0] = lp->err[1] = lp->status[0] = lp->status[1] = -1;
	lp->life[0] = lp->life[1] = -1;
	lp->ack[0] = lp->ack[1] = -1;
	/* ack is a socket: the payload may send its listener over it. */
	if (sbx_pipe_cloexec(lp->err) < 0 || sbx_pipe_cloexec(lp->status) < 0 ||
	    sbx_pipe_cloexec(lp->life) < 0 || socketpair_cloexec(lp->ack) < 0) {
		sbx_err_sys(err, "pipe");
		sbx_launch_pipes_close(lp);
		return -1;
	}
	return 0;
}

void
sbx_launch_pipes_child(struct sbx_launch_pipes *lp, struct sbx_init_args *a)
{
	close(lp->err[0]);
	close(lp->status[0]);
	close(lp->life[1]);
	close(lp->ack[1]);
	a->err_fd = lp->err[1];
	a->status_fd = lp->status[1];
	a->life_fd = lp->life[0];
	a->ack_fd = lp->ack[0];
}

void
sbx_launch_pipes_parent(struct sbx_launch_pipes *lp, struct sbx_child *c)
{
	close(lp->err[1]);
	close(lp->status[1]);
	close(lp->life[0]);
	close(lp->ack[0]);
	lp->ack[0] = -1;
	c->err_fd = lp->err[0];
	c->status_fd = lp->status[0];
	c->life_fd = lp->life[1];
	/* lp->ack[1] stays for the caller (sbx_launch_plain), which closes it. */
}

void
sbx_launch_pipes_close(struct sbx_launch_pipes *lp)
{
	int *fds[] = { lp->err, lp->status, lp->life, lp->ack };

	for (size_t i = 0; i < SBX_ARRAY_LEN(fds); i++) {
		for (int k = 0; k < 2; k++) {
			if (fds[i][k] >= 0)
				close(fds[i][k]);
			fds[i][k] = -1;
		}
	}
}

pid_t
sbx_fork_session_init(
    struct sbx_launch_pipes *lp, struct sbx_init_args *a, struct sbx_child *c, struct sbx_err *err)
{
	sigset_t set, old;
	pid_t parent = getpid(), pid;

	if (sbx_launch_pipes_open(lp, err) < 0)
		return -1;
	/* Blocked across the fork (a no-op where sbxrun keeps them blocked
	 * anyway): init must not run a handler of sbxrun's before it has
	 * reset them. */
	sbx_signals_supervised(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
#ifdef __linux__
	/* Into the run's cgroup v2 leaf, where there is one: born there, so
	 * that nothing init forks ever runs outside it (cgroup.h). */
	if (a->exec && a->exec->cgroup) {
		struct clone_args args = { .exit_signal = SIGCHLD };

		pid = sbx_cgroup_clone(&args, a->exec->cgroup_fd);
	} else
#endif
		pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		sbx_launch_pipes_close(lp);
		return sbx_err_sys(err,
		    a->exec && a->exec->cgroup ? "cannot start init in its cgroup v2 leaf"
					       : "fork");
	}
	if (pid == 0) {
		struct sbx_err e = { 0 };

		sbx_launch_pipes_child(lp, a);
		/* No parent-death signal: init must outlive sbxrun long enough
		 * to kill the tree, which it does on EOF of the life pipe, made
		 * before the fork so that EOF cannot be missed. A parent gone
		 * already is seen here. */
		if (getppid() != parent)
			_exit(125);
		if (setsid() < 0) {
			sbx_err_sys(&e, "setsid");
			sbx_child_fail(a->err_fd, SBX_FAIL_SETUP, &e);
		}
		sbx_init_main(a);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	sbx_launch_pipes_parent(lp, c);
	c->pid = pid;
	c->pidns = false;
	return pid;
}

void
sbx_child_close(struct sbx_child *c, struct sbx_report *r)
{
	int *fds[] = { &c->pidfd, &c->status_fd, &c->err_fd, &c->life_fd, &c->notify_fd,
		&c->diag_fd, &c->tun_fd };

	for (size_t i = 0; i < SBX_ARRAY_LEN(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (c->cleanup)
		c->cleanup(c, r);
	c->cleanup = NULL;
}

void
sbx_stdio_to_null(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int fd = 0; fd <= 2; fd++) {
		if (null >= 0)
			dup2(null, fd);
		else
			close(fd);
	}
	if (null > 2)
		close(null);
}

uint64_t
sbx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
sbx_report_add_usage(struct sbx_report *r, const struct rusage *ru)
{
	uint64_t rss_kb = (uint64_t)ru->ru_maxrss;

#ifdef __APPLE__
	rss_kb /= 1024; /* macOS counts ru_maxrss in bytes, not kilobytes */
#endif
	r->cpu_user_ms +=
	    (uint64_t)ru->ru_utime.tv_sec * 1000 + (uint64_t)ru->ru_utime.tv_usec / 1000;
	r->cpu_sys_ms +=
	    (uint64_t)ru->ru_stime.tv_sec * 1000 + (uint64_t)ru->ru_stime.tv_usec / 1000;
	if (rss_kb > r->max_rss_kb)
		r->max_rss_kb = rss_kb;
}

static void
add_time(struct timeval *to, const struct timeval *t)
{
	to->tv_sec += t->tv_sec;
	to->tv_usec += t->tv_usec;
	if (to->tv_usec >= 1000000) {
		to->tv_sec++;
		to->tv_usec -= 1000000;
	}
}

void
sbx_tree_usage(struct rusage *ru)
{
	struct rusage kids;

	memset(ru, 0, sizeof(*ru));
	memset(&kids, 0, sizeof(kids));
	getrusage(RUSAGE_SELF, ru);
	getrusage(RUSAGE_CHILDREN, &kids);
	add_time(&ru->ru_utime, &kids.ru_utime);
	add_time(&ru->ru_stime, &kids.ru_stime);
	if (kids.ru_maxrss > ru->ru_maxrss)
		ru->ru_maxrss = kids.ru_maxrss;
}

void
sbx_reap_late(pid_t pid)
{
	int st;

	if (pid <= 0)
		return;
#ifdef __WALL
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
#else
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
#endif
}

int
sbx_payload_status(const struct sbx_child *c, int init_st)
{
	struct sbx_init_end end;
	int fl = fcntl(c->status_fd, F_GETFL);

	/* Init is gone: whatever it wrote is there already. */
	if (fl >= 0)
		fcntl(c->status_fd, F_SETFL, fl | O_NONBLOCK);
	if (read(c->status_fd, &end, sizeof(end)) != (ssize_t)sizeof(end))
		return init_st;
	return end.status;
}

void
sbx_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		c += w;
		n -= (size_t)w;
	}
}

noreturn void
sbx_child_fail(int fd, int kind, const struct sbx_err *err)
{
	struct sbx_child_msg m = { .kind = kind, .errnum = err->errnum };

	snprintf(m.msg, sizeof(m.msg), "%s", err->msg);
	sbx_write_all(fd, &m, sizeof(m));
	_exit(kind == SBX_FAIL_EXEC ? (err->errnum == ENOENT ? 127 : 126) : 125);
}

int
sbx_launch_wait_exec(int err_fd, int *status, struct sbx_err *err)
{
	struct sbx_child_msg m;
	ssize_t n;

	do
		n = read(err_fd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return 0;
	if ((size_t)n != sizeof(m))
		return sbx_err_set(err, EIO, "the jail failed to start (short message)");
	m.msg[sizeof(m.msg) - 1] = '\0';
	if (m.kind == SBX_FAIL_EXEC) {
		*status = m.errnum == ENOENT ? 127 : 126;
		sbx_err_set(err, m.errnum, "%s", m.msg);
		return 1;
	}
	return sbx_err_set(err, m.errnum, "%s", m.msg);
}
