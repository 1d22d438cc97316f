/* Looking at an entry of a tree by name without waiting on the
 * filesystem of another mount below it (doc/design/idmap-covers.md,
 * "Other mounts below a tree"). */
#ifndef SBX_LINUX_STATAT_H
#define SBX_LINUX_STATAT_H

#include <stdbool.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "resolve.h"

/* Whether fd is on a local disk or memory filesystem (ext2/3/4, xfs,
 * btrfs, f2fs, tmpfs), whose inode status is always the kernel's own:
 * asking for it never waits on a server. */
bool sbx_fs_local(int fd);

/* The coarse realtime clock now (the clock inode times are taken from),
 * as a bound that every change time recorded from now on on fd's
 * filesystem (fd: a directory) is at or after. Where fd's own change time
 * has no nanoseconds the filesystem is taken to keep whole seconds (ext4
 * with 128-byte inodes; FAT's two seconds): the bound is then the start
 * of the second before. A network or FUSE filesystem (not sbx_fs_local())
 * takes its times from its server's clock, which may lag ours: a file is
 * made and removed in fd to read that clock, and the earlier of the two
 * is the bound (zero, which every time is at or after, when no file can
 * be made). A change made shortly before counts as after it: the
 * callers' safe side (doc/design/handback.md). */
void sbx_fs_clock(int fd, struct timespec *ts);

/* Whether the change time of st is at or after the bound from
 * sbx_fs_clock(); a zero bound holds for every time. */
bool sbx_changed_since(const struct stat *st, const struct timespec *since);

/* statx() of name, one component in dir, following no symlink and
 * triggering no automount, that never asks the filesystem of another
 * mount: a name that is a mount's root (stx_attributes has
 * STATX_ATTR_MOUNT_ROOT; with one component that is a mount other than
 * dir's) is described from what the kernel has cached, and a FUSE mount
 * that refuses sbxrun (no allow_other) is still reported as such, with
 * only its mount id and device. Any other entry is on dir's own mount;
 * when dir_local is false it is asked again, with the filesystem's own
 * revalidation, through a descriptor opened without crossing into a
 * mount (a mount made on the name meanwhile: EXDEV). */
int sbx_statx_here(int dir, const char *name, bool dir_local, unsigned mask, struct statx *sx);

/* fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) through sbx_statx_here(),
 * for walks that stay on one mount: a mount's root fails with EXDEV. */
int sbx_lstat_here(int dir, const char *name, bool dir_local, struct stat *st);

/* Opens name in dir (one component, or a path for kernels with openat2)
 * without following a symlink anywhere and without entering another mount:
 * RESOLVE_NO_XDEV refuses a mount point with EXDEV, bind mounts of the same
 * filesystem included. Kernels before 5.6 lack openat2: O_NOFOLLOW there,
 * and a device check of the caller's. O_NOFOLLOW and O_CLOEXEC are added
 * to flags. */
int sbx_open_here(int dir, const char *name, int flags);

#endif
