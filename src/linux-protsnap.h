/* The landlock backend's way of keeping the built-in protected paths
 * (plan.h) read-only without freezing the directories above them: a
 * private copy taken before the run, compared after it, and put back when
 * the sandbox touched the original (doc/design/protect.md). */
#ifndef SBX_LINUX_PROTSNAP_H
#define SBX_LINUX_PROTSNAP_H

#include "err.h"
#include "util.h"

struct sbx_protsnap;

/* Copies each path of watch (relative to the workdir, reached from wd, a
 * descriptor of it, without following any symlink) into a new private
 * directory, made by the keeper k when not NULL (so that a killed sbxrun
 * leaves no copy behind), and notes the time. Fails (nothing kept) when a
 * path cannot be copied in full, when all of them together pass the
 * size bound, or when a regular file there has another hard link (EMLINK:
 * a write during the run would reach the file under its other names,
 * which putting the copy back does not undo): the caller then protects
 * them another way. */
struct sbx_keeper;

int sbx_protsnap_take(struct sbx_keeper *k, int wd, const struct sbx_strv *watch,
    struct sbx_protsnap **out, struct sbx_err *err);

/* After the run, the tree gone: each watched path that was removed,
 * replaced, or has anything at or below it whose inode changed since the
 * copy (ctime, which no call of the sandbox can set back) is moved aside
 * (rel.sbxrun-untrusted.N) and the copy put back in its place; warnings
 * (may be NULL) name each. Then the copy is removed, unless one could not
 * be put back (a warning names where it stays). Frees s; NULL is fine. */
void sbx_protsnap_restore(struct sbx_protsnap *s, struct sbx_strv *warnings);

/* The descriptors sbx_protsnap_restore(s) uses (the workdir's, the
 * copy's, and the keeper's for it), at most max of them, into fds;
 * returns how many (0 for NULL). The jail's init, which closes every
 * other descriptor of sbxrun's, keeps them to restore when sbxrun was
 * killed (launch.h, orphaned). All close-on-exec. */
size_t sbx_protsnap_fds(const struct sbx_protsnap *s, int *fds, size_t max);

#endif
