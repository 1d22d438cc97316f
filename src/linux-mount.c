#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-mount.h"
#include "util.h"

/* What init holds while it builds the new root: the new root's tmpfs
 * (attached over the old root, see sbx_mount_build_root), the old root, and
 * the empty file hidden files are covered with, made at the first need. */
struct build {
	int root;
	int oldroot;
	int hidden;
	char hidden_name[24];
	const struct sbx_fsview *fs;
	const int *tree_fds;
};

/* A path of the plan (absolute, inside the jail) relative to the new
 * root's descriptor. */
static const char *
rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

/* mkdir -p inside the new root's own tmpfs (no symlinks there but ours).
 * The whole path is tried first: the parents exist for most of the plan's
 * entries, and making them again would cost a failed mkdir each. */
static int
mkdir_p(int root, const char *path, mode_t mode)
{
	_cleanup_free_ char *copy = NULL;

	if (mkdirat(root, path, mode) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	copy = sbx_xstrdup(path);
	for (char *c = copy + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdirat(root, copy, mode) < 0 && errno != EEXIST)
			return -1;
		*c = '/';
	}
	if (mkdirat(root, copy, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int
make_parent(int root, const char *path)
{
	_cleanup_free_ char *copy = sbx_xstrdup(path);
	char *slash = strrchr(copy, '/');

	if (slash == NULL || slash == copy)
		return 0;
	*slash = '\0';
	return mkdir_p(root, copy, 0755);
}

/* Creates a missing mount target inside the workdir, one component at a
 * time and never through a symlink, so that a link planted in the workdir
 * (by a second sandbox on it) cannot send a mount elsewhere; a file is
 * made exclusively, so a FIFO put in its place is never opened. Returns
 * the target, opened with O_PATH. */
static int
make_target_nofollow(int root, const char *path, bool is_file, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(path);
	int dir = openat(root, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL, *name = strtok_r(copy, "/", &save);

	if (dir < 0)
		return sbx_err_sys(err, "cannot open the new root");
	while (name != NULL) {
		char *next = strtok_r(NULL, "/", &save);
		bool file = next == NULL && is_file;
		struct stat st;
		int fd;

		if (file) {
			fd = openat(
			    dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
			else if (errno != EEXIST)
				goto fail;
		} else if (mkdirat(dir, name, 0755) < 0 && errno != EEXIST) {
			goto fail;
		}
		fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		close(dir);
		dir = fd;
		if (fstat(dir, &st) < 0)
			goto fail;
		if (file ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode)) {
			close(dir);
			return sbx_err_set(err, ENOTDIR, "mount target %s: %s is not a %s", path,
			    name, file ? "regular file" : "directory");
		}
		name = next;
	}
	return dir;
fail:
	sbx_err_sys(err, "cannot create the mount target %s", path);
	close(dir);
	return -1;
}

/* Makes dst (a directory, or an empty file) in the new root unless
 * something is there already, whatever it is. Made first and its parents
 * only when that fails with ENOENT: an entry that exists fails with
 * EEXIST, as O_EXCL makes open(2) do for a file (and for a symlink, which
 * it does not follow), before any other check of the kernel's. A file is
 * made with openat2() beneath root, following no symlink, so that its
 * descriptor, left in *made, is the very target and needs no second
 * lookup; without openat2 it is made with openat(2) and *made stays -1. */
static int
make_one(int root, const char *r, bool is_file, int *made)
{
	struct open_how how = { .flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		.mode = 0644,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd;

	*made = -1;
	if (!is_file)
		return mkdirat(root, r, 0755);
	fd = (int)syscall(SYS_openat2, root, r, &how, sizeof(how));
	if (fd >= 0) {
		*made = fd;
		return 0;
	}
	if (errno != ENOSYS && errno != EPERM)
		return -1;
	fd = openat(root, r, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* *made: as make_one() leaves it. */
static int
ensure_target(int root, const char *dst, bool is_file, int *made, struct sbx_err *err)
{
	const char *r = rel(dst);
	struct stat st;

	if (make_one(root, r, is_file, made) == 0 || errno == EEXIST)
		return 0;
	if (errno == ENOENT) {
		if (make_parent(root, r) < 0)
			return sbx_err_sys(err, "cannot create %s", dst);
		if (make_one(root, r, is_file, made) == 0 || errno == EEXIST)
			return 0;
	}
	if (fstatat(root, r, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	return sbx_err_sys(err, "cannot create %s", dst);
}

/* Where op mounts, opened once without following anything from the new
 * root down: below the workdir every component is the sandbox's. */
static int
open_target(int root, const char *dst, unsigned flags, struct sbx_err *err)
{
	int fd, made;

	if (flags & SBX_OPF_MKTARGET)
		return make_target_nofollow(root, dst, flags & SBX_OPF_FILE, err);
	if (ensure_target(root, dst, flags & SBX_OPF_FILE, &made, err) < 0)
		return -1;
	if (made >= 0)
		return made;
	fd = sbx_open_nofollow(root, rel(dst), NULL);
	if (fd < 0)
		return sbx_err_sys(err, "mount target %s", dst);
	return fd;
}

/* Attaches the detached tree at the target descriptor. */
static int
attach(int tree, int target, const char *what, const char *dst, struct sbx_err *err)
{
	if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return sbx_err_sys(err, "cannot attach %s at %s", what, dst);
	return 0;
}

/* A new filesystem, detached, with the new mount API (fsopen, fsconfig,
 * fsmount): mount(2) would need a path, and reaching the target by a
 * working directory needs search permission on it, which the sandbox's ids
 * lack on a directory they must hide (a 0700 ~/.ssh of another owner).
 * opts is "key=value,flag,...". */
static int
new_fs(const char *type, unsigned long flags, const char *opts)
{
	_cleanup_close_ int fs = -1;
	_cleanup_free_ char *copy = sbx_xstrdup(opts ? opts : "");
	char *save = NULL;
	unsigned attr = 0;

	fs = fsopen(type, FSOPEN_CLOEXEC);
	if (fs < 0)
		return -1;
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(o, '=');
		int r;

		if (eq) {
			*eq = '\0';
			r = fsconfig(fs, FSCONFIG_SET_STRING, o, eq + 1, 0);
		} else {
			r = fsconfig(fs, FSCONFIG_SET_FLAG, o, NULL, 0);
		}
		if (r < 0)
			return -1;
	}
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -1;
	if (flags & MS_RDONLY)
		attr |= MOUNT_ATTR_RDONLY;
	if (flags & MS_NOSUID)
		attr |= MOUNT_ATTR_NOSUID;
	if (flags & MS_NODEV)
		attr |= MOUNT_ATTR_NODEV;
	if (flags & MS_NOEXEC)
		attr |= MOUNT_ATTR_NOEXEC;
	return fsmount(fs, FSMOUNT_CLOEXEC, attr);
}

/* A new filesystem mounted on the target descriptor (see new_fs). */
static int
mount_on(int target, const char *type, unsigned long flags, const char *opts)
{
	_cleanup_close_ int mnt = new_fs(type, flags, opts);

	if (mnt < 0)
		return -1;
	return move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

/* A detached copy of the tree at src, with flags set on all of it,
 * private (see sbx_mount_clone_tree). */
static int
clone_from(int src, uint64_t set, const char *what, struct sbx_err *err)
{
	struct mount_attr attr = { .attr_set = set, .propagation = MS_PRIVATE };
	int tree =
	    open_tree(src, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	if (tree < 0)
		return sbx_err_sys(err, "cannot clone the mount tree of %s", what);
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0) {
		sbx_err_sys(err, "cannot set the mount flags of %s", what);
		close(tree);
		return -1;
	}
	return tree;
}

/* The source of a bind: a host path under the old root, opened without
 * following, and when resolve pinned it, the very object it checked. */
static int
open_source(const struct sbx_op *op, const struct build *b, struct sbx_err *err)
{
	const struct sbx_pin *pin = b->fs ? sbx_fsview_pin(b->fs, op->src) : NULL;
	struct stat st;
	int fd;

	if (op->flags & SBX_OPF_SELF)
		fd = sbx_open_nofollow(b->root, rel(op->dst), &st);
	else
		fd = sbx_open_nofollow(b->oldroot, rel(op->src), &st);
	if (fd < 0)
		return sbx_err_sys(err, "cannot bind %s", op->src);
	if (pin && !sbx_same_file(&st, &pin->st)) {
		close(fd);
		return sbx_err_set(
		    err, ESTALE, "%s changed after it was checked; refusing to mount it", op->src);
	}
	return fd;
}

/* The file a hidden file is covered with: empty, mode 000 (the mode given
 * to O_CREAT, which the umask only narrows), owned by the sandbox's ids
 * (init holds them by now). Its mounts are read-only, so no chmod undoes
 * it. A mount whose root has no name cannot be attached (an O_TMPFILE
 * file fails with ENOENT), so it is made with a name in the new root and
 * the name is removed once the hides are done (drop_hidden). Every entry
 * of the new root's top level exists by the first hide (the plan sorts
 * by depth, and binds and symlinks before hides at the same depth), so a
 * name taken is one of the plan's (a host /.sbx-hidden under --fs open):
 * the next one is tried. */
static int
hidden_file(struct build *b)
{
	for (int i = 0; b->hidden < 0 && i < 8; i++) {
		if (i == 0)
			snprintf(b->hidden_name, sizeof(b->hidden_name), ".sbx-hidden");
		else
			snprintf(b->hidden_name, sizeof(b->hidden_name), ".sbx-hidden.%d", i);
		b->hidden = openat(b->root, b->hidden_name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0);
		if (b->hidden < 0 && errno != EEXIST)
			break;
	}
	return b->hidden;
}

/* Removes the name of the hiding file from the new root before the new
 * root turns read-only (the plan sorts every read-only remount after the
 * ops that cover paths), so the jail's / lists only what the plan put
 * there; the mounts made from it keep the file. */
static int
drop_hidden(struct build *b, struct sbx_err *err)
{
	if (b->hidden < 0)
		return 0;
	close(b->hidden);
	b->hidden = -1;
	if (unlinkat(b->root, b->hidden_name, 0) < 0)
		return sbx_err_sys(err, "cannot remove the hiding file");
	return 0;
}

static int
do_op(const struct sbx_op *op, struct build *b, struct sbx_err *err)
{
	const char *dst = op->dst;
	_cleanup_close_ int target = -1, src = -1, tree = -1;
	bool is_file = op->flags & SBX_OPF_FILE;
	bool in_dev = sbx_path_is_under(op->dst, "/dev");
	uint64_t flags;
	struct mount_attr attr = { 0 };

	switch (op->kind) {
	case SBX_OP_BIND:
		flags = MOUNT_ATTR_NOSUID | (in_dev ? 0 : MOUNT_ATTR_NODEV);
		if (op->flags & SBX_OPF_RO)
			flags |= MOUNT_ATTR_RDONLY;
		if (((op->flags & SBX_OPF_SELF) == 0 || (op->flags & SBX_OPF_MKTARGET)) &&
		    (target = open_target(b->root, dst, op->flags, err)) < 0)
			return -1;
		if ((src = open_source(op, b, err)) < 0 ||
		    (tree = clone_from(src, flags, op->src, err)) < 0)
			return -1;
		return attach(tree, target >= 0 ? target : src, op->src, op->dst, err);
	case SBX_OP_ATTACH:
		if ((target = open_target(b->root, dst, op->flags, err)) < 0)
			return -1;
		return attach(b->tree_fds[op->tree], target, op->src, op->dst, err);
	case SBX_OP_TMPFS: {
		_cleanup_free_ char *opts = op->size
		    ? sbx_xasprintf("mode=%04o,size=%" PRIu64, op->mode, op->size)
		    : sbx_xasprintf("mode=%04o", op->mode);

		if ((target = open_target(b->root, dst, op->flags & ~SBX_OPF_FILE, err)) < 0)
			return -1;
		if (mount_on(target, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
			return sbx_err_sys(err, "cannot mount a tmpfs at %s", op->dst);
		return 0;
	}
	case SBX_OP_SYMLINK:
		/* As in ensure_target: the parents only when missing. */
		if (symlinkat(op->src, b->root, rel(dst)) == 0 || errno == EEXIST)
			return 0;
		if (errno != ENOENT || make_parent(b->root, rel(dst)) < 0 ||
		    (symlinkat(op->src, b->root, rel(dst)) < 0 && errno != EEXIST))
			return sbx_err_sys(err, "cannot create the symlink %s", op->dst);
		return 0;
	case SBX_OP_MKDIR:
		if (mkdir_p(b->root, rel(dst), 0755) < 0)
			return sbx_err_sys(err, "cannot create %s", op->dst);
		return 0;
	case SBX_OP_PROC:
		if ((target = open_target(b->root, dst, 0, err)) < 0)
			return -1;
		if (mount_on(target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			return sbx_err_sys(err, "cannot mount /proc");
		return 0;
	case SBX_OP_DEVPTS:
		if ((target = open_target(b->root, dst, 0, err)) < 0)
			return -1;
		if (mount_on(target, "devpts", MS_NOSUID | MS_NOEXEC,
			"newinstance,ptmxmode=0666,mode=620") < 0)
			return sbx_err_sys(err, "cannot mount devpts");
		return 0;
	case SBX_OP_HIDE:
		/* Out of the sandbox's reach already (this process holds the
		 * sandbox's ids by now): file permissions hide it, and the
		 * sandbox cannot change them on a directory it does not own. */
		if (faccessat(b->root, rel(dst), F_OK, 0) < 0 && errno == EACCES)
			return 0;
		target = sbx_open_nofollow(b->root, rel(dst), NULL);
		/* Gone since the list was made (a temp file in /etc, say):
		 * nothing is left to read, as if the run had started a moment
		 * later and its glob had not matched it. */
		if (target < 0 && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		if (target < 0)
			return sbx_err_sys(err, "cannot hide %s", op->dst);
		/* An empty directory or file, mode 000, on a read-only mount:
		 * nothing to read, and no chmod to undo it. */
		flags =
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
		if (is_file) {
			if (hidden_file(b) < 0 ||
			    (tree = clone_from(b->hidden, flags, op->dst, err)) < 0)
				return sbx_err_sys(err, "cannot hide %s", op->dst);
			return attach(tree, target, "an empty file", op->dst, err);
		}
		if (mount_on(target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			"mode=0000,size=4k") < 0)
			return sbx_err_sys(err, "cannot hide %s", op->dst);
		return 0;
	case SBX_OP_REMOUNT_RO:
		if (drop_hidden(b, err) < 0)
			return -1;
		target = sbx_open_nofollow(b->root, rel(dst), NULL);
		attr.attr_set = MOUNT_ATTR_RDONLY;
		if (target < 0 || mount_setattr(target, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
			return sbx_err_sys(err, "cannot set the mount flags of %s", dst);
		return 0;
	}
	return sbx_err_set(err, EINVAL, "unknown mount operation");
}

int
sbx_mount_build_root(const struct sbx_plan *plan, const struct sbx_fsview *fs, const int *tree_fds,
    struct sbx_err *err)
{
	struct build b = {
		.root = -1, .oldroot = -1, .hidden = -1, .fs = fs, .tree_fds = tree_fds
	};
	int rc = -1;

	/* Nothing we mount may propagate back to the host. Failing this
	 * first step means the namespace gives no power at all (as under
	 * distributions that restrict unprivileged user namespaces): ENOSYS
	 * says "unavailable" rather than "this plan is wrong". */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		sbx_err_sys(err, "cannot make the mount namespace private");
		err->errnum = ENOSYS;
		return -1;
	}
	/* The new root is a tmpfs mounted over the old root's own root. A
	 * lookup starts at the process's root, which stays the old root's
	 * mount until pivot_root() (path_init() takes fs->root as it is and
	 * crosses only the mounts on the components it walks), so absolute
	 * names and b.oldroot still reach every host path, /tmp included,
	 * while the new root is reached through its descriptor alone. One
	 * pivot_root() and one tmpfs fewer than assembling it in a tmpfs of
	 * its own. */
	b.oldroot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (b.oldroot < 0) {
		sbx_err_sys(err, "cannot open the old root");
		goto out;
	}
	b.root = new_fs("tmpfs", MS_NOSUID | MS_NODEV, "source=tmpfs,mode=0755");
	if (b.root < 0 ||
	    move_mount(
		b.root, "", b.oldroot, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		sbx_err_sys(err, "cannot mount the new root");
		goto out;
	}
	for (size_t i = 0; i < plan->nops; i++)
		if (do_op(&plan->ops[i], &b, err) < 0)
			goto out;
	if (drop_hidden(&b, err) < 0)
		goto out;
	/* Into the new root: pivot_root(".", ".") puts the old root on top
	 * of it, and the detach takes the old root with every mount below
	 * it. */
	if (fchdir(b.root) < 0) {
		sbx_err_sys(err, "chdir to the new root");
		goto out;
	}
	if (syscall(SYS_pivot_root, ".", ".") < 0) {
		sbx_err_sys(err, "pivot_root into the new root");
		goto out;
	}
	if (umount2(".", MNT_DETACH) < 0) {
		sbx_err_sys(err, "cannot detach the old root");
		goto out;
	}
	if (chdir("/") < 0) {
		sbx_err_sys(err, "chdir /");
		goto out;
	}
	rc = 0;
out:
	if (b.hidden >= 0)
		close(b.hidden);
	if (b.root >= 0)
		close(b.root);
	if (b.oldroot >= 0)
		close(b.oldroot);
	return rc;
}

int
sbx_mount_clone_tree(
    const struct sbx_tree *t, const struct sbx_fsview *fs, int userns_fd, struct sbx_err *err)
{
	/* Private: a clone of a shared mount (a host whose / is shared, as
	 * under systemd) joins its peer group, so every mount the jail makes
	 * on top of it (a protected path's placeholder) would propagate to
	 * the host's mount and stay there after the run. */
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID, .propagation = MS_PRIVATE };
	const struct sbx_pin *pin = fs ? sbx_fsview_pin(fs, t->src) : NULL;
	_cleanup_close_ int own = -1;
	int fd;

	/* Never by name: the descriptor resolve checked (a workdir, a mount
	 * source), or the system path opened now following no link. */
	if (pin == NULL && (own = sbx_open_nofollow(AT_FDCWD, t->src, NULL)) < 0)
		return sbx_err_sys(err, "cannot open %s", t->src);
	fd = open_tree(pin ? pin->fd : own, "",
	    AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0)
		return sbx_err_sys(err, "cannot clone the mount tree of %s", t->src);
	if (!t->dev)
		attr.attr_set |= MOUNT_ATTR_NODEV;
	if (t->flags & SBX_OPF_RO)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0) {
		sbx_err_sys(err, "cannot set the mount flags of %s", t->src);
		close(fd);
		return -1;
	}
	/* The tree's own mount alone is idmapped: the mounts below it keep
	 * their real owners, so root's files there stay root's and the
	 * sandbox has only the rights "other" has (as the landlock lend,
	 * which never leaves the workdir's mount). */
	if (t->idmap) {
		struct mount_attr id = { .attr_set = MOUNT_ATTR_IDMAP,
			.userns_fd = (__u64)userns_fd };

		if (mount_setattr(fd, "", AT_EMPTY_PATH, &id, sizeof(id)) < 0) {
			sbx_err_sys(
			    err, "cannot give %s to the sandbox's uid (idmapped mount)", t->src);
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Opens rel beneath dir as O_PATH, following no symlink, never leaving
 * dir's mount; it must be the inode (dev, ino). */
static int
open_same_beneath(int dir, const char *rel, dev_t dev, ino_t ino)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve =
		    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct stat st;
	int fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

int
sbx_mount_cover(
    int tree, int host, const char *root, const struct sbx_cover *c, struct sbx_err *err)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
		.propagation = MS_PRIVATE,
	};
	_cleanup_close_ int src = -1, dst = -1, clone = -1;

	if ((src = open_same_beneath(host, c->rel, c->dev, c->ino)) < 0 ||
	    (dst = open_same_beneath(tree, c->rel, c->dev, c->ino)) < 0) {
		/* Gone or moved since the scan: the tree is scanned again. */
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV)
			errno = ESTALE;
		if (errno == ESTALE)
			return sbx_err_sys(err,
			    "%s changed during the scan (%s/%s is gone or another file now)", root,
			    root, c->rel);
		return sbx_err_sys(err, "cannot keep %s/%s from the sandbox", root, c->rel);
	}
	clone = open_tree(src, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (clone < 0 || mount_setattr(clone, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0 ||
	    move_mount(clone, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return sbx_err_sys(
		    err, "cannot keep %s/%s from the sandbox (a read-only mount)", root, c->rel);
	return 0;
}
