/* Repositories the sandbox makes in the workdir. git treats a directory as
 * a repository when it holds a .git, or when it is one itself (a bare
 * layout: HEAD, objects/, refs/); either way it reads a config whose
 * commands (core.fsmonitor, hooks, ...) it then runs for whoever types
 * "git status" there. What the run made at the workdir's top level (and at
 * a read-write mount source's) is moved aside after it, under both Linux
 * backends and docker; repositories made or changed deeper are named in
 * the warnings (see sbxrun(1)). */
#ifndef SBX_LINUX_GITGUARD_H
#define SBX_LINUX_GITGUARD_H

#include "backend.h"
#include "diag.h"
#include "err.h"
#include "fsplan.h"
#include "resolve.h"

struct sbx_gitguard;

/* Notes what the workdir's top level holds, before anything of the
 * sandbox runs; keeps a copy of fd (the descriptor resolve pinned the
 * workdir by, never its name again) for the moves after. Never fails:
 * NULL when fd is -1 (a workdir made inside the jail: nothing to guard). */
struct sbx_gitguard *sbx_gitguard_new(int fd, const char *workdir);

/* Adds the source of a read-write mount (fd: a descriptor of it, opened
 * once when the paths were resolved; duplicated) to the trees looked at
 * after the run, the same way as the workdir: a repository made at its
 * top moved aside, deeper ones named, directories the run changed taken
 * out of others' reach. g may be NULL (a workdir made inside the jail):
 * returns the guard, made if needed. */
struct sbx_gitguard *sbx_gitguard_add_mount(struct sbx_gitguard *g, int fd, const char *source);

/* sbx_gitguard_add_mount() for each read-write directory mount of view,
 * by the descriptor resolve pinned its source with. */
struct sbx_gitguard *sbx_gitguard_add_mounts(
    struct sbx_gitguard *g, const struct sbx_fsplan *view, const struct sbx_fsview *fs);

/* After the run, also takes the set-user-ID and set-group-ID bits off
 * every file and directory of the caller's in the trees that the run
 * changed, for a backend whose sandbox the kernel lets set them (docker,
 * for a caller other than root: the files are the caller's own). Costs a
 * stat of every regular file. g may be NULL. */
void sbx_gitguard_clear_setid(struct sbx_gitguard *g);

/* Has the guard look at every file as well, and take from each entry of
 * the caller's that the run changed the POSIX ACLs (access and default)
 * that name a user or group (sbx_acl_reduce()), naming them in warnings:
 * for a sandbox whose calls to set them nothing refuses (docker's runs
 * in the host's user namespace, so a named entry may name any local
 * user). */
void sbx_gitguard_reduce_acls(struct sbx_gitguard *g);

/* Tells the guard that what the sandbox makes is the caller's on disk
 * (the namespaces backend's idmapped trees): for a root caller, an entry
 * of uid 65534 is then not the run's but another process's. */
void sbx_gitguard_idmapped(struct sbx_gitguard *g);

/* Has the guard look, after the run, for mounts another user made below
 * its trees meanwhile (linux-mountwatch.h): fd is /proc/self/mountinfo,
 * opened before before (the table then) was read; the caller keeps it
 * open until the guard is done. */
void sbx_gitguard_watch_mounts(struct sbx_gitguard *g, int fd, const char *before);

/* For tests only (SBXRUN_TEST_MOUNT_PASS=late): no look for other users'
 * mounts before the checks; the search and the look after them remain. */
void sbx_gitguard_test_late_mount_pass(void);

/* Removes the access ACL of the file behind fd (any descriptor, O_PATH
 * too) when it names a user or group, the mode's group bits becoming what
 * the owning group's entry granted under the mask, and a directory's
 * default ACL when it names one. Returns 1 when it removed one, 0 when
 * there was none to remove, 2 when a file with more than one link has one
 * (left as it is: another link may lie outside), -1 when it could not. */
int sbx_acl_reduce(int fd);

/* The top-level names of the workdir that, made in a run sbxrun did not
 * see to its end, would make the workdir a repository for the caller's
 * next git command, into out: the guard's own move after the run never
 * comes then, and the keeper (or docker's init) moves these aside
 * instead, whatever they are. HEAD when it was missing at the start;
 * else objects, refs and commondir, those that were missing. Nothing
 * when the workdir was a repository or held .git (moved aside by the
 * scrub list). */
void sbx_gitguard_orphan_names(const struct sbx_gitguard *g, struct sbx_strv *out);

/* For tests only (SBXRUN_TEST_SCAN_MAX, sbxrun(1)): both bounds of the
 * search after the run, entries and directories, lowered to n. */
void sbx_gitguard_set_scan_max(size_t n);

/* Frees g (NULL is fine) without looking at the workdir. */
void sbx_gitguard_free(struct sbx_gitguard *g);

static inline void
sbx_gitguard_freep(struct sbx_gitguard **g)
{
	sbx_gitguard_free(*g);
}
#define _cleanup_gitguard_ __attribute__((cleanup(sbx_gitguard_freep)))

/* Takes *g (setting it to NULL) and hooks it into c's cleanup, after the
 * backend's own: when the tree is gone, what the run made at the top
 * level is moved aside and the warnings of the report the cleanup is
 * given say so. */
void sbx_gitguard_attach(struct sbx_gitguard **g, struct sbx_child *c);

/* Moves WORKDIR/rel aside, when it is there, to a new name next to it
 * (rel.sbxrun-untrusted.N) and returns that name relative to the workdir,
 * or NULL (err set when something was there but could not be moved). The
 * path is walked from wd (a descriptor of the workdir; -1 opens workdir)
 * one directory at a time without following a symlink: the sandbox may
 * have planted one to aim the rename elsewhere. */
char *sbx_move_aside(int wd, const char *workdir, const char *rel, struct sbx_err *err);

#endif
