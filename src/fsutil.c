#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "fsutil.h"
#include "resolve.h"
#include "util.h"

#ifndef O_PATH
#define O_PATH 0 /* macOS: a plain open of the directory does */
#endif

/* How deep rm_at() goes before it moves what is below up to the top of
 * the tree it removes (each level holds a descriptor and a directory
 * stream), and how many such moves one removal makes at most. */
#define RM_DEPTH_MAX 128
#define RM_MOVES_MAX 100000
/* How many entries one removal looks at in all: each pass at the top
 * after a move looks again at what failed before. */
#define RM_LOOKS_MAX 4000000

struct rm_ctx {
	int top; /* the tree's top, open: where too deep a directory goes */
	unsigned moves;
	unsigned long looks;
};

/* Moves the directory name in parent to the top of the tree under a new
 * name: a tree deeper than RM_DEPTH_MAX is taken apart that many levels
 * at a time (the sandbox can make one as deep as it likes), not left
 * behind. */
static int
rm_move_up(struct rm_ctx *c, int parent, const char *name)
{
	char aside[64];

	/* A random name: names that can be told in advance the sandbox makes
	 * first, and every move would fail. */
	for (int i = 0; i < 64 && c->moves < RM_MOVES_MAX; i++) {
		uint32_t r[2];

		arc4random_buf(r, sizeof(r));
		snprintf(
		    aside, sizeof(aside), ".sbxrun-deep.%08x%08x", (unsigned)r[0], (unsigned)r[1]);
#ifdef __linux__
		if (renameat2(parent, name, c->top, aside, RENAME_NOREPLACE) == 0) {
			c->moves++;
			return 0;
		}
		/* A directory moved to another parent needs write permission
		 * on itself (its ".." changes): one the sandbox left 0500 is
		 * the owner's to open up, in a tree that goes anyway. */
		if (errno == EACCES && fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW) == 0 &&
		    renameat2(parent, name, c->top, aside, RENAME_NOREPLACE) == 0) {
			c->moves++;
			return 0;
		}
#else
		if (faccessat(c->top, aside, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
		    renameat(parent, name, c->top, aside) == 0) {
			c->moves++;
			return 0;
		}
#endif
		if (errno != EEXIST)
			return -1;
	}
	errno = ELOOP;
	return -1;
}

/* Removes name in parent and all below it; want, when not NULL, is what
 * name must be. Each directory is opened by name and must be the inode
 * its look found (a name swapped between the two is left, ESTALE): the
 * tree may be another user's to rename in ($TMPDIR's owner, uid 65534
 * for a root caller's lent temp workdir). */
static int
rm_at(struct rm_ctx *c, int parent, const char *name, const struct stat *want, int depth)
{
	struct stat st, now;
	struct dirent *de;
	unsigned moved;
	DIR *d;
	int fd, failed = 0;

	if (++c->looks > RM_LOOKS_MAX) {
		errno = ELOOP;
		return -1;
	}
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (want != NULL && !sbx_same_file(&st, want)) {
		errno = ESTALE;
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -1 : 0;
	/* An empty directory goes at once: the name is the one judged just
	 * above, as it is for the removal by name after the walk below. Any
	 * failure (not empty, no permission yet) takes the walk. */
	if (unlinkat(parent, name, AT_REMOVEDIR) == 0)
		return 0;
	if (depth > RM_DEPTH_MAX)
		return rm_move_up(c, parent, name);
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW);
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &now) < 0 || !sbx_same_file(&now, &st)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	fchmod(fd, 0700);
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return -1;
	}
	if (depth == 0)
		c->top = dirfd(d);
	/* At the top, again while a pass moved something up to it. An entry
	 * that cannot go does not stop the rest: one the sandbox made to
	 * fail would otherwise keep everything else of the tree. The first
	 * failure is what is said. */
	do {
		moved = c->moves;
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (rm_at(c, dirfd(d), de->d_name, NULL, depth + 1) < 0 && failed == 0)
				failed = errno;
		}
		if (depth == 0 && c->moves != moved)
			rewinddir(d);
	} while (depth == 0 && c->moves != moved);
	closedir(d);
	if (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	if (failed != 0)
		errno = failed;
	return -1;
}

int
sbx_rm_rf(const char *path, struct sbx_err *err)
{
	struct rm_ctx c = { .top = -1 };

	if (rm_at(&c, AT_FDCWD, path, NULL, 0) < 0)
		return sbx_err_sys(err, "cannot remove %s", path);
	return 0;
}

int
sbx_rm_rf_at(
    int dir, const char *name, const struct stat *want, const char *shown, struct sbx_err *err)
{
	struct rm_ctx c = { .top = -1 };

	if (rm_at(&c, dir, name, want, 0) < 0)
		return sbx_err_sys(err, "cannot remove %s", shown);
	return 0;
}

/* Opens path relative to dirfd following no symbolic link in any of its
 * components; with beneath, path must also stay below dirfd (no "..", no
 * absolute path). Linux does both in the kernel (openat2 with
 * RESOLVE_NO_SYMLINKS, RESOLVE_BENEATH), so no component can be swapped
 * between two steps of a walk; elsewhere, or on a kernel without openat2,
 * the walk is done one component at a time with O_NOFOLLOW. */
static int
open_nofollow(int dirfd, const char *path, int flags, bool beneath)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_close_ int cur = -1;
	char *save = NULL, *comp, *next;

#ifdef __linux__
	struct open_how how = {
		.flags = (__u64)flags,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
		    (beneath ? RESOLVE_BENEATH | RESOLVE_NO_XDEV : 0),
	};
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return fd;
#endif
	if (beneath &&
	    (path[0] == '/' || strcmp(path, "..") == 0 || strncmp(path, "../", 3) == 0 ||
		strstr(path, "/../") != NULL ||
		(strlen(path) >= 3 && strcmp(path + strlen(path) - 3, "/..") == 0))) {
		errno = EXDEV;
		return -1;
	}
	copy = sbx_xstrdup(path);
	cur = path[0] == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
			     : openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -1;
	comp = strtok_r(copy, "/", &save);
	while (comp != NULL) {
		int fd2;

		next = strtok_r(NULL, "/", &save);
		fd2 = openat(cur, comp,
		    next ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : flags | O_NOFOLLOW);
		if (fd2 < 0)
			return -1;
		close(cur);
		cur = fd2;
		comp = next;
	}
	return steal_fd(&cur);
}

/* Creates name in dir as a new regular file, never opening what is there:
 * O_EXCL refuses any existing entry, a symlink or a FIFO included, so
 * nothing is truncated, followed or blocked on. A leftover that is not a
 * directory is removed (by name, relative to dir: unlinkat follows
 * nothing) and the creation tried again, a bounded number of times. */
static int
create_new(int dir, const char *name, const char *shown, struct sbx_err *err)
{
	for (int tries = 0; tries < 8; tries++) {
		struct stat st;
		int fd = openat(dir, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);

		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return sbx_err_sys(err, "cannot create %s", shown);
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			return sbx_err_sys(err, "cannot examine %s", shown);
		}
		if (S_ISDIR(st.st_mode))
			return sbx_err_set(err, EEXIST,
			    "%s exists and is a directory; remove it to use this script name",
			    shown);
		if (unlinkat(dir, name, 0) < 0 && errno != ENOENT)
			return sbx_err_sys(err, "cannot remove the leftover %s", shown);
	}
	return sbx_err_set(err, EEXIST, "%s keeps being re-created by someone else", shown);
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Copies in to its end into out: SBX_SCRIPT_MAX bytes at most and, with
 * timeout_ms, no longer than that (an endless or never-closed standard
 * input would otherwise fill the disk, or wait for ever, before any
 * timeout runs). */
static int
copy_fd(int out, int in, const char *shown, uint64_t timeout_ms, struct sbx_err *err)
{
	uint64_t deadline = timeout_ms ? mono_ms() + timeout_ms : 0, total = 0;
	char buf[65536];
	ssize_t n;

	for (;;) {
		char *p = buf;

		if (deadline) {
			uint64_t now = mono_ms();
			struct pollfd pfd = { .fd = in, .events = POLLIN };
			uint64_t left = deadline > now ? deadline - now : 0;
			int r =
			    left == 0 ? 0 : poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);

			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0)
				return sbx_err_set(err, ETIMEDOUT,
				    "the script on standard input did not end within the timeout "
				    "(%" PRIu64 " ms): --interp needs all of it before the run",
				    timeout_ms);
		}
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sbx_err_sys(err, "cannot read the script from standard input");
		if (n == 0)
			return 0;
		total += (uint64_t)n;
		if (total > SBX_SCRIPT_MAX)
			return sbx_err_set(err, EFBIG,
			    "the script on standard input is larger than %d MiB (--interp)",
			    SBX_SCRIPT_MAX >> 20);
		while (n > 0) {
			ssize_t w = write(out, p, (size_t)n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return sbx_err_sys(err, "cannot write %s", shown);
			p += w;
			n -= w;
		}
	}
}

int
sbx_script_create(struct sbx_script *s, int wd, const char *workdir, const char *name, uid_t owner,
    int *out, struct sbx_err *err)
{
	_cleanup_free_ char *shown = sbx_xasprintf("%s/" SBX_SCRIPT_DIR "/%s", workdir, name);
	int fd;
	struct stat st;

	s->wd = s->dir = -1;
	s->made_dir = s->made_file = false;
	s->name = sbx_xstrdup(name);
	/* The pinned descriptor, never the name: whoever may rename in a
	 * parent of the workdir could have put a directory of theirs at it
	 * since the pin (doc/design/paths.md). */
	s->wd = fcntl(wd, F_DUPFD_CLOEXEC, 3);
	if (s->wd < 0)
		return sbx_err_sys(err, "cannot open the workdir %s", workdir);
	/* mkdirat never follows a symlink in the last component (EEXIST). */
	if (mkdirat(s->wd, SBX_SCRIPT_DIR, 0700) == 0)
		s->made_dir = true;
	else if (errno != EEXIST)
		return sbx_err_sys(err, "cannot create %s/" SBX_SCRIPT_DIR, workdir);
	s->dir = open_nofollow(s->wd, SBX_SCRIPT_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC, true);
	if (s->dir < 0) {
		if (errno == ELOOP || errno == ENOTDIR || errno == EXDEV)
			return sbx_err_set(err, errno,
			    "%s/" SBX_SCRIPT_DIR " is not a directory of its own (a symbolic link, "
			    "a file or a mount point)",
			    workdir);
		return sbx_err_sys(err, "cannot open %s/" SBX_SCRIPT_DIR, workdir);
	}
	if (fstat(s->dir, &st) < 0)
		return sbx_err_sys(err, "cannot examine %s/" SBX_SCRIPT_DIR, workdir);
	/* Another owner, or a directory others may write to, could swap the
	 * script for their own between its creation and its run. */
	if (st.st_uid != owner)
		return sbx_err_set(err, EPERM,
		    "%s/" SBX_SCRIPT_DIR " belongs to uid %u, not to uid %u; remove it", workdir,
		    (unsigned)st.st_uid, (unsigned)owner);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return sbx_err_set(err, EPERM,
		    "%s/" SBX_SCRIPT_DIR " is writable by others (mode %04o); remove it", workdir,
		    (unsigned)(st.st_mode & 07777));
	fd = create_new(s->dir, name, shown, err);
	if (fd < 0)
		return -1;
	s->made_file = true;
	*out = fd;
	return 0;
}

int
sbx_script_fill(int fd, const char *shown, int in, uint64_t timeout_ms, struct sbx_err *err)
{
	if (copy_fd(fd, in, shown, timeout_ms, err) < 0) {
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return sbx_err_sys(err, "cannot write %s", shown);
	return 0;
}

int
sbx_script_store(struct sbx_script *s, int wd, const char *workdir, const char *name, int in,
    uid_t owner, uint64_t timeout_ms, struct sbx_err *err)
{
	_cleanup_free_ char *shown = sbx_xasprintf("%s/" SBX_SCRIPT_DIR "/%s", workdir, name);
	int fd;

	if (sbx_script_create(s, wd, workdir, name, owner, &fd, err) < 0)
		return -1;
	return sbx_script_fill(fd, shown, in, timeout_ms, err);
}

void
sbx_script_remove(struct sbx_script *s)
{
	struct stat now, ours;

	if (s->dir >= 0 && s->made_file)
		unlinkat(s->dir, s->name, 0);
	/* Only the directory sbxrun made, and only if it is still there by
	 * that name: the sandbox may have moved it and put another in its
	 * place. Both lookups are relative to descriptors and follow nothing. */
	if (s->dir >= 0 && s->made_dir && fstat(s->dir, &ours) == 0 &&
	    fstatat(s->wd, SBX_SCRIPT_DIR, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == ours.st_dev && now.st_ino == ours.st_ino)
		unlinkat(s->wd, SBX_SCRIPT_DIR, AT_REMOVEDIR);
	if (s->dir >= 0)
		close(s->dir);
	if (s->wd >= 0)
		close(s->wd);
	s->dir = s->wd = -1;
	s->made_dir = s->made_file = false;
	free(s->name);
	s->name = NULL;
}

bool
sbx_write_shared(int fd, const void *p, size_t n)
{
	const char *c = p;
	sigset_t pipe, old, pending;
	bool blocked = false, had = true;

	/* SIGPIPE blocked for this thread only, and one this write raised
	 * taken off again: a thread that had it blocked (the supervisor's
	 * start so) is left as it was. */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	if (pthread_sigmask(SIG_BLOCK, &pipe, &old) == 0 && !sigismember(&old, SIGPIPE)) {
		blocked = true;
		had = sigpending(&pending) < 0 || sigismember(&pending, SIGPIPE);
	}
	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			/* Made non-blocking by someone sharing it: what a
			 * blocking write would have waited for. */
			struct pollfd pf = { .fd = fd, .events = POLLOUT };

			if (poll(&pf, 1, -1) < 0 && errno != EINTR)
				break;
			continue;
		}
		if (w <= 0)
			break;
		c += w;
		n -= (size_t)w;
	}
	if (blocked) {
		int sig;

		if (!had && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
			sigwait(&pipe, &sig);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return n == 0;
}

int
sbx_fd_at_line_start(int fd)
{
	_cleanup_close_ int rfd = -1;
	_cleanup_free_ char *proc = NULL;
	struct stat st;
	off_t pos;
	char c;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	/* With O_APPEND the next write goes to the end; else to the offset
	 * the payload's writes (sharing this open file) moved along. */
	pos = (fl & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
	if (pos < 0)
		return -1;
	if (pos == 0)
		return 1;
	if (pread(fd, &c, 1, pos - 1) == 1)
		return c == '\n';
	/* A write-only descriptor: read through a second, read-only open of
	 * the same file (the caller's own right to read it). */
	proc = sbx_xasprintf("/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (rfd < 0 || pread(rfd, &c, 1, pos - 1) != 1)
		return -1;
	return c == '\n';
}

/* The directory holding rel below wd, opened without following anything,
 * and the last component's name in *name (pointing into copy). */
static int
parent_at(int wd, char *copy, const char **name)
{
	char *slash = strrchr(copy, '/');
	struct stat st;
	int fd;

	if (slash == NULL) {
		*name = copy;
		return fcntl(wd, F_DUPFD_CLOEXEC, 0);
	}
	*slash = '\0';
	*name = slash + 1;
	fd = sbx_open_nofollow(wd, copy, &st);
	if (fd >= 0 && !S_ISDIR(st.st_mode)) {
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	return fd;
}

char *
sbx_rename_aside(int dir, const char *name)
{
	for (int n = 1; n <= 100 + 16; n++) {
		uint32_t r[2];
		char *aside;
		int e;

		if (n <= 100) {
			aside = sbx_xasprintf("%s.sbxrun-untrusted.%d", name, n);
		} else {
			arc4random_buf(r, sizeof(r));
			aside = sbx_xasprintf(
			    "%s.sbxrun-untrusted.%08x%08x", name, (unsigned)r[0], (unsigned)r[1]);
		}
		/* On Linux always the kernel's refusal to replace: a libc that
		 * does not declare it fails to build here, never takes the
		 * look-then-rename below, which another process can race
		 * (doc/design/startup.md, section 25). */
#ifdef __linux__
		if (renameat2(dir, name, dir, aside, RENAME_NOREPLACE) == 0)
#else
		if (faccessat(dir, aside, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
		    renameat(dir, name, dir, aside) == 0)
#endif
			return aside;
		e = errno;
		free(aside);
		if (e != EEXIST) {
			errno = e;
			return NULL;
		}
	}
	errno = EEXIST;
	return NULL;
}

char *
sbx_move_aside_at(int wd, const char *rel, struct sbx_err *err)
{
	_cleanup_free_ char *copy = NULL;
	const char *name;
	_cleanup_close_ int dir = -1;
	_cleanup_free_ char *aside = NULL;
	struct stat st;

	/* Most names were never made: a top-level one is looked up in wd
	 * itself first, without a copy of the descriptor. */
	if (strchr(rel, '/') == NULL && fstatat(wd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	copy = sbx_xstrdup(rel);
	dir = parent_at(wd, copy, &name);
	if (dir >= 0 && *name == '\0') {
		/* "a/": no name to look up; never taken for one not there. */
		errno = EINVAL;
		sbx_err_sys(err, "cannot move %s aside", rel);
		return NULL;
	}
	if (dir < 0 || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL; /* not there, or not below a directory: nothing made */
	aside = sbx_rename_aside(dir, name);
	if (aside != NULL)
		return sbx_xasprintf("%.*s%s", (int)(name - copy), rel, aside);
	sbx_err_sys(err, "cannot move %s aside", rel);
	return NULL;
}

/* A directory on the way to the name copy (cut at name, the component
 * that could not be looked up) that this process cannot search: said, not
 * opened up. A sandbox of the caller's uid can take the caller's own
 * search permission away to hide what it made below; giving it back
 * would open a directory the caller had locked (its ctime proves
 * nothing: a rename of it changes that). */
static char *
unsearchable(char *copy, const char *name, struct sbx_err *err)
{
	size_t at = (size_t)(name - copy);

	if (at > 0)
		copy[at - 1] = '\0';
	sbx_err_set(err, EACCES,
	    "%s cannot be searched: whether the run made %s was not looked at (what the run "
	    "made below a directory it locked stays, unseen)",
	    at > 0 ? copy : "the workdir", at > 0 ? name : name);
	return NULL;
}

char *
sbx_move_aside_way(int wd, const char *rel, char **made, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);
	_cleanup_close_ int dir = fcntl(wd, F_DUPFD_CLOEXEC, 0);
	char *name = copy, *slash;

	*made = NULL;
	while (dir >= 0 && (slash = strchr(name, '/')) != NULL) {
		_cleanup_free_ char *aside = NULL;
		struct stat st;
		int next;

		*slash = '\0';
		next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == EACCES)
			return unsearchable(copy, name, err);
		if (next >= 0) {
			close(dir);
			dir = next;
			*slash = '/';
			name = slash + 1;
			continue;
		}
		/* Not there (nothing below to move), or a file, which leaves
		 * the path leading nowhere: only a symlink redirects it. */
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
			return NULL;
		aside = sbx_rename_aside(dir, name);
		if (aside == NULL) {
			sbx_err_sys(err, "cannot move %s aside", copy);
			return NULL;
		}
		*made = sbx_xstrdup(copy);
		return sbx_xasprintf("%.*s%s", (int)(name - copy), copy, aside);
	}
	/* The name's own directory, for the look that follows
	 * (sbx_move_aside_at()). */
	if (dir >= 0) {
		struct stat st;

		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == EACCES)
			return unsearchable(copy, name, err);
	}
	return NULL;
}

void
sbx_remove_empty_at(int wd, const char *rel)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);
	const char *name;
	_cleanup_close_ int dir = parent_at(wd, copy, &name);
	struct stat st;

	if (dir < 0 || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode))
		unlinkat(dir, name, AT_REMOVEDIR);
	else if (S_ISREG(st.st_mode) && st.st_size == 0)
		unlinkat(dir, name, 0);
}
