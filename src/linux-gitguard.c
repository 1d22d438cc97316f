#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux-gitguard.h"
#include "linux-owner.h"

/* The top-level names that make the workdir itself a repository for git
 * (its is_git_directory(): a HEAD, and objects/ and refs/ here or in the
 * directory commondir names), and the config that would come with them. */
static const char *const bare_names[] = { "HEAD", "objects", "refs", "config", "commondir" };
enum { B_HEAD = 1, B_OBJECTS = 2, B_REFS = 4, B_CONFIG = 8, B_COMMONDIR = 16, B_DOTGIT = 32 };

/* How many entries the search for deeper repositories looks at, and how
 * many of those it finds a warning names. */
#define SCAN_MAX 1000000
#define NAMED_MAX 8

struct sbx_gitguard {
	char *workdir;
	int wd; /* O_PATH, opened before the run */
	unsigned before; /* B_* bits of what was there */
	struct timespec start; /* the file system's clock when the run began */
	void (*cleanup)(struct sbx_child *c, struct sbx_report *r); /* the backend's own */
	void *priv;
	struct sbx_report *report; /* during the cleanup only, or NULL */
};

static unsigned
top_level(int wd)
{
	unsigned bits = 0;
	struct stat st;

	for (size_t i = 0; i < SBX_ARRAY_LEN(bare_names); i++)
		if (fstatat(wd, bare_names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			bits |= 1u << i;
	if (fstatat(wd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
		bits |= B_DOTGIT;
	return bits;
}

static bool
is_repo(unsigned bits)
{
	return (bits & B_HEAD) &&
	    ((bits & (B_OBJECTS | B_REFS)) == (B_OBJECTS | B_REFS) || (bits & B_COMMONDIR));
}

struct sbx_gitguard *
sbx_gitguard_new(const char *workdir)
{
	struct sbx_gitguard *g;
	int wd = open(workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (wd < 0)
		return NULL;
	g = sbx_xcalloc(1, sizeof(*g));
	g->workdir = sbx_xstrdup(workdir);
	g->wd = wd;
	g->before = top_level(wd);
	/* Inode times come from the coarse clock: the fine one may be ahead
	 * of what the first file made in the run records. */
	clock_gettime(CLOCK_REALTIME_COARSE, &g->start);
	return g;
}

void
sbx_gitguard_free(struct sbx_gitguard *g)
{
	if (g == NULL)
		return;
	close(g->wd);
	free(g->workdir);
	free(g);
}

char *
sbx_move_aside(int wd, const char *workdir, const char *rel, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);
	char *name = copy, *slash;
	int dir = wd >= 0 ? fcntl(wd, F_DUPFD_CLOEXEC, 3)
			  : open(workdir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;

	if (dir < 0) {
		sbx_err_sys(err, "cannot open %s", workdir);
		return NULL;
	}
	while ((slash = strchr(name, '/')) != NULL) {
		int next;

		*slash = '\0';
		next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (next < 0)
			return NULL; /* not there, or not a directory: nothing below */
		dir = next;
		*slash = '/';
		name = slash + 1;
	}
	if (fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
		close(dir);
		return NULL;
	}
	for (int n = 1; n <= 100; n++) {
		_cleanup_free_ char *aside = sbx_xasprintf("%s.sbxrun-untrusted.%d", name, n);

		if (renameat2(dir, name, dir, aside, RENAME_NOREPLACE) == 0) {
			close(dir);
			return sbx_xasprintf("%.*s%s", (int)(name - copy), copy, aside);
		}
		if (errno != EEXIST)
			break;
	}
	sbx_err_sys(err, "cannot move %s/%s aside", workdir, rel);
	close(dir);
	return NULL;
}

/* What the search for deeper repositories found. */
struct scan {
	const struct sbx_gitguard *g;
	size_t root_len;
	size_t seen, found;
	struct sbx_buf named;
};

static bool
made_in_run(const struct sbx_gitguard *g, const struct stat *st)
{
	return st->st_ctim.tv_sec > g->start.tv_sec ||
	    (st->st_ctim.tv_sec == g->start.tv_sec && st->st_ctim.tv_nsec >= g->start.tv_nsec);
}

static void
found(struct scan *s, const char *path)
{
	const char *rel = path + s->root_len + (path[s->root_len] == '/');

	if (s->found++ < NAMED_MAX)
		sbx_buf_printf(&s->named, "%s%s", s->named.len ? ", " : "", rel);
}

/* A directory is a repository made or changed in the run when it is a
 * .git (or a .git file, the gitdir: pointer of a worktree) whose inode
 * changed since the start, or holds a HEAD that did, next to objects/ and
 * refs/ (a bare one). The top level is sbx_gitguard's own business. */
static int
scan_visit(void *ctx, int fd, const struct stat *st, const char *path)
{
	struct scan *s = ctx;
	const char *rel = path + s->root_len + 1, *base;
	bool top;
	struct stat h;

	if (++s->seen > SCAN_MAX)
		return 1;
	if (strlen(path) <= s->root_len || path[s->root_len] != '/')
		return 0; /* the workdir itself, or a path past PATH_MAX */
	base = strrchr(rel, '/');
	top = base == NULL;
	base = top ? rel : base + 1;
	if (strcmp(base, ".git") == 0) {
		if (!top && made_in_run(s->g, st))
			found(s, path);
		return 0;
	}
	/* What sbx_move_aside() put there is named in its own warning. */
	if (!S_ISDIR(st->st_mode) || (top && strstr(base, ".sbxrun-untrusted.") != NULL))
		return 0;
	if (fstatat(fd, "HEAD", &h, AT_SYMLINK_NOFOLLOW) == 0 && made_in_run(s->g, &h) &&
	    fstatat(fd, "objects", &h, AT_SYMLINK_NOFOLLOW) == 0 &&
	    fstatat(fd, "refs", &h, AT_SYMLINK_NOFOLLOW) == 0)
		found(s, path);
	return 0;
}

static void
warn(struct sbx_report *r, char *text)
{
	if (r != NULL)
		sbx_strv_push_take(&r->warnings, text);
	else
		free(text);
}

static void
move_top(struct sbx_gitguard *g, const char *rel, struct sbx_buf *moved)
{
	struct sbx_err err = { 0 };
	_cleanup_free_ char *aside = sbx_move_aside(g->wd, g->workdir, rel, &err);

	if (aside)
		sbx_buf_printf(moved, "%s%s to %s", moved->len ? ", " : "", rel, aside);
	else if (err.msg[0])
		warn(g->report,
		    sbx_xasprintf("%s: the caller's git could run what it holds", err.msg));
}

/* After the run: the top level first (moved aside), then the search. */
static void
check(struct sbx_gitguard *g)
{
	unsigned now = top_level(g->wd), made = now & ~g->before;
	struct sbx_buf moved = { 0 };
	struct scan s = { .g = g, .root_len = strlen(g->workdir) };
	struct sbx_err err = { 0 };

	if (made & B_DOTGIT)
		move_top(g, ".git", &moved);
	if (!is_repo(g->before) && is_repo(now))
		for (size_t i = 0; i < SBX_ARRAY_LEN(bare_names); i++)
			if (made & (1u << i))
				move_top(g, bare_names[i], &moved);
	if (moved.len)
		warn(g->report,
		    sbx_xasprintf("the run made a git repository at the workdir's top level; "
				  "moved aside so that no git of the caller's reads it: %s",
			moved.data));
	sbx_buf_free(&moved);

	if (sbx_tree_walk(g->workdir, scan_visit, &s, &err) < 0)
		warn(g->report,
		    sbx_xasprintf(
			"git repositories made in the run could not be looked for: %s", err.msg));
	else if (s.seen > SCAN_MAX)
		warn(g->report,
		    sbx_xasprintf("the workdir holds more than %d entries: git repositories the "
				  "run made below its top level were not looked for in full",
			SCAN_MAX));
	if (s.found)
		warn(g->report,
		    sbx_xasprintf("the run made or changed %zu git repositor%s below the "
				  "workdir's top level (untrusted, like all it wrote: their "
				  "config and hooks run in any git command there): %s%s",
			s.found, s.found == 1 ? "y" : "ies", s.named.data,
			s.found > NAMED_MAX ? ", ..." : ""));
	sbx_buf_free(&s.named);
}

static void
guard_cleanup(struct sbx_child *c, struct sbx_report *r)
{
	struct sbx_gitguard *g = c->priv;

	c->priv = g->priv;
	c->cleanup = g->cleanup;
	if (c->cleanup)
		c->cleanup(c, r);
	c->cleanup = NULL;
	g->report = r;
	check(g);
	sbx_gitguard_free(g);
}

void
sbx_gitguard_attach(struct sbx_gitguard **gp, struct sbx_child *c)
{
	struct sbx_gitguard *g = *gp;

	*gp = NULL;
	if (g == NULL)
		return;
	g->cleanup = c->cleanup;
	g->priv = c->priv;
	c->priv = g;
	c->cleanup = guard_cleanup;
}
