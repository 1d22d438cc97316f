/* Mounts made during a run below a tree the sandbox could write.
 *
 * The sandbox cannot mount anything on the host (no capability, no new
 * privileges, seccomp), but another local user can: fusermount3 is
 * set-user-ID root and mounts for its user on any directory that user may
 * write and that is not sticky, such as one the sandbox opened to everyone
 * in the caller's workdir. Below such a mount what the run left is out of
 * reach of the checks after it (they never cross into another mount),
 * and the caller later finds that user's files there instead
 * (doc/design/threat-model.md, "Nothing is planted for later"). */
#ifndef SBX_LINUX_MOUNTWATCH_H
#define SBX_LINUX_MOUNTWATCH_H

#include <stdbool.h>

#include "util.h"

/* Whether the mount table changed since fd (/proc/self/mountinfo, opened
 * when the table was read before the run) was opened: one poll(2), no
 * read. False when fd is -1. */
bool sbx_mountwatch_changed(int fd);

/* The mounts in the table now (sbx_mountinfo_read() after the run) that
 * were not in before (the text read before it) and whose mount point is at or below path (a tree, by
 * its canonical path): for root, each is detached (MNT_DETACH, with the
 * mounts on it, through a descriptor of its root checked to be that
 * mount, never by name); each is named in a line of out, as detached or,
 * where it could not be (another user's, for a caller other than root),
 * as covering what the checks did not see; late: found after the checks,
 * which did not see below it either way. Returns how many were found. */
size_t sbx_mountwatch_strangers(
    const char *before, const char *now, const char *path, bool late, struct sbx_strv *out);

/* Whether the table text holds this mount: the same id, device and mount
 * point (ids and anonymous devices are reused once freed). */
bool sbx_mountwatch_had(
    const char *text, unsigned id, unsigned major, unsigned minor, const char *mp);

/* For root: detaches the mount id whose root is the entry name (one
 * component) of the directory dir, as sbx_mountwatch_strangers() does:
 * through a descriptor of it confirmed to be on that mount. */
bool sbx_mountwatch_detach_at(int dir, const char *name, unsigned id);

/* sbx_mountwatch_changed(fd) and, when it did, sbx_mountwatch_strangers()
 * on the table read now; *before becomes that table (allocated). */
void sbx_mountwatch_check(int fd, char **before, const char *path, bool late, struct sbx_strv *out);

#endif
