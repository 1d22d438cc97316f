/* Secrets judged by what they are, not by how they are spelt: a secret
 * below a directory the caller cannot search now, a bind-mounted alias of
 * a secret, the home or a forbidden root, and a hard link to a secret
 * file. The decisions are pure and take the filesystem through struct
 * sbx_idfs, so the unit tests run them on a stub; sbx_host_idfs reads the
 * real one (stat, readdir, /proc/self/mountinfo) and changes nothing.
 * doc/design/secrets.md explains the rules. */
#ifndef SBX_SECRETS_H
#define SBX_SECRETS_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "policy.h"
#include "resolve.h"
#include "util.h"

/* What the checks need to know of one file. */
struct sbx_fileid {
	uint64_t dev;
	uint64_t ino;
	uint64_t nlink;
	bool dir;
	bool reg;
	bool own; /* owned by the effective uid: its mode is ours to change */
};

/* The filesystem as the secret checks see it. Each call returns 0 (or a
 * pointer) on success and -1 (or NULL) with errno set. */
struct sbx_idfs {
	void *ctx;
	/* stat(2), following symlinks. */
	int (*stat)(void *ctx, const char *path, struct sbx_fileid *id);
	/* lstat(2): a symlink is neither dir nor reg. */
	int (*lstat)(void *ctx, const char *path, struct sbx_fileid *id);
	/* The names in dir, without "." and ".."; with names NULL, only
	 * whether dir can be listed. */
	int (*list)(void *ctx, const char *dir, struct sbx_strv *names);
	/* realpath(3), malloc'd. */
	char *(*realpath)(void *ctx, const char *path);
	/* The text of /proc/self/mountinfo, malloc'd; NULL where there is
	 * none (then no alias is looked for). */
	char *(*mountinfo)(void *ctx);
};

extern const struct sbx_idfs sbx_host_idfs;

/* The text of /proc/self/mountinfo, malloc'd, or NULL where there is
 * none. The kernel formats the whole table at each reading (~50 us here
 * for 26 mounts), so one run reads it once: main hands the same text to
 * the cgroup probe and to sbx_resolve_begin(). */
char *sbx_mountinfo_read(void);

/* The realpath(3) answers and directory listings of one building of the
 * secret list (sbx_resolve_begin()), each asked of the system once: the
 * list is resolved when it is built and again when it is widened, and
 * most of its entries share a directory. Caller-owned; zero-initialise,
 * free with sbx_pathmemo_free(). It holds answers, no descriptors, and
 * lives no longer than that building: the workdir, mount sources and read
 * paths are still pinned and judged by descriptor (doc/design/paths.md). */
struct sbx_pathmemo {
	struct sbx_pathmemo_ent *v;
	size_t n;
	bool mounts_read;
	char *mountinfo; /* the text read, or NULL: there is none */
};

/* realpath(path), or NULL with errno set; the string belongs to m. */
const char *sbx_pathmemo_realpath(struct sbx_pathmemo *m, const char *path);
/* Whether sbx_pathmemo_realpath() of path found that nothing at all has
 * that name (no file, no directory, not even a dangling symlink): its
 * lookup of the name, or of a directory above it, failed with ENOENT or
 * ENOTDIR (Linux; elsewhere never). False for a path not asked. */
bool sbx_pathmemo_absent(const struct sbx_pathmemo *m, const char *path);
/* The names in dir as sbx_idfs's list gives them (readdir order, without
 * "." and ".."), or NULL with errno set; they belong to m. */
const struct sbx_strv *sbx_pathmemo_list(struct sbx_pathmemo *m, const char *dir);
void sbx_pathmemo_free(struct sbx_pathmemo *m);

/* sbx_host_idfs answering realpath, list and the mount table from m; or,
 * without names, only the mount table. */
struct sbx_idfs sbx_host_idfs_memo(struct sbx_pathmemo *m, bool names);

/* One line of a mount table: which part (root) of which filesystem
 * (dev) is seen at point. */
struct sbx_mountent {
	uint64_t dev;
	char *root; /* into the table's text */
	char *point;
};

struct sbx_mounttab {
	struct sbx_mountent *v;
	size_t n;
	char *text; /* the parsed copy the entries point into */
};

/* Parses the text of /proc/self/mountinfo; lines it cannot read are
 * skipped. */
void sbx_mounttab_parse(const char *text, struct sbx_mounttab *out);
void sbx_mounttab_free(struct sbx_mounttab *t);

/* Appends to out every path at which the object seen at the canonical
 * path is visible through the mounts of t (path itself included). With
 * whole, a mount showing only a part of it counts too: its mount point
 * is appended. */
void sbx_mount_aliases(
    const struct sbx_mounttab *t, const char *path, bool whole, struct sbx_strv *out);

/* Appends to out the deepest directory on the way to path that could be
 * examined, when the next step down fails for another reason than "not
 * there" (EACCES above all): whether path exists cannot be known, so that
 * directory must be hidden whole. Nothing when path exists or certainly
 * does not. For a glob pattern the walk goes to the directory holding the
 * first wildcard, which must also be listable, and on below each name
 * that wildcard matches when more of the pattern follows: every
 * directory that glob(3) would pass over in silence is appended. */
void sbx_secret_opaque(const struct sbx_idfs *fs, const char *path, struct sbx_strv *out);

/* Widens v->hidden (already holding the secret list, as written and
 * resolved) with the directories that keep a secret from being examined
 * and with every mount alias of a secret; says so in p->warnings. */
void sbx_secrets_widen(const struct sbx_idfs *fs, struct sbx_policy *p,
    const struct sbx_strv *homes, struct sbx_fsview *v);

/* The checks made once the workdir and the mounts are resolved: the
 * workdir and each mount source must not be an alias of a forbidden
 * place, and no regular file in the workdir, a mount source or a -r path
 * may be a hard link to a secret file (refused, naming it). */
int sbx_secrets_check(const struct sbx_idfs *fs, const struct sbx_policy *p,
    const struct sbx_strv *homes, const struct sbx_fsview *v, struct sbx_err *err);

#endif
