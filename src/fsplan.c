#include "config.h"

#include <errno.h>
#include <string.h>

#include "fsplan.h"

/* The view being built. */
struct vb {
	const struct sbx_policy *p;
	const struct sbx_fsview *fs;
	const struct sbx_fsfacts *facts;
	struct sbx_fsplan *v;
};

static struct sbx_fsentry *
add(struct vb *b, enum sbx_fsdisp disp, enum sbx_fsorigin origin, const char *path)
{
	struct sbx_fsplan *v = b->v;
	struct sbx_fsentry *e;

	v->v = sbx_xreallocarray(v->v, v->n + 1, sizeof(*v->v));
	e = &v->v[v->n++];
	*e = (struct sbx_fsentry){ .path = sbx_xstrdup(path), .disp = disp, .origin = origin };
	return e;
}

/* The kind of e's path (and a symlink's content), when the view has
 * facts. */
static void
look(struct vb *b, struct sbx_fsentry *e)
{
	if (b->facts)
		e->kind = b->facts->kind(b->facts->ctx, e->path, &e->target);
}

/* The directories "open" does not take from the host: fresh or empty ones
 * take their place (host sockets live in /run and /tmp). */
static bool
open_skips(const char *name)
{
	static const char *const skip[] = { "proc", "sys", "dev", "run", "tmp" };

	for (size_t i = 0; i < SBX_ARRAY_LEN(skip); i++)
		if (strcmp(name, skip[i]) == 0)
			return true;
	return false;
}

/* What is readable: the entries of / (open, with facts only), or the
 * system roots present and the allowlist's [read] paths. */
static int
add_readable(struct vb *b, struct sbx_err *err)
{
	const struct sbx_fsview *fs = b->fs;

	if (b->p->fs == SBX_FS_OPEN) {
		struct sbx_strv names = { 0 };

		if (b->facts == NULL)
			return 0;
		if (b->facts->list(b->facts->ctx, "/", &names) < 0)
			return sbx_err_set(err, EACCES, "cannot list /");
		for (size_t i = 0; i < names.n; i++) {
			_cleanup_free_ char *path = NULL;

			if (open_skips(names.v[i]))
				continue;
			path = sbx_path_join("/", names.v[i]);
			look(b, add(b, SBX_FSD_RO, SBX_FSO_TOP, path));
		}
		sbx_strv_free(&names);
		return 0;
	}
	for (size_t i = 0; i < fs->roots.n; i++)
		look(b, add(b, SBX_FSD_RO, SBX_FSO_ROOT, fs->roots.v[i]));
	for (size_t i = 0; b->p->fs == SBX_FS_ALLOWLIST && i < fs->read.n; i++)
		look(b, add(b, SBX_FSD_RO, SBX_FSO_READ, fs->read.v[i]));
	return 0;
}

/* The workdir and the [mounts] sources, each at its host path; a mount
 * also records where the policy places it. */
static void
add_writable(struct vb *b)
{
	const struct sbx_policy *p = b->p;
	struct sbx_fsentry *e = add(b, SBX_FSD_RW, SBX_FSO_WORKDIR, b->fs->workdir);

	e->kind = SBX_KIND_DIR;
	for (size_t i = 0; i < p->nmounts; i++) {
		const struct sbx_mount *m = &p->mounts[i];

		e = add(b, m->rw ? SBX_FSD_RW : SBX_FSD_RO, SBX_FSO_MOUNT, m->source);
		e->at = sbx_path_join(b->fs->workdir, m->target);
		e->rel = sbx_xstrdup(m->target);
		look(b, e);
		/* A .git at a read-write source's top stays read-only as the
		 * workdir's (sbxrun(1)): the plan and the docker binds keep it. */
		if (m->rw && e->kind == SBX_KIND_DIR && b->facts) {
			_cleanup_free_ char *git = sbx_path_join(m->source, ".git");

			e->git = b->facts->kind(b->facts->ctx, git, NULL);
		}
	}
}

static bool through_link_at(struct vb *b, const char *top, const char *rel);

/* The tree a missing secret at path lies in that the run may write and
 * that outlives it: the workdir (NULL in *tree), or a read-write
 * directory mount's source; the part of path below it, or NULL. */
static const char *
writable_below(struct vb *b, const char *path, const char **tree)
{
	const char *top = NULL;
	size_t n;

	*tree = NULL;
	if (!b->fs->workdir_in_jail && sbx_path_is_under(path, b->fs->workdir))
		top = b->fs->workdir;
	for (size_t i = 0; top == NULL && i < b->v->n; i++) {
		const struct sbx_fsentry *m = &b->v->v[i];

		if (m->origin == SBX_FSO_MOUNT && m->disp == SBX_FSD_RW &&
		    m->kind == SBX_KIND_DIR && sbx_path_is_under(path, m->path))
			top = *tree = m->path;
	}
	if (top == NULL)
		return NULL;
	n = strlen(top);
	if (path[n] != '/' || path[n + 1] == '\0' || strpbrk(path + n + 1, "*?[") != NULL)
		return NULL;
	return path + n + 1;
}

/* The secrets. One that does not exist inside the workdir (when it
 * outlives the jail) or a read-write mount's source also gets its name
 * there (rel, and tree for a mount) and whether a symlink stands on the
 * way (via_link): the plan moves aside what the run makes at that name
 * (plan.c, scrub_secrets), or the sandbox could leave a link there that
 * the caller's tools later write the real secret through. A glob names
 * nothing to move. */
static void
add_hidden(struct vb *b)
{
	for (size_t i = 0; i < b->fs->hidden.n; i++) {
		struct sbx_fsentry *e = add(b, SBX_FSD_HIDDEN, SBX_FSO_SECRET, b->fs->hidden.v[i]);
		const char *rel, *tree;

		look(b, e);
		if (b->facts == NULL || e->kind != SBX_KIND_NONE ||
		    (rel = writable_below(b, e->path, &tree)) == NULL)
			continue;
		e->rel = sbx_xstrdup(rel);
		e->tree = tree ? sbx_xstrdup(tree) : NULL;
		e->via_link = through_link_at(b, tree ? tree : b->fs->workdir, e->rel);
	}
}

/* The one built-in list: what other tools run or load without being asked
 * (on cd, on opening the folder, on git status or commit, at login), so
 * that code in the sandbox cannot plant commands for them. man/sbxrun.profile.5
 * gives the same reasons and what was left out. */
const struct sbx_protect_default sbx_protect_defaults[] = {
	{ ".envrc", false, "direnv runs it on cd" },
	{ ".vscode", false,
	    "VS Code runs its tasks and takes interpreters and terminal settings from it" },
	{ ".idea", false, "JetBrains IDEs run its run configurations and startup tasks" },
	{ ".devcontainer", false, "dev containers run its initializeCommand on the host" },
	{ ".devcontainer.json", false, "the same, at the top level" },
	{ ".gitmodules", false, "git fetches the submodule URLs it names" },
	{ ".gitattributes", false,
	    "it picks the filter and diff commands git status and diff run" },
	{ ".pre-commit-config.yaml", false, "pre-commit's git hook runs the commands it lists" },
	{ ".profile", true, "sh and bash login shells run it" },
	{ ".bashrc", true, "bash runs it" },
	{ ".bash_profile", true, "bash login shells run it" },
	{ ".bash_login", true, "bash login shells run it" },
	{ ".bash_logout", true, "bash login shells run it on exit" },
	{ ".bash_aliases", true, "Debian's and Ubuntu's .bashrc runs it" },
	{ ".zshenv", true, "zsh runs it" },
	{ ".zprofile", true, "zsh login shells run it" },
	{ ".zshrc", true, "zsh runs it" },
	{ ".zlogin", true, "zsh login shells run it" },
	{ ".zlogout", true, "zsh login shells run it on exit" },
	{ ".config/fish", true, "fish runs config.fish, conf.d and functions" },
	{ ".inputrc", true, "readline binds keys to command lines from it" },
	{ ".gitconfig", true, "every git command reads it (core.fsmonitor, aliases, hooksPath)" },
	{ ".config/git", true, "the same, where git also looks" },
	{ ".vimrc", true, "vim runs it" },
	{ ".vim", true, "vim runs vimrc and the plugins in it" },
	{ ".config/vim", true, "vim 9.1 runs vimrc and the plugins in it" },
	{ ".config/nvim", true, "neovim runs it" },
	{ ".emacs", true, "Emacs runs it" },
	{ ".emacs.el", true, "Emacs runs it" },
	{ ".emacs.d/init.el", true, "Emacs runs it" },
	{ ".emacs.d/early-init.el", true, "Emacs 27 and later run it" },
	{ ".config/emacs", true, "Emacs 27 and later run init.el and early-init.el from it" },
	{ ".tmux.conf", true, "tmux runs the commands in it" },
	{ ".config/tmux", true, "tmux runs tmux.conf from it" },
	{ ".xsessionrc", true, "an X session runs it at login" },
	{ ".xsession", true, "an X session runs it at login" },
	{ ".xinitrc", true, "startx runs it" },
	{ ".xprofile", true, "an X session runs it at login" },
	{ ".config/autostart", true, "a desktop session starts what it lists" },
	{ ".config/systemd", true, "the user's service manager starts its units" },
	{ ".config/environment.d", true, "the user's service manager takes variables from it" },
	{ ".config/direnv", true, "its whitelist lets direnv run .envrc files without asking" },
	{ ".local/share/direnv", true,
	    "its allow list lets direnv run .envrc files without asking" },
	{ ".config/sbxrun", true,
	    "sbxrun loads the user's profiles from it, ahead of the machine's (-p NAME)" },
	{ NULL, false, NULL },
};

static const char *const gitdir_protected[] = { "hooks", "config", "config.worktree", "commondir" };

bool
sbx_protect_home(const struct sbx_fsview *fs)
{
	return fs->workdir_home || sbx_strv_contains(&fs->homes, fs->workdir);
}

void
sbx_protect_list(const struct sbx_policy *p, const struct sbx_fsview *fs, struct sbx_strv *out)
{
	bool home = sbx_protect_home(fs);

	sbx_strv_push(out, ".git/hooks");
	sbx_strv_push(out, ".git/config");
	/* A workdir that is a git directory itself (a bare repository, a
	 * mirror): what git runs something of, as in .git; commondir and
	 * config.worktree name more config when made. */
	if (fs->workdir_gitdir)
		for (size_t i = 0; i < SBX_ARRAY_LEN(gitdir_protected); i++)
			sbx_strv_push(out, gitdir_protected[i]);
	for (size_t i = 0; p->protect_defaults && sbx_protect_defaults[i].path; i++)
		if (home || !sbx_protect_defaults[i].home_only)
			sbx_strv_push(out, sbx_protect_defaults[i].path);
	for (size_t i = 0; i < p->protect.n; i++)
		if (!sbx_strv_contains(out, p->protect.v[i]))
			sbx_strv_push(out, p->protect.v[i]);
}

bool
sbx_protect_is_default(const struct sbx_policy *p, const char *rel)
{
	if (!p->protect_defaults || sbx_strv_contains(&p->protect, rel))
		return false;
	for (size_t i = 0; sbx_protect_defaults[i].path; i++)
		if (strcmp(sbx_protect_defaults[i].path, rel) == 0)
			return true;
	return false;
}

/* Whether a directory on the way from top (the workdir or a mount's
 * source) to rel is a symlink. */
static bool
through_link_at(struct vb *b, const char *top, const char *rel)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);

	for (char *c = copy; (c = strchr(c, '/')) != NULL; c++) {
		_cleanup_free_ char *path = NULL;

		*c = '\0';
		path = sbx_path_join(top, copy);
		*c = '/';
		if (b->facts->kind(b->facts->ctx, path, NULL) == SBX_KIND_SYMLINK)
			return true;
	}
	return false;
}

/* Whether rel (relative to the workdir) is itself a symlink. */
static bool
link_here(struct vb *b, const char *rel)
{
	_cleanup_free_ char *path = sbx_path_join(b->fs->workdir, rel);

	return b->facts->kind(b->facts->ctx, path, NULL) == SBX_KIND_SYMLINK;
}

/* Where the symlink at rel (relative to the workdir, content target)
 * leads, relative to the workdir, or NULL when that is outside it or
 * cannot be told without following another symlink. Lexical: ".." is
 * applied to the names, and no directory on the way may be a symlink. */
static char *
link_target_rel(struct vb *b, const char *rel, const char *target)
{
	size_t wl = strlen(b->fs->workdir);
	_cleanup_free_ char *joined = NULL;
	struct sbx_buf out = { 0 };
	char *save = NULL;

	if (target[0] == '/') {
		if (strncmp(target, b->fs->workdir, wl) != 0 || target[wl] != '/')
			return NULL;
		joined = sbx_xstrdup(target + wl + 1);
	} else {
		const char *slash = strrchr(rel, '/');

		joined = slash ? sbx_xasprintf("%.*s/%s", (int)(slash - rel), rel, target)
			       : sbx_xstrdup(target);
	}
	for (char *c = strtok_r(joined, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			char *last;

			/* Above the workdir, or ".." after a symlink, which the
			 * kernel applies to where the link leads, not to its
			 * name: not told lexically. */
			if (out.len == 0 || out.data == NULL ||
			    through_link_at(b, b->fs->workdir, out.data) ||
			    link_here(b, out.data)) {
				sbx_buf_free(&out);
				return NULL;
			}
			last = strrchr(out.data, '/');
			out.len = last ? (size_t)(last - out.data) : 0;
			out.data[out.len] = '\0';
			continue;
		}
		sbx_buf_printf(&out, "%s%s", out.len ? "/" : "", c);
	}
	if (out.len == 0 || through_link_at(b, b->fs->workdir, out.data)) {
		sbx_buf_free(&out);
		return NULL;
	}
	return sbx_buf_steal(&out);
}

/* How many symlinks of one protected directory are followed. */
#define PROTECT_LINKS_MAX 256

/* The symlinks directly in the directory rel (of the workdir) that lead
 * to a path in the workdir: what the caller's tools read through them (a
 * hook that is a link to scripts/pre-commit, a config kept in a dotfiles
 * tree) is that path, so it goes on list to be protected in turn. */
static void
protect_link_targets(struct vb *b, const char *rel, struct sbx_strv *list, char **note)
{
	_cleanup_free_ char *dir = sbx_path_join(b->fs->workdir, rel);
	struct sbx_strv names = { 0 };
	size_t links = 0;

	/* Never into another mount: one on a protected name may hang. */
	if (b->facts->list_here == NULL || b->facts->list_here(b->facts->ctx, dir, &names) < 0)
		return;
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *path = sbx_path_join(dir, names.v[i]);
		_cleanup_free_ char *target = NULL;
		_cleanup_free_ char *link = NULL;
		char *to;

		if (b->facts->kind(b->facts->ctx, path, &target) != SBX_KIND_SYMLINK || !target)
			continue;
		link = sbx_path_join(rel, names.v[i]);
		/* Bounded: a tree of the caller's with thousands of links
		 * there would cost every run a look at each. */
		if (++links > PROTECT_LINKS_MAX) {
			if (*note == NULL)
				*note = sbx_xasprintf("%s holds more than %d symlinks: where the "
						      "others lead is not protected",
				    rel, PROTECT_LINKS_MAX);
			break;
		}
		to = link_target_rel(b, link, target);
		if (to == NULL) {
			/* Outside the workdir by name is outside its writes;
			 * through another symlink, the sandbox could change
			 * where it leads. Said in the plan. */
			if (*note == NULL)
				*note =
				    sbx_xasprintf("%s is a symlink to %s, outside the workdir or "
						  "through another symlink: the target is not "
						  "protected",
					link, target);
		} else if (sbx_strv_contains(list, to) || strcmp(to, ".git") == 0 ||
		    sbx_str_has_prefix(to, ".git/")) {
			free(to);
		} else {
			sbx_strv_push_take(list, to);
		}
	}
	sbx_strv_free(&names);
}

/* The protected paths of the workdir: all of .git first, then the list,
 * then where its symlinks lead. */
static void
add_protected(struct vb *b)
{
	struct sbx_strv list = { 0 };
	_cleanup_free_ char *git = sbx_path_join(b->fs->workdir, ".git");
	size_t listed;
	struct sbx_fsentry *e = add(b, SBX_FSD_PROTECTED, SBX_FSO_GIT, git);

	/* The whole repository: protecting hooks and config alone is not
	 * enough, since git also reads a commondir, worktree configs, and
	 * the hooks and config of each submodule (.git/modules/NAME), which
	 * exist or which the sandbox could create next to them. git inside
	 * can read, not commit. The list's .git/ entries fall under it. */
	e->rel = sbx_xstrdup(".git");
	look(b, e);
	if (b->facts && e->kind == SBX_KIND_NONE)
		e->disp = SBX_FSD_PLACEHOLDER;
	sbx_protect_list(b->p, b->fs, &list);
	listed = list.n;
	/* A .git that is a symlink to a directory of the workdir: that is the
	 * repository the caller's git reads. A .git directory: the links in
	 * it and in its hooks lead to what git runs or reads. */
	if (b->facts && e->kind == SBX_KIND_SYMLINK && e->target != NULL) {
		char *to = link_target_rel(b, ".git", e->target);

		if (to == NULL)
			e->note = sbx_xasprintf(
			    ".git is a symlink to %s, outside the workdir or through another "
			    "symlink: the repository there is not protected",
			    e->target);
		else
			sbx_strv_push_take(&list, to);
	} else if (b->facts && e->kind == SBX_KIND_DIR) {
		protect_link_targets(b, ".git", &list, &e->note);
		protect_link_targets(b, ".git/hooks", &list, &e->note);
	}
	for (size_t i = 0; i < list.n; i++) {
		const char *rel = list.v[i];
		_cleanup_free_ char *path = NULL;

		if (sbx_str_has_prefix(rel, ".git/") || strcmp(rel, ".git") == 0)
			continue;
		path = sbx_path_join(b->fs->workdir, rel);
		e = add(b, SBX_FSD_PROTECTED, SBX_FSO_PROTECT, path);
		e->rel = sbx_xstrdup(rel);
		e->builtin = sbx_protect_is_default(b->p, rel);
		if (e->builtin)
			e->origin = SBX_FSO_DEFAULT;
		else if (i >= listed)
			e->origin = SBX_FSO_LINK;
		if (b->facts == NULL)
			continue;
		look(b, e);
		e->via_link = through_link_at(b, b->fs->workdir, rel);
		if (e->kind == SBX_KIND_NONE)
			e->disp = SBX_FSD_PLACEHOLDER;
		if (e->kind == SBX_KIND_DIR)
			protect_link_targets(b, rel, &list, &e->note);
		/* A protected name that is a symlink: what the caller's tools
		 * read through it is its target, so that is protected too (in
		 * turn, if it is a link again) when it lies in the workdir. */
		if (e->kind == SBX_KIND_SYMLINK && e->target != NULL) {
			char *to = link_target_rel(b, rel, e->target);

			if (to == NULL)
				e->note = sbx_xasprintf(
				    "protected path %s is a symlink to %s, outside the workdir or "
				    "through another symlink: the target is not protected",
				    rel, e->target);
			else if (sbx_strv_contains(&list, to))
				free(to);
			else
				sbx_strv_push_take(&list, to);
		}
	}
	sbx_strv_free(&list);
}

int
sbx_fsplan_build(const struct sbx_policy *p, const struct sbx_fsview *fs,
    const struct sbx_fsfacts *facts, struct sbx_fsplan *v, struct sbx_err *err)
{
	struct vb b = { .p = p, .fs = fs, .facts = facts, .v = v };

	memset(v, 0, sizeof(*v));
	if (fs->workdir == NULL)
		return sbx_err_set(err, EINVAL, "no workdir to build a filesystem view for");
	v->workdir = fs->workdir;
	v->workdir_in_jail = fs->workdir_in_jail;
	v->facts = facts != NULL;
	if (add_readable(&b, err) < 0) {
		sbx_fsplan_free(v);
		return -1;
	}
	add_writable(&b);
	add_hidden(&b);
	/* A workdir that vanishes with the jail holds nothing for the
	 * caller's tools to run later. */
	if (!fs->workdir_in_jail)
		add_protected(&b);
	return 0;
}

void
sbx_fsplan_free(struct sbx_fsplan *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].path);
		free(v->v[i].at);
		free(v->v[i].rel);
		free(v->v[i].target);
		free(v->v[i].note);
		free(v->v[i].tree);
	}
	free(v->v);
	memset(v, 0, sizeof(*v));
}

const struct sbx_fsentry *
sbx_fsplan_workdir(const struct sbx_fsplan *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].origin == SBX_FSO_WORKDIR)
			return &v->v[i];
	return NULL;
}

void
sbx_fsplan_describe(const struct sbx_fsplan *v, struct sbx_buf *out)
{
	static const char *const disps[] = {
		[SBX_FSD_RO] = "ro",
		[SBX_FSD_RW] = "rw",
		[SBX_FSD_HIDDEN] = "hidden",
		[SBX_FSD_PROTECTED] = "protected",
		[SBX_FSD_PLACEHOLDER] = "placeholder",
	};
	static const char *const origins[] = {
		[SBX_FSO_ROOT] = "root",
		[SBX_FSO_TOP] = "top",
		[SBX_FSO_READ] = "read",
		[SBX_FSO_WORKDIR] = "workdir",
		[SBX_FSO_MOUNT] = "mount",
		[SBX_FSO_SECRET] = "secret",
		[SBX_FSO_GIT] = "git",
		[SBX_FSO_DEFAULT] = "default",
		[SBX_FSO_PROTECT] = "protect",
		[SBX_FSO_LINK] = "link",
	};
	static const char *const kinds[] = {
		[SBX_KIND_NONE] = "missing",
		[SBX_KIND_DIR] = "dir",
		[SBX_KIND_FILE] = "file",
		[SBX_KIND_SYMLINK] = "symlink",
	};

	sbx_buf_printf(out, "# filesystem view (disposition path, why%s)\n",
	    v->facts ? ", kind" : "; no facts: names only");
	for (size_t i = 0; i < v->n; i++) {
		const struct sbx_fsentry *e = &v->v[i];

		sbx_buf_printf(out, "%-11s %s", disps[e->disp], e->path);
		if (e->at)
			sbx_buf_printf(out, " at %s", e->at);
		sbx_buf_printf(out, " (%s", origins[e->origin]);
		if (v->facts)
			sbx_buf_printf(out, ", %s", kinds[e->kind]);
		if (e->target)
			sbx_buf_printf(out, " -> %s", e->target);
		if (e->via_link)
			sbx_buf_puts(out, ", through a symlink");
		sbx_buf_puts(out, ")\n");
		if (e->note)
			sbx_buf_printf(out, "# view note: %s\n", e->note);
	}
}
