/* The secret checks of secrets.c on a stub filesystem: a secret below a
 * directory that cannot be searched, mount aliases read from a mount
 * table, and hard links to secret files. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "resolve.h"
#include "secrets.h"
#include "tap.h"

/* One stub file: a directory with locked set cannot be searched or listed
 * (mode 0600 for whoever looks); FOREIGN also makes it another user's
 * (root's, say), where every other node is the caller's. */
#define FOREIGN 2
/* Listed, not searched (mode 0444): its names are known, nothing of them. */
#define LISTONLY 3
struct node {
	const char *path;
	char type; /* 'd' or 'f' */
	uint64_t ino;
	uint64_t nlink;
	int locked;
};

struct stub {
	const struct node *nodes;
	size_t n;
	const char *mountinfo;
	int lists; /* list() calls, to see that nothing was walked */
};

static const struct node *
find(const struct stub *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->nodes[i].path, path) == 0)
			return &s->nodes[i];
	return NULL;
}

static int
stub_stat(void *ctx, const char *path, struct sbx_fileid *id)
{
	const struct stub *s = ctx;
	const struct node *n;

	for (size_t i = 0; i < s->n; i++)
		if (s->nodes[i].locked && strcmp(s->nodes[i].path, path) != 0 &&
		    sbx_path_is_under(path, s->nodes[i].path)) {
			errno = EACCES;
			return -1;
		}
	n = find(s, path);
	if (n == NULL) {
		errno = ENOENT;
		return -1;
	}
	*id = (struct sbx_fileid){ .dev = 1,
		.ino = n->ino,
		.nlink = n->nlink ? n->nlink : 1,
		.dir = n->type == 'd',
		.reg = n->type == 'f',
		.own = n->locked != FOREIGN };
	return 0;
}

static int
stub_list(void *ctx, const char *dir, struct sbx_strv *names)
{
	struct stub *s = ctx;
	struct sbx_fileid id;
	const struct node *d;

	s->lists++;
	if (stub_stat(ctx, dir, &id) < 0)
		return -1;
	d = find(s, dir);
	if (d->locked && d->locked != LISTONLY) {
		errno = EACCES;
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		const char *p = s->nodes[i].path;
		size_t k = strcmp(dir, "/") == 0 ? 0 : strlen(dir);

		if (names && strncmp(p, dir, k) == 0 && p[k] == '/' && p[k + 1] &&
		    !strchr(p + k + 1, '/'))
			sbx_strv_push(names, p + k + 1);
	}
	return 0;
}

static char *
stub_realpath(void *ctx, const char *path)
{
	struct sbx_fileid id;

	return stub_stat(ctx, path, &id) == 0 ? sbx_xstrdup(path) : NULL;
}

static char *
stub_mountinfo(void *ctx)
{
	const struct stub *s = ctx;

	return s->mountinfo ? sbx_xstrdup(s->mountinfo) : NULL;
}

static struct sbx_idfs
idfs(struct stub *s)
{
	return (
	    struct sbx_idfs){ s, stub_stat, stub_stat, stub_list, stub_realpath, stub_mountinfo };
}

static const struct node home_nodes[] = {
	{ "/", 'd', 2, 0, false },
	{ "/h", 'd', 3, 0, false },
	{ "/h/.config", 'd', 4, 0, true },
	{ "/h/.config/gcloud", 'd', 5, 0, false },
	{ "/h/.netrc", 'f', 6, 1, false },
	{ "/h/.ssh", 'd', 7, 0, false },
	{ "/h/.ssh/id_rsa", 'f', 8, 2, false },
	{ "/h/file", 'f', 9, 1, false },
	{ "/etc", 'd', 10, 0, false },
	{ "/etc/shadow", 'f', 11, 1, false },
	{ "/w", 'd', 12, 0, false },
	{ "/w/copy", 'f', 8, 2, false },
	{ "/w/src", 'd', 13, 0, false },
	{ "/w/src/a.c", 'f', 14, 1, false },
	{ "/w2", 'd', 15, 0, false },
	{ "/w2/src", 'd', 16, 0, false },
	{ "/w2/src/a.c", 'f', 17, 1, false },
	{ "/w3", 'd', 18, 0, false },
	{ "/w3/locked", 'd', 19, 0, true },
	{ "/r", 'd', 20, 0, false },
	{ "/r/deep", 'd', 21, 0, false },
	{ "/r/deep/k", 'f', 8, 2, false },
	{ "/w4", 'd', 22, 0, false },
	{ "/w4/pnpm-file", 'f', 23, 2, false },
	{ "/d", 'd', 30, 0, false },
	{ "/d/a", 'd', 31, 0, true },
	{ "/d/b", 'd', 32, 0, false },
	{ "/d/b/id.key", 'f', 33, 1, false },
	{ "/d/b/x", 'd', 34, 0, false },
	{ "/d/b/x/y", 'd', 35, 0, true },
	{ "/d/.dot", 'd', 36, 0, true },
};

/* sbx_secret_opaque()'s answers for path, joined by spaces ("" for
 * none). */
static char *
opaque(const struct sbx_idfs *fs, const char *path)
{
	struct sbx_strv out = { 0 };
	char *r = sbx_xstrdup("");

	sbx_secret_opaque(fs, path, &out);
	for (size_t i = 0; i < out.n; i++) {
		char *next = sbx_xasprintf("%s%s%s", r, i ? " " : "", out.v[i]);

		free(r);
		r = next;
	}
	sbx_strv_free(&out);
	return r;
}

static void
test_opaque(void)
{
	struct stub s = { home_nodes, SBX_ARRAY_LEN(home_nodes), NULL, 0 };
	struct sbx_idfs fs = idfs(&s);
	static const struct {
		const char *path, *want, *what;
	} cases[] = {
		{ "/h/.config/gcloud", "/h/.config",
		    "a secret below an unsearchable directory: that directory" },
		{ "/h/.config/gcloud/creds/x", "/h/.config", "the same for a deeper path" },
		{ "/h/.aws", "", "a missing secret: nothing" },
		{ "/h/.netrc", "", "an existing secret: nothing" },
		{ "/h/.nope/x", "", "a missing parent: nothing" },
		{ "/h/.config", "", "the unsearchable directory itself is examined: nothing more" },
		{ "/h/.config/*.key", "/h/.config",
		    "a glob in an unlistable directory: that directory" },
		{ "/etc/sh*", "", "a glob in a listable directory: nothing" },
		{ "relative/x", "", "a relative path: nothing" },
		{ "/d/*/*.key", "/d/a",
		    "a wildcard below a wildcard: the matched directory that cannot be listed" },
		{ "/d/*/x/*/k", "/d/a /d/b/x/y", "and so on down, each wildcard in turn" },
		{ "/d/*/x", "/d/a",
		    "a fixed name below a wildcard: a matched directory that "
		    "cannot be searched" },
		{ "/d/b*/*.key", "", "a wildcard matching only listable directories: nothing" },
		{ "/d/.*/k", "/d/.dot", "a leading dot matches only a leading dot" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		char *r = opaque(&fs, cases[i].path);

		is_str(r, cases[i].want, "%s", cases[i].what);
		free(r);
	}
}

static void
test_mounttab(void)
{
	struct sbx_mounttab t;

	sbx_mounttab_parse("22 27 0:21 / /proc rw,relatime - proc proc rw\n"
			   "garbage\n"
			   "40 27 8:1 /a\\040b /mnt/x\\134y rw - ext4 /dev/sda rw\n"
			   "42 27 8:x / /bad rw - ext4 /dev/sda rw\n"
			   "43 27 8:1 /\\04 /half\\0 rw - ext4 /dev/sda rw\n"
			   "41 27 8:1 / /last rw - ext4 /dev/sda rw",
	    &t);
	is_int((int)t.n, 4, "four lines read, the garbage and the bad device skipped");
	if (t.n == 4) {
		is_str(t.v[1].root, "/a b", "\\040 in the root is a space");
		is_str(t.v[1].point, "/mnt/x\\y", "\\134 in the mount point is a backslash");
		ok(t.v[1].dev == ((uint64_t)8 << 32 | 1), "the device number");
		ok(t.v[0].dev != t.v[1].dev, "0:21 and 8:1 differ");
		is_str(t.v[2].root, "/\\04",
		    "an escape cut short by the field's end is kept as it is");
		is_str(t.v[2].point, "/half\\0", "... in the mount point too");
		is_str(t.v[3].point, "/last", "a last line without a newline");
	}
	sbx_mounttab_free(&t);
}

static const char *const table = "1 0 8:1 / / rw - ext4 /dev/sda rw\n"
				 "2 1 8:1 /h/.ssh /w/alias rw - ext4 /dev/sda rw\n"
				 "3 1 8:1 /h /r/h rw - ext4 /dev/sda rw\n"
				 "4 1 8:2 / /data rw - ext4 /dev/sdb rw\n"
				 "5 1 8:1 /h/.ssh/keys /k rw - ext4 /dev/sda rw\n"
				 "6 1 8:1 /etc /w/etc rw - ext4 /dev/sda rw\n"
				 "7 1 8:3 / /w/over rw - tmpfs tmpfs rw\n"
				 "8 1 8:1 /h/.ssh /w/over rw - ext4 /dev/sda rw\n"
				 "9 1 8:4 / /w/over rw - tmpfs tmpfs rw\n";

static bool
has(const struct sbx_strv *sv, const char *s)
{
	return sbx_strv_contains(sv, s);
}

static void
test_aliases(void)
{
	struct sbx_mounttab t;
	struct sbx_strv out = { 0 };

	sbx_mounttab_parse(table, &t);
	sbx_mount_aliases(&t, "/h/.ssh", true, &out);
	ok(has(&out, "/h/.ssh"), "a secret is its own alias");
	ok(has(&out, "/w/alias"), "a bind mount of it is an alias");
	ok(has(&out, "/r/h/.ssh"), "a bind mount of the home shows it below");
	ok(has(&out, "/k"), "whole: a mount of a part of it counts");
	ok(has(&out, "/w/over"), "a mount covered later on the same point still counts (kept)");
	is_int((int)out.n, 5, "nothing else");
	sbx_strv_free(&out);

	sbx_mount_aliases(&t, "/h/.ssh", false, &out);
	ok(!has(&out, "/k"), "not whole: a mount of a part is left out");
	sbx_strv_free(&out);

	sbx_mount_aliases(&t, "/w/alias/id_rsa", false, &out);
	ok(has(&out, "/h/.ssh/id_rsa"), "seen through an alias: the original name");
	ok(has(&out, "/r/h/.ssh/id_rsa"), "and the other alias");
	sbx_strv_free(&out);

	sbx_mount_aliases(&t, "/w/etc", false, &out);
	ok(has(&out, "/etc"), "a bind of /etc is /etc");
	sbx_strv_free(&out);

	sbx_mount_aliases(&t, "/data/x", true, &out);
	is_int((int)out.n, 1, "another device: only itself");
	sbx_strv_free(&out);

	sbx_mount_aliases(&t, "/w/over/f", false, &out);
	ok(!has(&out, "/h/.ssh/f"), "the last mount on a point is the one seen");
	is_int((int)out.n, 1, "a tmpfs there has no other name");
	sbx_strv_free(&out);
	sbx_mounttab_free(&t);

	/* Fields ending in a slash (the kernel writes none, a fuzzer did):
	 * read as without it, never past the end of the path (the sanitized
	 * build's unit run reads out of bounds otherwise). */
	sbx_mounttab_parse("1 0 8:1 / / rw - ext4 /dev/sda rw\n"
			   "2 1 8:1 /h/.ssh/ /a/ rw - ext4 /dev/sda rw\n",
	    &t);
	sbx_mount_aliases(&t, "/a", true, &out);
	ok(has(&out, "/h/.ssh/"), "a trailing slash: /a is the mount of /h/.ssh/ at /a/");
	sbx_strv_free(&out);
	sbx_mount_aliases(&t, "/h/.ssh", true, &out);
	ok(has(&out, "/a/"), "... and /h/.ssh is seen at /a/");
	sbx_strv_free(&out);
	sbx_mounttab_free(&t);
}

static void
view(struct sbx_fsview *v, const char *wd)
{
	memset(v, 0, sizeof(*v));
	v->workdir = sbx_xstrdup(wd);
	sbx_strv_push(&v->homes, "/h");
}

static void
test_widen(void)
{
	struct stub s = { home_nodes, SBX_ARRAY_LEN(home_nodes), table, 0 };
	struct sbx_idfs fs = idfs(&s);
	struct sbx_strv homes = { 0 };
	struct sbx_policy p;
	struct sbx_fsview v;

	sbx_policy_init(&p, "/h");
	sbx_strv_push(&homes, "/h");
	view(&v, "/w");
	sbx_secret_list("/h", &v.hidden);
	sbx_strv_push(&v.hidden, "/etc/shadow");
	sbx_secrets_widen(&fs, &p, &homes, &v);
	ok(has(&v.hidden, "/h/.config"), "the unsearchable ~/.config is hidden whole");
	ok(p.warnings.n >= 1 && strstr(p.warnings.v[0], "/h/.config") != NULL,
	    "and a warning says so");
	ok(has(&v.hidden, "/w/alias"), "the bind mount of ~/.ssh in the workdir is hidden");
	ok(has(&v.hidden, "/r/h/.ssh"), "and ~/.ssh in the bind mount of the home");
	ok(has(&v.hidden, "/k"), "and a mount of a part of ~/.ssh");
	ok(!has(&v.hidden, "/w/etc"), "a bind of /etc holds no hidden path by itself");
	sbx_fsview_free(&v);
	sbx_policy_free(&p);
	sbx_strv_free(&homes);
}

static int
check(struct stub *s, const char *wd, const char *read, struct sbx_err *err)
{
	struct sbx_idfs fs = idfs(s);
	struct sbx_strv homes = { 0 };
	struct sbx_policy p;
	struct sbx_fsview v;
	int r;

	sbx_policy_init(&p, "/h");
	sbx_strv_push(&homes, "/h");
	view(&v, wd);
	sbx_secret_list("/h", &v.hidden);
	sbx_strv_push(&v.hidden, "/etc/shadow");
	if (read) {
		p.fs = SBX_FS_ALLOWLIST;
		sbx_strv_push(&v.read, read);
	}
	sbx_secrets_widen(&fs, &p, &homes, &v);
	memset(err, 0, sizeof(*err));
	s->lists = 0;
	r = sbx_secrets_check(&fs, &p, &homes, &v, err);
	sbx_fsview_free(&v);
	sbx_policy_free(&p);
	sbx_strv_free(&homes);
	return r;
}

static void
test_links(void)
{
	struct stub s = { home_nodes, SBX_ARRAY_LEN(home_nodes), NULL, 0 };
	struct sbx_err err;

	is_int(check(&s, "/w", NULL, &err), -1,
	    "a hard link to ~/.ssh/id_rsa in the workdir: refused");
	like(err.msg, "/w/copy", "the message names the link");
	like(err.msg, "/h/.ssh/id_rsa", "and the secret");
	is_int(check(&s, "/w2", "/r", &err), -1, "a hard link in a -r tree (allowlist): refused");
	like(err.msg, "/r/deep/k", "the message names it");
	is_int(check(&s, "/w2", NULL, &err), 0, "no link in the workdir: accepted");
	is_int(check(&s, "/w3", NULL, &err), -1,
	    "a directory that cannot be searched while a secret has links: refused");
	like(err.msg, "/w3/locked", "the message names it");
	is_int(check(&s, "/h", NULL, &err), 0,
	    "workdir = home: the secret itself, under a hidden path, is no link");
	is_int(check(&s, "/w4", NULL, &err), -1,
	    "a file with other names while the caller's ~/.config cannot be listed: refused");
	like(err.msg, "/w4/pnpm-file has other names, and /h/.config cannot be searched",
	    "the message names the file and the directory");
}

static const struct node single_nodes[] = {
	{ "/", 'd', 2, 0, false },
	{ "/h", 'd', 3, 0, false },
	{ "/h/.ssh", 'd', 7, 0, false },
	{ "/h/.ssh/id_rsa", 'f', 8, 1, false },
	{ "/w3", 'd', 18, 0, false },
	{ "/w3/locked", 'd', 19, 0, true },
};

static const struct node foreign_nodes[] = {
	{ "/", 'd', 2, 0, false },
	{ "/h", 'd', 3, 0, false },
	{ "/h/.ssh", 'd', 7, 0, FOREIGN },
	{ "/w4", 'd', 22, 0, false },
	{ "/w4/pnpm-file", 'f', 23, 2, false },
};

static const struct node listonly_nodes[] = {
	{ "/", 'd', 2, 0, false },
	{ "/h", 'd', 3, 0, false },
	{ "/h/.ssh", 'd', 7, 0, LISTONLY },
	{ "/h/.ssh/id_rsa", 'f', 8, 2, false },
	{ "/w5", 'd', 24, 0, false },
	{ "/w5/k", 'f', 8, 2, false },
};

static void
test_listonly(void)
{
	struct stub s = { listonly_nodes, SBX_ARRAY_LEN(listonly_nodes), NULL, 0 };
	struct sbx_err err;

	is_int(check(&s, "/w5", NULL, &err), -1,
	    "a link to a file of a ~/.ssh that lists but cannot be searched: refused");
	like(err.msg, "/w5/k has other names, and /h/.ssh cannot be searched",
	    "the message names the link and the directory");
}

static void
test_no_walk(void)
{
	struct stub s = { single_nodes, SBX_ARRAY_LEN(single_nodes), NULL, 0 };
	struct stub f = { foreign_nodes, SBX_ARRAY_LEN(foreign_nodes), NULL, 0 };
	struct sbx_err err;

	is_int(check(&s, "/w3", NULL, &err), 0,
	    "no secret file has a second link: accepted, even with a locked directory");
	is_int(s.lists, 1, "and only ~/.ssh was listed, no exposed tree");
	is_int(check(&f, "/w4", NULL, &err), 0,
	    "another owner's secret directory that cannot be listed: a file with other "
	    "names is accepted");
	is_int(f.lists, 1, "and no tree was walked");
}

static void
test_alias_refusals(void)
{
	struct stub s = { home_nodes, SBX_ARRAY_LEN(home_nodes), table, 0 };
	struct sbx_err err;

	is_int(check(&s, "/w/etc", NULL, &err), -1, "a workdir that is a bind of /etc: refused");
	like(err.msg, "it is also /etc", "the message names the original");
	is_int(check(&s, "/r/h/proj", NULL, &err), 0,
	    "a workdir in a bind of the home is no system directory");
}

int
main(void)
{
	test_opaque();
	test_mounttab();
	test_aliases();
	test_widen();
	test_links();
	test_no_walk();
	test_listonly();
	test_alias_refusals();
	return done_testing();
}
