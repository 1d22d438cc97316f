/* The filesystem view of one policy (fsplan.c) and its three lowerings,
 * side by side: the mount table and
 * Landlock rules of the namespaces backend (for a root caller and for
 * another one), the Landlock-only rules of the landlock backend (with and
 * without its watch list and name supervisor), and the Seatbelt profile.
 * Each policy's lowerings are one text, $GOLDEN/plan/NAME.txt, so that a
 * change in any of them shows up as a diff in review, next to what the
 * other backends do with the same path. After a deliberate change,
 * regenerate them with
 *
 *	SBX_UPDATE_GOLDEN=1 make check TESTS=tests/unit/test-plan
 *
 * and read the diff. The filesystem is a stub held in memory (a table of
 * paths), the view is built from it the way sbx_resolve() builds one, so
 * the texts are the same on every machine. Besides the texts, a few rules
 * every Landlock-only plan must keep are checked on the rules themselves:
 * no existing secret readable, no protected path writable unless the
 * watch list or the name supervisor answers for it. And the jail plan of
 * each backend (jail.c) is checked to hold that backend's section and no
 * other lowering. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker-argv.h"
#include "jail.h"
#include "plan.h"
#include "policy.h"
#include "profile.h"
#include "resolve.h"
#include "seatbelt.h"
#include "tap.h"
#include "golden.h"

#define HOME "/home/alice"
#define PROJ HOME "/proj"
#define TMPDIR "/tmp/sbxrun-tmp.TEST"
#define ALICE 1000u
#define NOBODY 65534u

/* Who may read a path by its mode alone. */
enum seal {
	OPEN, /* everybody */
	ROOT_ONLY, /* root's, no bit for others (/etc/shadow) */
	ALICE_ONLY, /* alice's, mode 0700 or 0600: sealed from nobody only */
};

struct node {
	const char *path;
	char kind; /* 'd'irectory, 'f'ile, 'l'ink */
	const char *target; /* 'l': the link's content */
	enum seal seal;
};

/* A merged-/usr Debian root with alice's home, her project and a worktree,
 * mount sources in /srv and the devices. Every parent is listed before its
 * children. */
static const struct node nodes[] = {
	{ "/", 'd', NULL, OPEN },
	{ "/usr", 'd', NULL, OPEN },
	{ "/usr/bin", 'd', NULL, OPEN },
	{ "/usr/bin/sh", 'f', NULL, OPEN },
	{ "/usr/bin/git", 'f', NULL, OPEN },
	{ "/usr/sbin", 'd', NULL, OPEN },
	{ "/usr/lib", 'd', NULL, OPEN },
	{ "/usr/lib/libc.so.6", 'f', NULL, OPEN },
	{ "/usr/lib64", 'd', NULL, OPEN },
	{ "/bin", 'l', "usr/bin", OPEN },
	{ "/sbin", 'l', "usr/sbin", OPEN },
	{ "/lib", 'l', "usr/lib", OPEN },
	{ "/lib64", 'l', "usr/lib64", OPEN },
	{ "/etc", 'd', NULL, OPEN },
	{ "/etc/passwd", 'f', NULL, OPEN },
	{ "/etc/hosts", 'f', NULL, OPEN },
	{ "/etc/shadow", 'f', NULL, ROOT_ONLY },
	{ "/etc/gshadow", 'f', NULL, ROOT_ONLY },
	{ "/etc/sudoers", 'f', NULL, ROOT_ONLY },
	{ "/etc/sudoers.d", 'd', NULL, ROOT_ONLY },
	{ "/etc/ssh", 'd', NULL, OPEN },
	{ "/etc/ssh/ssh_config", 'f', NULL, OPEN },
	{ "/etc/ssh/ssh_host_ed25519_key", 'f', NULL, ROOT_ONLY },
	{ "/etc/ssh/ssh_host_rsa_key", 'f', NULL, ROOT_ONLY },
	{ "/opt", 'd', NULL, OPEN },
	{ "/opt/tool", 'd', NULL, OPEN },
	{ "/home", 'd', NULL, OPEN },
	{ HOME, 'd', NULL, OPEN },
	{ HOME "/.ssh", 'd', NULL, ALICE_ONLY },
	{ HOME "/.ssh/id_ed25519", 'f', NULL, ALICE_ONLY },
	{ HOME "/.aws", 'd', NULL, ALICE_ONLY },
	{ HOME "/.aws/credentials", 'f', NULL, ALICE_ONLY },
	/* A secret that is a link: its target is hidden too. */
	{ HOME "/.netrc", 'l', "dotfiles/netrc", OPEN },
	{ HOME "/dotfiles", 'd', NULL, OPEN },
	{ HOME "/dotfiles/netrc", 'f', NULL, ALICE_ONLY },
	{ HOME "/dotfiles/nvim", 'd', NULL, OPEN },
	{ HOME "/.bashrc", 'f', NULL, OPEN },
	{ HOME "/.profile", 'f', NULL, OPEN },
	{ HOME "/.gitconfig", 'f', NULL, OPEN },
	{ HOME "/.config", 'd', NULL, OPEN },
	{ HOME "/.config/gh", 'd', NULL, ALICE_ONLY },
	{ HOME "/.config/gh/hosts.yml", 'f', NULL, ALICE_ONLY },
	/* A dotfile manager's link on the way to a built-in protected path. */
	{ HOME "/.config/nvim", 'l', "../dotfiles/nvim", OPEN },
	{ HOME "/.config/tool", 'd', NULL, OPEN },
	{ HOME "/.config/tool/settings.json", 'f', NULL, OPEN },
	{ HOME "/datasets", 'd', NULL, OPEN },
	{ HOME "/datasets/a.csv", 'f', NULL, OPEN },
	/* The project: a repository, files the built-in list protects, a
	 * secret of its own, and a link where a mount could go. */
	{ PROJ, 'd', NULL, OPEN },
	{ PROJ "/.git", 'd', NULL, OPEN },
	{ PROJ "/.git/HEAD", 'f', NULL, OPEN },
	{ PROJ "/.git/config", 'f', NULL, OPEN },
	{ PROJ "/.git/hooks", 'd', NULL, OPEN },
	{ PROJ "/.git/hooks/pre-commit.sample", 'f', NULL, OPEN },
	{ PROJ "/.git/objects", 'd', NULL, OPEN },
	/* A submodule's repository: its hooks and config run like the top's. */
	{ PROJ "/.git/modules", 'd', NULL, OPEN },
	{ PROJ "/.git/modules/lib", 'd', NULL, OPEN },
	{ PROJ "/.git/modules/lib/config", 'f', NULL, OPEN },
	{ PROJ "/.git/modules/lib/hooks", 'd', NULL, OPEN },
	{ PROJ "/.envrc", 'f', NULL, OPEN },
	{ PROJ "/.vscode", 'd', NULL, OPEN },
	{ PROJ "/.vscode/tasks.json", 'f', NULL, OPEN },
	{ PROJ "/README.md", 'f', NULL, OPEN },
	{ PROJ "/src", 'd', NULL, OPEN },
	{ PROJ "/src/main.c", 'f', NULL, OPEN },
	{ PROJ "/config", 'd', NULL, OPEN },
	{ PROJ "/config/app.yml", 'f', NULL, OPEN },
	{ PROJ "/config/creds.json", 'f', NULL, OPEN },
	{ PROJ "/.env", 'f', NULL, OPEN },
	{ PROJ "/data", 'l', "/srv/data", OPEN },
	{ PROJ "/deploy", 'l', "config", OPEN },
	/* A project without a repository. */
	{ HOME "/scratch", 'd', NULL, OPEN },
	{ HOME "/scratch/main.py", 'f', NULL, OPEN },
	/* A git worktree: .git is a file naming the repository. */
	{ HOME "/wt", 'd', NULL, OPEN },
	{ HOME "/wt/.git", 'f', NULL, OPEN },
	{ HOME "/wt/lib.c", 'f', NULL, OPEN },
	{ "/srv", 'd', NULL, OPEN },
	{ "/srv/data", 'd', NULL, OPEN },
	{ "/srv/data/models", 'd', NULL, OPEN },
	{ "/srv/data/models/m.bin", 'f', NULL, OPEN },
	{ "/srv/data/private", 'd', NULL, OPEN },
	{ "/srv/data/private/key.pem", 'f', NULL, OPEN },
	{ "/srv/cache", 'd', NULL, OPEN },
	{ "/srv/notes.txt", 'f', NULL, OPEN },
	{ "/srv/models", 'l', "data/models", OPEN },
	{ "/dev", 'd', NULL, OPEN },
	{ "/dev/null", 'f', NULL, OPEN },
	{ "/dev/zero", 'f', NULL, OPEN },
	{ "/dev/full", 'f', NULL, OPEN },
	{ "/dev/random", 'f', NULL, OPEN },
	{ "/dev/urandom", 'f', NULL, OPEN },
	{ "/dev/tty", 'f', NULL, OPEN },
	{ "/dev/sda", 'f', NULL, ROOT_ONLY },
	{ "/dev/pts", 'd', NULL, OPEN },
	{ "/proc", 'd', NULL, OPEN },
	{ "/sys", 'd', NULL, OPEN },
	{ "/run", 'd', NULL, OPEN },
	{ "/tmp", 'd', NULL, OPEN },
	{ "/var", 'd', NULL, OPEN },
	{ "/var/lib", 'd', NULL, OPEN },
	{ "/root", 'd', NULL, ROOT_ONLY },
};

static const struct node *
lookup(const char *path)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(nodes); i++)
		if (strcmp(nodes[i].path, path) == 0)
			return &nodes[i];
	return NULL;
}

/* The stub's realpath: the canonical path of path, every link followed
 * (the last one too when follow_last), or NULL when it does not exist. */
static char *
stub_resolve(const char *path, bool follow_last)
{
	char *rest = sbx_xstrdup(path), *canon = sbx_xstrdup("/");
	const char *c = rest;
	int links = 0;

	for (;;) {
		size_t len;
		char *next;
		const struct node *n;

		c += strspn(c, "/");
		if (*c == '\0')
			break;
		len = strcspn(c, "/");
		if (len == 1 && c[0] == '.') {
			c += len;
			continue;
		}
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(canon, '/');

			if (slash == canon)
				canon[1] = '\0';
			else
				*slash = '\0';
			c += len;
			continue;
		}
		next = strcmp(canon, "/") == 0 ? sbx_xasprintf("/%.*s", (int)len, c)
					       : sbx_xasprintf("%s/%.*s", canon, (int)len, c);
		c += len;
		n = lookup(next);
		if (n == NULL) {
			free(next);
			goto none;
		}
		if (n->kind == 'l' && (follow_last || c[strspn(c, "/")] != '\0')) {
			char *joined;

			free(next);
			if (++links > 40)
				goto none;
			joined = sbx_xasprintf("%s/%s", n->target, c);
			free(rest);
			rest = joined;
			c = rest;
			if (n->target[0] == '/') {
				free(canon);
				canon = sbx_xstrdup("/");
			}
			continue;
		}
		free(canon);
		canon = next;
	}
	free(rest);
	return canon;
none:
	free(rest);
	free(canon);
	return NULL;
}

/* Whose filesystem facts: the sandbox's uid decides what is sealed. */
struct stub {
	unsigned uid;
};

static enum sbx_file_kind
stub_kind(void *ctx, const char *path, char **target)
{
	_cleanup_free_ char *canon = stub_resolve(path, false);
	const struct node *n = canon ? lookup(canon) : NULL;

	(void)ctx;
	if (n == NULL)
		return SBX_KIND_NONE;
	switch (n->kind) {
	case 'd': return SBX_KIND_DIR;
	case 'l':
		if (target)
			*target = sbx_xstrdup(n->target);
		return SBX_KIND_SYMLINK;
	default: return SBX_KIND_FILE;
	}
}

static int
stub_list(void *ctx, const char *dir, struct sbx_strv *names)
{
	_cleanup_free_ char *canon = stub_resolve(dir, true);
	const struct node *d = canon ? lookup(canon) : NULL;
	size_t len;

	(void)ctx;
	if (d == NULL || d->kind != 'd') {
		errno = ENOTDIR;
		return -1;
	}
	len = strcmp(canon, "/") == 0 ? 0 : strlen(canon);
	for (size_t i = 0; i < SBX_ARRAY_LEN(nodes); i++) {
		const char *p = nodes[i].path;

		if (strncmp(p, canon, len) == 0 && p[len] == '/' && p[len + 1] != '\0' &&
		    strchr(p + len + 1, '/') == NULL)
			sbx_strv_push(names, p + len + 1);
	}
	return 0;
}

static bool
stub_sealed(void *ctx, const char *path)
{
	const struct stub *s = ctx;
	_cleanup_free_ char *canon = stub_resolve(path, true);
	const struct node *n = canon ? lookup(canon) : NULL;

	if (n == NULL)
		return false;
	return n->seal == ROOT_ONLY || (n->seal == ALICE_ONLY && s->uid != ALICE);
}

/* The stub's facts as the sandbox of who sees them. */
static struct sbx_fsfacts
stub_facts(struct stub *who)
{
	return (struct sbx_fsfacts){
		.ctx = who,
		.kind = stub_kind,
		.list = stub_list,
		.sealed = stub_sealed,
	};
}

/* The table must be a tree: each entry's parent a directory listed
 * before it. */
static void
check_stub(void)
{
	for (size_t i = 1; i < SBX_ARRAY_LEN(nodes); i++) {
		_cleanup_free_ char *parent = sbx_xstrdup(nodes[i].path);
		const struct node *p;

		*strrchr(parent, '/') = '\0';
		p = lookup(parent[0] ? parent : "/");
		if (p == NULL || p->kind != 'd' || p >= &nodes[i]) {
			printf(
			    "Bail out! stub entry %s has no directory before it\n", nodes[i].path);
			exit(1);
		}
	}
}

/* What sbx_resolve() would make of p on the stub: the secret list of the
 * home, the system one and [deny], each as written and resolved, glob
 * patterns matched against the table; the system roots present; read
 * paths and mount sources canonical. Refusals and skipped paths are
 * returned as text in *said. (Not modelled: the widening of the hidden
 * list by directories that cannot be searched and by mount aliases, and
 * the hard-link check; test-secrets.c covers those.) */
static void
fake_resolve(struct sbx_policy *p, const char *workdir, struct sbx_fsview *v, struct sbx_buf *said)
{
	struct sbx_strv raw = { 0 };

	memset(v, 0, sizeof(*v));
	v->workdir = sbx_xstrdup(workdir);
	sbx_strv_push(&v->homes, HOME);
	v->workdir_home = strcmp(workdir, HOME) == 0;
	sbx_secret_list(HOME, &raw);
	sbx_secret_list_system(&raw);
	sbx_strv_copy(&raw, &p->deny);
	for (size_t i = 0; i < raw.n; i++) {
		struct sbx_strv found = { 0 };

		if (strpbrk(raw.v[i], "*?[") == NULL)
			sbx_strv_push(&found, raw.v[i]);
		for (size_t k = 0; k < SBX_ARRAY_LEN(nodes) && found.n == 0; k++)
			if (fnmatch(raw.v[i], nodes[k].path, FNM_PATHNAME | FNM_PERIOD) == 0)
				sbx_strv_push(&found, nodes[k].path);
		for (size_t k = 0; k < SBX_ARRAY_LEN(nodes) && strpbrk(raw.v[i], "*?["); k++)
			if (fnmatch(raw.v[i], nodes[k].path, FNM_PATHNAME | FNM_PERIOD) == 0 &&
			    !sbx_strv_contains(&found, nodes[k].path))
				sbx_strv_push(&found, nodes[k].path);
		for (size_t k = 0; k < found.n; k++) {
			_cleanup_free_ char *real = stub_resolve(found.v[k], true);

			if (!sbx_strv_contains(&v->hidden, found.v[k]))
				sbx_strv_push(&v->hidden, found.v[k]);
			if (real && !sbx_strv_contains(&v->hidden, real))
				sbx_strv_push(&v->hidden, real);
		}
		sbx_strv_free(&found);
	}
	sbx_strv_free(&raw);
	for (size_t i = 0; sbx_system_roots[i]; i++) {
		_cleanup_free_ char *real = stub_resolve(sbx_system_roots[i], true);

		if (real)
			sbx_strv_push(&v->roots, sbx_system_roots[i]);
	}
	for (size_t i = 0; i < p->read.n; i++) {
		char *real = stub_resolve(p->read.v[i], true);

		if (real == NULL)
			sbx_buf_printf(said, "warning: read path '%s' does not exist; skipped\n",
			    p->read.v[i]);
		else if (!sbx_strv_contains(&v->read, real))
			sbx_strv_push(&v->read, real);
		free(real);
	}
	for (size_t i = 0; i < p->nmounts; i++) {
		struct sbx_mount *m = &p->mounts[i];
		char *real = stub_resolve(m->source, true);
		_cleanup_free_ char *dst = sbx_path_join(workdir, m->target);

		if (real) {
			free(m->source);
			m->source = real;
		}
		/* resolve's check_target: no component may be a link. */
		for (char *c = dst + strlen(workdir) + 1;; c++) {
			char saved = *c;
			const struct node *n;

			if (saved != '/' && saved != '\0')
				continue;
			*c = '\0';
			n = lookup(dst);
			*c = saved;
			if (n && n->kind == 'l') {
				sbx_buf_printf(said,
				    "refused by resolve: mount target '%s' passes through the "
				    "symlink %s\n",
				    m->target, strrchr(n->path, '/') + 1);
				break;
			}
			if (saved == '\0')
				break;
		}
	}
}

static void
put_list(struct sbx_buf *out, const char *what, const struct sbx_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		sbx_buf_printf(out, "%s %s\n", what, sv->v[i]);
}

/* The rights the rules of plan give on path: Landlock grants an access
 * when a rule on the path or on any directory above it grants it. */
static unsigned
effective(const struct sbx_plan *plan, const char *path)
{
	unsigned a = 0;

	for (size_t i = 0; i < plan->nrules; i++)
		if (sbx_path_is_under(path, plan->rules[i].path))
			a |= plan->rules[i].access;
	return a;
}

/* The rules a Landlock-only plan must keep, whatever the text says. */
static void
check_ll_plan(const char *name, const char *section, const struct sbx_plan *plan,
    const struct sbx_policy *p, const struct sbx_fsview *v, const struct stub *who)
{
	struct sbx_strv prot = { 0 };
	bool good = true;

	for (size_t i = 0; i < v->hidden.n; i++) {
		const char *h = v->hidden.v[i];
		_cleanup_free_ char *real = stub_resolve(h, false);
		const struct node *n = real ? lookup(real) : NULL;

		if (n == NULL || n->kind == 'l' || stub_sealed((void *)who, h))
			continue;
		if (effective(plan, h) & (SBX_LL_READ | SBX_LL_WRITE)) {
			diag("%s, %s: the secret %s can be read or written", name, section, h);
			good = false;
		}
	}
	ok(good, "%s, %s: no secret that exists is readable or writable", name, section);

	good = true;
	sbx_protect_list(p, v, &prot);
	for (size_t i = 0; i < prot.n; i++) {
		_cleanup_free_ char *path = sbx_path_join(v->workdir, prot.v[i]);
		const struct node *n = lookup(path);

		if (n == NULL || n->kind == 'l' || sbx_strv_contains(&plan->watch, prot.v[i]))
			continue;
		if ((effective(plan, path) & SBX_LL_WRITE) && !plan->guard_names) {
			diag("%s, %s: the protected %s is writable", name, section, path);
			good = false;
		}
	}
	/* git reads far more than hooks and config (a commondir, worktree
	 * configs, each submodule's hooks and config): all of an existing
	 * .git stays read-only, as under the namespaces backend (by the
	 * supervisor when it judges names, since the workdir's write rights
	 * then reach everything below it). */
	if (!plan->guard_names) {
		_cleanup_free_ char *git = sbx_path_join(v->workdir, ".git");
		const struct node *g = lookup(git);

		for (size_t i = 0; g && g->kind == 'd' && i < SBX_ARRAY_LEN(nodes); i++)
			if (sbx_path_is_under(nodes[i].path, git) && nodes[i].kind != 'l' &&
			    (effective(plan, nodes[i].path) & SBX_LL_WRITE)) {
				diag("%s, %s: %s is writable", name, section, nodes[i].path);
				good = false;
			}
	}
	ok(good,
	    "%s, %s: no protected path is writable but through the watch list or the name "
	    "supervisor, nor anything in .git",
	    name, section);
	sbx_strv_free(&prot);
}

/* A secret that does not exist when the run starts and is made during it,
 * below a directory of a read-only tree the sandbox may search (the
 * caller's home under open or allowlist), must get no right to be read
 * from the rules of any Linux lowering: no mount can cover a name that is
 * not there. The system list's names are left to the modes root gives
 * them (plan.c, absent_mark()). */
static void
check_absent(const char *name, const char *section, const struct sbx_plan *plan,
    const struct sbx_fsview *v, const struct stub *who)
{
	struct sbx_strv sys = { 0 };
	bool good = true, seen = false;

	sbx_secret_list_system(&sys);
	for (size_t i = 0; i < v->hidden.n; i++) {
		const char *h = v->hidden.v[i];
		_cleanup_free_ char *real = stub_resolve(h, false);
		_cleanup_free_ char *up = sbx_xstrdup(h);
		const struct node *a = NULL;
		bool system = false;
		unsigned at;

		for (size_t k = 0; k < sys.n; k++)
			system |= fnmatch(sys.v[k], h, FNM_PATHNAME) == 0;
		if ((real && lookup(real)) || system)
			continue;
		while (a == NULL && strrchr(up, '/') != NULL) {
			*strrchr(up, '/') = '\0';
			a = lookup(up[0] ? up : "/");
		}
		if (a == NULL || a->kind != 'd' || stub_sealed((void *)who, a->path))
			continue;
		at = effective(plan, a->path);
		if (!(at & SBX_LL_LIST) || (at & SBX_LL_WRITE))
			continue;
		seen = true;
		if (effective(plan, h) & SBX_LL_READ) {
			diag("%s, %s: %s, made during the run, could be read", name, section, h);
			good = false;
		}
	}
	ok(good,
	    "%s, %s: no secret made during the run below a visible read-only tree is "
	    "readable%s",
	    name, section, seen ? "" : " (none here)");
	sbx_strv_free(&sys);
}

/* The view without facts (what test-seatbelt.c's profiles lower, judging
 * names alone) must hold the same decisions as the one the backends lower:
 * every entry of it is in the full view with the same disposition (a
 * placeholder there is a protected name here). */
static void
check_names_only(const char *name, const struct sbx_policy *p, const struct sbx_fsview *v,
    const struct sbx_fsplan *full)
{
	struct sbx_fsplan bare;
	struct sbx_err err = { 0 };
	bool good = true;

	if (sbx_fsplan_build(p, v, NULL, &bare, &err) < 0) {
		ok(false, "view without facts: %s", err.msg);
		return;
	}
	for (size_t i = 0; i < bare.n; i++) {
		const struct sbx_fsentry *e = &bare.v[i];
		bool found = false;

		for (size_t k = 0; k < full->n && !found; k++) {
			const struct sbx_fsentry *f = &full->v[k];
			enum sbx_fsdisp d =
			    f->disp == SBX_FSD_PLACEHOLDER ? SBX_FSD_PROTECTED : f->disp;

			found =
			    strcmp(f->path, e->path) == 0 && f->origin == e->origin && d == e->disp;
		}
		if (!found) {
			diag("%s (%u) is not in the view with facts", e->path, (unsigned)e->disp);
			good = false;
		}
	}
	ok(good, "%s: the view without facts makes the same decisions", name);
	sbx_fsplan_free(&bare);
}

/* The filesystem view every lowering starts from, built on the stub's
 * facts (its kinds do not depend on the sandbox's uid). */
static void
describe_view(
    struct sbx_buf *out, const char *name, const struct sbx_policy *p, const struct sbx_fsview *v)
{
	struct stub who = { .uid = ALICE };
	struct sbx_fsfacts facts = stub_facts(&who);
	struct sbx_fsplan view;
	struct sbx_err err = { 0 };

	sbx_buf_puts(out, "\n== filesystem view (fsplan.c, on the stub's facts)\n");
	if (sbx_fsplan_build(p, v, &facts, &view, &err) < 0) {
		sbx_buf_printf(out, "error: %s\n", err.msg);
		return;
	}
	sbx_fsplan_describe(&view, out);
	check_names_only(name, p, v, &view);
	sbx_fsplan_free(&view);
}

/* A plan as text: the mount table and the Landlock rules, the trees the
 * parent makes and the lists the backends act on. */
static void
plan_text(struct sbx_buf *out, const struct sbx_plan *plan)
{
	sbx_plan_describe(plan, out);
	for (size_t i = 0; i < plan->ntrees; i++)
		sbx_buf_printf(out, "tree %d %s%s%s%s\n", (int)i, plan->trees[i].src,
		    plan->trees[i].flags & SBX_OPF_RO ? " ro" : " rw",
		    plan->trees[i].idmap ? " idmap" : "", plan->trees[i].dev ? " dev" : "");
	put_list(out, "created", &plan->created);
	put_list(out, "frozen", &plan->frozen);
	put_list(out, "scrub", &plan->scrub);
	put_list(out, "held", &plan->held);
	for (size_t i = 0; i + 1 < plan->scrub_trees.n; i += 2)
		sbx_buf_printf(
		    out, "scrub %s in %s\n", plan->scrub_trees.v[i + 1], plan->scrub_trees.v[i]);
	put_list(out, "watch", &plan->watch);
	put_list(out, "guarded", &plan->guarded);
	if (plan->guard_names)
		sbx_buf_puts(out, "guard_names: the supervisor judges names below the workdir\n");
}

/* One lowering of p through sbx_plan_build() as a section of out. */
static void
lower(struct sbx_buf *out, const char *name, const char *section, const struct sbx_policy *p,
    const struct sbx_fsview *v, const struct sbx_plan_opts *opts, unsigned uid)
{
	struct stub who = { .uid = uid };
	struct sbx_fsfacts facts = stub_facts(&who);
	struct sbx_plan plan;
	struct sbx_err err = { 0 };

	sbx_buf_printf(out, "\n== %s\n", section);
	if (sbx_plan_build(p, v, &facts, opts, &plan, &err) < 0) {
		sbx_buf_printf(out, "error: %s\n", err.msg);
		return;
	}
	plan_text(out, &plan);
	if (!opts->mounts)
		check_ll_plan(name, section, &plan, p, v, &who);
	check_absent(name, section, &plan, v, &who);
	sbx_plan_free(&plan);
}

/* The docker backend's lowering of the view as a section of out: the
 * --mount options of its command line, what it moves aside after the run,
 * and what it cannot hold. */
static void
lower_docker(
    struct sbx_buf *out, const struct sbx_policy *p, const struct sbx_fsview *v, unsigned uid)
{
	struct stub who = { .uid = uid };
	struct sbx_fsfacts facts = stub_facts(&who);
	struct sbx_fsplan view;
	struct sbx_docker_binds b;
	struct sbx_strv argv = { 0 };
	struct sbx_err err = { 0 };

	sbx_buf_puts(out, "\n== docker (the filesystem options of docker run)\n");
	if (sbx_fsplan_build(p, v, &facts, &view, &err) < 0 ||
	    sbx_docker_binds_lower(&view, &b, &err) < 0) {
		sbx_buf_printf(out, "error: %s\n", err.msg);
		sbx_fsplan_free(&view);
		return;
	}
	sbx_docker_mount_argv(view.workdir, b.v, b.n, &argv);
	for (size_t i = 0; i < argv.n; i++)
		sbx_buf_printf(out, "%s\n", argv.v[i]);
	put_list(out, "scrub", &b.scrub);
	put_list(out, "# note:", &b.notes);
	sbx_strv_free(&argv);
	sbx_docker_binds_free(&b);
	sbx_fsplan_free(&view);
}

/* p lowered by sbx_plan_build() with opts on the stub, as the text of
 * plan_text(), for the jail's checks. */
static char *
plan_with(const struct sbx_policy *p, const struct sbx_fsview *v, const struct sbx_plan_opts *opts,
    struct sbx_fsfacts *facts)
{
	struct sbx_buf out = { 0 };
	struct sbx_plan plan;
	struct sbx_err err = { 0 };

	if (sbx_plan_build(p, v, facts, opts, &plan, &err) < 0)
		return sbx_xasprintf("error: %s\n", err.msg);
	plan_text(&out, &plan);
	sbx_plan_free(&plan);
	return out.data ? out.data : sbx_xstrdup("");
}

/* The lowering the jail plan of each backend holds (jail.c) is the one
 * that backend's golden section shows, built with the options that
 * backend and caller call for, and no other; its supervisor's
 * configuration is sbx_supcfg_make()'s. names: the machine lets the name
 * supervisor take the sandbox's descriptors (caps.pidfd_getfd). */
static void
check_jail(const char *name, const struct sbx_policy *p, const struct sbx_fsview *v,
    enum sbx_backend_id backend, unsigned uid, bool names)
{
	struct stub who = { .uid = uid == 0 ? NOBODY : uid };
	struct sbx_fsfacts facts = stub_facts(&who);
	struct sbx_caps caps = {
		.caller_uid = uid,
		.landlock_abi = 7,
		.seccomp = true,
		.seccomp_notify = true,
		.pidfd_getfd = names,
	};
	struct sbx_exec x = {
		.fs = v,
		.tmpdir = backend == SBX_BACKEND_LANDLOCK ? TMPDIR : NULL,
		.caller_uid = uid,
		.caller_gid = uid,
	};
	struct sbx_jail_in in = {
		.policy = p,
		.fs = v,
		.caps = &caps,
		.exec = &x,
		.backend = backend,
		.facts = &facts,
		.euid = uid,
	};
	struct sbx_supcfg_in sin = {
		.policy = p,
		.fs = v,
		.backend = backend,
		.tmpdir = x.tmpdir,
		.uid = uid,
		.euid = uid,
	};
	_cleanup_free_ char *what = sbx_xasprintf("%s: jail %s, uid %u%s", name,
	    sbx_backend_name(backend), uid, names ? "" : ", no pidfd_getfd");
	_cleanup_free_ char *got = NULL, *want = NULL, *cfg_got = NULL, *cfg_want = NULL;
	struct sbx_supcfg cfg;
	struct sbx_jail j;
	struct sbx_err err = { 0 };
	bool linux_plan = backend == SBX_BACKEND_NAMESPACES || backend == SBX_BACKEND_LANDLOCK;

	if (sbx_jail_build(&in, &j, &err) < 0) {
		ok(false, "%s: built (%s)", what, err.msg);
		return;
	}
	ok((j.view.n > 0) == (backend != SBX_BACKEND_NONE), "%s: the view is built", what);
	ok(j.has_plan == linux_plan, "%s: a mount and Landlock plan only for Linux", what);
	ok((j.profile.len > 0) == (backend == SBX_BACKEND_SEATBELT),
	    "%s: a Seatbelt profile only for seatbelt", what);
	ok(j.has_binds == (backend == SBX_BACKEND_DOCKER), "%s: docker binds only for docker",
	    what);
	if (backend == SBX_BACKEND_NAMESPACES) {
		const struct sbx_plan_opts o = {
			.mounts = true,
			.parent_trees = uid == 0,
			.idmap_rw = uid == 0,
		};
		struct sbx_buf b = { 0 };

		plan_text(&b, &j.plan);
		got = b.data;
		want = plan_with(p, v, &o, &facts);
		is_str(got, want, "%s: the mount table and rules of the golden section", what);
		ok(j.plan.nops > 0, "%s: mount operations", what);
	} else if (backend == SBX_BACKEND_LANDLOCK) {
		const struct sbx_plan_opts o = { .tmpdir = TMPDIR,
			.watch = true,
			.guard_names = names },
					   bare = { .tmpdir = TMPDIR, .guard_names = names };
		struct sbx_buf b = { 0 }, u = { 0 };
		struct sbx_plan unwatched;
		_cleanup_free_ char *want_u = plan_with(p, v, &bare, &facts);

		plan_text(&b, &j.plan);
		got = b.data;
		want = plan_with(p, v, &o, &facts);
		is_str(got, want, "%s: the Landlock rules of the golden section", what);
		ok(j.plan.nops == 0, "%s: no mount operation", what);
		sbx_jail_plan_unwatched(&j, &unwatched);
		plan_text(&u, &unwatched);
		is_str(u.data, want_u, "%s: the fallback without a watch list", what);
		ok(unwatched.watch.n == 0, "%s: ... watches nothing", what);
		sbx_plan_free(&unwatched);
		sbx_buf_free(&u);
	} else if (backend == SBX_BACKEND_SEATBELT) {
		const struct sbx_seatbelt_opts so = { .facts = &facts };
		struct sbx_buf b = { 0 };

		if (sbx_seatbelt_profile(p, v, &so, &b, &err) < 0)
			b.data = sbx_xasprintf("error: %s", err.msg);
		want = b.data;
		is_str(j.profile.data, want, "%s: the profile of the golden section", what);
	} else if (backend == SBX_BACKEND_DOCKER) {
		struct sbx_strv argv = { 0 };
		struct sbx_buf b = { 0 };

		sbx_docker_mount_argv(j.view.workdir, j.binds.v, j.binds.n, &argv);
		for (size_t i = 0; i < argv.n; i++)
			sbx_buf_printf(&b, "%s\n", argv.v[i]);
		put_list(&b, "scrub", &j.binds.scrub);
		put_list(&b, "# note:", &j.binds.notes);
		got = b.data ? b.data : sbx_xstrdup("");
		{
			struct sbx_buf w = { 0 };

			lower_docker(&w, p, v, uid == 0 ? NOBODY : uid);
			/* lower_docker() starts with its section's title. */
			want = sbx_xstrdup(strchr(w.data + 1, '\n') + 1);
			sbx_buf_free(&w);
		}
		is_str(got, want, "%s: the binds of the golden section", what);
		is_int((intmax_t)j.warnings.n, (intmax_t)j.binds.notes.n,
		    "%s: each note of the binds is a warning", what);
		sbx_strv_free(&argv);
	}
	sin.view = &j.view;
	sbx_supcfg_make(&sin, &cfg);
	cfg_got = sbx_supcfg_render(&j.supcfg);
	cfg_want = sbx_supcfg_render(&cfg);
	is_str(cfg_got, cfg_want, "%s: the supervisor's configuration", what);
	sbx_supcfg_free(&cfg);
	sbx_jail_free(&j);
}

static void
check_jails(const char *name, const struct sbx_policy *p, const struct sbx_fsview *v)
{
	check_jail(name, p, v, SBX_BACKEND_NAMESPACES, 0, true);
	check_jail(name, p, v, SBX_BACKEND_NAMESPACES, ALICE, true);
	check_jail(name, p, v, SBX_BACKEND_LANDLOCK, ALICE, true);
	check_jail(name, p, v, SBX_BACKEND_LANDLOCK, ALICE, false);
	check_jail(name, p, v, SBX_BACKEND_SEATBELT, ALICE, true);
	check_jail(name, p, v, SBX_BACKEND_DOCKER, ALICE, true);
	check_jail(name, p, v, SBX_BACKEND_NONE, ALICE, true);
}

struct policy_case {
	const char *name;
	const char *what;
	const char *workdir;
	const char *ini;
};

static const struct policy_case policies[] = {
	{ "strict-git", "the default policy, strict, in a repository", PROJ, "" },
	{ "strict-nogit", "the default policy in a directory without .git", HOME "/scratch", "" },
	{ "worktree", "a git worktree: .git is a file", HOME "/wt", "" },
	{ "deny-in-workdir", "[deny] entries inside the workdir, one through a link", PROJ,
	    "[deny]\npath = ~/proj/config/creds.json\npath = ~/proj/.env\n"
	    "path = ~/proj/deploy/app.yml\n" },
	{ "home-workdir", "the home as the workdir: its secrets lie inside", HOME, "" },
	{ "mounts", "ro and rw mounts, a file mount, a source through a link", PROJ,
	    "[mounts]\nin/models = /srv/models:ro\ncache = /srv/cache:rw\n"
	    "notes.txt = /srv/notes.txt:ro\n" },
	{ "mount-secret", "a read-write mount's source holding a missing secret", PROJ,
	    "[mounts]\ncfg = ~/.config:rw\n" },
	{ "mount-on-link", "a mount target that is a symlink in the workdir", PROJ,
	    "[mounts]\ndata = /srv/cache:rw\n" },
	{ "allowlist", "allowlist mode: read paths beside secrets and private neighbours",
	    HOME "/scratch",
	    "[sandbox]\nfs = allowlist\n"
	    "[read]\npath = /srv/models\npath = ~/.config\npath = ~/datasets\n"
	    "path = /srv/missing\n"
	    "[deny]\npath = /srv/data/private\n" },
	{ "open", "open mode: the whole root but the secret list", PROJ,
	    "[sandbox]\nfs = open\n[deny]\npath = /srv/data/private\n" },
	{ "protect", "[protect] entries: a file, a directory, a missing path, a link", PROJ,
	    "[protect]\npath = README.md\npath = src\npath = build/out\npath = deploy\n" },
	{ "no-protect-defaults", "protect_defaults = no in the home: only .git and [protect]", HOME,
	    "[sandbox]\nprotect_defaults = no\n[protect]\npath = .bashrc\n" },
};

static void
load(struct sbx_policy *p, const char *text)
{
	struct sbx_err err = { 0 };

	sbx_policy_init(p, HOME);
	if (sbx_profile_load_string(p, "t.ini", text, &err) < 0 || sbx_policy_check(p, &err) < 0) {
		printf("Bail out! test profile refused: %s\n", err.msg);
		exit(1);
	}
}

static void
run_case(const struct policy_case *c)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_buf out = { 0 }, said = { 0 }, sb = { 0 };
	struct sbx_err err = { 0 };
	const struct sbx_plan_opts ns_root = { .mounts = true,
		.parent_trees = true,
		.idmap_rw = true },
				   ns_user = { .mounts = true },
				   ll = { .tmpdir = TMPDIR, .watch = true, .guard_names = true },
				   ll_bare = { .tmpdir = TMPDIR };
	struct stub who = { .uid = ALICE };
	struct sbx_fsfacts facts = stub_facts(&who);
	const struct sbx_seatbelt_opts sb_opts = { .facts = &facts };

	load(&p, c->ini);
	fake_resolve(&p, c->workdir, &v, &said);
	sbx_buf_printf(&out, "# %s: %s (tests/unit/test-plan.c)\n", c->name, c->what);
	sbx_buf_printf(&out, "# workdir %s; profile:\n", c->workdir);
	for (const char *l = c->ini; *l;) {
		size_t n = strcspn(l, "\n");

		sbx_buf_printf(&out, "#   %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	sbx_buf_puts(&out, "\n== view (as resolve makes it)\n");
	sbx_buf_printf(&out, "workdir %s%s\n", v.workdir, v.workdir_home ? " (the home)" : "");
	put_list(&out, "root", &v.roots);
	put_list(&out, "read", &v.read);
	put_list(&out, "hidden", &v.hidden);
	for (size_t i = 0; i < p.nmounts; i++)
		sbx_buf_printf(&out, "mount %s <- %s %s\n", p.mounts[i].target, p.mounts[i].source,
		    p.mounts[i].rw ? "rw" : "ro");
	if (said.data)
		sbx_buf_puts(&out, said.data);
	describe_view(&out, c->name, &p, &v);

	lower(&out, c->name,
	    "namespaces, root caller (parent trees, idmapped rw, sandbox uid 65534)", &p, &v,
	    &ns_root, NOBODY);
	lower(&out, c->name, "namespaces, caller uid 1000", &p, &v, &ns_user, ALICE);
	lower(&out, c->name,
	    "landlock, caller uid 1000 (private TMPDIR, watch list, name supervisor)", &p, &v, &ll,
	    ALICE);
	lower(&out, c->name,
	    "landlock, caller uid 1000, no watch list and no name supervisor (the fallback)", &p,
	    &v, &ll_bare, ALICE);

	sbx_buf_puts(&out, "\n== seatbelt\n");
	if (sbx_seatbelt_profile(&p, &v, &sb_opts, &sb, &err) < 0)
		sbx_buf_printf(&out, "error: %s\n", err.msg);
	else
		sbx_buf_puts(&out, sb.data);
	lower_docker(&out, &p, &v, ALICE);
	golden_check("plan", c->name, "txt", out.data);
	check_jails(c->name, &p, &v);
	sbx_buf_free(&sb);
	sbx_buf_free(&said);
	sbx_buf_free(&out);
	sbx_fsview_free(&v);
	sbx_policy_free(&p);
}

/* The stub itself: links are followed as the kernel follows them. */
static void
test_stub(void)
{
	static const struct {
		const char *path;
		bool follow;
		const char *want;
	} cases[] = {
		{ "/bin/sh", true, "/usr/bin/sh" },
		{ "/bin", false, "/bin" },
		{ "/bin", true, "/usr/bin" },
		{ HOME "/.config/nvim", true, HOME "/dotfiles/nvim" },
		{ PROJ "/data/models", true, "/srv/data/models" },
		{ PROJ "/deploy/app.yml", true, PROJ "/config/app.yml" },
		{ "/srv/missing", true, NULL },
		{ "/usr/../etc/hosts", true, "/etc/hosts" },
	};
	struct stub who = { .uid = ALICE };
	struct sbx_strv names = { 0 };

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		char *got = stub_resolve(cases[i].path, cases[i].follow);

		is_str(got, cases[i].want, "stub: %s%s", cases[i].path,
		    cases[i].follow ? "" : " (last link kept)");
		free(got);
	}
	is_int(stub_kind(&who, "/bin", NULL), SBX_KIND_SYMLINK, "stub: /bin is a link");
	is_int(stub_kind(&who, "/bin/git", NULL), SBX_KIND_FILE, "stub: /bin/git a file");
	is_int(stub_list(&who, "/lib", &names), 0, "stub: /lib lists");
	ok(names.n == 1 && strcmp(names.v[0], "libc.so.6") == 0, "stub: what /usr/lib holds");
	ok(stub_sealed(&who, HOME "/.ssh") == false, "stub: alice's .ssh is open to her");
	who.uid = NOBODY;
	ok(stub_sealed(&who, HOME "/.ssh"), "stub: ... and sealed from nobody");
	ok(stub_sealed(&who, "/etc/shadow"), "stub: /etc/shadow is sealed");
	sbx_strv_free(&names);
}

int
main(void)
{
	golden_init();

	check_stub();
	test_stub();
	for (size_t i = 0; i < SBX_ARRAY_LEN(policies); i++)
		run_case(&policies[i]);
	return done_testing();
}
