#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secrets.h"

/* How deep the walks go: far below any real tree, and a bound on a
 * crafted one. */
#define WALK_DEPTH 64

/* --- the host filesystem ------------------------------------------------- */

static void
to_id(const struct stat *st, struct sbx_fileid *id)
{
	*id = (struct sbx_fileid){
		.dev = (uint64_t)st->st_dev,
		.ino = (uint64_t)st->st_ino,
		.nlink = (uint64_t)st->st_nlink,
		.dir = S_ISDIR(st->st_mode),
		.reg = S_ISREG(st->st_mode),
		.own = st->st_uid == geteuid(),
	};
}

static int
host_stat(void *ctx, const char *path, struct sbx_fileid *id)
{
	struct stat st;

	(void)ctx;
	if (stat(path, &st) < 0)
		return -1;
	to_id(&st, id);
	return 0;
}

static int
host_lstat(void *ctx, const char *path, struct sbx_fileid *id)
{
	struct stat st;

	(void)ctx;
	if (lstat(path, &st) < 0)
		return -1;
	to_id(&st, id);
	return 0;
}

static int
host_list(void *ctx, const char *dir, struct sbx_strv *names)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	(void)ctx;
	if (d == NULL)
		return -1;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (names && strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			sbx_strv_push(names, de->d_name);
		errno = 0;
	}
	if (errno != 0) {
		int e = errno;

		closedir(d);
		errno = e;
		return -1;
	}
	closedir(d);
	return 0;
}

static char *
host_realpath(void *ctx, const char *path)
{
	(void)ctx;
	return realpath(path, NULL);
}

char *
sbx_mountinfo_read(void)
{
	struct sbx_buf b = { 0 };
	char chunk[8192];
	ssize_t n;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		sbx_buf_add(&b, chunk, (size_t)n);
	close(fd);
	if (n < 0) {
		sbx_buf_free(&b);
		return NULL;
	}
	return b.data ? sbx_buf_steal(&b) : sbx_xstrdup("");
}

static char *
host_mountinfo(void *ctx)
{
	(void)ctx;
	return sbx_mountinfo_read();
}

const struct sbx_idfs sbx_host_idfs = {
	.ctx = NULL,
	.stat = host_stat,
	.lstat = host_lstat,
	.list = host_list,
	.realpath = host_realpath,
	.mountinfo = host_mountinfo,
};

/* --- realpath(3), each name asked once ---------------------------------- */

struct sbx_pathmemo_ent {
	char *path;
	char *real; /* NULL: realpath failed with err */
	int err;
	bool absent; /* no entry has this name (not even a dangling symlink) */
	bool listed; /* a listing of path, not its realpath */
	struct sbx_strv names;
};

#ifdef __linux__
/* An absolute path with no empty, "." or ".." component and no trailing
 * slash: realpath(3) looks each of its prefixes up exactly as written. */
static bool
plain_absolute(const char *path)
{
	if (path[0] != '/' || path[1] == '\0')
		return false;
	for (const char *c = path; *c; c += strcspn(c, "/")) {
		c++; /* the slash */
		if (*c == '/' || *c == '\0' || (c[0] == '.' && (c[1] == '/' || c[1] == '\0')) ||
		    (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0')))
			return false;
	}
	return true;
}
#endif

/* What realpath(3) returns for path, with the canonical name of its
 * directory taken from m. glibc's realpath calls readlink(2) on each
 * prefix of the resolved name, goes on when it fails with EINVAL (no
 * link) and fails with any other error; for a plain path whose directory
 * resolves to D, the last of those calls is readlink("D/NAME"), and the
 * result is "D/NAME" exactly when that call fails with EINVAL. A symlink
 * as the last component is left to realpath(3) itself. Other systems'
 * realpath does more (macOS also corrects a name's case), so there only
 * whole answers are remembered. */
static char *
resolve_plain(struct sbx_pathmemo *m, const char *path, bool *absent)
{
#ifdef __linux__
	_cleanup_free_ char *dir = NULL;
	const char *dreal;
	char *cand, c;

	if (!plain_absolute(path))
		return realpath(path, NULL);
	dir = sbx_xstrdup(path);
	*strrchr(dir, '/') = '\0';
	dreal = dir[0] ? sbx_pathmemo_realpath(m, dir) : "/";
	if (dreal == NULL) {
		/* Nothing can be named below a directory that is not there,
		 * or below a file. */
		*absent = dir[0] && (sbx_pathmemo_absent(m, dir) || errno == ENOTDIR);
		return NULL;
	}
	cand = sbx_path_join(dreal, strrchr(path, '/') + 1);
	if (readlink(cand, &c, 1) < 0) {
		int e = errno;

		if (e == EINVAL)
			return cand;
		*absent = e == ENOENT || e == ENOTDIR;
		free(cand);
		errno = e;
		return NULL;
	}
	free(cand);
#else
	(void)m;
	(void)absent;
#endif
	return realpath(path, NULL);
}

const char *
sbx_pathmemo_realpath(struct sbx_pathmemo *m, const char *path)
{
	struct sbx_pathmemo_ent *e;
	bool absent = false;
	char *real;
	int err;

	for (size_t i = 0; i < m->n; i++)
		if (!m->v[i].listed && strcmp(m->v[i].path, path) == 0) {
			errno = m->v[i].err;
			return m->v[i].real;
		}
	real = resolve_plain(m, path, &absent);
	err = real ? 0 : errno;
	m->v = sbx_xreallocarray(m->v, m->n + 1, sizeof(*m->v));
	e = &m->v[m->n++];
	*e = (struct sbx_pathmemo_ent){ .path = sbx_xstrdup(path),
		.real = real,
		.err = err,
		.absent = real == NULL && absent };
	errno = err;
	return real;
}

bool
sbx_pathmemo_absent(const struct sbx_pathmemo *m, const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (!m->v[i].listed && strcmp(m->v[i].path, path) == 0)
			return m->v[i].absent;
	return false;
}

const struct sbx_strv *
sbx_pathmemo_list(struct sbx_pathmemo *m, const char *dir)
{
	struct sbx_pathmemo_ent *e;
	struct sbx_strv names = { 0 };
	int err = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].listed && strcmp(m->v[i].path, dir) == 0) {
			errno = m->v[i].err;
			return m->v[i].err ? NULL : &m->v[i].names;
		}
	if (host_list(NULL, dir, &names) < 0) {
		err = errno;
		sbx_strv_free(&names);
	}
	m->v = sbx_xreallocarray(m->v, m->n + 1, sizeof(*m->v));
	e = &m->v[m->n++];
	*e = (struct sbx_pathmemo_ent){
		.path = sbx_xstrdup(dir), .err = err, .listed = true, .names = names
	};
	errno = err;
	return err ? NULL : &e->names;
}

void
sbx_pathmemo_free(struct sbx_pathmemo *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].path);
		free(m->v[i].real);
		sbx_strv_free(&m->v[i].names);
	}
	free(m->v);
	free(m->mountinfo);
	memset(m, 0, sizeof(*m));
}

static char *
memo_realpath(void *ctx, const char *path)
{
	const char *real = sbx_pathmemo_realpath(ctx, path);

	return real ? sbx_xstrdup(real) : NULL;
}

static int
memo_list(void *ctx, const char *dir, struct sbx_strv *names)
{
	const struct sbx_strv *got = sbx_pathmemo_list(ctx, dir);

	if (got == NULL)
		return -1;
	if (names)
		sbx_strv_copy(names, got);
	return 0;
}

/* stat(2), but a path whose realpath the memo found missing is missing
 * still: a secret is looked up once per resolution (most of the list
 * does not exist), and the two answers cannot disagree. */
static int
memo_stat(void *ctx, const char *path, struct sbx_fileid *id)
{
	const struct sbx_pathmemo *m = ctx;

	for (size_t i = 0; i < m->n; i++)
		if (!m->v[i].listed && m->v[i].real == NULL && m->v[i].err == ENOENT &&
		    strcmp(m->v[i].path, path) == 0) {
			errno = ENOENT;
			return -1;
		}
	return host_stat(NULL, path, id);
}

static char *
memo_mountinfo(void *ctx)
{
	struct sbx_pathmemo *m = ctx;

	if (!m->mounts_read) {
		m->mountinfo = host_mountinfo(NULL);
		m->mounts_read = true;
	}
	return m->mountinfo ? sbx_xstrdup(m->mountinfo) : NULL;
}

struct sbx_idfs
sbx_host_idfs_memo(struct sbx_pathmemo *m, bool names)
{
	struct sbx_idfs fs = sbx_host_idfs;

	fs.ctx = m;
	fs.mountinfo = memo_mountinfo;
	if (names) {
		fs.stat = memo_stat;
		fs.realpath = memo_realpath;
		fs.list = memo_list;
	}
	return fs;
}

/* --- the mount table ----------------------------------------------------- */

/* A mountinfo field's \ooo escapes (space, tab, newline, backslash)
 * decoded in place: the decoded field is never longer. */
static void
unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
			continue;
		}
		*o++ = *s;
	}
	*o = '\0';
}

/* "major:minor", as mountinfo writes it. */
static bool
parse_dev(const char *s, uint64_t *dev)
{
	char *end;
	unsigned long maj, min;

	if (*s < '0' || *s > '9')
		return false;
	maj = strtoul(s, &end, 10);
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		return false;
	min = strtoul(end + 1, &end, 10);
	if (*end != '\0' || maj > UINT32_MAX || min > UINT32_MAX)
		return false;
	*dev = ((uint64_t)maj << 32) | (uint64_t)min;
	return true;
}

void
sbx_mounttab_parse(const char *text, struct sbx_mounttab *out)
{
	size_t cap = 0;
	char *line;

	/* One copy of the text, cut into fields in place: the entries point
	 * into it (a malloc per field and an sscanf per line were most of
	 * this parse, doc/design/startup.md, section 31). */
	memset(out, 0, sizeof(*out));
	out->text = line = sbx_xstrdup(text);
	while (*line) {
		char *end = strchr(line, '\n'), *next, *c = line, *f[5];
		size_t nf = 0;
		uint64_t dev;

		if (end == NULL) {
			end = line + strlen(line);
			next = end;
		} else {
			*end = '\0';
			next = end + 1;
		}
		/* id parent major:minor root mount-point ... */
		while (nf < 5 && c < end) {
			while (c < end && *c == ' ')
				c++;
			if (c == end)
				break;
			f[nf++] = c;
			while (c < end && *c != ' ')
				c++;
			if (c < end)
				*c++ = '\0';
		}
		if (nf == 5 && parse_dev(f[2], &dev) && f[3][0] == '/' && f[4][0] == '/') {
			if (out->n == cap) {
				cap = cap ? cap * 2 : 64;
				out->v = sbx_xreallocarray(out->v, cap, sizeof(*out->v));
			}
			unescape(f[3]);
			unescape(f[4]);
			out->v[out->n++] =
			    (struct sbx_mountent){ .dev = dev, .root = f[3], .point = f[4] };
		}
		line = next;
	}
}

void
sbx_mounttab_free(struct sbx_mounttab *t)
{
	free(t->v);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* to + (path - from), for a path at or below from (sbx_path_is_under(),
 * which reads from without its trailing slashes, and so does this: a
 * table whose fields end in one must not send the copy past path's end). */
static char *
rebase(const char *path, const char *from, const char *to)
{
	size_t n = strlen(from);
	const char *rel;

	while (n > 0 && from[n - 1] == '/')
		n--;
	rel = path + n;
	while (*rel == '/')
		rel++;
	return *rel ? sbx_path_join(to, rel) : sbx_xstrdup(to);
}

static void
push_new(struct sbx_strv *out, char *s)
{
	if (sbx_strv_contains(out, s))
		free(s);
	else
		sbx_strv_push_take(out, s);
}

void
sbx_mount_aliases(const struct sbx_mounttab *t, const char *path, bool whole, struct sbx_strv *out)
{
	const struct sbx_mountent *at = NULL;
	_cleanup_free_ char *fspath = NULL;

	/* The mount path is seen through: the deepest mount point above it,
	 * and of two on the same point the later, which covers the other. */
	for (size_t i = 0; i < t->n; i++)
		if (sbx_path_is_under(path, t->v[i].point) &&
		    (at == NULL || strlen(t->v[i].point) >= strlen(at->point)))
			at = &t->v[i];
	if (at == NULL)
		return;
	/* Where it lies in its filesystem; every mount of a part of that
	 * filesystem holding it shows it again (a bind mount, or the same
	 * device mounted twice). */
	fspath = rebase(path, at->point, at->root);
	for (size_t i = 0; i < t->n; i++) {
		const struct sbx_mountent *e = &t->v[i];

		if (e->dev != at->dev)
			continue;
		if (sbx_path_is_under(fspath, e->root))
			push_new(out, rebase(fspath, e->root, e->point));
		else if (whole && sbx_path_is_under(e->root, fspath))
			push_new(out, sbx_xstrdup(e->point));
	}
}

/* --- secrets that cannot be examined ------------------------------------- */

/* Where the lookup of path (no wildcard) stops for another reason than
 * ENOENT or ENOTDIR: the deepest directory that could be examined, or
 * NULL when path exists or certainly does not. */
static char *
unsearchable_dir(const struct sbx_idfs *fs, const char *path)
{
	_cleanup_free_ char *copy = sbx_xstrdup(path);
	_cleanup_free_ char *prev = NULL;
	struct sbx_fileid id;

	/* One stat of the whole path answers for every step on the way when
	 * it succeeds or fails with ENOENT or ENOTDIR: the kernel's lookup
	 * goes step by step and stops at the first that fails, with that
	 * step's error, so the walk below would stop at the same step for
	 * the same reason (or not at all). Only another error needs the walk,
	 * to learn which directory could not be searched. */
	if (fs->stat(fs->ctx, copy, &id) == 0 || errno == ENOENT || errno == ENOTDIR)
		return NULL;
	prev = sbx_xstrdup("/");
	for (char *c = copy + 1;; c++) {
		char saved = *c;

		if (*c != '/' && *c != '\0')
			continue;
		*c = '\0';
		if (c > copy + 1 && c[-1] != '/' && fs->stat(fs->ctx, copy, &id) < 0) {
			/* ENOENT and ENOTDIR are certain: prev was searched
			 * and holds no such name (or is not a directory). Any
			 * other failure leaves it unknown. "/" itself is
			 * never hidden: nothing would be left. */
			if (errno == ENOENT || errno == ENOTDIR || strcmp(prev, "/") == 0)
				return NULL;
			return steal_ptr(&prev);
		}
		if (c > copy + 1 && c[-1] != '/') {
			free(prev);
			prev = sbx_xstrdup(copy);
		}
		*c = saved;
		if (saved == '\0')
			break;
	}
	return NULL;
}

/* The opaque directories of an absolute pattern: the walk to the
 * directory holding its first wildcard, that directory's listing and,
 * when more of the pattern follows, the same again below every name the
 * wildcard matches. glob(3) passes over a directory it cannot list or
 * search without a word; here each such directory is named. */
static void
opaque_pattern(const struct sbx_idfs *fs, const char *pattern, int depth, struct sbx_strv *out)
{
	const char *wild = strpbrk(pattern, "*?["), *slash, *rest;
	_cleanup_free_ char *dir = NULL, *comp = NULL;
	struct sbx_strv names = { 0 };
	char *d;

	if (wild == NULL) {
		if ((d = unsearchable_dir(fs, pattern)) != NULL)
			push_new(out, d);
		return;
	}
	for (slash = wild; slash > pattern && *slash != '/'; slash--)
		;
	dir =
	    slash == pattern ? sbx_xstrdup("/") : sbx_xstrndup(pattern, (size_t)(slash - pattern));
	rest = strchr(wild, '/');
	comp = rest ? sbx_xstrndup(slash + 1, (size_t)(rest - slash - 1)) : sbx_xstrdup(slash + 1);
	if ((d = unsearchable_dir(fs, dir)) != NULL) {
		push_new(out, d);
		return;
	}
	if (fs->list(fs->ctx, dir, rest ? &names : NULL) < 0) {
		if (errno != ENOENT && errno != ENOTDIR && strcmp(dir, "/") != 0)
			push_new(out, steal_ptr(&dir));
		return;
	}
	/* A pattern's components bound the depth; a crafted one is cut. */
	for (size_t i = 0; rest && depth < WALK_DEPTH && i < names.n; i++) {
		_cleanup_free_ char *child = NULL;

		if (fnmatch(comp, names.v[i], FNM_PERIOD) != 0)
			continue;
		child =
		    sbx_xasprintf("%s%s%s%s", dir, strcmp(dir, "/") ? "/" : "", names.v[i], rest);
		opaque_pattern(fs, child, depth + 1, out);
	}
	sbx_strv_free(&names);
}

void
sbx_secret_opaque(const struct sbx_idfs *fs, const char *path, struct sbx_strv *out)
{
	if (path[0] == '/')
		opaque_pattern(fs, path, 0, out);
}

static void
add_hidden_path(const struct sbx_idfs *fs, struct sbx_strv *hidden, const char *path)
{
	char *real = fs->realpath(fs->ctx, path);

	if (!sbx_strv_contains(hidden, path))
		sbx_strv_push(hidden, path);
	if (real)
		push_new(hidden, real);
}

void
sbx_secrets_widen(const struct sbx_idfs *fs, struct sbx_policy *p, const struct sbx_strv *homes,
    struct sbx_fsview *v)
{
	struct sbx_strv raw = { 0 }, aliases = { 0 };
	struct sbx_mounttab tab = { 0 };
	char *text;
	size_t n;

	for (size_t i = 0; i < homes->n; i++)
		sbx_secret_list(homes->v[i], &raw);
	sbx_secret_list_system(&raw);
	sbx_strv_copy(&raw, &p->deny);
	for (size_t i = 0; i < raw.n; i++) {
		struct sbx_strv dirs = { 0 };

		sbx_secret_opaque(fs, raw.v[i], &dirs);
		for (size_t k = 0; k < dirs.n; k++) {
			if (sbx_strv_contains(&v->hidden, dirs.v[k]))
				continue;
			add_hidden_path(fs, &v->hidden, dirs.v[k]);
			sbx_strv_push_take(&p->warnings,
			    sbx_xasprintf("%s cannot be searched now, so whether the secret %s "
					  "lies in it cannot be known: it is hidden whole",
				dirs.v[k], raw.v[i]));
		}
		sbx_strv_free(&dirs);
	}
	sbx_strv_free(&raw);

	text = fs->mountinfo(fs->ctx);
	if (text == NULL)
		return;
	sbx_mounttab_parse(text, &tab);
	free(text);
	/* Only canonical entries are looked up: the list holds each secret
	 * as written and, when it exists, resolved. */
	n = v->hidden.n;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *real = fs->realpath(fs->ctx, v->hidden.v[i]);

		if (real && strcmp(real, v->hidden.v[i]) == 0)
			sbx_mount_aliases(&tab, real, true, &aliases);
	}
	for (size_t i = 0; i < aliases.n; i++) {
		if (sbx_strv_contains(&v->hidden, aliases.v[i]))
			continue;
		sbx_strv_push(&v->hidden, aliases.v[i]);
	}
	sbx_strv_free(&aliases);
	sbx_mounttab_free(&tab);
}

/* --- the checks on resolved paths ---------------------------------------- */

static int
check_aliases(const struct sbx_idfs *fs, const struct sbx_policy *p, const struct sbx_strv *homes,
    const struct sbx_fsview *v, struct sbx_err *err)
{
	struct sbx_mounttab tab = { 0 };
	struct sbx_strv al = { 0 }, chomes = { 0 };
	char *text = fs->mountinfo(fs->ctx);
	int r = -1;

	if (text == NULL)
		return 0;
	sbx_mounttab_parse(text, &tab);
	free(text);
	/* A workdir made inside the jail is no host path: it has no alias. */
	if (!v->workdir_in_jail)
		sbx_mount_aliases(&tab, v->workdir, false, &al);
	for (size_t i = 0; i < al.n; i++) {
		const char *why;

		if (strcmp(al.v[i], v->workdir) == 0)
			continue;
		why = sbx_workdir_forbidden(al.v[i], &v->hidden);
		if (why) {
			sbx_err_set(err, EPERM, "workdir '%s' refused: it is also %s, and %s",
			    v->workdir, al.v[i], why);
			goto out;
		}
	}
	for (size_t i = 0; i < homes->n; i++)
		add_hidden_path(fs, &chomes, homes->v[i]);
	for (size_t m = 0; m < p->nmounts; m++) {
		const char *src = p->mounts[m].source;

		sbx_strv_free(&al);
		sbx_mount_aliases(&tab, src, false, &al);
		for (size_t i = 0; i < al.n; i++) {
			const char *why;

			if (strcmp(al.v[i], src) == 0)
				continue;
			why = sbx_mount_source_forbidden(al.v[i], &chomes, &v->hidden);
			if (why) {
				sbx_err_set(err, EPERM,
				    "mount source '%s' refused: it is also %s, and %s", src,
				    al.v[i], why);
				goto out;
			}
		}
	}
	r = 0;
out:
	sbx_strv_free(&al);
	sbx_strv_free(&chomes);
	sbx_mounttab_free(&tab);
	return r;
}

/* The secret files that have other names somewhere: regular files with
 * more than one link, at or below a secret path. An entry whose id is a
 * directory stands for what could not be listed below a secret path in
 * a directory of the caller's own: any regular file with other names on
 * that filesystem may be one of its files (the caller, or an earlier
 * sandbox acting as the caller, can take the search right away after
 * making such a link). A directory of another owner's that the caller
 * cannot search holds nothing the caller could have linked. */
struct linkset {
	struct sbx_fileid *id;
	char **name;
	size_t n;
};

static void
linkset_add(struct linkset *s, const struct sbx_fileid *id, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->id[i].dev == id->dev && s->id[i].ino == id->ino)
			return;
	s->id = sbx_xreallocarray(s->id, s->n + 1, sizeof(*s->id));
	s->name = sbx_xreallocarray(s->name, s->n + 1, sizeof(*s->name));
	s->id[s->n] = *id;
	s->name[s->n++] = sbx_xstrdup(name);
}

static const struct sbx_fileid *
linkset_find(const struct linkset *s, const struct sbx_fileid *id, const char **name)
{
	/* The secret itself first, when it is known. */
	for (int any = 0; any < 2; any++)
		for (size_t i = 0; i < s->n; i++)
			if (s->id[i].dev == id->dev &&
			    (any ? s->id[i].dir : !s->id[i].dir && s->id[i].ino == id->ino)) {
				*name = s->name[i];
				return &s->id[i];
			}
	return NULL;
}

static void
linkset_free(struct linkset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->id);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

/* -1 when path could not be examined for another reason than ENOENT or
 * ENOTDIR (its directory lists but cannot be searched: mode 0444). */
static int
collect_secret_files(
    const struct sbx_idfs *fs, const char *path, bool follow, int depth, struct linkset *s)
{
	struct sbx_strv names = { 0 };
	struct sbx_fileid id;
	bool unknown = false;

	if ((follow ? fs->stat : fs->lstat)(fs->ctx, path, &id) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	if (id.reg && id.nlink > 1)
		linkset_add(s, &id, path);
	if (!id.dir || depth > WALK_DEPTH)
		return 0;
	if (fs->list(fs->ctx, path, &names) < 0) {
		if (errno != ENOENT && errno != ENOTDIR && id.own)
			linkset_add(s, &id, path);
		return 0;
	}
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *child = sbx_path_join(path, names.v[i]);

		if (collect_secret_files(fs, child, false, depth + 1, s) < 0)
			unknown = true;
	}
	/* Names listed that could not be looked at: what they are is as
	 * unknown as in a directory that cannot be listed. */
	if (unknown && id.own)
		linkset_add(s, &id, path);
	sbx_strv_free(&names);
	return 0;
}

static bool
is_hidden(const struct sbx_fsview *v, const char *path)
{
	for (size_t i = 0; i < v->hidden.n; i++)
		if (sbx_path_is_under(path, v->hidden.v[i]))
			return true;
	return false;
}

/* Walks tree (not following symlinks, crossing mounts) for a regular file
 * that is one of the secret files of s under another name. A directory
 * that cannot be listed fails closed: what is in it is not known. */
static int
find_links(const struct sbx_idfs *fs, const struct sbx_fsview *v, const char *path, int depth,
    const struct linkset *s, struct sbx_err *err)
{
	struct sbx_strv names = { 0 };
	const struct sbx_fileid *found;
	struct sbx_fileid id;
	const char *secret;
	int r = 0;

	if (is_hidden(v, path))
		return 0;
	if (fs->lstat(fs->ctx, path, &id) < 0)
		return errno == ENOENT ? 0 : sbx_err_sys(err, "cannot examine %s", path);
	if (id.reg && id.nlink > 1 && (found = linkset_find(s, &id, &secret)) != NULL)
		return found->dir
		    ? sbx_err_set(err, EPERM,
			  "refused: %s has other names, and %s cannot be searched, so whether "
			  "it is a hard link to a secret there cannot be known; make that "
			  "directory searchable again or remove the link",
			  path, secret)
		    : sbx_err_set(err, EPERM,
			  "refused: %s is a hard link to the secret %s; remove that link first",
			  path, secret);
	if (!id.dir)
		return 0;
	if (depth > WALK_DEPTH)
		return sbx_err_set(err, ELOOP,
		    "refused: %s is too deep to be searched for hard links to secret files", path);
	if (fs->list(fs->ctx, path, &names) < 0)
		return sbx_err_sys(err,
		    "refused: %s cannot be searched for hard links to secret files (such as %s)",
		    path, s->name[0]);
	for (size_t i = 0; i < names.n && r == 0; i++) {
		_cleanup_free_ char *child = sbx_path_join(path, names.v[i]);

		r = find_links(fs, v, child, depth + 1, s, err);
	}
	sbx_strv_free(&names);
	return r;
}

static int
check_links(const struct sbx_idfs *fs, const struct sbx_policy *p, const struct sbx_fsview *v,
    struct sbx_err *err)
{
	struct linkset s = { 0 };
	int r = 0;

	/* Nothing of the host to search (a workdir made in the jail, no
	 * mounts, no allowlist): no secret file needs to be looked at. */
	if (v->workdir_in_jail && p->nmounts == 0 && (p->fs != SBX_FS_ALLOWLIST || v->read.n == 0))
		return 0;
	/* What did not exist when the list was read is not looked for
	 * again (the list is a snapshot: resolve.h). */
	for (size_t i = 0; i < v->hidden.n; i++)
		if (!sbx_strv_contains(&v->missing, v->hidden.v[i]))
			(void)collect_secret_files(fs, v->hidden.v[i], true, 0, &s);
	/* No secret file has a second name anywhere: nothing to look for,
	 * and no tree is walked (the usual case, at the cost of one stat
	 * per secret file). */
	if (s.n == 0)
		return 0;
	if (!v->workdir_in_jail)
		r = find_links(fs, v, v->workdir, 0, &s, err);
	for (size_t i = 0; r == 0 && i < p->nmounts; i++)
		r = find_links(fs, v, p->mounts[i].source, 0, &s, err);
	for (size_t i = 0; r == 0 && p->fs == SBX_FS_ALLOWLIST && i < v->read.n; i++)
		r = find_links(fs, v, v->read.v[i], 0, &s, err);
	linkset_free(&s);
	return r;
}

int
sbx_secrets_check(const struct sbx_idfs *fs, const struct sbx_policy *p,
    const struct sbx_strv *homes, const struct sbx_fsview *v, struct sbx_err *err)
{
	if (check_aliases(fs, p, homes, v, err) < 0)
		return -1;
	return check_links(fs, p, v, err);
}
