/* Lending a root caller's workdir to the sandbox's unprivileged uid for
 * one run, and handing everything back afterwards, for a jail without a
 * user namespace (so without idmapped mounts). */
#ifndef SBX_LINUX_OWNER_H
#define SBX_LINUX_OWNER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "err.h"
#include "policy.h"
#include "resolve.h"
#include "util.h"

struct file_handle;

struct sbx_lease_entry {
	dev_t dev;
	ino_t ino;
	gid_t gid;
	mode_t mode; /* as it was lent */
	/* A lent entry's only: its path when it was lent, its file handle
	 * (name_to_handle_at(), NULL where the filesystem gives none), and
	 * whether the hand-back's walk met it. An entry the walk did not
	 * meet was moved out of the tree during the run (by someone who may
	 * rename in the directory holding it): it is looked for by its
	 * handle. */
	char *path;
	struct file_handle *fh;
	bool met;
};

/* An entry a scan saw: its path relative to the tree's root ("" for the
 * root) and its inode; a directory's change time and listing (sorted
 * names with their inode numbers), a mount's id, a file's link count. */
struct sbx_cover {
	char *rel;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	uint64_t mnt_id;
	struct timespec ctime;
	char *list;
	size_t list_len;
};

/* What a scan found: the entries to cover; for sbx_owner_scan_recheck()
 * every directory it read, every mount it left alone and every
 * multi-link file it left uncovered. */
struct sbx_covers {
	struct sbx_cover *v;
	size_t n;
	struct sbx_cover *dirs, *mounts, *links;
	size_t ndirs, nmounts, nlinks;
};

struct sbx_scan;

/* What a lend changed, so that sbx_owner_return() can undo exactly it. */
struct sbx_lease {
	char *root; /* for the skips and messages only */
	int root_fd; /* O_PATH: where the lend and the hand-back walk from */
	dev_t dev;
	uid_t owner, to;
	gid_t owner_gid, to_gid;
	struct sbx_strv skip; /* absolute paths left alone, with all below */
	struct sbx_lease_entry *lent; /* entries given from owner to to */
	size_t nlent;
	struct sbx_lease_entry *native; /* entries that were to's already */
	size_t nnative;
	struct sbx_strv failed; /* the first entries a walk could not do, and why */
	size_t nfailed; /* how many there were in all */
	/* Set by the caller after the lend when nothing kept the sandbox
	 * from setting POSIX ACLs (docker): the hand-back takes those naming
	 * a user or group from each entry the run changed (sbx_acl_reduce())
	 * and names the entries in its warnings. */
	bool acls;
	/* ... from every entry: the sandbox may have changed one before the
	 * lend ended (a kept container outlives the runs). */
	bool acls_all;
	struct sbx_strv acl_removed; /* the first of those entries */
	size_t nacl; /* how many there were in all */
	struct sbx_strv moved; /* the first lent entries moved out of the tree */
	size_t nmoved; /* how many there were in all */
	bool moved_walk; /* walking one of them: a lent directory met
	                    before is not entered again */
	struct sbx_scan *scan; /* a scan's state (sbx_owner_scan), else NULL */
	/* The coarse clock when the lend was done, on a local filesystem:
	 * an entry whose change time is earlier was not touched after it.
	 * Zero (a failed lend, another filesystem): every entry counts as
	 * touched. */
	struct timespec since;
};

/* Gives each entry of the tree of the directory root_fd (its path is
 * root, used for skip and messages, never opened) owned by owner to uid
 * to (the group is kept), at any depth, never following a symlink nor leaving
 * root's filesystem or mount, and leaving alone the paths in skip (and below them),
 * regular files with more than one link (the other link may lie
 * outside), set-id files and files with capabilities. On failure the
 * tree is handed back and -1 returned. */
int sbx_owner_lend(struct sbx_lease *l, int root_fd, const char *root, uid_t owner, gid_t owner_gid,
    uid_t to, gid_t to_gid, const struct sbx_strv *skip, struct sbx_err *err);

/* Ends the lease l without handing anything back: for a tree that is
 * removed whole right after (a temp workdir not kept). */
void sbx_owner_drop(struct sbx_lease *l);

/* The paths a lend leaves alone: the secret list (its entries must stay
 * unreadable by file permissions too) and the workdir's protected paths
 * (they stay the caller's, so even file permissions keep them read-only). */
void sbx_owner_skips(const struct sbx_policy *p, const struct sbx_fsview *fs, struct sbx_strv *out);

/* For an idmapping that gives owner's files to the sandbox (namespaces,
 * a root caller; doc/design/idmap-covers.md): the entries of the tree of
 * the directory root_fd (path root, for skip and messages) owned by owner
 * or by group owner_gid that the idmapping must not give: set-id files,
 * files with capabilities, regular files with a link outside what the scan
 * saw, sockets, fifos and devices; nothing below a path in skip. No
 * symlink is followed and no other mount entered (a btrfs subvolume, with
 * a device of its own, is the same mount and is scanned). More than max of
 * them, an entry deeper than PATH_MAX, or a directory the walk could not
 * read: -1 and err (errnum ESTALE when a name vanished under it). A file
 * root_fd: no entry, but a set-id or capability file of owner's is
 * refused. */
int sbx_owner_scan(int root_fd, const char *root, uid_t owner, gid_t owner_gid,
    const struct sbx_strv *skip, size_t max, struct sbx_covers *out, struct sbx_err *err);

/* After the covers are in place: every directory the scan read must list
 * the same names with the same inodes, every mount it left alone must be
 * the same mount, every multi-link file it left uncovered must have the
 * same link count (nothing renamed, made, removed, linked or mounted that
 * could have hidden an entry from the scan); else -1 with err->errnum
 * ESTALE. */
int sbx_owner_scan_recheck(
    int root_fd, const char *root, const struct sbx_covers *c, struct sbx_err *err);

void sbx_covers_free(struct sbx_covers *c);

/* After the run, when nothing of the sandbox runs any more: every entry
 * of the tree lent (walked again from the descriptor the lend kept, not
 * from its name) owned by to, at any depth, goes back to owner: lent ones
 * with their own group, new ones with owner_gid where the sandbox's group
 * was given; each loses its set-id bits and its trusted.* and security.*
 * attributes (file capabilities among them). Entries that were to's
 * before the lend stay so. A lent entry the walk did not meet (moved out
 * of the tree) is opened by its file handle (open_by_handle_at(), which
 * needs CAP_DAC_READ_SEARCH) and, when it is still that inode and still
 * to's, handed back where it is now, a directory with what it holds.
 * What could not be handed back, and every lent entry moved out, is
 * named in a line added to warnings (when not NULL). Frees l. */
void sbx_owner_return(struct sbx_lease *l, struct sbx_strv *warnings);

/* Whether the calling task, with the ids uid stands for (its own, taken
 * before the call), can reach each of the n paths and use it as a
 * workdir: search every ancestor, read, write and search the path. On
 * failure err names the first path, and the first directory on its way,
 * that stops it. Writes no memory but err and the stack: safe in a
 * payload started in init's memory (launch.h, vfork_safe). */
int sbx_owner_check_reach(const char *const *paths, size_t n, uid_t uid, struct sbx_err *err);

#endif
