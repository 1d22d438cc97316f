#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "fsplan.h"
#include "linux-gitguard.h"
#include "linux-owner.h"
#include "linux-statat.h"

/* How many directories of the walk stay open at once: deeper ones push
 * their oldest ancestors' descriptors out, and those are reopened
 * through ".." on the way back up (checked against the inode recorded
 * on the way down). Depth costs memory, never descriptors. */
#define WALK_OPEN_DIRS 64

/* How many entries a warning names before it only counts the rest. */
#define WARN_NAMED 8

#ifndef SBX_NR_getxattrat
#define SBX_NR_getxattrat 464 /* x86-64 and arm64 alike (Linux 6.13) */
#endif

typedef int (*visit_fn)(
    struct sbx_lease *l, int fd, const struct stat *st, const char *path, struct sbx_err *err);

/* One directory on the walk's stack: its entries are read in full when it
 * is entered, so its descriptor is needed only to open them. */
struct frame {
	int fd; /* O_PATH, or -1 while pushed out */
	dev_t dev;
	ino_t ino;
	char **names;
	ino_t *inos; /* each name's, as the directory lists it */
	size_t n, next;
	size_t plen; /* the length of its path in walk.path */
	bool long_path; /* that path is longer than PATH_MAX */
};

struct walk {
	struct sbx_lease *l;
	visit_fn visit;
	struct frame *f;
	size_t depth, cap;
	char path[PATH_MAX]; /* the current entry's, for skips and warnings */
};

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

static struct sbx_lease_entry *
push(struct sbx_lease_entry **v, size_t *n, const struct stat *st)
{
	*v = sbx_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n] = (struct sbx_lease_entry){
		.dev = st->st_dev, .ino = st->st_ino, .gid = st->st_gid, .mode = st->st_mode
	};
	return &(*v)[(*n)++];
}

/* qsort and bsearch want a non-null array even when it is empty. */
static void
sort_entries(struct sbx_lease_entry *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_entry);
}

static struct sbx_lease_entry *
find(struct sbx_lease_entry *v, size_t n, const struct stat *st)
{
	struct sbx_lease_entry key = { .dev = st->st_dev, .ino = st->st_ino };

	return n ? bsearch(&key, v, n, sizeof(*v), cmp_entry) : NULL;
}

static void
fd_path(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* Changing the owner of a file drops its capabilities (the kernel removes
 * security.capability): such a file is not lent, so it stays intact.
 * Only a file someone may execute is asked (capabilities act at execve
 * only; the question goes through /proc and costs more than the rest of
 * an entry's lend, doc/design/handback.md). */
static bool
has_file_caps(int fd)
{
	char path[64];

	fd_path(path, sizeof(path), fd);
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
		    (!(st->st_mode & 0111) || !has_file_caps(fd));
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

/* Records that path could not be handed back (or lent) and why. */
static void
fail_entry(struct sbx_lease *l, const char *path, const char *why)
{
	if (l->nfailed++ < WARN_NAMED) {
		_cleanup_free_ char *q = sbx_diag_name(path, strlen(path));

		sbx_strv_push_take(&l->failed, sbx_xasprintf("%s (%s)", q, why));
	}
}

/* Reads every name in the directory fd (O_PATH) into f. */
static int
read_names(int fd, struct frame *f)
{
	int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (rfd < 0)
		return -1;
	d = fdopendir(rfd);
	if (d == NULL) {
		close(rfd);
		return -1;
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		f->names = sbx_xreallocarray(f->names, f->n + 1, sizeof(*f->names));
		f->inos = sbx_xreallocarray(f->inos, f->n + 1, sizeof(*f->inos));
		f->inos[f->n] = de->d_ino;
		f->names[f->n++] = sbx_xstrdup(de->d_name);
		errno = 0;
	}
	/* A directory read only in part is not read. */
	if (errno != 0) {
		int e = errno;

		closedir(d);
		errno = e;
		return -1;
	}
	closedir(d);
	return 0;
}

static void scan_listed(struct sbx_lease *l, const struct frame *f);

/* The path of entry name of f, in w->path; false when it would be longer
 * than PATH_MAX (no skip lies that deep, and warnings say so). */
static bool
path_set(struct walk *w, const struct frame *f, const char *name)
{
	size_t nlen = strlen(name);

	if (f->long_path || f->plen + 1 + nlen >= PATH_MAX)
		return false;
	w->path[f->plen] = '/';
	memcpy(w->path + f->plen + 1, name, nlen + 1);
	return true;
}

static const char *
path_of(const struct walk *w, bool ok)
{
	return ok ? w->path : "(a path longer than PATH_MAX)";
}

/* Enters the directory fd (taken), whose path is in w->path unless
 * long_path: its frame goes on the stack, pushing out the descriptor of
 * the ancestor WALK_OPEN_DIRS above it. */
static void
enter(struct walk *w, int fd, const struct stat *st, bool long_path)
{
	struct frame *f;

	if (w->depth == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->f = sbx_xreallocarray(w->f, w->cap, sizeof(*w->f));
	}
	f = &w->f[w->depth];
	*f = (struct frame){ .fd = fd, .dev = st->st_dev, .ino = st->st_ino };
	f->long_path = long_path;
	f->plen = long_path ? 0 : strlen(w->path);
	if (read_names(fd, f) < 0) {
		fail_entry(w->l, path_of(w, !long_path), strerror(errno));
		close(fd);
		for (size_t i = 0; i < f->n; i++)
			free(f->names[i]);
		free(f->names);
		free(f->inos);
		return;
	}
	if (w->l->scan != NULL)
		scan_listed(w->l, f);
	w->depth++;
	if (w->depth > WALK_OPEN_DIRS) {
		struct frame *old = &w->f[w->depth - 1 - WALK_OPEN_DIRS];

		close(old->fd);
		old->fd = -1;
	}
}

/* Leaves the top directory. When its parent's descriptor was pushed out,
 * it is reopened through ".." and must be the inode seen on the way
 * down; if the tree was moved meanwhile, the walk cannot go on (-1). */
static int
leave(struct walk *w)
{
	struct frame *f = &w->f[w->depth - 1];
	int rc = 0;

	if (w->depth > 1 && w->f[w->depth - 2].fd < 0) {
		struct frame *up = &w->f[w->depth - 2];
		struct stat st;

		up->fd = sbx_open_here(f->fd, "..", O_PATH | O_DIRECTORY);
		if (up->fd < 0 || fstat(up->fd, &st) < 0 || st.st_dev != up->dev ||
		    st.st_ino != up->ino) {
			if (!f->long_path)
				w->path[f->plen] = '\0';
			fail_entry(w->l, path_of(w, !f->long_path),
			    "it was moved during the walk, which stopped there");
			rc = -1;
		}
	}
	close(f->fd);
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	free(f->inos);
	w->depth--;
	return rc;
}

static int scan_entry(
    struct walk *w, struct frame *f, const char *name, bool ok, struct sbx_err *err);

/* Visits every entry of the tree at l->root, parents before what they
 * hold, with an explicit stack: no depth limit, and WALK_OPEN_DIRS
 * descriptors at most. Each entry is opened by name relative to its
 * parent's descriptor, never following a symlink, never entering another
 * mount or filesystem, so a rename elsewhere in the tree cannot redirect
 * the walk. A visit that fails stops the walk (-1 with err); an entry
 * that cannot be opened is recorded in l->failed and skipped. */
static int
walk(struct sbx_lease *l, visit_fn visit, struct sbx_err *err)
{
	struct walk w = { .l = l, .visit = visit };
	struct stat st;
	int fd, rc = 0;

	/* A lease starts from the descriptor it was given, never from the
	 * root's name. */
	fd = l->root_fd >= 0 ? fcntl(l->root_fd, F_DUPFD_CLOEXEC, 3) : -1;
	if (fd < 0)
		return sbx_err_sys(err, "cannot open %s", l->root);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return sbx_err_sys(err, "cannot stat %s", l->root);
	}
	if (st.st_dev != l->dev) {
		close(fd);
		return sbx_err_set(err, EXDEV, "%s is not the tree that was lent", l->root);
	}
	snprintf(w.path, sizeof(w.path), "%s", l->root);
	if (visit(l, fd, &st, w.path, err) < 0) {
		close(fd);
		return -1;
	}
	enter(&w, fd, &st, strlen(l->root) >= PATH_MAX - 1);
	while (w.depth > 0) {
		struct frame *f = &w.f[w.depth - 1];
		const char *name;
		bool ok;
		int cfd;

		if (rc < 0 || f->next == f->n) {
			if (leave(&w) < 0 && rc == 0)
				rc =
				    sbx_err_set(err, ESTALE, "%s changed during the walk", l->root);
			continue;
		}
		name = f->names[f->next++];
		ok = path_set(&w, f, name);
		if (l->scan != NULL) {
			if (scan_entry(&w, f, name, ok, err) < 0)
				rc = -1;
			continue;
		}
		cfd = sbx_open_here(f->fd, name, O_PATH);
		if (cfd < 0) {
			/* Gone, or a mount point (EXDEV): not this tree's. */
			if (errno != ENOENT && errno != EXDEV)
				fail_entry(l, path_of(&w, ok), strerror(errno));
			continue;
		}
		if (fstat(cfd, &st) < 0 || st.st_dev != l->dev || (ok && skipped(l, w.path))) {
			close(cfd);
			continue;
		}
		/* Moved directories may hold one another: each is walked
		 * once, or nesting them made the hand-back quadratic. */
		if (l->moved_walk && S_ISDIR(st.st_mode)) {
			const struct sbx_lease_entry *e = find(l->lent, l->nlent, &st);

			if (e != NULL && e->met) {
				close(cfd);
				continue;
			}
		}
		if (visit(l, cfd, &st, path_of(&w, ok), err) < 0) {
			close(cfd);
			rc = -1;
			continue;
		}
		if (S_ISDIR(st.st_mode))
			enter(&w, cfd, &st, !ok);
		else
			close(cfd);
	}
	free(w.f);
	return rc;
}

/* The file handle of the inode behind fd (O_PATH), or NULL where its
 * filesystem gives none. Taken at the lend for every entry lent: whoever
 * may rename in the directory holding it (another local user's shared
 * checkout in root's workdir) can move it out of the tree while it is
 * lent, out of the hand-back's walk, and back afterwards; the handle
 * still finds it. One call of ~0.5 us and ~30 bytes an entry. */
static struct file_handle *
handle_of(int fd)
{
	struct file_handle *h = sbx_xmalloc(sizeof(*h) + MAX_HANDLE_SZ);
	int mnt;

	h->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", h, &mnt, AT_EMPTY_PATH) < 0) {
		free(h);
		return NULL;
	}
	return sbx_xreallocarray(h, 1, sizeof(*h) + h->handle_bytes);
}

static int
visit_lend(
    struct sbx_lease *l, int fd, const struct stat *st, const char *path, struct sbx_err *err)
{
	struct sbx_lease_entry *e;

	if (st->st_uid == l->to) {
		push(&l->native, &l->nnative, st);
		return 0;
	}
	if (st->st_uid != l->owner || !lendable(fd, st))
		return 0;
	/* The group stays: the sandbox writes as the owner. */
	if (fchownat(fd, "", l->to, (gid_t)-1, AT_EMPTY_PATH) < 0)
		return sbx_err_sys(err, "cannot lend %s to uid %u", path, (unsigned)l->to);
	e = push(&l->lent, &l->nlent, st);
	e->path = sbx_xstrdup(path);
	e->fh = handle_of(fd);
	return 0;
}

/* Whether an attribute named name may stay on a file handed back: every
 * trusted.* and security.* one goes (file capabilities, IMA/EVM data, any
 * other LSM's), except the SELinux label, which the policy assigns and
 * the sandbox can only change where the policy lets it. */
static bool
xattr_kept(const char *name)
{
	if (strncmp(name, "trusted.", 8) == 0)
		return false;
	if (strncmp(name, "security.", 9) == 0)
		return strcmp(name, "security.selinux") == 0;
	return true;
}

/* Removes from the file behind fd (O_PATH) every attribute that
 * xattr_kept() refuses. The calls go through /proc/self/fd/N, which
 * leads to the very inode (a symlink's own, a fifo's without opening
 * it); root lists trusted.* there too. */
static int
scrub_xattrs(int fd)
{
	char path[64];
	_cleanup_free_ char *names = NULL;
	ssize_t n;

	fd_path(path, sizeof(path), fd);
	for (int tries = 0; tries < 4; tries++) {
		n = listxattr(path, NULL, 0);
		if (n <= 0)
			return n < 0 && errno != ENOTSUP ? -1 : 0;
		free(names);
		names = sbx_xmalloc((size_t)n);
		n = listxattr(path, names, (size_t)n);
		if (n >= 0 || errno != ERANGE)
			break;
	}
	if (n < 0)
		return -1;
	for (char *p = names; p < names + n; p += strlen(p) + 1)
		if (!xattr_kept(p) && removexattr(path, p) < 0 && errno != ENODATA)
			return -1;
	return 0;
}

/* A tick of the coarse clock is at most 10 ms (HZ 100), twice that. */
#define ACL_MARGIN_NS 20000000L

/* Whether st changed ACL_MARGIN_NS or more after since. */
static bool
acl_changed(const struct stat *st, const struct timespec *since)
{
	struct timespec t = *since;

	t.tv_nsec += ACL_MARGIN_NS;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return sbx_changed_since(st, &t);
}

static int
visit_return(
    struct sbx_lease *l, int fd, const struct stat *st, const char *path, struct sbx_err *err)
{
	struct sbx_lease_entry *e = find(l->lent, l->nlent, st);
	char fdp[64];
	struct stat now;
	gid_t gid;

	(void)err;
	if (e != NULL)
		e->met = true;
	if (st->st_uid != l->to || find(l->native, l->nnative, st) != NULL)
		return 0;
	if (e != NULL)
		gid = e->gid;
	else
		gid = st->st_gid == l->to_gid ? l->owner_gid : (gid_t)-1;
	if (fchownat(fd, "", l->owner, gid, AT_EMPTY_PATH) < 0) {
		fail_entry(l, path, strerror(errno));
		return 0;
	}
	/* The kernel drops set-id bits and security.capability on a change
	 * of owner (root's own chown included); what is left over, on a
	 * kernel or filesystem that keeps them, goes here, and so does a
	 * write permission for others (anyone could change the file root
	 * runs next). A change of owner adds no mode bit: without one of
	 * them before it, there is none after. */
	fd_path(fdp, sizeof(fdp), fd);
	if ((st->st_mode & (S_ISUID | S_ISGID | S_IWOTH)) && fstat(fd, &now) == 0 &&
	    !S_ISDIR(now.st_mode) && !S_ISLNK(now.st_mode) &&
	    (now.st_mode & (S_ISUID | S_ISGID | S_IWOTH)) &&
	    chmod(fdp, now.st_mode & 0777 & ~(mode_t)S_IWOTH) < 0)
		fail_entry(
		    l, path, "its set-id bits or write permission for others could not be removed");
	/* A directory keeps its mode through a change of owner: a set-group-ID
	 * bit the run gave one (what is made there takes its group) goes, one
	 * the caller's directory had when it was lent stays; the write for
	 * others is the git search's (linux-gitguard.c). */
	if (S_ISDIR(st->st_mode) && (st->st_mode & (S_ISUID | S_ISGID) & ~(e ? e->mode : 0)) &&
	    fstat(fd, &now) == 0 && S_ISDIR(now.st_mode) &&
	    chmod(fdp, now.st_mode & 07777 & ~((S_ISUID | S_ISGID) & ~(e ? e->mode : 0))) < 0)
		fail_entry(l, path, "its set-id bits could not be removed");
	/* An entry lent and not changed since (its change time is older than
	 * the lend's end, sbx_fs_clock(); a zero bound, as after a failed
	 * lend, holds for every entry) carries the attributes it had, the
	 * caller's: no attribute call changes a file without changing its
	 * change time. */
	if ((e == NULL || sbx_changed_since(st, &l->since)) && scrub_xattrs(fd) < 0)
		fail_entry(l, path, "its security.* or trusted.* attributes could not be removed");
	/* An ACL entry the sandbox (uid l->to) put on an entry it held,
	 * naming another local user, would outlive the change of owner:
	 * "user:1001:rwx" on root's build.sh let that user rewrite it. The
	 * caller's own ACLs stay on what the run did not touch: changed
	 * means ACL_MARGIN_NS after the lend's end, since the lend's own
	 * changes of owner may carry a later time than the coarse clock
	 * read after them (fine-grained change times) by up to a tick,
	 * while the sandbox's container is made after the lend by a daemon
	 * that takes many times that. */
	if (l->acls && (e == NULL || l->acls_all || acl_changed(st, &l->since))) {
		int rc = sbx_acl_reduce(fd);

		if (rc < 0)
			fail_entry(l, path, "its ACLs naming other users could not be removed");
		else if (rc == 2)
			fail_entry(l, path,
			    "it has ACL entries naming other users and another link, which may lie "
			    "outside: its ACLs were left as they are");
		else if (rc == 1 && l->nacl++ < WARN_NAMED)
			sbx_strv_push_take(&l->acl_removed, sbx_diag_name(path, strlen(path)));
	}
	return 0;
}

/* Whether the file name in dir carries file capabilities: getxattrat
 * (Linux 6.13) reads it by name without opening it, as the lend's
 * getxattr on /proc/self/fd/N does at twice the cost. */
static bool
name_has_caps(int dir, const char *name)
{
	struct {
		__u64 value;
		__u32 size, flags;
	} args = { 0 };
	char path[PATH_MAX];
	long r = -1;

	/* An O_PATH descriptor itself (name "") is refused with EBADF. */
	errno = ENOSYS;
	if (name[0])
		r = syscall(SBX_NR_getxattrat, dir, name, AT_SYMLINK_NOFOLLOW,
		    "security.capability", &args, sizeof(args));
	if (r < 0 && errno == ENOSYS) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d%s%s", dir, name[0] ? "/" : "", name);
		/* The magic link itself is followed to the inode; a name
		 * below it is not. */
		r = name[0] ? lgetxattr(path, "security.capability", NULL, 0)
			    : getxattr(path, "security.capability", NULL, 0);
	}
	/* Any answer but "none" counts as capabilities: the file is covered. */
	return r >= 0 || (errno != ENODATA && errno != ENOTSUP);
}

/* Whether readdir's inode numbers are stat's on a file system of type t
 * (linux/magic.h): so on these; btrfs lists a subvolume under its id, not
 * its root's inode 256, and overlayfs, FUSE and network file systems may
 * differ: there the names are checked by listing and ctime alone. */
static bool
dino_is_ino(long t)
{
	static const unsigned long same[] = {
		0xef53, /* ext2/3/4 */
		0x58465342, /* xfs */
		0x01021994, /* tmpfs */
		0xf2f52010, /* f2fs */
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(same); i++)
		if ((unsigned long)t == same[i])
			return true;
	return false;
}

/* A scan's state (struct sbx_lease.scan). */
struct sbx_scan {
	struct sbx_covers *out;
	size_t max;
	uint64_t mnt_id; /* the root's mount */
	bool have_mnt_id;
	bool dino_ok; /* dino_is_ino() */
	bool local; /* sbx_fs_local() */
	struct sbx_cover *links; /* regular files with more than one link */
	size_t nlinks;
};

static struct sbx_cover *
cover_push(struct sbx_cover **v, size_t *n, const char *rel, const struct stat *st)
{
	*v = sbx_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n] = (struct sbx_cover){
		.rel = sbx_xstrdup(rel),
		.dev = st->st_dev,
		.ino = st->st_ino,
		.nlink = st->st_nlink,
		.ctime = st->st_ctim,
	};
	return &(*v)[(*n)++];
}

static void
cover_free(struct sbx_cover *c)
{
	free(c->rel);
	free(c->list);
}

/* The path of entry path relative to l->root; NULL for one deeper than
 * PATH_MAX, which path_of() names without a '/'. */
static const char *
rel_of(const struct sbx_lease *l, const char *path)
{
	size_t len = strlen(l->root);

	if (path[0] != '/' || strncmp(path, l->root, len) != 0 || path[len] != '/')
		return NULL;
	return path + len + 1;
}

static int
too_many(const struct sbx_lease *l, const char *path, struct sbx_err *err)
{
	return sbx_err_set(err, E2BIG,
	    "%s holds more than %zu set-id, capability, multi-link or special files "
	    "of root's (%s among them); each would need a read-only mount to stay "
	    "out of the sandbox's hands: run as another user or with --backend landlock",
	    l->root, l->scan->max, path);
}

static const char *const *sort_names;

static int
cmp_index(const void *a, const void *b)
{
	return strcmp(sort_names[*(const size_t *)a], sort_names[*(const size_t *)b]);
}

/* A directory's listing as one block: each name (sorted) with its inode
 * number; two listings are the same directory state when their blocks
 * are equal (a rename, an exchange, an entry made or removed all differ,
 * whatever the file system's timestamp granularity). */
static char *
listing(char *const *names, const ino_t *inos, size_t n, size_t *len)
{
	_cleanup_free_ size_t *ix = sbx_xreallocarray(NULL, n ? n : 1, sizeof(*ix));
	struct sbx_buf b = { 0 };

	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	sort_names = (const char *const *)names;
	if (n > 1)
		qsort(ix, n, sizeof(*ix), cmp_index);
	for (size_t i = 0; i < n; i++) {
		uint64_t ino = inos[ix[i]];

		sbx_buf_add(&b, names[ix[i]], strlen(names[ix[i]]) + 1);
		sbx_buf_add(&b, &ino, sizeof(ino));
	}
	*len = b.len;
	return b.data ? b.data : sbx_xstrdup("");
}

/* The directory just entered (recorded last by the scan) was read: its
 * listing is kept for sbx_owner_scan_recheck(). */
static void
scan_listed(struct sbx_lease *l, const struct frame *f)
{
	struct sbx_covers *c = l->scan->out;

	if (c->ndirs > 0 && c->dirs[c->ndirs - 1].list == NULL)
		c->dirs[c->ndirs - 1].list =
		    listing(f->names, f->inos, f->n, &c->dirs[c->ndirs - 1].list_len);
}

/* A scan's entry other than a directory: recorded when it is owner's (or
 * its group's) and a lend would leave it alone. A regular file with more
 * than one link waits until the walk has ended: when the scan saw every
 * one of its names it leads nowhere else and stays the sandbox's (a cp -al
 * tree; the sandbox's own links never make the next run refuse). */
static int
scan_record(struct sbx_lease *l, int dir, const char *name, const struct stat *st, const char *path,
    struct sbx_err *err)
{
	struct sbx_scan *sc = l->scan;
	const char *rel;

	if ((st->st_uid != l->owner && st->st_gid != l->owner_gid) || S_ISLNK(st->st_mode))
		return 0;
	if (S_ISREG(st->st_mode) && !(st->st_mode & (S_ISUID | S_ISGID)) &&
	    !name_has_caps(dir, name)) {
		if (st->st_nlink == 1)
			return 0;
		if ((rel = rel_of(l, path)) == NULL)
			return sbx_err_set(err, ENAMETOOLONG,
			    "%s holds a multi-link file deeper than PATH_MAX", l->root);
		cover_push(&sc->links, &sc->nlinks, rel, st);
		return 0;
	}
	if ((rel = rel_of(l, path)) == NULL)
		return sbx_err_set(err, ENAMETOOLONG,
		    "%s holds a set-id, capability or special file deeper than PATH_MAX", l->root);
	if (sc->out->n == sc->max)
		return too_many(l, path, err);
	cover_push(&sc->out->v, &sc->out->n, rel, st);
	return 0;
}

#define SCAN_MASK \
	(STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID | STATX_INO | STATX_CTIME | \
	    STATX_MNT_ID)

/* A scan looks at each entry by name (statx, following no link) and opens
 * only the directories it enters, checked against what statx saw: a third
 * of the lend's calls per file. Another mount's entries are left alone:
 * its root (STATX_ATTR_MOUNT_ROOT, a bind-mounted file's too), anything
 * with another mount id; each such mount is recorded, and must still be
 * there at the recheck. A device number of its own is no boundary (a btrfs
 * subvolume is part of this mount, and of the idmapping). A name listed
 * and gone by its statx or open means the tree changed. */
static int
scan_entry(struct walk *w, struct frame *f, const char *name, bool ok, struct sbx_err *err)
{
	struct sbx_lease *l = w->l;
	struct sbx_scan *sc = l->scan;
	struct statx sx;
	struct stat st, now;
	const char *rel = ok ? rel_of(l, w->path) : NULL;
	int cfd;

	if (sbx_statx_here(f->fd, name, sc->local, SCAN_MASK, &sx) < 0) {
		fail_entry(l, path_of(w, ok),
		    errno == ENOENT ? "it changed during the scan" : strerror(errno));
		return 0;
	}
	sbx_stat_of_statx(&sx, &st);
	if ((sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) ||
	    (sc->have_mnt_id && (sx.stx_mask & STATX_MNT_ID) && sx.stx_mnt_id != sc->mnt_id)) {
		if (rel == NULL)
			return sbx_err_set(
			    err, ENAMETOOLONG, "%s holds a mount deeper than PATH_MAX", l->root);
		cover_push(&sc->out->mounts, &sc->out->nmounts, rel, &st)->mnt_id = sx.stx_mnt_id;
		return 0;
	}
	/* The name must still lead to the inode the listing gave it: else
	 * two renames could show one directory twice and another never. */
	if (sc->dino_ok && sx.stx_ino != f->inos[f->next - 1]) {
		fail_entry(l, path_of(w, ok), "it changed during the scan");
		return 0;
	}
	if (ok && skipped(l, w->path))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return scan_record(l, f->fd, name, &st, path_of(w, ok), err);
	if (rel == NULL)
		return sbx_err_set(
		    err, ENAMETOOLONG, "%s holds a directory deeper than PATH_MAX", l->root);
	cfd = sbx_open_here(f->fd, name, O_PATH | O_DIRECTORY);
	if (cfd < 0) {
		fail_entry(l, path_of(w, ok),
		    errno == ENOENT || errno == EXDEV ? "it changed during the scan"
						      : strerror(errno));
		return 0;
	}
	if (fstat(cfd, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
		close(cfd);
		fail_entry(l, path_of(w, ok), "it changed during the scan");
		return 0;
	}
	cover_push(&sc->out->dirs, &sc->out->ndirs, rel, &st);
	enter(w, cfd, &now, !ok);
	return 0;
}

static int
visit_none(
    struct sbx_lease *l, int fd, const struct stat *st, const char *path, struct sbx_err *err)
{
	(void)l, (void)fd, (void)st, (void)path, (void)err;
	return 0;
}

static int
cmp_cover(const void *a, const void *b)
{
	const struct sbx_cover *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

/* The multi-link files: one the scan saw under as many names as it has
 * links, every name reporting that count, leads nowhere else and is kept
 * (for the recheck, which wants the count unchanged); any other has
 * every name covered. */
static int
settle_links(struct sbx_lease *l, struct sbx_err *err)
{
	struct sbx_scan *sc = l->scan;
	struct sbx_covers *out = sc->out;
	size_t i = 0, k;

	if (sc->nlinks > 1)
		qsort(sc->links, sc->nlinks, sizeof(*sc->links), cmp_cover);
	while (i < sc->nlinks) {
		bool whole = true;

		for (k = i + 1; k < sc->nlinks && cmp_cover(&sc->links[i], &sc->links[k]) == 0; k++)
			;
		for (size_t m = i; m < k; m++)
			whole = whole && sc->links[m].nlink == (nlink_t)(k - i);
		for (; i < k; i++) {
			struct sbx_cover *c = &sc->links[i];

			if (whole) {
				out->links = sbx_xreallocarray(
				    out->links, out->nlinks + 1, sizeof(*out->links));
				out->links[out->nlinks++] = *c;
			} else {
				if (out->n == sc->max) {
					_cleanup_free_ char *path = sbx_path_join(l->root, c->rel);

					return too_many(l, path, err);
				}
				out->v = sbx_xreallocarray(out->v, out->n + 1, sizeof(*out->v));
				out->v[out->n++] = *c;
			}
			c->rel = NULL;
		}
	}
	return 0;
}

int
sbx_owner_scan(int root_fd, const char *root, uid_t owner, gid_t owner_gid,
    const struct sbx_strv *skip, size_t max, struct sbx_covers *out, struct sbx_err *err)
{
	struct sbx_lease l = { .root_fd = root_fd, .owner = owner, .owner_gid = owner_gid };
	struct sbx_scan sc = { .out = out, .max = max };
	struct statfs sfs;
	struct statx sx;
	struct stat st;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (statx(root_fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, SCAN_MASK, &sx) < 0)
		return sbx_err_sys(err, "cannot stat %s", root);
	sbx_stat_of_statx(&sx, &st);
	/* A file mounted read-write is the caller's choice, links and all;
	 * only a set-id or capability file of root's is refused. */
	if (!S_ISDIR(st.st_mode)) {
		if ((st.st_uid == owner || st.st_gid == owner_gid) && S_ISREG(st.st_mode) &&
		    ((st.st_mode & (S_ISUID | S_ISGID)) || name_has_caps(root_fd, "")))
			return sbx_err_set(err, EPERM,
			    "%s is a set-id or capability file of root's: a root caller's sandbox "
			    "would own it through a read-write mount",
			    root);
		return 0;
	}
	sc.have_mnt_id = (sx.stx_mask & STATX_MNT_ID) != 0;
	sc.mnt_id = sx.stx_mnt_id;
	sc.dino_ok = fstatfs(root_fd, &sfs) == 0 && dino_is_ino(sfs.f_type);
	sc.local = sbx_fs_local(root_fd);
	l.root = (char *)root;
	l.dev = st.st_dev;
	l.scan = &sc;
	if (skip)
		l.skip = *skip;
	cover_push(&out->dirs, &out->ndirs, "", &st);
	if (walk(&l, visit_none, err) < 0)
		rc = -1;
	else if (l.nfailed > 0)
		rc = sbx_err_set(err,
		    strstr(l.failed.v[0], "changed during the scan") ? ESTALE : EACCES,
		    "cannot scan %s: %s", root, l.failed.v[0]);
	else
		rc = settle_links(&l, err);
	sbx_strv_free(&l.failed);
	for (size_t i = 0; i < sc.nlinks; i++)
		cover_free(&sc.links[i]);
	free(sc.links);
	if (rc < 0)
		sbx_covers_free(out);
	return rc;
}

/* Opens rel beneath root_fd ("" for itself) following no symlink and
 * never leaving its mount. */
static int
reopen(int root_fd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (__u64)(flags | O_PATH | O_NOFOLLOW | O_CLOEXEC),
		.resolve =
		    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};

	if (!rel[0])
		return fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	return (int)syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));
}

static bool
dir_same(int root_fd, const struct sbx_cover *d)
{
	struct frame f = { 0 };
	struct stat st;
	bool same = false;
	int fd = reopen(root_fd, d->rel, O_DIRECTORY);

	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == d->dev && st.st_ino == d->ino &&
	    st.st_ctim.tv_sec == d->ctime.tv_sec && st.st_ctim.tv_nsec == d->ctime.tv_nsec &&
	    read_names(fd, &f) == 0) {
		size_t len;
		_cleanup_free_ char *now = listing(f.names, f.inos, f.n, &len);

		same = d->list != NULL && len == d->list_len && memcmp(now, d->list, len) == 0;
	}
	for (size_t i = 0; i < f.n; i++)
		free(f.names[i]);
	free(f.names);
	free(f.inos);
	if (fd >= 0)
		close(fd);
	return same;
}

/* Whether the mount the scan found at m->rel is still there: its parent
 * reopened on the tree's own mount, the name looked at without asking
 * the mount's filesystem (a FUSE server that never answers cannot stall
 * the run). */
static bool
mount_same(int root_fd, const struct sbx_cover *m)
{
	_cleanup_free_ char *parent = sbx_xstrdup(m->rel);
	char *slash = strrchr(parent, '/');
	const char *leaf = slash ? slash + 1 : m->rel;
	struct statx sx;
	bool same;
	int dir;

	if (slash)
		*slash = '\0';
	dir = reopen(root_fd, slash ? parent : "", O_DIRECTORY);
	if (dir < 0)
		return false;
	same =
	    sbx_statx_here(dir, leaf, true, STATX_MNT_ID, &sx) == 0 && sx.stx_mnt_id == m->mnt_id;
	close(dir);
	return same;
}

int
sbx_owner_scan_recheck(
    int root_fd, const char *root, const struct sbx_covers *c, struct sbx_err *err)
{
	const struct sbx_cover *bad = NULL;

	for (size_t i = 0; bad == NULL && i < c->ndirs; i++)
		if (!dir_same(root_fd, &c->dirs[i]))
			bad = &c->dirs[i];
	/* A mount the scan left alone is still that very mount. */
	for (size_t i = 0; bad == NULL && i < c->nmounts; i++)
		if (!mount_same(root_fd, &c->mounts[i]))
			bad = &c->mounts[i];
	/* A multi-link file kept has no name the scan did not see. */
	for (size_t i = 0; bad == NULL && i < c->nlinks; i++) {
		struct stat st;
		int fd = reopen(root_fd, c->links[i].rel, 0);

		if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != c->links[i].dev ||
		    st.st_ino != c->links[i].ino || st.st_nlink != c->links[i].nlink)
			bad = &c->links[i];
		if (fd >= 0)
			close(fd);
	}
	if (bad != NULL)
		return sbx_err_set(err, ESTALE,
		    "%s changed during the scan (%s%s%s was renamed, made, removed, linked or "
		    "mounted on while its root-owned files were covered)",
		    root, root, bad->rel[0] ? "/" : "", bad->rel);
	return 0;
}

void
sbx_covers_free(struct sbx_covers *c)
{
	for (size_t i = 0; i < c->n; i++)
		cover_free(&c->v[i]);
	for (size_t i = 0; i < c->ndirs; i++)
		cover_free(&c->dirs[i]);
	for (size_t i = 0; i < c->nmounts; i++)
		cover_free(&c->mounts[i]);
	for (size_t i = 0; i < c->nlinks; i++)
		cover_free(&c->links[i]);
	free(c->v);
	free(c->dirs);
	free(c->mounts);
	free(c->links);
	memset(c, 0, sizeof(*c));
}

void
sbx_owner_skips(const struct sbx_policy *p, const struct sbx_fsview *fs, struct sbx_strv *out)
{
	struct sbx_strv rel = { 0 };
	_cleanup_free_ char *git = sbx_path_join(fs->workdir, ".git");
	struct stat sb;

	sbx_strv_copy(out, &fs->hidden);
	sbx_protect_list(p, fs, &rel);
	for (size_t i = 0; i < rel.n; i++)
		sbx_strv_push_take(out, sbx_path_join(fs->workdir, rel.v[i]));
	if (fstatat(sbx_fsview_workdir_fd(fs), ".git", &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISDIR(sb.st_mode))
		sbx_strv_push(out, git);
	sbx_strv_free(&rel);
}

int
sbx_owner_lend(struct sbx_lease *l, int root_fd, const char *root, uid_t owner, gid_t owner_gid,
    uid_t to, gid_t to_gid, const struct sbx_strv *skip, struct sbx_err *err)
{
	struct stat st;

	memset(l, 0, sizeof(*l));
	l->root_fd = -1;
	if (fstat(root_fd, &st) < 0)
		return sbx_err_sys(err, "cannot stat %s", root);
	if (!S_ISDIR(st.st_mode))
		return sbx_err_set(err, ENOTDIR, "%s is not a directory", root);
	l->root_fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	if (l->root_fd < 0)
		return sbx_err_sys(err, "cannot keep %s", root);
	l->root = sbx_xstrdup(root);
	l->dev = st.st_dev;
	l->owner = owner;
	l->owner_gid = owner_gid;
	l->to = to;
	l->to_gid = to_gid;
	if (skip)
		sbx_strv_copy(&l->skip, skip);
	if (walk(l, visit_lend, err) < 0 || l->nfailed > 0) {
		if (l->nfailed > 0 && err->msg[0] == '\0')
			sbx_err_set(err, EACCES, "cannot lend %s to uid %u: %s", root, (unsigned)to,
			    l->failed.v[0]);
		sort_entries(l->lent, l->nlent);
		sort_entries(l->native, l->nnative);
		sbx_owner_return(l, NULL);
		return -1;
	}
	sort_entries(l->lent, l->nlent);
	sort_entries(l->native, l->nnative);
	/* Taken after the last change of owner: its tick or a later one is
	 * what any change by the sandbox records. Trusted on a local
	 * filesystem only, whose times are the kernel's own. */
	if (sbx_fs_local(l->root_fd))
		sbx_fs_clock(l->root_fd, &l->since);
	return 0;
}

/* Names the lent entry e, moved out of the tree, in l->moved, with what
 * became of it. */
static void
moved_entry(struct sbx_lease *l, const struct sbx_lease_entry *e, const char *what)
{
	if (l->nmoved++ < WARN_NAMED) {
		_cleanup_free_ char *q = sbx_diag_name(e->path, strlen(e->path));

		sbx_strv_push_take(&l->moved, sbx_xasprintf("%s (%s)", q, what));
	}
}

/* Hands back the lent entry e, which the walk did not meet, through its
 * file handle: only when it is still the inode lent (the handle holds
 * its generation; device and inode are compared too) and still l->to's
 * (never a change of owner on what is no longer the sandbox's to give
 * back); a directory with what it holds, walked as the tree is. mount
 * is a descriptor of the tree's filesystem for open_by_handle_at(). */
static void
return_moved(struct sbx_lease *l, struct sbx_lease_entry *e, int mount)
{
	char fdp[64], now[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	e->met = true;
	if (e->fh == NULL) {
		_cleanup_free_ char *why = sbx_xasprintf(
		    "its filesystem gives no file handle: still uid %u's wherever it is",
		    (unsigned)l->to);

		moved_entry(l, e, why);
		return;
	}
	fd = open_by_handle_at(mount, e->fh, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* ESTALE: removed, its inode gone. */
		_cleanup_free_ char *why = errno == ESTALE
		    ? sbx_xstrdup("removed since")
		    : sbx_xasprintf("not found again by its file handle (%s): it may still be "
				    "uid %u's wherever it is",
			  strerror(errno), (unsigned)l->to);

		moved_entry(l, e, why);
		return;
	}
	fd_path(fdp, sizeof(fdp), fd);
	n = readlink(fdp, now, sizeof(now) - 1);
	now[n > 0 ? n : 0] = '\0';
	if (fstat(fd, &st) < 0 || st.st_dev != e->dev || st.st_ino != e->ino) {
		moved_entry(l, e, "not found again: another inode has its handle");
	} else if (st.st_uid != l->to) {
		_cleanup_free_ char *why = sbx_xasprintf(
		    "now %s, owned by uid %u: left as it is", now, (unsigned)st.st_uid);

		moved_entry(l, e, why);
	} else if (S_ISDIR(st.st_mode)) {
		struct sbx_err err = { 0 };
		char *root = l->root;
		int root_fd = l->root_fd;
		_cleanup_free_ char *why = sbx_xasprintf("now %s, handed back there", now);

		/* The directory and all below it, as the tree was: the lent
		 * entries inside are met there. */
		l->root = now;
		l->root_fd = fd;
		l->moved_walk = true;
		if (walk(l, visit_return, &err) < 0 && err.msg[0])
			fail_entry(l, now, err.msg);
		l->moved_walk = false;
		l->root = root;
		l->root_fd = root_fd;
		moved_entry(l, e, why);
	} else {
		struct sbx_err err = { 0 };
		_cleanup_free_ char *why = sbx_xasprintf("now %s, handed back there", now);

		visit_return(l, fd, &st, now, &err);
		moved_entry(l, e, why);
	}
	close(fd);
}

/* Every lent entry the walk did not meet: directories first, so that
 * what a moved directory holds is met in its walk and not named alone. */
static void
return_unmet(struct sbx_lease *l)
{
	int mount = -1;

	for (int dirs = 1; dirs >= 0; dirs--)
		for (size_t i = 0; i < l->nlent; i++) {
			struct sbx_lease_entry *e = &l->lent[i];

			if (e->met || (S_ISDIR(e->mode) != 0) != (dirs != 0))
				continue;
			/* open_by_handle_at() wants a descriptor that is not
			 * O_PATH on the filesystem (fdget() refuses those). */
			if (mount < 0)
				mount = sbx_open_here(l->root_fd, ".", O_RDONLY | O_DIRECTORY);
			return_moved(l, e, mount >= 0 ? mount : l->root_fd);
		}
	if (mount >= 0)
		close(mount);
}

void
sbx_owner_return(struct sbx_lease *l, struct sbx_strv *warnings)
{
	struct sbx_err err = { 0 };
	int rc = 0;

	l->nfailed = 0;
	sbx_strv_free(&l->failed);
	if (l->root != NULL && (rc = walk(l, visit_return, &err)) < 0 && l->nfailed == 0)
		fail_entry(l, l->root, err.msg);
	/* A walk that stopped did not meet what it did not reach, which is
	 * in the tree still: named above, not looked for by handle. */
	if (l->root != NULL && rc == 0)
		return_unmet(l);
	if (warnings != NULL && l->nmoved > 0) {
		struct sbx_buf b = { 0 };

		sbx_buf_printf(&b,
		    "%zu entr%s lent from %s to uid %u %s moved out of it during the run (by "
		    "whoever may rename in the directory that held %s), out of the hand-back's "
		    "walk; each was looked for by its file handle: ",
		    l->nmoved, l->nmoved == 1 ? "y" : "ies", l->root, (unsigned)l->to,
		    l->nmoved == 1 ? "was" : "were", l->nmoved == 1 ? "it" : "them");
		for (size_t i = 0; i < l->moved.n; i++)
			sbx_buf_printf(&b, "%s%s", i ? ", " : "", l->moved.v[i]);
		if (l->nmoved > l->moved.n)
			sbx_buf_printf(&b, " and %zu more", l->nmoved - l->moved.n);
		sbx_strv_push_take(warnings, sbx_buf_steal(&b));
	}
	if (warnings != NULL && l->nfailed > 0) {
		struct sbx_buf b = { 0 };

		sbx_buf_printf(&b,
		    "%zu entr%s the sandbox held in %s could not be handed back in full: ",
		    l->nfailed, l->nfailed == 1 ? "y" : "ies", l->root);
		for (size_t i = 0; i < l->failed.n; i++)
			sbx_buf_printf(&b, "%s%s", i ? ", " : "", l->failed.v[i]);
		if (l->nfailed > l->failed.n)
			sbx_buf_printf(&b, " and %zu more", l->nfailed - l->failed.n);
		sbx_strv_push_take(warnings, sbx_buf_steal(&b));
	}
	if (warnings != NULL && l->nacl > 0) {
		struct sbx_buf b = { 0 };

		sbx_buf_printf(&b,
		    "the run left %zu entr%s in %s with ACL entries that gave other users or "
		    "groups access; those ACLs were removed (the mode stays, its group bits the "
		    "owning group's): ",
		    l->nacl, l->nacl == 1 ? "y" : "ies", l->root);
		for (size_t i = 0; i < l->acl_removed.n; i++)
			sbx_buf_printf(&b, "%s%s", i ? ", " : "", l->acl_removed.v[i]);
		if (l->nacl > l->acl_removed.n)
			sbx_buf_puts(&b, ", ...");
		sbx_strv_push_take(warnings, sbx_buf_steal(&b));
	}
	sbx_owner_drop(l);
}

void
sbx_owner_drop(struct sbx_lease *l)
{
	if (l->root_fd >= 0)
		close(l->root_fd);
	free(l->root);
	for (size_t i = 0; i < l->nlent; i++) {
		free(l->lent[i].path);
		free(l->lent[i].fh);
	}
	free(l->lent);
	free(l->native);
	sbx_strv_free(&l->skip);
	sbx_strv_free(&l->failed);
	sbx_strv_free(&l->acl_removed);
	sbx_strv_free(&l->moved);
	memset(l, 0, sizeof(*l));
	l->root_fd = -1;
}

/* The first prefix of path that the calling task cannot search, or path
 * itself when it cannot be used as a workdir, into bad; false when none. */
static bool
reach_blocked(const char *path, char *bad, size_t size)
{
	if (strlcpy(bad, path, size) >= size)
		return true;
	for (char *c = bad + 1; (c = strchr(c, '/')) != NULL; c++) {
		*c = '\0';
		if (access(bad, X_OK) < 0)
			return true;
		*c = '/';
	}
	return access(path, R_OK | W_OK | X_OK) < 0;
}

int
sbx_owner_check_reach(const char *const *paths, size_t n, uid_t uid, struct sbx_err *err)
{
	char bad[PATH_MAX];

	for (size_t i = 0; i < n; i++) {
		if (!reach_blocked(paths[i], bad, sizeof(bad)))
			continue;
		if (strcmp(bad, paths[i]) == 0)
			return sbx_err_set(err, EACCES, "uid %u cannot read, write and enter %s",
			    (unsigned)uid, paths[i]);
		return sbx_err_set(err, EACCES,
		    "uid %u cannot reach %s: %s is not searchable by it "
		    "(chmod o+x would let it through)",
		    (unsigned)uid, paths[i], bad);
	}
	return 0;
}
