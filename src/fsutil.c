#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "resolve.h"
#include "util.h"

static int
rm_at(int parent, const char *name, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -1 : 0;
	if (depth > 256) {
		errno = ELOOP;
		return -1;
	}
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		fchmodat(parent, name, 0700, 0);
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	fchmod(fd, 0700);
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (rm_at(dirfd(d), de->d_name, depth + 1) < 0) {
			int saved = errno;

			closedir(d);
			errno = saved;
			return -1;
		}
	}
	closedir(d);
	return unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -1 : 0;
}

int
sbx_rm_rf(const char *path, struct sbx_err *err)
{
	if (rm_at(AT_FDCWD, path, 0) < 0)
		return sbx_err_sys(err, "cannot remove %s", path);
	return 0;
}

int
sbx_write_file_from_fd(const char *path, int in, struct sbx_err *err)
{
	_cleanup_close_ int out = -1;
	char buf[65536];
	ssize_t n;

	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return sbx_err_sys(err, "cannot create %s", path);
	for (;;) {
		char *p = buf;

		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sbx_err_sys(err, "cannot read the script from standard input");
		if (n == 0)
			break;
		while (n > 0) {
			ssize_t w = write(out, p, (size_t)n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return sbx_err_sys(err, "cannot write %s", path);
			p += w;
			n -= w;
		}
	}
	if (close(steal_fd(&out)) < 0)
		return sbx_err_sys(err, "cannot write %s", path);
	return 0;
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
sbx_move_aside_at(int wd, const char *rel, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);
	const char *name;
	_cleanup_close_ int dir = parent_at(wd, copy, &name);
	struct stat st;

	if (dir < 0 || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL; /* not there, or not below a directory: nothing made */
	for (int n = 1; n <= 100; n++) {
		_cleanup_free_ char *aside = sbx_xasprintf("%s.sbxrun-untrusted.%d", name, n);

#ifdef RENAME_NOREPLACE
		if (renameat2(dir, name, dir, aside, RENAME_NOREPLACE) == 0)
#else
		if (faccessat(dir, aside, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
		    renameat(dir, name, dir, aside) == 0)
#endif
			return sbx_xasprintf("%.*s%s", (int)(name - copy), rel, aside);
		if (errno != EEXIST)
			break;
	}
	sbx_err_sys(err, "cannot move %s aside", rel);
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
