/* Building the jail's filesystem: the facts a plan needs, read from the
 * host, and the executor that turns a plan's mount list into a new root. */
#ifndef SBX_LINUX_MOUNT_H
#define SBX_LINUX_MOUNT_H

#include <sys/types.h>

#include "err.h"
#include "linux-owner.h"
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
 * seen through the id mapping of the user namespace userns_fd on its own
 * mount (the mounts below it keep their real owners). The tree is
 * cloned from fs's pinned descriptor of t->src when there is one. */
int sbx_mount_clone_tree(
    const struct sbx_tree *t, const struct sbx_fsview *fs, int userns_fd, struct sbx_err *err);

/* In the parent: a read-only mount of the host's c (beneath host, the
 * descriptor of the tree's source, whose path is root) over the same
 * entry of the detached tree made from it, so that the sandbox sees the
 * entry with its real owner, as "other", and cannot change it. Both ends
 * are reached beneath their directories following no symlink and must
 * still be the inode the scan saw. */
int sbx_mount_cover(
    int tree, int host, const char *root, const struct sbx_cover *c, struct sbx_err *err);

#endif
