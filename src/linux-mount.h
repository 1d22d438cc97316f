/* Building the jail's filesystem: the facts a plan needs, read from the
 * host, and the executor that turns a plan's mount list into a new root. */
#ifndef SBX_LINUX_MOUNT_H
#define SBX_LINUX_MOUNT_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "hostfacts.h"
#include "plan.h"

/* In a child that has its own user and mount namespaces: builds the new
 * root from plan->ops, pivots into it and detaches the old root. Each
 * source and target is opened once following no symlink, and a source fs
 * pinned must still be the same file. errnum
 * ENOSYS: the namespace allows no mount at all.
 * tree_fds[i] is the detached tree the parent made for plan->trees[i]. */
int sbx_mount_build_root(const struct sbx_plan *plan, const struct sbx_fsview *fs,
    const int *tree_fds, struct sbx_err *err);

/* In the parent (root in the initial user namespace): a detached copy of
 * the tree t, read-only if asked, and for an idmapped tree with ownership
 * seen through the id mapping of the user namespace userns_fd. The tree is
 * cloned from fs's pinned descriptor of t->src when there is one. */
int sbx_mount_clone_tree(
    const struct sbx_tree *t, const struct sbx_fsview *fs, int userns_fd, struct sbx_err *err);

/* In the parent (root in the initial user namespace): a detached copy of
 * the mount tree at fd (submounts included), nosuid and nodev, with
 * ownership seen through the id mapping of userns_fd unless that is -1.
 * what names it in errors. */
int sbx_mount_clone_fd(int fd, const char *what, int userns_fd, struct sbx_err *err);

/* The user namespace of a root caller's idmapped mounts, by descriptor:
 * its only mapping makes uid and gid 0 SBX_SANDBOX_ROOT_ID, so that
 * through such a mount the files root owns on disk belong to the
 * sandbox's id, and what that id makes there is owned by 0 on disk.
 * With others, every other id maps to itself but SBX_SANDBOX_ROOT_ID,
 * which becomes 0 (a map must be one to one): files of other users keep
 * their owner and group through the mount, and stay writable where their
 * modes say (the kernel refuses any write to an inode whose owner or
 * group has no mapping). Without, every other on-disk id has no mapping
 * there and is nobody's through the mount (the kernel's overflow id). */
int sbx_mount_idmap_userns(bool others, struct sbx_err *err);

/* In a process that holds CAP_SYS_ADMIN: a mount namespace of its own,
 * every mount a slave of the host's, so that nothing attached in it is
 * seen outside. No allocation (safe in a vfork child). */
int sbx_mount_private_ns(struct sbx_err *err);

/* After sbx_mount_private_ns(): attaches the detached tree tree_fd over
 * path, which must still be the directory or file dev/ino. No allocation
 * (safe in a vfork child). */
int sbx_mount_cover(int tree_fd, const char *path, dev_t dev, ino_t ino, struct sbx_err *err);

#endif
