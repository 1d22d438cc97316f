#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "launch.h"
#include "linux-owner.h"

typedef int (*visit_fn)(struct sbx_lease *l, int fd, const struct stat *st, struct sbx_err *err);

static int
cmp_entry(const void *a, const void *b)
{
	const struct sbx_lease_entry *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static void
push(struct sbx_lease_entry **v, size_t *n, const struct stat *st)
{
	*v = sbx_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct sbx_lease_entry){ st->st_dev, st->st_ino, st->st_gid };
}

static const struct sbx_lease_entry *
find(const struct sbx_lease_entry *v, size_t n, const struct stat *st)
{
	struct sbx_lease_entry key = { st->st_dev, st->st_ino, 0 };

	return n ? bsearch(&key, v, n, sizeof(*v), cmp_entry) : NULL;
}

/* Changing the owner of a file drops its capabilities (the kernel removes
 * security.capability): such a file is not lent, so it stays intact. */
static bool
has_file_caps(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return getxattr(path, "security.capability", NULL, 0) >= 0;
}

static bool
lendable(int fd, const struct stat *st)
{
	if (S_ISDIR(st->st_mode) || S_ISLNK(st->st_mode))
		return true;
	/* A second link may lie outside the tree; a set-id file must not
	 * be writable by the sandbox even for a while. */
	if (S_ISREG(st->st_mode))
		return st->st_nlink == 1 && !(st->st_mode & (S_ISUID | S_ISGID)) &&
		    !has_file_caps(fd);
	return false; /* devices, fifos and sockets are left alone */
}

static bool
skipped(const struct sbx_lease *l, const char *path)
{
	for (size_t i = 0; i < l->skip.n; i++)
		if (sbx_path_is_under(path, l->skip.v[i]))
			return true;
	return false;
}

/* Visits fd (an O_PATH descriptor of path, never a followed symlink) and,
 * for a directory, everything below it on the same filesystem. Each
 * entry is reopened by name relative to its parent's descriptor, so a
 * rename elsewhere in the tree cannot redirect the walk. */
static int
walk(struct sbx_lease *l, int fd, const char *path, const struct stat *st, visit_fn visit,
    int depth, struct sbx_err *err)
{
	struct dirent *de;
	DIR *d;
	int dfd, r = 0;

	if (st->st_dev != l->dev || skipped(l, path))
		return 0;
	if (visit(l, fd, st, err) < 0)
		return -1;
	if (!S_ISDIR(st->st_mode))
		return 0;
	if (depth > 256)
		return sbx_err_set(err, ELOOP, "%s: the tree is too deep", path);
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return sbx_err_sys(err, "cannot open %s", path);
	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return sbx_err_sys(err, "cannot read %s", path);
	}
	while (r == 0 && (de = readdir(d)) != NULL) {
		_cleanup_free_ char *cpath = NULL;
		struct stat cst;
		int cfd;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		cfd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			if (errno != ENOENT)
				r = sbx_err_sys(err, "cannot open %s/%s", path, de->d_name);
			continue;
		}
		cpath = sbx_path_join(path, de->d_name);
		if (fstat(cfd, &cst) < 0)
			r = sbx_err_sys(err, "cannot stat %s", cpath);
		else
			r = walk(l, cfd, cpath, &cst, visit, depth + 1, err);
		close(cfd);
	}
	closedir(d);
	return r;
}

static int
walk_root(struct sbx_lease *l, visit_fn visit, struct sbx_err *err)
{
	struct stat st;
	int fd = open(l->root, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return sbx_err_sys(err, "cannot open %s", l->root);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return sbx_err_sys(err, "cannot stat %s", l->root);
	}
	r = walk(l, fd, l->root, &st, visit, 0, err);
	close(fd);
	return r;
}

static int
visit_lend(struct sbx_lease *l, int fd, const struct stat *st, struct sbx_err *err)
{
	if (st->st_uid == l->to) {
		push(&l->native, &l->nnative, st);
		return 0;
	}
	if (st->st_uid != l->owner || !lendable(fd, st))
		return 0;
	/* The group stays: the sandbox writes as the owner. */
	if (fchownat(fd, "", l->to, (gid_t)-1, AT_EMPTY_PATH) < 0)
		return sbx_err_sys(
		    err, "cannot lend an entry of %s to uid %u", l->root, (unsigned)l->to);
	push(&l->lent, &l->nlent, st);
	return 0;
}

static int
visit_return(struct sbx_lease *l, int fd, const struct stat *st, struct sbx_err *err)
{
	const struct sbx_lease_entry *e;
	gid_t gid;

	if (st->st_uid != l->to || find(l->native, l->nnative, st) != NULL)
		return 0;
	e = find(l->lent, l->nlent, st);
	if (e != NULL)
		gid = e->gid;
	else
		gid = st->st_gid == l->to_gid ? l->owner_gid : (gid_t)-1;
	/* The kernel drops set-id bits on a change of owner (root's own
	 * chown included since Linux 2.2.13); the filter kept the sandbox
	 * from setting them anyway. */
	if (fchownat(fd, "", l->owner, gid, AT_EMPTY_PATH) == 0 && S_ISREG(st->st_mode) &&
	    (st->st_mode & (S_ISUID | S_ISGID))) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		chmod(path, st->st_mode & 0777);
	}
	return 0;
}

int
sbx_owner_lend(struct sbx_lease *l, const char *root, uid_t owner, gid_t owner_gid, uid_t to,
    gid_t to_gid, const struct sbx_strv *skip, struct sbx_err *err)
{
	struct stat st;

	memset(l, 0, sizeof(*l));
	if (stat(root, &st) < 0)
		return sbx_err_sys(err, "cannot stat %s", root);
	l->root = sbx_xstrdup(root);
	l->dev = st.st_dev;
	l->owner = owner;
	l->owner_gid = owner_gid;
	l->to = to;
	l->to_gid = to_gid;
	if (skip)
		sbx_strv_copy(&l->skip, skip);
	if (walk_root(l, visit_lend, err) < 0) {
		qsort(l->lent, l->nlent, sizeof(*l->lent), cmp_entry);
		qsort(l->native, l->nnative, sizeof(*l->native), cmp_entry);
		sbx_owner_return(l);
		return -1;
	}
	qsort(l->lent, l->nlent, sizeof(*l->lent), cmp_entry);
	qsort(l->native, l->nnative, sizeof(*l->native), cmp_entry);
	return 0;
}

void
sbx_owner_return(struct sbx_lease *l)
{
	struct sbx_err err = { 0 };

	if (l->root != NULL)
		walk_root(l, visit_return, &err); /* best effort: every entry it can */
	free(l->root);
	free(l->lent);
	free(l->native);
	sbx_strv_free(&l->skip);
	memset(l, 0, sizeof(*l));
}

/* In the throwaway child: the first prefix of path that ids cannot
 * search, or path itself when it cannot be used as a workdir. */
static noreturn void
reach_child(const char *path, uid_t uid, gid_t gid, int out)
{
	_cleanup_free_ char *copy = sbx_xstrdup(path);
	const char *bad = NULL;

	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		_exit(2);
	for (char *c = copy + 1; bad == NULL && (c = strchr(c, '/')) != NULL; c++) {
		*c = '\0';
		if (access(copy, X_OK) < 0)
			bad = copy;
		else
			*c = '/';
	}
	if (bad == NULL && access(path, R_OK | W_OK | X_OK) < 0)
		bad = path;
	if (bad == NULL)
		_exit(0);
	if (write(out, bad, strlen(bad)) < 0)
		_exit(2);
	_exit(1);
}

int
sbx_owner_check_reach(const char *path, uid_t uid, gid_t gid, struct sbx_err *err)
{
	char bad[4096];
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	pid = sbx_fork_piped(fds, err);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		reach_child(path, uid, gid, fds[1]);
	}
	close(fds[1]);
	do
		n = read(fds[0], bad, sizeof(bad) - 1);
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || n <= 0)
		return sbx_err_set(
		    err, EPERM, "cannot take uid %u to check %s", (unsigned)uid, path);
	bad[n] = '\0';
	if (strcmp(bad, path) == 0)
		return sbx_err_set(
		    err, EACCES, "uid %u cannot read, write and enter %s", (unsigned)uid, path);
	return sbx_err_set(err, EACCES,
	    "uid %u cannot reach %s: %s is not searchable by it "
	    "(chmod o+x would let it through)",
	    (unsigned)uid, path, bad);
}
