/* Landlock: probing the ABI and applying a plan's rules to the calling
 * thread. The kernel's headers on build machines may be older than the
 * kernel, so the constants of ABI 2-7 are defined here when missing. */
#ifndef SBX_LINUX_LANDLOCK_H
#define SBX_LINUX_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"
#include "policy.h"

/* The newest Landlock ABI whose rights this code asks for (ABI 6: the
 * scopes); a newer kernel is used as this one. --version says it. */
#define SBX_LANDLOCK_ABI_KNOWN 6

/* The Landlock ABI version the running kernel offers; 0 when none. */
int sbx_landlock_abi(void);

/* TCP port rules (ABI 4): when enabled, bind and connect are refused
 * except to the listed ports. */
struct sbx_landlock_net {
	bool enabled;
	bool connect_any; /* only bind is restricted */
	const struct sbx_ports *bind;
	const struct sbx_ports *connect;
};

#define SBX_LANDLOCK_SCOPE_ABSTRACT 0x1u /* ABI 6: abstract unix sockets */
#define SBX_LANDLOCK_SCOPE_SIGNAL 0x2u /* ABI 6: signals */

/* Restricts the calling thread (and its future children) to the plan's
 * rules, the TCP port rules and the scopes, as far as abi allows. A rule
 * whose path does not exist is skipped. Requires no_new_privs. */
int sbx_landlock_apply(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, struct sbx_err *err);

/* A host path already opened (O_PATH) by the caller: rules at or below
 * path are reached from fd, never by name. */
struct sbx_landlock_anchor {
	const char *path; /* canonical */
	int fd;
};

/* Builds, without restricting anyone, the ruleset sbx_landlock_apply()
 * would apply, for host paths: every rule's path is opened through the
 * deepest anchor above it (beneath it, following no symlink), or from /
 * following no symlink when no anchor lies above (system paths); a path
 * that now passes through a symlink gets no rule. Returns the ruleset's
 * descriptor (close-on-exec), or -1 with err. */
int sbx_landlock_ruleset(const struct sbx_plan *plan, int abi, const struct sbx_landlock_net *net,
    unsigned scopes, const struct sbx_landlock_anchor *anchors, size_t nanchors,
    struct sbx_err *err);

/* A ruleset holding the plan's filesystem rules alone (no port rules, no
 * scopes), built like sbx_landlock_ruleset() from the anchors, not
 * applied: its descriptor, for threads of sbxrun that act for the sandbox
 * inside its filesystem domain (namesup.h), or -1. */
int sbx_landlock_fs_ruleset(const struct sbx_plan *plan, int abi,
    const struct sbx_landlock_anchor *anchors, size_t nanchors, struct sbx_err *err);

/* Restricts the calling thread to a ruleset made by sbx_landlock_ruleset().
 * Requires no_new_privs. */
int sbx_landlock_enforce(int ruleset, struct sbx_err *err);

/* Restricts only the TCP port rules and the scopes (no filesystem). */
int sbx_landlock_apply_net(
    int abi, const struct sbx_landlock_net *net, unsigned scopes, struct sbx_err *err);

/* Restricts the calling thread to a domain holding only scopes (ABI 6):
 * no filesystem or port rule, so mounts and binds stay as they were, but
 * a domain all the same, which Landlock's ptrace rule confines to itself
 * and the domains nested in it. */
int sbx_landlock_apply_scope(int abi, unsigned scopes, struct sbx_err *err);

#endif
