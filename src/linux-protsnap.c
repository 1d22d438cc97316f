#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "keeper.h"
#include "linux-protsnap.h"
#include "linux-statat.h"
#include "resolve.h"

/* Editor folders and rc files are small; a copy that grows past these is
 * not what the list is about, and the caller falls back to rules. */
#define SNAP_MAX_BYTES (64u << 20)
#define SNAP_MAX_ENTRIES 20000u
#define SNAP_MAX_DEPTH 32

struct snap_entry {
	char *rel;
	dev_t dev;
	ino_t ino;
	mode_t type;
	bool owners_lost; /* the copy could not take every owner and group */
};

struct sbx_protsnap {
	struct sbx_keeper *keeper; /* made the copy's directory, or NULL */
	int wd;
	char *dir; /* the private copy: dir/N is entry N */
	int dfd; /* dir, O_PATH, as made: its name is not looked up again */
	struct snap_entry *v;
	size_t n;
	struct timespec start;
};

struct budget {
	unsigned long long bytes;
	unsigned entries;
	bool bounded;
	/* Taking the copy: a regular file with another link fails it
	 * (linked), and where (the path being copied, relative to the
	 * workdir) names it. */
	bool one_link, linked;
	char where[4096];
	/* An entry's owner or group could not be given to what was made
	 * for it (only root gives a file away). */
	bool owners_lost;
};

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Opens the directory holding rel (from wd, following nothing) with
 * O_PATH and points *leaf at rel's last component. */
static int
open_parent(int wd, const char *rel, char **copy, const char **leaf)
{
	char *slash;
	struct stat st;
	int fd;

	*copy = sbx_xstrdup(rel);
	slash = strrchr(*copy, '/');
	if (slash == NULL) {
		*leaf = *copy;
		return fcntl(wd, F_DUPFD_CLOEXEC, 3);
	}
	*slash = '\0';
	*leaf = slash + 1;
	fd = sbx_open_nofollow(wd, *copy, &st);
	if (fd >= 0 && !S_ISDIR(st.st_mode)) {
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	return fd;
}

static int
copy_data(int in, int out, struct budget *b)
{
	char buf[65536];

	for (;;) {
		ssize_t r = read(in, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return (int)r;
		b->bytes += (unsigned long long)r;
		if (b->bounded && b->bytes > SNAP_MAX_BYTES) {
			errno = EFBIG;
			return -1;
		}
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			off += w;
		}
	}
}

/* Whether fd, opened by the name a mkdirat(0700) just made, is what it
 * made: ours, empty, no access for others. The restore makes directories
 * in a workdir that may be lent to uid 65534, and a second sandbox on it
 * can exchange the new name with another directory there between the two
 * calls (within one directory, RENAME_EXCHANGE needs no right on the
 * directories it moves); that one would be filled and given the
 * protected entry's mode. What passes is at worst an empty 0700
 * directory of ours. */
static bool
made_here(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 077) && sbx_dir_empty(fd))
		return true;
	errno = EEXIST;
	return false;
}

/* Gives fd, a file or directory made for st, st's owner and group where
 * it has not got them (a directory's set-group-ID bit may have given the
 * group); b->owners_lost when it cannot. */
static void
chown_made(int fd, const struct stat *st, struct budget *b)
{
	struct stat now;

	if (fstat(fd, &now) < 0 ||
	    ((now.st_uid != st->st_uid || now.st_gid != st->st_gid) &&
		fchown(fd, st->st_uid, st->st_gid) < 0))
		b->owners_lost = true;
}

/* chown_made() for the symlink just made at dir/name, through a
 * descriptor of what is there now (fchownat() by name would act on
 * whatever a second sandbox on a lent workdir exchanged the name with,
 * within the same directory, meanwhile), and only if that is a symlink
 * of ours. */
static void
chown_link(int dir, const char *name, const struct stat *st, struct budget *b)
{
	_cleanup_close_ int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat now;

	if (fd < 0 || fstat(fd, &now) < 0 || !S_ISLNK(now.st_mode) || now.st_uid != geteuid())
		b->owners_lost = true;
	else if ((now.st_uid != st->st_uid || now.st_gid != st->st_gid) &&
	    fchownat(fd, "", st->st_uid, st->st_gid, AT_EMPTY_PATH) < 0)
		b->owners_lost = true;
}

/* Copies sdir/sname to ddir/dname (which must not exist), following no
 * symlink and entering no other mount (EXDEV: the caller then holds the
 * paths by rules instead): regular files, directories and symlinks, with
 * their owner and group (where the caller may give them: b->owners_lost
 * says where not), mode bits (no set-id) and times; other kinds are
 * skipped. local says sdir is on a local filesystem (sbx_statx_here()). */
static int
copy_tree(int sdir, const char *sname, bool local, int ddir, const char *dname, int depth,
    struct budget *b)
{
	struct stat st;
	int in = -1, out = -1, r = -1;
	const struct timespec *times = NULL;

	if (sbx_lstat_here(sdir, sname, local, &st) < 0)
		return -1;
	if (b->bounded && ++b->entries > SNAP_MAX_ENTRIES) {
		errno = EFBIG;
		return -1;
	}
	times = (const struct timespec[2]){ st.st_atim, st.st_mtim };
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(sdir, sname, target, sizeof(target) - 1);

		if (n < 0)
			return -1;
		target[n] = '\0';
		if (symlinkat(target, ddir, dname) < 0)
			return -1;
		chown_link(ddir, dname, &st, b);
		utimensat(ddir, dname, times, AT_SYMLINK_NOFOLLOW);
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		struct stat is;

		in = sbx_open_here(sdir, sname, O_RDONLY | O_NONBLOCK);
		if (in < 0 || fstat(in, &is) < 0)
			goto out;
		/* The sandbox may write the entry during the run, and a write
		 * reaches the inode, which every other name of it shows: a
		 * link to a file outside the workdir would carry the
		 * sandbox's bytes there, and putting a new file back at this
		 * name does not undo that. Rules keep the name read-only. */
		if (b->one_link && is.st_nlink > 1) {
			b->linked = true;
			errno = EMLINK;
			goto out;
		}
		out =
		    openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out < 0 || copy_data(in, out, b) < 0)
			goto out;
	} else if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *e;

		if (depth > SNAP_MAX_DEPTH) {
			errno = ELOOP;
			return -1;
		}
		if (mkdirat(ddir, dname, 0700) < 0)
			return -1;
		in = sbx_open_here(sdir, sname, O_RDONLY | O_DIRECTORY);
		out = openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (in < 0 || out < 0 || !made_here(out))
			goto out;
		d = fdopendir(in);
		if (d == NULL)
			goto out;
		in = -1; /* the DIR's now */
		r = 0;
		while (r == 0 && (errno = 0, e = readdir(d)) != NULL) {
			size_t len = strlen(b->where);

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (b->one_link)
				snprintf(b->where + len, sizeof(b->where) - len, "/%s", e->d_name);
			r = copy_tree(dirfd(d), e->d_name, local, out, e->d_name, depth + 1, b);
			/* Where the copy stopped stays named. */
			if (r == 0)
				b->where[len] = '\0';
		}
		if (r == 0 && errno != 0)
			r = -1;
		closedir(d);
		if (r < 0)
			goto out;
		r = -1;
	} else {
		return 0; /* a fifo, socket or device: nothing a tool loads */
	}
	/* What sbxrun makes is the caller's (root's for a root caller),
	 * and an entry put back in another user's workdir must be theirs
	 * again: the copy takes the owner and group too, and the put-back
	 * reads them from it. Before the mode: a change of owner may clear
	 * set-id bits (the copy keeps none). */
	chown_made(out, &st, b);
	if (fchmod(out, st.st_mode & 0777) < 0)
		goto out;
	futimens(out, times);
	r = 0;
out:
	close_fd(&in);
	close_fd(&out);
	return r;
}

int
sbx_protsnap_take(struct sbx_keeper *k, int wd, const struct sbx_strv *watch,
    struct sbx_protsnap **out, struct sbx_err *err)
{
	struct sbx_protsnap *s = sbx_xcalloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");
	struct budget b = { .bounded = true, .one_link = true };
	int dfd = -1;

	*out = NULL;
	s->keeper = k;
	s->dfd = -1;
	s->wd = fcntl(wd, F_DUPFD_CLOEXEC, 3);
	if (s->wd < 0) {
		sbx_err_sys(err, "cannot make a private copy of the protected paths");
		goto fail;
	}
	/* Made by the keeper, which removes it with the run even when sbxrun
	 * is killed (doc/design/lifecycle.md). */
	if (k != NULL) {
		if (sbx_keeper_mkdtemp(
			k, tmp && tmp[0] == '/' ? tmp : "/tmp", "sbxrun-protect", &s->dir, err) < 0)
			goto fail;
	} else {
		s->dir =
		    sbx_xasprintf("%s/sbxrun-protect.XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
		if (mkdtemp(s->dir) == NULL) {
			sbx_err_sys(err, "cannot make a private copy of the protected paths");
			free(s->dir);
			s->dir = NULL;
			goto fail;
		}
	}
	/* The keeper's descriptor of what it made: whoever owns $TMPDIR
	 * may give the name to another directory, whose content the
	 * restore would then put into the workdir as the original. */
	if (k != NULL)
		s->dfd = sbx_keeper_tmp_fd(k, s->dir, &dfd, err) < 0 ? -1 : dfd;
	else
		s->dfd = open(s->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dfd = s->dfd;
	if (dfd < 0) {
		if (k == NULL)
			sbx_err_sys(err, "cannot open %s", s->dir);
		goto fail;
	}
	/* ctime comes from the coarse clock (the fine one may be ahead of
	 * what the first change in the run records), in whole seconds on
	 * some filesystems: sbx_fs_clock(). */
	sbx_fs_clock(s->wd, &s->start);
	s->v = sbx_xcalloc(watch->n ? watch->n : 1, sizeof(*s->v));
	for (size_t i = 0; i < watch->n; i++) {
		_cleanup_free_ char *copy = NULL, *name = sbx_xasprintf("%zu", i);
		const char *leaf;
		int pfd = open_parent(s->wd, watch->v[i], &copy, &leaf);
		struct stat st;
		int r = -1;

		bool local = pfd >= 0 && sbx_fs_local(pfd);

		strlcpy(b.where, watch->v[i], sizeof(b.where));
		b.owners_lost = false;
		if (pfd >= 0 && sbx_lstat_here(pfd, leaf, local, &st) == 0)
			r = copy_tree(pfd, leaf, local, dfd, name, 0, &b);
		if (pfd >= 0)
			close(pfd);
		if (r < 0 && b.linked) {
			sbx_err_set(err, EMLINK,
			    "%s has another hard link: what the sandbox wrote there would "
			    "reach the file under its other names, which no copy puts back",
			    b.where);
			goto fail;
		}
		if (r < 0 && errno == EXDEV) {
			sbx_err_set(err, EXDEV,
			    "cannot copy %s: another filesystem is mounted there or below it",
			    watch->v[i]);
			goto fail;
		}
		if (r < 0) {
			sbx_err_sys(err, "cannot copy %s%s", watch->v[i],
			    errno == EFBIG ? " (the protected paths are too large to copy)" : "");
			goto fail;
		}
		s->v[s->n++] = (struct snap_entry){
			.rel = sbx_xstrdup(watch->v[i]),
			.dev = st.st_dev,
			.ino = st.st_ino,
			.type = st.st_mode & S_IFMT,
			.owners_lost = b.owners_lost,
		};
	}
	*out = s;
	return 0;
fail:
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].rel);
	s->n = 0;
	sbx_protsnap_restore(s, NULL);
	return -1;
}

/* Whether anything at or below dir/name, on a local filesystem (whose
 * times are the kernel's own), changed since t; any doubt (too deep, too
 * many, unreadable) counts as a change. */
static bool
touched(int dir, const char *name, const struct timespec *t, int depth, unsigned *left)
{
	struct stat st;
	struct dirent *e;
	bool hit = false;
	DIR *d;
	int fd;

	/* A mount there now (EXDEV) counts as a change, and is not entered. */
	if (sbx_lstat_here(dir, name, true, &st) < 0 || sbx_changed_since(&st, t) || *left == 0 ||
	    depth > SNAP_MAX_DEPTH)
		return true;
	(*left)--;
	if (!S_ISDIR(st.st_mode))
		return false;
	fd = sbx_open_here(dir, name, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	while (!hit && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			hit = touched(dirfd(d), e->d_name, t, depth + 1, left);
	closedir(d);
	return hit;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads into *v the sorted names in the directory fd (taken) but "." and
 * "..", at most max of them; -1 when it cannot be read or holds more. */
static int
names_of(int fd, size_t max, char ***v, size_t *n)
{
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int rc = 0;

	*v = NULL;
	*n = 0;
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((errno = 0, e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (*n == max) {
			errno = EFBIG;
			break;
		}
		*v = sbx_xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = sbx_xstrdup(e->d_name);
	}
	if (errno != 0)
		rc = -1;
	closedir(d);
	if (*n)
		qsort(*v, *n, sizeof(**v), cmp_name);
	return rc;
}

static void
names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Whether the regular files in and copy, of the same size, hold different
 * bytes; any error counts as a difference. */
static bool
bytes_differ(int in, int copy)
{
	char a[32768], b[sizeof(a)];

	for (;;) {
		ssize_t n = read(in, a, sizeof(a)), m = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return true;
		while (m < n) {
			ssize_t r = read(copy, b + m, (size_t)(n - m));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return true;
			m += r;
		}
		if (n == 0)
			return read(copy, b, 1) != 0;
		if (memcmp(a, b, (size_t)n) != 0)
			return true;
	}
}

/* Whether dir/name (on a network or FUSE filesystem) differs from the copy
 * cdir/cname: its kind, its permission bits (the copy has no set-id bit,
 * so one there counts), a file's bytes, a symlink's target, a directory's
 * names and, in turn, each of its entries. A filesystem there reports
 * times from its server's clock, or lets the sandbox set the change time
 * with the modification time (handback.md, section 2), so the change time
 * cannot say what the run did; what is there against the copy can. Any
 * doubt (too deep, too many, unreadable, a fifo the copy skipped) counts
 * as a difference. */
static bool
differs(int dir, const char *name, int cdir, const char *cname, int depth, unsigned *left)
{
	struct stat st, cs;
	char **v = NULL, **cv = NULL;
	size_t n = 0, cn = 0;
	_cleanup_close_ int fd = -1, cfd = -1;
	bool hit = true;

	if (sbx_lstat_here(dir, name, false, &st) < 0 ||
	    fstatat(cdir, cname, &cs, AT_SYMLINK_NOFOLLOW) < 0 || *left == 0 ||
	    depth > SNAP_MAX_DEPTH || (st.st_mode & S_IFMT) != (cs.st_mode & S_IFMT) ||
	    (!S_ISLNK(st.st_mode) && (st.st_mode & 06777) != (cs.st_mode & 06777)))
		return true;
	(*left)--;
	if (S_ISLNK(st.st_mode)) {
		char a[4096], b[sizeof(a)];
		ssize_t la = readlinkat(dir, name, a, sizeof(a)),
			lb = readlinkat(cdir, cname, b, sizeof(b));

		return la < 0 || la != lb || memcmp(a, b, (size_t)la) != 0;
	}
	if (S_ISREG(st.st_mode)) {
		_cleanup_close_ int in = -1, copy = -1;

		if (st.st_size != cs.st_size)
			return true;
		in = sbx_open_here(dir, name, O_RDONLY | O_NONBLOCK);
		copy = openat(cdir, cname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		return in < 0 || copy < 0 || bytes_differ(in, copy);
	}
	if (!S_ISDIR(st.st_mode))
		return true;
	fd = sbx_open_here(dir, name, O_RDONLY | O_DIRECTORY);
	cfd = openat(cdir, cname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && cfd >= 0 && names_of(fcntl(fd, F_DUPFD_CLOEXEC, 3), *left, &v, &n) == 0 &&
	    names_of(fcntl(cfd, F_DUPFD_CLOEXEC, 3), *left, &cv, &cn) == 0 && n == cn) {
		hit = false;
		for (size_t i = 0; !hit && i < n; i++)
			hit = strcmp(v[i], cv[i]) != 0 ||
			    differs(fd, v[i], cfd, cv[i], depth + 1, left);
	}
	names_free(v, n);
	names_free(cv, cn);
	return hit;
}

static void
warn(struct sbx_strv *w, char *text)
{
	if (w)
		sbx_strv_push_take(w, text);
	else
		free(text);
}

/* Puts entry i back when the run touched it; false when the copy must
 * stay (it could not be put back). */
static bool
restore_one(struct sbx_protsnap *s, size_t i, int dfd, struct sbx_strv *warnings)
{
	const struct snap_entry *e = &s->v[i];
	_cleanup_free_ char *copy = NULL, *name = sbx_xasprintf("%zu", i), *aside = NULL;
	struct sbx_err err = { 0 };
	struct budget b = { .bounded = false };
	unsigned left = 2 * SNAP_MAX_ENTRIES;
	const char *leaf;
	struct stat st;
	int pfd = open_parent(s->wd, e->rel, &copy, &leaf);
	bool there, local;

	if (pfd < 0) {
		_cleanup_free_ char *made = NULL;
		_cleanup_free_ char *moved = sbx_move_aside_way(s->wd, e->rel, &made, &err);

		/* A watched entry passed through no symlink at the start (the
		 * plan leaves those alone): a symlink on the way now stands
		 * where the sandbox renamed or removed a directory, and would
		 * lead the caller's tools to a tree of its own. */
		if (moved)
			warn(warnings,
			    sbx_xasprintf("the sandbox made %s, where nothing may be made (a "
					  "symlink on the way to %s, which is protected); it was "
					  "moved aside to %s",
				made, e->rel, moved));
		else if (err.msg[0])
			warn(warnings, sbx_xasprintf("protected path %s: %s", e->rel, err.msg));
		warn(warnings,
		    sbx_xasprintf("protected path %s: the directory holding it is gone or was "
				  "replaced; the original stays in %s/%zu",
			e->rel, s->dir, i));
		return false;
	}
	local = sbx_fs_local(pfd);
	there = sbx_lstat_here(pfd, leaf, local, &st) == 0;
	if (there && st.st_dev == e->dev && st.st_ino == e->ino &&
	    (st.st_mode & S_IFMT) == e->type &&
	    !(local ? touched(pfd, leaf, &s->start, 0, &left)
		    : differs(pfd, leaf, dfd, name, 0, &left))) {
		close(pfd);
		return true;
	}
	if (there) {
		aside = sbx_move_aside_at(s->wd, e->rel, &err);
		if (aside == NULL) {
			warn(warnings,
			    sbx_xasprintf("protected path %s was changed in the run and could not "
					  "be moved aside (%s); the original stays in %s/%zu",
				e->rel, err.msg, s->dir, i));
			close(pfd);
			return false;
		}
	}
	if (copy_tree(dfd, name, sbx_fs_local(dfd), pfd, leaf, 0, &b) < 0) {
		warn(warnings,
		    sbx_xasprintf("protected path %s was changed in the run; the original could "
				  "not be put back (%s) and stays in %s/%zu",
			e->rel, strerror(errno), s->dir, i));
		close(pfd);
		return false;
	}
	close(pfd);
	/* Only root gives a file away: another caller puts another user's
	 * entry back as its own. */
	if (e->owners_lost || b.owners_lost)
		warn(warnings,
		    sbx_xasprintf("protected path %s was put back, but not all of it with "
				  "the owner and group it had: only root may give a file away",
			e->rel));
	if (aside)
		warn(warnings,
		    sbx_xasprintf("the sandbox changed %s, which is protected: what it left was "
				  "moved aside to %s and the original put back",
			e->rel, aside));
	else
		warn(warnings,
		    sbx_xasprintf("the sandbox removed %s, which is protected: the original was "
				  "put back",
			e->rel));
	return true;
}

void
sbx_protsnap_restore(struct sbx_protsnap *s, struct sbx_strv *warnings)
{
	bool keep = false;

	if (s == NULL)
		return;
	for (size_t i = 0; s->dfd >= 0 && i < s->n; i++)
		if (!restore_one(s, i, s->dfd, warnings))
			keep = true;
	if (s->dfd >= 0)
		close(s->dfd);
	/* A keeper's copy goes with the run's other directories, removed by
	 * the keeper, which checks that the name still leads to what it
	 * made. */
	if (s->dir && !keep && s->keeper == NULL) {
		struct sbx_err err = { 0 };

		sbx_rm_rf(s->dir, &err);
	} else if (s->dir && keep && s->keeper) {
		/* A copy that could not be put back stays where the warning
		 * says: the keeper must not remove it at the end. */
		sbx_keeper_forget(s->keeper, s->dir);
	}
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].rel);
	free(s->v);
	free(s->dir);
	if (s->wd >= 0)
		close(s->wd);
	free(s);
}

size_t
sbx_protsnap_fds(const struct sbx_protsnap *s, int *fds, size_t max)
{
	size_t n = 0;

	if (s == NULL)
		return 0;
	if (n < max && s->wd >= 0)
		fds[n++] = s->wd;
	if (n < max && s->dfd >= 0)
		fds[n++] = s->dfd;
	if (s->keeper && s->dir)
		n += sbx_keeper_forget_fds(s->keeper, s->dir, fds + n, max - n);
	return n;
}
