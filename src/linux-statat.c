#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-statat.h"
#include "util.h"

#ifndef AT_STATX_DONT_SYNC
#define AT_STATX_DONT_SYNC 0x4000
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

bool
sbx_fs_local(int fd)
{
	static const unsigned long local[] = {
		0xEF53, /* ext2, ext3, ext4 */
		0x58465342, /* xfs */
		0x9123683E, /* btrfs */
		0xF2F52010, /* f2fs */
		0x01021994, /* tmpfs */
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return false;
	for (size_t i = 0; i < SBX_ARRAY_LEN(local); i++)
		if ((unsigned long)sf.f_type == local[i])
			return true;
	return false;
}

/* The change time a file made now in the directory fd gets: the clock of
 * the filesystem's server. Zero when no file can be made there. */
static void
server_clock(int fd, struct timespec *ts)
{
	static unsigned seq;
	char name[64];
	struct stat st;
	int f;

	*ts = (struct timespec){ 0 };
	snprintf(name, sizeof(name), ".sbxrun-clock.%ld.%u", (long)getpid(), seq++);
	f = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f < 0)
		return;
	if (fstat(f, &st) == 0)
		*ts = st.st_ctim;
	close(f);
	unlinkat(fd, name, 0);
}

void
sbx_fs_clock(int fd, struct timespec *ts)
{
	struct timespec server;
	struct stat st;

	clock_gettime(CLOCK_REALTIME_COARSE, ts);
	if (!sbx_fs_local(fd)) {
		server_clock(fd, &server);
		if (server.tv_sec < ts->tv_sec ||
		    (server.tv_sec == ts->tv_sec && server.tv_nsec < ts->tv_nsec))
			*ts = server;
		if (ts->tv_sec == 0)
			return;
	}
	if (fstat(fd, &st) < 0 || st.st_ctim.tv_nsec == 0) {
		ts->tv_sec -= 1;
		ts->tv_nsec = 0;
	}
}

bool
sbx_changed_since(const struct stat *st, const struct timespec *since)
{
	return st->st_ctim.tv_sec > since->tv_sec ||
	    (st->st_ctim.tv_sec == since->tv_sec && st->st_ctim.tv_nsec >= since->tv_nsec);
}

int
sbx_statx_here(int dir, const char *name, bool dir_local, unsigned mask, struct statx *sx)
{
	const int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC;
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd, rc, e;

	/* A network or FUSE filesystem honours AT_STATX_DONT_SYNC (its
	 * cached status, no request); a local one always answers at once. */
	if (statx(dir, name, flags, mask, sx) < 0) {
		e = errno;
		/* FUSE refuses every field but the device to a process its
		 * mount does not allow, before any request; asked for none,
		 * it answers, and the kernel adds the mount id and root. */
		if (e != EACCES || statx(dir, name, flags, 0, sx) < 0 ||
		    !(sx->stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
			errno = e;
			return -1;
		}
		return 0;
	}
	if (dir_local || (sx->stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return 0;
	fd = (int)syscall(SYS_openat2, dir, name, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		return statx(dir, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, mask, sx);
	if (fd < 0)
		return -1;
	rc = statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, mask, sx);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int
sbx_lstat_here(int dir, const char *name, bool dir_local, struct stat *st)
{
	struct statx sx;

	if (sbx_statx_here(dir, name, dir_local, STATX_BASIC_STATS, &sx) < 0)
		return -1;
	if (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) {
		errno = EXDEV;
		return -1;
	}
	sbx_stat_of_statx(&sx, st);
	return 0;
}

int
sbx_open_here(int dir, const char *name, int flags)
{
	struct open_how how = {
		.flags = (__u64)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dir, name, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}
