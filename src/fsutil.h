/* Filesystem chores of sbxrun itself: the temp workdir, the script file. */
#ifndef SBX_FSUTIL_H
#define SBX_FSUTIL_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"

/* Removes path and everything below it without following symlinks; dirs
 * the sandbox made unwritable are made writable first. */
int sbx_rm_rf(const char *path, struct sbx_err *err);

/* The same for name in the directory dir (shown in the error as shown),
 * which must be want (when not NULL) when it is removed. */
int sbx_rm_rf_at(
    int dir, const char *name, const struct stat *want, const char *shown, struct sbx_err *err);

/* The directory of the --interp script, relative to the workdir. */
#define SBX_SCRIPT_DIR ".sbxrun"

/* The --interp script file: descriptors of the workdir and of its
 * .sbxrun, each opened once without following a symbolic link, and what
 * sbxrun made there (only that is removed). */
struct sbx_script {
	int wd;
	int dir;
	bool made_dir;
	bool made_file;
	char *name;
};

/* Copies everything readable from in into WORKDIR/.sbxrun/NAME (WORKDIR
 * reached by its descriptor wd; workdir names it in messages), a new
 * regular file of mode 0600 created exclusively: no symbolic link is
 * followed on the way, .sbxrun must be a directory of owner that no one
 * else may write to, and an existing NAME is never opened (a leftover that
 * is not a directory is removed first). On failure, s still records what
 * was made, for sbx_script_remove. */
int sbx_script_store(struct sbx_script *s, int wd, const char *workdir, const char *name, int in,
    uid_t owner, uint64_t timeout_ms, struct sbx_err *err);

/* The first half of sbx_script_store(): makes the file and returns it,
 * opened for writing, in *out. */
int sbx_script_create(struct sbx_script *s, int wd, const char *workdir, const char *name,
    uid_t owner, int *out, struct sbx_err *err);

/* The largest script --interp takes from standard input. */
#define SBX_SCRIPT_MAX (64 << 20)

/* The second half: copies in into fd (taken and closed); shown names the
 * file in errors. At most SBX_SCRIPT_MAX bytes and, with timeout_ms, no
 * longer than that: an error past either. */
int sbx_script_fill(int fd, const char *shown, int in, uint64_t timeout_ms, struct sbx_err *err);

/* Removes what sbx_script_store made, through its descriptors only, and
 * releases s. Safe on a zeroed s whose descriptors are -1. */
void sbx_script_remove(struct sbx_script *s);

/* Writes all of p to fd, a descriptor the sandbox may share (the caller's
 * standard error, the diagnostics descriptor): made non-blocking there, it
 * waits for room as a blocking write would; a socket shut down or a pipe
 * without a reader fails the write (false) and raises no SIGPIPE, which
 * would end sbxrun (sbxrun(1), "Standard input, output and error"). */
bool sbx_write_shared(int fd, const void *p, size_t n);

/* Whether a line written to fd now would start a line of its own: 1 when
 * fd is a regular file and the byte before where the write would go is a
 * newline (or there is none), 0 when it is another byte, -1 when that
 * cannot be known (not a regular file, not readable). */
int sbx_fd_at_line_start(int fd);

/* Renames name in dir to name.sbxrun-untrusted.N, the first N from 1 to
 * 100 that is free, or, when a sandbox took every one of those, to a name
 * with a random part (name.sbxrun-untrusted.HEX) it cannot make ahead;
 * returns the new name (the caller's to free), or NULL with errno. */
char *sbx_rename_aside(int dir, const char *name);

/* Moves rel (below the directory wd) aside to a new name next to it
 * (sbx_rename_aside()), and returns that name relative to wd; NULL when
 * nothing was there (err untouched) or on failure (err set). Every
 * directory on the way is opened from wd without following a symlink: the
 * sandbox may have planted one to aim the rename elsewhere. */
char *sbx_move_aside_at(int wd, const char *rel, struct sbx_err *err);

/* Walks the directories on the way to rel below wd, each opened from the
 * one before without following a symlink; when one of them is now a
 * symlink, moves that symlink aside (sbx_rename_aside() on its parent's
 * descriptor), sets *made to its name relative to wd (the caller's to
 * free) and returns its new name relative to wd. NULL when every
 * directory on the way is one, or a component is missing or another
 * kind of file (err untouched), or on failure (err set). For a path
 * that passed through no symlink when the run started, a symlink met
 * here was put there during it. A directory on the way, or the name's
 * own, that this (non-root) process cannot search sets err (EACCES)
 * naming it: a sandbox of the caller's uid can lock one to hide what it
 * made below, and it is said, not opened up. */
char *sbx_move_aside_way(int wd, const char *rel, char **made, struct sbx_err *err);

/* Removes rel below the directory wd if it is an empty directory or an
 * empty regular file, reaching it from wd without following a symlink. */
void sbx_remove_empty_at(int wd, const char *rel);

#endif
