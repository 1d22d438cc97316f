#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "fsutil.h"
#include "linux-gitguard.h"
#include "linux-mountwatch.h"
#include "linux-statat.h"
#include "secrets.h"
#include "supcfg.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

/* The top-level names that make the workdir itself a repository for git
 * (its is_git_directory(): a HEAD, and objects/ and refs/ here or in the
 * directory commondir names), and the config that would come with them. */
static const char *const bare_names[] = { "HEAD", "objects", "refs", "config", "commondir" };
enum { B_HEAD = 1, B_OBJECTS = 2, B_REFS = 4, B_CONFIG = 8, B_COMMONDIR = 16, B_DOTGIT = 32 };

/* How many entries the search for deeper repositories looks at, and how
 * many of those it finds a warning names. */
#define SCAN_MAX 1000000
#define NAMED_MAX 8
/* How many directories it enters at most: past SCAN_MAX entries it goes on
 * through directories only (repositories, modes and default ACLs are
 * directories'), files unlooked at. Each of the sandbox's directories cost
 * it a mkdir, and the names kept for the walk stay bounded. */
#define DIRS_MAX 1000000
/* Entries of one hooks directory looked at: one with more counts as
 * changed. */
#define HOOKS_MAX 100000

/* SBXRUN_TEST_SCAN_MAX (sbx_gitguard_set_scan_max()), or 0. */
static size_t test_scan_max;
/* SBXRUN_TEST_MOUNT_PASS=late (sbx_gitguard_test_late_mount_pass()). */
static bool test_late_mount_pass;

void
sbx_gitguard_test_late_mount_pass(void)
{
	test_late_mount_pass = true;
}

void
sbx_gitguard_set_scan_max(size_t n)
{
	test_scan_max = n;
}

/* A directory tree the sandbox could write: the workdir, or the source of
 * a read-write mount (namespaces, docker), whose top a caller's git may
 * just as well be run in later. */
struct tree {
	char *path;
	int wd; /* O_PATH, opened before the run */
	bool local; /* sbx_fs_local(wd) */
	bool mount; /* a read-write mount's source, not the workdir */
	unsigned before; /* B_* bits of what was there */
	struct stat before_st[6]; /* and what each was (bare_names, then .git) */
	struct timespec start; /* sbx_fs_clock() of the tree when the run began */
};

struct sbx_gitguard {
	struct tree *t;
	size_t n;
	void (*cleanup)(struct sbx_child *c, struct sbx_report *r); /* the backend's own */
	void *priv;
	struct sbx_report *report; /* during the cleanup only, or NULL */
	bool setid; /* sbx_gitguard_clear_setid(): every file is looked at */
	bool acls; /* sbx_gitguard_reduce_acls(): every file is looked at */
	bool idmapped; /* sbx_gitguard_idmapped() */
	int mounts_fd; /* sbx_gitguard_watch_mounts(): not ours, or -1 */
	char *before; /* the mount table read before the run */
	char *mounts; /* the mount table last read */
};

/* The B_* bits of the names at the top of wd, and in st[] (6 entries: the
 * bare names, then .git) what each of them is. */
static unsigned
top_level(int wd, bool local, struct stat *st)
{
	unsigned bits = 0;

	for (size_t i = 0; i < SBX_ARRAY_LEN(bare_names); i++)
		if (sbx_lstat_here(wd, bare_names[i], local, &st[i]) == 0)
			bits |= 1u << i;
	if (sbx_lstat_here(wd, ".git", local, &st[SBX_ARRAY_LEN(bare_names)]) == 0)
		bits |= B_DOTGIT;
	return bits;
}

static bool
is_repo(unsigned bits)
{
	return (bits & B_HEAD) &&
	    ((bits & (B_OBJECTS | B_REFS)) == (B_OBJECTS | B_REFS) || (bits & B_COMMONDIR));
}

static struct sbx_gitguard *
add_tree(struct sbx_gitguard *g, int wd, const char *path, bool mount)
{
	struct tree *t;

	if (g == NULL) {
		g = sbx_xcalloc(1, sizeof(*g));
		g->mounts_fd = -1;
	}
	g->t = sbx_xreallocarray(g->t, g->n + 1, sizeof(*g->t));
	t = &g->t[g->n++];
	*t = (struct tree){ .path = sbx_xstrdup(path), .wd = wd, .mount = mount };
	/* Inode times come from the coarse clock (the fine one may be ahead
	 * of what the first file made in the run records), in whole seconds
	 * on some filesystems: sbx_fs_clock(). */
	sbx_fs_clock(wd, &t->start);
	t->local = sbx_fs_local(wd);
	t->before = top_level(wd, t->local, t->before_st);
	return g;
}

struct sbx_gitguard *
sbx_gitguard_new(int fd, const char *workdir)
{
	int wd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;

	return wd < 0 ? NULL : add_tree(NULL, wd, workdir, false);
}

struct sbx_gitguard *
sbx_gitguard_add_mount(struct sbx_gitguard *g, int fd, const char *source)
{
	int wd = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	return wd < 0 ? g : add_tree(g, wd, source, true);
}

struct sbx_gitguard *
sbx_gitguard_add_mounts(
    struct sbx_gitguard *g, const struct sbx_fsplan *view, const struct sbx_fsview *fs)
{
	for (size_t i = 0; i < view->n; i++) {
		const struct sbx_fsentry *e = &view->v[i];
		const struct sbx_pin *pin;
		_cleanup_close_ int own = -1;
		struct stat st;

		if (e->origin != SBX_FSO_MOUNT || e->disp != SBX_FSD_RW || e->kind != SBX_KIND_DIR)
			continue;
		pin = sbx_fsview_pin(fs, e->path);
		if (pin == NULL && (own = sbx_open_nofollow(AT_FDCWD, e->path, &st)) < 0)
			continue; /* the mount cannot be made either: the run fails */
		g = sbx_gitguard_add_mount(g, pin ? pin->fd : own, e->path);
	}
	return g;
}

void
sbx_gitguard_clear_setid(struct sbx_gitguard *g)
{
	if (g != NULL)
		g->setid = true;
}

void
sbx_gitguard_orphan_names(const struct sbx_gitguard *g, struct sbx_strv *out)
{
	const struct tree *t = g != NULL && g->n > 0 && !g->t[0].mount ? &g->t[0] : NULL;

	if (t == NULL || is_repo(t->before) || (t->before & B_DOTGIT))
		return;
	/* HEAD is in both of is_repo()'s forms: one piece of each form that
	 * the run made is enough to undo it. */
	if (!(t->before & B_HEAD)) {
		sbx_strv_push(out, "HEAD");
		return;
	}
	for (size_t i = 1; i < SBX_ARRAY_LEN(bare_names); i++)
		if ((1u << i) != B_CONFIG && !(t->before & (1u << i)))
			sbx_strv_push(out, bare_names[i]);
}

void
sbx_gitguard_watch_mounts(struct sbx_gitguard *g, int fd, const char *before)
{
	if (g == NULL || fd < 0 || before == NULL)
		return;
	g->mounts_fd = fd;
	free(g->mounts);
	free(g->before);
	g->mounts = sbx_xstrdup(before);
	g->before = sbx_xstrdup(before);
}

void
sbx_gitguard_idmapped(struct sbx_gitguard *g)
{
	if (g != NULL)
		g->idmapped = true;
}

void
sbx_gitguard_reduce_acls(struct sbx_gitguard *g)
{
	if (g != NULL)
		g->acls = true;
}

void
sbx_gitguard_free(struct sbx_gitguard *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++) {
		close(g->t[i].wd);
		free(g->t[i].path);
	}
	free(g->t);
	free(g->mounts);
	free(g->before);
	free(g);
}

char *
sbx_move_aside(int wd, const char *workdir, const char *rel, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);
	char *name = copy, *slash;
	int dir = wd >= 0 ? fcntl(wd, F_DUPFD_CLOEXEC, 3)
			  : open(workdir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;

	if (dir < 0) {
		sbx_err_sys(err, "cannot open %s", workdir);
		return NULL;
	}
	while ((slash = strchr(name, '/')) != NULL) {
		int next;

		*slash = '\0';
		next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (next < 0)
			return NULL; /* not there, or not a directory: nothing below */
		dir = next;
		*slash = '/';
		name = slash + 1;
	}
	if (sbx_lstat_here(dir, name, sbx_fs_local(dir), &sb) < 0) {
		close(dir);
		return NULL;
	}
	{
		_cleanup_free_ char *aside = sbx_rename_aside(dir, name);

		if (aside != NULL) {
			close(dir);
			return sbx_xasprintf("%.*s%s", (int)(name - copy), copy, aside);
		}
	}
	sbx_err_sys(err, "cannot move %s/%s aside", workdir, rel);
	close(dir);
	return NULL;
}

/* How many directories of the search stay open at once: deeper ones push
 * their oldest ancestors' descriptors out, and those are reopened through
 * ".." on the way back up, checked against the inode seen on the way down.
 * Depth costs memory, never descriptors. */
#define SCAN_OPEN_DIRS 64

/* The magic numbers (linux/magic.h) of the filesystems whose directories
 * count their subdirectories in st_nlink exactly: two plus one per
 * subdirectory (each child's ".." is a link). ext4 with dir_nlink sets 1
 * instead once a directory holds more than 65,000 (never a wrong 2);
 * btrfs always says 1 and is left out, as is every filesystem not named
 * here (NFS and FUSE report what a server says). */
static bool
nlink_counts_subdirs(int fd)
{
	static const unsigned long exact[] = {
		0xEF53, /* ext2, ext3, ext4 */
		0x58465342, /* xfs */
		0x01021994, /* tmpfs */
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return false;
	for (size_t i = 0; i < SBX_ARRAY_LEN(exact); i++)
		if ((unsigned long)sf.f_type == exact[i])
			return true;
	return false;
}

/* One directory on the way down: the names of the subdirectories it
 * holds, the next one to enter. */
struct frame {
	int fd; /* O_RDONLY, or -1 when pushed out */
	bool lent; /* opened by open_locked(): restore its mode on leaving */
	mode_t restore;
	dev_t dev;
	ino_t ino;
	size_t plen; /* its path's length in scan.path; SIZE_MAX: past PATH_MAX */
	char **sub;
	size_t n, next;
};

/* What the search for deeper repositories found. */
struct scan {
	const struct sbx_gitguard *g;
	const struct tree *t; /* the tree searched */
	dev_t dev; /* the workdir's: the search never leaves it */
	bool leaf_skip; /* nlink_counts_subdirs() */
	size_t seen, found, opened, acl_opened, acl_named, acl_linked, setid, untaken, unlocked,
	    dirs, planted;
	bool moved; /* the tree moved under the search, which stopped */
	bool top_open; /* close_top() took write for others from the top */
	bool files_over; /* past SCAN_MAX entries: directories only */
	size_t scan_max, dirs_max; /* SCAN_MAX and DIRS_MAX, or the tests' */
	struct sbx_buf named, named_open, named_acl, named_acl_named, named_acl_linked, named_setid,
	    named_untaken, named_unlocked, named_planted;
	unsigned char *acl; /* XATTR_SIZE_MAX bytes for close_default_acl(), or NULL */
	char path[PATH_MAX]; /* relative to the workdir */
	struct frame *f;
	size_t depth, cap;
};

static bool
made_in_run(const struct tree *t, const struct stat *st)
{
	return sbx_changed_since(st, &t->start);
}

/* Counts in *n and names in b (the first NAMED_MAX) the search's current
 * path, plus name when not NULL (an entry of the current directory). */
static void
note(const struct scan *s, struct sbx_buf *b, size_t *n, size_t plen, const char *name)
{
	if ((*n)++ >= NAMED_MAX)
		return;
	if (b->len)
		sbx_buf_printf(b, ", ");
	if (plen == SIZE_MAX)
		sbx_buf_printf(b, "(a path longer than PATH_MAX)");
	else if (plen == 0 && name == NULL)
		sbx_buf_printf(b, s->t->mount ? "%s itself" : "the workdir itself", s->t->path);
	else {
		_cleanup_free_ char *full = sbx_xasprintf(
		    "%.*s%s%s", (int)plen, s->path, name && plen ? "/" : "", name ? name : "");
		_cleanup_free_ char *q = sbx_diag_name(full, strlen(full));

		sbx_buf_puts(b, q);
	}
}

/* Notes the repository at the search's current path, plus name. */
static void
found(struct scan *s, size_t plen, const char *name)
{
	note(s, &s->named, &s->found, plen, name);
}

/* The kernel's xattr form of a POSIX ACL (acl(5); the uapi header
 * linux/posix_acl_xattr.h): a little-endian 32-bit version, 2, then
 * entries of a 16-bit tag, a 16-bit permission set and a 32-bit id, all
 * little-endian. */
enum {
	XACL_VERSION = 2,
	XACL_HEAD = 4,
	XACL_ENTRY = 8,
	XACL_TAG_USER = 0x02,
	XACL_TAG_GROUP_OBJ = 0x04,
	XACL_TAG_GROUP = 0x08,
	XACL_TAG_MASK = 0x10,
	XACL_TAG_OTHER = 0x20,
	XACL_PERM_WRITE = 2,
};

static unsigned
le16_at(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t
le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the ACL value v (n bytes, the kernel's form) names a user or a
 * group; in *group what its owning group's entry, masked, grants. A value
 * not in the kernel's form counts as naming one. */
static bool
acl_names_others(const unsigned char *v, ssize_t n, unsigned *group)
{
	unsigned gobj = 7, mask = 7;
	bool named = false;

	if (n < XACL_HEAD || (n - XACL_HEAD) % XACL_ENTRY != 0 || le32_at(v) != XACL_VERSION)
		return true;
	for (size_t off = XACL_HEAD; off < (size_t)n; off += XACL_ENTRY) {
		unsigned tag = le16_at(v + off), perm = le16_at(v + off + 2) & 7;

		if (tag == XACL_TAG_USER || tag == XACL_TAG_GROUP)
			named = true;
		else if (tag == XACL_TAG_GROUP_OBJ)
			gobj = perm;
		else if (tag == XACL_TAG_MASK)
			mask = perm;
	}
	*group = gobj & mask;
	return named;
}

int
sbx_acl_reduce(int fd)
{
	static const char access[] = "system.posix_acl_access";
	static const char dflt[] = "system.posix_acl_default";
	_cleanup_free_ unsigned char *v = sbx_xmalloc(XATTR_SIZE_MAX);
	char path[64];
	unsigned group = 0;
	struct stat st;
	ssize_t n;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode))
		return S_ISLNK(st.st_mode) ? 0 : -1;
	n = getxattr(path, access, v, XATTR_SIZE_MAX);
	/* A file with another link may be one outside the tree, linked in
	 * by someone its ACL lets write it: its ACL is not the run's to
	 * take. Named, not changed. */
	if (n >= 0 && !S_ISDIR(st.st_mode) && st.st_nlink > 1)
		return acl_names_others(v, n, &group) ? 2 : 0;
	if (n >= 0 && acl_names_others(v, n, &group)) {
		/* Without its ACL the mode's group bits are the group's: what
		 * the owning group had, never the mask (which covered the
		 * named entries). */
		if (removexattr(path, access) < 0 ||
		    chmod(path, (st.st_mode & 07707) | (mode_t)(group << 3)) < 0)
			return -1;
		rc = 1;
	}
	n = S_ISDIR(st.st_mode) ? getxattr(path, dflt, v, XATTR_SIZE_MAX) : -1;
	if (n >= 0 && acl_names_others(v, n, &group)) {
		if (removexattr(path, dflt) < 0)
			return -1;
		rc = 1;
	}
	return rc;
}

/* Takes write for others from the default ACL of the directory fd, when
 * it has one that grants it; returns whether it did. A default ACL
 * (acl(5)) is what a file or directory made in the directory later gets
 * its permissions from, instead of the maker's umask (and a directory
 * inherits it as its own default): an "o::rwx" the sandbox set there
 * would make whatever the caller creates in it afterwards writable by
 * every local user. Read and written through the descriptor, never by name;
 * a value that is not the kernel's format (a wrong version or size, not
 * exactly one entry for others) is left alone. */
static bool
close_default_acl(struct scan *s, int fd)
{
	static const char name[] = "system.posix_acl_default";
	size_t other = 0;
	ssize_t n;

	if (s->acl == NULL)
		s->acl = sbx_xmalloc(XATTR_SIZE_MAX);
	n = fgetxattr(fd, name, s->acl, XATTR_SIZE_MAX);
	if (n < XACL_HEAD || (n - XACL_HEAD) % XACL_ENTRY != 0 || le32_at(s->acl) != XACL_VERSION)
		return false;
	for (size_t off = XACL_HEAD; off < (size_t)n; off += XACL_ENTRY) {
		if (le16_at(s->acl + off) != XACL_TAG_OTHER)
			continue;
		if (other != 0)
			return false;
		other = off;
	}
	if (other == 0 || !(le16_at(s->acl + other + 2) & XACL_PERM_WRITE))
		return false;
	s->acl[other + 2] &= (unsigned char)~XACL_PERM_WRITE; /* the low byte */
	return fsetxattr(fd, name, s->acl, (size_t)n, 0) == 0;
}

/* A directory of the caller's (the workdir itself included) that the run
 * changed and left writable by others: any local user could then put a
 * .git or a script there for the caller's next git or build to run. The
 * write bit for others goes, through the descriptor the search opened
 * (never by name), sticky or not; a directory the caller had made so and
 * that the run only wrote into loses it too (threat-model.md, "Nothing is
 * planted for later"). On a network or FUSE filesystem every such
 * directory loses it: there the change time comes from a server, and one
 * that lets the sandbox set it with the modification time could make a
 * change look old (handback.md, section 2). The same directories lose
 * write for others in their default ACL (close_default_acl()), which the
 * namespaces backend's filter cannot keep the sandbox from setting (it
 * does not see xattr names). Their access ACL needs nothing more: its
 * entry for others is the mode's other bits, which fchmod rewrites, and
 * a named entry can only name an id mapped in the jail's user namespace
 * (the kernel refuses any other), which is the caller's own uid or gid
 * on disk (a root caller's idmapped trees map the sandbox's to root's);
 * a group's write is left to the caller, as in the mode. */
static bool
close_to_others(struct scan *s, int fd, struct stat *st, size_t plen)
{
	bool open = false;

	if (st->st_uid != geteuid() || (s->t->local && !made_in_run(s->t, st)))
		return false;
	if (st->st_mode & S_IWOTH) {
		open = true;
		if (fchmod(fd, st->st_mode & 07777 & ~(mode_t)S_IWOTH) == 0) {
			note(s, &s->named_open, &s->opened, plen, NULL);
			st->st_mode &= ~(mode_t)S_IWOTH;
		}
	}
	if (close_default_acl(s, fd)) {
		note(s, &s->named_acl, &s->acl_opened, plen, NULL);
		open = true;
	}
	if (s->g->acls && sbx_acl_reduce(fd) == 1) {
		note(s, &s->named_acl_named, &s->acl_named, plen, NULL);
		open = true;
	}
	return open;
}

/* Whether uid is the caller's or the sandbox's on disk: what a run may
 * leave in the workdir. A root caller's sandbox is uid
 * SBX_SANDBOX_ROOT_ID under landlock and docker (landlock: its entries
 * were handed back before the search; one that is its still was its
 * before the run); under namespaces what it makes is root's on disk (an
 * idmapped mount), and an entry of 65534's is another process's, a
 * daemon's running as nobody (sbx_gitguard_idmapped()). */
static bool
run_uid(const struct sbx_gitguard *g, uid_t uid)
{
	return uid == geteuid() || (geteuid() == 0 && !g->idmapped && uid == SBX_SANDBOX_ROOT_ID);
}

/* Gives the entry name of dir (not followed) to root, without group or
 * others' access, when it is still the inode st and not a symlink nor a
 * file with another link (which may be a third user's file elsewhere);
 * returns whether it did. Through an O_PATH descriptor: a rename
 * meanwhile changes nothing else. */
static bool
take_planted(const struct sbx_gitguard *g, int dir, const char *name, const struct stat *st)
{
	_cleanup_close_ int fd = -1;
	struct stat now;
	char fdp[64];

	if (S_ISLNK(st->st_mode) || (!S_ISDIR(st->st_mode) && st->st_nlink > 1))
		return false;
	fd = sbx_open_here(dir, name, O_PATH);
	if (fd < 0 || fstat(fd, &now) < 0 || !sbx_same_file(&now, st) || run_uid(g, now.st_uid))
		return false;
	if (fchownat(fd, "", geteuid(), getegid(), AT_EMPTY_PATH) < 0)
		return false;
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", fd);
	return chmod(fdp, now.st_mode & 0700) == 0;
}

/* The directory fd, the caller's, was left writable by other users
 * (close_to_others() just took that away): any local user could put
 * entries of its own there while the run lasted, which the caller's next
 * build or tool would run, and which their owner could still rewrite
 * afterwards (threat-model.md, "Nothing is planted for later"). Each
 * entry directly in it owned by neither the caller nor the sandbox and
 * made or changed during the run (any, where change times prove nothing)
 * is moved aside (sbx_rename_aside()) and, for a root caller, given to
 * root with no access for group or others (take_planted()): what a
 * planted directory holds is then out of its owner's reach by name. Its
 * owner can no longer add any: the write permission went first. The
 * cost is one lstat per entry of such a directory, which the run opened
 * to others, and none anywhere else. */
static void
disarm_planted(struct scan *s, int fd, size_t plen)
{
	_cleanup_close_ int rfd = sbx_open_here(fd, ".", O_RDONLY | O_DIRECTORY);
	struct sbx_strv names = { 0 };
	char buf[32768];
	long n;

	if (rfd < 0)
		return;
	while ((n = syscall(SYS_getdents64, rfd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				sbx_strv_push(&names, de->d_name);
		}
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		_cleanup_free_ char *aside = NULL;
		_cleanup_free_ char *what = NULL;
		struct stat st;
		bool taken;

		if (sbx_lstat_here(fd, name, s->t->local, &st) < 0 || run_uid(s->g, st.st_uid) ||
		    (s->t->local && !made_in_run(s->t, &st)))
			continue;
		if (plen == 0 && strstr(name, ".sbxrun-untrusted.") != NULL)
			continue;
		taken = geteuid() == 0 && take_planted(s->g, fd, name, &st);
		aside = sbx_rename_aside(fd, name);
		what = sbx_xasprintf("%s (uid %u%s%s%s)", name, (unsigned)st.st_uid,
		    aside ? ", moved aside to " : ", could not be moved aside", aside ? aside : "",
		    taken ? ", now the caller's" : "");
		note(s, &s->named_planted, &s->planted, plen, what);
	}
	sbx_strv_free(&names);
}

/* An entry of the caller's that the run changed and left set-user-ID or
 * set-group-ID (sbx_gitguard_clear_setid()): a program the caller's other
 * users would run with the caller's rights, or a directory handing its
 * group to what is made in it. The bits go through a descriptor (never
 * by name); the sticky bit stays. As in close_to_others(), on a network or
 * FUSE filesystem the change time proves nothing and every such entry
 * loses them. fd is the entry's, O_PATH or not: chmod on its
 * /proc/self/fd link changes that inode, whatever its name is now. */
static void
clear_setid(struct scan *s, int fd, struct stat *st, size_t plen, const char *name)
{
	char fdp[64];

	if (!(st->st_mode & (S_ISUID | S_ISGID)) || st->st_uid != geteuid() ||
	    (s->t->local && !made_in_run(s->t, st)))
		return;
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", fd);
	if (chmod(fdp, st->st_mode & 01777) == 0) {
		note(s, &s->named_setid, &s->setid, plen, name);
		st->st_mode &= ~(mode_t)(S_ISUID | S_ISGID);
	}
}

/* A regular file name of dir, looked at only with clear_setid() or
 * reduce_acls() on: an entry of the caller's that the run changed loses
 * set-id bits and ACL entries naming other users or groups. */
static void
check_file(struct scan *s, int dir, const char *name, size_t plen)
{
	struct stat st, now;
	bool acl;
	int fd;

	if (sbx_lstat_here(dir, name, s->t->local, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	acl = s->g->acls && st.st_uid == geteuid() && (!s->t->local || made_in_run(s->t, &st));
	if (!acl && !(s->g->setid && (st.st_mode & (S_ISUID | S_ISGID))))
		return;
	fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	/* The one stat'ed, still a regular file. */
	if (fstat(fd, &now) == 0 && S_ISREG(now.st_mode) && now.st_dev == st.st_dev &&
	    now.st_ino == st.st_ino) {
		if (s->g->setid)
			clear_setid(s, fd, &now, plen, name);
		if (acl) {
			int rc = sbx_acl_reduce(fd);

			if (rc == 1)
				note(s, &s->named_acl_named, &s->acl_named, plen, name);
			else if (rc == 2)
				note(s, &s->named_acl_linked, &s->acl_linked, plen, name);
		}
	}
	close(fd);
}

/* A non-directory entry name of dir that git would take for a repository
 * pointer (a ".git" file, the gitdir: of a worktree or submodule) made or
 * changed in the run. */
static void
check_dotgit_entry(struct scan *s, int dir, size_t plen)
{
	struct stat st;

	if (sbx_lstat_here(dir, ".git", s->t->local, &st) == 0 && made_in_run(s->t, &st))
		found(s, plen, ".git");
}

/* What git reads from a git directory to run something of it: its
 * config (core.fsmonitor, core.pager and the like), the worktree's own
 * config, the common directory it names (whose config and hooks count),
 * HEAD, and the hooks. */
static const char *const gitdir_names[] = { "config", "config.worktree", "commondir", "HEAD",
	"hooks" };

/* Whether an entry directly in the hooks directory of the git directory
 * dir was made or changed in the run: rewriting a hook that was there
 * changes the hook's change time, not the directory's. Opened without
 * following a symlink or entering another mount (sbx_open_here(); the
 * device is checked for kernels without openat2); one with more than
 * HOOKS_MAX entries counts as changed. */
static bool
hooks_changed(struct scan *s, int dir)
{
	_cleanup_close_ int fd = sbx_open_here(dir, "hooks", O_RDONLY | O_DIRECTORY);
	char buf[4096];
	struct stat st;
	size_t count = 0;
	long n;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != s->dev)
		return false;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			s->seen++;
			if (++count > HOOKS_MAX)
				return true;
			if (sbx_lstat_here(fd, de->d_name, s->t->local, &st) == 0 &&
			    made_in_run(s->t, &st))
				return true;
		}
	}
	return false;
}

/* Whether what git runs something of in the git directory dir changed in
 * the run (appending core.fsmonitor to a config that was there, or
 * writing a hook, changes no change time of the directory's own). */
static bool
gitdir_names_changed(struct scan *s, int dir)
{
	struct stat h;

	for (size_t i = 0; i < SBX_ARRAY_LEN(gitdir_names); i++)
		if (sbx_lstat_here(dir, gitdir_names[i], s->t->local, &h) == 0 &&
		    made_in_run(s->t, &h))
			return true;
	return hooks_changed(s, dir);
}

/* Whether the git directory dir (st) was made or changed in the run: the
 * directory itself, or what git runs something of in it changed in
 * place (appending core.fsmonitor to a config that was there, or writing
 * a hook, changes no change time of the directory's own). Looked up by
 * name relative to dir, no link followed. */
static bool
gitdir_changed(struct scan *s, int dir, const struct stat *st)
{
	return made_in_run(s->t, st) || gitdir_names_changed(s, dir);
}

/* The directory dir itself (st), at the search's current path, named
 * base, below the workdir (top: right in it): a .git below the top level
 * (the top level's is sbx_gitguard's own business), or a git directory
 * in itself (a bare repository, a submodule's .git/modules/NAME: a HEAD
 * next to objects and refs, or next to commondir, as git's
 * is_git_directory() takes them), made or changed in the run
 * (gitdir_changed()). What sbx_move_aside() put at the top level is
 * named in its own warning. A directory without a HEAD costs one lookup
 * here. */
static void
check_dir(struct scan *s, int dir, const struct stat *st, const char *base, bool top, size_t plen)
{
	struct stat h;

	if (strcmp(base, ".git") == 0) {
		if (!top && gitdir_changed(s, dir, st))
			found(s, plen, NULL);
		return;
	}
	if (top && strstr(base, ".sbxrun-untrusted.") != NULL)
		return;
	if (sbx_lstat_here(dir, "HEAD", s->t->local, &h) < 0)
		return;
	if (((sbx_lstat_here(dir, "objects", s->t->local, &h) == 0 &&
		 sbx_lstat_here(dir, "refs", s->t->local, &h) == 0) ||
		sbx_lstat_here(dir, "commondir", s->t->local, &h) == 0) &&
	    gitdir_changed(s, dir, st))
		found(s, plen, NULL);
}

/* Reads dir's entries: a ".git" that is not a directory is checked here
 * (not in the workdir itself: root), the subdirectories go into f->sub.
 * Every entry counts towards SCAN_MAX, past which files are passed over;
 * every subdirectory towards DIRS_MAX, past which the listing stops. */
static int
list_dir(struct scan *s, struct frame *f, bool root)
{
	char buf[32768];
	long n;

	while ((n = syscall(SYS_getdents64, f->fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			unsigned char type = de->d_type;
			struct stat st;

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (++s->seen > s->scan_max)
				s->files_over = true;
			if (type == DT_UNKNOWN) {
				if (sbx_lstat_here(f->fd, de->d_name, s->t->local, &st) < 0)
					continue;
				type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
			}
			if (type == DT_DIR) {
				if (++s->dirs > s->dirs_max)
					return 0;
				f->sub = sbx_xreallocarray(f->sub, f->n + 1, sizeof(*f->sub));
				f->sub[f->n++] = sbx_xstrdup(de->d_name);
				continue;
			}
			if (s->files_over)
				continue;
			if (!root && strcmp(de->d_name, ".git") == 0)
				check_dotgit_entry(s, f->fd, f->plen);
			if ((s->g->setid || s->g->acls) && type == DT_REG)
				check_file(s, f->fd, de->d_name, f->plen);
		}
	}
	return n < 0 ? -1 : 0;
}

/* Closes the directory fd of the search, giving one that open_locked()
 * opened its mode back (restore: the one it had, less what the checks
 * took away). */
static void
close_dir(int fd, bool lent, mode_t restore)
{
	if (lent)
		fchmod(fd, restore);
	close(fd);
}

/* Enters the directory fd (taken, st its status, base its name) whose
 * path is the search's current one, level directories below the workdir
 * (0: the workdir). A directory that cannot hold a subdirectory (st_nlink
 * 2 where that count is exact) is not listed: what could make it a
 * repository is looked up by name, so the search costs nothing per file
 * there. lent: fd was opened by open_locked(), and st is what the
 * directory was before it (its mode and change time); the mode it gets
 * back when the search leaves it is that one, less what the checks here
 * take away. */
static void
enter(struct scan *s, int fd, const struct stat *st, const char *base, size_t level, size_t plen,
    bool lent)
{
	struct frame *f;
	mode_t restore = 0;

	struct stat cur = *st;

	if (level > 0)
		check_dir(s, fd, st, base, level == 1, plen);
	/* First: close_to_others() writes the mode it is given back. */
	if (s->g->setid)
		clear_setid(s, fd, &cur, plen, NULL);
	/* Its change time, which no one can set back (its modification
	 * time the sandbox could, while it held the directory): a name made
	 * or removed there, or its mode opened, moves it. A directory the
	 * caller had opened to others before the run and the run left alone
	 * is not listed entry by entry, except after a root caller's
	 * landlock run, whose hand-back moved every directory's change
	 * time. */
	if ((close_to_others(s, fd, &cur, plen) || (level == 0 && s->top_open)) &&
	    (!s->t->local || made_in_run(s->t, st)))
		disarm_planted(s, fd, plen);
	if (lent) {
		/* The checks wrote the old mode, less their bits: the search
		 * needs the caller's read and search until it leaves. */
		restore = cur.st_mode & 07777;
		fchmod(fd, restore | S_IRUSR | S_IXUSR);
	}
	/* With set-id bits looked for, every file counts. */
	if (s->leaf_skip && st->st_nlink == 2 && !s->g->setid && !s->g->acls) {
		if (level > 0)
			check_dotgit_entry(s, fd, plen);
		s->seen++;
		close_dir(fd, lent, restore);
		return;
	}
	if (s->depth == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->f = sbx_xreallocarray(s->f, s->cap, sizeof(*s->f));
	}
	f = &s->f[s->depth];
	*f = (struct frame){ .fd = fd,
		.lent = lent,
		.restore = restore,
		.dev = st->st_dev,
		.ino = st->st_ino,
		.plen = plen };
	if (list_dir(s, f, level == 0) < 0) {
		/* Unreadable: as before, nothing below it is looked at. */
		for (size_t i = 0; i < f->n; i++)
			free(f->sub[i]);
		free(f->sub);
		close_dir(fd, lent, restore);
		return;
	}
	s->depth++;
	if (s->depth > SCAN_OPEN_DIRS) {
		struct frame *old = &s->f[s->depth - 1 - SCAN_OPEN_DIRS];

		/* One opened up stays open until the search leaves it. */
		if (!old->lent) {
			close(old->fd);
			old->fd = -1;
		}
	}
}

/* Leaves the innermost directory; its parent's descriptor, when pushed
 * out, is reopened through ".." and must be the inode seen on the way
 * down (else the tree moved: -1, the search stops). */
static int
leave(struct scan *s)
{
	struct frame *f = &s->f[s->depth - 1];
	int rc = 0;

	if (s->depth > 1 && s->f[s->depth - 2].fd < 0) {
		struct frame *up = &s->f[s->depth - 2];
		struct stat st;

		up->fd = sbx_open_here(f->fd, "..", O_RDONLY | O_DIRECTORY);
		if (up->fd < 0 || fstat(up->fd, &st) < 0 || st.st_dev != up->dev ||
		    st.st_ino != up->ino)
			rc = -1;
	}
	close_dir(f->fd, f->lent, f->restore);
	for (size_t i = 0; i < f->n; i++)
		free(f->sub[i]);
	free(f->sub);
	s->depth--;
	return rc;
}

/* Opens the directory name of dir, which the caller owns and may not read
 * or search, for the search: the caller's read and search permission is
 * added through an O_PATH descriptor (never by name), and the search gives
 * the old mode back when it leaves it (close_dir()); *st gets what the
 * directory was before. Returns the O_RDONLY descriptor, or -1 (its mode
 * unchanged) when it is not the caller's, not on the tree's filesystem, or
 * cannot be opened even so. */
static int
open_locked(struct scan *s, int dir, const char *name, struct stat *st)
{
	_cleanup_close_ int p = sbx_open_here(dir, name, O_PATH | O_DIRECTORY);
	struct stat now;
	char fdp[64];
	int fd;

	if (p < 0 || fstat(p, st) < 0 || !S_ISDIR(st->st_mode) || st->st_uid != geteuid() ||
	    st->st_dev != s->dev)
		return -1;
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", p);
	if (chmod(fdp, (st->st_mode & 07777) | S_IRUSR | S_IXUSR) < 0)
		return -1;
	fd = sbx_open_here(p, ".", O_RDONLY | O_DIRECTORY);
	if (fd >= 0 && fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino)
		return fd;
	if (fd >= 0)
		close(fd);
	chmod(fdp, st->st_mode & 07777);
	return -1;
}

/* The entry name of dir (the search's current path, plen) is the root of
 * another mount. One made during the run is another user's
 * (linux-mountwatch.h) that the pass before the checks did not see below
 * the tree (its parent was elsewhere then, renamed away and back): for
 * root it is detached, and the directory below searched (returns true);
 * either way it is named. A mount that was there before the run is the
 * caller's business, left alone as before. */
static bool
stranger_mount(struct scan *s, int dir, const char *name, size_t plen)
{
	_cleanup_free_ char *mp = NULL, *q = NULL;
	struct statx sx;
	bool gone;

	if (s->g->before == NULL ||
	    sbx_statx_here(dir, name, s->t->local, STATX_TYPE | STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	/* Its path as the table would show it: a path too long for the
	 * search's buffer is compared with none, and taken as new. */
	mp = plen == SIZE_MAX ? sbx_xstrdup("") : sbx_xasprintf("%s/%s", s->t->path, s->path);
	if (sbx_mountwatch_had(
		s->g->before, (unsigned)sx.stx_mnt_id, sx.stx_dev_major, sx.stx_dev_minor, mp))
		return false;
	gone = sbx_mountwatch_detach_at(dir, name, (unsigned)sx.stx_mnt_id);
	q = plen == SIZE_MAX ? sbx_xstrdup("(a path longer than PATH_MAX)")
			     : sbx_diag_name(s->path, strlen(s->path));
	if (s->g->report)
		sbx_strv_push_take(&s->g->report->warnings,
		    sbx_xasprintf(
			"a mount made on %s/%s during the run (not the sandbox's: another "
			"process's) %s",
			s->t->path, q,
			gone ? "was detached during the search, after the hand-back: what lies "
			       "below "
			       "it was searched, and may still be the sandbox's"
			     : "covers what the run left there: the checks after the run did not "
			       "see it, and it stays"));
	return gone;
}

/* Looks for repositories made or changed in the run at every depth below
 * the workdir, directories only: files are never opened or stat'ed, and
 * directories without subdirectories are not even listed (enter()),
 * unless the guard clears set-id bits too (then each regular file is
 * stat'ed). */
static void
search(struct scan *s, int wd)
{
	int fd = sbx_open_here(wd, ".", O_RDONLY | O_DIRECTORY);
	struct stat st;

	/* The top itself, locked (as a directory below, in the loop). */
	if (fd < 0 && errno == EACCES) {
		note(s, &s->named_untaken, &s->untaken, 0, NULL);
		return;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		s->moved = true;
		return;
	}
	s->dev = st.st_dev;
	s->leaf_skip = nlink_counts_subdirs(fd);
	s->path[0] = '\0';
	enter(s, fd, &st, "", 0, 0, false);
	while (s->depth > 0) {
		struct frame *f = &s->f[s->depth - 1];
		const char *name;
		size_t plen, nlen;
		bool lent;
		int cfd;

		if (s->moved || s->dirs > s->dirs_max || f->next == f->n) {
			if (leave(s) < 0)
				s->moved = true;
			continue;
		}
		name = f->sub[f->next++];
		nlen = strlen(name);
		plen = SIZE_MAX;
		if (f->plen != SIZE_MAX && f->plen + 1 + nlen < sizeof(s->path)) {
			plen = f->plen ? f->plen + 1 + nlen : nlen;
			if (f->plen)
				s->path[f->plen] = '/';
			memcpy(s->path + (f->plen ? f->plen + 1 : 0), name, nlen + 1);
		}
		cfd = sbx_open_here(f->fd, name, O_RDONLY | O_DIRECTORY);
		lent = false;
		/* Locked: the run, with the caller's uid, may have taken the
		 * caller's own permission away to hide what it made below (a
		 * set-user-ID program in a directory of mode 0001 under docker,
		 * a repository). Opened up for the search only and given its
		 * mode back: one the caller locked itself looks the same (a
		 * rename changes its ctime), and must stay locked. Root never
		 * gets here. */
		if (cfd < 0 && errno == EACCES) {
			cfd = open_locked(s, f->fd, name, &st);
			if (cfd < 0) {
				note(s, &s->named_untaken, &s->untaken, plen, NULL);
				continue;
			}
			note(s, &s->named_unlocked, &s->unlocked, plen, NULL);
			lent = true;
		}
		if (cfd < 0 && errno == EXDEV && stranger_mount(s, f->fd, name, plen))
			cfd = sbx_open_here(f->fd, name, O_RDONLY | O_DIRECTORY);
		if (cfd < 0)
			continue; /* gone, not a directory any more, or a mount point */
		if (!lent && (fstat(cfd, &st) < 0 || st.st_dev != s->dev)) {
			close(cfd);
			continue;
		}
		/* f may move: enter() grows the stack. */
		enter(s, cfd, &st, name, s->depth, plen, lent);
	}
	free(s->f);
}

static void
warn(struct sbx_report *r, char *text)
{
	if (r != NULL)
		sbx_strv_push_take(&r->warnings, text);
	else
		free(text);
}

/* "the run left N entries [of WHERE] WHAT: NAMES", one warning for n
 * entries of one kind the search changed (stem: "director" or "entr"),
 * the first NAMED_MAX of them named. */
static void
left(struct sbx_gitguard *g, const struct tree *t, const char *where, size_t n, const char *stem,
    const char *what, const struct sbx_buf *names)
{
	if (n == 0)
		return;
	warn(g->report,
	    sbx_xasprintf("the run left %zu %s%s%s%s %s: %s%s", n, stem, n == 1 ? "y" : "ies",
		t->mount ? " of " : "", t->mount ? where : "", what, names->data,
		n > NAMED_MAX ? ", ..." : ""));
}

static void
move_top(struct sbx_gitguard *g, const struct tree *t, const char *rel, struct sbx_buf *moved)
{
	struct sbx_err err = { 0 };
	_cleanup_free_ char *aside = sbx_move_aside(t->wd, t->path, rel, &err);

	if (aside)
		sbx_buf_printf(moved, "%s%s to %s", moved->len ? ", " : "", rel, aside);
	else if (err.msg[0])
		warn(g->report,
		    sbx_xasprintf("%s: the caller's git could run what it holds", err.msg));
}

/* The tree's top, closed to others (close_to_others()) before anything
 * at its top level is looked at: the search closes each directory before
 * it lists it, but the top level is looked at first, and another local
 * user could otherwise rename a .git of its own into a top the run left
 * writable by others after that look. Whether it was open is kept for
 * the search (disarm_planted()). */
static void
close_top(struct scan *s)
{
	_cleanup_close_ int fd = sbx_open_here(s->t->wd, ".", O_RDONLY | O_DIRECTORY);
	struct stat st;
	char fdp[64];

	if (fd >= 0 && fstat(fd, &st) == 0) {
		s->top_open = close_to_others(s, fd, &st, 0);
		return;
	}
	/* Locked by the run (the search cannot read it, and says so): its
	 * write for others still goes, through the descriptor held since
	 * before the run. */
	if (fd < 0 && errno == EACCES && fstat(s->t->wd, &st) == 0 && st.st_uid == geteuid() &&
	    (st.st_mode & S_IWOTH) && (!s->t->local || made_in_run(s->t, &st))) {
		snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", s->t->wd);
		if (chmod(fdp, st.st_mode & 07777 & ~(mode_t)S_IWOTH) == 0)
			note(s, &s->named_open, &s->opened, 0, NULL);
	}
}

/* After the run, for each tree: the top closed to others, the top level
 * (moved aside), then the search. */
static void
check(struct sbx_gitguard *g, const struct tree *t)
{
	struct stat now_st[6];
	unsigned now, made;
	_cleanup_free_ char *where = t->mount ? sbx_xasprintf("the read-write mount %s", t->path)
					      : sbx_xstrdup("the workdir");
	_cleanup_free_ char *top = t->mount
	    ? sbx_xasprintf("the top level of the read-write mount %s", t->path)
	    : sbx_xstrdup("the workdir's top level");
	struct sbx_buf moved = { 0 };
	struct scan s = { .g = g,
		.t = t,
		.scan_max = test_scan_max ? test_scan_max : SCAN_MAX,
		.dirs_max = test_scan_max ? test_scan_max : DIRS_MAX };

	close_top(&s);
	now = top_level(t->wd, t->local, now_st);
	made = now & ~t->before;
	/* A name that was there but is another file now was made during the
	 * run as well: another run's keeper moved the one this run's jail
	 * held read-only aside (a mount goes with the entry it covers), and
	 * the name was free inside (threat-model.md, "A second sandbox on the
	 * same workdir"). */
	for (size_t i = 0; i < SBX_ARRAY_LEN(now_st); i++)
		if ((now & t->before & (1u << i)) && !sbx_same_file(&now_st[i], &t->before_st[i]))
			made |= 1u << i;
	if (made & B_DOTGIT)
		move_top(g, t, ".git", &moved);
	if (!is_repo(t->before) && is_repo(now))
		for (size_t i = 0; i < SBX_ARRAY_LEN(bare_names); i++)
			if (made & (1u << i))
				move_top(g, t, bare_names[i], &moved);
	if (moved.len)
		warn(g->report,
		    sbx_xasprintf("the run made a git repository at %s; "
				  "moved aside so that no git of the caller's reads it: %s",
			top, moved.data));
	sbx_buf_free(&moved);

	search(&s, t->wd);
	/* A tree that was a git directory itself (a bare repository): the
	 * workdir's config and hooks are kept read-only (sbxrun(1)), a
	 * read-write mount's source's are not; changed, a caller's git
	 * there runs what they hold. */
	if (is_repo(t->before) && s.dev != 0 && gitdir_names_changed(&s, t->wd))
		warn(g->report,
		    sbx_xasprintf(
			"the run changed the git directory at %s (its config, hooks, "
			"commondir or HEAD): the caller's git there would run what it holds",
			where));
	if (s.moved)
		warn(g->report,
		    sbx_xasprintf("git repositories made in the run could not be looked for: %s "
				  "changed during the search",
			t->path));
	else if (s.dirs > s.dirs_max)
		warn(g->report,
		    sbx_xasprintf("%s holds more than %zu directories: git repositories the run "
				  "made below its top level, and directories it left writable by "
				  "other users, were not looked for in full",
			where, s.dirs_max));
	else if (s.files_over)
		warn(g->report,
		    sbx_xasprintf("%s holds more than %zu entries: past them only directories "
				  "were looked at (a .git file that names a repository elsewhere "
				  "was not looked for)",
			where, s.scan_max));
	if (s.found)
		warn(g->report,
		    sbx_xasprintf("the run made or changed %zu git repositor%s below %s "
				  "(untrusted, like all it wrote: their "
				  "config and hooks run in any git command there): %s%s",
			s.found, s.found == 1 ? "y" : "ies", top, s.named.data,
			s.found > NAMED_MAX ? ", ..." : ""));
	left(g, t, where, s.opened, "director",
	    "writable by other users; their write permission was removed", &s.named_open);
	left(g, t, where, s.planted, "entr",
	    "of other users in directories it left writable by them (made or changed during the "
	    "run, where the caller's tools would find them)",
	    &s.named_planted);
	left(g, t, where, s.untaken, "director",
	    "that the caller cannot read or search (locked before the run, or by it): what the "
	    "run made below them was not looked for, and stays",
	    &s.named_untaken);
	left(g, t, where, s.unlocked, "director",
	    "that the caller could not read or search (locked before the run, or by it); they "
	    "were opened for the caller for this search only and have their mode back",
	    &s.named_unlocked);
	left(g, t, where, s.setid, "entr", "set-user-ID or set-group-ID; those bits were removed",
	    &s.named_setid);
	if (g->setid && (s.moved || s.files_over || s.dirs > s.dirs_max))
		warn(g->report,
		    sbx_xasprintf("%s was not looked at in full: set-user-ID or set-group-ID "
				  "files the run left there may remain",
			where));
	left(g, t, where, s.acl_opened, "director",
	    "with a default ACL that makes what is created there writable by other users; "
	    "that permission was removed from it",
	    &s.named_acl);
	left(g, t, where, s.acl_named, "entr",
	    "with ACL entries that gave other users or groups access; those ACLs were removed "
	    "(the mode stays, its group bits the owning group's)",
	    &s.named_acl_named);
	left(g, t, where, s.acl_linked, "entr",
	    "with ACL entries that give other users or groups access, and another link that "
	    "may lie outside (their ACLs were left as they are: check them)",
	    &s.named_acl_linked);
	sbx_buf_free(&s.named);
	sbx_buf_free(&s.named_acl_linked);
	sbx_buf_free(&s.named_open);
	sbx_buf_free(&s.named_acl);
	sbx_buf_free(&s.named_acl_named);
	sbx_buf_free(&s.named_setid);
	sbx_buf_free(&s.named_untaken);
	sbx_buf_free(&s.named_unlocked);
	sbx_buf_free(&s.named_planted);
	free(s.acl);
}

/* Mounts another user made below a tree while the run lasted
 * (linux-mountwatch.h): detached for a root caller, named either way.
 * Looked for before anything of the trees is (the backend's hand-back
 * and undo included) and again after the checks, when the table
 * changed since it was last read: one poll(2) otherwise. */
static void
strangers(struct sbx_gitguard *g, struct sbx_report *r, bool late)
{
	_cleanup_free_ char *now = NULL;

	if (g->mounts == NULL || !sbx_mountwatch_changed(g->mounts_fd) ||
	    (now = sbx_mountinfo_read()) == NULL)
		return;
	for (size_t i = 0; i < g->n; i++)
		sbx_mountwatch_strangers(g->mounts, now, g->t[i].path, late, &r->warnings);
	free(g->mounts);
	g->mounts = steal_ptr(&now);
}

static void
guard_cleanup(struct sbx_child *c, struct sbx_report *r)
{
	struct sbx_gitguard *g = c->priv;

	if (!test_late_mount_pass)
		strangers(g, r, false);
	c->priv = g->priv;
	c->cleanup = g->cleanup;
	if (c->cleanup)
		c->cleanup(c, r);
	c->cleanup = NULL;
	g->report = r;
	for (size_t i = 0; i < g->n; i++)
		check(g, &g->t[i]);
	strangers(g, r, true);
	sbx_gitguard_free(g);
}

void
sbx_gitguard_attach(struct sbx_gitguard **gp, struct sbx_child *c)
{
	struct sbx_gitguard *g = *gp;

	*gp = NULL;
	if (g == NULL)
		return;
	g->cleanup = c->cleanup;
	g->priv = c->priv;
	c->priv = g;
	c->cleanup = guard_cleanup;
}
