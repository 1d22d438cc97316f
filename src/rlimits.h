/* Limits as rlimits: the fallback where no cgroup v2 subtree is delegated
 * (as on machines whose cgroup v2 has no memory or pids controller). */
#ifndef SBX_RLIMITS_H
#define SBX_RLIMITS_H

#include "backend.h"
#include "diag.h"
#include "policy.h"

/* The limit rules that rlimits enforce for p. */
uint32_t sbx_limits_rlimit_rules(const struct sbx_policy *p);

/* Puts the rlimits for p into x and records "by" for each in r. */
void sbx_limits_plan(const struct sbx_policy *p, struct sbx_exec *x, struct sbx_report *r);

/* Prints the rlimits of x, one per line. */
void sbx_limits_describe(const struct sbx_exec *x, struct sbx_buf *out);

#endif
