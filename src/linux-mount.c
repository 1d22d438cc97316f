#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-mount.h"
#include "util.h"

/* Where the new root is assembled and where the old one stays reachable
 * meanwhile; both live in a private tmpfs mounted over /tmp of our own
 * mount namespace (the host's /tmp is untouched). */
#define BASE "/tmp"
#define NEWROOT "/newroot"
#define OLDROOT "/oldroot"

static enum sbx_file_kind
host_kind(void *ctx, const char *path, char **target)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return SBX_KIND_NONE;
	if (S_ISLNK(st.st_mode)) {
		if (target) {
			char buf[4096];
			ssize_t n = readlink(path, buf, sizeof(buf) - 1);

			if (n < 0)
				return SBX_KIND_NONE;
			buf[n] = '\0';
			*target = sbx_xstrdup(buf);
		}
		return SBX_KIND_SYMLINK;
	}
	return S_ISDIR(st.st_mode) ? SBX_KIND_DIR : SBX_KIND_FILE;
}

static int
host_list(void *ctx, const char *dir, struct sbx_strv *names)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		sbx_strv_push(names, de->d_name);
	}
	closedir(d);
	return 0;
}

static bool
host_sealed(void *ctx, const char *path)
{
	const struct sbx_host_ids *ids = ctx;
	struct stat st;
	mode_t other;

	if (ids == NULL || stat(path, &st) < 0)
		return false;
	if (st.st_uid == ids->uid)
		return false;
	other = S_ISDIR(st.st_mode) ? (S_IROTH | S_IXOTH) : S_IROTH;
	if (st.st_mode & other)
		return false;
	if (st.st_gid == ids->gid && (st.st_mode & (other << 3)))
		return false;
	for (int i = 0; i < ids->ngroups; i++)
		if (st.st_gid == ids->groups[i] && (st.st_mode & (other << 3)))
			return false;
	return true;
}

void
sbx_host_facts_init(struct sbx_fsfacts *facts, const struct sbx_host_ids *ids)
{
	*facts = (struct sbx_fsfacts){
		.ctx = (void *)ids,
		.kind = host_kind,
		.list = host_list,
		.sealed = host_sealed,
	};
}

void
sbx_host_ids_for(struct sbx_host_ids *ids, uid_t caller_uid, gid_t caller_gid, uid_t root_mapped)
{
	memset(ids, 0, sizeof(*ids));
	if (caller_uid == 0) {
		ids->uid = root_mapped;
		ids->gid = (gid_t)root_mapped;
		return;
	}
	ids->uid = caller_uid;
	ids->gid = caller_gid;
	ids->ngroups = getgroups((int)SBX_ARRAY_LEN(ids->groups), ids->groups);
	if (ids->ngroups < 0)
		ids->ngroups = 0;
}

/* mkdir -p inside the new root's own tmpfs (no symlinks there but ours). */
static int
mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *copy = sbx_xstrdup(path);

	for (char *c = copy + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST)
			return -1;
		*c = '/';
	}
	if (mkdir(copy, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int
make_parent(const char *path)
{
	_cleanup_free_ char *copy = sbx_xstrdup(path);
	char *slash = strrchr(copy, '/');

	if (slash == NULL || slash == copy)
		return 0;
	*slash = '\0';
	return mkdir_p(copy, 0755);
}

/* Creates a missing mount target inside the workdir, one component at a
 * time and never through a symlink, so that a link planted in the workdir
 * cannot send a mount elsewhere. */
static int
make_target_nofollow(const char *path, bool is_file, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(path);
	_cleanup_close_ int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL, *name = strtok_r(copy, "/", &save);

	while (name != NULL) {
		char *next = strtok_r(NULL, "/", &save);
		int fd;

		if (next == NULL && is_file) {
			fd = openat(dir, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (fd < 0)
				return sbx_err_sys(err, "cannot create the mount target %s", path);
			close(fd);
			return 0;
		}
		if (mkdirat(dir, name, 0755) < 0 && errno != EEXIST)
			return sbx_err_sys(err, "cannot create the mount target %s", path);
		fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return sbx_err_sys(
			    err, "mount target %s: a component is not a directory", path);
		close(dir);
		dir = fd;
		name = next;
	}
	return 0;
}

static int
ensure_target(const char *dst, bool is_file, struct sbx_err *err)
{
	struct stat st;

	if (lstat(dst, &st) == 0)
		return 0;
	if (make_parent(dst) < 0)
		return sbx_err_sys(err, "cannot create %s", dst);
	if (is_file) {
		int fd = open(dst, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);

		if (fd < 0)
			return sbx_err_sys(err, "cannot create %s", dst);
		close(fd);
		return 0;
	}
	if (mkdir(dst, 0755) < 0 && errno != EEXIST)
		return sbx_err_sys(err, "cannot create %s", dst);
	return 0;
}

static int
set_attr(const char *path, uint64_t set, bool recursive, struct sbx_err *err)
{
	struct mount_attr attr = { .attr_set = set };

	if (mount_setattr(AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr, sizeof(attr)) < 0)
		return sbx_err_sys(err, "cannot set the mount flags of %s", path);
	return 0;
}

static char *
inside(const char *root, const char *path)
{
	if (strcmp(path, "/") == 0)
		return sbx_xstrdup(root);
	return sbx_xasprintf("%s%s", root, path);
}

static int
do_op(const struct sbx_op *op, const int *tree_fds, struct sbx_err *err)
{
	_cleanup_free_ char *dst = inside(NEWROOT, op->dst);
	_cleanup_free_ char *src = NULL;
	_cleanup_free_ char *opts = NULL;
	bool is_file = op->flags & SBX_OPF_FILE;
	bool in_dev = sbx_path_is_under(op->dst, "/dev");
	uint64_t flags;

	switch (op->kind) {
	case SBX_OP_BIND:
		src = op->flags & SBX_OPF_SELF ? sbx_xstrdup(dst) : inside(OLDROOT, op->src);
		if (op->flags & SBX_OPF_MKTARGET) {
			if (make_target_nofollow(dst, is_file, err) < 0)
				return -1;
		} else if (ensure_target(dst, is_file, err) < 0) {
			return -1;
		}
		if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
			return sbx_err_sys(err, "cannot bind %s at %s", op->src, op->dst);
		flags = MOUNT_ATTR_NOSUID | (in_dev ? 0 : MOUNT_ATTR_NODEV);
		if (op->flags & SBX_OPF_RO)
			flags |= MOUNT_ATTR_RDONLY;
		return set_attr(dst, flags, true, err);
	case SBX_OP_ATTACH:
		if (op->flags & SBX_OPF_MKTARGET) {
			if (make_target_nofollow(dst, is_file, err) < 0)
				return -1;
		} else if (ensure_target(dst, is_file, err) < 0) {
			return -1;
		}
		if (move_mount(tree_fds[op->tree], "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return sbx_err_sys(err, "cannot attach %s at %s", op->src, op->dst);
		return 0;
	case SBX_OP_TMPFS:
		if (op->flags & SBX_OPF_MKTARGET) {
			if (make_target_nofollow(dst, false, err) < 0)
				return -1;
		} else if (ensure_target(dst, false, err) < 0) {
			return -1;
		}
		opts = sbx_xasprintf("mode=%04o", op->mode);
		if (mount("tmpfs", dst, "tmpfs",
			MS_NOSUID | MS_NODEV | (op->flags & SBX_OPF_NOEXEC ? MS_NOEXEC : 0),
			opts) < 0)
			return sbx_err_sys(err, "cannot mount a tmpfs at %s", op->dst);
		return 0;
	case SBX_OP_SYMLINK:
		if (make_parent(dst) < 0 || (symlink(op->src, dst) < 0 && errno != EEXIST))
			return sbx_err_sys(err, "cannot create the symlink %s", op->dst);
		return 0;
	case SBX_OP_MKDIR:
		if (mkdir_p(dst, 0755) < 0)
			return sbx_err_sys(err, "cannot create %s", op->dst);
		return 0;
	case SBX_OP_PROC:
		if (ensure_target(dst, false, err) < 0)
			return -1;
		if (mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			return sbx_err_sys(err, "cannot mount /proc");
		return 0;
	case SBX_OP_DEVPTS:
		if (ensure_target(dst, false, err) < 0)
			return -1;
		if (mount("devpts", dst, "devpts", MS_NOSUID | MS_NOEXEC,
			"newinstance,ptmxmode=0666,mode=620") < 0)
			return sbx_err_sys(err, "cannot mount devpts");
		return 0;
	case SBX_OP_HIDE:
		/* Out of the sandbox's reach already (this process holds the
		 * sandbox's ids by now): file permissions hide it, and the
		 * sandbox cannot change them on a directory it does not own. */
		if (access(dst, F_OK) < 0 && errno == EACCES)
			return 0;
		/* An empty directory or file, mode 000, on a read-only mount:
		 * nothing to read, and no chmod to undo it. */
		if (is_file) {
			src = sbx_xstrdup("/hidden-file");
			if (ensure_target(src, true, err) < 0 || chmod(src, 0) < 0)
				return sbx_err_sys(err, "cannot prepare a hiding file");
			if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
				return sbx_err_sys(err, "cannot hide %s", op->dst);
		} else if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			       "mode=0000,size=4k") < 0) {
			return sbx_err_sys(err, "cannot hide %s", op->dst);
		}
		return set_attr(dst,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		    false, err);
	case SBX_OP_REMOUNT_RO: return set_attr(dst, MOUNT_ATTR_RDONLY, false, err);
	}
	return sbx_err_set(err, EINVAL, "unknown mount operation");
}

int
sbx_mount_build_root(const struct sbx_plan *plan, const int *tree_fds, struct sbx_err *err)
{
	/* Nothing we mount may propagate back to the host. Failing this
	 * first step means the namespace gives no power at all (as under
	 * distributions that restrict unprivileged user namespaces): ENOSYS
	 * says "unavailable" rather than "this plan is wrong". */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		sbx_err_sys(err, "cannot make the mount namespace private");
		err->errnum = ENOSYS;
		return -1;
	}
	if (mount("tmpfs", BASE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		return sbx_err_sys(err, "cannot mount the base tmpfs");
	if (chdir(BASE) < 0 || mkdir("newroot", 0755) < 0 || mkdir("oldroot", 0755) < 0)
		return sbx_err_sys(err, "cannot prepare the new root");
	if (mount("tmpfs", "newroot", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		return sbx_err_sys(err, "cannot mount the new root");
	/* The old root stays reachable at /oldroot while binding from it. */
	if (syscall(SYS_pivot_root, ".", "oldroot") < 0)
		return sbx_err_sys(err, "pivot_root");
	if (chdir("/") < 0)
		return sbx_err_sys(err, "chdir /");
	for (size_t i = 0; i < plan->nops; i++)
		if (do_op(&plan->ops[i], tree_fds, err) < 0)
			return -1;
	/* Into the new root; the old one (with the base) goes away. */
	if (chdir(NEWROOT) < 0)
		return sbx_err_sys(err, "chdir to the new root");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return sbx_err_sys(err, "pivot_root into the new root");
	if (umount2(".", MNT_DETACH) < 0)
		return sbx_err_sys(err, "cannot detach the old root");
	if (chdir("/") < 0)
		return sbx_err_sys(err, "chdir /");
	return 0;
}

int
sbx_mount_clone_tree(const struct sbx_tree *t, int userns_fd, struct sbx_err *err)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID };
	int fd = open_tree(AT_FDCWD, t->src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	if (fd < 0)
		return sbx_err_sys(err, "cannot clone the mount tree of %s", t->src);
	if (!t->dev)
		attr.attr_set |= MOUNT_ATTR_NODEV;
	if (t->flags & SBX_OPF_RO)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (t->idmap) {
		attr.attr_set |= MOUNT_ATTR_IDMAP;
		attr.userns_fd = (uint64_t)userns_fd;
	}
	if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0) {
		if (t->idmap)
			sbx_err_sys(
			    err, "cannot give %s to the sandbox's uid (idmapped mount)", t->src);
		else
			sbx_err_sys(err, "cannot set the mount flags of %s", t->src);
		close(fd);
		return -1;
	}
	return fd;
}
