/* Limits as rlimits: the fallback where no cgroup v2 subtree is delegated
 * (as on machines whose cgroup v2 has no memory or pids controller). */
#ifndef SBX_RLIMITS_H
#define SBX_RLIMITS_H

#include "backend.h"
#include "diag.h"
#include "policy.h"

/* The limit rules that rlimits enforce for p. */
uint32_t sbx_limits_rlimit_rules(const struct sbx_policy *p);

/* Puts the rlimits for p under backend b into x and records "by" for each
 * in r: "rlimit", or for pids "rlimit-uid" where the kernel counts every
 * process of the uid (sbxrun.1, RESOURCE LIMITS). A default limit that b
 * cannot hold on a machine with caps is left out, its "by" unset. */
void sbx_limits_plan(const struct sbx_policy *p, const struct sbx_backend *b,
    const struct sbx_caps *caps, struct sbx_exec *x, struct sbx_report *r);

/* Prints the rlimits of x, one per line. */
void sbx_limits_describe(const struct sbx_exec *x, struct sbx_buf *out);

#endif
