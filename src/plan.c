#include "config.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"

/* A host tree made visible in the jail: src on the host, dst inside (both
 * owned by the filesystem view). */
struct view {
	const char *src;
	const char *dst;
	enum sbx_file_kind kind;
	unsigned access;
};

struct builder {
	const struct sbx_policy *p;
	const struct sbx_fsview *fs;
	const struct sbx_fsfacts *facts;
	const struct sbx_plan_opts *opts;
	struct sbx_plan *plan;
	const struct sbx_fsplan *view; /* what the lowering follows */
	struct view *views;
	size_t nviews;
	struct sbx_strv ro; /* Landlock-only: protected paths */
	struct sbx_strv absent; /* the rules' walk: the first missing name of
	                           each hidden path that does not exist (see
	                           absent_mark()) */
	struct sbx_strv system; /* the system secret list's patterns */
	/* The facts' answers to "sealed", each path asked once (each is a
	 * few system calls, and the covers and the rules ask alike). */
	struct sbx_strv sealed_yes, sealed_no;
};

static bool
is_sealed(struct builder *b, const char *path)
{
	bool yes;

	if (b->facts->sealed == NULL)
		return false;
	if (sbx_strv_contains(&b->sealed_yes, path))
		return true;
	if (sbx_strv_contains(&b->sealed_no, path))
		return false;
	yes = b->facts->sealed(b->facts->ctx, path);
	sbx_strv_push(yes ? &b->sealed_yes : &b->sealed_no, path);
	return yes;
}

/* The kind of hidden path h as the view recorded it (fsplan.c looked each
 * one up), so that the rules' walk does not ask the host again; the
 * facts' answer for a path the view lacks, or a view made without facts. */
static enum sbx_file_kind
hidden_kind(struct builder *b, const char *h)
{
	for (size_t i = 0; b->view->facts && i < b->view->n; i++)
		if (b->view->v[i].disp == SBX_FSD_HIDDEN && strcmp(b->view->v[i].path, h) == 0)
			return b->view->v[i].kind;
	return b->facts->kind(b->facts->ctx, h, NULL);
}

/* A hidden path that does not exist when the run starts can be made while
 * it runs, by the host (an `aws configure` in another terminal). Where
 * the nearest directory above it that exists lies in a read-only tree the
 * sandbox may search, the rules' walk goes around the first missing name
 * below that directory as around a hidden path that exists: nothing made
 * there later is granted reading. In a writable tree the sandbox makes
 * names itself and must read them, so none is marked there; nor is a name
 * of the system list (/etc/master.passwd on Linux, a backup such as
 * /etc/shadow-): only root makes those, with modes that keep them from
 * others, and marking one would walk all of /etc in every run. Returns
 * that name's path (the caller's to free), or NULL. */
static char *
absent_mark(struct builder *b, const char *h)
{
	const char *tree = NULL;
	char *cur;

	for (size_t i = 0; i < b->system.n; i++)
		if (fnmatch(b->system.v[i], h, FNM_PATHNAME) == 0)
			return NULL;
	for (size_t i = 0; i < b->nviews && tree == NULL; i++)
		if (b->views[i].kind == SBX_KIND_DIR && !(b->views[i].access & SBX_LL_WRITE) &&
		    strcmp(b->views[i].src, h) != 0 && sbx_path_is_under(h, b->views[i].src))
			tree = b->views[i].src;
	for (size_t i = 0; i < b->nviews && tree; i++)
		if ((b->views[i].access & SBX_LL_WRITE) && sbx_path_is_under(h, b->views[i].src))
			tree = NULL;
	if (tree == NULL)
		return NULL;
	cur = sbx_xstrdup(h);
	for (;;) {
		char *slash = strrchr(cur, '/');
		_cleanup_free_ char *parent = NULL;
		enum sbx_file_kind k;

		if (slash == NULL || slash[1] == '\0')
			break;
		parent = slash == cur ? sbx_xstrdup("/") : sbx_xstrndup(cur, (size_t)(slash - cur));
		k = strcmp(parent, "/") == 0 ? SBX_KIND_DIR
					     : b->facts->kind(b->facts->ctx, parent, NULL);
		if (k == SBX_KIND_NONE) {
			*slash = '\0';
			continue;
		}
		if (k != SBX_KIND_DIR)
			break;
		/* The sandbox must be able to search every directory from the
		 * tree's root down to it (/root, mode 0700, keeps all of
		 * ~root/.config from a root caller's sandbox). */
		for (char *up = parent;;) {
			char *s = strrchr(up, '/');

			if (is_sealed(b, up))
				goto none;
			if (strcmp(up, tree) == 0 || s == NULL || s == up)
				break;
			*s = '\0';
		}
		return cur;
	}
none:
	free(cur);
	return NULL;
}

static struct sbx_op *
add_op(
    struct sbx_plan *plan, enum sbx_op_kind kind, const char *src, const char *dst, unsigned flags)
{
	struct sbx_op *op;

	plan->ops = sbx_xreallocarray(plan->ops, plan->nops + 1, sizeof(*plan->ops));
	op = &plan->ops[plan->nops++];
	*op = (struct sbx_op){
		.kind = kind,
		.src = src ? sbx_xstrdup(src) : NULL,
		.dst = sbx_xstrdup(dst),
		.flags = flags,
		.tree = -1,
	};
	return op;
}

/* A host path src made visible at dst: bound by the child itself, or
 * cloned by the parent and attached by the child. */
static void
bind_host(struct builder *b, const char *src, const char *dst, unsigned flags, bool idmap)
{
	struct sbx_plan *plan = b->plan;
	struct sbx_op *op;

	if (!b->opts->parent_trees) {
		add_op(plan, SBX_OP_BIND, src, dst, flags);
		return;
	}
	op = add_op(plan, SBX_OP_ATTACH, src, dst, flags);
	op->tree = (int)plan->ntrees;
	plan->trees = sbx_xreallocarray(plan->trees, plan->ntrees + 1, sizeof(*plan->trees));
	plan->trees[plan->ntrees++] = (struct sbx_tree){
		.src = sbx_xstrdup(src),
		.flags = flags & (SBX_OPF_RO | SBX_OPF_FILE),
		.idmap = idmap,
		.dev = sbx_path_is_under(dst, "/dev"),
	};
}

static void
add_rule(struct sbx_plan *plan, const char *path, unsigned access, bool is_dir)
{
	if (access == 0)
		return;
	for (size_t i = 0; i < plan->nrules; i++) {
		if (strcmp(plan->rules[i].path, path) == 0) {
			plan->rules[i].access |= access;
			return;
		}
	}
	plan->rules = sbx_xreallocarray(plan->rules, plan->nrules + 1, sizeof(*plan->rules));
	plan->rules[plan->nrules++] = (struct sbx_ll_rule){
		.path = sbx_xstrdup(path),
		.access = access,
		.is_dir = is_dir,
	};
}

static void
add_view(
    struct builder *b, const char *src, const char *dst, enum sbx_file_kind kind, unsigned access)
{
	b->views = sbx_xreallocarray(b->views, b->nviews + 1, sizeof(*b->views));
	b->views[b->nviews++] = (struct view){ src, dst, kind, access };
}

static void
note(struct sbx_plan *plan, char *text)
{
	sbx_strv_push_take(&plan->notes, text);
}

/* A read-only host path at the same place inside. Symlinks are recreated
 * (merged-/usr systems make /bin, /lib... symlinks), missing ones skipped. */
static void
expose_ro(struct builder *b, const struct sbx_fsentry *e)
{
	enum sbx_file_kind k = e->kind;

	switch (k) {
	case SBX_KIND_NONE:
		note(b->plan, sbx_xasprintf("%s is missing here; skipped", e->path));
		break;
	case SBX_KIND_SYMLINK:
		if (b->opts->mounts && e->target)
			add_op(b->plan, SBX_OP_SYMLINK, e->target, e->path, 0);
		break;
	case SBX_KIND_DIR:
	case SBX_KIND_FILE:
		if (b->opts->mounts)
			bind_host(b, e->path, e->path,
			    SBX_OPF_RO | (k == SBX_KIND_FILE ? SBX_OPF_FILE : 0), false);
		add_view(b, e->path, e->path, k, k == SBX_KIND_DIR ? SBX_LL_RO : SBX_LL_READ);
		break;
	}
}

/* The readable entries of the view (system roots, [read] paths, or the
 * entries of / in open mode). A [read] path inside the workdir is left
 * to the workdir's rules: a read-only bind there would take away its
 * write rights. */
static void
build_readonly_view(struct builder *b)
{
	for (size_t i = 0; i < b->view->n; i++) {
		const struct sbx_fsentry *e = &b->view->v[i];

		if (e->disp != SBX_FSD_RO ||
		    (e->origin != SBX_FSO_ROOT && e->origin != SBX_FSO_TOP &&
			e->origin != SBX_FSO_READ))
			continue;
		if (e->origin == SBX_FSO_READ && sbx_path_is_under(e->path, b->fs->workdir))
			continue;
		expose_ro(b, e);
	}
	if (b->p->fs == SBX_FS_OPEN && b->opts->mounts)
		add_op(b->plan, SBX_OP_MKDIR, NULL, "/run", 0);
}

static void
build_system_mounts(struct builder *b)
{
	static const char *const devs[] = { "null", "zero", "full", "random", "urandom", "tty" };
	static const char *const tmpfs[] = { "/dev/shm", "/tmp" };
	static const char *const links[][2] = {
		{ "pts/ptmx", "/dev/ptmx" },
		{ "/proc/self/fd", "/dev/fd" },
		{ "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" },
		{ "/proc/self/fd/2", "/dev/stderr" },
	};
	struct sbx_plan *plan = b->plan;

	if (!b->opts->mounts) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(devs); i++) {
			_cleanup_free_ char *d = sbx_path_join("/dev", devs[i]);

			add_rule(plan, d, SBX_LL_READ | SBX_LL_WRITE | SBX_LL_DEV, false);
		}
		/* No /dev/pts and no /dev/ptmx: without a mount namespace they
		 * are the host's, and the caller's other terminals (same uid,
		 * mode 0620) could be opened and read. Terminals inherited on
		 * fds 0-2 keep working (Landlock checks at open). */
		add_rule(plan, "/proc", SBX_LL_RO, true);
		if (b->opts->tmpdir)
			add_rule(plan, b->opts->tmpdir, SBX_LL_RW, true);
		return;
	}
	add_op(plan, SBX_OP_PROC, NULL, "/proc", 0);
	/* /dev is a directory of the new root, read-only with it: a tmpfs of
	 * its own cost a superblock made and freed each run, and held nothing
	 * the root's cannot (doc/design/startup.md, section 26). */
	add_op(plan, SBX_OP_MKDIR, NULL, "/dev", 0);
	for (size_t i = 0; i < SBX_ARRAY_LEN(devs); i++) {
		_cleanup_free_ char *d = sbx_path_join("/dev", devs[i]);

		bind_host(b, d, d, SBX_OPF_FILE, false);
	}
	add_op(plan, SBX_OP_DEVPTS, NULL, "/dev/pts", 0);
	for (size_t i = 0; i < SBX_ARRAY_LEN(links); i++)
		add_op(plan, SBX_OP_SYMLINK, links[i][0], links[i][1], 0);
	/* Each held to a memory limit asked for: a tmpfs's pages are no
	 * process's, so an rlimit does not count them. The kernel's default
	 * size, half the machine's memory, is the built-in limit already
	 * (sbxrun.profile(5), memory). */
	for (size_t i = 0; i < SBX_ARRAY_LEN(tmpfs); i++) {
		struct sbx_op *op = add_op(plan, SBX_OP_TMPFS, NULL, tmpfs[i], 0);
		const struct sbx_limit *mem = &b->p->limits[SBX_LIMIT_MEMORY];

		op->mode = 01777;
		if (mem->set && !mem->builtin)
			op->size = mem->value;
	}

	/* The new root holds only what the plan put there: listing it (and
	 * the directories made for mount points) reveals nothing else. */
	add_rule(plan, "/", SBX_LL_LIST, true);
	add_rule(plan, "/dev", SBX_LL_LIST | SBX_LL_READ | SBX_LL_WRITE | SBX_LL_DEV, true);
	add_rule(plan, "/proc", SBX_LL_RO | SBX_LL_WRITE, true);
	add_rule(plan, "/tmp", SBX_LL_RW, true);
}

/* Records each component of rel (relative to the workdir) that does not
 * exist yet, outermost first: the run creates them, and removes them
 * afterwards if still empty. */
static void
record_created(struct builder *b, const char *rel)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);

	for (char *c = copy;; c++) {
		if (*c == '/' || *c == '\0') {
			char saved = *c;
			_cleanup_free_ char *p = NULL;

			*c = '\0';
			p = sbx_path_join(b->fs->workdir, copy);
			if (b->facts->kind(b->facts->ctx, p, NULL) == SBX_KIND_NONE &&
			    !sbx_strv_contains(&b->plan->created, p))
				sbx_strv_push(&b->plan->created, p);
			*c = saved;
			if (saved == '\0')
				break;
		}
	}
}

static void
build_workdir(struct builder *b)
{
	const char *wd = b->fs->workdir;

	if (b->fs->workdir_in_jail) {
		/* A directory in the jail's own /tmp (after its tmpfs: deeper),
		 * which the rules on /tmp already make writable; nothing of the
		 * host is below it and it goes with the jail's mount namespace.
		 * resolve allows it only without mounts. */
		add_op(b->plan, SBX_OP_MKDIR, NULL, wd, 0);
		return;
	}
	if (b->opts->mounts)
		bind_host(b, wd, wd, 0, b->opts->idmap_rw);
	add_view(b, wd, wd, SBX_KIND_DIR, SBX_LL_RW);

	for (size_t i = 0; i < b->view->n; i++) {
		const struct sbx_fsentry *e = &b->view->v[i];
		bool rw = e->disp == SBX_FSD_RW;
		bool dir = e->kind == SBX_KIND_DIR;
		const char *dst = e->at;

		if (e->origin != SBX_FSO_MOUNT)
			continue;
		if (b->opts->mounts) {
			record_created(b, e->rel);
			bind_host(b, e->path, dst,
			    SBX_OPF_MKTARGET | (e->kind == SBX_KIND_FILE ? SBX_OPF_FILE : 0) |
				(rw ? 0 : SBX_OPF_RO),
			    rw && b->opts->idmap_rw);
		}
		/* Without mounts nothing is remapped: the rules go on the
		 * source itself, wherever the backend makes it appear. */
		if (!b->opts->mounts)
			dst = e->path;
		add_view(b, e->path, dst, dir ? SBX_KIND_DIR : SBX_KIND_FILE,
		    rw ? (dir ? SBX_LL_RW : SBX_LL_READ | SBX_LL_WRITE)
		       : (dir ? SBX_LL_RO : SBX_LL_READ));
	}
}

static bool
has_op(const struct sbx_plan *plan, enum sbx_op_kind kind, const char *dst)
{
	for (size_t i = 0; i < plan->nops; i++)
		if (plan->ops[i].kind == kind && strcmp(plan->ops[i].dst, dst) == 0)
			return true;
	return false;
}

static void
hide(struct builder *b, const char *dst, bool is_file)
{
	if (!b->opts->mounts || has_op(b->plan, SBX_OP_HIDE, dst))
		return;
	add_op(b->plan, SBX_OP_HIDE, NULL, dst, is_file ? SBX_OPF_FILE : 0)->mode = 0;
}

/* dst + (path - src), for a path at or below src. */
static char *
rebase(const char *path, const char *src, const char *dst)
{
	const char *rel = path + strlen(src);

	if (strcmp(src, "/") == 0)
		rel = path;
	if (*rel == '\0')
		return sbx_xstrdup(dst);
	return sbx_path_join(dst, rel);
}

static void
build_hides(struct builder *b)
{
	for (size_t v = 0; v < b->nviews; v++) {
		const struct view *w = &b->views[v];

		for (size_t i = 0; i < b->view->n; i++) {
			const struct sbx_fsentry *e = &b->view->v[i];
			_cleanup_free_ char *dst = NULL;

			if (e->disp != SBX_FSD_HIDDEN)
				continue;
			if (sbx_path_is_under(w->src, e->path)) {
				hide(b, w->dst, w->kind != SBX_KIND_DIR);
				continue;
			}
			if (!sbx_path_is_under(e->path, w->src))
				continue;
			/* A symlink hides nothing by itself: its target is in the
			 * list too, resolved. */
			if (e->kind == SBX_KIND_NONE || e->kind == SBX_KIND_SYMLINK)
				continue;
			/* A path file permissions alone keep from the sandbox
			 * (/etc/shadow) is left to them in a read-only tree, as
			 * the rules' walk leaves it (rules_for()): a cover is a
			 * mount per path on every run. In a writable tree it is
			 * covered all the same, so that it cannot be renamed or
			 * replaced. */
			if (!(w->access & SBX_LL_WRITE) && is_sealed(b, e->path))
				continue;
			dst = rebase(e->path, w->src, w->dst);
			hide(b, dst, e->kind != SBX_KIND_DIR);
		}
	}
}

/* Binds each directory between the workdir and path onto itself, so that
 * none of them can be renamed or removed (EBUSY) to swap a protected path
 * for another. */
static void
pin_ancestors(struct builder *b, const char *rel)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);

	for (char *c = copy; (c = strchr(c, '/')) != NULL; c++) {
		_cleanup_free_ char *dst = NULL;
		bool seen = false;

		*c = '\0';
		dst = sbx_path_join(b->fs->workdir, copy);
		for (size_t i = 0; i < b->plan->nops; i++)
			if ((b->plan->ops[i].flags & SBX_OPF_SELF) &&
			    strcmp(b->plan->ops[i].dst, dst) == 0)
				seen = true;
		if (!seen)
			add_op(b->plan, SBX_OP_BIND, dst, dst, SBX_OPF_SELF);
		*c = '/';
	}
}

/* Landlock-only plans keep a protected path read-only with the rules
 * alone: ll_rules_for() walks down to it (see there). */
static void
protect_ll(struct builder *b, const char *path)
{
	if (!b->opts->mounts && !sbx_strv_contains(&b->ro, path))
		sbx_strv_push(&b->ro, path);
}

/* .git, kept whole. Landlock-only plans hold it with read-only rules,
 * under every option. */
static void
protect_git(struct builder *b, const struct sbx_fsentry *e)
{
	switch (e->kind) {
	case SBX_KIND_DIR:
		if (b->opts->mounts)
			add_op(b->plan, SBX_OP_BIND, e->path, e->path, SBX_OPF_SELF | SBX_OPF_RO);
		protect_ll(b, e->path);
		note(b->plan,
		    sbx_xstrdup(
			".git is read-only inside (hooks, config, commondir and "
			"the rest): git in the sandbox can read the repository, not change it"));
		break;
	case SBX_KIND_FILE:
		/* A worktree's .git file points elsewhere: keep the file. */
		if (b->opts->mounts)
			add_op(b->plan, SBX_OP_BIND, e->path, e->path,
			    SBX_OPF_SELF | SBX_OPF_RO | SBX_OPF_FILE);
		protect_ll(b, e->path);
		break;
	case SBX_KIND_NONE:
		/* No repository at the top of the workdir: the sandbox must
		 * not leave one there either, or the caller's next git command
		 * in the workdir would run its hooks and config. Neither
		 * backend can keep one name from being made in a directory the
		 * sandbox may write without writing the caller's disk: Landlock
		 * only allows, and a mount needs an existing entry to cover,
		 * which would be made on disk and left there by a kill
		 * (doc/design/paths.md). So a .git made there is moved aside
		 * after the run instead, before the caller's git can run it. */
		sbx_strv_push(&b->plan->scrub, ".git");
		note(b->plan,
		    sbx_xstrdup(".git does not exist: one made during the run is moved "
				"aside after it"));
		break;
	case SBX_KIND_SYMLINK: break;
	}
}

/* One protected entry of the view but .git: a bind of the path onto
 * itself, read-only, with its parents pinned; or read-only Landlock rules
 * (ll_rules_for), the watch list, or moving aside what was made. */
static void
protect_one(struct builder *b, const struct sbx_fsentry *e)
{
	if (e->note)
		note(b->plan, sbx_xstrdup(e->note));
	if (e->builtin && e->via_link) {
		/* A dotfile manager's ~/.config -> dotfiles/config: a mount
		 * cannot be placed through it (nothing is followed), and what
		 * lies behind is not the workdir's. */
		note(b->plan,
		    sbx_xasprintf("built-in protected path %s passes through a "
				  "symlink: left alone",
			e->rel));
		return;
	}
	if (!b->opts->mounts && b->opts->watch && e->builtin && e->kind != SBX_KIND_NONE) {
		/* Rules would freeze every directory above it, the workdir's
		 * top level included (see ll_rules_for), and a home or a
		 * project holding .vscode/ would take no new file: the backend
		 * keeps a copy and puts it back after the run instead if it
		 * was touched. */
		sbx_strv_push(&b->plan->watch, e->rel);
		return;
	}
	if (e->kind == SBX_KIND_SYMLINK) {
		note(b->plan,
		    sbx_xasprintf("protected path %s is a symlink; it cannot be "
				  "changed to point elsewhere only if its directory is kept",
			e->rel));
		if (b->opts->mounts)
			pin_ancestors(b, e->rel);
		protect_ll(b, e->path);
		return;
	}
	if (e->kind == SBX_KIND_NONE && e->via_link) {
		/* The caller's own link on the way (ci -> shared/ci): what it
		 * leads to is not the workdir's to clean. Left off the scrub,
		 * a symlink the keeper meets on the way to a scrubbed name
		 * after the run is always one the run made, and is moved
		 * aside (sbx_move_aside_way()). */
		note(b->plan,
		    sbx_xasprintf("protected path %s does not exist and passes through a "
				  "symlink: what is made there is not moved aside",
			e->rel));
		return;
	}
	if (e->kind == SBX_KIND_NONE) {
		/* As for .git (protect_git). */
		sbx_strv_push(&b->plan->scrub, e->rel);
		note(b->plan,
		    sbx_xasprintf("protected path %s does not exist: what is made "
				  "there is moved aside after the run",
			e->rel));
		return;
	}
	if (!b->opts->mounts) {
		protect_ll(b, e->path);
		return;
	}
	pin_ancestors(b, e->rel);
	add_op(b->plan, SBX_OP_BIND, e->path, e->path,
	    SBX_OPF_SELF | SBX_OPF_RO | (e->kind == SBX_KIND_FILE ? SBX_OPF_FILE : 0));
	sbx_strv_push(&b->plan->held, e->rel);
}

/* A secret that does not exist inside the workdir when the run starts:
 * no mount can cover it and no rule keeps it from being made, and a name
 * the sandbox makes there (~/.aws/credentials as a symlink to a file of
 * the workdir) is one the caller's tools later write the real secret
 * through, for the next run to read. So, as for a missing protected
 * name, what the run makes there is moved aside after it. One reached
 * through a symlink is left alone, as protect_one() leaves a protected
 * one: the link is the caller's, what it leads to not the workdir's. */
static void
scrub_secrets(struct builder *b)
{
	for (size_t i = 0; i < b->view->n; i++) {
		const struct sbx_fsentry *e = &b->view->v[i];

		if (e->origin != SBX_FSO_SECRET || e->rel == NULL ||
		    (e->tree == NULL && sbx_strv_contains(&b->plan->scrub, e->rel)))
			continue;
		if (e->via_link) {
			note(b->plan,
			    sbx_xasprintf("secret %s does not exist and passes through a "
					  "symlink: what is made there is not moved aside",
				e->path));
			continue;
		}
		if (e->tree != NULL) {
			/* A read-write mount's source: only a backend that
			 * mounts it lets the run write there. */
			if (!b->opts->mounts)
				continue;
			sbx_strv_push(&b->plan->scrub_trees, e->tree);
			sbx_strv_push(&b->plan->scrub_trees, e->rel);
		} else {
			sbx_strv_push(&b->plan->scrub, e->rel);
		}
		note(b->plan,
		    sbx_xasprintf("secret %s does not exist: what is made there is moved "
				  "aside after the run",
			e->path));
	}
}

static void
build_protects(struct builder *b)
{
	for (size_t i = 0; i < b->view->n; i++) {
		const struct sbx_fsentry *e = &b->view->v[i];

		if (e->disp != SBX_FSD_PROTECTED && e->disp != SBX_FSD_PLACEHOLDER)
			continue;
		if (e->origin == SBX_FSO_GIT)
			protect_git(b, e);
		else
			protect_one(b, e);
	}
}

/* A read-write mount's source is a directory of the caller's as much as
 * the workdir: a .git at its top stays read-only inside the same way, by
 * a bind of it onto itself after the mount (depth orders them). One that
 * is not there is the git search's after the run (linux-gitguard.c);
 * landlock-only plans have no mounts. */
static void
protect_mount_gits(struct builder *b)
{
	for (size_t i = 0; b->opts->mounts && i < b->view->n; i++) {
		const struct sbx_fsentry *e = &b->view->v[i];
		_cleanup_free_ char *dst = NULL;

		if (e->origin != SBX_FSO_MOUNT ||
		    (e->git != SBX_KIND_DIR && e->git != SBX_KIND_FILE))
			continue;
		dst = sbx_path_join(e->at, ".git");
		add_op(b->plan, SBX_OP_BIND, dst, dst,
		    SBX_OPF_SELF | SBX_OPF_RO | (e->git == SBX_KIND_FILE ? SBX_OPF_FILE : 0));
		note(b->plan,
		    sbx_xasprintf("%s/.git (in a read-write mount) is read-only inside, as the "
				  "workdir's",
			e->rel));
	}
}

/* Landlock only allows: to keep hidden paths out of a tree, the tree root
 * keeps its listing (and write) rights while reading and executing are
 * granted entry by entry, down to each hidden path, which gets nothing. */
static void
rules_for(struct builder *b, const char *src, const char *dst, enum sbx_file_kind kind,
    unsigned access, const struct sbx_strv *hidden, int depth)
{
	struct sbx_strv inside = { 0 }, names = { 0 };
	bool is_dir = kind == SBX_KIND_DIR;

	for (size_t i = 0; i < hidden->n; i++) {
		if (sbx_path_is_under(src, hidden->v[i]))
			goto out; /* src itself is hidden */
		/* Walking around a path that file permissions already keep
		 * from the sandbox (/etc/shadow) would cost a rule per
		 * neighbour and add nothing. */
		if (!is_dir || !sbx_path_is_under(hidden->v[i], src))
			continue;
		if (sbx_strv_contains(&b->absent, hidden->v[i])
			? !(access & SBX_LL_WRITE)
			: hidden_kind(b, hidden->v[i]) != SBX_KIND_NONE &&
			    !is_sealed(b, hidden->v[i]))
			sbx_strv_push(&inside, hidden->v[i]);
	}
	if (inside.n == 0 || depth > 32 || b->facts->list(b->facts->ctx, src, &names) < 0) {
		add_rule(b->plan, dst, is_dir ? access : access & ~SBX_LL_LIST, is_dir);
		goto out;
	}
	add_rule(b->plan, dst, access & ~(SBX_LL_READ | SBX_LL_EXEC), true);
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *s = sbx_path_join(src, names.v[i]);
		_cleanup_free_ char *d = sbx_path_join(dst, names.v[i]);
		enum sbx_file_kind k = b->facts->kind(b->facts->ctx, s, NULL);

		/* Symlinks need no rule: access is judged where they lead. */
		if (k == SBX_KIND_SYMLINK || k == SBX_KIND_NONE)
			continue;
		rules_for(b, s, d, k, access, &inside, depth + 1);
	}
out:
	sbx_strv_free(&inside);
	sbx_strv_free(&names);
}

/* Whether the Landlock-only walk must go around hidden path h inside a
 * tree granted access: it must exist, and a path that file permissions
 * already keep from the sandbox needs no walk for reading; but where the
 * tree is writable, its parent directory must still not let the sandbox
 * remove, rename or replace it. A symlink is left alone, as by the mount
 * plan: its target is in the list too, resolved. */
static bool
ll_walk_hidden(struct builder *b, const char *h, unsigned access)
{
	enum sbx_file_kind k;

	if (sbx_strv_contains(&b->absent, h))
		return !(access & SBX_LL_WRITE);
	k = hidden_kind(b, h);

	if (k == SBX_KIND_NONE || k == SBX_KIND_SYMLINK)
		return false;
	if (access & SBX_LL_WRITE)
		return true;
	return !is_sealed(b, h);
}

/* The rules of a Landlock-only plan (no mount can cover or pin a path).
 * A right granted on a directory holds for everything below it (the
 * kernel looks up the rules of each ancestor of the file accessed:
 * security/landlock/fs.c), and Landlock can only allow. So each
 * directory on the way down to a hidden path gets no right at all (not
 * even listing: READ_DIR there would list the hidden directory too), a
 * directory on the way down to a protected path keeps only the read
 * rights (they may be read), and every other entry along the way gets
 * the tree's full rights with a rule of its own. What it costs: in a
 * writable tree such a directory takes no new entry, removal or rename,
 * since any MAKE_* or REMOVE_* right on it would reach the path below
 * (existing files in it keep their own rule and stay writable in place);
 * those directories go to plan->frozen. And one leading to a hidden path
 * cannot be listed. */
static void
ll_rules_for(struct builder *b, const char *path, enum sbx_file_kind kind, unsigned access,
    const struct sbx_strv *hidden, const struct sbx_strv *ro, int depth)
{
	struct sbx_strv in_h = { 0 }, in_ro = { 0 }, names = { 0 };
	bool is_dir = kind == SBX_KIND_DIR, exists_below = false;
	unsigned keep;

	for (size_t i = 0; i < hidden->n; i++)
		if (sbx_path_is_under(path, hidden->v[i]))
			goto out; /* path itself is hidden */
	for (size_t i = 0; i < ro->n; i++)
		if (sbx_path_is_under(path, ro->v[i]))
			access &= ~SBX_LL_WRITE; /* protected, and all below it */
	for (size_t i = 0; is_dir && i < hidden->n; i++)
		if (strcmp(hidden->v[i], path) != 0 && sbx_path_is_under(hidden->v[i], path) &&
		    ll_walk_hidden(b, hidden->v[i], access)) {
			sbx_strv_push(&in_h, hidden->v[i]);
			exists_below |= !sbx_strv_contains(&b->absent, hidden->v[i]);
		}
	for (size_t i = 0; is_dir && (access & SBX_LL_WRITE) && i < ro->n; i++)
		if (strcmp(ro->v[i], path) != 0 && sbx_path_is_under(ro->v[i], path))
			sbx_strv_push(&in_ro, ro->v[i]);
	if (in_h.n == 0 && in_ro.n == 0) {
		add_rule(b->plan, path, is_dir ? access : access & ~SBX_LL_LIST, is_dir);
		goto out;
	}
	/* Below it only names that do not exist yet (in a read-only tree):
	 * it keeps its listing, as the namespaces backend's walk does. */
	keep = exists_below ? 0 : in_h.n > 0 ? access & SBX_LL_LIST : access & ~SBX_LL_WRITE;
	/* Only protected paths below the workdir: it keeps its write rights,
	 * which reach all of them, and the supervisor judges every call that
	 * makes, removes, renames or writes a name (doc/design/everyday.md,
	 * section 3). Below it the rules no longer matter for writing. */
	if (b->opts->guard_names && in_h.n == 0 && (access & SBX_LL_WRITE) &&
	    (strcmp(path, b->fs->workdir) == 0 ||
		(b->plan->guard_names && sbx_path_is_under(path, b->fs->workdir)))) {
		b->plan->guard_names = true;
		keep = access;
		if (!sbx_strv_contains(&b->plan->guarded, path))
			sbx_strv_push(&b->plan->guarded, path);
	} else if ((access & SBX_LL_WRITE) && !sbx_strv_contains(&b->plan->frozen, path)) {
		sbx_strv_push(&b->plan->frozen, path);
	}
	add_rule(b->plan, path, keep, true);
	if (exists_below)
		note(b->plan,
		    sbx_xasprintf("%s cannot be listed: a hidden path lies below it", path));
	if (depth > 32 || b->facts->list(b->facts->ctx, path, &names) < 0) {
		/* Fail closed: nothing below gets more than keep. */
		note(b->plan,
		    sbx_xasprintf("cannot walk %s: it keeps only the rights that "
				  "do not reach the paths below it",
			path));
		goto out;
	}
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *s = sbx_path_join(path, names.v[i]);
		enum sbx_file_kind k = b->facts->kind(b->facts->ctx, s, NULL);

		/* Symlinks need no rule: access is judged where they lead. */
		if (k == SBX_KIND_SYMLINK || k == SBX_KIND_NONE)
			continue;
		ll_rules_for(b, s, k, access, &in_h, &in_ro, depth + 1);
	}
out:
	sbx_strv_free(&in_h);
	sbx_strv_free(&in_ro);
	sbx_strv_free(&names);
}

static size_t
depth_of(const struct sbx_op *op)
{
	size_t d = 0;

	/* Read-only remounts come after everything they cover. */
	if (op->kind == SBX_OP_REMOUNT_RO)
		return 1000;
	for (const char *c = op->dst; *c; c++)
		if (*c == '/' && c[1] != '\0')
			d++;
	return d;
}

/* Parents are mounted before children, or a later parent would cover
 * them; ops at the same depth keep their order (a hide after its bind). */
static void
sort_ops(struct sbx_plan *plan)
{
	for (size_t i = 1; i < plan->nops; i++) {
		struct sbx_op op = plan->ops[i];
		size_t d = depth_of(&op), k = i;

		while (k > 0 && depth_of(&plan->ops[k - 1]) > d) {
			plan->ops[k] = plan->ops[k - 1];
			k--;
		}
		plan->ops[k] = op;
	}
}

int
sbx_plan_build(const struct sbx_policy *p, const struct sbx_fsview *fs,
    const struct sbx_fsfacts *facts, const struct sbx_plan_opts *opts, struct sbx_plan *plan,
    struct sbx_err *err)
{
	struct sbx_fsplan view;

	memset(plan, 0, sizeof(*plan));
	if (sbx_fsplan_build(p, fs, facts, &view, err) < 0)
		return -1;
	sbx_plan_lower(&view, p, fs, facts, opts, plan);
	sbx_fsplan_free(&view);
	return 0;
}

void
sbx_plan_lower(const struct sbx_fsplan *view, const struct sbx_policy *p,
    const struct sbx_fsview *fs, const struct sbx_fsfacts *facts, const struct sbx_plan_opts *opts,
    struct sbx_plan *plan)
{
	struct builder b = {
		.p = p,
		.fs = fs,
		.facts = facts,
		.opts = opts,
		.plan = plan,
		.view = view,
	};
	struct sbx_strv hidden = { 0 };

	memset(plan, 0, sizeof(*plan));
	build_readonly_view(&b);
	build_system_mounts(&b);
	build_workdir(&b);
	build_hides(&b);
	build_protects(&b);
	scrub_secrets(&b);
	protect_mount_gits(&b);
	sbx_secret_list_system(&b.system);
	for (size_t i = 0; i < view->n; i++) {
		char *mark;

		if (view->v[i].disp != SBX_FSD_HIDDEN)
			continue;
		if (!view->facts || view->v[i].kind != SBX_KIND_NONE ||
		    (mark = absent_mark(&b, view->v[i].path)) == NULL) {
			sbx_strv_push(&hidden, view->v[i].path);
			continue;
		}
		if (!sbx_strv_contains(&b.absent, mark)) {
			sbx_strv_push(&b.absent, mark);
			sbx_strv_push(&hidden, mark);
		}
		free(mark);
	}
	if (opts->mounts) {
		sort_ops(plan);
		add_op(plan, SBX_OP_REMOUNT_RO, NULL, "/", 0);
	}
	for (size_t i = 0; i < b.nviews; i++) {
		if (opts->mounts)
			rules_for(&b, b.views[i].src, b.views[i].dst, b.views[i].kind,
			    b.views[i].access, &hidden, 0);
		else
			ll_rules_for(&b, b.views[i].src, b.views[i].kind, b.views[i].access,
			    &hidden, &b.ro, 0);
	}
	free(b.views);
	sbx_strv_free(&b.ro);
	sbx_strv_free(&b.absent);
	sbx_strv_free(&b.system);
	sbx_strv_free(&b.sealed_yes);
	sbx_strv_free(&b.sealed_no);
	sbx_strv_free(&hidden);
}

void
sbx_plan_free(struct sbx_plan *plan)
{
	for (size_t i = 0; i < plan->nops; i++) {
		free(plan->ops[i].src);
		free(plan->ops[i].dst);
	}
	free(plan->ops);
	for (size_t i = 0; i < plan->nrules; i++)
		free(plan->rules[i].path);
	free(plan->rules);
	for (size_t i = 0; i < plan->ntrees; i++)
		free(plan->trees[i].src);
	free(plan->trees);
	sbx_strv_free(&plan->notes);
	sbx_strv_free(&plan->created);
	sbx_strv_free(&plan->frozen);
	sbx_strv_free(&plan->scrub);
	sbx_strv_free(&plan->held);
	sbx_strv_free(&plan->scrub_trees);
	sbx_strv_free(&plan->watch);
	sbx_strv_free(&plan->guarded);
	memset(plan, 0, sizeof(*plan));
}

static const char *
access_text(unsigned a, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s", a & SBX_LL_LIST ? "l" : "-", a & SBX_LL_READ ? "r" : "-",
	    a & SBX_LL_WRITE ? "w" : "-", a & SBX_LL_EXEC ? "x" : "-", a & SBX_LL_DEV ? "d" : "-");
	return buf;
}

void
sbx_plan_describe(const struct sbx_plan *plan, struct sbx_buf *out)
{
	static const char *const names[] = {
		[SBX_OP_BIND] = "bind",
		[SBX_OP_ATTACH] = "attach",
		[SBX_OP_TMPFS] = "tmpfs",
		[SBX_OP_SYMLINK] = "symlink",
		[SBX_OP_MKDIR] = "mkdir",
		[SBX_OP_PROC] = "proc",
		[SBX_OP_DEVPTS] = "devpts",
		[SBX_OP_HIDE] = "hide",
		[SBX_OP_REMOUNT_RO] = "remount-ro",
	};
	char buf[8];

	if (plan->nops)
		sbx_buf_puts(out, "# mount table, in order (inside path <- host source)\n");
	for (size_t i = 0; i < plan->nops; i++) {
		const struct sbx_op *op = &plan->ops[i];

		sbx_buf_printf(out, "%-10s %s", names[op->kind], op->dst);
		if (op->kind == SBX_OP_SYMLINK)
			sbx_buf_printf(out, " -> %s", op->src);
		else if (op->src && !(op->flags & SBX_OPF_SELF) && strcmp(op->src, op->dst) != 0)
			sbx_buf_printf(out, " <- %s", op->src);
		if (op->kind == SBX_OP_BIND || op->kind == SBX_OP_ATTACH)
			sbx_buf_puts(out, op->flags & SBX_OPF_RO ? " ro" : " rw");
		if (op->kind == SBX_OP_ATTACH && plan->trees[op->tree].idmap)
			sbx_buf_puts(out, " idmap");
		if (op->flags & SBX_OPF_FILE)
			sbx_buf_puts(out, " file");
		if (op->flags & SBX_OPF_SELF)
			sbx_buf_puts(out, " self");
		if (op->kind == SBX_OP_TMPFS)
			sbx_buf_printf(out, " mode=%04o", op->mode);
		if (op->kind == SBX_OP_TMPFS && op->size)
			sbx_buf_printf(out, " size=%" PRIu64, op->size);
		sbx_buf_putc(out, '\n');
	}
	sbx_buf_puts(out, "# landlock rules (l=list r=read w=write x=execute d=device ioctl)\n");
	for (size_t i = 0; i < plan->nrules; i++)
		sbx_buf_printf(out, "landlock   %s %s%s\n",
		    access_text(plan->rules[i].access, buf, sizeof(buf)), plan->rules[i].path,
		    plan->rules[i].is_dir ? "" : " (file)");
	for (size_t i = 0; i < plan->notes.n; i++)
		sbx_buf_printf(out, "# note: %s\n", plan->notes.v[i]);
}
