#include "config.h"

#include <errno.h>
#include <string.h>

#include "jail.h"
#include "seatbelt.h"

/* Whether the name supervisor can keep .git and the protected paths
 * while the workdir's top level takes new entries under landlock: it
 * needs the seccomp listener and the sandbox's descriptors (pidfd_getfd,
 * which a container runtime's default profile refuses). Without it the
 * plan freezes the top level instead (sbxrun(1), Filesystem). */
static bool
names_usable(const struct sbx_caps *caps)
{
	return caps->seccomp && caps->pidfd_getfd;
}

/* The options of the mount table and Landlock rules each Linux backend
 * runs. namespaces: the mount table; a root caller's jail runs as an
 * unprivileged uid from its first step, so the parent clones the host
 * trees for it and the read-write ones are idmapped. landlock: no mounts,
 * the private TMPDIR among the rules, the built-in protected paths on the
 * watch list, and the workdir's names left to the supervisor where it can
 * judge them. */
static void
plan_opts(const struct sbx_jail_in *in, struct sbx_plan_opts *o)
{
	const struct sbx_exec *x = in->exec;

	memset(o, 0, sizeof(*o));
	if (in->backend == SBX_BACKEND_NAMESPACES) {
		o->mounts = true;
		o->parent_trees = x->caller_uid == 0;
		o->idmap_rw = x->caller_uid == 0;
	} else {
		o->tmpdir = x->tmpdir;
		o->watch = true;
		o->guard_names = names_usable(in->caps);
	}
}

/* The lowering the backend runs, from j->view. */
static int
lower(const struct sbx_jail_in *in, struct sbx_jail *j, struct sbx_err *err)
{
	switch (in->backend) {
	case SBX_BACKEND_NAMESPACES:
	case SBX_BACKEND_LANDLOCK:
		plan_opts(in, &j->plan_opts);
		sbx_plan_lower(&j->view, in->policy, in->fs, in->facts, &j->plan_opts, &j->plan);
		j->has_plan = true;
		return 0;
	case SBX_BACKEND_SEATBELT: {
		/* The proxy's port is not written into the profile: the
		 * network section reads the policy alone. */
		struct sbx_seatbelt_opts opts = { .facts = in->facts };

		return sbx_seatbelt_lower(&j->view, in->policy, &opts, &j->profile, err);
	}
	case SBX_BACKEND_DOCKER:
		if (sbx_docker_binds_lower(&j->view, &j->binds, err) < 0)
			return -1;
		j->has_binds = true;
		for (size_t i = 0; i < j->binds.notes.n; i++)
			sbx_strv_push_take(
			    &j->warnings, sbx_xasprintf("docker: %s", j->binds.notes.v[i]));
		return 0;
	default: return 0;
	}
}

/* The supervisor's configuration (supcfg.h): the network rules are the
 * exec's (NULL when the network is fully off, or when docker's engine
 * owns it), the TMPDIR the backend's private one. */
static void
supervisor(const struct sbx_jail_in *in, struct sbx_jail *j)
{
	const struct sbx_exec *x = in->exec;
	struct sbx_supcfg_in s = {
		.policy = in->policy,
		.fs = in->fs,
		.view = &j->view,
		.net = x->net,
		.backend = in->backend,
		.tmpdir = x->tmpdir,
		.uid = x->caller_uid,
		.euid = in->euid,
		.trace = x->trace,
		.enforced = in->enforced,
	};

	sbx_supcfg_make(&s, &j->supcfg);
}

/* A read-write mount source that holds the workdir, or is, holds or lies
 * in one of the paths the view protects (.git, the protect list, where a
 * protected symlink leads) would open them to writes under another name
 * in the jail: refused (sbxrun(1), Filesystem). A workdir made in the
 * jail has nothing protected. */
static int
rw_mounts_clear(const struct sbx_policy *p, const struct sbx_fsplan *v, struct sbx_err *err)
{
	for (size_t i = 0; !v->workdir_in_jail && i < p->nmounts; i++) {
		const char *src = p->mounts[i].source;

		if (!p->mounts[i].rw)
			continue;
		if (sbx_path_is_under(v->workdir, src))
			return sbx_err_set(err, EPERM,
			    "read-write mount source '%s' refused: it holds the workdir, whose "
			    ".git and protected paths it would open to writes",
			    src);
		for (size_t k = 0; k < v->n; k++) {
			const struct sbx_fsentry *e = &v->v[k];

			if (e->disp != SBX_FSD_PROTECTED && e->disp != SBX_FSD_PLACEHOLDER)
				continue;
			if (sbx_path_is_under(e->path, src) || sbx_path_is_under(src, e->path))
				return sbx_err_set(err, EPERM,
				    "read-write mount source '%s' refused: it %s the protected "
				    "path %s",
				    src, sbx_path_is_under(src, e->path) ? "lies in" : "holds",
				    e->rel ? e->rel : e->path);
		}
	}
	return 0;
}

int
sbx_jail_build(const struct sbx_jail_in *in, struct sbx_jail *j, struct sbx_err *err)
{
	memset(j, 0, sizeof(*j));
	j->backend = in->backend;
	j->policy = in->policy;
	j->fs = in->fs;
	j->caps = in->caps;
	j->exec = in->exec;
	j->facts = in->facts;
	if (in->fs == NULL || in->fs->workdir == NULL)
		return sbx_err_set(
		    err, EINVAL, "%s: no resolved filesystem view", sbx_backend_name(in->backend));
	if (in->backend == SBX_BACKEND_LANDLOCK && in->exec->tmpdir == NULL)
		return sbx_err_set(err, EINVAL, "landlock: no private temporary directory");
	if (in->backend != SBX_BACKEND_NONE &&
	    (sbx_fsplan_build(in->policy, in->fs, in->facts, &j->view, err) < 0 ||
		rw_mounts_clear(in->policy, &j->view, err) < 0 || lower(in, j, err) < 0)) {
		sbx_jail_free(j);
		return -1;
	}
	supervisor(in, j);
	return 0;
}

void
sbx_jail_plan_unwatched(const struct sbx_jail *j, struct sbx_plan *plan)
{
	struct sbx_plan_opts o = j->plan_opts;

	o.watch = false;
	sbx_plan_lower(&j->view, j->policy, j->fs, j->facts, &o, plan);
}

void
sbx_jail_free(struct sbx_jail *j)
{
	sbx_fsplan_free(&j->view);
	if (j->has_plan)
		sbx_plan_free(&j->plan);
	sbx_buf_free(&j->profile);
	if (j->has_binds)
		sbx_docker_binds_free(&j->binds);
	sbx_supcfg_free(&j->supcfg);
	sbx_strv_free(&j->warnings);
	memset(j, 0, sizeof(*j));
}
