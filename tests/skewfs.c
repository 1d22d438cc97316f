/* A filesystem whose server's clock lags this machine's, for
 * tests/integration/attack-skewed-clock.sh:
 *
 *	skewfs [-l SECONDS] [-m] [-r MS] SOURCE MOUNTPOINT
 *
 * Mounts SOURCE at MOUNTPOINT through FUSE (default_permissions, no
 * attribute or entry caching; allow_other when run as root, else through
 * fusermount3 for the caller alone), passing every call
 * through and reporting every inode time SECONDS (default 3600) earlier
 * than SOURCE records it, as a network filesystem does whose server's
 * clock is behind: a change made now reads as made an hour ago. Times set
 * explicitly are stored that much later, so they read back as set. With
 * -m the change time reported is the modification time, as on
 * filesystems whose protocol has no change time: then a caller who can
 * set the modification time sets the change time too. Each call runs with
 * the calling process's uid and gid as its filesystem ids, so what a
 * caller makes is the caller's. With -r each read waits MS milliseconds
 * and files are read uncached (direct_io), as from a slow server
 * (attack-stdio.sh). Runs single-threaded and goes to the
 * background once the mount is up; unmount with umount or fusermount3 -u. */
#define FUSE_USE_VERSION 31

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int src = -1; /* SOURCE, O_PATH */
static time_t lag = 3600;
static int ctime_is_mtime;
static long read_delay_ms; /* -r: each read waits this long, uncached */

/* SOURCE-relative form of a FUSE path ("/" is SOURCE itself). */
static const char *
rel(const char *path)
{
	return path[1] ? path + 1 : ".";
}

/* Takes on the caller's filesystem ids for one call. */
static void
as_caller(void)
{
	struct fuse_context *c = fuse_get_context();

	setfsgid(c->gid);
	setfsuid(c->uid);
}

static int
ret(int r)
{
	int e = errno;

	setfsuid(0);
	setfsgid(0);
	return r < 0 ? -e : 0;
}

static void
skew(struct stat *st)
{
	st->st_atim.tv_sec -= lag;
	st->st_mtim.tv_sec -= lag;
	st->st_ctim.tv_sec -= lag;
	if (ctime_is_mtime)
		st->st_ctim = st->st_mtim;
}

static void *
fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->use_ino = 1;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->kernel_cache = 0;
	return NULL;
}

static int
fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	int r;

	as_caller();
	r = fi ? fstat((int)fi->fh, st) : fstatat(src, rel(path), st, AT_SYMLINK_NOFOLLOW);
	if (r == 0)
		skew(st);
	return ret(r);
}

static int
fs_readlink(const char *path, char *buf, size_t size)
{
	ssize_t n;

	as_caller();
	n = readlinkat(src, rel(path), buf, size - 1);
	if (n >= 0)
		buf[n] = '\0';
	return ret(n < 0 ? -1 : 0);
}

static int
fs_mknod(const char *path, mode_t mode, dev_t dev)
{
	as_caller();
	return ret(mknodat(src, rel(path), mode, dev));
}

static int
fs_mkdir(const char *path, mode_t mode)
{
	as_caller();
	return ret(mkdirat(src, rel(path), mode));
}

static int
fs_unlink(const char *path)
{
	as_caller();
	return ret(unlinkat(src, rel(path), 0));
}

static int
fs_rmdir(const char *path)
{
	as_caller();
	return ret(unlinkat(src, rel(path), AT_REMOVEDIR));
}

static int
fs_symlink(const char *target, const char *path)
{
	as_caller();
	return ret(symlinkat(target, src, rel(path)));
}

static int
fs_rename(const char *from, const char *to, unsigned int flags)
{
	as_caller();
	return ret((int)syscall(SYS_renameat2, src, rel(from), src, rel(to), flags));
}

static int
fs_link(const char *from, const char *to)
{
	as_caller();
	return ret(linkat(src, rel(from), src, rel(to), 0));
}

static int
fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	as_caller();
	return ret(fi ? fchmod((int)fi->fh, mode) : fchmodat(src, rel(path), mode, 0));
}

static int
fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	as_caller();
	return ret(fi ? fchown((int)fi->fh, uid, gid)
		      : fchownat(src, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW));
}

static int
fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	int fd, r;

	as_caller();
	if (fi)
		return ret(ftruncate((int)fi->fh, size));
	fd = openat(src, rel(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return ret(-1);
	r = ftruncate(fd, size);
	close(fd);
	return ret(r);
}

static int
fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct timespec t[2] = { tv[0], tv[1] };

	for (int i = 0; i < 2; i++)
		if (t[i].tv_nsec != UTIME_NOW && t[i].tv_nsec != UTIME_OMIT)
			t[i].tv_sec += lag;
	as_caller();
	return ret(
	    fi ? futimens((int)fi->fh, t) : utimensat(src, rel(path), t, AT_SYMLINK_NOFOLLOW));
}

static int
fs_open(const char *path, struct fuse_file_info *fi)
{
	int fd;

	as_caller();
	fd = openat(src, rel(path), (fi->flags & ~O_CREAT) | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		fi->fh = (uint64_t)fd;
	fi->direct_io = read_delay_ms > 0; /* every read reaches us, no readahead */
	return ret(fd);
}

static int
fs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int fd;

	as_caller();
	fd = openat(src, rel(path), fi->flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd >= 0)
		fi->fh = (uint64_t)fd;
	return ret(fd);
}

static int
fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n = pread((int)fi->fh, buf, size, off);

	(void)path;
	if (read_delay_ms > 0) {
		struct timespec ts = { read_delay_ms / 1000, (read_delay_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	return n < 0 ? -errno : (int)n;
}

static int
fs_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n = pwrite((int)fi->fh, buf, size, off);

	(void)path;
	return n < 0 ? -errno : (int)n;
}

static int
fs_statfs(const char *path, struct statvfs *sv)
{
	int fd = openat(src, rel(path), O_PATH | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = fstatvfs(fd, sv);
	close(fd);
	return r < 0 ? -errno : 0;
}

static int
fs_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static int
fs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	return (datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh)) < 0 ? -errno : 0;
}

static int
fs_opendir(const char *path, struct fuse_file_info *fi)
{
	DIR *d;
	int fd;

	as_caller();
	fd = openat(src, rel(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return ret(-1);
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return ret(-1);
	}
	fi->fh = (uint64_t)(uintptr_t)d;
	return ret(0);
}

static int
fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
    enum fuse_readdir_flags flags)
{
	DIR *d = (DIR *)(uintptr_t)fi->fh;
	struct dirent *e;

	(void)path;
	(void)off;
	(void)flags;
	rewinddir(d);
	while ((errno = 0, e = readdir(d)) != NULL) {
		struct stat st = { .st_ino = e->d_ino, .st_mode = (mode_t)DTTOIF(e->d_type) };

		if (fill(buf, e->d_name, &st, 0, 0))
			break;
	}
	return errno ? -errno : 0;
}

static int
fs_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	closedir((DIR *)(uintptr_t)fi->fh);
	return 0;
}

static const struct fuse_operations ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.readlink = fs_readlink,
	.mknod = fs_mknod,
	.mkdir = fs_mkdir,
	.unlink = fs_unlink,
	.rmdir = fs_rmdir,
	.symlink = fs_symlink,
	.rename = fs_rename,
	.link = fs_link,
	.chmod = fs_chmod,
	.chown = fs_chown,
	.truncate = fs_truncate,
	.utimens = fs_utimens,
	.open = fs_open,
	.create = fs_create,
	.read = fs_read,
	.write = fs_write,
	.statfs = fs_statfs,
	.release = fs_release,
	.fsync = fs_fsync,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
};

int
main(int argc, char **argv)
{
	char *fargv[] = { argv[0], "-s", "-o",
		geteuid() == 0 ? "allow_other,default_permissions,fsname=skewfs,subtype=skewfs"
			       : "default_permissions,fsname=skewfs,subtype=skewfs",
		NULL, NULL };
	int c;

	while ((c = getopt(argc, argv, "l:mr:")) != -1) {
		if (c == 'l')
			lag = (time_t)strtol(optarg, NULL, 10);
		else if (c == 'r')
			read_delay_ms = strtol(optarg, NULL, 10);
		else if (c == 'm')
			ctime_is_mtime = 1;
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: skewfs [-l SECONDS] [-m] [-r MS] SOURCE MOUNTPOINT\n");
		return 2;
	}
	src = open(argv[optind], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (src < 0) {
		perror(argv[optind]);
		return 1;
	}
	fargv[4] = argv[optind + 1];
	umask(0);
	return fuse_main(5, fargv, &ops, NULL);
}
