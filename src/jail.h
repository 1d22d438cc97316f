/* The jail plan of one run under one backend: everything the core
 * decides before the spawn, in one value that the backend only executes.
 * Built once per backend tried (main.c; "auto" may try several) from the
 * policy, the resolved paths, the machine's capabilities, the backend, the
 * caller's ids, the built exec and the filesystem facts; it holds the
 * filesystem view, that backend's lowering of it (the mount table and
 * Landlock rules, the Seatbelt profile or the docker binds), the
 * supervisor's configuration and the warnings of the lowering. Pure: the
 * facts come in through struct sbx_fsfacts. doc/design/jail-plan.md. */
#ifndef SBX_JAIL_H
#define SBX_JAIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "caps.h"
#include "docker-argv.h"
#include "err.h"
#include "exec.h"
#include "fsplan.h"
#include "plan.h"
#include "policy.h"
#include "resolve.h"
#include "supcfg.h"
#include "util.h"

/* What the plan is built from. Everything is borrowed and must outlive
 * the jail: the backend reads policy, fs, caps and exec through it, and
 * facts serve sbx_jail_plan_unwatched() after the build. */
struct sbx_jail_in {
	const struct sbx_policy *policy; /* resolved: mount sources canonical */
	const struct sbx_fsview *fs;
	const struct sbx_caps *caps;
	/* What runs and with which limits (exec.h): argv, environment, the
	 * private TMPDIR, the network rules, the caller's ids, the rlimits
	 * and the cgroup leaf, all decided before the jail is built. */
	const struct sbx_exec *exec;
	enum sbx_backend_id backend;
	/* The filesystem as the sandbox's ids see it (kinds, names, what
	 * file permissions alone keep from them). */
	const struct sbx_fsfacts *facts;
	uid_t euid; /* sbxrun's effective uid: what its own threads may do */
	uint32_t enforced; /* the rules the backend enforces (SBX_RULE_BIT) */
};

/* The plan (sbx_jail_free() frees it). */
struct sbx_jail {
	enum sbx_backend_id backend;
	const struct sbx_policy *policy;
	const struct sbx_fsview *fs;
	const struct sbx_caps *caps;
	const struct sbx_exec *exec;
	const struct sbx_fsfacts *facts;
	/* The one filesystem view (fsplan.h); empty for the none backend,
	 * which lowers nothing. */
	struct sbx_fsplan view;
	/* The namespaces and landlock backends: the view lowered to the
	 * mount table and the Landlock rules, with the options the backend
	 * and the caller call for (plan_opts). */
	bool has_plan;
	struct sbx_plan_opts plan_opts;
	struct sbx_plan plan;
	/* The seatbelt backend: the profile's text (seatbelt.h). */
	struct sbx_buf profile;
	/* The docker backend: the binds (docker-argv.h). */
	bool has_binds;
	struct sbx_docker_binds binds;
	/* The supervisor's configuration (supcfg.h), handed whole to
	 * sbx_network_launch(). */
	struct sbx_supcfg supcfg;
	/* What the lowering could not hold, for the report once the jail
	 * runs (the docker binds' notes). */
	struct sbx_strv warnings;
};

/* Builds j from in: the view on in->facts, the lowering in->backend
 * needs, the supervisor's configuration. -1 with err when the view or the
 * lowering cannot be made (a path Seatbelt or docker cannot carry, no
 * resolved paths, no private TMPDIR for landlock); j is then empty. */
int sbx_jail_build(const struct sbx_jail_in *in, struct sbx_jail *j, struct sbx_err *err);

/* The landlock backend's fallback when the watched paths cannot be
 * copied before the run: j's view lowered again, with read-only rules for
 * the built-in protected paths instead of the watch list, into plan
 * (the caller frees it). */
void sbx_jail_plan_unwatched(const struct sbx_jail *j, struct sbx_plan *plan);

void sbx_jail_free(struct sbx_jail *j);

#endif
