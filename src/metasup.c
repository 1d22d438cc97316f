#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "metasup.h"
#include "diag.h"
#include "linux-notify.h"
#include "linux-statat.h"
#include "resolve.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

bool
sbx_metasup_handles(int nr)
{
	for (size_t i = 0; sbx_metasup_calls[i]; i++)
		if (seccomp_syscall_resolve_name(sbx_metasup_calls[i]) == nr)
			return true;
	return false;
}

enum meta_kind { META_MODE, META_OWNER, META_TIMES, META_XSET, META_XREMOVE };

/* One call, normalised: where the target is and what is to change. */
struct meta {
	enum meta_kind kind;
	int fd; /* fd-based call: the caller's fd, else -1 */
	int dirfd; /* path-based: the base (AT_FDCWD or the caller's fd) */
	uint64_t path; /* path-based: address of the path */
	bool nofollow;
	bool empty_ok; /* AT_EMPTY_PATH */
	uint64_t mode;
	uint64_t uid, gid;
	int times_kind; /* 0 timespec[2], 1 timeval[2], 2 utimbuf */
	uint64_t times; /* address, 0 for "now" */
	uint64_t name, value, size, flags;
};

static int
parse(int nr, const __u64 *a, struct meta *m)
{
#define IS(name) (nr == seccomp_syscall_resolve_name(name))
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->dirfd = AT_FDCWD;
	if (IS("chmod") || IS("fchmodat") || IS("fchmodat2") || IS("fchmod")) {
		m->kind = META_MODE;
		if (IS("fchmod"))
			m->fd = (int)a[0], m->mode = a[1];
		else if (IS("chmod"))
			m->path = a[0], m->mode = a[1];
		else
			m->dirfd = (int)a[0], m->path = a[1], m->mode = a[2],
			m->flags = IS("fchmodat2") ? a[3] : 0;
	} else if (IS("chown") || IS("lchown") || IS("fchown") || IS("fchownat")) {
		m->kind = META_OWNER;
		if (IS("fchown"))
			m->fd = (int)a[0], m->uid = a[1], m->gid = a[2];
		else if (IS("fchownat"))
			m->dirfd = (int)a[0], m->path = a[1], m->uid = a[2], m->gid = a[3],
			m->flags = a[4];
		else
			m->path = a[0], m->uid = a[1], m->gid = a[2], m->nofollow = IS("lchown");
	} else if (IS("utime") || IS("utimes") || IS("futimesat") || IS("utimensat")) {
		m->kind = META_TIMES;
		if (IS("utime"))
			m->path = a[0], m->times = a[1], m->times_kind = 2;
		else if (IS("utimes"))
			m->path = a[0], m->times = a[1], m->times_kind = 1;
		else if (IS("futimesat"))
			m->dirfd = (int)a[0], m->path = a[1], m->times = a[2], m->times_kind = 1;
		else if (a[1] == 0)
			m->fd = (int)a[0], m->times = a[2], m->flags = a[3]; /* futimens */
		else
			m->dirfd = (int)a[0], m->path = a[1], m->times = a[2], m->flags = a[3];
	} else if (IS("setxattr") || IS("lsetxattr") || IS("fsetxattr")) {
		m->kind = META_XSET;
		if (IS("fsetxattr"))
			m->fd = (int)a[0];
		else
			m->path = a[0], m->nofollow = IS("lsetxattr");
		m->name = a[1], m->value = a[2], m->size = a[3], m->flags = a[4];
	} else if (IS("removexattr") || IS("lremovexattr") || IS("fremovexattr")) {
		m->kind = META_XREMOVE;
		if (IS("fremovexattr"))
			m->fd = (int)a[0];
		else
			m->path = a[0], m->nofollow = IS("lremovexattr");
		m->name = a[1];
	} else {
		return -1;
	}
	if (m->kind != META_XSET && (m->flags & AT_SYMLINK_NOFOLLOW))
		m->nofollow = true;
	if (m->kind != META_XSET && (m->flags & AT_EMPTY_PATH))
		m->empty_ok = true;
	return 0;
#undef IS
}

/* A NUL-terminated string of the caller's, at most max bytes. */
static int
peek_string(int pid, uint64_t addr, char *buf, size_t max)
{
	for (size_t off = 0; off < max; off += 256) {
		size_t n = max - off < 256 ? max - off : 256;

		if (sbx_notify_peek(pid, addr + off, buf + off, n) < 0) {
			/* The last page may end before n bytes: go byte by byte. */
			for (size_t i = 0; i < n; i++) {
				if (sbx_notify_peek(pid, addr + off + i, buf + off + i, 1) < 0)
					return -1;
				if (buf[off + i] == '\0')
					return 0;
			}
			return -1;
		}
		if (memchr(buf + off, '\0', n))
			return 0;
	}
	return -1;
}

/* The target as an O_PATH (or, for fd-based calls, the caller's own)
 * descriptor of ours; resolved like the caller would, with its cwd or
 * directory descriptor as the base. */
static int
open_target(int pid, const struct meta *m, bool *real_fd, int *parent, char leaf[NAME_MAX + 1],
    char **given, int *errnum)
{
	char path[PATH_MAX], proc[64];
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS };
	int base, fd;

	*real_fd = false;
	*parent = -1;
	if (m->fd >= 0) {
		fd = sbx_notify_take_fd(pid, m->fd);
		*real_fd = true;
		if (fd < 0 && errno == EPERM) {
			/* pidfd_getfd refused: the file, by path (chmod and
			 * friends through /proc/self/fd, as for paths). */
			fd = sbx_notify_reopen_fd(pid, m->fd);
			*real_fd = false;
		}
		if (fd < 0)
			*errnum = errno == EBADF ? EBADF : EPERM;
		return fd;
	}
	if (m->path == 0 || peek_string(pid, m->path, path, sizeof(path)) < 0) {
		*errnum = EFAULT;
		return -1;
	}
	*given = sbx_xstrdup(path);
	if (path[0] == '\0' && !m->empty_ok) {
		*errnum = ENOENT;
		return -1;
	}
	if (m->dirfd == AT_FDCWD) {
		snprintf(proc, sizeof(proc), "/proc/%d/cwd", pid);
		base = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		base = sbx_notify_take_fd(pid, m->dirfd);
		if (base < 0 && errno == EPERM)
			base = sbx_notify_reopen_fd(pid, m->dirfd);
	}
	if (base < 0) {
		*errnum = EBADF;
		return -1;
	}
	if (path[0] == '\0') {
		*real_fd = true; /* AT_EMPTY_PATH: the directory fd itself */
		return base;
	}
	if (m->nofollow)
		how.flags |= O_NOFOLLOW;
	fd = (int)syscall(SYS_openat2, base, path, &how, sizeof(how));
	if (fd < 0)
		*errnum = errno;
	/* One name in the base directory (what chmod -R, tar and find pass):
	 * the base is the target's directory, kept for the guard's walk up
	 * (sbx_metasup_guarded() would find it again through the target's
	 * path). Checked by identity below, as that walk checks its own. */
	if (fd >= 0 && strchr(path, '/') == NULL && strcmp(path, ".") != 0 &&
	    strcmp(path, "..") != 0 && strlcpy(leaf, path, NAME_MAX + 1) <= NAME_MAX)
		*parent = base;
	else
		close(base);
	return fd;
}

bool
sbx_metasup_in_writable(const struct sbx_meta_ctx *m, int fd)
{
	char proc[64], path[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, path, sizeof(path) - 1);
	if (n <= 0 || path[0] != '/')
		return false;
	path[n] = '\0';
	if (sbx_str_has_suffix(path, " (deleted)"))
		return false;
	for (size_t i = 0; m->writable && i < m->writable->n; i++)
		if (sbx_path_is_under(path, m->writable->v[i]))
			return true;
	return false;
}

/* Not a guard: the root of a writable tree. No hidden path lies above
 * one (the workdir, TMPDIR and rw mount sources may not be below a hidden
 * path) and the protected ones lie inside the workdir, so a walk up that
 * reaches one has seen every guarded directory it could meet, and need
 * not search the ancestors, which the ids it runs with may not reach. */
#define GUARD_TOP 0x100u

void
sbx_metasup_guard_free(struct sbx_meta_guard *g)
{
	sbx_strv_free(&g->hidden);
	sbx_strv_free(&g->protect);
	sbx_strv_free(&g->frozen);
}

static void
add_id(struct sbx_meta_ctx *m, const struct stat *st, unsigned what)
{
	for (size_t i = 0; i < m->nids; i++) {
		if (m->ids[i].dev == st->st_dev && m->ids[i].ino == st->st_ino) {
			m->ids[i].what |= what;
			return;
		}
	}
	m->ids = sbx_xreallocarray(m->ids, m->nids + 1, sizeof(*m->ids));
	m->ids[m->nids++] = (struct sbx_meta_id){ st->st_dev, st->st_ino, what };
}

void
sbx_metasup_set_guard(struct sbx_meta_ctx *m, const struct sbx_meta_guard *g)
{
	const struct {
		const struct sbx_strv *list;
		unsigned what;
	} kinds[] = {
		{ &g->hidden, SBX_GUARD_HIDDEN },
		{ &g->protect, SBX_GUARD_PROTECT },
		{ &g->frozen, SBX_GUARD_FROZEN },
	};
	struct stat st;

	/* The writable trees' roots end the walk up (see below). */
	for (size_t i = 0; m->writable && i < m->writable->n; i++)
		if (sbx_fsview_stat(g->fs, m->writable->v[i], 0, &st) == 0)
			add_id(m, &st, GUARD_TOP);
	for (size_t k = 0; k < SBX_ARRAY_LEN(kinds); k++) {
		for (size_t i = 0; i < kinds[k].list->n; i++) {
			const char *path = kinds[k].list->v[i];

			/* A secret found missing when the list was read has
			 * no identity to guard (the list is a snapshot). */
			if (kinds[k].what == SBX_GUARD_HIDDEN && sbx_fsview_missing(g->fs, path))
				continue;
			/* A symlink stands for itself and for what it names:
			 * the hidden list holds both spellings, but a path
			 * made a symlink before the run may not. Anything
			 * else, or nothing at all, is what following the
			 * path would find too. */
			if (sbx_fsview_stat(g->fs, path, AT_SYMLINK_NOFOLLOW, &st) == 0) {
				add_id(m, &st, kinds[k].what);
				if (!S_ISLNK(st.st_mode))
					continue;
			} else if (errno == ENOENT) {
				continue;
			}
			if (sbx_fsview_stat(g->fs, path, 0, &st) == 0)
				add_id(m, &st, kinds[k].what);
		}
	}
}

/* The kinds of m's guarded files that st is, among what. */
static unsigned
guard_match(const struct sbx_meta_ctx *m, const struct stat *st, unsigned what)
{
	for (size_t i = 0; i < m->nids; i++)
		if (m->ids[i].dev == st->st_dev && m->ids[i].ino == st->st_ino)
			return m->ids[i].what & what;
	return 0;
}

static const char *
guard_reason(unsigned hit)
{
	if (hit & SBX_GUARD_HIDDEN)
		return "a hidden path";
	if (hit & SBX_GUARD_PROTECT)
		return "a protected path";
	return "a frozen directory (a hidden or protected path lies below it)";
}

/* The directory holding the non-directory fd (st), checked to hold it
 * under the name the kernel gives it, or -1. */
static int
parent_of_file(int fd, const struct stat *st)
{
	char proc[64], path[PATH_MAX];
	struct stat sb;
	ssize_t n;
	char *slash;
	int dir;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, path, sizeof(path) - 1);
	if (n <= 0 || path[0] != '/')
		return -1;
	path[n] = '\0';
	if (sbx_str_has_suffix(path, " (deleted)"))
		return -1;
	slash = strrchr(path, '/');
	*slash = '\0';
	dir = open(slash == path ? "/" : path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	/* Renamed or swapped since: the name no longer leads to fd. */
	if (fstatat(dir, slash + 1, &sb, AT_SYMLINK_NOFOLLOW) < 0 || sb.st_dev != st->st_dev ||
	    sb.st_ino != st->st_ino) {
		close(dir);
		return -1;
	}
	return dir;
}

/* sbx_metasup_guarded() for fd, whose status is st. parent (taken, or
 * -1) is the directory the caller named fd's file in, by name: when that
 * entry is fd's file itself (a non-directory), the walk up starts there,
 * without looking for the file's directory through its path. */
static bool
guarded_at(const struct sbx_meta_ctx *m, int fd, struct stat st, int parent, const char *name,
    unsigned what, bool *top, const char **reason)
{
	const unsigned up = what & (SBX_GUARD_HIDDEN | SBX_GUARD_PROTECT);
	char rel[256] = "";
	struct stat pst;
	unsigned hit;
	int cur = -1;

	*top = false;
	if ((hit = guard_match(m, &st, what)) != 0 || up == 0 ||
	    (*top = guard_match(m, &st, GUARD_TOP) != 0)) {
		if (parent >= 0)
			close(parent);
		if (hit)
			*reason = guard_reason(hit);
		return hit != 0;
	}
	/* The walk starts at cur (its first ancestor is cur itself, "") or,
	 * for a directory, at fd (its first ancestor is ".."). */
	if (S_ISDIR(st.st_mode)) {
		cur = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		strlcpy(rel, "..", sizeof(rel));
	} else if (parent >= 0 && fstatat(parent, name, &pst, AT_SYMLINK_NOFOLLOW) == 0 &&
	    pst.st_dev == st.st_dev && pst.st_ino == st.st_ino) {
		cur = parent;
		parent = -1;
	} else {
		cur = parent_of_file(fd, &st);
	}
	if (parent >= 0)
		close(parent);
	/* Up through the real ancestors (".." crosses mount points upwards)
	 * to the root, the one directory that is its own parent. Each is
	 * looked at as cur/.., cur/../.., ...: the kernel resolves each ".."
	 * from cur, so nothing is opened or closed on the way; a path that
	 * would grow past rel starts again from the ancestor reached. */
	for (int depth = 0; cur >= 0 && depth < 4096; depth++) {
		size_t n = strlen(rel);

		if (fstatat(cur, rel, &pst, n ? 0 : AT_EMPTY_PATH) < 0)
			break;
		if ((hit = guard_match(m, &pst, up)) != 0) {
			close(cur);
			*reason = guard_reason(hit);
			return true;
		}
		if ((*top = guard_match(m, &pst, GUARD_TOP) != 0) ||
		    (pst.st_dev == st.st_dev && pst.st_ino == st.st_ino)) {
			close(cur);
			return false;
		}
		st = pst;
		if (n + 4 >= sizeof(rel)) {
			int next = openat(cur, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
			struct stat nst;

			close(cur);
			cur = next;
			/* Moved meanwhile: not the ancestor just judged. */
			if (cur >= 0 &&
			    (fstat(cur, &nst) < 0 || nst.st_dev != st.st_dev ||
				nst.st_ino != st.st_ino))
				break;
			n = 0;
		}
		memcpy(rel + n, n ? "/.." : "..", n ? 4 : 3);
	}
	if (cur >= 0)
		close(cur);
	*reason = "a path whose place cannot be told";
	return true;
}

bool
sbx_metasup_guarded(const struct sbx_meta_ctx *m, int fd, unsigned what, const char **reason)
{
	struct stat st;
	bool top;

	if (m->nids == 0)
		return false;
	if (fstat(fd, &st) < 0) {
		*reason = "a path whose place cannot be told";
		return true;
	}
	return guarded_at(m, fd, st, -1, NULL, what, &top, reason);
}

static int
read_times(int pid, const struct meta *m, struct timespec ts[2])
{
	if (m->times == 0)
		return 1; /* "now" */
	if (m->times_kind == 0)
		return sbx_notify_peek(pid, m->times, ts, 2 * sizeof(*ts));
	if (m->times_kind == 1) {
		struct timeval tv[2];

		if (sbx_notify_peek(pid, m->times, tv, sizeof(tv)) < 0)
			return -1;
		for (int i = 0; i < 2; i++) {
			ts[i].tv_sec = tv[i].tv_sec;
			ts[i].tv_nsec = tv[i].tv_usec * 1000;
		}
		return 0;
	}
	{
		struct utimbuf ub;

		if (sbx_notify_peek(pid, m->times, &ub, sizeof(ub)) < 0)
			return -1;
		ts[0] = (struct timespec){ .tv_sec = ub.actime };
		ts[1] = (struct timespec){ .tv_sec = ub.modtime };
		return 0;
	}
}

/* Makes the change on fd (a real descriptor or O_PATH); -errno or >= 0. */
static int64_t
apply(const struct meta *m, int fd, bool real_fd, const struct timespec *ts, const char *name,
    const void *value)
{
	char proc[64];
	int r = -1;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	switch (m->kind) {
	case META_MODE:
		r = real_fd ? fchmod(fd, (mode_t)m->mode) : chmod(proc, (mode_t)m->mode);
		break;
	case META_OWNER: r = fchownat(fd, "", (uid_t)m->uid, (gid_t)m->gid, AT_EMPTY_PATH); break;
	case META_TIMES: r = utimensat(AT_FDCWD, proc, ts, 0); break;
	case META_XSET:
		r = real_fd ? fsetxattr(fd, name, value, m->size, (int)m->flags)
			    : setxattr(proc, name, value, m->size, (int)m->flags);
		break;
	case META_XREMOVE: r = real_fd ? fremovexattr(fd, name) : removexattr(proc, name); break;
	}
	return r < 0 ? -errno : r;
}

/* Whether a change on fd touches a path the plan keeps from the
 * sandbox's own calls: at or below a hidden or a protected path, or a
 * frozen directory itself (its entries are fixed, and so is who may
 * change them and how it looks). The walk up from fd is made with this
 * thread's filesystem ids, the sandbox's (doc/design/supervisor.md): it
 * stops at the root of the writable tree, and an ancestor those ids cannot
 * open counts as guarded, so the walk fails closed. */
static bool
meta_guarded(const struct sbx_meta_ctx *mc, int fd, const struct stat *st, int parent,
    const char *leaf, bool *top, const char **reason)
{
	*top = false;
	if (mc->nids == 0) {
		if (parent >= 0)
			close(parent);
		return false;
	}
	return guarded_at(mc, fd, *st, parent, leaf,
	    SBX_GUARD_HIDDEN | SBX_GUARD_PROTECT | SBX_GUARD_FROZEN, top, reason);
}

/* One allowed change, with everything it needs copied: applied later, on
 * a worker thread holding the sandbox's credentials. */
struct sbx_meta_op {
	struct meta m;
	int fd; /* O_PATH, or a real descriptor (real_fd) */
	bool real_fd;
	int parent; /* until judged: the directory the call named fd in, or -1 */
	char leaf[NAME_MAX + 1]; /* the name it gave there */
	char *given; /* the path as copied for the decision, or NULL */
	bool now; /* times: "now" */
	struct timespec ts[2];
	char name[XATTR_NAME_MAX + 1];
	void *value;
};

void
sbx_metasup_op_free(struct sbx_meta_op *op)
{
	if (op == NULL)
		return;
	if (op->fd >= 0)
		close(op->fd);
	if (op->parent >= 0)
		close(op->parent);
	free(op->given);
	free(op->value);
	free(op);
}

/* Only the user namespace of extended attributes may be set or removed
 * for the sandbox. The kernel judges security.* and trusted.* by
 * capability alone, not by the file's permissions (a file capability is
 * a security.capability value), and system.* carries ACLs: none of them
 * is the sandbox's to change, whoever makes the call. */
static bool
xattr_name_ok(const char *name)
{
	return strncmp(name, "user.", 5) == 0;
}

/* "chmod .git/hooks": the call's name and the path it named as copied
 * for the decision, or for a call on a descriptor where the copy of it
 * judged leads; never read again from the caller, who may have changed
 * its memory or its descriptor table since. */
static void
describe(const struct seccomp_notif *req, const struct sbx_meta_op *op, char *out, size_t size)
{
	_cleanup_free_ char *call =
	    seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, req->data.nr);
	char path[PATH_MAX], link[64];
	ssize_t n = 0;

	if (op->given == NULL && op->fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", op->fd);
		n = readlink(link, path, sizeof(path) - 1);
	}
	path[n > 0 ? n : 0] = '\0';
	sbx_denied_call(out, size, call ? call : "?", op->given ? op->given : path);
}

int
sbx_metasup_prepare(const struct sbx_meta_ctx *mc, int notify_fd, const struct seccomp_notif *req,
    struct sbx_meta_op **out, int *errnum, const char **reason, char *what, size_t what_size)
{
	struct sbx_meta_op *op = sbx_xcalloc(1, sizeof(*op));
	int pid = (int)req->pid, r = 0;
	uint64_t id = req->id;
	struct stat st;
	bool top;

	*out = NULL;
	*errnum = 0;
	*reason = NULL;
	op->fd = op->parent = -1;
	if (parse(req->data.nr, req->data.args, &op->m) < 0) {
		*errnum = ENOSYS;
		goto done;
	}
	/* Resolved with this thread's filesystem ids, which the supervisor's
	 * dispatcher holds as the sandbox's for good (netsup.c): search
	 * permissions judge the path as they would for the sandbox. */
	op->fd = open_target(pid, &op->m, &op->real_fd, &op->parent, op->leaf, &op->given, errnum);
	if (op->fd < 0)
		goto done;
	if (op->m.kind == META_TIMES) {
		r = read_times(pid, &op->m, op->ts);
		if (r < 0) {
			*errnum = EFAULT;
			goto done;
		}
		op->now = r > 0;
	}
	if ((op->m.kind == META_XSET || op->m.kind == META_XREMOVE) &&
	    peek_string(pid, op->m.name, op->name, sizeof(op->name)) < 0) {
		*errnum = ERANGE;
		goto done;
	}
	if (op->m.kind == META_XSET) {
		if (op->m.size > XATTR_SIZE_MAX) {
			*errnum = E2BIG;
			goto done;
		}
		op->value = sbx_xmalloc(op->m.size ? op->m.size : 1);
		if (sbx_notify_peek(pid, op->m.value, op->value, op->m.size) < 0) {
			*errnum = EFAULT;
			goto done;
		}
	}
	/* Everything is copied: is the caller still the one that trapped? */
	if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0) {
		sbx_metasup_op_free(op);
		return -1;
	}
	if (fstat(op->fd, &st) < 0) {
		*errnum = EPERM;
		*reason = "a path whose place cannot be told";
		goto done;
	}
	/* The walk up (it takes the parent) ends at the root of a writable
	 * tree, by identity, only for a target inside one: then the path
	 * need not be read. Anything else is refused, for the reason the
	 * path gives first. */
	r = meta_guarded(mc, op->fd, &st, op->parent, op->leaf, &top, reason);
	op->parent = -1;
	if (r || !top) {
		if (!sbx_metasup_in_writable(mc, op->fd)) {
			*errnum = EPERM;
			*reason = "metadata change outside the writable trees";
			goto done;
		}
		if (r) {
			*errnum = EPERM;
			goto done;
		}
		if (mc->nids > 0) {
			/* Below a writable tree's path, not its inode: the tree
			 * was moved or replaced since the start. */
			*errnum = EPERM;
			*reason = "metadata change outside the writable trees";
			goto done;
		}
	}
	if (!op->real_fd && op->m.nofollow && S_ISLNK(st.st_mode)) {
		*errnum = EPERM;
		*reason = "metadata change of a symlink";
		goto done;
	}
	if ((op->m.kind == META_XSET || op->m.kind == META_XREMOVE) && !xattr_name_ok(op->name)) {
		*errnum = EPERM;
		*reason = "extended attribute outside user.*";
		goto done;
	}
	*out = op;
	return 0;
done:
	if (*reason)
		describe(req, op, what, what_size);
	sbx_metasup_op_free(op);
	return 0;
}

bool
sbx_metasup_cannot_block(const struct sbx_meta_op *op)
{
	return sbx_fs_local(op->fd);
}

int64_t
sbx_metasup_apply(const struct sbx_meta_op *op)
{
	return apply(&op->m, op->fd, op->real_fd, op->now ? NULL : op->ts, op->name, op->value);
}
