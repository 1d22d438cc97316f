/* Resolving a policy against this machine: canonical paths, the expanded
 * secret list, and the checks on the workdir and on mounts. The lists of
 * what is forbidden are pure and exported for the unit tests; resolving
 * reads the filesystem (realpath, lstat, glob) but changes nothing. */
#ifndef SBX_RESOLVE_H
#define SBX_RESOLVE_H

#include <stdbool.h>
#include <sys/stat.h>

#include "err.h"
#include "policy.h"
#include "util.h"

/* A host path opened once, without following any symlink, and checked on
 * that descriptor: what sbxrun later mounts or walks from it is this very
 * object, whatever happens to the name meanwhile (doc/design/paths.md). */
struct sbx_pin {
	char *path; /* the canonical path it was opened by */
	int fd; /* O_PATH, close-on-exec */
	struct stat st; /* fstat of fd at opening */
};

/* The facts about the filesystem a backend needs, all canonical. */
struct sbx_fsview {
	char *workdir; /* absolute, canonical */
	bool workdir_temp; /* a fresh temp dir that sbxrun removes */
	/* A temp workdir that held no entry when it was pinned (Linux): the
	 * plan takes every name in it as missing without looking
	 * (hostfacts.c), as it takes missing secrets. */
	bool workdir_empty;
	bool workdir_in_jail; /* a throwaway directory made inside the jail
	                         (doc/design/startup.md): no host object, no pin */
	bool workdir_home; /* the workdir is one of homes (by identity) */
	/* The workdir is itself a git directory (a bare repository: a HEAD
	 * next to objects and refs, or to commondir): its config and hooks
	 * are protected as .git's are (fsplan.c). Set by the caller of the
	 * resolution (sbx_host_is_git_dir()). */
	bool workdir_gitdir;
	struct sbx_strv homes; /* the caller's home directories */
	struct sbx_strv hidden; /* never readable: secrets + [deny], each
	                                   as written and, when it exists, resolved */
	/* The entries of hidden (as written) with no entry of that name on
	 * the host when the list was read: the list is a snapshot taken as
	 * the run starts, and the plan takes these as missing without
	 * looking again (hostfacts.c). */
	struct sbx_strv missing;
	struct sbx_strv roots; /* the system roots present here */
	struct sbx_strv read; /* allowlist paths that exist, canonical */
	/* The mount table as sbx_resolve_begin() read it, for the checks of
	 * sbx_resolve_rest(); NULL when there is none. */
	bool mounts_read;
	char *mountinfo;
	struct sbx_pin *pins; /* the workdir first, then mount sources and
	                                   read paths */
	size_t npins;
};

/* The caller's secret paths under home, and the system-wide ones (before
 * globbing "ssh_host_*_key"). Appends to out. */
void sbx_secret_list(const char *home, struct sbx_strv *out);
void sbx_secret_list_system(struct sbx_strv *out);

/* The system roots that strict mode makes readable. */
extern const char *const sbx_system_roots[];

/* Why a canonical path may not be the workdir, or NULL when it may. */
const char *sbx_workdir_forbidden(const char *path, const struct sbx_strv *hidden);

/* Why a canonical path may not be a mount source, or NULL when it may. */
const char *sbx_mount_source_forbidden(
    const char *path, const struct sbx_strv *homes, const struct sbx_strv *hidden);

/* Resolves p against the filesystem into v, rewriting mount sources as
 * canonical paths. temp_workdir is the path of an already made temp dir
 * when p->workdir is NULL; with in_jail it is instead the path of the
 * directory the jail makes in its own private /tmp, which does not exist
 * on the host: nothing is pinned for it (p must have no workdir and no
 * mounts then). */
int sbx_resolve(struct sbx_policy *p, const struct sbx_strv *homes, const char *temp_workdir,
    bool in_jail, struct sbx_fsview *v, struct sbx_err *err);

/* sbx_resolve() in two steps, for a caller that overlaps the first with a
 * wait: sbx_resolve_begin() fills what needs no workdir (the secret and
 * deny lists, canonical and widened; the system roots present) and never
 * fails; sbx_resolve_rest() then does the rest on that v, as
 * sbx_resolve() would. mountinfo, when not NULL, is the mount table the
 * caller already read (sbx_mountinfo_read()), taken as this resolution's
 * one reading of it; NULL: it is read here. */
void sbx_resolve_begin(struct sbx_policy *p, const struct sbx_strv *homes, const char *mountinfo,
    struct sbx_fsview *v);
int sbx_resolve_rest(struct sbx_policy *p, const struct sbx_strv *homes, const char *temp_workdir,
    bool in_jail, struct sbx_fsview *v, struct sbx_err *err);

void sbx_fsview_free(struct sbx_fsview *v);

/* The pinned descriptor of a canonical path resolve opened, or NULL. */
const struct sbx_pin *sbx_fsview_pin(const struct sbx_fsview *v, const char *path);

/* Whether the directory open for reading at fd holds no entry but "."
 * and ".." (read from its current offset). Always false outside Linux
 * and on any error. */
bool sbx_dir_empty(int fd);

/* The workdir's pinned descriptor (O_PATH), or -1 before sbx_resolve and
 * for a workdir made inside the jail. */
int sbx_fsview_workdir_fd(const struct sbx_fsview *v);

/* Opens path (absolute, or relative to dirfd and then kept beneath it)
 * with O_PATH, following no symlink on the way, the last component
 * included, and refusing "..": a component swapped for a symlink makes it
 * fail with ELOOP instead of leading elsewhere. st receives the fstat of
 * the result (NULL: not asked). Returns the descriptor, or -1 with errno. */
int sbx_open_nofollow(int dirfd, const char *path, struct stat *st);

/* Opens the directory dir (O_PATH) as a mount source is walked: every
 * component opened following nothing, a symlink met on the way followed
 * only when the caller or root owns it and it does not lie at or below
 * the workdir wd (NULL: none known), doc/design/paths.md. For the files
 * sbxrun writes at a path the caller gives (--diag, --trace). Returns the
 * descriptor, or -1 with err set, naming what. */
int sbx_open_dir_walked(
    const char *what, const char *dir, const struct stat *wd, struct sbx_err *err);
/* fstat() of fd from what the kernel has cached (AT_STATX_DONT_SYNC on
 * Linux): the root of another mount there may be a FUSE server that never
 * answers, and identity and type never change. A network filesystem's
 * mode, owner and times may be a few seconds old. */
int sbx_fstat_cached(int fd, struct stat *st);

/* fstatat(dir, path, st, flags) the same way (flags: AT_SYMLINK_NOFOLLOW,
 * AT_EMPTY_PATH). */
int sbx_stat_cached(int dir, const char *path, int flags, struct stat *st);

/* Where a canonical path is looked up so that what was put at a pinned
 * name since it was pinned does not count: the descriptor of the deepest
 * pin of v at or above path in *dir, and the rest of the path below it
 * ("" for the pin itself); AT_FDCWD and path itself when no pin holds it
 * (or v is NULL). doc/design/paths.md, the rule, 5. */
const char *sbx_fsview_at(const struct sbx_fsview *v, const char *path, int *dir);

/* sbx_stat_cached() of path (flags as fstatat's) looked up that way. */
int sbx_fsview_stat(const struct sbx_fsview *v, const char *path, int flags, struct stat *st);

/* Whether path is one of v's missing entries (found with no entry at all
 * when the secret list was read) and is looked up by name: below a pin
 * what counts is the pinned directory, which is looked at instead. */
bool sbx_fsview_missing(const struct sbx_fsview *v, const char *path);

#ifdef __linux__
/* The struct stat fields a statx() answer holds. */
void sbx_stat_of_statx(const struct statx *sx, struct stat *st);
#endif

/* Whether two stats name the same file (device and inode). */
bool sbx_same_file(const struct stat *a, const struct stat *b);

#endif
