/* sbxrun: argv -> policy -> backend -> supervise -> exit. The only place
 * that prints errors, writes the diagnostics line and chooses the exit
 * status. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "backend-choice.h"
#include "backend.h"
#include "cli.h"
#include "diag.h"
#include "exec.h"
#include "fsutil.h"
#include "hostfacts.h"
#include "jail.h"
#ifdef __linux__
#include "keeper.h"
#endif
#include "launch.h"
#include "network.h"
#include "paths.h"
#include "phase.h"
#include "policy.h"
#include "probe.h"
#include "profile.h"
#include "resolve.h"
#include "secrets.h"
#include "rlimits.h"
#include "cgroup.h"
#include "selftest.h"
#include "supcfg.h"
#include "linux-stdio.h"
#ifdef __linux__
#include "linux-gitguard.h"
#endif
#include "supervise.h"
#include "trace.h"

extern char **environ;

struct run {
	struct sbx_cli cli;
	struct sbx_policy policy;
	bool have_policy;
	struct sbx_report report;
	struct sbx_fsview fs;
	struct sbx_caps caps;
	struct sbx_caller caller;
	struct sbx_strv homes;
	/* The user database could not say who the caller is (caller_init()). */
	bool caller_failed;
	struct sbx_err caller_err;
	struct sbx_exec exec;
	struct sbx_network net;
	/* The jail's init, still to reap at the very end (supervise.h). */
	pid_t reap_late;
	/* The host's filesystem as the sandbox's ids see it (hostfacts.h),
	 * which every jail plan is built on. */
	struct sbx_host_ids host_ids;
	struct sbx_fsfacts facts;
	struct sbx_jail jail; /* the plan of the backend tried (jail.h) */
	struct sbx_keeper *keeper; /* makes, records and undoes the run's files */
	char *temp_workdir;
	char *jail_workdir; /* the workdir made inside the jail, or NULL */
	char *private_tmp; /* the TMPDIR of a needs_tmpdir backend */
	char *script_path;
	/* What PROG is given: the file relative to the working directory,
	 * which is the pinned workdir; its name may lead elsewhere by the
	 * time PROG opens it where the jail sees the host's names. */
	char *script_arg;
	struct sbx_script script; /* --interp, without a keeper: what was made */
	bool have_script;
	int diag_fd; /* --diag PATH, opened before anything runs */
	mode_t umask; /* the caller's (sbxrun's own is 022 from the start) */
	bool spawned; /* a payload was started: it may have written to stderr */
	/* The status flags of the caller's descriptors 0-2 at the start (-1:
	 * closed), put back once the tree is gone (restore_std_flags()). */
	int std_flags[3];
	/* The terminal modes of those that are terminals, put back with them:
	 * the payload shares the terminal, and one it left stopped (IXON with
	 * a STOP character the terminal's own answer holds), or with TOSTOP
	 * set, would hold sbxrun's last line for ever. */
	struct termios tty[3];
	bool tty_saved[3];
	bool finished; /* the whole sandboxed tree is gone */
	bool said_after; /* sbxrun wrote a line on stderr after that */
	int sfd;
	struct sbx_relay relay; /* pipes between the sandbox and the caller's files */
	struct sbx_trace *trace; /* --trace, made just before the spawn */
	bool no_diag; /* --selftest wrote its own summary line */
	/* The cgroup v2 leaf (doc/design/limits.md): where it can go, and
	 * once the keeper made it, its directory (O_PATH) and controllers. */
	struct sbx_cg_place cg_place;
	unsigned cg_want;
	int cg_fd;
	unsigned cg_ctl;
	/* The uid's tasks for a pids rlimit, counted by the keeper (or by
	 * sbxrun) while sbxrun resolves paths, for backend counted_for
	 * (sbx_limits_counts_uid()). */
	bool counted;
	bool count_asked; /* of the keeper: uid_tasks is its answer, not read yet */
	enum sbx_backend_id counted_for;
	uint64_t uid_tasks;
	bool fs_begun; /* sbx_resolve_begin() filled fs meanwhile */
	/* The mount table, read once for the cgroup probe and the
	 * resolution (sbx_mountinfo_read()); NULL when not read. */
	char *mountinfo;
	int mounts_fd; /* /proc/self/mountinfo, opened before that read, or -1 */
};

static void say(struct run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line on stderr, whatever the message quotes: a control character
 * from a flag or a profile (a newline, an escape) is shown as '?'. One
 * write, so a writer sharing the file (the copier, another thread) cannot
 * land in the middle of it. */
static void
say(struct run *run, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int n;

	if (run->cli.quiet)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		msg = NULL;
		return;
	}
	for (char *c = msg; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
		/* A C1 control in UTF-8 (U+0080-U+009F: U+009B is a CSI to
		 * some terminals), as a name the sandbox chose may hold. */
		if ((unsigned char)c[0] == 0xc2 && (unsigned char)c[1] >= 0x80 &&
		    (unsigned char)c[1] <= 0x9f)
			c[0] = c[1] = '?';
	}
	{
		_cleanup_free_ char *line = sbx_xasprintf("sbxrun: %s\n", msg);

		sbx_write_shared(sbx_relay_stderr(&run->relay), line, strlen(line));
	}
	if (run->finished)
		run->said_after = true;
}

/* -v: one line per refusal, as it happens, from whichever thread refused
 * (the network side serialises the calls). The target is the sandbox's
 * text: written with every byte outside printable ASCII escaped, in one
 * write(2), so that no terminal control sequence and no other thread's
 * output lands inside the line. */
static void
say_refusal(void *ctx, const struct sbx_refusal *ref)
{
	char what[4 * SBX_DENIED_WHAT_MAX + 8], why[256], line[sizeof(what) + sizeof(why) + 64];
	int n;

	(void)ctx;
	sbx_denied_printable(what, sizeof(what), ref->what);
	sbx_denied_printable(why, sizeof(why), ref->why);
	n = snprintf(line, sizeof(line), "sbxrun: denied %s %s%s%s%s\n", ref->kind, what,
	    ref->why ? " (" : "", why, ref->why ? ")" : "");
	if (n > 0)
		(void)sbx_write_shared(
		    STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Whether the diagnostics line going to fd must be preceded by a newline
 * to start a line of its own: the payload's last output there may end in
 * "\r" (a progress bar) or in no newline at all. A regular file tells
 * where the line will go and what is just before it; anything else
 * (a terminal, a pipe) the payload shared cannot be asked, and then a
 * newline is written unless sbxrun itself wrote the last full line. */
static bool
diag_needs_newline(const struct run *run, int fd)
{
	struct stat st, out;
	int r;

	if (!run->spawned)
		return false;
	r = sbx_fd_at_line_start(fd);
	if (r >= 0)
		return r == 0;
	bool shared = false, ours_last = false;

	if (fstat(fd, &st) < 0)
		return true;
	for (int std = STDOUT_FILENO; std <= STDERR_FILENO; std++) {
		if (fd != std &&
		    (fstat(std, &out) < 0 || out.st_dev != st.st_dev || out.st_ino != st.st_ino))
			continue;
		/* Shared with the payload: only a line sbxrun wrote on stderr
		 * after the whole tree was gone is known to end the output
		 * (stdout too, when both are the same pipe). */
		shared = true;
		if (std == STDERR_FILENO)
			ours_last = run->said_after;
	}
	return shared && !ours_last;
}

/* A workdir the caller gave that is a git directory itself keeps its
 * config and hooks as .git's (resolve.h, workdir_gitdir). */
static void
mark_gitdir(struct run *run)
{
	run->fs.workdir_gitdir =
	    !run->fs.workdir_temp && sbx_host_is_git_dir(sbx_fsview_workdir_fd(&run->fs));
}

/* The workdir's identity, for the walk to a --diag file: its pin once
 * resolved, else the workdir the policy names (NULL: a temp workdir, new
 * to this run, or none known yet). */
static const struct stat *
diag_workdir(const struct run *run, struct stat *st)
{
	int wd = run->have_policy ? sbx_fsview_workdir_fd(&run->fs) : -1;

	if (wd >= 0 && fstat(wd, st) == 0)
		return st;
	if (run->have_policy && run->policy.workdir && stat(run->policy.workdir, st) == 0)
		return st;
	return NULL;
}

/* Made now. Its directory is walked as a mount source is (a symlink on the
 * way followed only when the caller or root owns it, never one in the
 * workdir: sbx_open_dir_walked()), the last component is never followed,
 * and a file there already must be the caller's or root's: another user
 * could change the line after the run (or hold a FIFO open and never
 * read). A FIFO is opened only if someone reads it (else ENXIO): the
 * open never waits. */
/* Room for the line in the file --diag PATH names, made sure of before
 * the run (a full disk or a small file-size limit refuses the run, never
 * loses the line after it): DIAG_ROOM bytes reserved without changing
 * the file's size, where the filesystem can. */
#define DIAG_ROOM (SBX_DIAG_LINE_MAX + 2)

static int
diag_room(int fd, const char *path, struct sbx_err *err)
{
	struct rlimit fsize;

	if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
	    fsize.rlim_cur < DIAG_ROOM)
		return sbx_err_set(err, EFBIG,
		    "--diag %s: the file-size limit (%llu bytes) leaves no room for the "
		    "diagnostics line",
		    path, (unsigned long long)fsize.rlim_cur);
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, DIAG_ROOM) < 0 &&
	    (errno == ENOSPC || errno == EDQUOT))
		return sbx_err_sys(err, "--diag %s: no room for the diagnostics line", path);
#else
	(void)fd;
#endif
	return 0;
}

static int
open_diag_path(const struct run *run, const char *path, struct sbx_err *err)
{
	_cleanup_free_ char *dir = NULL, *what = NULL;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct stat st, wst;
	int dfd, fd, fl;

	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return sbx_err_set(err, EISDIR, "--diag %s: not a file name", path);
	dir = slash == NULL ? sbx_xstrdup(".")
	    : slash == path ? sbx_xstrdup("/")
			    : sbx_xasprintf("%.*s", (int)(slash - path), path);
	what = sbx_xasprintf("--diag %s: its directory", path);
	dfd = sbx_open_dir_walked(what, dir, diag_workdir(run, &wst), err);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0)
		return sbx_err_sys(err, "--diag: cannot create %s", path);
	if (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return sbx_err_set(err, EPERM,
		    "--diag %s: owned by another user, who could change the line after the run",
		    path);
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		close(fd);
		return sbx_err_sys(err, "--diag: cannot empty %s", path);
	}
	if (S_ISREG(st.st_mode) && diag_room(fd, path, err) < 0) {
		close(fd);
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* --diag fd:N and --diag stderr: a descriptor that is not open, or open
 * for reading only, would lose the line after the run (SPEC section 4).
 * Not open, the line would go to whatever sbxrun opens there next. */
static int
diag_fd_unwritable(struct run *run, struct sbx_err *err)
{
	struct sbx_diag_dest *d = &run->cli.diag;
	int fd = d->kind == SBX_DIAG_FD ? d->fd : STDERR_FILENO;
	int fl;

	if (d->kind != SBX_DIAG_FD && d->kind != SBX_DIAG_STDERR)
		return 0;
	/* 0-2 closed at the start are /dev/null now (main()). */
	fl = fd >= 0 && fd <= 2 && run->std_flags[fd] < 0 ? -1 : fcntl(fd, F_GETFL);
#ifdef O_PATH
	if (fl >= 0 && (fl & O_PATH))
		fl = O_RDONLY;
#endif
	if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY)
		return 0;
	d->kind = SBX_DIAG_STDERR;
	if (fd != STDERR_FILENO)
		return sbx_err_set(err, EBADF, "--diag fd:%d: descriptor %d is %s", fd, fd,
		    fl < 0 ? "not open" : "not open for writing");
	return sbx_err_set(err, EBADF,
	    "--diag stderr: standard error is %s; the diagnostics line would be lost",
	    fl < 0 ? "not open" : "not open for writing");
}

/* Whether --diag PATH, opened before the run, still names that file, now
 * emptied of what anything else wrote there (sbxrun(1), --diag). A file
 * in the workdir is the sandbox's to remove and make anew, or, lent to
 * uid 65534 with the workdir, to write in: its line must not stand, or
 * follow ours, as the run's. */
static bool
diag_path_ours(const char *path, int fd)
{
	struct stat ours, named;

	if (fstat(fd, &ours) < 0 || lstat(path, &named) < 0 || ours.st_dev != named.st_dev ||
	    ours.st_ino != named.st_ino)
		return false;
	if (S_ISREG(ours.st_mode) && (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0))
		return false;
	return true;
}

/* A regular file the line went to ends with it: the sandbox may have
 * had the same file open by its name in the workdir (3>diag.json,
 * 2>err.log) and written a line of its own past where sbxrun's offset
 * was, which a reader of the last line would take for sbxrun's. Not a
 * file opened for appending: there the line went to the end already,
 * and another writer's later lines are its own. */
static void
end_at_line(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);
	off_t at;

	if (fl < 0 || (fl & O_APPEND) || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	at = lseek(fd, 0, SEEK_CUR);
	if (at >= 0 && at < st.st_size)
		(void)ftruncate(fd, at);
}

static void
emit_diag(const struct run *run)
{
	const struct sbx_diag_dest *d = &run->cli.diag;
	_cleanup_free_ char *line =
	    sbx_diag_render(&run->report, run->have_policy ? &run->policy : NULL);
	_cleanup_free_ char *nl = sbx_xasprintf("%s\n", line);
	size_t len = strlen(nl);
	struct sbx_err err = { 0 };
	int fd = -1;

	switch (d->kind) {
	case SBX_DIAG_NONE: return;
	case SBX_DIAG_STDERR:
		fflush(stderr);
		fd = STDERR_FILENO;
		break;
	case SBX_DIAG_FD: fd = d->fd; break;
	case SBX_DIAG_PATH:
		fd = run->diag_fd >= 0 ? run->diag_fd : open_diag_path(run, d->path, &err);
		if (fd < 0) {
			_cleanup_free_ char *msg = sbx_xasprintf("sbxrun: %s\n", err.msg);

			sbx_write_shared(STDERR_FILENO, msg, strlen(msg));
			return;
		}
		if (fd == run->diag_fd && !diag_path_ours(d->path, fd)) {
			_cleanup_free_ char *msg = sbx_xasprintf(
			    "sbxrun: --diag: %s was replaced while the run lasted; the "
			    "diagnostics line follows on standard error\n",
			    d->path);

			sbx_write_shared(STDERR_FILENO, msg, strlen(msg));
			fd = STDERR_FILENO;
		}
		break;
	}
	if (diag_needs_newline(run, fd)) {
		free(nl);
		nl = sbx_xasprintf("\n%s\n", line);
		len = strlen(nl);
	}
	if (isatty(fd)) {
		/* The sandbox may have left the terminal inside a string
		 * (ESC P, ESC ], ...) that swallows what follows up to its
		 * terminator, the line among it, so a forged line of its
		 * own stayed the last one seen: ST (ESC \) ends such a
		 * string, and SGR 0 ends colours and hidden text. */
		char *t = sbx_xasprintf("\033\\\033[0m%s", nl);

		free(nl);
		nl = t;
		len = strlen(nl);
	}
	/* The sandbox may have shared fd (the caller's stderr): made it
	 * non-blocking and filled it, or shut its socket down. Neither
	 * drops the line nor ends sbxrun (sbx_write_shared()). */
	if (!sbx_write_shared(fd, nl, len) && d->kind != SBX_DIAG_STDERR) {
		static const char msg[] = "sbxrun: --diag: cannot write the diagnostics line\n";

		sbx_write_shared(STDERR_FILENO, msg, sizeof(msg) - 1);
	} else {
		end_at_line(fd);
	}
	if (d->kind == SBX_DIAG_PATH && fd != run->diag_fd && fd != STDERR_FILENO)
		close(fd);
}

/* The status flags of the caller's standard descriptors, as they were at
 * the start: a payload shares the open files behind those that are not
 * copied (a terminal, a pipe, a socket), and a flag it set there
 * (O_NONBLOCK, O_ASYNC, O_APPEND) would outlive the run in the caller's
 * shell and what it runs next. Called once the whole tree is gone, before
 * the diagnostics line (sbxrun(1), "Standard input, output and error"). */
static void
restore_std_flags(const struct run *run)
{
	sigset_t ttou, old;

	if (!run->spawned)
		return;
	for (int i = 0; i < 3; i++) {
		int now = run->std_flags[i] >= 0 ? fcntl(i, F_GETFL) : -1;

		if (now >= 0 && now != run->std_flags[i])
			(void)fcntl(i, F_SETFL, run->std_flags[i]);
	}
	/* A terminal's modes as they were, and its output started again: the
	 * payload cannot call TCXONC, but it can stop the output through the
	 * modes (IXON, and a STOP character the terminal's own answer to a
	 * query holds). The kernel starts a terminal's output when IXON goes
	 * off, so the modes go first without it, then as they were. SIGTTOU
	 * blocked: from a background job the calls go through instead of
	 * stopping sbxrun. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	for (int i = 0; i < 3; i++)
		if (run->tty_saved[i]) {
			struct termios off = run->tty[i];

			off.c_iflag &= ~(tcflag_t)IXON;
			(void)tcsetattr(i, TCSANOW, &off);
			(void)tcsetattr(i, TCSANOW, &run->tty[i]);
			(void)tcflow(i, TCOON);
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Ends a run that failed before anything ran: status 125, one message,
 * nothing left behind. */
static int
fail(struct run *run, const struct sbx_err *err)
{
	say(run, "%s", err->msg);
	run->report.status = 125;
	free(run->report.error);
	run->report.error = sbx_xstrdup(err->msg);
	return 125;
}

/* Who the caller is. A user database that cannot answer is not an error
 * yet: it is reported once the command line is known (run_main()). */
static void
caller_init(struct run *run)
{
	struct sbx_account acct;
	const char *env_home = getenv("HOME");

	run->caller.uid = getuid();
	run->caller.umask = run->umask;
#ifdef __linux__
	{
		int pol = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;

		run->caller.realtime =
		    pol == SCHED_FIFO || pol == SCHED_RR || pol == SCHED_DEADLINE;
		if (run->caller.realtime)
			sbx_strv_push(&run->report.warnings,
			    "sbxrun runs under a realtime scheduling policy: the sandbox runs "
			    "under "
			    "SCHED_OTHER, so that it cannot starve sbxrun and its timeout");
	}
#endif
	run->caps.caller_uid = run->caller.uid;
	run->caller.gid = getgid();
	run->caller_failed = sbx_account_lookup(run->caller.uid, &acct, &run->caller_err) < 0;
	run->caller.user =
	    sbx_xstrdup(acct.name ? acct.name : (getenv("USER") ? getenv("USER") : "nobody"));
	if (acct.home && acct.home[0] == '/')
		sbx_strv_push(&run->homes, acct.home);
	sbx_account_free(&acct);
	if (env_home && env_home[0] == '/' && !sbx_strv_contains(&run->homes, env_home))
		sbx_strv_push(&run->homes, env_home);
	/* "~" in profiles and flags means what it means in the caller's shell. */
	run->caller.home = sbx_xstrdup(env_home && env_home[0] == '/' ? env_home
		: run->homes.n                                        ? run->homes.v[0]
								      : "/");
}

/* The directories -p NAME searches, in order; returns the user's one,
 * which dirs points into and the caller frees. */
static char *
profile_dirs(const struct run *run, const char *dirs[4])
{
	char *user_dir = sbx_profile_user_dir(getenv("XDG_CONFIG_HOME"), run->caller.home);

	dirs[0] = user_dir;
	dirs[1] = SYSCONFDIR_PROFILES;
	dirs[2] = PROFILEDIR;
	dirs[3] = NULL;
	return user_dir;
}

/* --list-profiles: what -p NAME would find, in each directory. */
static void
list_profiles(const struct run *run)
{
	const char *dirs[4];
	_cleanup_free_ char *user_dir SBX_UNUSED = profile_dirs(run, dirs), *text = NULL;
	struct sbx_profile_list l;

	sbx_profile_list(dirs, &l);
	text = sbx_profile_list_render(&l, dirs);
	sbx_profile_list_free(&l);
	fputs(text, stdout);
}

static int
load_profiles(struct run *run, struct sbx_err *err)
{
	const char *dirs[4];
	_cleanup_free_ char *user_dir SBX_UNUSED = profile_dirs(run, dirs);

	for (size_t i = 0; i < run->cli.profiles.n; i++) {
		const char *arg = run->cli.profiles.v[i];
		_cleanup_free_ char *path = NULL;

		if (sbx_profile_arg_is_file(arg))
			path = sbx_xstrdup(arg);
		else if (sbx_profile_find(arg, dirs, &path, err) < 0)
			return -1;
		if (sbx_profile_load_file(&run->policy, path, err) < 0)
			return -1;
	}
	return 0;
}

#ifdef __linux__
struct meanwhile {
	struct run *run;
	const struct sbx_backend *b;
};

/* While the keeper makes the temp dirs, what needs none of them: the
 * first half of path resolution (the secret lists, ~0.2 ms). The count of
 * the uid's tasks that a pids rlimit needs (one call when the uid has
 * none, as 65534 for a root caller; else a walk of /proc that grows with
 * the machine's processes: sbx_limits_uid_tasks()), when no cgroup leaf
 * is planned to hold pids instead, is asked of the keeper first: it
 * counts after the mkdirs, beside the resolution, and build_exec() takes
 * the answer (doc/design/startup.md, section 22). The keeper exists and
 * sbxrun has no other child, so the count is the one build_exec() would
 * take; where the keeper cannot be asked, sbxrun counts here. */
static void
keeper_meanwhile(void *arg)
{
	struct meanwhile *m = arg;
	struct run *run = m->run;
	bool count;
	uid_t uid;

	if (m->b == NULL)
		return;
	count = run->cg_place.parent == NULL &&
	    sbx_limits_counts_uid(&run->policy, m->b, &run->caps, run->caller.uid, &uid);
	run->count_asked = count && sbx_keeper_count_ask(run->keeper, uid) == 0;
	sbx_resolve_begin(&run->policy, &run->homes, run->mountinfo, &run->fs);
	run->fs_begun = true;
	if (!count)
		return;
	if (!run->count_asked)
		run->uid_tasks = sbx_limits_uid_tasks(uid);
	run->counted_for = m->b->id;
	run->counted = true;
}
#endif

/* New directories PREFIX.XXXXXX in $TMPDIR (else /tmp), each of them
 * made by the keeper, which removes them even if sbxrun is killed
 * (keeper.h): all asked at once by ask_temp_dirs(), their answers read
 * by take_temp_dirs(). */
struct temp_ask {
	const char *tmp;
	const char *prefix[2];
	const char *what[2];
	char **out[2];
	size_t n;
};

static int
ask_temp_dirs(struct run *run, const struct temp_ask *t, struct sbx_err *err)
{
#ifdef __linux__
	return sbx_keeper_mkdtemps_ask(run->keeper, t->tmp, t->prefix, t->n, err);
#else
	(void)run;
	(void)t;
	(void)err;
	return 0;
#endif
}

/* asked: what ask_temp_dirs() returned (err is its error when < 0).
 * With b, the pids count for b is taken before the answers are read
 * (keeper_meanwhile()). */
static int
take_temp_dirs(struct run *run, const struct temp_ask *t, int asked, const struct sbx_backend *b,
    struct sbx_err *err)
{
	char *made[2];
	int r = asked < 0 ? -1 : 0;

#ifdef __linux__
	struct meanwhile mw = { .run = run, .b = b };
	struct sbx_err later = { 0 };

	keeper_meanwhile(&mw);
	if (sbx_keeper_mkdtemps_take(run->keeper, made, t->n, r < 0 ? &later : err) < 0)
		r = -1;
	for (size_t j = 0; j < t->n; j++) {
		*t->out[j] = made[j];
		if (made[j] == NULL && r < 0) {
			sbx_err_wrap(err, "cannot create %s in %s", t->what[j], t->tmp);
			break;
		}
	}
#else
	(void)run;
	(void)b;
	for (size_t j = 0; j < t->n && r == 0; j++) {
		made[j] = sbx_xasprintf("%s/%s.XXXXXX", t->tmp, t->prefix[j]);
		if (mkdtemp(made[j]) == NULL) {
			r = sbx_err_sys(err, "cannot create %s in %s", t->what[j], t->tmp);
			free(made[j]);
			made[j] = NULL;
		}
		*t->out[j] = made[j];
	}
#endif
	return r;
}

/* Starts the keeper once, before the first change to the caller's disk
 * and while sbxrun is single-threaded (keeper.h). A run that changes
 * nothing there (a workdir inside the jail) never starts one. */
static int
need_keeper(struct run *run, bool launch, struct sbx_err *err)
{
#ifdef __linux__
	if (run->keeper == NULL)
		run->keeper = launch ? sbx_keeper_launch(err) : sbx_keeper_start(err);
	if (run->keeper == NULL)
		return -1;
#else
	(void)run;
	(void)launch;
	(void)err;
#endif
	return 0;
}

/* Whether the workdir can be a directory the jail makes in its own
 * private /tmp instead of one on the caller's disk (doc/design/startup.md):
 * no -w, nothing to keep, no script to store in it, no mount to place in
 * it, and a backend with a mount namespace of its own. */
static bool
workdir_in_jail(const struct run *run, const struct sbx_backend *b)
{
	const struct sbx_policy *p = &run->policy;

	return b->id == SBX_BACKEND_NAMESPACES && p->workdir == NULL && !p->keep &&
	    run->cli.interp == NULL && p->nmounts == 0;
}

/* /tmp/sbxrun.XXXXXX: the name only tells runs apart in the diagnostics
 * (each jail has its own /tmp), so no exclusive creation is needed. */
static char *
jail_workdir_name(void)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	char name[] = "/tmp/sbxrun.XXXXXX";
	char *x = strchr(name, 'X');

	arc4random_buf(rnd, sizeof(rnd));
	for (size_t i = 0; i < sizeof(rnd); i++)
		x[i] = set[rnd[i] % (sizeof(set) - 1)];
	return sbx_xstrdup(name);
}

/* The temp workdir (when workdir) and the empty TMPDIR of a backend
 * without a private /tmp of its own (when tmp, and not made yet): asked
 * in one go when both are needed, removed after the run. */
static void
temp_workdir_asks(struct run *run, bool workdir, bool tmp, struct temp_ask *t)
{
	static const char *const prefix[] = { "sbxrun", "sbxrun-tmp" };
	static const char *const what[] = { "a workdir", "a private temporary directory" };
	char **out[] = { workdir ? &run->temp_workdir : NULL,
		tmp && run->private_tmp == NULL ? &run->private_tmp : NULL };
	const char *dir = getenv("TMPDIR");

	t->tmp = dir != NULL && dir[0] == '/' ? dir : "/tmp";
	t->n = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(out); i++)
		if (out[i]) {
			t->prefix[t->n] = prefix[i];
			t->what[t->n] = what[i];
			t->out[t->n++] = out[i];
		}
}

/* temp_workdir_asks(), made at once. With b, as take_temp_dirs(). */
static int
make_temp_workdir(
    struct run *run, bool workdir, bool tmp, const struct sbx_backend *b, struct sbx_err *err)
{
	struct temp_ask t;

	temp_workdir_asks(run, workdir, tmp, &t);
	if (t.n == 0)
		return 0;
	if (need_keeper(run, false, err) < 0)
		return -1;
	return take_temp_dirs(run, &t, ask_temp_dirs(run, &t, err), b, err);
}

/* --interp: the script from stdin becomes WORKDIR/.sbxrun/NAME, made
 * through descriptors that follow no symbolic link (see fsutil.h). The
 * file belongs to the caller: under landlock a root caller's lend hands
 * it to the sandbox's uid with the rest of the workdir. */
static int
store_script(struct run *run, struct sbx_err *err)
{
	_cleanup_free_ char *name = run->cli.script_name ? sbx_xstrdup(run->cli.script_name)
							 : sbx_exec_script_name(run->cli.interp);

	run->script_path = sbx_xasprintf("%s/" SBX_SCRIPT_DIR "/%s", run->fs.workdir, name);
	run->script_arg = sbx_xasprintf(SBX_SCRIPT_DIR "/%s", name);
#ifdef __linux__
	int fd;

	if (need_keeper(run, false, err) < 0 ||
	    sbx_keeper_script(run->keeper, sbx_fsview_workdir_fd(&run->fs), run->fs.workdir, name,
		geteuid(), &fd, err) < 0)
		return -1;
	return sbx_script_fill(fd, run->script_path, STDIN_FILENO, run->policy.timeout_ms, err);
#else
	run->have_script = true;
	return sbx_script_store(&run->script, sbx_fsview_workdir_fd(&run->fs), run->fs.workdir,
	    name, STDIN_FILENO, geteuid(), run->policy.timeout_ms, err);
#endif
}

static void
cleanup_files(struct run *run)
{
	struct sbx_err err = { 0 };

#ifdef __linux__
	struct sbx_strv warnings = { 0 };

	(void)err;
	/* An undo the backend asked without a wait (a thrown-away workdir):
	 * its warnings are the run's, in the report. */
	sbx_keeper_undone(run->keeper, &run->report.warnings);
	if (run->temp_workdir && run->policy.keep && run->report.status != 125) {
		sbx_keeper_forget(run->keeper, run->temp_workdir);
		say(run, "kept the workdir %s", run->temp_workdir);
	}
	/* The keeper removes the script and the directories it made; what it
	 * could not remove is said, and is in the report as well (a run with
	 * no diagnostics line to come, --help and the like, made nothing). */
	sbx_keeper_finish(run->keeper, &warnings);
	for (size_t i = 0; i < warnings.n; i++) {
		say(run, "%s", warnings.v[i]);
		sbx_strv_push(&run->report.warnings, warnings.v[i]);
	}
	sbx_strv_free(&warnings);
#else
	if (run->have_script)
		sbx_script_remove(&run->script);
	run->have_script = false;
	if (run->private_tmp && sbx_rm_rf(run->private_tmp, &err) < 0) {
		say(run, "%s", err.msg);
		sbx_strv_push(&run->report.warnings, err.msg);
	}
	if (run->temp_workdir) {
		if (run->policy.keep && run->report.status != 125)
			say(run, "kept the workdir %s", run->temp_workdir);
		else if (sbx_rm_rf(run->temp_workdir, &err) < 0) {
			say(run, "%s", err.msg);
			sbx_strv_push(&run->report.warnings, err.msg);
		}
	}
#endif
}

/* The machine as sbx_backend_choose() asks about it: each backend's own
 * probe and rule mask, on this run's capabilities. */
static int
choice_probe(void *ctx, enum sbx_backend_id id, struct sbx_err *why)
{
	struct run *run = ctx;
	const struct sbx_backend *b = sbx_backend_get(id);

	if (b->probe(&run->caps, why) == 0)
		return 0;
	/* -v names the step that failed, as --probe does. */
	if (run->cli.verbose)
		say(run, "backend %s unavailable: %s", b->name, why->msg);
	return -1;
}

static uint32_t
choice_enforces(void *ctx, enum sbx_backend_id id)
{
	struct run *run = ctx;

	return sbx_backend_get(id)->enforces(&run->policy, &run->caps);
}

/* Chooses the backend for the policy (backend-choice.h), after the one
 * that failed to start when after is not NULL. Fills the report with the
 * choice. */
static const struct sbx_backend *
choose_backend(struct run *run, const struct sbx_backend *after, struct sbx_err *err)
{
	struct sbx_report *r = &run->report;
	enum sbx_backend_id after_id = after ? after->id : SBX_BACKEND_AUTO;
	struct sbx_choice_in in = {
		.asked = run->policy.backend,
		.requested = sbx_rules_requested(&run->policy),
		.allow_degraded = run->policy.allow_degraded,
		.print_backend = run->cli.print_backend,
		.after = after ? &after_id : NULL,
		.facts = { .ctx = run, .probe = choice_probe, .enforces = choice_enforces },
	};
	struct sbx_choice c;
	const struct sbx_backend *b = NULL;

	in.order = sbx_backend_auto_order(&in.norder);
	if (sbx_backend_choose(&in, &c, err) == 0)
		b = sbx_backend_get(c.backend);
	if (c.reported) {
		r->backend = sbx_backend_get(c.report_backend)->name;
		r->requested = c.requested;
		r->enforced = c.enforced;
	}
	for (size_t i = 0; i < c.say.n; i++)
		say(run, "%s", c.say.v[i]);
	for (size_t i = 0; i < c.warnings.n; i++)
		sbx_strv_push(&r->warnings, c.warnings.v[i]);
	sbx_choice_free(&c);
	return b;
}

static int
build_exec(struct run *run, const struct sbx_backend *b, struct sbx_err *err)
{
	const char *tmpdir = "/tmp";

	if (b->needs_tmpdir) {
		if (make_temp_workdir(run, false, true, NULL, err) < 0)
			return -1;
		sbx_phase("private TMPDIR");
		tmpdir = run->private_tmp;
	}
	sbx_exec_free(&run->exec);
	memset(&run->exec, 0, sizeof(run->exec));
	if (sbx_exec_build(&run->exec, &run->policy, run->fs.workdir, tmpdir, run->cli.command,
		run->cli.interp, run->script_arg, &run->caller, environ, &run->net.env, err) < 0)
		return -1;
	/* The trace's traps live in the seccomp filter of the Linux jails
	 * and are answered by their supervisor. */
	if (run->policy.trace && b->id != SBX_BACKEND_NAMESPACES && b->id != SBX_BACKEND_LANDLOCK)
		return sbx_err_set(err, ENOTSUP,
		    "--trace needs the namespaces or landlock backend (seccomp user "
		    "notification); backend %s cannot trace",
		    b->name);
	run->exec.trace = run->policy.trace != NULL;
	run->exec.fs = &run->fs;
	run->exec.net = run->net.supervised ? &run->net.rules : NULL;
	run->exec.tmpdir = b->needs_tmpdir ? run->private_tmp : NULL;
	run->exec.keeper = run->keeper;
	run->exec.cgroup_fd = -1;
	run->exec.mounts_fd = run->mountinfo ? run->mounts_fd : -1;
	if (run->cg_fd >= 0 && (b->id == SBX_BACKEND_NAMESPACES || b->id == SBX_BACKEND_LANDLOCK)) {
		run->exec.cgroup = true;
		run->exec.cgroup_fd = run->cg_fd;
		run->exec.cgroup_ctl = run->cg_ctl;
		run->exec.cgroup_test = run->cg_place.test;
	}
	run->exec.uid_tasks_late = false;
#ifdef __linux__
	/* For a launch, the keeper's count is read by the launch itself,
	 * once init is forked: the count of a machine's processes runs
	 * beside the plan's making, and the payload only needs it at its
	 * exec (doc/design/startup.md, section 32). */
	if (run->count_asked && run->counted && run->counted_for == b->id &&
	    !run->cli.print_backend) {
		run->exec.uid_tasks_late = true;
	} else if (run->count_asked) {
		run->count_asked = false;
		run->counted =
		    run->counted && sbx_keeper_count_take(run->keeper, &run->uid_tasks) == 0;
	}
#endif
	run->exec.uid_tasks_counted = run->counted && run->counted_for == b->id;
	run->exec.uid_tasks = run->uid_tasks;
	sbx_limits_plan(&run->policy, b, &run->caps, &run->exec, &run->report);
	return 0;
}

/* Makes the run's cgroup v2 leaf where the probe found a place for one
 * (sbx_cgroup_probe, before the keeper existed: the keeper is a process
 * in our group too), through the keeper, which removes it after the run
 * whatever happens to sbxrun. A leaf that cannot be made leaves the
 * limits to rlimits, said in the warnings. */
static void
make_leaf(struct run *run, const struct sbx_backend *b)
{
#ifdef __linux__
	const struct sbx_policy *p = &run->policy;
	struct sbx_cg_write w[SBX_CG_MAX_WRITES];
	struct sbx_err err = { 0 };
	_cleanup_free_ char *path = NULL;
	char name[64], enable[32];
	unsigned rnd = (unsigned)getpid() ^ (unsigned)sbx_now_ms();
	size_t nw;
	int fd = -1;

	if (run->cg_place.parent == NULL ||
	    (b->id != SBX_BACKEND_NAMESPACES && b->id != SBX_BACKEND_LANDLOCK))
		return;
	nw = sbx_cgroup_writes(run->cg_want,
	    p->limits[SBX_LIMIT_MEMORY].set ? p->limits[SBX_LIMIT_MEMORY].value : 0,
	    p->limits[SBX_LIMIT_PIDS].set ? p->limits[SBX_LIMIT_PIDS].value : 0, w);
	(void)!getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK);
	sbx_cgroup_leaf_name(name, sizeof(name), getpid(), rnd);
	sbx_cgroup_enable_line(run->cg_want, enable, sizeof(enable));
	if (need_keeper(run, false, &err) < 0 ||
	    sbx_keeper_cgroup(run->keeper, run->cg_place.parent, name,
		run->cg_place.move_self ? SBX_CG_SUP_NAME : NULL, enable, w, nw, run->cg_place.test,
		&path, &fd, &err) < 0) {
		sbx_strv_push_take(&run->report.warnings,
		    sbx_xasprintf("memory and pids are rlimits, not a cgroup: the cgroup v2 leaf "
				  "could not be made: %s",
			err.msg));
		return;
	}
	run->cg_fd = fd;
	run->cg_ctl = run->cg_want;
	if (run->cg_place.test)
		sbx_strv_push_take(&run->report.warnings,
		    sbx_xasprintf(
			"cgroup: %s is in a test tree (SBXRUN_TEST_CGROUP_ROOT), which no "
			"kernel enforces: the rlimits are kept as well",
			path));
#else
	(void)run;
	(void)b;
#endif
}

/* After the run, before the keeper removes the leaf: what its counters
 * saw. */
static void
read_leaf(struct run *run)
{
#ifdef __linux__
	struct sbx_cg_stats s;

	if (run->cg_fd < 0 || !run->exec.cgroup)
		return;
	sbx_cgroup_read_stats(run->cg_fd, &s);
	if (s.oom_kill > 0)
		run->report.oom_killed = true;
	if (run->cg_ctl & SBX_CG_MEMORY)
		run->report.limits[SBX_LIMIT_MEMORY].peak = s.memory_peak;
	if (s.pids_max > 0)
		sbx_strv_push_take(&run->report.warnings,
		    sbx_xasprintf("cgroup: %llu fork%s refused at the pids limit",
			(unsigned long long)s.pids_max, s.pids_max == 1 ? " was" : "s were"));
#else
	(void)run;
#endif
}

/* A temp workdir is resolved by the name the keeper made it at, and
 * whoever may rename in $TMPDIR (its owner, or anyone where it has no
 * sticky bit) could have put a directory of their own there in between:
 * the sandbox would write where they read, and a root caller's lend would
 * walk their tree. The resolution must have found the very directory the
 * keeper holds (doc/design/paths.md). */
static int
check_temp_workdir(struct run *run, struct sbx_err *err)
{
	const struct sbx_pin *wd = sbx_fsview_pin(&run->fs, run->fs.workdir);
	bool same;

	if (run->temp_workdir == NULL || !run->fs.workdir_temp || run->fs.workdir_in_jail)
		return 0;
#ifdef __linux__
	struct stat made;

	same = wd && sbx_keeper_tmp_stat(run->keeper, run->temp_workdir, &made) == 0 &&
	    sbx_same_file(&wd->st, &made);
#else
	/* Made by sbxrun itself (mkdtemp(3)), with no descriptor kept: at
	 * least a directory of ours that no one else may enter, as mkdtemp
	 * made it. */
	same = wd && S_ISDIR(wd->st.st_mode) && wd->st.st_uid == geteuid() &&
	    (wd->st.st_mode & 077) == 0;
#endif
	if (!same)
		return sbx_err_set(err, EPERM,
		    "the temp workdir %s was replaced after it was made; refusing to run",
		    run->temp_workdir);
	return 0;
}

/* The next backend of "auto" has no mount namespace of its own: the
 * workdir becomes a temp dir on disk after all, resolved afresh. */
static int
rehome_workdir(struct run *run, struct sbx_err *err)
{
	size_t nwarn = run->policy.warnings.n;

	if (make_temp_workdir(run, true, false, NULL, err) < 0)
		return -1;
	sbx_fsview_free(&run->fs);
	free(steal_ptr(&run->jail_workdir));
	if (sbx_resolve(&run->policy, &run->homes, run->temp_workdir, false, &run->fs, err) < 0 ||
	    check_temp_workdir(run, err) < 0)
		return -1;
	mark_gitdir(run);
	/* Said once already, by the first resolve. */
	while (run->policy.warnings.n > nwarn)
		free(run->policy.warnings.v[--run->policy.warnings.n]);
	free(run->report.workdir);
	run->report.workdir = sbx_xstrdup(run->fs.workdir);
	return 0;
}

/* The jail plan for backend b (jail.h), built by the core from the
 * policy, the resolved paths, the exec just built and the host's facts:
 * once per backend tried. The backend then only executes it. */
static int
build_jail(struct run *run, const struct sbx_backend *b, struct sbx_err *err)
{
	struct sbx_jail_in in = {
		.policy = &run->policy,
		.fs = &run->fs,
		.caps = &run->caps,
		.exec = &run->exec,
		.backend = b->id,
		.facts = &run->facts,
		.euid = geteuid(),
		.enforced = run->report.enforced,
	};

	sbx_jail_free(&run->jail);
	/* The ids the sandbox runs as: the caller's own, or for root the
	 * unprivileged id every backend gives it. */
	sbx_host_ids_for(&run->host_ids, run->caller.uid, run->caller.gid, SBX_SANDBOX_ROOT_ID);
	/* What the plan looks at below the workdir (the protected names) or
	 * a mount source, it looks at through the pin: the jail is built
	 * from the pinned directory, whatever is at its name by now. */
	run->host_ids.fs = &run->fs;
	sbx_host_facts_init(&run->facts, &run->host_ids);
	return sbx_jail_build(&in, &run->jail, err);
}

struct spawn_ctx {
	struct run *run;
	const struct sbx_backend *b;
};

/* The backend's spawn, called by sbx_network_launch() on the thread the
 * supervisor's configuration chose. */
static int
spawn_jail(void *arg, struct sbx_child *c, struct sbx_err *err)
{
	struct spawn_ctx *s = arg;
	struct run *run = s->run;

	return s->b->spawn(&run->jail, c, &run->report, err);
}

/* Builds the jail plan for backend b, then spawns the jail from it and
 * starts its supervisor, configured by the plan (jail.h, supcfg.h): no
 * backend says how the supervisor judges, and only network.c knows which
 * thread and Landlock domain the jail is launched from. */
static int
spawn(struct run *run, const struct sbx_backend *b, struct sbx_child *child, struct sbx_err *err)
{
	struct spawn_ctx s = { .run = run, .b = b };
	int rc;

	if (build_jail(run, b, err) < 0)
		return -1;
	sbx_phase("jail plan built");
	/* The launch's hand-overs on one CPU, then ours back (launch.h). */
	sbx_cpu_hold();
	rc = sbx_network_launch(&run->net, &run->jail.supcfg, spawn_jail, &s, child, err);
	sbx_cpu_release();
	return rc;
}

static int
status_of(const struct sbx_report *r)
{
	if (r->timed_out)
		return 124;
	if (r->exited)
		return r->exit_code;
	if (r->signal)
		return 128 + r->signal;
	return 125;
}

/* --selftest (sbxrun(1)): the table on stdout, then the summary line on
 * stdout, or where --diag fd:N or PATH says (none: nowhere). */
static int
run_selftest(struct run *run)
{
	struct sbx_st_report st = { 0 };
	struct sbx_err err = { 0 };
	_cleanup_free_ char *table = NULL, *json = NULL, *line = NULL;
	const struct sbx_diag_dest *d = &run->cli.diag;
	int status, fd = -1;

	if (sbx_st_check_cli(&run->cli, &err) < 0)
		return fail(run, &err);
#ifdef __linux__
	if (sbx_selftest_run(&run->policy, run->cli.verbose, &st, &err) < 0) {
		sbx_st_report_free(&st);
		return fail(run, &err);
	}
#else
	sbx_err_set(&err, ENOTSUP, "--selftest is built for Linux only");
	return fail(run, &err);
#endif
	status = sbx_st_status(&st);
	table = sbx_st_table(&st);
	json = sbx_st_json(&st, status);
	line = sbx_xasprintf("%s\n", json);
	sbx_st_report_free(&st);
	fputs(table, stdout);
	run->no_diag = true;
	if (d->kind == SBX_DIAG_STDERR) {
		fputs(line, stdout);
	} else if (d->kind == SBX_DIAG_FD) {
		fflush(stdout);
		fd = d->fd;
	} else if (d->kind == SBX_DIAG_PATH) {
		/* The file made and checked before the selftest ran, never
		 * its name again (open_diag_path()). */
		fd = run->diag_fd >= 0 ? run->diag_fd : open_diag_path(run, d->path, &err);
		if (fd < 0)
			say(run, "%s", err.msg);
	}
	if (fd >= 0 && !sbx_write_shared(fd, line, strlen(line)))
		say(run, "--diag: cannot write the summary line");
	if (d->kind == SBX_DIAG_PATH && fd >= 0 && fd != run->diag_fd)
		close(fd);
	return status;
}

/* The run of a spawned jail, from starting the relay and the proxy to the
 * end of the whole tree. Returns 0 when the tree ended (by itself, a
 * signal or the timeout: r says which), -1 with err when sbxrun could not
 * see it through. */
static int
run_jail(struct run *run, struct sbx_child *child, uint64_t start, struct sbx_err *err)
{
	struct sbx_report *r = &run->report;
	int rc;

	if (sbx_relay_start(&run->relay, err) < 0 || sbx_network_proxy(&run->net, err) < 0)
		return -1;
	sbx_phase("relay and proxy started");
	rc = sbx_launch_wait_exec(child->err_fd, &r->status, err);
	sbx_phase("payload exec reported");
	if (rc < 0)
		return -1;
	/* The command was not found (127) or could not be executed (126):
	 * said here and carried in the diagnostics line. */
	if (rc > 0) {
		say(run, "%s", err->msg);
		free(r->error);
		r->error = sbx_xstrdup(err->msg);
	}
	rc = sbx_supervise(child, run->sfd, start, run->policy.timeout_ms, r, err);
	run->finished = true;
	/* Before any message of ours (restore_std_flags() is said again,
	 * harmlessly, for the runs that fail on the way). */
	restore_std_flags(run);
	if (rc < 0)
		return -1;
	sbx_phase("tree gone");
	return 0;
}

/* The one way out of a spawned jail, whether it ended (ended) or sbxrun
 * gave up on it: a jail still running is killed, and then the run's facts
 * are collected into the report, each source once, in this order: the
 * cgroup leaf's counters, what the backend undid and saw
 * (sbx_child_close), the supervisor's and the proxy's denials
 * (sbx_network_stop), the trace's name and count. After this nothing of
 * the run writes into the report (doc/design/lifecycle.md). */
static void
end_jail(struct run *run, struct sbx_child *child, bool ended)
{
	struct sbx_report *r = &run->report;
	struct sbx_err err = { 0 };

	if (ended)
		read_leaf(run);
	else
		sbx_child_abort(child);
	sbx_child_close(child, r);
#ifdef __linux__
	/* Nothing more of the keeper but its FINISH (cleanup_files()), unless
	 * a kept temp workdir is to be forgotten first: asked now, its files
	 * go while the supervisor stops and the report is made. */
	if (!(run->temp_workdir && run->policy.keep))
		sbx_keeper_finish_ask(run->keeper);
#endif
	sbx_phase("backend cleanup");
	sbx_network_stop(&run->net, r);
	/* Nothing more is traced once the supervisor and the proxy stopped;
	 * a run sbxrun gave up on leaves no trace file. */
	if (ended && run->trace) {
		if (sbx_trace_finish(run->trace, &err) < 0) {
			say(run, "%s", err.msg);
			sbx_strv_push(&r->warnings, err.msg);
		} else {
			r->trace_path = sbx_xstrdup(run->policy.trace);
			r->trace_events = sbx_trace_events(run->trace);
			if (sbx_trace_dropped(run->trace) > 0)
				sbx_strv_push_take(&r->warnings,
				    sbx_xasprintf("the trace reached the file-size limit (%" PRIu64
						  " bytes): %" PRIu64
						  " later events were not written",
					run->policy.limits[SBX_LIMIT_FILE_SIZE].value,
					sbx_trace_dropped(run->trace)));
		}
	}
}

/* SBXRUN_TEST_GRACE, for tests only (sbxrun(1), ENVIRONMENT): a grace
 * long enough that "killed at once" and "killed after the grace" differ
 * by minutes, not by how busy the machine is. */
static int
test_grace(struct sbx_err *err)
{
	const char *v = getenv("SBXRUN_TEST_GRACE");
	uint64_t ms;

	if (v == NULL)
		return 0;
	if (sbx_parse_duration_ms(v, &ms, err) < 0)
		return sbx_err_wrap(err, "SBXRUN_TEST_GRACE");
	sbx_supervise_set_grace(ms);
	return 0;
}

/* SBXRUN_TEST_MOUNT_PASS=late, for tests only (sbxrun(1), ENVIRONMENT):
 * the look for other users' mounts before the checks after the run is
 * skipped, so that the search's own is seen at work. */
static int
test_mount_pass(struct sbx_err *err)
{
	const char *v = getenv("SBXRUN_TEST_MOUNT_PASS");

	if (v == NULL)
		return 0;
	if (strcmp(v, "late") != 0)
		return sbx_err_set(err, EINVAL, "SBXRUN_TEST_MOUNT_PASS: '%s' is not 'late'", v);
#ifdef __linux__
	sbx_gitguard_test_late_mount_pass();
#endif
	return 0;
}

/* SBXRUN_TEST_SCAN_MAX, for tests only (sbxrun(1), ENVIRONMENT): the git
 * guard's bounds lowered, so that a test of what lies past them needs no
 * million entries. */
static int
test_scan_max(struct sbx_err *err)
{
	const char *v = getenv("SBXRUN_TEST_SCAN_MAX");
	uint64_t n;

	if (v == NULL)
		return 0;
	if (sbx_parse_count(v, 9999999, &n, err) < 0)
		return sbx_err_wrap(err, "SBXRUN_TEST_SCAN_MAX");
	if (n == 0)
		return sbx_err_set(err, ERANGE, "SBXRUN_TEST_SCAN_MAX: 0 is not a bound");
#ifdef __linux__
	sbx_gitguard_set_scan_max((size_t)n);
#endif
	return 0;
}

static int
run_main(struct run *run, int argc, char **argv)
{
	struct sbx_policy *p = &run->policy;
	struct sbx_report *r = &run->report;
	const struct sbx_backend *b;
	struct sbx_child child = {
		.pidfd = -1,
		.status_fd = -1,
		.err_fd = -1,
		.life_fd = -1,
		.notify_fd = -1,
		.diag_fd = -1,
		.names_ruleset = -1,
		.tun_fd = -1,
	};
	struct sbx_err err = { 0 };
	struct temp_ask temps = { 0 };
	uint64_t start;
	int temps_asked = 0;
	bool ended, in_jail;

	if (sbx_cli_parse(&run->cli, argc, argv, &err) < 0)
		return fail(run, &err);
	if (run->cli.help) {
		fputs(sbx_cli_usage(), stdout);
		return -1;
	}
	if (run->cli.version) {
		_cleanup_free_ char *v = sbx_version_render();

		fputs(v, stdout);
		return -1;
	}
	/* Not before: --help and --version answer without asking the user
	 * database (getent may take its whole 3 s for a directory user). */
	caller_init(run);
	if (run->cli.list_profiles) {
		list_profiles(run);
		return -1;
	}
	if (diag_fd_unwritable(run, &err) < 0)
		return fail(run, &err);
	/* The secret list starts from the caller's home: no run without it. */
	if (run->caller_failed)
		return fail(run, &run->caller_err);
	sbx_policy_init(p, run->caller.home);
	run->have_policy = true;
	if (load_profiles(run, &err) < 0 || sbx_cli_apply(&run->cli, p, &err) < 0 ||
	    sbx_policy_check(p, &err) < 0 || test_grace(&err) < 0 || test_scan_max(&err) < 0 ||
	    test_mount_pass(&err) < 0)
		return fail(run, &err);
	/* A run's line must not be lost after the run: the file is made now,
	 * before anything runs, once the policy names the workdir (--print-*
	 * and --probe write no line when they succeed, and make none). */
	if (run->cli.diag.kind == SBX_DIAG_PATH &&
	    !(run->cli.print_policy || run->cli.print_backend || run->cli.probe)) {
		run->diag_fd = open_diag_path(run, run->cli.diag.path, &err);
		if (run->diag_fd < 0) {
			run->cli.diag.kind = SBX_DIAG_STDERR;
			return fail(run, &err);
		}
	}
	sbx_phase("options and profiles");
	for (size_t i = 0; i < p->warnings.n; i++)
		say(run, "warning: %s", p->warnings.v[i]);
	if (run->cli.print_policy) {
		_cleanup_free_ char *ini = sbx_policy_to_ini_origins(p, &err);

		if (ini == NULL)
			return fail(run, &err);
		fputs(ini, stdout);
		return -1;
	}
	if (run->cli.probe) {
		enum sbx_backend_id pick = sbx_probe_all(&run->caps);
		_cleanup_free_ char *json = NULL;
#ifdef __linux__
		/* What a run with --memory and --pids would get: a leaf with
		 * both controllers (the probe reads only). */
		struct sbx_cg_decision cg;
		_cleanup_free_ char *table = sbx_mountinfo_read();

		sbx_cgroup_probe(SBX_CG_MEMORY | SBX_CG_PIDS, table, &cg, NULL);
		run->caps.cgroup_delegated =
		    cg.way != SBX_CG_NONE && cg.ctl == (SBX_CG_MEMORY | SBX_CG_PIDS);
#endif
		json = sbx_probe_render(&run->caps, pick);

		puts(json);
		return -1;
	}
	if (run->cli.selftest)
		return run_selftest(run);
	if (run->cli.docker_rm) {
#ifdef __linux__
		if (sbx_docker_keep_remove(run->cli.docker_rm, &err) < 0)
			return fail(run, &err);
		return -1;
#else
		sbx_err_set(
		    &err, ENOTSUP, "--docker-rm: the docker backend is built for Linux only");
		return fail(run, &err);
#endif
	}
	/* A kept container is the docker backend's; auto means docker. */
	if (p->docker_keep && p->backend == SBX_BACKEND_AUTO)
		p->backend = SBX_BACKEND_DOCKER;
	if (p->docker_keep && p->backend != SBX_BACKEND_DOCKER) {
		sbx_err_set(&err, EINVAL, "docker_keep %s needs the docker backend, not %s",
		    p->docker_keep, sbx_backend_name(p->backend));
		return fail(run, &err);
	}

	b = choose_backend(run, NULL, &err);
	if (b == NULL)
		return fail(run, &err);
	sbx_phase("backend chosen");
	/* The keeper, before anything is made on the caller's disk (keeper.h);
	 * a run that makes nothing there starts none. Launched and asked for
	 * the temp dirs first, without a wait: it starts and makes them on
	 * the other CPU while sbxrun probes the cgroups and resolves the
	 * first paths (doc/design/startup.md, section 21). Still
	 * single-threaded: the keeper may start here. */
	in_jail = workdir_in_jail(run, b);
	if (!in_jail) {
		if (need_keeper(run, true, &err) < 0)
			return fail(run, &err);
		temp_workdir_asks(run, p->workdir == NULL, b->needs_tmpdir, &temps);
		temps_asked = temps.n > 0 ? ask_temp_dirs(run, &temps, &err) : 0;
		sbx_phase("keeper started");
	}
	/* A cgroup v2 leaf when one can be made, else rlimits, and the
	 * diagnostics say why (sbxrun.1, LIMITS; doc/design/limits.md). The
	 * probe reads only; the leaf is made just before the spawn. */
	if (b->id != SBX_BACKEND_DOCKER) {
		bool asked =
		    r->enforced & (SBX_RULE_BIT(SBX_RULE_MEMORY) | SBX_RULE_BIT(SBX_RULE_PIDS));
		const char *why = "no cgroup v2 on this system";
#ifdef __linux__
		struct sbx_cg_decision cg;

		run->cg_want = (p->limits[SBX_LIMIT_MEMORY].set ? SBX_CG_MEMORY : 0) |
		    (p->limits[SBX_LIMIT_PIDS].set ? SBX_CG_PIDS : 0);
		/* Opened first: a mount made after it is seen after the run
		 * (linux-mountwatch.h), even one made before the read. */
		run->mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		run->mountinfo = sbx_mountinfo_read();
		sbx_cgroup_probe(run->cg_want, run->mountinfo, &cg, &run->cg_place);
		why = cg.why;
		if (cg.way != SBX_CG_NONE) {
			run->cg_want = cg.ctl;
			asked = asked && cg.why[0];
		}
#endif
		if (asked)
			sbx_strv_push_take(&r->warnings,
			    run->cg_place.parent
				? sbx_xstrdup(why)
				: sbx_xasprintf(
				      "memory and pids are rlimits, not a cgroup: %s; memory "
				      "is RLIMIT_AS (the address space, so swap cannot add to "
				      "it, and memory held in files such as a memfd is not "
				      "counted), pids is RLIMIT_NPROC",
				      why));
	}
	/* Set but meaningless for this backend: said, not silently dropped. */
	if (p->docker_image && b->id != SBX_BACKEND_DOCKER)
		sbx_strv_push_take(&r->warnings,
		    sbx_xasprintf("docker_image %s is not used: the backend is %s", p->docker_image,
			b->name));
	if (in_jail) {
		run->jail_workdir = jail_workdir_name();
	} else if (temps.n > 0) {
		if (take_temp_dirs(run, &temps, temps_asked, b, &err) < 0)
			return fail(run, &err);
		sbx_phase("temp workdir");
	}
	/* Still single-threaded: the keeper may start here. */
	if (!run->cli.print_backend)
		make_leaf(run, b);
	if (!run->fs_begun)
		sbx_resolve_begin(p, &run->homes, run->mountinfo, &run->fs);
	run->fs_begun = false;
	if (sbx_resolve_rest(p, &run->homes,
		run->jail_workdir ? run->jail_workdir : run->temp_workdir,
		run->jail_workdir != NULL, &run->fs, &err) < 0 ||
	    check_temp_workdir(run, &err) < 0)
		return fail(run, &err);
	mark_gitdir(run);
	r->workdir = sbx_xstrdup(run->fs.workdir);
	sbx_phase("paths resolved");

	/* The proxy's socket and the rules exist before the spawn (single-
	 * threaded still), so the port can be given back to the sandbox. A
	 * container's network is the engine's: nothing of this applies. */
	if (b->id != SBX_BACKEND_DOCKER &&
	    sbx_network_prepare(&run->net, p, run->caps.landlock_abi, &err) < 0)
		return fail(run, &err);
	if (run->cli.verbose && !run->cli.quiet)
		sbx_network_on_refusal(&run->net, say_refusal, run, STDERR_FILENO);
	sbx_phase("network prepared");

	if (run->cli.print_backend) {
		struct sbx_buf out = { 0 };

		if (build_exec(run, b, &err) < 0 || build_jail(run, b, &err) < 0 ||
		    b->describe(&run->jail, &out, &err) < 0) {
			sbx_buf_free(&out);
			return fail(run, &err);
		}
		fputs(out.data ? out.data : "", stdout);
		sbx_buf_free(&out);
		run->policy.keep = false;
		return -1;
	}
	if (run->cli.interp && store_script(run, &err) < 0)
		return fail(run, &err);

	run->sfd = sbx_supervise_setup(&err);
	if (run->sfd < 0)
		return fail(run, &err);
	/* The sandbox gets pipes, not the caller's files (sbxrun(1)). */
	if (sbx_relay_setup(&run->relay,
		p->limits[SBX_LIMIT_FILE_SIZE].set ? p->limits[SBX_LIMIT_FILE_SIZE].value : 0,
		&err) < 0)
		return fail(run, &err);
	sbx_phase("supervise and relay set up");

	/* Made fresh for this run, with no name until it ends (trace.h). */
	if (p->trace) {
		struct stat wst;

		if (sbx_trace_open(
			p->trace, p->trace_all, diag_workdir(run, &wst), &run->trace, &err) < 0)
			return fail(run, &err);
		/* The trace grows with what the sandbox does: held to the
		 * file size the sandbox's own files are held to. */
		if (p->limits[SBX_LIMIT_FILE_SIZE].set)
			sbx_trace_set_cap(run->trace, p->limits[SBX_LIMIT_FILE_SIZE].value);
		run->net.trace = run->trace;
	}
	for (;;) {
		if (build_exec(run, b, &err) < 0)
			return fail(run, &err);
		if (run->trace)
			sbx_trace_set_command(run->trace, run->exec.argv);
		if (run->cli.verbose)
			say(run, "backend %s, workdir %s", b->name, run->fs.workdir);
		memset(&r->layers, 0, sizeof(r->layers));
		if (b->id == SBX_BACKEND_NONE)
			say(run,
			    "warning: backend none: nothing is enforced; the command runs "
			    "with all of your rights");
		sbx_phase("exec built");
		start = sbx_now_ms();
		run->spawned = true;
#ifdef __linux__
		child.keeper = sbx_keeper_pid(run->keeper);
#endif
		if (spawn(run, b, &child, &err) == 0)
			break;
		/* A jail the launch killed after its spawn (its supervisor
		 * could not start) says what its backend undid. */
		sbx_child_close(&child, r);
		sbx_phase("spawn failed");
		if (err.errnum != SBX_EUNAVAIL || p->backend != SBX_BACKEND_AUTO) {
			/* The tree is gone: this message ends its output. */
			run->finished = true;
			return fail(run, &err);
		}
		/* "auto" measured this backend unusable by trying it: next,
		 * with the step that failed named in -v and in the warnings. */
		{
			_cleanup_free_ char *why =
			    sbx_xasprintf("backend %s: %s", b->name, err.msg);

			if (run->cli.verbose)
				say(run, "%s", why);
			b = choose_backend(run, b, &err);
			if (b == NULL)
				return fail(run, &err);
			if (run->jail_workdir && rehome_workdir(run, &err) < 0)
				return fail(run, &err);
			sbx_strv_push_take(&r->warnings,
			    sbx_xasprintf("%s; ran under backend %s instead", why, b->name));
		}
	}

	sbx_phase("jail spawned");
	r->layers.cgroup = run->exec.cgroup;
	/* A cgroup leaf is read and removed after the run: init must have
	 * left it by then. */
	child.end_early = !run->exec.cgroup;
	ended = run_jail(run, &child, start, &err) == 0;
	run->reap_late = child.reap_late;
	end_jail(run, &child, ended);
	if (!ended) {
		run->finished = true; /* the tree is gone: this message ends its output */
		return fail(run, &err);
	}
	/* What the sandbox wrote comes before sbxrun's own lines. */
	sbx_relay_finish(&run->relay);
	r->status = status_of(r);
	/* sbxrun(1), DIAGNOSTICS: a 125 always carries an error; here it is the child's own. */
	if (r->status == 125 && r->exited && r->error == NULL)
		r->error = sbx_xstrdup("the sandboxed command itself exited with status 125");
	if (r->timed_out && r->kill_unsure)
		say(run,
		    "timed out after %llu ms; the kill of the tree could not be confirmed "
		    "(see warnings): part of it may still run",
		    (unsigned long long)p->timeout_ms);
	else if (r->timed_out)
		say(run, "timed out after %llu ms; the whole tree was killed",
		    (unsigned long long)p->timeout_ms);
	return r->status;
}

#ifdef SBX_SANITIZED
#define FREE_AT_EXIT 1
#else
#define FREE_AT_EXIT 0
#endif

/* The run's memory (main()). */
static void
run_free(struct run *run)
{
	sbx_exec_free(&run->exec);
	sbx_jail_free(&run->jail);
	sbx_fsview_free(&run->fs);
	free(run->mountinfo);
	if (run->have_policy)
		sbx_policy_free(&run->policy);
	sbx_cli_free(&run->cli);
	sbx_report_free(&run->report);
	sbx_strv_free(&run->homes);
	free(run->caller.user);
	free(run->caller.home);
	free(run->temp_workdir);
	free(run->jail_workdir);
	free(run->private_tmp);
	free(run->script_path);
	free(run->script_arg);
#ifdef __linux__
	sbx_cgroup_place_free(&run->cg_place);
#endif
}

int
main(int argc, char **argv)
{
	struct run run = { .sfd = -1, .diag_fd = -1, .cg_fd = -1, .mounts_fd = -1 };
	int status;

	for (int i = 0; i < 3; i++) {
		run.std_flags[i] = fcntl(i, F_GETFL);
		run.tty_saved[i] = run.std_flags[i] >= 0 && tcgetattr(i, &run.tty[i]) == 0;
	}
	/* A closed one is /dev/null from here on: otherwise the next
	 * descriptor sbxrun opens takes its number, and whatever reads
	 * standard input (the script's copier, --interp) or writes standard
	 * output would use that one instead (the host's mount table was once
	 * the script). std_flags keeps that it was closed (--diag stderr is
	 * refused then). Filled in order, each open takes the lowest number. */
	for (int i = 0; i < 3; i++)
		if (run.std_flags[i] < 0)
			(void)open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);

			/* The payload of --selftest, re-executed inside its jail. */
#ifdef __linux__
	if (argc > 1 && strcmp(argv[1], SBX_ST_PAYLOAD_ARG) == 0)
		return sbx_selftest_payload(argc, argv);
#endif
	sbx_phase_init();
	sbx_report_init(&run.report);
	/* A caller that ignores SIGCHLD (some daemons do) hands that on
	 * through exec, and the kernel would then reap every child of ours
	 * itself: no wait could see the jail's status (the run failed and
	 * hung). The default again, before the first child. */
	signal(SIGCHLD, SIG_DFL);
	/* Past a file-size limit of the caller's, a write of sbxrun's (the
	 * diagnostics line into a file) fails with EFBIG and is said, instead
	 * of killing sbxrun with the line lost. The payload gets the default
	 * back with every other disposition (launch-common.c). */
	signal(SIGXFSZ, SIG_IGN);
	/* What sbxrun makes (the temp dirs, checked to be 0700; the jail's
	 * own root under namespaces) does not take the caller's umask: one
	 * of 0177 or 0777 made them unusable, and the run failed with a
	 * message that blamed a swap. The payload gets the caller's back
	 * just before its exec (launch.c). */
	run.umask = umask(022);
	status = run_main(&run, argc, argv);
	sbx_relay_finish(&run.relay);
	for (int fd = 1; fd <= 2; fd++)
		if (run.relay.capped & (1u << fd))
			sbx_strv_push_take(&run.report.warnings,
			    sbx_xasprintf(
				"standard %s, a file, reached the file-size limit (%" PRIu64
				" bytes): what the sandbox wrote past it was not copied",
				fd == 1 ? "output" : "error", run.relay.cap));
		else if (run.relay.werr[fd] != 0)
			sbx_strv_push_take(&run.report.warnings,
			    sbx_xasprintf("standard %s could not be written (%s): what the "
					  "sandbox wrote from then on was dropped",
				fd == 1 ? "output" : "error", strerror(run.relay.werr[fd])));
	if (status < 0) {
		/* --help, --version, --print-*, --probe: no run, no diagnostics. */
		cleanup_files(&run);
		status = 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			struct sbx_err err;

			sbx_err_sys(&err, "cannot write to standard output");
			status = fail(&run, &err);
			emit_diag(&run);
		}
	} else {
		run.report.status = status;
		restore_std_flags(&run);
		sbx_phase("run ended");
		cleanup_files(&run);
		sbx_phase("files cleaned up");
		if (!run.no_diag)
			emit_diag(&run);
		sbx_phase("diagnostics written");
	}
	sbx_network_free(&run.net);
	sbx_trace_free(run.trace);
	/* The rest is memory, which goes with the process: freeing it wrote
	 * once more to most of the heap's pages at the end of every run,
	 * ~0.04 ms (doc/design/startup.md, section 31). The sanitized build
	 * frees it, so that every free function runs under ASan and
	 * LeakSanitizer finds nothing left but a real leak. */
	if (FREE_AT_EXIT)
		run_free(&run);
	if (run.cg_fd >= 0)
		close(run.cg_fd);
	if (run.diag_fd >= 0)
		close(run.diag_fd);
	if (run.mounts_fd >= 0)
		close(run.mounts_fd);
	/* The jail's init, when the run ended on its message: its exit (the
	 * jail's namespaces torn down) ran beside the report above, and
	 * nothing of the run outlives sbxrun. */
	sbx_reap_late(run.reap_late);
#ifdef __linux__
	/* Last: the keeper's exit ran beside all of the above. */
	sbx_keeper_reap(steal_ptr(&run.keeper));
#endif
	return status;
}
