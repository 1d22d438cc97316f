/* Limits as rlimits: the fallback where no cgroup v2 subtree is delegated
 * (as on machines whose cgroup v2 has no memory or pids controller). */
#ifndef SBX_RLIMITS_H
#define SBX_RLIMITS_H

#include <stdint.h>
#include <sys/resource.h>

#include "backend.h"
#include "diag.h"
#include "policy.h"

/* glibc declares setrlimit's first parameter as an enum under
 * _GNU_SOURCE, other C libraries as an int. */
#ifdef __GLIBC__
typedef __rlimit_resource_t rlimit_resource;
#else
typedef int rlimit_resource;
#endif

/* This process's hard limit of resource; UINT64_MAX for none. Safe in a
 * child that shares its parent's memory. */
uint64_t sbx_rlimit_hard(int resource);

/* The limit rules that rlimits enforce for p. */
uint32_t sbx_limits_rlimit_rules(const struct sbx_policy *p);

/* The rlimit resource with the flag and profile key that set it, for a
 * message ("RLIMIT_NOFILE (--open-files, open_files)"): a static string,
 * safe in a child that shares its parent's memory. */
const char *sbx_rlimit_what(int resource);

/* Puts the rlimits for p under backend b into x and records "by" for each
 * in r: "rlimit", or for pids "rlimit-uid" where the kernel counts every
 * process of the uid (sbxrun.1, RESOURCE LIMITS). A default limit that b
 * cannot hold on a machine with caps is left out, its "by" unset. */
void sbx_limits_plan(const struct sbx_policy *p, const struct sbx_backend *b,
    const struct sbx_caps *caps, struct sbx_exec *x, struct sbx_report *r);

/* Whether sbx_limits_plan() adds the tasks the uid runs now to the pids
 * limit under backend b (no user namespace of its own: the kernel counts
 * every task of the uid), and which uid (*uid) it counts for a caller
 * uid. A cgroup leaf that holds pids makes the count unused. */
bool sbx_limits_counts_uid(const struct sbx_policy *p, const struct sbx_backend *b,
    const struct sbx_caps *caps, uid_t caller_uid, uid_t *uid);

/* The tasks of uid the kernel counts against RLIMIT_NPROC, counted now:
 * what sbx_limits_plan() counts when x->uid_tasks_counted is false. A
 * count taken earlier (to overlap a wait) must be taken when the same
 * processes of sbxrun's exist as at the plan: the keeper and no other. */
uint64_t sbx_limits_uid_tasks(uid_t uid);

/* Prints the rlimits of x, one per line. */
void sbx_limits_describe(const struct sbx_exec *x, struct sbx_buf *out);

#endif
