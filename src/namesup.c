#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "namesup.h"
#include "diag.h"
#include "linux-notify.h"
#include "resolve.h"

#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

/* How many symbolic links one resolution follows (the kernel's MAXSYMLINKS). */
#define MAX_LINKS 40

/* The calls that make, remove or rename a name, or write a file. */
static const char *const calls[] = {
	"open",
	"openat",
	"creat",
	"truncate",
	"mkdir",
	"mkdirat",
	"mknod",
	"mknodat",
	"symlink",
	"symlinkat",
	"link",
	"linkat",
	"rename",
	"renameat",
	"renameat2",
	"unlink",
	"unlinkat",
	"rmdir",
	NULL,
};

struct name_id {
	dev_t dev;
	ino_t ino;
	char *name;
};

struct sbx_namesup {
	struct name_id *v;
	size_t n;
};

struct sbx_namesup *
sbx_namesup_new(const struct sbx_strv *names, const struct sbx_fsview *fs)
{
	struct sbx_namesup *n = sbx_xcalloc(1, sizeof(*n));

	for (size_t i = 0; names && i < names->n; i++) {
		_cleanup_free_ char *dir = sbx_xstrdup(names->v[i]);
		char *slash = strrchr(dir, '/');
		struct stat st;

		if (slash == NULL || slash[1] == '\0')
			continue;
		*slash = '\0';
		if (sbx_fsview_stat(fs, dir[0] ? dir : "/", 0, &st) < 0)
			continue; /* nothing can be made below a missing directory
			             without making it first, which is judged then */
		n->v = sbx_xreallocarray(n->v, n->n + 1, sizeof(*n->v));
		n->v[n->n++] = (struct name_id){ st.st_dev, st.st_ino, sbx_xstrdup(slash + 1) };
	}
	return n;
}

void
sbx_namesup_free(struct sbx_namesup *n)
{
	if (n == NULL)
		return;
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i].name);
	free(n->v);
	free(n);
}

/* Whether name in the directory dir is one of the names kept. */
static bool
name_kept(const struct sbx_namesup *n, int dir, const char *name)
{
	struct stat st;

	if (fstat(dir, &st) < 0)
		return true;
	for (size_t i = 0; i < n->n; i++)
		if (n->v[i].dev == st.st_dev && n->v[i].ino == st.st_ino &&
		    strcmp(n->v[i].name, name) == 0)
			return true;
	return false;
}

int
sbx_namesup_filter(void *scmp_ctx)
{
	/* Any one of these in the flags: the open may make or change a file.
	 * O_TMPFILE needs a write mode, so it is among them. */
	static const unsigned bits[] = { O_CREAT, O_WRONLY, O_RDWR, O_TRUNC };
	scmp_filter_ctx ctx = scmp_ctx;
	int r = 0;

	for (size_t i = 0; r == 0 && i < SBX_ARRAY_LEN(bits); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1,
		    SCMP_A1(SCMP_CMP_MASKED_EQ, bits[i], bits[i]));
		if (r == 0)
			r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
			    SCMP_A2(SCMP_CMP_MASKED_EQ, bits[i], bits[i]));
	}
	for (size_t i = 2; r == 0 && calls[i]; i++) {
		int nr = seccomp_syscall_resolve_name(calls[i]);

		if (nr != __NR_SCMP_ERROR)
			r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	}
	return r;
}

bool
sbx_namesup_handles(int nr)
{
	for (size_t i = 0; calls[i]; i++)
		if (seccomp_syscall_resolve_name(calls[i]) == nr)
			return true;
	return false;
}

enum kind { N_OPEN, N_TRUNC, N_MKDIR, N_MKNOD, N_SYMLINK, N_LINK, N_RENAME, N_UNLINK };

/* One call, normalised: up to two paths, each with its base. */
struct ncall {
	enum kind kind;
	int dfd[2];
	uint64_t path[2];
	uint64_t target; /* symlink: the link's text */
	int flags; /* open flags, linkat/unlinkat flags */
	unsigned rflags; /* renameat2 */
	uint64_t mode, dev, len;
};

static int parse(int nr, const __u64 *a, struct ncall *c);

bool
sbx_namesup_judges(int nr, const __u64 *args)
{
	struct ncall c;

	if (!sbx_namesup_handles(nr) || parse(nr, args, &c) < 0)
		return false;
	/* The filter traps only the opens that write, create or truncate;
	 * a plain read trapped for another reason (a trace) is not ours. */
	return c.kind != N_OPEN ||
	    ((c.flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0 && !(c.flags & O_PATH));
}

bool
sbx_namesup_passes(int nr, const __u64 *args)
{
	struct ncall c;

	/* With O_PATH, open(2) and openat(2) ignore every flag but
	 * O_CLOEXEC, O_DIRECTORY and O_NOFOLLOW: nothing is opened for
	 * reading or writing, made or cut, as by an O_PATH open without
	 * those bits, which is never trapped. The flags are the caller's
	 * register, the same when the call goes on; the descriptor such an
	 * open makes cannot be added by SECCOMP_IOCTL_NOTIF_ADDFD. creat(2)
	 * has no flags to give. */
	return sbx_namesup_handles(nr) && parse(nr, args, &c) == 0 && c.kind == N_OPEN &&
	    (c.flags & O_PATH) != 0;
}

static int
parse(int nr, const __u64 *a, struct ncall *c)
{
#define IS(name) (nr == seccomp_syscall_resolve_name(name))
	memset(c, 0, sizeof(*c));
	c->dfd[0] = c->dfd[1] = AT_FDCWD;
	if (IS("open") || IS("openat") || IS("creat")) {
		c->kind = N_OPEN;
		if (IS("openat"))
			c->dfd[0] = (int)a[0], c->path[0] = a[1], c->flags = (int)a[2],
			c->mode = a[3];
		else if (IS("open"))
			c->path[0] = a[0], c->flags = (int)a[1], c->mode = a[2];
		else
			c->path[0] = a[0], c->flags = O_CREAT | O_WRONLY | O_TRUNC, c->mode = a[1];
	} else if (IS("truncate")) {
		c->kind = N_TRUNC, c->path[0] = a[0], c->len = a[1];
	} else if (IS("mkdir") || IS("mkdirat")) {
		c->kind = N_MKDIR;
		if (IS("mkdirat"))
			c->dfd[0] = (int)a[0], c->path[0] = a[1], c->mode = a[2];
		else
			c->path[0] = a[0], c->mode = a[1];
	} else if (IS("mknod") || IS("mknodat")) {
		c->kind = N_MKNOD;
		if (IS("mknodat"))
			c->dfd[0] = (int)a[0], c->path[0] = a[1], c->mode = a[2], c->dev = a[3];
		else
			c->path[0] = a[0], c->mode = a[1], c->dev = a[2];
	} else if (IS("symlink") || IS("symlinkat")) {
		c->kind = N_SYMLINK, c->target = a[0];
		if (IS("symlinkat"))
			c->dfd[0] = (int)a[1], c->path[0] = a[2];
		else
			c->path[0] = a[1];
	} else if (IS("link") || IS("linkat")) {
		c->kind = N_LINK;
		if (IS("linkat"))
			c->dfd[0] = (int)a[0], c->path[0] = a[1], c->dfd[1] = (int)a[2],
			c->path[1] = a[3], c->flags = (int)a[4];
		else
			c->path[0] = a[0], c->path[1] = a[1];
	} else if (IS("rename") || IS("renameat") || IS("renameat2")) {
		c->kind = N_RENAME;
		if (IS("rename"))
			c->path[0] = a[0], c->path[1] = a[1];
		else
			c->dfd[0] = (int)a[0], c->path[0] = a[1], c->dfd[1] = (int)a[2],
			c->path[1] = a[3], c->rflags = IS("renameat2") ? (unsigned)a[4] : 0;
	} else if (IS("unlink") || IS("unlinkat") || IS("rmdir")) {
		c->kind = N_UNLINK;
		if (IS("unlinkat"))
			c->dfd[0] = (int)a[0], c->path[0] = a[1], c->flags = (int)a[2];
		else
			c->path[0] = a[0], c->flags = IS("rmdir") ? AT_REMOVEDIR : 0;
	} else {
		return -1;
	}
	return 0;
#undef IS
}

/* A NUL-terminated string of the caller's, at most max bytes (PATH_MAX:
 * what the kernel's getname() takes). 0, or -errno. */
static int
copy_string(int pid, uint64_t addr, char *buf, size_t max)
{
	if (addr == 0)
		return -EFAULT;
	for (size_t off = 0; off < max; off += 256) {
		size_t n = max - off < 256 ? max - off : 256;

		if (sbx_notify_peek(pid, addr + off, buf + off, n) < 0) {
			/* The last page may end before n bytes. */
			for (size_t i = 0; i < n; i++) {
				if (sbx_notify_peek(pid, addr + off + i, buf + off + i, 1) < 0)
					return -EFAULT;
				if (buf[off + i] == '\0')
					return 0;
			}
			return -EFAULT;
		}
		if (memchr(buf + off, '\0', n))
			return 0;
	}
	return -ENAMETOOLONG;
}

/* Where a path leads in the caller's view: the directory holding its
 * last component and that name (dir >= 0), and the file itself when it
 * exists (fd >= 0; for "/" or a path ending in "." or "..", only fd). */
struct where {
	int dir;
	char name[NAME_MAX + 1];
	int fd;
	bool slash; /* the path ended in '/' */
	char *given; /* the path as copied for the decision, or NULL */
};

static void
where_free(struct where *w)
{
	if (w->dir >= 0)
		close(w->dir);
	if (w->fd >= 0)
		close(w->fd);
	w->dir = w->fd = -1;
}

static bool
on_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) < 0 || sf.f_type == PROC_SUPER_MAGIC;
}

/* Whether dir is the caller's own /proc/TGID directory or one below it:
 * only there are /proc's magic links (fd/N, cwd, root) followed for it.
 * Anywhere else in /proc they would be followed with sbxrun's rights
 * and into sbxrun's own descriptors. */
static bool
in_caller_proc(int dir, int tgid)
{
	char proc[64], path[PATH_MAX], want[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dir);
	n = readlink(proc, path, sizeof(path) - 1);
	if (n <= 0 || tgid <= 0)
		return false;
	path[n] = '\0';
	snprintf(want, sizeof(want), "/proc/%d", tgid);
	return sbx_path_is_under(path, want) && strcmp(path, want) != 0;
}

/* Puts text in front of what is left of the path (rest, inside buf). */
static int
path_splice(char *buf, size_t size, const char *text, const char *rest)
{
	size_t a = strlen(text), b = strlen(rest);
	_cleanup_free_ char *tail = sbx_xstrdup(rest);

	if (a + 1 + b + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, text, a);
	buf[a] = '/';
	memcpy(buf + a + 1, tail, b + 1);
	return 0;
}

/* Resolves path as the kernel would for the caller: from base (taken
 * over), one component at a time, without ever letting the kernel
 * follow a symbolic link for us, since we are not the caller: a link's
 * text is read and resolved from where it lies; /proc/self and
 * /proc/thread-self name the caller; /proc's magic links are followed
 * only inside the caller's own /proc/TGID. The last component is
 * followed when follow is set (or the path ends in '/'). 0 or -errno. */
static int
walk(int pid, int base, const char *path, bool follow, struct where *w)
{
	char buf[2 * PATH_MAX];
	char *p = buf;
	int cur = base, links = 0, tgid = -1, r = 0;

	w->dir = w->fd = -1;
	w->slash = false;
	if (strlen(path) >= sizeof(buf))
		return close(cur), -ENAMETOOLONG;
	strcpy(buf, path);
	for (;;) {
		char comp[NAME_MAX + 1], *end, *q;
		bool last, follow_this;
		struct stat st;
		int next;

		if (*p == '/') {
			close(cur);
			cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (cur < 0)
				return -errno;
			while (*p == '/')
				p++;
		}
		if (*p == '\0') {
			w->fd = cur; /* "/" or a path that ended in a directory */
			return 0;
		}
		end = strchrnul(p, '/');
		if ((size_t)(end - p) > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, (size_t)(end - p));
		comp[end - p] = '\0';
		for (q = end; *q == '/'; q++) {
		}
		last = *q == '\0';
		if ((strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0) &&
		    fstat(cur, &st) == 0 && st.st_ino == 1 && on_procfs(cur)) {
			/* /proc/self: the caller's, not ours. */
			char who[64];

			if (tgid < 0)
				tgid = sbx_notify_tgid(pid);
			if (tgid <= 0) {
				r = -ESRCH;
				break;
			}
			if (comp[0] == 's')
				snprintf(who, sizeof(who), "%d", tgid);
			else
				snprintf(who, sizeof(who), "%d/task/%d", tgid, pid);
			if ((r = path_splice(buf, sizeof(buf), who, q)) < 0)
				break;
			p = buf;
			continue;
		}
		if (last && (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)) {
			w->fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_CLOEXEC);
			r = w->fd < 0 ? -errno : 0;
			break;
		}
		next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			r = -errno;
			if (r == -ENOENT && last) {
				w->dir = cur;
				strcpy(w->name, comp);
				w->slash = *end == '/';
				return 0;
			}
			break;
		}
		follow_this = !last || follow || *end == '/';
		if (fstat(next, &st) == 0 && S_ISLNK(st.st_mode) && follow_this) {
			char text[PATH_MAX];
			ssize_t n;

			if (++links > MAX_LINKS) {
				close(next);
				r = -ELOOP;
				break;
			}
			if (on_procfs(cur)) {
				/* A magic link (fd/N, cwd, root, exe): only the
				 * caller's own, followed by the kernel to the
				 * file it stands for. */
				int to;

				close(next);
				if (tgid < 0)
					tgid = sbx_notify_tgid(pid);
				if (!in_caller_proc(cur, tgid)) {
					r = -EACCES;
					break;
				}
				to = openat(cur, comp, O_PATH | O_CLOEXEC);
				if (to < 0) {
					r = -errno;
					break;
				}
				if (last) {
					w->fd = to;
					break;
				}
				close(cur);
				cur = to;
				p = q;
				continue;
			}
			n = readlinkat(next, "", text, sizeof(text) - 1);
			close(next);
			if (n < 0) {
				r = -errno;
				break;
			}
			text[n] = '\0';
			if ((r = path_splice(buf, sizeof(buf), text, q)) < 0)
				break;
			p = buf;
			continue;
		}
		if (last) {
			w->dir = cur;
			strcpy(w->name, comp);
			w->fd = next;
			w->slash = *end == '/';
			return 0;
		}
		close(cur);
		cur = next;
		p = q;
	}
	close(cur);
	if (r < 0)
		where_free(w);
	return r;
}

/* The base a path of the caller's is resolved from. */
static int
base_of(int pid, int dfd, const char *path)
{
	char proc[64];
	int fd;

	if (path[0] == '/')
		return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd == AT_FDCWD) {
		snprintf(proc, sizeof(proc), "/proc/%d/cwd", pid);
		return open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	fd = sbx_notify_take_fd(pid, dfd);
	if (fd < 0 && errno == EPERM)
		fd = sbx_notify_reopen_fd(pid, dfd);
	if (fd < 0)
		errno = EBADF;
	return fd;
}

/* The caller's umask, applied to the modes of what is made for it. */
static mode_t
umask_of(int pid)
{
	char path[64], line[128];
	unsigned m = 022;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &m) == 1)
			break;
	if (f)
		fclose(f);
	return (mode_t)m;
}

/* The caller's RLIMIT_FSIZE (its soft limit): the length a truncation
 * made for it may grow a file to. From /proc/PID/limits, which a process
 * that made itself undumpable cannot hide (prlimit could not read it);
 * unreadable, 0: nothing grows. */
static unsigned long long
fsize_of(int pid)
{
	char path[64], line[160], soft[32];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Max file size %31s", soft) == 1) {
			v = strcmp(soft, "unlimited") == 0 ? ULLONG_MAX : strtoull(soft, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

struct sbx_name_op {
	enum kind kind;
	struct where w[2];
	int flags;
	unsigned rflags;
	bool reopen; /* open an existing file: through w[0].fd */
	bool regular; /* that file is a regular one */
	bool follow; /* link: the source's target */
	mode_t mode;
	dev_t dev;
	off_t len;
	char *target;
};

void
sbx_name_op_free(struct sbx_name_op *op)
{
	if (op == NULL)
		return;
	where_free(&op->w[0]);
	where_free(&op->w[1]);
	free(op->w[0].given);
	free(op->w[1].given);
	free(op->target);
	free(op);
}

int
sbx_namesup_addfd_flags(const struct sbx_name_op *op)
{
	if (op == NULL || op->kind != N_OPEN)
		return -1;
	return op->flags & O_CLOEXEC;
}

/* Whether fd is a file without a place in any directory (a pipe, a
 * socket, an anonymous inode: what /dev/stderr often leads to). No
 * guarded path can be one. */
static bool
pathless(int fd)
{
	char proc[64], path[16];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, path, sizeof(path));
	return n > 0 && path[0] != '/';
}

/* A file that would be written or truncated: not at or below a protected
 * or hidden path. */
static bool
file_kept(const struct sbx_meta_ctx *m, int fd, const char **reason)
{
	if (pathless(fd))
		return false;
	return sbx_metasup_guarded(m, fd, SBX_GUARD_HIDDEN | SBX_GUARD_PROTECT, reason);
}

/* Protected, hidden, or the way to one: its name stays. */
static bool
entry_kept(const struct sbx_meta_ctx *m, int fd, const char **reason)
{
	return sbx_metasup_guarded(
	    m, fd, SBX_GUARD_HIDDEN | SBX_GUARD_PROTECT | SBX_GUARD_FROZEN, reason);
}

/* A new name in dir: not at or below a protected or hidden path, and not
 * one of the kept names. */
static bool
place_kept(const struct sbx_namesup *n, const struct sbx_meta_ctx *m, const struct where *w,
    const char **reason)
{
	if (sbx_metasup_guarded(m, w->dir, SBX_GUARD_HIDDEN | SBX_GUARD_PROTECT, reason))
		return true;
	if (name_kept(n, w->dir, w->name)) {
		*reason = "a protected name";
		return true;
	}
	return false;
}

/* Resolves path i of c into w; 0 or -errno. */
static int
locate(int pid, const struct ncall *c, int i, bool follow, struct where *w)
{
	char path[PATH_MAX];
	int r = copy_string(pid, c->path[i], path, sizeof(path)), base;

	w->dir = w->fd = -1;
	if (r < 0)
		return r;
	free(w->given);
	w->given = sbx_xstrdup(path);
	if (path[0] == '\0')
		return -ENOENT;
	base = base_of(pid, c->dfd[i], path);
	if (base < 0)
		return -errno;
	return walk(pid, base, path, follow, w);
}

/* Decides; 0 with *op, or an errno with *reason when by policy. */
static int
decide(const struct sbx_namesup *n, const struct sbx_meta_ctx *m, int pid, const struct ncall *c,
    struct sbx_name_op *op, const char **reason)
{
	struct where *w = op->w;
	struct stat st;
	int r;

	op->kind = c->kind;
	op->flags = c->flags;
	op->rflags = c->rflags;
	op->dev = (dev_t)c->dev;
	op->len = (off_t)c->len;
	if (c->kind == N_OPEN || c->kind == N_MKDIR || c->kind == N_MKNOD)
		op->mode = (mode_t)(c->mode & 07777 & ~umask_of(pid)) | (mode_t)(c->mode & S_IFMT);
	switch (c->kind) {
	case N_OPEN: {
		bool create = c->flags & O_CREAT, excl = create && (c->flags & O_EXCL);

		if ((r = locate(pid, c, 0, !(c->flags & O_NOFOLLOW) && !excl, w)) < 0)
			return -r;
		if (w->fd >= 0) {
			if (excl)
				return EEXIST;
			if (fstat(w->fd, &st) < 0)
				return EACCES;
			if (S_ISLNK(st.st_mode))
				return ELOOP; /* O_NOFOLLOW on a link */
			if (on_procfs(w->fd))
				return EACCES; /* never reopened for the caller */
			/* /dev/tty is the opener's controlling terminal: ours
			 * (the caller's) when reopened here, never the
			 * sandbox's, which init's setsid left without one. */
			if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(5, 0))
				return ENXIO;
			/* The file itself, or with O_TMPFILE the directory
			 * that gets a new (unnamed) file: the same check. */
			if (file_kept(m, w->fd, reason))
				return EPERM;
			op->reopen = true;
			op->regular = S_ISREG(st.st_mode);
			return 0;
		}
		if (!create)
			return ENOENT;
		if (w->slash)
			return EISDIR;
		if (on_procfs(w->dir))
			return EACCES;
		return place_kept(n, m, w, reason) ? EPERM : 0;
	}
	case N_TRUNC:
		if ((r = locate(pid, c, 0, true, w)) < 0)
			return -r;
		if (w->fd < 0)
			return ENOENT;
		if (on_procfs(w->fd))
			return EACCES;
		if (file_kept(m, w->fd, reason))
			return EPERM;
		/* Made by one of our threads, under sbxrun's own limits: the
		 * caller's --file-size is applied here, as the kernel applies
		 * it to a file that grows (without its SIGXFSZ). */
		if ((int64_t)c->len >= 0 && fstat(w->fd, &st) == 0 &&
		    c->len > (uint64_t)st.st_size && c->len > fsize_of(pid))
			return EFBIG;
		return 0;
	case N_MKDIR:
	case N_MKNOD:
	case N_SYMLINK:
		if ((r = locate(pid, c, 0, false, w)) < 0)
			return -r;
		if (w->fd >= 0)
			return EEXIST;
		if (on_procfs(w->dir))
			return EACCES;
		if (c->kind == N_SYMLINK) {
			op->target = sbx_xmalloc(PATH_MAX);
			if ((r = copy_string(pid, c->target, op->target, PATH_MAX)) < 0)
				return -r;
		}
		return place_kept(n, m, w, reason) ? EPERM : 0;
	case N_LINK:
		if (c->flags & AT_EMPTY_PATH)
			return ENOENT; /* needs CAP_DAC_READ_SEARCH */
		op->follow = c->flags & AT_SYMLINK_FOLLOW;
		if ((r = locate(pid, c, 0, op->follow, &w[0])) < 0)
			return -r;
		if (w[0].fd < 0)
			return ENOENT;
		if (on_procfs(w[0].fd))
			return EACCES;
		if (entry_kept(m, w[0].fd, reason))
			return EPERM;
		if ((r = locate(pid, c, 1, false, &w[1])) < 0)
			return -r;
		if (w[1].fd >= 0)
			return EEXIST;
		if (!op->follow && w[0].dir < 0)
			return EPERM;
		return place_kept(n, m, &w[1], reason) ? EPERM : 0;
	case N_RENAME:
		if ((r = locate(pid, c, 0, false, &w[0])) < 0)
			return -r;
		if (w[0].fd < 0)
			return ENOENT;
		if (w[0].dir < 0)
			return EBUSY;
		if (entry_kept(m, w[0].fd, reason))
			return EPERM;
		if ((r = locate(pid, c, 1, false, &w[1])) < 0)
			return -r;
		if (w[1].dir < 0)
			return EBUSY;
		/* What is replaced (or, with RENAME_EXCHANGE, moved back) is
		 * judged like the source. */
		if (w[1].fd >= 0 && entry_kept(m, w[1].fd, reason))
			return EPERM;
		return place_kept(n, m, &w[1], reason) ? EPERM : 0;
	case N_UNLINK:
		if ((r = locate(pid, c, 0, false, w)) < 0)
			return -r;
		if (w->fd < 0)
			return ENOENT;
		if (w->dir < 0)
			return (c->flags & AT_REMOVEDIR) ? EBUSY : EISDIR;
		return entry_kept(m, w->fd, reason) ? EPERM : 0;
	}
	return ENOSYS;
}

/* "openat .git/config": the call and the path it names (for a link or
 * a rename, the new place when it was read), as copied for the decision:
 * never read again from the caller, who may have changed it since. */
static void
describe(const struct seccomp_notif *req, const struct sbx_name_op *op, char *out, size_t size)
{
	_cleanup_free_ char *call =
	    seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, req->data.nr);
	const char *path = op->w[1].given ? op->w[1].given : op->w[0].given;

	sbx_denied_call(out, size, call ? call : "?", path ? path : "");
}

int
sbx_namesup_prepare(const struct sbx_namesup *n, const struct sbx_meta_ctx *m, int notify_fd,
    const struct seccomp_notif *req, struct sbx_name_op **out, int *errnum, const char **reason,
    char *what, size_t what_size)
{
	struct sbx_name_op *op = sbx_xcalloc(1, sizeof(*op));
	uint64_t id = req->id;
	struct ncall c;

	*out = NULL;
	*reason = NULL;
	op->w[0].dir = op->w[0].fd = op->w[1].dir = op->w[1].fd = -1;
	if (parse(req->data.nr, req->data.args, &c) < 0) {
		*errnum = ENOSYS;
		sbx_name_op_free(op);
		return 0;
	}
	*errnum = decide(n, m, (int)req->pid, &c, op, reason);
	/* Everything is copied and resolved: is the caller still there? */
	if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0) {
		sbx_name_op_free(op);
		return -1;
	}
	if (*errnum != 0 && *reason)
		describe(req, op, what, what_size);
	if (*errnum != 0)
		sbx_name_op_free(op);
	else
		*out = op;
	return 0;
}

/* Opens the file the call names with flags: the very file judged, or
 * the name in the directory judged, never through a link made since. */
static int
open_named(const struct sbx_name_op *op, int flags)
{
	const struct where *w = op->w;
	char proc[64];

	if (op->reopen) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd);
		return open(proc, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC, op->mode);
	}
	return openat(w->dir, w->name, flags | O_NOFOLLOW | O_CLOEXEC, op->mode);
}

/* Whether the trapped call is still waiting for its answer. */
static bool
still_waits(int notify_fd, uint64_t id)
{
	return ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* O_RDONLY | O_TRUNC breaks a lease for reading only, which its holder
 * has answered once fd (that file, opened without O_TRUNC) is open: the
 * same open again cuts it as the kernel's would, where a descriptor for
 * writing would break the lease a second time. Takes fd. */
static int
reopen_truncating(int fd, int flags)
{
	char proc[64];
	int again, fl, saved;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	again = open(proc, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_NONBLOCK | O_CLOEXEC);
	saved = errno;
	close(fd);
	if (again < 0) {
		errno = saved;
		return -1;
	}
	if ((fl = fcntl(again, F_GETFL)) < 0 || fcntl(again, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		saved = errno;
		close(again);
		errno = saved;
		return -1;
	}
	return again;
}

/* An open that truncates, and truncate(2), wait in the kernel while a
 * lease on the file is broken (up to fs.lease-break-time), and a sandbox
 * that holds a lease on its own file ends it by ending: the call then cut
 * the file after the run. So the open is first tried without waiting;
 * on EWOULDBLOCK the file is opened without O_TRUNC, which waits, and cut
 * only if the caller still waits (doc/design/supervisor.md, "A cut waits
 * for a lease without cutting"). */
static int
open_truncating(const struct sbx_name_op *op, int notify_fd, uint64_t id)
{
	int fd = open_named(op, op->flags | O_NONBLOCK), saved;
	struct stat st;

	if (fd >= 0) {
		if (op->flags & O_NONBLOCK)
			return fd;
		/* A FIFO only for reading would have waited for a writer;
		 * O_TRUNC does nothing to it. */
		if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
		    (op->flags & O_ACCMODE) == O_RDONLY) {
			close(fd);
			return open_named(op, op->flags);
		}
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		return fd;
	}
	/* A FIFO for writing with no reader yet: wait, as asked. */
	if (errno == ENXIO && !(op->flags & O_NONBLOCK))
		return open_named(op, op->flags);
	if (errno != EWOULDBLOCK || (op->flags & O_NONBLOCK))
		return -1;
	if ((fd = open_named(op, op->flags & ~O_TRUNC)) < 0)
		return -1;
	if (!still_waits(notify_fd, id)) {
		close(fd);
		errno = ECANCELED;
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return fd;
	if ((op->flags & O_ACCMODE) != O_RDONLY) {
		/* Open for writing: no lease is left to break. */
		if (ftruncate(fd, 0) == 0)
			return fd;
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return reopen_truncating(fd, op->flags);
}

/* truncate(2) of the file judged: through a descriptor for writing,
 * opened as open_truncating() opens one. */
static int
truncate_judged(const struct sbx_name_op *op, int notify_fd, uint64_t id)
{
	char proc[64];
	struct stat st;
	int fd, r, saved;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", op->w->fd);
	/* A directory, a FIFO, a device: the kernel's own answer, at once. */
	if (fstat(op->w->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return truncate(proc, op->len);
	fd = open(proc, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == EWOULDBLOCK) {
		if ((fd = open(proc, O_WRONLY | O_CLOEXEC)) >= 0 && !still_waits(notify_fd, id)) {
			close(fd);
			errno = ECANCELED;
			return -1;
		}
	}
	if (fd < 0)
		return -1;
	r = ftruncate(fd, op->len);
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

int64_t
sbx_namesup_apply(const struct sbx_name_op *op, int notify_fd, uint64_t id)
{
	const struct where *w = op->w;
	char proc[64];
	long r = -1;

	switch (op->kind) {
	case N_OPEN:
		if ((op->flags & O_TRUNC) && (op->regular || !op->reopen))
			r = open_truncating(op, notify_fd, id);
		else
			r = open_named(op, op->flags);
		break;
	case N_TRUNC: r = truncate_judged(op, notify_fd, id); break;
	case N_MKDIR: r = mkdirat(w->dir, w->name, op->mode); break;
	case N_MKNOD: r = mknodat(w->dir, w->name, op->mode, op->dev); break;
	case N_SYMLINK: r = symlinkat(op->target, w->dir, w->name); break;
	case N_LINK:
		if (op->follow) {
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w[0].fd);
			r = linkat(AT_FDCWD, proc, w[1].dir, w[1].name, AT_SYMLINK_FOLLOW);
		} else {
			r = linkat(w[0].dir, w[0].name, w[1].dir, w[1].name, 0);
		}
		break;
	case N_RENAME:
		r = syscall(SYS_renameat2, w[0].dir, w[0].name, w[1].dir, w[1].name, op->rflags);
		break;
	case N_UNLINK: r = unlinkat(w->dir, w->name, op->flags & AT_REMOVEDIR); break;
	}
	return r < 0 ? -errno : r;
}

int
sbx_namesup_enter_thread(int ruleset)
{
	/* umask lives in the fs_struct, shared by every thread until one
	 * unshares it: this thread's own, 0, and the caller's is applied to
	 * each mode in decide(). */
	if (unshare(CLONE_FS) < 0)
		return -1;
	umask(0);
	if (ruleset < 0)
		return 0;
	/* landlock_restrict_self acts on the calling thread only. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(__NR_landlock_restrict_self, ruleset, 0) < 0 ? -1 : 0;
}
