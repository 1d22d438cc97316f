#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#endif

#include "resolve.h"
#include "secrets.h"

#ifndef O_PATH
#define O_PATH 0
#endif

const char *const sbx_system_roots[] = {
	"/usr",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/etc",
	"/opt",
	"/nix/store",
	"/gnu/store",
	NULL,
};

static const char *const home_secrets[] = {
	".ssh",
	".aws",
	".gnupg",
	".config/gcloud",
	".kube",
	".docker",
	".netrc",
	".git-credentials",
	".npmrc",
	".pypirc",
	".config/gh",
	".azure",
	".password-store",
	"Library/Keychains",
};

static const char *const system_secrets[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/sudoers*",
	"/etc/ssh/ssh_host_*_key",
	"/etc/master.passwd",
};

/* Never a workdir, nor anything inside them: writing there changes how the
 * machine itself behaves (cron, init, libraries). */
static const char *const workdir_forbidden_trees[] = {
	"/proc",
	"/sys",
	"/dev",
	"/etc",
	"/usr",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/boot",
	"/var/lib",
	"/var/spool",
	"/var/log",
	"/var/cache",
	"/var/mail",
	"/var/backups",
	"/nix",
	"/gnu",
	NULL,
};

/* Never a workdir themselves (shared by everybody or a root of the system). */
static const char *const workdir_forbidden_exact[] = {
	"/",
	"/var",
	"/tmp",
	"/var/tmp",
	"/opt",
	"/run",
	"/srv",
	"/home",
	"/mnt",
	"/media",
	NULL,
};

static const char *const mount_forbidden_exact[] = {
	"/",
	"/etc",
	"/usr",
	"/var",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/boot",
	"/proc",
	"/sys",
	"/dev",
	"/run",
	NULL,
};

static const char *const mount_forbidden_trees[] = {
	"/proc",
	"/sys",
	"/dev",
	NULL,
};

void
sbx_secret_list(const char *home, struct sbx_strv *out)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(home_secrets); i++)
		sbx_strv_push_take(out, sbx_path_join(home, home_secrets[i]));
}

void
sbx_secret_list_system(struct sbx_strv *out)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(system_secrets); i++)
		sbx_strv_push(out, system_secrets[i]);
}

/* Whether path is entry, as written or (links) as it resolves here: a
 * canonical path must be refused for /bin also where /bin is a link to
 * /usr/bin (merged /usr), or /etc where it is /private/etc (macOS). */
static bool
names(const char *path, const char *entry, bool tree, bool links)
{
	_cleanup_free_ char *real = NULL;

	if (tree ? sbx_path_is_under(path, entry) : strcmp(path, entry) == 0)
		return true;
	if (!links)
		return false;
	real = realpath(entry, NULL);
	if (real == NULL || strcmp(real, entry) == 0)
		return false;
	return tree ? sbx_path_is_under(path, real) : strcmp(path, real) == 0;
}

static bool
in_list_exact(const char *path, const char *const *list, bool links)
{
	for (size_t i = 0; list[i]; i++)
		if (names(path, list[i], false, links))
			return true;
	return false;
}

static const char *
under_list(const char *path, const char *const *list, bool links)
{
	for (size_t i = 0; list[i]; i++)
		if (names(path, list[i], true, links))
			return list[i];
	return NULL;
}

static const char *
under_strv(const char *path, const struct sbx_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		if (sbx_path_is_under(path, sv->v[i]))
			return sv->v[i];
	return NULL;
}

/* links: the lists' entries are also compared as they resolve here
 * (names()). */
static const char *
workdir_forbidden(const char *path, const struct sbx_strv *hidden, bool links)
{
	if (path[0] != '/')
		return "it is not an absolute path";
	if (in_list_exact(path, workdir_forbidden_exact, links))
		return "it is a system directory shared by everything on this machine";
	if (under_list(path, workdir_forbidden_trees, links))
		return "it lies in a system directory";
	if (under_strv(path, hidden))
		return "it is or lies inside a secret path";
	return NULL;
}

const char *
sbx_workdir_forbidden(const char *path, const struct sbx_strv *hidden)
{
	return workdir_forbidden(path, hidden, true);
}

static const char *
mount_source_forbidden(
    const char *path, const struct sbx_strv *homes, const struct sbx_strv *hidden, bool links)
{
	if (in_list_exact(path, mount_forbidden_exact, links))
		return "it is a system root";
	if (under_list(path, mount_forbidden_trees, links))
		return "it lies in /proc, /sys or /dev";
	if (sbx_strv_contains(homes, path))
		return "it is the caller's home directory";
	if (under_strv(path, hidden))
		return "it is or lies inside a secret path";
	return NULL;
}

const char *
sbx_mount_source_forbidden(
    const char *path, const struct sbx_strv *homes, const struct sbx_strv *hidden)
{
	return mount_source_forbidden(path, homes, hidden, true);
}

/* Makes a possibly relative path absolute without resolving links. */
static char *
absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		return sbx_xstrdup(path);
	return sbx_path_join(cwd, path);
}

/* Adds path to v's hidden list, and its realpath when it has one; a name
 * that does not exist at all goes to v->missing too. */
static void
add_hidden(struct sbx_pathmemo *m, struct sbx_fsview *v, const char *path)
{
	_cleanup_free_ char *abs = absolute(path);
	const char *real;

	if (!sbx_strv_contains(&v->hidden, abs))
		sbx_strv_push(&v->hidden, abs);
	real = sbx_pathmemo_realpath(m, abs);
	if (real && !sbx_strv_contains(&v->hidden, real))
		sbx_strv_push(&v->hidden, real);
	if (real == NULL && sbx_pathmemo_absent(m, abs) && !sbx_strv_contains(&v->missing, abs))
		sbx_strv_push(&v->missing, abs);
}

/* glob(3) of a pattern whose wildcards are all in its last component
 * ("/etc/ssh/ssh_host_*_key"), from the memo's listing of the directory,
 * which the secret checks list again (sbx_secret_opaque()): the same
 * names, matched as glob matches them (a leading dot only explicitly).
 * False when the pattern is of another shape; glob(3) does those. */
static bool
glob_last(struct sbx_pathmemo *m, struct sbx_fsview *v, const char *pattern)
{
	const char *slash = strrchr(pattern, '/');
	const struct sbx_strv *listed;
	struct sbx_strv paths = { 0 };
	_cleanup_free_ char *dir = NULL;
	size_t fixed;

	if (pattern[0] != '/' || slash == NULL || slash[1] == '\0')
		return false;
	dir =
	    slash == pattern ? sbx_xstrdup("/") : sbx_xstrndup(pattern, (size_t)(slash - pattern));
	if (strpbrk(dir, "*?[\\") != NULL)
		return false;
	/* What comes before the first special character matches only
	 * itself: a name without it is passed over without fnmatch(3) (/etc
	 * holds ~160 names, two of them sudoers*). The matches are joined
	 * first: add_hidden() adds to the memo, which may move the listing. */
	fixed = strcspn(slash + 1, "*?[\\");
	listed = sbx_pathmemo_list(m, dir);
	for (size_t i = 0; listed && i < listed->n; i++)
		if (strncmp(listed->v[i], slash + 1, fixed) == 0 &&
		    fnmatch(slash + 1, listed->v[i], FNM_PERIOD) == 0)
			sbx_strv_push_take(&paths, sbx_path_join(dir, listed->v[i]));
	for (size_t i = 0; i < paths.n; i++)
		add_hidden(m, v, paths.v[i]);
	sbx_strv_free(&paths);
	return true;
}

static void
build_hidden(struct sbx_pathmemo *m, const struct sbx_policy *p, const struct sbx_strv *homes,
    struct sbx_fsview *v)
{
	struct sbx_strv raw = { 0 };

	for (size_t i = 0; i < homes->n; i++)
		sbx_secret_list(homes->v[i], &raw);
	sbx_secret_list_system(&raw);
	sbx_strv_copy(&raw, &p->deny);
	for (size_t i = 0; i < raw.n; i++) {
		glob_t g;

		if (strpbrk(raw.v[i], "*?[") == NULL) {
			add_hidden(m, v, raw.v[i]);
			continue;
		}
		if (glob_last(m, v, raw.v[i]))
			continue;
		if (glob(raw.v[i], GLOB_NOSORT, NULL, &g) == 0)
			for (size_t k = 0; k < g.gl_pathc; k++)
				add_hidden(m, v, g.gl_pathv[k]);
		globfree(&g);
	}
	sbx_strv_free(&raw);
}

bool
sbx_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* One component at a time, each opened with O_NOFOLLOW and checked: the
 * portable way to what openat2's RESOLVE_NO_SYMLINKS does in one call. */
static int
walk_nofollow(int dirfd, const char *path, struct stat *st_out)
{
	struct stat own, *st = st_out ? st_out : &own;
	_cleanup_free_ char *copy = sbx_xstrdup(path);
	char *save = NULL;
	int dir = path[0] == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
				 : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);

	if (dir < 0 || fstat(dir, st) < 0)
		goto fail;
	for (char *name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		int next;

		if (strcmp(name, ".") == 0)
			continue;
		next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		dir = next;
		if (dir < 0 || fstat(dir, st) < 0)
			goto fail;
		if (S_ISLNK(st->st_mode)) {
			close(dir);
			errno = ELOOP;
			return -1;
		}
	}
	return dir;
fail:
	if (dir >= 0) {
		int e = errno;

		close(dir);
		errno = e;
	}
	return -1;
}

#ifdef __linux__
void
sbx_stat_of_statx(const struct statx *sx, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
	st->st_ino = sx->stx_ino;
	st->st_mode = sx->stx_mode;
	st->st_nlink = sx->stx_nlink;
	st->st_uid = sx->stx_uid;
	st->st_gid = sx->stx_gid;
	st->st_rdev = makedev(sx->stx_rdev_major, sx->stx_rdev_minor);
	st->st_size = (off_t)sx->stx_size;
	st->st_blksize = (blksize_t)sx->stx_blksize;
	st->st_blocks = (blkcnt_t)sx->stx_blocks;
	st->st_atim.tv_sec = sx->stx_atime.tv_sec;
	st->st_atim.tv_nsec = sx->stx_atime.tv_nsec;
	st->st_mtim.tv_sec = sx->stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = sx->stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = sx->stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = sx->stx_ctime.tv_nsec;
}
#endif

int
sbx_stat_cached(int dir, const char *path, int flags, struct stat *st)
{
#ifdef __linux__
	struct statx sx;

	/* statx, not fstatat: an empty name there is a plain fstat, which
	 * drops AT_STATX_DONT_SYNC. AT_NO_AUTOMOUNT as stat(2) has it. */
	if (statx(dir, path, flags | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC, STATX_BASIC_STATS,
		&sx) == 0) {
		sbx_stat_of_statx(&sx, st);
		return 0;
	}
	if (errno != ENOSYS)
		return -1;
#endif
	return fstatat(dir, path, st, flags);
}

const char *
sbx_fsview_at(const struct sbx_fsview *v, const char *path, int *dir)
{
	const struct sbx_pin *best = NULL;
	size_t best_len = 0;

	*dir = AT_FDCWD;
	for (size_t i = 0; v != NULL && i < v->npins; i++) {
		const struct sbx_pin *p = &v->pins[i];
		size_t n = strcmp(p->path, "/") == 0 ? 0 : strlen(p->path);

		if (p->fd < 0 || (best != NULL && n <= best_len))
			continue;
		if (strncmp(path, p->path, n) != 0 || (path[n] != '\0' && path[n] != '/'))
			continue;
		best = p;
		best_len = n;
	}
	if (best == NULL)
		return path;
	path += best_len;
	while (*path == '/')
		path++;
	*dir = best->fd;
	return path;
}

bool
sbx_fsview_missing(const struct sbx_fsview *v, const char *path)
{
	int dir;

	if (v == NULL || !sbx_strv_contains(&v->missing, path))
		return false;
	(void)sbx_fsview_at(v, path, &dir);
	return dir == AT_FDCWD;
}

int
sbx_fsview_stat(const struct sbx_fsview *v, const char *path, int flags, struct stat *st)
{
	int dir;
	const char *rest = sbx_fsview_at(v, path, &dir);

#ifdef AT_EMPTY_PATH
	if (*rest == '\0')
		flags |= AT_EMPTY_PATH;
#endif
	return sbx_stat_cached(dir, rest, flags, st);
}

int
sbx_fstat_cached(int fd, struct stat *st)
{
#ifdef __linux__
	return sbx_stat_cached(fd, "", AT_EMPTY_PATH, st);
#else
	return fstat(fd, st);
#endif
}

int
sbx_open_nofollow(int dirfd, const char *path, struct stat *st)
{
	/* ".." is never needed (paths are canonical, targets have none) and
	 * would climb out of a directory opened for its own sake. */
	for (const char *c = path; (c = strstr(c, "..")) != NULL; c += 2)
		if ((c == path || c[-1] == '/') && (c[2] == '\0' || c[2] == '/')) {
			errno = EINVAL;
			return -1;
		}
#if defined(__linux__) && defined(SYS_openat2)
	if (path[0] != '\0') {
		struct open_how how = {
			.flags = O_PATH | O_CLOEXEC,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			    (path[0] == '/' ? 0 : RESOLVE_BENEATH),
		};
		int fd = (int)syscall(
		    SYS_openat2, path[0] == '/' ? AT_FDCWD : dirfd, path, &how, sizeof(how));

		if (fd >= 0 && st != NULL && sbx_fstat_cached(fd, st) < 0) {
			close(fd);
			return -1;
		}
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return fd;
	}
#endif
	return walk_nofollow(dirfd, path, st);
}

/* Where a resolution stands: the directory reached, its canonical name. */
struct walk {
	int cur;
	struct stat st;
	char canon[PATH_MAX];
	bool inside; /* at or below the workdir: the sandbox's ground */
};

static int
walk_root(struct walk *w, const struct stat *wd)
{
	if (w->cur >= 0)
		close(w->cur);
	w->canon[0] = '\0';
	w->cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->cur < 0 || fstat(w->cur, &w->st) < 0)
		return -1;
	w->inside = wd && sbx_same_file(&w->st, wd);
	return 0;
}

/* The content of the symlink just opened (fd) as name in w->cur. */
static ssize_t
read_link(const struct walk *w, int fd, const char *name, char *buf, size_t size)
{
#ifdef __linux__
	(void)w;
	(void)name;
	return readlinkat(fd, "", buf, size);
#else
	(void)fd;
	return readlinkat(w->cur, name, buf, size);
#endif
}

/* Resolves path as realpath() would, but in one pass over descriptors, so
 * that what is named, checked and used is one object: every component is
 * opened with O_NOFOLLOW from the directory before it; a symlink is read
 * from its own descriptor and followed only when the caller or root owns
 * it (a link of another user's in a directory of theirs could be aimed
 * anywhere the caller can reach, at any moment), and never at or below
 * the workdir wd, which is the sandbox's to change. On success w->cur is
 * the object reached and w->canon its canonical name; 0, or -1 with err
 * set ("WHAT 'GIVEN' refused: ..."). */
static int
walk_path(
    struct walk *w, const char *what, const char *given, const struct stat *wd, struct sbx_err *err)
{
	_cleanup_free_ char *rest = absolute(given);
	int links = 0;
	char *c = rest;

	/* A relative name and no current directory (removed since the
	 * caller entered it): never walked from "/" instead. */
	if (rest[0] != '/')
		return sbx_err_set(err, ENOENT,
		    "%s '%s' refused: the current directory cannot be found (removed?), so a "
		    "relative name leads nowhere",
		    what, given);
	if (walk_root(w, wd) < 0)
		goto sys;
	for (;;) {
		char name[NAME_MAX + 1], target[PATH_MAX];
		size_t len;
		ssize_t n;
		struct stat st;
		int fd;

		c += strspn(c, "/");
		if (*c == '\0')
			break;
		len = strcspn(c, "/");
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto sys;
		}
		memcpy(name, c, len);
		name[len] = '\0';
		c += len;
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			char *slash = strrchr(w->canon, '/');

			fd = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) < 0)
				goto sys;
			if (w->inside && wd && sbx_same_file(&w->st, wd))
				w->inside = false;
			close(w->cur);
			w->cur = fd;
			w->st = st;
			if (slash)
				*slash = '\0';
			continue;
		}
		fd = openat(w->cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0)
			goto sys;
		if (!S_ISLNK(st.st_mode)) {
			if (strlen(w->canon) + len + 2 > sizeof(w->canon)) {
				close(fd);
				errno = ENAMETOOLONG;
				goto sys;
			}
			strcat(strcat(w->canon, "/"), name);
			close(w->cur);
			w->cur = fd;
			w->st = st;
			if (!w->inside && wd && sbx_same_file(&st, wd))
				w->inside = true;
			continue;
		}
		if (w->inside || (st.st_uid != 0 && st.st_uid != geteuid())) {
			close(fd);
			return sbx_err_set(err, ELOOP,
			    w->inside
				? "%s '%s' refused: %s%s/%s is a symlink inside the workdir"
				: "%s '%s' refused: %s%s/%s is a symlink owned by another user",
			    what, given, "", w->canon, name);
		}
		n = read_link(w, fd, name, target, sizeof(target) - 1);
		close(fd);
		if (n < 0)
			goto sys;
		target[n] = '\0';
		if (++links > 40) {
			errno = ELOOP;
			goto sys;
		}
		{
			char *next = sbx_xasprintf("%s/%s", target, c);

			free(rest);
			rest = next;
			c = rest;
		}
		if (target[0] == '/' && walk_root(w, wd) < 0)
			goto sys;
	}
	if (w->canon[0] == '\0')
		strcpy(w->canon, "/");
	return 0;
sys:
	return sbx_err_sys(err, "%s '%s'", what, given);
}

/* walk_path(), and the object reached pinned in v. */
static struct sbx_pin *
pin(struct sbx_fsview *v, const char *what, const char *given, const struct stat *wd,
    struct sbx_err *err)
{
	struct walk w = { .cur = -1 };
	struct sbx_pin *p = NULL;

	if (walk_path(&w, what, given, wd, err) < 0)
		goto out;
	for (size_t i = 0; i < v->npins; i++)
		if (sbx_same_file(&v->pins[i].st, &w.st) && strcmp(v->pins[i].path, w.canon) == 0) {
			p = &v->pins[i];
			goto out;
		}
	v->pins = sbx_xreallocarray(v->pins, v->npins + 1, sizeof(*v->pins));
	p = &v->pins[v->npins++];
	*p = (struct sbx_pin){ .path = sbx_xstrdup(w.canon), .fd = w.cur, .st = w.st };
	w.cur = -1;
out:
	if (w.cur >= 0)
		close(w.cur);
	return p;
}

int
sbx_open_dir_walked(const char *what, const char *dir, const struct stat *wd, struct sbx_err *err)
{
	struct walk w = { .cur = -1 };

	if (walk_path(&w, what, dir, wd, err) < 0) {
		if (w.cur >= 0)
			close(w.cur);
		return -1;
	}
	if (!S_ISDIR(w.st.st_mode)) {
		close(w.cur);
		return sbx_err_set(err, ENOTDIR, "%s '%s': not a directory", what, dir);
	}
	return w.cur;
}

/* A file's identity: what sbx_same_file() compares. */
struct file_id {
	dev_t dev;
	ino_t ino;
};

/* The identities of the paths in list that exist here, links followed:
 * /bin is /usr/bin on a merged-/usr system, /etc may be /private/etc. */
static size_t
list_ids(const char *const *list, struct file_id *ids, size_t max)
{
	size_t n = 0;
	struct stat st;

	for (size_t i = 0; list[i] && n < max; i++)
		if (stat(list[i], &st) == 0)
			ids[n++] = (struct file_id){ st.st_dev, st.st_ino };
	return n;
}

/* The identities of sv's paths that exist, those listed in skip aside
 * (found missing already); ids has room for all of sv. */
static size_t
strv_ids(const struct sbx_strv *sv, const struct sbx_strv *skip, struct file_id *ids)
{
	size_t n = 0;
	struct stat st;

	for (size_t i = 0; i < sv->n; i++)
		if ((skip == NULL || !sbx_strv_contains(skip, sv->v[i])) &&
		    stat(sv->v[i], &st) == 0)
			ids[n++] = (struct file_id){ st.st_dev, st.st_ino };
	return n;
}

static bool
is_one_of(const struct stat *st, const struct file_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (st->st_dev == ids[i].dev && st->st_ino == ids[i].ino)
			return true;
	return false;
}

/* The identities forbidden to a workdir or a mount source, read once:
 * 16 bytes each, not a struct stat, and as many as the lists hold. */
struct forbidden_ids {
	struct file_id exact[32], trees[32];
	struct file_id *hidden, *homes;
	size_t nexact, ntrees, nhidden, nhomes;
};

/* Judges the pinned object itself and every directory above it (walking up
 * by "..", as the object now lies, to the root) by device and inode: a
 * bind mount of /etc, or a name swapped after realpath(), cannot pass for
 * an ordinary directory. NULL when nothing matched. */
static const char *
forbidden_by_id(const struct sbx_pin *p, const struct forbidden_ids *f, bool mount)
{
	struct stat st = p->st;
	int cur = -1;
	const char *why = NULL;

	if (is_one_of(&st, f->exact, f->nexact))
		return mount ? "it is a system root"
			     : "it is a system directory shared by everything on this machine";
	if (is_one_of(&st, f->homes, f->nhomes))
		return "it is the caller's home directory";
	if (S_ISDIR(st.st_mode)) {
		cur = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
	} else {
		/* A file: start from its directory, which must still hold it. */
		_cleanup_free_ char *dir = sbx_xstrdup(p->path);
		struct stat here;

		*strrchr(dir, '/') = '\0';
		cur = sbx_open_nofollow(AT_FDCWD, dir[0] ? dir : "/", &st);
		if (cur < 0 ||
		    fstatat(cur, strrchr(p->path, '/') + 1, &here, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !sbx_same_file(&here, &p->st)) {
			why = "it changed while it was being checked";
			goto out;
		}
		if (is_one_of(&p->st, f->hidden, f->nhidden)) {
			why = "it is or lies inside a secret path";
			goto out;
		}
	}
	for (int depth = 0; cur >= 0 && depth < 512; depth++) {
		struct stat up;
		int next;

		if (is_one_of(&st, f->trees, f->ntrees)) {
			why = mount ? "it lies in /proc, /sys or /dev"
				    : "it lies in a system directory";
			break;
		}
		if (is_one_of(&st, f->hidden, f->nhidden)) {
			why = "it is or lies inside a secret path";
			break;
		}
		next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || fstat(next, &up) < 0 || sbx_same_file(&up, &st)) {
			if (next >= 0)
				close(next);
			break; /* the root */
		}
		close(cur);
		cur = next;
		st = up;
	}
out:
	if (cur >= 0)
		close(cur);
	return why;
}

/* missing: entries of hidden that did not exist when the list was read
 * (the snapshot: sbx_fsview's missing), not looked up again. */
static void
forbidden_ids_free(struct forbidden_ids *f)
{
	free(f->hidden);
	free(f->homes);
	memset(f, 0, sizeof(*f));
}

static void
forbidden_ids_read(struct forbidden_ids *f, bool mount, const struct sbx_strv *homes,
    const struct sbx_strv *hidden, const struct sbx_strv *missing)
{
	forbidden_ids_free(f);
	f->nexact = list_ids(mount ? mount_forbidden_exact : workdir_forbidden_exact, f->exact,
	    SBX_ARRAY_LEN(f->exact));
	f->ntrees = list_ids(mount ? mount_forbidden_trees : workdir_forbidden_trees, f->trees,
	    SBX_ARRAY_LEN(f->trees));
	f->hidden = sbx_xreallocarray(NULL, hidden->n ? hidden->n : 1, sizeof(*f->hidden));
	f->nhidden = strv_ids(hidden, missing, f->hidden);
	if (mount) {
		f->homes = sbx_xreallocarray(NULL, homes->n ? homes->n : 1, sizeof(*f->homes));
		f->nhomes = strv_ids(homes, NULL, f->homes);
	}
}

/* The mount target must not pass through a symlink: every existing
 * component below the workdir is checked, walking from the workdir's own
 * descriptor without following anything. */
static int
check_target(int wd, const struct sbx_mount *m, const struct stat *sst, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(m->target);
	_cleanup_close_ int dir = fcntl(wd, F_DUPFD_CLOEXEC, 0);
	char *save = NULL;
	struct stat st = { 0 }; /* the loop runs: the target has a name */
	bool exists = true;

	if (strcmp(m->target, ".") == 0 || m->target[strspn(m->target, "./")] == '\0')
		return sbx_err_set(
		    err, EINVAL, "mount target '%s' is the workdir itself", m->target);
	if (sbx_str_has_prefix(m->target, ".sbxrun") &&
	    (m->target[7] == '\0' || m->target[7] == '/'))
		return sbx_err_set(
		    err, EINVAL, "mount target '%s' is sbxrun's own state", m->target);
	if (dir < 0)
		return sbx_err_sys(err, "mount target '%s'", m->target);
	for (char *name = strtok_r(copy, "/", &save); name && exists;
	     name = strtok_r(NULL, "/", &save)) {
		int next;

		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				return sbx_err_sys(err, "mount target '%s'", m->target);
			exists = false;
			break;
		}
		if (S_ISLNK(st.st_mode))
			return sbx_err_set(err, EINVAL,
			    "mount target '%s' passes through the symlink %s", m->target, name);
		if (!S_ISDIR(st.st_mode))
			break; /* the last component, or refused below */
		next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return sbx_err_sys(err, "mount target '%s'", m->target);
		close(dir);
		dir = next;
	}
	if (exists && S_ISDIR(st.st_mode) != S_ISDIR(sst->st_mode))
		return sbx_err_set(err, EINVAL, "mount target '%s' is a %s but the source is not",
		    m->target, S_ISDIR(st.st_mode) ? "directory" : "file");
	return 0;
}

/* sbx_secrets_check() on the host, with the mount table that
 * sbx_resolve_begin() read (the rest is looked up afresh). */
static int
secrets_check(const struct sbx_policy *p, const struct sbx_strv *homes, struct sbx_fsview *v,
    struct sbx_err *err)
{
	struct sbx_pathmemo memo = { .mounts_read = v->mounts_read,
		.mountinfo = steal_ptr(&v->mountinfo) };
	struct sbx_idfs fs = sbx_host_idfs_memo(&memo, false);
	int r = sbx_secrets_check(&fs, p, homes, v, err);

	v->mounts_read = memo.mounts_read;
	v->mountinfo = steal_ptr(&memo.mountinfo);
	sbx_pathmemo_free(&memo);
	return r;
}

/* The workdir is a directory the jail makes in its own /tmp: nothing of
 * the host lies at or below it, so there is nothing to pin, to refuse or
 * to search for second names of secrets; read paths are pinned as usual. */
static int
resolve_in_jail(struct sbx_policy *p, const char *path, struct sbx_fsview *v, struct sbx_err *err)
{
	if (p->workdir != NULL || p->nmounts > 0 || path == NULL || path[0] != '/')
		return sbx_err_set(err, EINVAL, "a workdir inside the jail takes no -w and no -m");
	v->workdir = sbx_xstrdup(path);
	v->workdir_temp = true;
	v->workdir_in_jail = true;
	for (size_t i = 0; i < p->read.n; i++) {
		struct sbx_err ignored = { 0 };
		const struct sbx_pin *rp = pin(v, "read path", p->read.v[i], NULL, &ignored);

		if (rp == NULL) {
			sbx_strv_push_take(&p->warnings,
			    ignored.errnum == ENOENT
				? sbx_xasprintf(
				      "read path '%s' does not exist; skipped", p->read.v[i])
				: sbx_xasprintf("%s; skipped", ignored.msg));
			continue;
		}
		if (!sbx_strv_contains(&v->read, rp->path))
			sbx_strv_push(&v->read, rp->path);
	}
	return secrets_check(p, &v->homes, v, err);
}

void
sbx_resolve_begin(
    struct sbx_policy *p, const struct sbx_strv *homes, const char *mountinfo, struct sbx_fsview *v)
{
	struct sbx_pathmemo memo = { .mounts_read = mountinfo != NULL,
		.mountinfo = mountinfo ? sbx_xstrdup(mountinfo) : NULL };
	struct sbx_idfs fs = sbx_host_idfs_memo(&memo, true);

	memset(v, 0, sizeof(*v));
	sbx_strv_copy(&v->homes, homes);
	build_hidden(&memo, p, homes, v);
	sbx_secrets_widen(&fs, p, homes, v);
	/* The mount table is kept for sbx_resolve_rest()'s alias checks: one
	 * reading of it per resolution (the kernel formats the whole table
	 * at each, ~45 us here). */
	v->mounts_read = memo.mounts_read;
	v->mountinfo = steal_ptr(&memo.mountinfo);
	sbx_pathmemo_free(&memo);
	for (size_t i = 0; sbx_system_roots[i]; i++)
		if (access(sbx_system_roots[i], F_OK) == 0)
			sbx_strv_push(&v->roots, sbx_system_roots[i]);
}

int
sbx_resolve(struct sbx_policy *p, const struct sbx_strv *homes, const char *temp_workdir,
    bool in_jail, struct sbx_fsview *v, struct sbx_err *err)
{
	sbx_resolve_begin(p, homes, NULL, v);
	return sbx_resolve_rest(p, homes, temp_workdir, in_jail, v, err);
}

int
sbx_resolve_rest(struct sbx_policy *p, const struct sbx_strv *homes, const char *temp_workdir,
    bool in_jail, struct sbx_fsview *v, struct sbx_err *err)
{
	_cleanup_free_ char *state = NULL;
	struct forbidden_ids ids = { 0 };
	const struct sbx_pin *wd;
	struct stat wd_st;
	const char *why;
	int r = -1;

	/* Each path is resolved once, to a descriptor: from here on only that
	 * descriptor is judged and used (doc/design/paths.md). */
	if (p->workdir == NULL && temp_workdir == NULL)
		return sbx_err_set(err, EINVAL, "no workdir");
	if (in_jail)
		return resolve_in_jail(p, temp_workdir, v, err);
	wd = pin(v, "workdir", p->workdir ? p->workdir : temp_workdir, NULL, err);
	if (wd == NULL)
		return -1;
	v->workdir = sbx_xstrdup(wd->path);
	v->workdir_temp = p->workdir == NULL;
	/* One listing, where the plan would look up each protected name in
	 * the fresh directory (~3 us a name never seen there). */
	if (v->workdir_temp) {
		_cleanup_close_ int d = openat(wd->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		v->workdir_empty = d >= 0 && sbx_dir_empty(d);
	}
	wd_st = wd->st;
	for (size_t i = 0; i < homes->n; i++) {
		struct stat hs;

		/* Only to widen the built-in protect list (plan.c): a home
		 * reached through a link is still the home. */
		if (stat(homes->v[i], &hs) == 0 && hs.st_dev == wd_st.st_dev &&
		    hs.st_ino == wd_st.st_ino)
			v->workdir_home = true;
	}
	if (!S_ISDIR(wd->st.st_mode))
		return sbx_err_set(err, ENOTDIR, "workdir '%s' is not a directory",
		    p->workdir ? p->workdir : v->workdir);
	forbidden_ids_read(&ids, false, homes, &v->hidden, &v->missing);
	/* A pinned path is judged by identity as well (forbidden_by_id(),
	 * whose stats follow every link, and which sees a bind mount of a
	 * forbidden tree too): its name is compared with the lists as
	 * written, without their realpaths (~45 readlinks a path). */
	why = workdir_forbidden(v->workdir, &v->hidden, false);
	if (why == NULL)
		why = forbidden_by_id(&v->pins[0], &ids, false);
	if (why) {
		sbx_err_set(err, EPERM, "workdir '%s' refused: %s", v->workdir, why);
		goto out;
	}

	for (size_t i = 0; i < p->read.n; i++) {
		struct sbx_err ignored = { 0 };
		const struct sbx_pin *rp = pin(v, "read path", p->read.v[i], &wd_st, &ignored);

		if (rp == NULL) {
			sbx_strv_push_take(&p->warnings,
			    ignored.errnum == ENOENT
				? sbx_xasprintf(
				      "read path '%s' does not exist; skipped", p->read.v[i])
				: sbx_xasprintf("%s; skipped", ignored.msg));
			continue;
		}
		if (!sbx_strv_contains(&v->read, rp->path))
			sbx_strv_push(&v->read, rp->path);
	}

	state = sbx_path_join(v->workdir, ".sbxrun");
	/* Read only for a run with mounts: ~90 stats (doc/design/startup.md,
	 * section 12). */
	if (p->nmounts > 0)
		forbidden_ids_read(&ids, true, homes, &v->hidden, &v->missing);
	for (size_t i = 0; i < p->nmounts; i++) {
		struct sbx_mount *m = &p->mounts[i];
		const struct sbx_pin *sp = pin(v, "mount source", m->source, &wd_st, err);

		if (sp == NULL)
			goto out;
		why = mount_source_forbidden(sp->path, homes, &v->hidden, false);
		if (why == NULL && sbx_path_is_under(sp->path, state))
			why = "it is sbxrun's own state (.sbxrun in the workdir)";
		if (why == NULL && !S_ISDIR(sp->st.st_mode) && !S_ISREG(sp->st.st_mode))
			why = "only directories and regular files can be mounted";
		if (why == NULL)
			why = forbidden_by_id(sp, &ids, true);
		if (why) {
			sbx_err_set(err, EPERM, "mount source '%s' refused: %s", m->source, why);
			goto out;
		}
		if (check_target(v->pins[0].fd, m, &sp->st, err) < 0)
			goto out;
		free(m->source);
		m->source = sbx_xstrdup(sp->path);
	}
	r = secrets_check(p, homes, v, err);
out:
	forbidden_ids_free(&ids);
	return r;
}

const struct sbx_pin *
sbx_fsview_pin(const struct sbx_fsview *v, const char *path)
{
	for (size_t i = 0; i < v->npins; i++)
		if (strcmp(v->pins[i].path, path) == 0)
			return &v->pins[i];
	return NULL;
}

int
sbx_fsview_workdir_fd(const struct sbx_fsview *v)
{
	return v->npins > 0 && !v->workdir_in_jail ? v->pins[0].fd : -1;
}

void
sbx_fsview_free(struct sbx_fsview *v)
{
	for (size_t i = 0; i < v->npins; i++) {
		free(v->pins[i].path);
		close(v->pins[i].fd);
	}
	free(v->pins);
	free(v->workdir);
	free(v->mountinfo);
	sbx_strv_free(&v->homes);
	sbx_strv_free(&v->hidden);
	sbx_strv_free(&v->missing);
	sbx_strv_free(&v->roots);
	sbx_strv_free(&v->read);
	memset(v, 0, sizeof(*v));
}

bool
sbx_dir_empty(int fd)
{
#ifdef __linux__
	char buf[512];
	long n;

	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);

			if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
				return false;
			off += d->d_reclen;
		}
	return n == 0;
#else
	(void)fd;
	return false;
#endif
}
