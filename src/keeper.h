/* The keeper: a small process sbxrun forks before it changes anything on
 * the caller's disk, which makes and records every change a run must undo
 * (the temp workdir, the private TMPDIR, the --interp script, a root
 * caller's lend, the mount links and targets, what the sandbox may leave
 * where nothing may be made) and undoes them when sbxrun asks, or by
 * itself once sbxrun and the jail's tree are both gone, however sbxrun
 * ended (SIGKILL included). See doc/design/lifecycle.md. */
#ifndef SBX_KEEPER_H
#define SBX_KEEPER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"
#include "util.h"

struct sbx_keeper;

/* Forks the keeper, in a session of its own, with every signal blocked
 * and no descriptor of sbxrun's but its two channels: on Linux a child of
 * sbxrun that sends no SIGCHLD (keeper.c), reaped by sbx_keeper_reap().
 * Must be called while sbxrun is single-threaded. NULL with err on
 * failure. */
struct sbx_keeper *sbx_keeper_start(struct sbx_err *err);

/* sbx_keeper_start() without the wait for the keeper's first answer (that
 * it is ready), which the first answer read afterwards reads first:
 * sbxrun goes on with work of its own while the keeper starts. Asked for
 * directories before that first answer is read, the keeper works on the
 * caller's other CPUs (when there are any) until sbxrun first waits for
 * it, then on all of them again. */
struct sbx_keeper *sbx_keeper_launch(struct sbx_err *err);

/* The keeper's pid when it is sbxrun's (clone) child, which the tree's end
 * must spare (sbx_child.keeper); 0 otherwise or for NULL. */
pid_t sbx_keeper_pid(const struct sbx_keeper *k);

/* The descriptor whose last copy closing tells the keeper that nothing
 * of the run is left: sbxrun holds one, and the jail's init keeps the one
 * it inherits until every process of its tree is reaped (a pid
 * namespace's init: until it exits). Close-on-exec. -1 for a NULL
 * keeper. */
int sbx_keeper_hold_fd(const struct sbx_keeper *k);

/* Makes PARENT/PREFIX.XXXXXX (mode 0700), recorded for removal with all
 * below it; *path is the caller's to free. */
int sbx_keeper_mkdtemp(
    struct sbx_keeper *k, const char *parent, const char *prefix, char **path, struct sbx_err *err);

/* sbx_keeper_mkdtemp() for n directories in parent, in two halves, so
 * that work needing none of them overlaps the keeper's start and its
 * mkdirs: _ask() sends the n requests (all before the first answer is
 * read: one wait for the keeper); _take() reads the answers to every
 * request asked since the last _take() into paths (n slots, in the order
 * asked; NULL for one not made), records the directories made and, on
 * failure, sets err to the first failure's. Every paths[i] made is the
 * caller's to free and is removed at the end of the run like the others.
 * After a failed _ask(), _take() is still called (with another err). */
int sbx_keeper_mkdtemps_ask(struct sbx_keeper *k, const char *parent, const char *const *prefixes,
    size_t n, struct sbx_err *err);
int sbx_keeper_mkdtemps_take(struct sbx_keeper *k, char **paths, size_t n, struct sbx_err *err);

/* The tasks of uid, counted by the keeper as sbx_limits_uid_tasks()
 * (rlimits.h) counts them, in two halves: _ask() sends the request, which
 * the keeper answers after every request sent before it, so that the
 * count runs beside sbxrun's own work; _take() reads the answer (once).
 * Each returns 0, or -1 when there is no count to take: the caller then
 * counts itself. Any other request reads the answer first. */
int sbx_keeper_count_ask(struct sbx_keeper *k, uid_t uid);
int sbx_keeper_count_take(struct sbx_keeper *k, uint64_t *n);

/* Stops the removal of a directory made by sbx_keeper_mkdtemp (--keep). */
void sbx_keeper_forget(struct sbx_keeper *k, const char *path);

/* The descriptors sbx_keeper_forget(k, path) uses (the request socket
 * and sbxrun's copy of the directory's), at most max of them, into fds;
 * returns how many. For a process forked from sbxrun that closes every
 * other descriptor and may still call it (the jail's init, launch.h's
 * orphaned). */
size_t sbx_keeper_forget_fds(const struct sbx_keeper *k, const char *path, int *fds, size_t max);

/* Makes WORKDIR/.sbxrun/NAME as sbx_script_store() does (fsutil.h), in
 * the directory wd (the pinned workdir, sent with the request; workdir
 * names it in messages), and returns it opened for writing in *fd; what
 * was made is removed at the end of the run. */
int sbx_keeper_script(struct sbx_keeper *k, int wd, const char *workdir, const char *name,
    uid_t owner, int *fd, struct sbx_err *err);

/* An O_PATH descriptor (in *fd, the caller's to close) of the directory
 * sbx_keeper_mkdtemp() made at path, as it was made: the name may have
 * been given to another object since. A copy of the one the keeper's
 * answer to the MKDTEMP carried: no request. */
int sbx_keeper_tmp_fd(struct sbx_keeper *k, const char *path, int *fd, struct sbx_err *err);

/* fstat() of that descriptor, without a copy: what a resolution of path
 * must have found. -1 with errno ENOENT for a path it did not make. */
int sbx_keeper_tmp_stat(const struct sbx_keeper *k, const char *path, struct stat *st);

/* Gives tmpdir (when not NULL: a directory this keeper made, reached by
 * its descriptor) and the tree of the directory wd (root is its path, for
 * the skips and messages) to uid to as sbx_owner_lend() does
 * (linux-owner.h); nothing is looked up by name. The lease is handed back
 * by sbx_keeper_undo_run(), or by the keeper alone if sbxrun dies.
 * throwaway: root is a temp directory this keeper made that will not be
 * kept (no sbx_keeper_forget() of it will come): then nothing of it is
 * handed back, as its removal takes all of it (doc/design/handback.md);
 * the keeper believes it only of the very directory it made. acls
 * (SBX_KEEPER_ACLS_*): the hand-back also takes the ACLs naming a user
 * or group from the entries the sandbox changed (sbx_lease.acls,
 * linux-owner.h), or from every entry when the sandbox may have changed
 * them before the lend ended (a kept container, which outlives runs,
 * ACLS_ALL). meanwhile (when
 * not NULL) runs, given ctx, after the request is sent and before its
 * answer is awaited: sbxrun's own work, made while the keeper walks. */
enum { SBX_KEEPER_ACLS_NONE, SBX_KEEPER_ACLS_CHANGED, SBX_KEEPER_ACLS_ALL };
int sbx_keeper_lend(struct sbx_keeper *k, int wd, const char *root, const char *tmpdir, uid_t owner,
    gid_t owner_gid, uid_t to, gid_t to_gid, const struct sbx_strv *skip, bool throwaway, int acls,
    void (*meanwhile)(void *ctx), void *ctx, struct sbx_err *err);

/* Makes rel (below the directory wd, with its missing parents) a
 * symbolic link to source; an existing rel is refused. The link and the
 * directories made for it are removed by the undo, the link only while
 * it still points to source, the directories only while empty. */
int sbx_keeper_link(
    struct sbx_keeper *k, int wd, const char *rel, const char *source, struct sbx_err *err);

/* Records, before the jail starts, what the run may leave in the
 * directory wd: created (relative, outermost first) are removed by the
 * undo while empty, scrub is moved aside when there, orphan (may be NULL)
 * too but only when sbxrun died before its FINISH (what sbxrun's own
 * checks would have judged, sbx_gitguard_orphan_names()), and held (may
 * be NULL), whose files the keeper notes now, is moved aside when another
 * file has that name after the run (each warning starts with tag). */
void sbx_keeper_watch(struct sbx_keeper *k, int wd, const char *tag, const struct sbx_strv *created,
    const struct sbx_strv *scrub, const struct sbx_strv *orphan, const struct sbx_strv *held);

struct sbx_cg_write;

/* Makes the cgroup v2 leaf parent/name and writes w into it (cgroup.h):
 * with sup, first moves sbxrun and the keeper into parent/sup and
 * writes enable to parent's cgroup.subtree_control. The leaf's directory
 * comes back in *fd (O_PATH) and its path in *path. The keeper removes
 * the leaf once the run is over, however sbxrun ends (emptying it with
 * cgroup.kill if a process is left); test: a fake tree
 * (SBXRUN_TEST_CGROUP_ROOT), whose files the keeper makes and removes. */
int sbx_keeper_cgroup(struct sbx_keeper *k, const char *parent, const char *name, const char *sup,
    const char *enable, const struct sbx_cg_write *w, size_t nw, bool test, char **path, int *fd,
    struct sbx_err *err);

/* Once the jail's tree is gone: undoes the watches, links and the lease
 * now (in that order), adding what could not be done to warnings. */
void sbx_keeper_undo_run(struct sbx_keeper *k, struct sbx_strv *warnings);

/* The same undo, asked without waiting for it, where nothing sbxrun does
 * before its sbx_keeper_undone() needs it done (a thrown-away temp
 * workdir, doc/design/lifecycle.md). */
void sbx_keeper_undo_run_ask(struct sbx_keeper *k);

/* The answer of that undo, once: its warnings added to warnings. Nothing
 * when none was asked (NULL is fine); sbx_keeper_finish() reads an answer
 * left unread and adds its warnings to its own. */
void sbx_keeper_undone(struct sbx_keeper *k, struct sbx_strv *warnings);

/* At the end of sbxrun: has the keeper undo whatever is left (the
 * script, the directories made) and waits for its answer, adding its
 * warnings; nothing of the run is left on disk when it returns (NULL
 * and a second call are fine). */
void sbx_keeper_finish(struct sbx_keeper *k, struct sbx_strv *warnings);

/* Its first half, for when nothing more will be asked of the keeper (no
 * sbx_keeper_forget() follows): sends FINISH, so that the keeper removes
 * the files while sbxrun ends the run; sbx_keeper_finish() then only
 * reads the answer. NULL and a second call are fine. */
void sbx_keeper_finish_ask(struct sbx_keeper *k);

/* Then, as late as sbxrun can (its exit runs meanwhile): finishes the
 * keeper if that was not done, waits for it to exit, reaps it and frees
 * k (NULL is fine). */
void sbx_keeper_reap(struct sbx_keeper *k);

#endif
