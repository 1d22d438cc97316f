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

#endif
