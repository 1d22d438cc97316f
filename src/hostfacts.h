/* The filesystem facts a view needs (fsplan.h), read from this machine
 * with POSIX calls alone (lstat, readlink, opendir/readdir, stat), so that
 * every backend that builds a view, on Linux and on macOS, asks the host
 * the same questions. */
#ifndef SBX_HOSTFACTS_H
#define SBX_HOSTFACTS_H

#include <sys/types.h>

#include "fsplan.h"

/* The ids the sandbox will hold, for judging what file permissions alone
 * keep from it. */
struct sbx_host_ids {
	uid_t uid;
	gid_t gid;
	gid_t groups[64];
	int ngroups;
};

/* Facts read from this machine's filesystem (lstat, readlink, readdir);
 * ids may be NULL when "sealed" does not matter. */
void sbx_host_facts_init(struct sbx_fsfacts *facts, const struct sbx_host_ids *ids);

/* The ids of a sandbox run for the caller: the caller's own, or for root
 * the unprivileged mapped id with no groups. */
void sbx_host_ids_for(
    struct sbx_host_ids *ids, uid_t caller_uid, gid_t caller_gid, uid_t root_mapped);

#endif
