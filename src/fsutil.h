/* Filesystem chores of sbxrun itself: the temp workdir, the script file. */
#ifndef SBX_FSUTIL_H
#define SBX_FSUTIL_H

#include "err.h"

/* Removes path and everything below it without following symlinks; dirs
 * the sandbox made unwritable are made writable first. */
int sbx_rm_rf(const char *path, struct sbx_err *err);

/* Copies everything readable from fd into a new file at path (mode 0600,
 * never through a symlink). */
int sbx_write_file_from_fd(const char *path, int fd, struct sbx_err *err);

/* Moves rel (below the directory wd) aside to a new name next to it,
 * rel.sbxrun-untrusted.N, and returns that name relative to wd; NULL when
 * nothing was there (err untouched) or on failure (err set). Every
 * directory on the way is opened from wd without following a symlink: the
 * sandbox may have planted one to aim the rename elsewhere. */
char *sbx_move_aside_at(int wd, const char *rel, struct sbx_err *err);

/* Removes rel below the directory wd if it is an empty directory or an
 * empty regular file, reaching it from wd without following a symlink. */
void sbx_remove_empty_at(int wd, const char *rel);

#endif
