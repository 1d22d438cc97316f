#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "resolve.h"

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

/* Whether path is entry, as written or as it resolves here: a canonical
 * path must be refused for /bin also where /bin is a link to /usr/bin
 * (merged /usr), or /etc where it is /private/etc (macOS). */
static bool
names(const char *path, const char *entry, bool tree)
{
	_cleanup_free_ char *real = NULL;

	if (tree ? sbx_path_is_under(path, entry) : strcmp(path, entry) == 0)
		return true;
	real = realpath(entry, NULL);
	if (real == NULL || strcmp(real, entry) == 0)
		return false;
	return tree ? sbx_path_is_under(path, real) : strcmp(path, real) == 0;
}

static bool
in_list_exact(const char *path, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (names(path, list[i], false))
			return true;
	return false;
}

static const char *
under_list(const char *path, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (names(path, list[i], true))
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

const char *
sbx_workdir_forbidden(const char *path, const struct sbx_strv *hidden)
{
	if (path[0] != '/')
		return "it is not an absolute path";
	if (in_list_exact(path, workdir_forbidden_exact))
		return "it is a system directory shared by everything on this machine";
	if (under_list(path, workdir_forbidden_trees))
		return "it lies in a system directory";
	if (under_strv(path, hidden))
		return "it is or lies inside a secret path";
	return NULL;
}

const char *
sbx_mount_source_forbidden(
    const char *path, const struct sbx_strv *homes, const struct sbx_strv *hidden)
{
	if (in_list_exact(path, mount_forbidden_exact))
		return "it is a system root";
	if (under_list(path, mount_forbidden_trees))
		return "it lies in /proc, /sys or /dev";
	if (sbx_strv_contains(homes, path))
		return "it is the caller's home directory";
	if (under_strv(path, hidden))
		return "it is or lies inside a secret path";
	return NULL;
}

/* realpath() that reports the path in the message. */
static int
canonical(const char *what, const char *path, char **out, struct sbx_err *err)
{
	char *r = realpath(path, NULL);

	if (r == NULL)
		return sbx_err_sys(err, "%s '%s'", what, path);
	*out = r;
	return 0;
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

static void
add_hidden(struct sbx_strv *hidden, const char *path)
{
	_cleanup_free_ char *abs = absolute(path);
	char *real;

	if (!sbx_strv_contains(hidden, abs))
		sbx_strv_push(hidden, abs);
	real = realpath(abs, NULL);
	if (real && !sbx_strv_contains(hidden, real))
		sbx_strv_push_take(hidden, real);
	else
		free(real);
}

static void
build_hidden(const struct sbx_policy *p, const struct sbx_strv *homes, struct sbx_strv *hidden)
{
	struct sbx_strv raw = { 0 };

	for (size_t i = 0; i < homes->n; i++)
		sbx_secret_list(homes->v[i], &raw);
	sbx_secret_list_system(&raw);
	sbx_strv_copy(&raw, &p->deny);
	for (size_t i = 0; i < raw.n; i++) {
		glob_t g;

		if (strpbrk(raw.v[i], "*?[") == NULL) {
			add_hidden(hidden, raw.v[i]);
			continue;
		}
		if (glob(raw.v[i], GLOB_NOSORT, NULL, &g) == 0)
			for (size_t k = 0; k < g.gl_pathc; k++)
				add_hidden(hidden, g.gl_pathv[k]);
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
walk_nofollow(int dirfd, const char *path, struct stat *st)
{
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

		if (fd >= 0 && fstat(fd, st) < 0) {
			close(fd);
			return -1;
		}
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return fd;
	}
#endif
	return walk_nofollow(dirfd, path, st);
}

/* Opens a canonical path once, for good, or says why not. */
static struct sbx_pin *
pin(struct sbx_fsview *v, const char *what, const char *shown, const char *path,
    struct sbx_err *err)
{
	struct sbx_pin *p;
	struct stat st;
	int fd;

	for (size_t i = 0; i < v->npins; i++)
		if (strcmp(v->pins[i].path, path) == 0)
			return &v->pins[i];
	fd = sbx_open_nofollow(AT_FDCWD, path, &st);
	if (fd < 0) {
		if (errno == ELOOP)
			sbx_err_set(err, ELOOP,
			    "%s '%s' changed while it was being checked: %s now passes "
			    "through a symlink",
			    what, shown, path);
		else
			sbx_err_sys(err, "%s '%s'", what, shown);
		return NULL;
	}
	v->pins = sbx_xreallocarray(v->pins, v->npins + 1, sizeof(*v->pins));
	p = &v->pins[v->npins++];
	*p = (struct sbx_pin){ .path = sbx_xstrdup(path), .fd = fd, .st = st };
	return p;
}

/* The identities of the paths in list that exist here, links followed:
 * /bin is /usr/bin on a merged-/usr system, /etc may be /private/etc. */
static size_t
list_ids(const char *const *list, struct stat *ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; list[i] && n < max; i++)
		if (stat(list[i], &ids[n]) == 0)
			n++;
	return n;
}

static size_t
strv_ids(const struct sbx_strv *sv, struct stat *ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sv->n && n < max; i++)
		if (stat(sv->v[i], &ids[n]) == 0)
			n++;
	return n;
}

static bool
is_one_of(const struct stat *st, const struct stat *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sbx_same_file(st, &ids[i]))
			return true;
	return false;
}

#define MAX_IDS 256

/* The identities forbidden to a workdir or a mount source, read once. */
struct forbidden_ids {
	struct stat exact[32], trees[32], hidden[MAX_IDS], homes[16];
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

static void
forbidden_ids_read(struct forbidden_ids *f, bool mount, const struct sbx_strv *homes,
    const struct sbx_strv *hidden)
{
	memset(f, 0, sizeof(*f));
	f->nexact = list_ids(mount ? mount_forbidden_exact : workdir_forbidden_exact, f->exact,
	    SBX_ARRAY_LEN(f->exact));
	f->ntrees = list_ids(mount ? mount_forbidden_trees : workdir_forbidden_trees, f->trees,
	    SBX_ARRAY_LEN(f->trees));
	f->nhidden = strv_ids(hidden, f->hidden, SBX_ARRAY_LEN(f->hidden));
	if (mount)
		f->nhomes = strv_ids(homes, f->homes, SBX_ARRAY_LEN(f->homes));
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
	struct stat st;
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

int
sbx_resolve(struct sbx_policy *p, const struct sbx_strv *homes, const char *temp_workdir,
    struct sbx_fsview *v, struct sbx_err *err)
{
	_cleanup_free_ char *state = NULL;
	struct forbidden_ids *ids = NULL;
	const struct sbx_pin *wd;
	const char *why;
	int r = -1;

	memset(v, 0, sizeof(*v));
	sbx_strv_copy(&v->homes, homes);
	build_hidden(p, homes, &v->hidden);
	for (size_t i = 0; sbx_system_roots[i]; i++)
		if (access(sbx_system_roots[i], F_OK) == 0)
			sbx_strv_push(&v->roots, sbx_system_roots[i]);

	/* Each path is made canonical once (the caller's own links are
	 * theirs to use), then opened from "/" following nothing: from here
	 * on, only that descriptor is judged and used. */
	if (p->workdir) {
		if (canonical("workdir", p->workdir, &v->workdir, err) < 0)
			return -1;
	} else {
		if (temp_workdir == NULL)
			return sbx_err_set(err, EINVAL, "no workdir");
		if (canonical("workdir", temp_workdir, &v->workdir, err) < 0)
			return -1;
		v->workdir_temp = true;
	}
	wd = pin(v, "workdir", p->workdir ? p->workdir : v->workdir, v->workdir, err);
	if (wd == NULL)
		return -1;
	if (!S_ISDIR(wd->st.st_mode))
		return sbx_err_set(err, ENOTDIR, "workdir '%s' is not a directory",
		    p->workdir ? p->workdir : v->workdir);
	ids = sbx_xcalloc(1, sizeof(*ids));
	forbidden_ids_read(ids, false, homes, &v->hidden);
	why = sbx_workdir_forbidden(v->workdir, &v->hidden);
	if (why == NULL)
		why = forbidden_by_id(&v->pins[0], ids, false);
	if (why) {
		sbx_err_set(err, EPERM, "workdir '%s' refused: %s", v->workdir, why);
		goto out;
	}

	for (size_t i = 0; i < p->read.n; i++) {
		char *real = realpath(p->read.v[i], NULL);
		struct sbx_err ignored = { 0 };

		if (real == NULL || pin(v, "read path", p->read.v[i], real, &ignored) == NULL) {
			sbx_strv_push_take(&p->warnings,
			    sbx_xasprintf("read path '%s' does not exist; skipped", p->read.v[i]));
			free(real);
			continue;
		}
		if (!sbx_strv_contains(&v->read, real))
			sbx_strv_push_take(&v->read, real);
		else
			free(real);
	}

	state = sbx_path_join(v->workdir, ".sbxrun");
	forbidden_ids_read(ids, true, homes, &v->hidden);
	for (size_t i = 0; i < p->nmounts; i++) {
		struct sbx_mount *m = &p->mounts[i];
		_cleanup_free_ char *src = NULL;
		const struct sbx_pin *sp;

		if (canonical("mount source", m->source, &src, err) < 0)
			goto out;
		why = sbx_mount_source_forbidden(src, homes, &v->hidden);
		if (why == NULL && sbx_path_is_under(src, state))
			why = "it is sbxrun's own state (.sbxrun in the workdir)";
		if (why) {
			sbx_err_set(err, EPERM, "mount source '%s' refused: %s", m->source, why);
			goto out;
		}
		sp = pin(v, "mount source", m->source, src, err);
		if (sp == NULL)
			goto out;
		if (!S_ISDIR(sp->st.st_mode) && !S_ISREG(sp->st.st_mode)) {
			sbx_err_set(err, EPERM,
			    "mount source '%s' refused: only directories and regular files can be "
			    "mounted",
			    m->source);
			goto out;
		}
		why = forbidden_by_id(sp, ids, true);
		if (why) {
			sbx_err_set(err, EPERM, "mount source '%s' refused: %s", m->source, why);
			goto out;
		}
		if (check_target(v->pins[0].fd, m, &sp->st, err) < 0)
			goto out;
		free(m->source);
		m->source = steal_ptr(&src);
	}
	r = 0;
out:
	free(ids);
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
	return v->npins > 0 ? v->pins[0].fd : -1;
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
	sbx_strv_free(&v->homes);
	sbx_strv_free(&v->hidden);
	sbx_strv_free(&v->roots);
	sbx_strv_free(&v->read);
	memset(v, 0, sizeof(*v));
}
