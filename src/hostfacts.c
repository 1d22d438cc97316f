#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>

#include "linux-statat.h"
#endif
/* configure's static glibc; config.h is shared with the macOS gate's
 * compile, which has no glibc. */
#if defined(SBX_STATIC_LIBC) && defined(__GLIBC__)
#define SBX_NSS_PINNED 1
#endif
#ifdef SBX_NSS_PINNED
#include <fcntl.h>
#include <nss.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#endif

#include "hostfacts.h"
#include "resolve.h"

/* Where path is looked up: on Linux through the pins of ids->fs
 * (sbx_fsview_at()), so that a name the plan looks at below the workdir
 * (.git, .envrc, ...) is an entry of the very directory the jail is built
 * from, whatever was put at the workdir's name since it was pinned
 * (doc/design/paths.md); otherwise by name. */
static const char *
host_where(const struct sbx_host_ids *ids, const char *path, int *dir)
{
#ifdef __linux__
	return sbx_fsview_at(ids ? ids->fs : NULL, path, dir);
#else
	(void)ids;
	*dir = AT_FDCWD;
	return path;
#endif
}

/* The type of what name names in dir, following no final symlink. On
 * Linux a mount's root there (a local user's FUSE server that never
 * answers, on a name sbxrun looks at) is described from what the kernel
 * has cached and never asked: the type is all the plan needs, and an
 * inode's type does not change (doc/design/idmap-covers.md, "Other
 * mounts below a tree"). */
static int
host_type(int dir, const char *name, mode_t *type)
{
#ifdef __linux__
	const int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC |
	    (*name == '\0' ? AT_EMPTY_PATH : 0);
	struct statx sx;

	if (statx(dir, name, flags, STATX_TYPE, &sx) == 0) {
		*type = sx.stx_mode & S_IFMT;
		return 0;
	}
	/* A FUSE mount that refuses sbxrun tells no type, only that it is
	 * a mount's root; the sandbox cannot enter it either. */
	if (errno == EACCES && statx(dir, name, flags, 0, &sx) == 0 &&
	    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		*type = S_IFDIR;
		return 0;
	}
	return -1;
#else
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	*type = st.st_mode & S_IFMT;
	return 0;
#endif
}

static enum sbx_file_kind
host_kind(void *ctx, const char *path, char **target)
{
	const struct sbx_host_ids *ids = ctx;
	mode_t type;
	int dir;
	const char *name = host_where(ids, path, &dir);

	/* A secret the resolution found missing is missing for the plan:
	 * the list is a snapshot taken as the run starts (resolve.h). Only
	 * by name: below a pin the plan looks at the pinned directory,
	 * which need not be what the name leads to. */
	if (ids != NULL && sbx_fsview_missing(ids->fs, path))
		return SBX_KIND_NONE;
	/* A name below a temp workdir seen empty when pinned: missing, by
	 * the same snapshot rule (resolve.h). */
	if (ids != NULL && ids->fs != NULL && ids->fs->workdir_empty && *name != '\0' &&
	    dir == sbx_fsview_workdir_fd(ids->fs))
		return SBX_KIND_NONE;
	if (host_type(dir, name, &type) < 0)
		return SBX_KIND_NONE;
	if (S_ISLNK(type)) {
		if (target) {
			char buf[4096];
			ssize_t n = readlinkat(dir, name, buf, sizeof(buf) - 1);

			if (n < 0)
				return SBX_KIND_NONE;
			buf[n] = '\0';
			*target = sbx_xstrdup(buf);
		}
		return SBX_KIND_SYMLINK;
	}
	return S_ISDIR(type) ? SBX_KIND_DIR : SBX_KIND_FILE;
}

/* The names in the directory fd (taken), no "." or "..". */
static int
read_names(int fd, struct sbx_strv *names)
{
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		sbx_strv_push(names, de->d_name);
	}
	closedir(d);
	return 0;
}

static int
host_list(void *ctx, const char *path, struct sbx_strv *names)
{
	int dir;
	const char *name = host_where(ctx, path, &dir);

	return read_names(
	    openat(dir, *name ? name : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), names);
}

/* One name of dir, not followed, without entering another mount. */
static bool
here(int dir, const char *name)
{
	struct stat st;

#ifdef __linux__
	return sbx_lstat_here(dir, name, sbx_fs_local(dir), &st) == 0;
#else
	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
#endif
}

bool
sbx_host_is_git_dir(int dir)
{
	return dir >= 0 && here(dir, "HEAD") &&
	    ((here(dir, "objects") && here(dir, "refs")) || here(dir, "commondir"));
}

/* host_list(), refusing to enter another mount or follow a link on the
 * way (openat2's RESOLVE_NO_XDEV fails before the mounted file system is
 * asked anything). */
static int
host_list_here(void *ctx, const char *path, struct sbx_strv *names)
{
#ifdef __linux__
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int dir;
	const char *name = host_where(ctx, path, &dir);

	return read_names(
	    (int)syscall(SYS_openat2, dir, *name ? name : ".", &how, sizeof(how)), names);
#else
	return host_list(ctx, path, names);
#endif
}

#ifdef __linux__
/* Whether the mode bits of the file at fd (O_PATH) are all that decides
 * who may read it, as host_sealed() assumes: a local file system that
 * checks permissions in the kernel by the mode and POSIX ACLs, and no
 * access ACL on the file when the group bits grant something (with an
 * ACL they are its mask, and a named user or group entry may grant up to
 * it to a uid the owning group does not hold). On a network or FUSE file
 * system a server or a daemon decides, and the mode proves nothing. */
static bool
mode_decides(int fd, mode_t group_bits)
{
	char proc[32];
	struct statfs sf;

	/* Overlayfs (a container's root) judges by its layers' inodes,
	 * which are on such a file system, and shows their ACLs. */
	if (!sbx_fs_local(fd) &&
	    !(fstatfs(fd, &sf) == 0 && (unsigned long)sf.f_type == 0x794C7630UL))
		return false;
	if (group_bits == 0)
		return true;
	/* getxattr(2) follows the descriptor's magic link to the very inode
	 * stat'ed (an O_PATH descriptor has no f*xattr calls). */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return getxattr(proc, "system.posix_acl_access", NULL, 0) < 0 &&
	    (errno == ENODATA || errno == EOPNOTSUPP);
}
#endif

/* Whether file permissions alone keep the sandbox's ids from reading path
 * (and, for a directory, from searching it). Judged on the file the name
 * leads to now; when in doubt, not sealed (the plan then hides it). */
static bool
host_sealed(void *ctx, const char *path)
{
	const struct sbx_host_ids *ids = ctx;
	struct stat st;
	mode_t other;
	int dir;
	const char *name;

	if (ids == NULL)
		return false;
	name = host_where(ids, path, &dir);
#ifdef __linux__
	_cleanup_close_ int fd =
	    *name ? openat(dir, name, O_PATH | O_CLOEXEC) : fcntl(dir, F_DUPFD_CLOEXEC, 0);

	if (fd < 0 || fstat(fd, &st) < 0)
		return false;
#elif defined(AT_EMPTY_PATH)
	if (fstatat(dir, name, &st, *name == '\0' ? AT_EMPTY_PATH : 0) < 0)
		return false;
#else
	if (fstatat(dir, name, &st, 0) < 0)
		return false;
#endif
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
#ifdef __linux__
	return mode_decides(fd, st.st_mode & (other << 3));
#else
	/* Extended ACLs are not looked for here: nothing outside Linux
	 * lowers a plan that asks. */
	return true;
#endif
}

void
sbx_host_facts_init(struct sbx_fsfacts *facts, const struct sbx_host_ids *ids)
{
	*facts = (struct sbx_fsfacts){
		.ctx = (void *)ids,
		.kind = host_kind,
		.list = host_list,
		.list_here = host_list_here,
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

int
sbx_account_parse(
    const char *out, size_t len, uid_t uid, struct sbx_account *acct, struct sbx_err *err)
{
	const char *field[7], *p = out, *end;
	size_t flen[7];
	char want[24];
	size_t i;

	acct->name = acct->home = NULL;
	if (len == 0 || out[len - 1] != '\n')
		return sbx_err_set(
		    err, EINVAL, "getent passwd %lu: no complete line", (unsigned long)uid);
	end = out + len - 1;
	for (i = 0; i + 1 < len; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			return sbx_err_set(err, EINVAL,
			    "getent passwd %lu: not one line of printable text",
			    (unsigned long)uid);
	for (i = 0; i < 7; i++) {
		const char *colon = memchr(p, ':', (size_t)(end - p));

		if (i < 6 && colon == NULL)
			return sbx_err_set(err, EINVAL, "getent passwd %lu: fewer than 7 fields",
			    (unsigned long)uid);
		if (i == 6 && colon != NULL)
			return sbx_err_set(err, EINVAL, "getent passwd %lu: more than 7 fields",
			    (unsigned long)uid);
		field[i] = p;
		flen[i] = (size_t)((i < 6 ? colon : end) - p);
		p = i < 6 ? colon + 1 : end;
	}
	/* The uid field must be the very number asked for, written the way
	 * getent writes it: no sign, no leading zero, no blank. */
	snprintf(want, sizeof(want), "%lu", (unsigned long)uid);
	if (flen[2] != strlen(want) || memcmp(field[2], want, flen[2]) != 0)
		return sbx_err_set(err, EINVAL, "getent passwd %lu: the entry is for another uid",
		    (unsigned long)uid);
	if (flen[3] == 0 || strspn(field[3], "0123456789") < flen[3])
		return sbx_err_set(
		    err, EINVAL, "getent passwd %lu: the gid is not a number", (unsigned long)uid);
	if (flen[0] == 0)
		return sbx_err_set(
		    err, EINVAL, "getent passwd %lu: the name is empty", (unsigned long)uid);
	if (flen[5] > 0 && field[5][0] != '/')
		return sbx_err_set(
		    err, EINVAL, "getent passwd %lu: the home is not absolute", (unsigned long)uid);
	acct->name = sbx_xstrndup(field[0], flen[0]);
	acct->home = sbx_xstrndup(field[5], flen[5]);
	return 0;
}

bool
sbx_nsswitch_files_only(const char *conf, const char *db)
{
	size_t dblen = strlen(db);
	bool seen = false;
	const char *line = conf;

	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n'), *p = line;
		const char *stop = end ? end : line + strlen(line);
		bool in_action = false;
		int sources = 0;

		line = end ? end + 1 : NULL;
		p += strspn(p, " \t");
		if ((size_t)(stop - p) <= dblen || strncasecmp(p, db, dblen) != 0 ||
		    p[dblen] != ':')
			continue;
		p += dblen + 1;
		while (p < stop && *p != '#') {
			size_t n;

			if (*p == ' ' || *p == '\t' || *p == '\r') {
				p++;
				continue;
			}
			if (in_action || *p == '[') {
				in_action = *p != ']';
				p++;
				continue;
			}
			n = strcspn(p, " \t\r\n#[");
			if (p + n > stop)
				n = (size_t)(stop - p);
			if (n != 5 || strncmp(p, "files", 5) != 0)
				return false;
			sources++;
			p += n;
		}
		if (sources == 0)
			return false;
		seen = true;
	}
	return seen;
}

void
sbx_account_free(struct sbx_account *acct)
{
	free(acct->name);
	free(acct->home);
	acct->name = acct->home = NULL;
}

#ifdef SBX_NSS_PINNED
/* How long getent may take, and the most it may print (one passwd line). */
#define GETENT_TIMEOUT_MS 3000
#define GETENT_MAX 4096

/* Fixes the sources of every NSS database sbxrun or its helpers could
 * query to the ones built into glibc (since 2.34 "files" and "dns" live in
 * libc itself). Without it, a lookup that "files" cannot answer goes on
 * to the next source of nsswitch.conf, and a static glibc dlopen()s that
 * module: a shared object built against the system's glibc, not the one
 * linked in (a static sbxrun asked for a uid not in /etc/passwd on a
 * `passwd: files systemd` machine crashed in libnss_systemd). Pinning a
 * database also turns nscd off for it. The caller's own account is read
 * from /etc/passwd without NSS (files_lookup()). */
int
sbx_nss_pin(struct sbx_err *err)
{
	static const char *const files_only[] = { "passwd", "group", "shadow", "services",
		"protocols", "networks" };
	static int done; /* 1 pinned, -1 failed */
	size_t i;

	if (done != 0)
		return done > 0
		    ? 0
		    : sbx_err_set(err, EINVAL, "cannot pin the user databases to files");
	done = -1;
	for (i = 0; i < sizeof(files_only) / sizeof(files_only[0]); i++)
		if (__nss_configure_lookup(files_only[i], "files") != 0)
			return sbx_err_set(
			    err, EINVAL, "cannot pin the %s database to files", files_only[i]);
	if (__nss_configure_lookup("hosts", "files dns") != 0)
		return sbx_err_set(err, EINVAL, "cannot pin the hosts database to files and dns");
	done = 1;
	return 0;
}

/* Whether this machine's nsswitch.conf names "files" alone for passwd; a
 * missing or unreadable file is not taken to say so. */
static bool
passwd_files_only(void)
{
	char buf[16384];
	FILE *f = fopen("/etc/nsswitch.conf", "re");
	size_t n;

	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	/* A file larger than the buffer is not judged on a part of it. */
	if (ferror(f) || !feof(f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	buf[n] = '\0';
	return strlen(buf) == n && sbx_nsswitch_files_only(buf, "passwd");
}

static long
ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(deadline->tv_sec - now.tv_sec) * 1000 +
	    (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Asks the system's own, dynamically linked getent for uid's entry, which
 * goes through every source nsswitch.conf names (LDAP, sssd, systemd's
 * userdb) with the system's glibc. It runs with no inherited descriptor
 * but its output pipe, /dev/null for the others, a fixed environment and
 * default signals, and is killed after GETENT_TIMEOUT_MS. */
static int
getent_passwd(uid_t uid, struct sbx_account *acct, struct sbx_err *err)
{
	static const char *const paths[] = { "/usr/bin/getent", "/bin/getent" };
	char num[24], buf[GETENT_MAX + 1];
	char *argv[] = { (char *)"getent", (char *)"passwd", num, NULL };
	char *envp[] = { (char *)"PATH=/usr/bin:/bin", (char *)"LC_ALL=C", NULL };
	const char *path = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct timespec deadline;
	sigset_t none, all;
	size_t len = 0, i;
	bool late = false, big = false;
	int fds[2], status, e;
	pid_t pid;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && path == NULL; i++)
		if (access(paths[i], X_OK) == 0)
			path = paths[i];
	if (path == NULL)
		return sbx_err_set(err, ENOENT,
		    "cannot find the home of uid %lu: not in /etc/passwd, and no "
		    "/usr/bin/getent to ask the system's other user sources",
		    (unsigned long)uid);
	snprintf(num, sizeof(num), "%lu", (unsigned long)uid);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return sbx_err_sys(err, "cannot run %s passwd %s", path, num);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	/* A process group of its own, so that a timeout kills whatever it
	 * started too. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(
	    &attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	e = posix_spawn(&pid, path, &fa, &attr, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(fds[1]);
	if (e != 0) {
		close(fds[0]);
		errno = e;
		return sbx_err_sys(err, "cannot run %s passwd %s", path, num);
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += GETENT_TIMEOUT_MS / 1000;
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		long left = ms_left(&deadline);
		ssize_t n;

		if (left <= 0) {
			late = true;
			break;
		}
		if (poll(&pfd, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			late = true;
			break;
		}
		if (pfd.revents == 0)
			continue;
		/* One byte more than the most taken: a full buffer that is
		 * also the whole answer is not refused. */
		n = read(fds[0], buf + len, sizeof(buf) - len);
		if (n > 0 && len + (size_t)n == sizeof(buf)) {
			big = true;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	/* Its end, within the same deadline: one that closed its output
	 * and hangs is killed too. */
	while (!late && !big) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return sbx_err_sys(err, "%s passwd %s", path, num);
		if (ms_left(&deadline) <= 0)
			late = true;
		else
			(void)poll(NULL, 0, 5);
	}
	if (late || big) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return sbx_err_sys(err, "%s passwd %s", path, num);
	}
	if (late)
		return sbx_err_set(err, ETIMEDOUT,
		    "cannot find the home of uid %lu: not in /etc/passwd, and %s passwd %s "
		    "did not answer within %d s",
		    (unsigned long)uid, path, num, GETENT_TIMEOUT_MS / 1000);
	if (big)
		return sbx_err_set(
		    err, EINVAL, "getent passwd %s: more than %d bytes", num, GETENT_MAX);
	/* getent(1): 2 is "key not found", what getpwuid()'s NULL means. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2 && len == 0)
		return 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return sbx_err_set(err, EIO,
		    "cannot find the home of uid %lu: not in /etc/passwd, and %s passwd %s "
		    "failed (%s %d)",
		    (unsigned long)uid, path, num, WIFEXITED(status) ? "status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return sbx_account_parse(buf, len, uid, acct, err);
}
#endif

#ifdef SBX_NSS_PINNED
/* /etc/passwd's entry for uid into acct: what the "files" source answers
 * (glibc parses each line with the same code), without setting NSS up,
 * which reads nsswitch.conf and allocates for every database (~20 us a
 * run here, doc/design/startup.md, section 31). 1 found, 0 not. */
static int
files_lookup(uid_t uid, struct sbx_account *acct)
{
	struct passwd pw, *r = NULL;
	size_t size = 1024;
	char *buf = sbx_xmalloc(size);
	FILE *f = fopen("/etc/passwd", "re");
	int e;

	while (f != NULL && (e = fgetpwent_r(f, &pw, buf, size, &r)) != ENOENT) {
		if (e == ERANGE && size < (1U << 20)) {
			/* The stream is back at the line's start. */
			free(buf);
			buf = sbx_xmalloc(size *= 2);
			continue;
		}
		if (e != 0)
			break;
		if (r->pw_uid == uid) {
			acct->name = sbx_xstrdup(r->pw_name);
			acct->home = r->pw_dir ? sbx_xstrdup(r->pw_dir) : NULL;
			break;
		}
	}
	if (f != NULL)
		fclose(f);
	free(buf);
	return acct->name != NULL;
}
#else
int
sbx_nss_pin(struct sbx_err *err)
{
	(void)err;
	return 0;
}
#endif

int
sbx_account_lookup(uid_t uid, struct sbx_account *acct, struct sbx_err *err)
{
	acct->name = acct->home = NULL;
#ifdef SBX_NSS_PINNED
	/* Never a lookup that could load a module of another glibc. */
	if (files_lookup(uid, acct))
		return 0;
	/* Where "files" is the only source, /etc/passwd's answer is the
	 * system's: nothing to ask. */
	if (passwd_files_only())
		return 0;
	return getent_passwd(uid, acct, err);
#else
	struct passwd *pw = getpwuid(uid);

	(void)err;
	if (pw != NULL) {
		acct->name = sbx_xstrdup(pw->pw_name);
		acct->home = pw->pw_dir ? sbx_xstrdup(pw->pw_dir) : NULL;
	}
	return 0;
#endif
}
