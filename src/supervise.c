#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>

#include "launch.h"
#include "proc.h"
#include "supervise.h"

/* How long a stopped tree gets between SIGTERM and SIGKILL. */
#define SBX_GRACE_MS 2000

static uint64_t grace_ms = SBX_GRACE_MS;

void
sbx_supervise_set_grace(uint64_t ms)
{
	grace_ms = ms;
}

int
sbx_supervise_setup(struct sbx_err *err)
{
	sigset_t set;
	int sfd;

	sbx_signals_supervised(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return sbx_err_sys(err, "signalfd");
	/* Orphans of the tree come back to us, so they can be killed too. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		close(sfd);
		return sbx_err_sys(err, "PR_SET_CHILD_SUBREAPER");
	}
	return sfd;
}

/* How long init gets to kill and reap the tree itself before it is
 * killed too (its accounting of the tree dies with it). */
#define SBX_KILL_MS 1000

/* Asks init to kill the whole tree and reap it (SIGUSR1): the tree's CPU
 * time and memory then reach us in init's own usage. */
static void
end_tree(struct sbx_child *c, uint64_t *hard)
{
	kill(c->pid, SIGUSR1);
	if (*hard == 0)
		*hard = sbx_now_ms() + SBX_KILL_MS;
}

static void
kill_tree(struct sbx_child *c, int sig)
{
	/* In a pid namespace init's death ends everything; otherwise the
	 * tree is every descendant of ours (we are a child subreaper) but
	 * the keeper. */
	if (c->pidns || sig != SIGKILL) {
		kill(c->pid, sig);
		return;
	}
	sbx_proc_signal_descendants(getpid(), c->keeper, SIGKILL);
}

/* Reaps whatever is left of a tree without a pid namespace: orphans of a
 * dead init come to us, as the subreaper. Every such orphan is a SIGCHLD
 * child (the kernel sets that on a reparent), init is one too, and the
 * keeper is not: the waits below never see it, and end with ECHILD when
 * only the keeper is left. */
static void
reap_rest(const struct sbx_child *c, struct sbx_report *r)
{
	struct rusage ru;
	pid_t pid;
	int st;

	for (;;) {
		pid = wait4(-1, &st, WNOHANG, &ru);
		if (pid == 0) {
			/* Only scan /proc when something is still alive. */
			sbx_proc_signal_descendants(getpid(), c->keeper, SIGKILL);
			pid = wait4(-1, &st, 0, &ru);
		}
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		sbx_report_add_usage(r, &ru);
	}
}

/* Init's end message (struct sbx_init_end), read whole from the status
 * pipe without waiting: 1 when it was there, 0 when the pipe holds less
 * (init died before writing it: end of file), -1 when nothing is there
 * yet. */
static int
read_end(int fd, struct sbx_init_end *end)
{
	ssize_t n;

	do
		n = read(fd, end, sizeof(*end));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(*end))
		return 1;
	return n < 0 && errno == EAGAIN ? -1 : 0;
}

int
sbx_supervise(struct sbx_child *c, int sfd, uint64_t start_ms, uint64_t timeout_ms,
    struct sbx_report *r, struct sbx_err *err)
{
	uint64_t deadline = timeout_ms ? start_ms + timeout_ms : 0, grace = 0, hard = 0;
	/* Init writes its end message (launch.h) only once it has reaped
	 * every other process of the tree (waitpid() said ECHILD; init is
	 * the tree's subreaper, or its pid namespace's init): the tree is
	 * gone then. The rest of init's own exit (its memory and, under
	 * namespaces, the teardown of the jail's namespaces: ~0.1 ms, most
	 * of it a mount table freed after an RCU grace period) runs beside
	 * sbxrun's end, and init is reaped last (doc/design/startup.md,
	 * section 24). */
	bool early = c->end_early && c->status_fd >= 0;
	struct pollfd pfd[3] = {
		{ .fd = c->pidfd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
		{ .fd = early ? c->status_fd : -1, .events = POLLIN },
	};
	struct sbx_init_end end;
	struct rusage ru;
	int st = 0;

	if (early) {
		int fl = fcntl(c->status_fd, F_GETFL);

		early = fl >= 0 && fcntl(c->status_fd, F_SETFL, fl | O_NONBLOCK) == 0;
		pfd[2].fd = early ? c->status_fd : -1;
	}

	for (;;) {
		uint64_t now = sbx_now_ms(), at[3];
		int wait_ms;

		if (deadline && now >= deadline && !r->timed_out) {
			r->timed_out = true;
			end_tree(c, &hard);
		}
		if (grace && now >= grace) {
			grace = 0;
			end_tree(c, &hard);
		}
		if (hard && now >= hard) {
			hard = 0;
			kill_tree(c, SIGKILL);
		}
		at[0] = r->timed_out ? 0 : deadline;
		at[1] = grace;
		at[2] = hard;
		wait_ms = sbx_poll_timeout(now, at, SBX_ARRAY_LEN(at));
		if (poll(pfd, 3, wait_ms) < 0 && errno != EINTR)
			return sbx_err_sys(err, "poll");
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					continue;
				if (grace) {
					/* A second request: no more grace. */
					grace = 0;
					end_tree(c, &hard);
					continue;
				}
				sbx_strv_push_take(&r->warnings,
				    sbx_xasprintf(
					"stopped by %s", sbx_signal_name((int)si.ssi_signo)));
				c->stopped_by = (int)si.ssi_signo;
				kill_tree(c, SIGTERM);
				grace = sbx_now_ms() + grace_ms;
			}
		}
		/* The message first: init may be gone already too. */
		if (pfd[2].fd >= 0 && (pfd[2].revents || (pfd[0].revents & POLLIN))) {
			int got = read_end(c->status_fd, &end);

			if (got > 0) {
				r->wall_ms = sbx_now_ms() - start_ms;
				sbx_report_add_usage(r, &end.ru);
				sbx_report_set_wait_status(r, end.status);
				c->reap_late = c->pid;
				return 0;
			}
			/* Init died without it: its exit decides, as before. */
			if (got == 0)
				pfd[2].fd = -1;
		}
		if (pfd[0].revents & POLLIN)
			break;
	}
	while (wait4(c->pid, &st, __WALL, &ru) < 0) {
		if (errno != EINTR)
			return sbx_err_sys(err, "wait for the jail");
	}
	r->wall_ms = sbx_now_ms() - start_ms;
	sbx_report_add_usage(r, &ru);

	sbx_report_set_wait_status(r, sbx_payload_status(c, st));
	if (!c->pidns)
		reap_rest(c, r);
	return 0;
}

void
sbx_child_abort(struct sbx_child *c)
{
	struct rusage ru;
	int st;

	kill_tree(c, SIGKILL);
	while (wait4(c->pid, &st, __WALL, &ru) < 0 && errno == EINTR)
		;
	if (!c->pidns)
		sbx_proc_signal_descendants(getpid(), c->keeper, SIGKILL);
}
